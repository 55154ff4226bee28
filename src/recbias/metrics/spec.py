"""Metric specifications such as ``"P@10"``, ``"nDCG"``, ``"PSR@10(gamma=0.5)"``,
``"SNIPS-P@10(power=0.5)"`` or ``"bAUC@50(Q=0.3,m=10)"``, parsed in one place.

Grammar: ``NAME[@n][(key=value, ...)]``.  Names are case-insensitive and have
a few aliases (``MAP`` = ``AP``, ``MRR`` = ``RR``, ``R-prec`` = ``Rprec``);
per run, ``MAP`` is the run's AP and ``MRR`` its RR, their means being MAP and MRR.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from recbias.metrics import accuracy, incomplete, ips, popularity
from recbias.metrics._view import Ranked, as_view
from recbias.metrics.discounted_auc import GAINS, check_parameters, discounted_auc
from recbias.metrics.popularity import ItemPopularity


def _choice(*allowed: str) -> Callable[[str], str]:
    def convert(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}, got {value!r}")
        return value

    return convert


def _number_in(low: float, high: float) -> Callable[[str], float]:
    def convert(value: str) -> float:
        number = float(value)
        if not low <= number <= high:
            raise ValueError(f"expected a number in [{low:g}, {high:g}], got {value!r}")
        return number

    return convert


def _integer_from(low: int) -> Callable[[str], int]:
    def convert(value: str) -> int:
        number = int(value)
        if number < low:
            raise ValueError(f"expected an integer >= {low}, got {value!r}")
        return number

    return convert


def _propensity_weighted(metric: Callable[..., np.ndarray], self_normalised: bool) -> Callable[..., np.ndarray]:
    """An IPS or SNIPS metric whose propensities are fitted on the training counts and scaled to the test size."""

    def compute(runs: Ranked, n: int, item_popularity: ItemPopularity, power: float) -> np.ndarray:
        return metric(runs, n, item_popularity.propensity(power), self_normalised, item_popularity.test_positive)

    return compute


@dataclass(frozen=True)
class _Definition:
    function: Callable[..., np.ndarray]
    cutoff: str  # "required", "optional" or "none"
    parameters: dict[str, Callable[[str], Any]] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    needs_popularity: bool | Callable[[dict[str, Any]], bool] = False  # a callable decides from the parameters
    check: Callable[..., Any] | None = None  # check(cutoff, **params) raises ValueError on impossible settings
    reads_judged: bool = False  # reads the judged non-relevant entries (the incomplete-judgment metrics)


_DEFINITIONS: dict[str, _Definition] = {
    "P": _Definition(accuracy.precision, "required"),
    "Recall": _Definition(accuracy.recall, "required"),
    "F1": _Definition(accuracy.f1, "required"),
    "HR": _Definition(accuracy.hit_rate, "required"),
    "Rprec": _Definition(accuracy.r_precision, "none"),
    "RR": _Definition(accuracy.reciprocal_rank, "optional"),
    "AP": _Definition(
        accuracy.average_precision,
        "optional",
        {"normalise": _choice("relevant", "cutoff", "candidates")},
        {"normalise": "relevant"},
    ),
    "nDCG": _Definition(accuracy.ndcg, "optional", {"gain": _choice("linear", "exponential")}, {"gain": "linear"}),
    "AUC": _Definition(accuracy.auc, "none"),
    "bpref": _Definition(incomplete.bpref, "none", {"cap": _choice(*incomplete.BPREF_CAPS)}, {"cap": "R"},
                         reads_judged=True),
    "infAP": _Definition(incomplete.infap, "none", {"epsilon": float}, {"epsilon": 0.0}, reads_judged=True),
    "PSR": _Definition(
        popularity.stratified_recall, "required", {"gamma": float}, {"gamma": 1.0}, needs_popularity=True
    ),
    "novelty": _Definition(popularity.novelty, "required", needs_popularity=True),
    "bAUC": _Definition(
        discounted_auc,
        "optional",
        {
            "Q": _number_in(0.0, 1.0),
            "m": _integer_from(1),
            "gain": _choice(*GAINS),
            "base": float,
            "s": _integer_from(0),
        },
        {"Q": 0.3, "m": 10, "gain": "binary", "base": None, "s": 0},
        needs_popularity=lambda params: params["s"] > 0,
        check=check_parameters,
    ),
}
# Inverse-propensity-weighted precision and recall; ``power`` is the exponent of the propensity model.
_DEFINITIONS |= {
    f"{estimator}-{name}": _Definition(
        _propensity_weighted(function, estimator == "SNIPS"), "required", {"power": float}, {"power": 0.5},
        needs_popularity=True,
    )
    for estimator in ("IPS", "SNIPS")
    for name, function in (("P", ips.ips_precision), ("Recall", ips.ips_recall))
}
_ALIASES = {"precision": "P", "hitrate": "HR", "r-prec": "Rprec", "mrr": "RR", "map": "AP", "ndcg": "nDCG"}
_LOOKUP = {name.lower(): name for name in _DEFINITIONS} | _ALIASES
_PATTERN = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(?:@\s*(\d+))?\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric: canonical ``name``, ``cutoff`` (``None`` = whole run), ``params``, and
    ``label``, the text it was parsed from (the column name in per-run tables).

    >>> spec = parse_metric("nDCG@10(gain=exponential)")
    >>> spec.name, spec.cutoff, spec.params, spec.needs_popularity
    ('nDCG', 10, {'gain': 'exponential'}, False)
    """

    label: str
    name: str
    cutoff: int | None
    params: dict[str, Any]

    @property
    def needs_popularity(self) -> bool:
        needs = _DEFINITIONS[self.name].needs_popularity
        return needs(self.params) if callable(needs) else needs

    @property
    def reads_judged(self) -> bool:
        """Whether the metric reads where judged non-relevant candidates rank (bpref, infAP)."""
        return _DEFINITIONS[self.name].reads_judged

    def compute(self, runs: Ranked, item_popularity: ItemPopularity | None = None) -> np.ndarray:
        """Per-run values of this metric on a ranking (or runs in rank order)."""
        definition = _DEFINITIONS[self.name]
        args: list[Any] = [runs]
        if definition.cutoff != "none":
            args.append(self.cutoff)
        if self.needs_popularity:
            if item_popularity is None:
                raise ValueError(f"metric {self.label!r} needs item popularity: pass an ItemPopularity")
            args.append(item_popularity)
        return definition.function(*args, **self.params)


def valid_metric_names() -> list[str]:
    """Canonical metric names with their cutoff rule, for error messages and docs.

    >>> valid_metric_names()[:6]
    ['P@n', 'Recall@n', 'F1@n', 'HR@n', 'Rprec', 'RR[@n]']
    """
    rule = {"required": "@n", "optional": "[@n]", "none": ""}
    return [f"{name}{rule[d.cutoff]}" for name, d in _DEFINITIONS.items()]


def parse_metric(text: str) -> MetricSpec:
    """Parse ``NAME[@n][(key=value, ...)]``; unknown names and bad parameters raise ``ValueError``.

    Names are matched regardless of case; the label keeps the text as written:

    >>> parse_metric("ndcg@10")
    MetricSpec(label='ndcg@10', name='nDCG', cutoff=10, params={'gain': 'linear'})
    """
    match = _PATTERN.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"cannot parse metric {text!r}; expected NAME[@n][(key=value, ...)]")
    raw_name, raw_cutoff, raw_params = match.groups()
    name = _LOOKUP.get(raw_name.lower())
    if name is None:
        raise ValueError(f"unknown metric {raw_name!r} in {text!r}; valid metrics: {', '.join(valid_metric_names())}")
    definition = _DEFINITIONS[name]
    cutoff = None if raw_cutoff is None else int(raw_cutoff)
    if cutoff is not None and cutoff < 1:
        raise ValueError(f"metric {text!r}: the cutoff must be a positive integer")
    if definition.cutoff == "required" and cutoff is None:
        raise ValueError(f"metric {text!r} needs a cutoff, e.g. {name}@10")
    if definition.cutoff == "none" and cutoff is not None:
        raise ValueError(f"metric {text!r} takes no cutoff")
    params = dict(definition.defaults)
    for item in filter(None, (part.strip() for part in (raw_params or "").split(","))):
        key, equals, value = (piece.strip() for piece in item.partition("="))
        if not equals or key not in definition.parameters:
            allowed = ", ".join(definition.parameters) or "none"
            raise ValueError(f"metric {text!r}: bad parameter {item!r}; parameters of {name}: {allowed}")
        try:
            params[key] = definition.parameters[key](value)
        except ValueError as error:
            raise ValueError(f"metric {text!r}: parameter {key}: {error}") from None
    if definition.check is not None:
        try:
            definition.check(cutoff, **params)
        except ValueError as error:
            raise ValueError(f"metric {text!r}: {error}") from None
    return MetricSpec(label=text.strip(), name=name, cutoff=cutoff, params=params)


def compute_metrics(
    runs: Ranked, metrics: Sequence[str], item_popularity: ItemPopularity | None = None
) -> dict[str, np.ndarray]:
    """Per-run values of every metric in ``metrics`` on a ranking (or runs in rank order), keyed by the spec text.

    All metrics share one :class:`RankedView`, so the index work is done once.

    >>> from recbias.runs import Runs
    >>> runs = Runs.from_arrays([0, 4], users=[0], items=[10, 11, 12, 13], labels=[0, 1, 0, 1])
    >>> {label: values.tolist() for label, values in compute_metrics(runs, ["P@2", "RR", "AP"]).items()}
    {'P@2': [0.5], 'RR': [0.5], 'AP': [0.5]}
    """
    specs = [parse_metric(text) for text in metrics]
    labels = [spec.label for spec in specs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"duplicate metrics in {labels}")
    view = as_view(runs)
    return {spec.label: spec.compute(view, item_popularity) for spec in specs}
