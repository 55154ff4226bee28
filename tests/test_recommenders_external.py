"""Systems from outside the package: classes by name, and scores written by another program."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recbias.ratings import Ratings
from recbias.recommenders import Popularity
from recbias.recommenders.external import load_class, parse_systems
from recbias.recommenders.scorefiles import ScoreFile, prepare_scoring, read_scores, scoring_folds

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "item_mean.py"


@pytest.fixture(scope="module")
def ratings() -> Ratings:
    rng = np.random.default_rng(3)
    pairs = np.unique(rng.integers(0, [40, 30], size=(600, 2)), axis=0)
    return Ratings.from_codes(pairs[:, 0], pairs[:, 1], rng.integers(1, 6, len(pairs)).astype(float), (40, 30),
                              positive_threshold=4.0, name="tiny")


def oracle(user: np.ndarray, item: np.ndarray) -> np.ndarray:
    """The scores the outside program writes: any function of the pair that the reader must give back."""
    return (user * 31 + item * 7) % 13 + item / 100


@pytest.fixture()
def prepared(ratings: Ratings, tmp_path: Path) -> Path:
    prepare_scoring(ratings, tmp_path, seed=1)
    for split in scoring_folds(ratings, seed=1):
        candidates = pd.read_csv(tmp_path / split / "candidates.csv")
        (tmp_path / "mine").mkdir(exist_ok=True)
        candidates.assign(score=oracle(candidates["user"], candidates["item"])).to_csv(
            tmp_path / "mine" / f"{split}.csv", index=False)
    return tmp_path


def test_candidates_are_every_unrated_item_of_every_test_user(ratings: Ratings, prepared: Path) -> None:
    fold = scoring_folds(ratings, seed=1)["coin"]
    written = pd.read_csv(prepared / "coin" / "candidates.csv")
    rated = set(zip(fold.train.users.tolist(), fold.train.items.tolist()))
    expected = {(u, i) for u in set(fold.test.users.tolist()) for i in range(ratings.n_items) if (u, i) not in rated}
    assert set(zip(written["user"], written["item"])) == expected


@pytest.mark.parametrize("split", ["coin", "uniform"])
def test_a_csv_score_file_serves_the_written_scores(ratings: Ratings, prepared: Path, split: str) -> None:
    fold = scoring_folds(ratings, seed=1)[split]
    system = ScoreFile(prepared / "mine").fit(fold.train)
    users = np.unique(fold.test.users)
    block = system.score_users(users)
    unrated = ~fold.train.matrix("binary")[users].toarray().astype(bool)
    rows, items = np.nonzero(unrated)
    assert np.allclose(block[rows, items], oracle(users[rows], items))
    assert block[~unrated].size == 0 or block[~unrated].max() < block[unrated].min()


def test_a_trec_run_serves_the_same_scores(ratings: Ratings, prepared: Path) -> None:
    fold = scoring_folds(ratings, seed=1)["coin"]
    frame = pd.read_csv(prepared / "mine" / "coin.csv")
    (prepared / "run").mkdir()
    lines = [f"{u} Q0 {i} {k + 1} {s!r} mine" for k, (u, i, s) in enumerate(frame.itertuples(index=False))]
    (prepared / "run" / "coin.trec").write_text("\n".join(lines) + "\n")
    users = np.unique(fold.test.users)
    from_run = ScoreFile(prepared / "run").fit(fold.train).score_users(users)
    from_csv = ScoreFile(prepared / "mine").fit(fold.train).score_users(users)
    assert np.array_equal(from_run, from_csv)


def rewrite(prepared: Path, change) -> Path:
    frame = pd.read_csv(prepared / "mine" / "coin.csv")
    change(frame).to_csv(prepared / "mine" / "coin.csv", index=False)
    return prepared / "mine"


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: f[f["user"] != f["user"].iloc[0]], r"1 test users have no score at all"),
    (lambda f: f.drop(index=[3, 4]), r"2 of \d+ candidates have no score"),
    (lambda f: pd.concat([f, f.head(1).assign(user=999)]), r"1 users are not in the dataset \(999\)"),
    (lambda f: pd.concat([f, f.head(2).assign(item=[777, 778])]), r"2 items are not in the dataset \(777, 778\)"),
    (lambda f: f.assign(score=f["score"].astype(object).where(f.index != 5, "high")), r"1 scores are missing"),
    (lambda f: pd.concat([f, f.head(1)]), r"1 \(user, item\) pairs are scored twice"),
    (lambda f: f.rename(columns={"score": "value"}), r"no column score"),
])
def test_a_broken_score_file_is_refused_with_counts_and_examples(ratings, prepared, change, message) -> None:
    directory = rewrite(prepared, change)
    with pytest.raises(ValueError, match=message):
        ScoreFile(directory).fit(scoring_folds(ratings, seed=1)["coin"].train)


def test_scores_for_another_split_are_refused(ratings: Ratings, prepared: Path) -> None:
    with pytest.raises(ValueError, match="prepared for other splits"):
        ScoreFile(prepared / "mine").fit(scoring_folds(ratings, seed=2)["coin"].train)


def test_a_score_directory_needs_a_manifest_and_its_files(ratings: Ratings, tmp_path: Path, prepared: Path) -> None:
    train = scoring_folds(ratings, seed=1)["coin"].train
    with pytest.raises(ValueError, match="no manifest.json"):
        ScoreFile(tmp_path / "mine" / "a" / "b").fit(train)
    (prepared / "empty").mkdir()
    with pytest.raises(ValueError, match="no scores for the coin split"):
        ScoreFile(prepared / "empty").fit(train)


def test_a_trec_line_with_missing_fields_is_named(tmp_path: Path) -> None:
    (tmp_path / "coin.trec").write_text("1 Q0 2 1 0.5 x\n1 Q0 3 2\n")
    with pytest.raises(ValueError, match=r"1 lines have fewer than the six fields .*lines 2"):
        read_scores(tmp_path / "coin.trec")


def test_a_parquet_file_serves_the_same_scores(ratings: Ratings, prepared: Path) -> None:
    fold = scoring_folds(ratings, seed=1)["coin"]
    (prepared / "columnar").mkdir()
    pd.read_csv(prepared / "mine" / "coin.csv").to_parquet(prepared / "columnar" / "coin.parquet", index=False)
    users = np.unique(fold.test.users)
    from_parquet = ScoreFile(prepared / "columnar").fit(fold.train).score_users(users)
    from_csv = ScoreFile(prepared / "mine").fit(fold.train).score_users(users)
    assert np.array_equal(from_parquet, from_csv)


def test_a_file_that_is_not_parquet_is_named(tmp_path: Path) -> None:
    (tmp_path / "coin.parquet").write_bytes(b"PAR1 but not really")
    with pytest.raises(ValueError, match=r"coin.parquet: not a readable Parquet file"):
        read_scores(tmp_path / "coin.parquet")


def test_a_class_is_loaded_from_a_file_or_a_module_and_fits(ratings: Ratings) -> None:
    cls = load_class(f"{EXAMPLE}:ItemMean")
    fitted = cls(seed=0).fit(ratings)
    sums = np.zeros(ratings.n_items)
    counts = np.zeros(ratings.n_items)
    for item, value in zip(ratings.items, ratings.values, strict=True):
        sums[item] += value
        counts[item] += 1
    expected = (sums + 10 * ratings.values.mean()) / (counts + 10)
    assert np.allclose(fitted.score(np.array([0, 5]), np.array([3, 7])), expected[[3, 7]])
    assert load_class("recbias.recommenders:Popularity") is Popularity


@pytest.mark.parametrize(("spec", "message"), [
    ("recbias.recommenders:Nothing", "has no 'Nothing'"),
    ("recbias.ratings:Ratings", "must subclass recbias.recommenders.Recommender"),
    ("no_such_module_xyz:Model", "cannot import"),
    ("missing/file.py:Model", "no file"),
    (":Model", "module:Class"),
])
def test_a_bad_class_is_refused_clearly(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_class(spec)


def test_systems_are_parsed_into_labels(prepared: Path) -> None:
    systems = parse_systems(f"mf, plsa, {EXAMPLE}:ItemMean, {prepared / 'mine'}")
    assert list(systems) == ["implicit MF (top-N)", "pLSA", "ItemMean", "mine"]
    assert isinstance(systems["mine"], ScoreFile)
    with pytest.raises(ValueError, match="two systems are called 'implicit MF \\(top-N\\)'"):
        parse_systems("mf,mf")
    with pytest.raises(ValueError, match="unknown system 'nonsense'"):
        parse_systems("nonsense")
    for reference in ("popularity", " random"):  # measured on every audit, under the same label
        with pytest.raises(ValueError, match=f"system '{reference.strip()}' is called '{reference.strip().title()}'"):
            parse_systems(f"mf,{reference}")
