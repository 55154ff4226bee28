"""The protocols an audit measures: eight of :func:`recbias.protocol_study.protocols`, each with the chapter
that explains it."""

from __future__ import annotations

from recbias.protocol_study import Protocol, families, protocols

#: every audit compares the user's systems with these two references (display label -> preset)
REFERENCES = {"Random": "random", "Popularity": "popularity"}
#: the audit's protocols, in the order its tables list them -> the page that explains each
EXPLAINED_IN = {"AR TI-AN P@10": "03_sparsity_bias", "1R P@10": "02_designs", "P1R(10) P@10": "05_neutralising_designs",
                "U1R P@10": "05_neutralising_designs", "UAR P@10": "05_neutralising_designs",
                "sampled HR@10": "06_sampled_metrics", "sampled HR@10, corrected (BV 0.1)": "06_sampled_metrics",
                "full-catalogue nDCG@10": "06_sampled_metrics"}
#: the standard all-relevant protocol the neutralising ones are compared with
AR = "AR TI-AN P@10"
#: the audit's protocols whose candidates neutralise popularity (IRJ 2017 Sec. 6)
NEUTRALISING = tuple(label for label in EXPLAINED_IN if families()[label] == "neutralising")


def audit_protocols(n_items: int) -> list[Protocol]:
    """The protocols of :data:`EXPLAINED_IN`, in its order, with target sets sized to a catalogue of ``n_items``
    (:func:`recbias.protocol_study.protocols`)."""
    by_label = {p.label: p for p in protocols(n_items)}
    return [by_label[label] for label in EXPLAINED_IN]
