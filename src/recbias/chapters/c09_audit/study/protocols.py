"""The protocols an audit measures: ten of :func:`recbias.protocol_study.protocols`, each with the chapter
that explains it, read with their usual metrics or with one metric at one cutoff for all that take one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from recbias.metrics import parse_metric
from recbias.protocol_study import Protocol, protocols
from recbias.sampled.rank_metrics import rank_metric

#: the audit's protocols by their label in :func:`recbias.protocol_study.protocols`, in the order its tables list
#: them -> the page that explains each
EXPLAINED_IN = {"AR TI-AN P@10": "03_sparsity_bias", "1R P@10": "02_designs", "P1R(10) P@10": "05_neutralising_designs",
                "U1R P@10": "05_neutralising_designs", "UAR P@10": "05_neutralising_designs",
                "sampled HR@10": "06_sampled_metrics", "sampled HR@10, corrected (BV 0.1)": "06_sampled_metrics",
                "full-catalogue nDCG@10": "06_sampled_metrics", "bpref": "05_neutralising_designs",
                "infAP": "05_neutralising_designs"}
#: the ``metric`` that keeps each protocol's usual metric family (precision on target sets, the hit rate when
#: sampled, nDCG over the full catalogue), read at the audit's cutoff
USUAL = "usual"
#: the family of the protocols whose metric is their own, read over the whole ranking without a cutoff (bpref and
#: infAP, metrics for incomplete judgments): measured under the :data:`USUAL` metrics only
OWN_METRIC = "incomplete judgments"
#: the design of the standard all-relevant protocol the neutralising ones are compared with (AR over the test items)
AR_DESIGN = "TI-AN"


def audit_protocols(n_items: int, metric: str = USUAL, cutoff: int = 10) -> list[Protocol]:
    """The protocols of :data:`EXPLAINED_IN`, in its order, with target sets sized to a catalogue of ``n_items``
    (:func:`recbias.protocol_study.protocols`), each reading ``metric@cutoff`` (its usual metric family at
    ``cutoff`` for :data:`USUAL`), its label saying so; the protocols of the :data:`OWN_METRIC` family read their
    own metric, and only under :data:`USUAL`.  ``metric`` must take a cutoff and be a function of the rank of one
    relevant item, so that the sampled protocols can be corrected (``ValueError`` otherwise).

    >>> [p.label for p in audit_protocols(1000, "nDCG", 5)][:2]
    ['AR TI-AN nDCG@5', '1R nDCG@5']
    >>> [p.metric for p in audit_protocols(1000)][-3:]
    ['nDCG@10', 'bpref', 'infAP']
    """
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1:
        raise ValueError(f"the cutoff must be a positive integer, got {cutoff!r}")
    if metric != USUAL:
        spec = parse_metric(f"{metric}@{cutoff}")
        rank_metric(spec)  # a metric the sampled protocols cannot correct is refused here
        metric = spec.name
    by_label = {p.label: p for p in protocols(n_items)}
    plan = []
    for label in EXPLAINED_IN:
        base = by_label[label]
        if base.family == OWN_METRIC:
            plan += [base] if metric == USUAL else []
            continue
        read = f"{parse_metric(base.metric).name if metric == USUAL else metric}@{cutoff}"
        plan.append(replace(base, label=base.label.replace(base.metric, read), metric=read))
    return plan


def truth_metric(metric: str = USUAL, cutoff: int = 10) -> str | None:
    """The metric the truth orders systems by in an audit reading ``metric@cutoff`` (:func:`audit_protocols`):
    that metric when one is chosen for every protocol, else None, chapter 8's headline truth
    (:func:`recbias.protocol_study.headline_truth`).

    >>> truth_metric("ndcg", 5), truth_metric()
    ('nDCG@5', None)
    """
    return None if metric == USUAL else f"{parse_metric(f'{metric}@{cutoff}').name}@{cutoff}"


def explained_in(plan: Sequence[Protocol]) -> dict[str, str]:
    """Protocol label -> the page that explains it, for protocols of :func:`audit_protocols` (a label of
    :data:`EXPLAINED_IN` with its metric replaced by the one the protocol reads)."""
    usual = {p.label: p.metric for p in protocols(1000)}  # labels and metrics do not depend on the catalogue
    return {p.label: next(page for label, page in EXPLAINED_IN.items()
                          if label.replace(usual[label], p.metric) == p.label) for p in plan}


def ar_protocol(plan: Sequence[Protocol]) -> str:
    """The label of the standard all-relevant protocol of ``plan`` (over the test items, :data:`AR_DESIGN`)."""
    return next(p.label for p in plan if p.family == "standard" and p.design == AR_DESIGN)


def neutralising(plan: Sequence[Protocol]) -> tuple[str, ...]:
    """The labels of the protocols of ``plan`` whose candidates neutralise popularity (IRJ 2017 Sec. 6)."""
    return tuple(p.label for p in plan if p.family == "neutralising")
