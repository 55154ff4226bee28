"""Chapter 4's studies, small (on ``synthetic-small``, computed once per session) and hand-made (every
number chosen, so that tests can sit on the edges of what the page says)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

import numpy as np
import pandas as pd
from scipy import stats

from recbias import datasets
from recbias.chapters.c04_popularity_bias import study
from recbias.chapters.c04_popularity_bias.study.orderings import OrderingStudy
from recbias.chapters.c04_popularity_bias.study.skew import sweep_all_relevant_design
from recbias.ratings import Ratings
from recbias.synthetic import PRESETS

TARGET = 40
#: the users of a hand-made sweep's paired tests
USERS = 1000


@cache
def small() -> Ratings:
    return datasets.load("synthetic-small", seed=0)


@cache
def orderings() -> OrderingStudy:
    return study.ordering_study(small(), folds=2, target_size=TARGET, seed=0)


@cache
def sweep() -> study.SkewSweep:
    return study.skew_sweep([1.0], preset="synthetic-small", target_size=TARGET, seed=0, cache=False)


@cache
def curves() -> pd.DataFrame:
    return study.positive_ratio_curves([small()])


@cache
def grid_study() -> study.ObservationGrid:
    return study.observation_grid([1.0], [0.0, 2.0], preset="synthetic-small", target_size=TARGET, cache=False)


def grid() -> pd.DataFrame:
    return grid_study().precision


@cache
def mainstream() -> pd.DataFrame:
    return study.mainstream_study(small(), cache=False)


# ----------------------------------------------------------------------------------------- hand-made


def hand_sweep(one: Mapping[str, Mapping[float, tuple[float, float, float]]], *, ar_scale: float = 2.0,
               uniform: Mapping[str, Mapping[str, float]] | None = None, preset: str = "synthetic-ml1m",
               target_size: int = 100, p: Mapping[tuple[str, str], float] | None = None) -> study.SkewSweep:
    """A sweep whose 1R precision is ``one[system][alpha] = (mean, ci_low, ci_high)``, the same on every metric;
    AR is 1R times ``ar_scale``; ``uniform[counts]`` overrides the columns of the ``alpha = 0`` rows of
    ``expected``.  Paired tests over :data:`USERS` users: every system against random, and every system but random
    against popularity, with the difference of the means, ``p[(baseline, system)]`` (0.5 unless given) and the t
    statistic that gives it.  Per user, :data:`USERS` users with one run each whose values have the mean and the
    95% interval of ``one``."""
    one_design = f"1R TI-NN({target_size - 1})"
    ar_design = sweep_all_relevant_design(PRESETS[preset]["n_items"])
    rows = [{"alpha": a, "design": d, "system": s, "mean": m * k, "ci_low": lo * k, "ci_high": hi * k}
            for s, by_alpha in one.items() for a, (m, lo, hi) in by_alpha.items()
            for d, k in ((one_design, 1.0), (ar_design, ar_scale))]
    expected = []
    for counts, alphas in ((study.EXACT, sorted(one["Popularity"])), (study.IN_EXPECTATION, [0.0])):
        for a in alphas:
            (pm, plo, phi), (rm, _, _) = one["Popularity"][a], one["Random"][a]
            row = {"alpha": a, "counts": counts, "item count variance / mean": 0.0, "training shift": -0.8,
                   "Popularity": pm, "Popularity low": plo, "Popularity high": phi, "Popularity expected": pm,
                   "Random": rm, "p (Popularity vs Random)": 0.5}
            expected.append(row | (dict((uniform or {}).get(counts, {})) if a == 0 else {}))
    alphas = sorted(one["Popularity"])
    share = np.linspace(0, 1, 11)
    curves = pd.concat([pd.DataFrame({"rank_share": share, "cumulative_share": share ** (1 / (1 + a)), "alpha": a})
                        for a in alphas], ignore_index=True)
    worlds = pd.DataFrame({"alpha": alphas, "c1": 0.0, "c2": 296.5, "beta": 1.0, "most": 300, "fewest": 10,
                           "top 10% share": 0.1})
    metrics = pd.DataFrame([{"system": s, "metric": m, "mean": mean, "ci_low": lo, "ci_high": hi, "alpha": a}
                            for s, by_alpha in one.items() for a, (mean, lo, hi) in by_alpha.items()
                            for m in study.SWEEP_METRICS])
    pairs = [("Random", s) for s in one if s != "Random"] + [("Popularity", s) for s in one
                                                               if s not in ("Random", "Popularity")]
    paired = pd.DataFrame([{"system_a": a, "system_b": b, "metric": m, "alpha": x, "mean_a": one[a][x][0],
                            "mean_b": one[b][x][0], "difference": one[a][x][0] - one[b][x][0], "users": USERS,
                            "t_pvalue": (p or {}).get((a, b), 0.5),
                            "t_statistic": np.sign(one[a][x][0] - one[b][x][0])
                            * stats.t.isf((p or {}).get((a, b), 0.5) / 2, USERS - 1)}
                           for a, b in pairs for x in alphas for m in study.SWEEP_METRICS])
    return study.SkewSweep(pd.DataFrame(rows), metrics, paired, pd.DataFrame(expected), curves, worlds, preset,
                           target_size, 0.2, hand_per_user(one))


def hand_per_user(one: Mapping[str, Mapping[float, tuple[float, float, float]]]) -> pd.DataFrame:
    """Per (alpha, system): :data:`USERS` users with one run each, whose values have the mean ``one[system][alpha][0]``
    and the 95% t interval ``one[system][alpha][1:]``."""
    spread = stats.norm.ppf((np.arange(USERS) + 0.5) / USERS)
    spread = (spread - spread.mean()) / spread.std(ddof=1) * np.sqrt(USERS) / stats.t.ppf(0.975, USERS - 1) / 2
    return pd.concat([pd.DataFrame({"system": s, "user": np.arange(USERS), "runs": 1, "alpha": a,
                                    "total": m + (hi - lo) * spread})
                      for s, by_alpha in one.items() for a, (m, lo, hi) in by_alpha.items()], ignore_index=True)


def hand_orderings(per_user: Mapping[str, np.ndarray], bounds: Mapping[str, tuple[float, float]], *,
                   target_size: int = 100) -> OrderingStudy:
    """An ordering study with one 1R run and one AR run per user, whose P@10 is ``per_user[system]`` in
    both designs; ``bounds[system]`` are its closed-form bounds, and the lemma's hold."""
    one_design = f"1R TI-NN({target_size - 1})"
    frames = [pd.DataFrame({"dataset": "hand", "fold": 0, "design": design, "system": system,
                            "run": np.arange(len(values)), "user": np.arange(len(values)), "group": -1,
                            "P@10": values})
              for design in (one_design, "TI-AN") for system, values in per_user.items()]
    runs = pd.concat(frames, ignore_index=True)
    for column in ("design", "system"):
        runs[column] = pd.Categorical(runs[column], categories=list(dict.fromkeys(runs[column])))
    table = pd.DataFrame([{"system": s, "lemma lower": np.mean(v) - 0.01, "1R P@10 (ties by code)": np.mean(v),
                           "lemma upper": np.mean(v) + 0.01, "closed-form lower": bounds[s][0],
                           "closed-form upper": bounds[s][1]} for s, v in per_user.items()])
    return OrderingStudy("hand", runs, table, float(np.mean(per_user["Popularity"])), target_size, 1, 0.2)
