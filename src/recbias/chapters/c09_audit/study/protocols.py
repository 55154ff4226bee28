"""The protocols an audit measures, each with the chapter that explains it."""

from __future__ import annotations

from dataclasses import dataclass

#: every audit compares the user's systems with these two references (display label -> preset)
REFERENCES = {"Random": "random", "Popularity": "popularity"}
#: the 1R protocols whose candidates neutralise popularity (IRJ 2017 Sec. 6)
NEUTRALISING = ("P1R P@10", "U1R P@10", "UAR P@10")


@dataclass(frozen=True)
class AuditProtocol:
    """A design on a split, read with one metric (``correction``: a Krichene-Rendle method for a sampled
    metric read through :func:`recbias.sampled.corrected_sample`); ``chapter`` is the page that explains it."""

    label: str
    design: str
    metric: str
    split: str
    chapter: str
    correction: str | None = None


def audit_protocols(n_items: int, *, sampled_m: int = 100, ar_design: str = "TI-AN") -> list[AuditProtocol]:
    """AR and 1R with test items, P1R, U1R, UAR, a sampled metric with and without correction, and the full
    catalogue; 1R target sets hold ``k = min(99, n_items // 20)`` non-relevant items (at least 9) so that
    P1R's ten percentiles hold enough of them, the sampled metric ``min(sampled_m, n_items // 3)``."""
    k = max(9, min(99, n_items // 20))
    m = max(9, min(sampled_m, n_items // 3))
    return [
        AuditProtocol("AR P@10", ar_design, "P@10", "coin", "03_sparsity_bias"),
        AuditProtocol("1R P@10", f"1R TI-NN({k})", "P@10", "coin", "02_designs"),
        AuditProtocol("P1R P@10", f"P1R(10) TI-NN({k})", "P@10", "coin", "05_neutralising_designs"),
        AuditProtocol("U1R P@10", f"U1R TI-NN({k})", "P@10", "uniform", "05_neutralising_designs"),
        AuditProtocol("UAR P@10", "UAR TI-AN", "P@10", "uniform", "05_neutralising_designs"),
        AuditProtocol("sampled HR@10", f"1R AI-NN({m})", "HR@10", "coin", "06_sampled_metrics"),
        AuditProtocol("sampled HR@10, corrected", f"1R AI-NN({m})", "HR@10", "coin", "06_sampled_metrics", "BV 0.1"),
        AuditProtocol("full-catalogue nDCG@10", "AI-AN", "nDCG@10", "coin", "06_sampled_metrics"),
    ]
