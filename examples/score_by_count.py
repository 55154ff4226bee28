"""A system outside recbias: score every prepared candidate by its item's number of training ratings.

    python -m recbias prepare --ratings ml-100k --out work
    python examples/score_by_count.py work work/by-count
    python -m recbias audit --ratings ml-100k --scores work/by-count

Any program can take its place: read ``<split>/train.csv`` and ``<split>/candidates.csv``, write
``<split>.csv`` with the columns ``user,item,score`` (or a TREC run ``<split>.trec``).
"""

import sys
from pathlib import Path

import pandas as pd


def main(prepared: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for split in (p.name for p in prepared.iterdir() if (p / "candidates.csv").exists()):
        counts = pd.read_csv(prepared / split / "train.csv")["item"].value_counts()
        candidates = pd.read_csv(prepared / split / "candidates.csv")
        candidates["score"] = candidates["item"].map(counts).fillna(0).to_numpy()
        candidates.to_csv(out / f"{split}.csv", index=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
