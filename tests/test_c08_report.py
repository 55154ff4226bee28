"""Chapter 8's tables: the field, the protocols, fidelity on one truth or two, the halves on every truth and the
cells of the grid, with their values and their structure."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recbias.chapters.c08_protocol_fidelity import report, study


def table(taus: dict[str, tuple[float, float, float]], **columns) -> pd.DataFrame:
    """A fidelity table: protocol -> (tau, tau_low, tau_high), in the order given."""
    return pd.DataFrame([{"protocol": p, "tau": t, "tau_low": lo, "tau_high": hi} for p, (t, lo, hi) in taus.items()]
                        ).assign(**columns)


def test_the_field_table_names_what_sets_each_system_apart():
    rows = report.field_table(study.system_field(0)).set_index("system")
    assert len(rows) == 14
    assert rows.loc["pLSA", "setting"] == "preset parameters"
    assert rows.loc["pLSA (5 aspects)", "setting"] == "5 aspects"
    assert rows.loc["MF (strong reg.)", "setting"] == "regularisation 200"
    assert rows.loc["MF + 25% popularity", "setting"] == "25% popularity rank + 75% MF rank"
    assert rows.loc["MF + 25% popularity", "kind"] == "PopularityBlend"


def test_the_protocol_table_marks_the_uniform_split():
    rows = report.protocol_table(study.protocols(300)).set_index("protocol")
    assert rows.loc["UAR P@10", "design"] == "UAR TI-AN (uniform split)"
    assert rows.loc["1R P@10", "design"] == "1R TI-NN(15)" and rows.loc["bpref", "kind"] == "incomplete judgments"


def test_the_fidelity_table_with_one_split_and_with_several():
    main = table({"a": (0.8, 0.6, 0.9), "b": (0.5, 0.5, 0.5)}, tau_seed_min=[0.7, 0.5], tau_seed_max=[0.9, 0.5],
                 pairs=[0.9, 0.75], best=[1.0, 0.5], best_share=[0.96, 0.1])
    one = report.fidelity_table(main, 1).set_index("protocol")
    assert one.loc["a", "Kendall τ"] == "0.80" and one.loc["a", "τ over users (95%)"] == "0.60 to 0.90"
    assert one.loc["b", "τ over users (95%)"] == "0.50"
    assert one.loc["a", "best system first: splits"] == "yes" and one.loc["b", "best system first: splits"] == "no"
    assert one.loc["a", "best system first: resamples"] == "96%"
    two = report.fidelity_table(main, 2).set_index("protocol")
    assert two.loc["a", "Kendall τ"] == "0.80<br><small>0.70 to 0.90</small>"
    assert two.loc["b", "best system first: splits"] == "1 of 2"


def test_the_comparison_table_marks_the_protocols_apart_beyond_noise():
    main = table({"a": (0.9, 0.8, 1.0), "b": (0.8, 0.7, 0.9), "c": (0.5, 0.4, 0.6)})
    second = table({"a": (0.3, 0.2, 0.4), "b": (0.75, 0.5, 0.95)})
    rows = report.comparison_table(main, second, ("world", "coat")).set_index("protocol")
    assert rows["apart beyond noise"].to_dict() == {"a": "yes", "b": "", "c": ""}
    assert rows.loc["b", "coat, over users (95%)"] == "0.50 to 0.95" and rows.loc["c", "coat, over users (95%)"] == "–"
    assert np.isnan(rows.loc["c", "τ, coat"]) and rows.loc["a", "τ, world"] == 0.9
    assert list(report.comparison_table(main, None, ("world", "")).columns) == [
        "protocol", "τ, world", "world, over users (95%)"]


def test_the_grid_table_names_its_cells():
    cells = pd.DataFrame([[0.5, 0.7]], index=["a"], columns=pd.MultiIndex.from_tuples([(0.5, 0.0), (1.4, 2.5)]))
    named = report.grid_table(cells)
    assert list(named.columns) == ["α = 0.5\nbias 0", "α = 1.4\nbias 2.5"]
    assert named.loc["a"].tolist() == [0.5, 0.7]


def test_the_halves_table_gives_tau_rank_and_count_on_every_truth():
    main = table({"a": (0.9, 0, 1), "b": (0.7, 0, 1), "c": (0.5, 0, 1), "d": (0.3, 0, 1)})
    second = table({"a": (0.9, 0, 1), "b": (0.1, 0, 1), "c": (0.5, 0, 1)})
    grid = pd.DataFrame({"protocol": list("abcd"), "tau": [0.9, 0.1, 0.8, 0.2]})
    rows = report.halves_table(study.halves(main, second, grid, ("world", "coat")))
    assert list(rows.columns) == ["protocol", "τ on world (rank)", "τ on coat (rank)", "τ on simulation grid (rank)",
                                  "upper half on"]
    assert rows.iloc[0].tolist() == ["a", "0.90 (1st)", "0.90 (1st)", "0.90 (1st)", "3 of 3"]
    assert rows.set_index("protocol").loc["d"].tolist() == ["0.30 (4th)", "–", "0.20 (3rd)", "0 of 3"]
    # c is in the upper half on the second truth (at its median) and the grid, b on the build's truth only
    assert rows.set_index("protocol")["upper half on"].to_dict() == {"a": "3 of 3", "c": "2 of 3", "b": "1 of 3",
                                                                      "d": "0 of 3"}
    assert list(rows["protocol"]) == ["a", "c", "b", "d"]
