"""Systems outside Python: splits and candidates written to files, scores read back.

:func:`prepare_scoring` writes, for each split of :func:`scoring_folds`, the training and test
ratings and every candidate a protocol can ask about: each test user paired with every item the
user did not rate in training (the full catalogue contains every sampled target set).  Another
program scores those pairs; :class:`ScoreFile` is the recommender that serves its scores.  Scores
are read from CSV or Parquet (columns ``user``, ``item``, ``score``) or from a TREC run
(``qid Q0 docno rank score tag``, the query being the user and the document the item).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

from recbias.ratings import Ratings
from recbias.recommenders.base import Recommender
from recbias.splits import Fold, make_folds

#: the file that names the prepared splits; a score directory is this directory or one below it
MANIFEST = "manifest.json"
#: score-file suffixes, in the order they are looked for
SCORE_SUFFIXES = (".csv", ".trec", ".run", ".parquet")
TREC_COLUMNS = ("qid", "Q0", "docno", "rank", "score", "tag")
EXAMPLES = 5


def scoring_folds(ratings: Ratings, *, seed: int = 0, test_ratio: float = 0.2) -> dict[str, Fold]:
    """The splits an audit measures on: the first coin-flip split and, where one exists, the first split
    with uniform test item profiles (:func:`recbias.splits.make_folds`, ``folds=1``)."""
    folds = {"coin": make_folds(ratings, method="coin", folds=1, test_ratio=test_ratio, seed=seed)[0]}
    try:
        folds["uniform"] = make_folds(ratings, method="uniform", folds=1, test_ratio=test_ratio, seed=seed)[0]
    except ValueError:
        pass  # no uniform test profile exists at this test ratio
    return folds


def training_digest(train: Ratings) -> str:
    """sha256 over the code space and the sorted (user, item) pairs of a training set."""
    order = np.lexsort((train.items, train.users))
    digest = hashlib.sha256(repr(train.shape).encode())
    digest.update(np.ascontiguousarray(train.users[order], dtype=np.int64).tobytes())
    digest.update(np.ascontiguousarray(train.items[order], dtype=np.int64).tobytes())
    return digest.hexdigest()


def candidate_pairs(train: Ratings, users: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes ``(user, item)`` of each of ``users`` (the test users) paired with every item the user did not
    rate in training."""
    users = np.unique(users)
    rated = train.matrix("binary")[users].toarray().astype(bool) if len(users) else np.zeros((0, train.n_items), bool)
    rows, items = np.nonzero(~rated)
    return users[rows], items


def _write_ratings(ratings: Ratings, path: Path) -> None:
    frame = pd.DataFrame({"user": ratings.user_ids[ratings.users], "item": ratings.item_ids[ratings.items],
                          "rating": ratings.values})
    frame.to_csv(path, index=False)


def prepare_scoring(ratings: Ratings, out: str | Path, *, seed: int = 0, test_ratio: float = 0.2) -> dict:
    """Write ``out/<split>/train.csv``, ``test.csv`` (``user,item,rating``) and ``candidates.csv``
    (``user,item``, original ids) for each split of :func:`scoring_folds`, and ``out/manifest.json``;
    returns the manifest.  The scores of a system go to ``<dir>/<split>.csv`` (or ``.trec``), ``<dir>``
    being ``out`` or a directory below it."""
    out = Path(out)
    manifest = {"dataset": ratings.name, "seed": int(seed), "test_ratio": float(test_ratio), "splits": {}}
    for name, fold in scoring_folds(ratings, seed=seed, test_ratio=test_ratio).items():
        (out / name).mkdir(parents=True, exist_ok=True)
        _write_ratings(fold.train, out / name / "train.csv")
        _write_ratings(fold.test, out / name / "test.csv")
        users, items = candidate_pairs(fold.train, fold.test.users)
        pd.DataFrame({"user": ratings.user_ids[users], "item": ratings.item_ids[items]}).to_csv(
            out / name / "candidates.csv", index=False)
        manifest["splits"][name] = {"train_digest": training_digest(fold.train), "candidates": len(users)}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return manifest


def _examples(values: list) -> str:
    shown = ", ".join(str(v) for v in values[:EXAMPLES])
    return shown + (", ..." if len(values) > EXAMPLES else "")


def read_scores(path: str | Path) -> pd.DataFrame:
    """The ``user``, ``item`` (original ids, as text) and ``score`` columns of a score file.

    CSV needs a header with ``user``, ``item`` and ``score`` (Parquet, columns of those names); a TREC run has
    six whitespace-separated
    fields per line.  Missing or non-numeric scores and repeated (user, item) pairs raise ``ValueError``
    naming the file, the count and the first lines.
    """
    path = Path(path)
    if path.suffix == ".parquet":
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
            raise ValueError(f"{path}: not a readable Parquet file ({error})") from None
    elif path.suffix == ".csv":
        frame = pd.read_csv(path, dtype=str, skipinitialspace=True)
    elif path.suffix in (".trec", ".run"):
        try:
            frame = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, names=list(TREC_COLUMNS))
        except pd.errors.ParserError as error:
            raise ValueError(f"{path}: not a TREC run (qid Q0 docno rank score tag): {error}") from None
        short = frame[list(TREC_COLUMNS)].isna().any(axis=1).to_numpy()
        if short.any():
            lines = list(np.flatnonzero(short) + 1)
            raise ValueError(f"{path}: {len(lines)} lines have fewer than the six fields qid Q0 docno rank score tag "
                             f"(lines {_examples(lines)})")
        frame = frame.rename(columns={"qid": "user", "docno": "item"})
    else:
        raise ValueError(f"{path}: unknown score file type {path.suffix!r}; use one of {', '.join(SCORE_SUFFIXES)}")
    missing = [c for c in ("user", "item", "score") if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: no column {', '.join(missing)}; found {', '.join(map(str, frame.columns))}")
    frame = frame[["user", "item", "score"]].astype({"user": str, "item": str})
    scores = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(scores)
    header = 2 if path.suffix == ".csv" else 1
    if bad.any():
        lines = list(np.flatnonzero(bad) + header)
        raise ValueError(f"{path}: {len(lines)} scores are missing or not finite numbers (lines {_examples(lines)})")
    repeated = frame.duplicated(["user", "item"]).to_numpy()
    if repeated.any():
        lines = list(np.flatnonzero(repeated) + header)
        raise ValueError(f"{path}: {len(lines)} (user, item) pairs are scored twice (lines {_examples(lines)})")
    return frame.assign(score=scores)


def find_manifest(directory: Path) -> Path:
    """The manifest of :func:`prepare_scoring` in ``directory`` or one of its two parents."""
    for folder in (directory, directory.parent, directory.parent.parent):
        if (folder / MANIFEST).exists():
            return folder / MANIFEST
    raise ValueError(f"{directory}: no {MANIFEST} here or above; write the candidates with "
                     "`python -m recbias prepare` and put the score files in that directory or one below it")


def score_path(directory: Path, split: str) -> Path:
    """``directory/<split><suffix>`` for the first suffix of :data:`SCORE_SUFFIXES` that exists."""
    for suffix in SCORE_SUFFIXES:
        if (directory / f"{split}{suffix}").exists():
            return directory / f"{split}{suffix}"
    raise ValueError(f"{directory}: no scores for the {split} split; expected {split}.csv or {split}.trec")


def _codes(ids: pd.Series, known: np.ndarray, what: str, path: Path) -> np.ndarray:
    """Codes of original ids ``ids`` among ``known``; unknown ids raise ``ValueError``."""
    lookup = pd.Index(known.astype(str))
    codes = lookup.get_indexer(ids.to_numpy())
    unknown = pd.unique(ids.to_numpy()[codes < 0]).tolist()
    if unknown:
        raise ValueError(f"{path}: {len(unknown)} {what}s are not in the dataset ({_examples(unknown)})")
    return codes


class ScoreFile(Recommender):
    """The scores another program wrote for the candidates of :func:`prepare_scoring`.

    ``fit(train)`` finds the prepared split whose training set is ``train`` (:func:`training_digest`),
    reads ``directory/<split>.csv`` (or ``.trec``) and checks that it scores every candidate; pairs rated
    in training, which no protocol ranks, score below every scored pair.
    """

    name = "scores"

    def __init__(self, directory: str | Path, seed: int = 0) -> None:
        super().__init__(seed)
        self.directory = Path(directory)

    def _fit(self, train: Ratings) -> None:
        manifest_path = find_manifest(self.directory)
        manifest = json.loads(manifest_path.read_text())
        digest = training_digest(train)
        split = next((name for name, s in manifest["splits"].items() if s["train_digest"] == digest), None)
        if split is None:
            raise ValueError(f"{self.directory}: the scores were prepared for other splits (dataset "
                             f"{manifest['dataset']!r}, seed {manifest['seed']}, test ratio {manifest['test_ratio']}); "
                             "prepare again with the ratings, seed and test ratio of this audit")
        path = score_path(self.directory, split)
        frame = read_scores(path)
        users = _codes(frame["user"], train.user_ids, "user", path)
        items = _codes(frame["item"], train.item_ids, "item", path)
        test = pd.read_csv(manifest_path.parent / split / "test.csv", dtype=str)
        test_users = _codes(test["user"], train.user_ids, "test user", path)
        self.scores = np.full(train.shape, np.nan)
        self.scores[users, items] = frame["score"].to_numpy()
        needed_users, needed_items = candidate_pairs(train, test_users)
        absent = np.isnan(self.scores[needed_users, needed_items])
        unscored = np.unique(needed_users[absent])
        silent = unscored[np.isnan(self.scores[unscored]).all(axis=1)]
        if len(silent):
            raise ValueError(f"{path}: {len(silent)} test users have no score at all "
                             f"({_examples(train.user_ids[silent].tolist())})")
        if absent.any():
            pairs = [f"({u}, {i})" for u, i in zip(train.user_ids[needed_users[absent]].tolist(),
                                                   train.item_ids[needed_items[absent]].tolist(), strict=True)]
            raise ValueError(f"{path}: {len(pairs)} of {len(absent)} candidates have no score "
                             f"(user, item: {_examples(pairs)}); score every row of {split}/candidates.csv")
        self.scores[np.isnan(self.scores)] = np.nanmin(self.scores) - 1.0 if np.isfinite(self.scores).any() else 0.0

    def score_users(self, users: np.ndarray) -> np.ndarray:
        users, _ = self._check(users)
        return self.scores[users]

