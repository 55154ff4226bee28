"""Dataset requirements: a dataset a chapter cannot use is refused before any page runs, one sentence per
unmet need."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from recbias import datasets
from recbias.bookkit import requirements
from recbias.bookkit.pipeline import BuildError, check_requirements, declared_parameters, notebook_pages, select

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = select(notebook_pages(ROOT), None)


def write_csv(path: Path, n_users: int, n_items: int, per_user: int, *, ratings: bool, seed: int = 0) -> Path:
    """Each user rates ``per_user`` distinct items (popular ones more often), 1 to 5 stars or implicitly."""
    rng = np.random.default_rng(seed)
    weights = 1 / np.arange(1, n_items + 1)
    lines = ["user,item,rating" if ratings else "user,item"]
    for user in range(n_users):
        for item in rng.choice(n_items, size=per_user, replace=False, p=weights / weights.sum()):
            lines.append(f"{user},{item},{rng.integers(1, 6)}" if ratings else f"{user},{item}")
    path.write_text("\n".join(lines) + "\n")
    return path


def refusals(path: Path) -> list[str]:
    """The sentences the build prints for the needs of every chapter that ``csv:path`` misses."""
    name = f"csv:{path}"
    try:
        check_requirements(CHAPTERS, datasets.load(name), name, 0, {})
    except BuildError as error:
        return str(error).splitlines()[1:]
    return []


@pytest.fixture()
def three_users(tmp_path) -> Path:
    path = tmp_path / "three.csv"
    path.write_text("user,item,rating\n1,1,5\n1,2,3\n2,1,4\n2,3,2\n3,2,5\n3,4,1\n")
    return path


def test_a_three_user_file_is_refused_by_each_chapter_that_cannot_use_it(three_users):
    lines = [line.strip() for line in refusals(three_users)]
    refused = {line.split(" needs ")[0] for line in lines}
    assert refused == {"chapter 2", "chapter 3", "chapter 4", "chapter 5", "chapter 6", "chapter 8"}
    assert "chapter 5 needs at least 10 users with 2 or more positive ratings; csv:three.csv has 0 " \
           "(so that a split leaves them a positive rating on each side)" in lines
    assert "chapter 6 needs at least 101 rated items; csv:three.csv has 4 (each held-out item is ranked among m " \
           "sampled items; lower -p m)" in lines
    assert "chapter 8 needs at least 60 ratings; csv:three.csv has 6 (20 per user: without a ground truth the " \
           "chapter studies a simulated world of the dataset's size)" in lines
    assert all(str(three_users.parent) not in line for line in lines)  # the file by its name, not its path


def test_an_implicit_file_is_refused_by_chapter_4_only(tmp_path):
    implicit = write_csv(tmp_path / "implicit.csv", n_users=300, n_items=200, per_user=25, ratings=False)
    assert refusals(implicit) == [
        "  chapter 4 needs at least 2 distinct rating values; csv:implicit.csv has 1 (the mainstream study correlates "
        "each user's ratings with the crowd's; implicit feedback has none to correlate)"]


def test_a_file_without_user_attributes_is_accepted_when_large_enough(tmp_path):
    explicit = write_csv(tmp_path / "explicit.csv", n_users=300, n_items=200, per_user=25, ratings=True)
    assert datasets.load(f"csv:{explicit}").user_attributes is None
    assert refusals(explicit) == []


def test_needs_follow_the_pages_parameters(tmp_path):
    small_catalogue = write_csv(tmp_path / "small.csv", n_users=50, n_items=60, per_user=20, ratings=True)
    name = f"csv:{small_catalogue}"
    ratings = datasets.load(name)
    defaults = {n: s.default for n, s in declared_parameters(ROOT / "book" / "02_designs.py").items()}
    assert requirements.unmet("02_designs", ratings, name, defaults) == [
        "chapter 2 needs at least 100 rated items; csv:small.csv has 60 (a 1R target set holds target_size items; "
        "lower -p target_size)"]
    assert requirements.unmet("02_designs", ratings, name, defaults | {"target_size": 50}) == []


def test_the_needs_count_what_they_say(tmp_path):
    path = tmp_path / "counted.csv"  # user 1: two positives (5 is the highest rating), user 2: one, user 3: none
    path.write_text("user,item,rating\n1,1,5\n1,2,5\n1,3,1\n2,1,5\n2,4,2\n3,2,1\n")
    ratings = datasets.load(f"csv:{path}")
    assert requirements.users_with_positives(1, 2).count(ratings, {}) == 1
    assert requirements.users_with_positives(1, 1).count(ratings, {}) == 2
    assert requirements.users_with_ratings(1, 2).count(ratings, {}) == 2
    assert requirements.rated_items(1, "").count(ratings, {}) == 4
    synthetic = datasets.load("synthetic-small")
    assert requirements.without_truth(20)(synthetic, {}) == 0  # a simulated world has its truth
    assert requirements.without_truth(20)(ratings, {}) == 60


def test_every_declaration_names_a_page_of_the_book():
    assert set(requirements.NEEDS) <= {page.name for page in CHAPTERS}


def test_the_build_refuses_before_any_page_runs(three_users):
    result = subprocess.run([sys.executable, "-m", "recbias.bookkit", "--root", str(ROOT), "--no-html",
                             "--dataset", f"csv:{three_users}", "--chapters", "5"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Executing" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert lines[0] == "Build failed: the dataset does not meet what these chapters need:"
    assert [line.split(" needs ")[0].strip() for line in lines[1:]] == ["chapter 5"] * 3
