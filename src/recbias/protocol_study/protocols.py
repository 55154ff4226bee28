"""The offline protocols whose fidelity to a truth is measured (chapters 8 and 9): a design on a split, read
with one metric."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from recbias.splits import fold_seed

#: what separates protocol labels listed in one line or table cell: some labels hold a comma of their own
#: ("sampled HR@10, corrected (BV 0.1)"), so a comma would not tell where one ends
LABEL_SEPARATOR = "; "


@dataclass(frozen=True)
class Protocol:
    """One offline protocol: a design on a split, read with one metric.

    Attributes:
        label: name shown in tables.
        design: design name of :func:`recbias.designs.build_runs`.
        metric: metric spec of :func:`recbias.metrics.parse_metric`.
        split: ``"coin"`` (random 80/20) or ``"uniform"`` (:func:`recbias.splits.uniform_split`).
        family: what kind of remedy it is, for grouping in figures.
        correction: for a sampled metric read through a correction of Krichene and Rendle
            (:func:`recbias.sampled.corrected_sampled_metric`, ``design`` a ``1R AI-NN(m)``),
            the method (``"BV 0.1"``, ...); ``None`` for a metric read from the runs as they are.
    """

    label: str
    design: str
    metric: str
    split: str
    family: str
    correction: str | None = None


def protocols(n_items: int, sampled_m: int = 100) -> list[Protocol]:
    """The protocols under test, with 1R target sets sized to the catalogue.

    1R designs draw ``k = min(99, n_items // 20)`` non-relevant items, so that P1R's ten
    popularity percentiles still hold enough of them on small catalogues (Coat: 300 items);
    ``sampled_m`` negatives from the whole catalogue make the sampled metric of Krichene
    and Rendle (2020) (at most ``n_items // 3``).  The discounted AUC of Bobrikov et al.
    (2016) reads the top 100 of the whole catalogue with chapter 7's attention model
    (``Q = 0.3``, pages of 10), once as it is and once with the short-head step on the 2%
    most-rated items.
    """
    k = max(9, min(99, n_items // 20))
    m = max(9, min(sampled_m, n_items // 3))
    head = max(1, n_items // 50)
    one = f"1R TI-NN({k})"
    return [
        Protocol("AR TI-AN P@10", "TI-AN", "P@10", "coin", "standard"),
        Protocol("AR AI-AN P@10", "AI-AN", "P@10", "coin", "standard"),
        Protocol("full-catalogue nDCG@10", "AI-AN", "nDCG@10", "coin", "standard"),
        Protocol("1R P@10", one, "P@10", "coin", "standard"),
        Protocol("sampled HR@10", f"1R AI-NN({m})", "HR@10", "coin", "sampled"),
        Protocol("sampled HR@10, corrected (BV 0.1)", f"1R AI-NN({m})", "HR@10", "coin", "sampled", "BV 0.1"),
        Protocol("P1R(10) P@10", f"P1R(10) TI-NN({k})", "P@10", "coin", "neutralising"),
        Protocol("1R -10% head P@10", f"{one} -10% head", "P@10", "coin", "neutralising"),
        Protocol("U1R P@10", f"U1R TI-NN({k})", "P@10", "uniform", "neutralising"),
        Protocol("UAR P@10", "UAR TI-AN", "P@10", "uniform", "neutralising"),
        Protocol("AI-UAR P@10", "UAR AI-AN", "P@10", "uniform", "neutralising"),
        Protocol("bpref", "TI-AN", "bpref", "coin", "incomplete judgments"),
        Protocol("infAP", "TI-AN", "infAP", "coin", "incomplete judgments"),
        Protocol("stratified recall@10 (gamma 1)", "TI-AN", "PSR@10(gamma=1)", "coin", "incomplete judgments"),
        Protocol("IPS-P@10 (power 0.5)", "TI-AN", "IPS-P@10(power=0.5)", "coin", "propensity weighting"),
        Protocol("SNIPS-P@10 (power 0.5)", "TI-AN", "SNIPS-P@10(power=0.5)", "coin", "propensity weighting"),
        Protocol("discounted AUC", "AI-AN", "bAUC@100(Q=0.3,m=10)", "coin", "user behaviour"),
        Protocol("discounted AUC, 2% short head off", "AI-AN", f"bAUC@100(Q=0.3,m=10,s={head})", "coin",
                 "user behaviour"),
    ]


def families() -> dict[str, str]:
    """Protocol label -> the kind of remedy it is (``family`` of :func:`protocols`)."""
    return {p.label: p.family for p in protocols(10_000)}


def draw_seed(seed: int, split: str, n_items: int, design: str | None = None) -> int:
    """Seed of the runs of ``design`` drawn on a ``split`` (``None``: of the corrected samples), the same whatever
    protocols are measured beside it, so that a protocol measured in a smaller plan (the audit's) gives the values
    it gives in the whole catalogue: ``fold_seed(seed, k)`` with ``k`` the place of ``design`` among the designs
    that the protocols of :func:`protocols` for ``n_items`` read on ``split`` as they are (not through a
    correction), and the corrected samples after them; a design outside the catalogue is seeded by its name.

    >>> draw_seed(0, "coin", 1000, "TI-AN") == fold_seed(0, 0), draw_seed(0, "coin", 1000) == fold_seed(0, 6)
    (True, True)
    """
    known = list(dict.fromkeys(p.design for p in protocols(n_items) if p.split == split and p.correction is None))
    if design is None:
        return fold_seed(seed, len(known))
    if design in known:
        return fold_seed(seed, known.index(design))
    return fold_seed(seed, int.from_bytes(hashlib.sha256(design.encode()).digest()[:8], "little"))
