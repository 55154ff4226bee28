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
    assert refused == {"chapter 2", "chapter 3", "chapter 4", "chapter 5", "chapter 6", "chapter 8", "chapter 9"}
    assert "chapter 5 needs at least 10 users with 2 or more positive ratings and target_size - 1 or more items they " \
           "never rated; csv:three.csv has 0 (a 1R run draws target_size - 1 items the user never rated beside a " \
           "held-out positive one; lower -p target_size)" in lines
    assert "chapter 6 needs at least 101 rated items; csv:three.csv has 4 (each held-out item is ranked among m " \
           "sampled items; lower -p m)" in lines
    assert any(line.startswith("chapter 8 needs at least 1 simulated world of the dataset's size; csv:three.csv has 0")
               for line in lines)
    assert all(str(three_users.parent) not in line for line in lines)  # the file by its name, not its path


def test_an_implicit_file_is_refused_by_chapter_4_only(tmp_path):
    implicit = write_csv(tmp_path / "implicit.csv", n_users=300, n_items=200, per_user=20, ratings=False)
    assert refusals(implicit) == [
        "  chapter 4 needs at least 2 distinct rating values; csv:implicit.csv has 1 (the mainstream study correlates "
        "each user's ratings with the crowd's; implicit feedback has none to correlate)"]


def test_a_file_without_user_attributes_is_accepted_when_large_enough(tmp_path):
    explicit = write_csv(tmp_path / "explicit.csv", n_users=300, n_items=200, per_user=20, ratings=True)
    assert datasets.load(f"csv:{explicit}").user_attributes is None
    assert refusals(explicit) == []


def test_needs_follow_the_pages_parameters(tmp_path):
    small_catalogue = write_csv(tmp_path / "small.csv", n_users=60, n_items=60, per_user=8, ratings=True)
    name = f"csv:{small_catalogue}"
    ratings = datasets.load(name)
    defaults = {n: s.default for n, s in declared_parameters(ROOT / "book" / "02_designs.py").items()}
    refused = requirements.unmet("02_designs", ratings, name, defaults)
    rated = requirements.rated_items(1, "").count(ratings, {})
    assert rated <= 60 and refused[0] == (f"chapter 2 needs at least 100 rated items; csv:small.csv has {rated} (a 1R "
                                          "target set holds target_size items; lower -p target_size)")
    assert len(refused) == 2 and "users with 2 or more positive ratings and target_size - 1" in refused[1]
    assert requirements.unmet("02_designs", ratings, name, defaults | {"target_size": 20}) == []


def test_the_needs_count_what_they_say(tmp_path):
    path = tmp_path / "counted.csv"  # user 1: two positives (5 is the highest rating), user 2: one, user 3: none
    path.write_text("user,item,rating\n1,1,5\n1,2,5\n1,3,1\n2,1,5\n2,4,2\n3,2,1\n3,5,1\n")
    ratings = datasets.load(f"csv:{path}")
    assert requirements.users_with_ratings(1, 2).count(ratings, {}) == 3
    assert requirements.users_with_ratings(1, 3).count(ratings, {}) == 1
    assert requirements.rated_items(1, "").count(ratings, {}) == 5
    one_r = requirements.one_r_users(1)
    assert one_r.count(ratings, {"target_size": 3}) == 1  # user 1: 2 positives, 2 of 5 items never rated
    assert one_r.count(ratings, {"target_size": 4}) == 0
    assert requirements.rating_values(2, "").count(ratings, {}) == 3


@pytest.mark.parametrize(("n_users", "n_items", "per_user"), [(10, 101, 40), (60, 100, 25), (300, 200, 25)])
def test_the_world_of_its_size_is_accepted_exactly_when_the_generator_accepts_it(tmp_path, n_users, n_items,
                                                                                  per_user):
    from recbias.synthetic import world_with_truth

    ratings = datasets.load(f"csv:{write_csv(tmp_path / 'r.csv', n_users, n_items, per_user, ratings=True)}")
    try:
        world_with_truth(ratings)
        generated = 1
    except ValueError:
        generated = 0
    assert requirements.world_of_its_size().count(ratings, {}) == generated
    assert requirements.world_of_its_size().count(datasets.load("synthetic-small"), {}) == 1  # has its truth


def test_every_page_of_the_book_declares_its_needs():
    assert set(requirements.NEEDS) == {page.name for page in CHAPTERS}


def test_the_build_refuses_before_any_page_runs(three_users):
    result = subprocess.run([sys.executable, "-m", "recbias.bookkit", "--root", str(ROOT), "--no-html",
                             "--dataset", f"csv:{three_users}", "--chapters", "5"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Executing" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert lines[0] == "Build failed: the dataset does not meet what these chapters need:"
    assert [line.split(" needs ")[0].strip() for line in lines[1:]] == ["chapter 5"] * 3


def test_test_set_items_are_counted_by_their_chance_to_fall_in_the_test_set(tmp_path):
    path = tmp_path / "pool.csv"  # items 1-3 once each, item 4 twice; users 1 and 2 have two positives each
    path.write_text("user,item,rating\n1,1,5\n1,2,5\n2,3,5\n2,4,5\n3,4,1\n")
    ratings = datasets.load(f"csv:{path}")
    ti = requirements.one_r_users(1, test_items=True)
    # with test_ratio 0.5 items 1-3 are in the test set with chance 0.5, item 4 with 0.75: user 1 never rated
    # items 3 and 4 (expected 1.25 of them), user 2 items 1 and 2 (expected 1.0)
    assert ti.count(ratings, {"test_ratio": 0.5, "target_size": 2}) == 2
    assert ti.count(ratings, {"test_ratio": 0.5, "target_size": 2.25}) == 1
    assert ti.count(ratings, {"test_ratio": 0.5, "target_size": 3}) == 0
    assert requirements.one_r_users(1).count(ratings, {"target_size": 3}) == 2
