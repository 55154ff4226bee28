"""Metric specifications are parsed in one place, with clear errors."""

from __future__ import annotations

import numpy as np
import pytest
from runs_factory import random_runs

from recbias import metrics as M


@pytest.mark.parametrize(
    ("text", "name", "cutoff", "params"),
    [
        ("P@10", "P", 10, {}),
        ("precision@5", "P", 5, {}),
        ("Recall@10", "Recall", 10, {}),
        ("nDCG@10", "nDCG", 10, {"gain": "linear"}),
        ("nDCG", "nDCG", None, {"gain": "linear"}),
        ("ndcg@3(gain=exponential)", "nDCG", 3, {"gain": "exponential"}),
        ("MAP", "AP", None, {"normalise": "relevant"}),
        ("AP@10(normalise=cutoff)", "AP", 10, {"normalise": "cutoff"}),
        ("MRR", "RR", None, {}),
        ("AUC", "AUC", None, {}),
        ("R-prec", "Rprec", None, {}),
        ("bpref", "bpref", None, {"cap": "R"}),
        ("bpref(cap=none)", "bpref", None, {"cap": "none"}),
        ("infAP(epsilon=1e-5)", "infAP", None, {"epsilon": 1e-5}),
        ("PSR@10(gamma=0.5)", "PSR", 10, {"gamma": 0.5}),
        ("PSR@10(gamma=inf)", "PSR", 10, {"gamma": np.inf}),
        ("PSR@10", "PSR", 10, {"gamma": 1.0}),
        (" HR@1 ", "HR", 1, {}),
    ],
)
def test_parse(text: str, name: str, cutoff: int | None, params: dict) -> None:
    spec = M.parse_metric(text)
    assert (spec.name, spec.cutoff, spec.params, spec.label) == (name, cutoff, params, text.strip())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Precission@10", "unknown metric 'Precission'.*valid metrics: P@n, Recall@n"),
        ("P", "needs a cutoff"),
        ("AUC@10", "takes no cutoff"),
        ("P@0", "positive integer"),
        ("nDCG(gain=cubic)", "gain: expected one of linear, exponential"),
        ("nDCG(discount=2)", "bad parameter 'discount=2'; parameters of nDCG: gain"),
        ("P@10(x=1)", "parameters of P: none"),
        ("PSR@10(gamma=abc)", "parameter gamma"),
        ("P@@10", "cannot parse"),
    ],
)
def test_bad_specs_raise(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        M.parse_metric(text)


def test_compute_metrics_uses_the_named_functions() -> None:
    runs = random_runs(np.random.default_rng(1), n_runs=50)
    values = M.compute_metrics(runs, ["P@5", "MAP", "nDCG@3(gain=exponential)", "AUC"])
    assert list(values) == ["P@5", "MAP", "nDCG@3(gain=exponential)", "AUC"]
    np.testing.assert_array_equal(values["P@5"], M.precision(runs, 5))
    np.testing.assert_array_equal(values["MAP"], M.average_precision(runs))
    np.testing.assert_array_equal(values["nDCG@3(gain=exponential)"], M.ndcg(runs, 3, gain="exponential"))
    with pytest.raises(ValueError, match="duplicate"):
        M.compute_metrics(runs, ["P@5", "P@5"])
    with pytest.raises(ValueError, match="needs item popularity"):
        M.compute_metrics(runs, ["novelty@5"])
