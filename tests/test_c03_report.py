"""Chapter 3's tables, and the measured values its prose quotes, formatted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from c03_inputs import check_frame, density_fits, elasticities, lift_frame, orders, size_fits, summary, sweep

from recbias.bookkit.tables import COLUMN_EM, table_html, table_width
from recbias.chapters.c03_sparsity_bias import claims, report


# ------------------------------------------------------------------------ tables


def test_check_table_counts_per_design() -> None:
    table = report.check_table(check_frame()).set_index("design")
    assert table.loc["TI-AN", "configurations"] == 2 and table.loc["TI-AN", "closed form"] == "σ(1−f)·|PR|/(t·|U|)"
    assert table.loc["TI-AN", "in band of closed form"] == "50%" and table.loc["TI-AN", "in band of ρ"] == "50%"
    assert table.loc["TI-AN", "measured / closed form (median)"] == "0.56"  # median of 1.125 and 0
    assert table.loc["1R AI-NN(99)", "closed form"] == "1/t" and table.loc["1R AI-NN(99)", "in band of ρ"] == "100%"


def test_fit_tables() -> None:
    ar = report.ar_fits_table(density_fits()).set_index("system")
    assert list(ar.index) == ["A", "B", "Random"]
    assert ar.loc["A", "slope b"] == "14.0<br><small>[13.0, 15.0]</small>" and ar.loc["B", "R²"] == "1.000"
    assert ar.loc["A", "change, 0 to 90% removed"] == "-90%<br><small>[-95%, -85%]</small>"
    assert ar.loc["A", "intercept a"] == "-0.0007<br><small>[-0.0010, -0.0005]</small>"
    one_r = report.one_r_fits_table(density_fits(), size_fits()).set_index("system")
    assert one_r.loc["B", "TI-NN: change, 0 to 90% removed"] == "-18%<br><small>[-23%, -13%]</small>"
    assert one_r.loc["A", "exponent e of t"] == "-0.63<br><small>[-0.70, -0.60]</small>"
    without_sizes = report.one_r_fits_table(density_fits(), size_fits().iloc[:0])
    assert "exponent e of t" not in without_sizes.columns


def test_elasticity_table() -> None:
    table = report.elasticity_table(elasticities())
    assert list(table.columns) == ["metric", "A", "B"]  # Random is left out
    assert table["metric"].tolist()[:2] == ["P@10<br><small>with a relevant item</small>", "Recall@10"]
    assert "P@10<br><small>all users</small>" in table["metric"].tolist()
    assert table.set_index("metric").loc["Recall@10", "A"] == "0.05<br><small>[-0.05, 0.15]</small>"


def test_order_table_shows_the_truth_only_when_there_is_one() -> None:
    plain = report.order_table(orders())
    assert plain[("removed", "")].tolist() == ["0%", "50%", "90%", "99%"] and ("AR", "τ, truth") not in plain.columns
    assert plain.loc[2, ("AR", "users")] == "40" and plain.loc[2, ("AR", "τ, full test set")].startswith("0.33<br>")
    # the pairs ordered against the full test set, the one now above first; none where the order is the same
    assert plain[("AR", "swapped")].tolist() == ["–", "–", "B > A", "B > A"] and set(plain[("1R", "swapped")]) == {"–"}
    assert ("1R", "τ, truth") in report.order_table(orders(truth=True)).columns


def test_order_table_fits_the_text_column_as_one_part_per_design() -> None:
    """With the papers' five systems, a truth, and three pairs swapped at a level, the table splits into an AR and
    a 1R part, each repeating the levels, and each fits the text column."""
    table = report.order_table(orders(truth=True)).copy()
    swapped = "<br>".join(["rating-MF > pLSA", "rating-kNN > pLSA", "rating-kNN > Popularity"])
    table[("AR", "swapped")] = table[("1R", "swapped")] = swapped
    html = table_html(table, keep=[("removed", "")])  # as the page glues it
    parts = html.split("<table")[1:]
    assert table_width(html) <= COLUMN_EM and len(parts) == 2
    assert all(">removed<" in part for part in parts) and ">AR<" in parts[0] and ">1R<" in parts[1]


def test_lift_and_spread_tables() -> None:
    table = report.lift_table(lift_frame())
    assert table["dataset, design"].tolist() == ["a<br><small>TI-AN</small>", "b<br><small>TI-AN</small>",
                                                "a<br><small>1R TI-NN(99)</small>", "b<br><small>1R TI-NN(99)</small>"]
    assert table["ρ"].tolist() == ["0.0010", "0.0020", "0.0100", "0.0100"]
    assert table.loc[1, "B"] == "0.0800<br><small>40.0×</small>"  # 0.02 x 4 over ρ = 0.002
    spread = report.spread_table(lift_frame(), 10).set_index("system")
    assert spread.loc["A", "AR P@10"] == "4.0×" and spread.loc["A", "1R P@10"] == "1.2×"
    assert spread.loc["A", "AR lift"] == "2.0×" and spread.loc["A", "P@10, all designs"] == "12.0×"


def test_the_world_table_and_its_note_when_the_check_was_off() -> None:
    world = pd.DataFrame({"system": ["A", "Random"], "full": [0.06, 0.01], "thinned": [0.057, 0.0101],
                          "change": [-0.05, 0.01], "change_ci": [(-0.08, -0.02), (-0.1, 0.1)], "users": 5000,
                          "pool_full": 3700, "pool_thinned": 3330})
    table = report.world_table(world)
    assert table["change"].tolist()[0] == "-5%<br><small>[-8%, -2%]</small>"
    assert table["P@n, 90% removed"].tolist() == ["0.0570", "0.0101"]
    assert table["TI pool (items)"].tolist() == ["3,700 → 3,330"] * 2
    assert report.world_table(None).to_dict("list") == {"note": ["not measured (world_check = False)"]}


def test_the_quoted_numbers_are_the_measured_values_formatted() -> None:
    values = claims.measured(summary(), sweep(), density_fits(), size_fits(), orders(), elasticities(), lift_frame())
    quoted = report.numbers(values)
    assert set(quoted) == {name for names in report.QUOTED.values() for name in names}
    assert (quoted["check_within"], quoted["check_max_z"], quoted["check_users_total"]) == ("93%", "3.1", "12")
    assert (quoted["ar_loss"], quoted["ar_r2"], quoted["ar_random_slope_low"]) == ("90% to 91%", "0.999 to 1.000",
                                                                                   "0.70")
    assert (quoted["pool_full"], quoted["pool_thin_level"], quoted["one_r_change"]) == ("244", "80%", "-25% to -18%")
    assert (quoted["size_exponent_high"], quoted["many_relevant"], quoted["order_tau_beyond"]) == \
        ("-0.60 to -0.40", "25%", "0.33 to 1.00")
    # every value the prose quotes is glued, "n/a" where this build did not measure it
    sparse = report.numbers({"pool_full": float("nan"), "dataset": "d"})
    assert (sparse["pool_full"], sparse["dataset"], sparse["ar_r2"]) == ("n/a", "d", "n/a")
