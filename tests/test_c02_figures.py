"""Chapter 2's figures: every panel drawn with its titles, labels and dataset, the data it plots read back from the
artists and set against the study, and no two texts overlapping."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from designs_study import two_datasets
from recbias.bookkit.plotting import use_theme
from recbias.chapters.c02_designs import figures
from recbias.chapters.c02_designs.study import toy
from figure_text import drawn_texts, overlapping_texts


@pytest.fixture(scope="module", autouse=True)
def theme_and_scratch_cache(tmp_path_factory):
    """The book's theme; fits of this module go to a scratch cache, not to the repository's."""
    use_theme()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECBIAS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


def captions(figure) -> list[str]:
    return [t.get_text() for t in drawn_texts(figure) if t.get_text().startswith("dataset: ")]


def test_the_toy_figure_shows_the_stars_above_one_row_per_target_set() -> None:
    figure = figures.toy_figure(toy.toy_target_sets(seed=0))
    stars, sets = figure.axes
    assert stars.get_title(loc="left") == "stars of each user (circled: held out for test)"
    assert sets.get_title(loc="left") == "target sets of user $u$" and sets.get_xlabel() == "item"
    assert [t.get_text() for t in sets.get_yticklabels()] == [
        "AI-AN", "TI-AN", "AI-NN(1)", "TI-NN(1)", "1R AI-NN(1): $T_u^1$", "1R AI-NN(1): $T_u^2$",
        "1R TI-NN(1): $T_u^1$", "1R TI-NN(1): $T_u^2$"]
    assert len(sets.patches) == 8 * len(toy.TOY_ITEMS)  # one cell per set and item
    target_sets = toy.toy_target_sets(seed=0)
    cells = [t.get_text() for t in sets.texts if t.get_text() != "dataset: hand-made toy"]
    for row, target in enumerate(target_sets):
        for item in range(len(toy.TOY_ITEMS)):
            shown = cells[row * len(toy.TOY_ITEMS) + item]
            assert (shown == "rel") == (item in target.relevant)
            assert (shown in ("rel", "non")) == (item in target.items)
    assert cells[:len(toy.TOY_ITEMS)] == ["non", "non", "non", "rel", "rel", "train", "train"]  # AI-AN: a, b, c
    assert captions(figure) == ["dataset: hand-made toy"]
    assert overlapping_texts(figure) == []
    plt.close(figure)


def legend_overlaps_drawing(figure) -> bool:
    """Whether the box of the figure's legend overlaps any axes (and so any bar, line or label drawn there)."""
    figure.canvas.draw()
    box = figure.legends[0].get_window_extent()
    return any(box.overlaps(ax.get_tightbbox()) for ax in figure.axes)


def test_the_precision_figure_draws_every_panel_and_groups_the_systems_by_set() -> None:
    study = two_datasets()
    figure = figures.precision_figure(study)
    assert [len(ax.patches) for ax in figure.axes] == [3 * 7, 2 * 7]  # one bar per system and design
    assert captions(figure) == ["dataset: synthetic-small", "dataset: other"]
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["AI-AN", "TI-AN", "1R\nTI-NN(49)"]
    assert figure.axes[0].get_ylabel() == "P@10"
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == ["both sets", "Popularity", "pLSA", "Random", "papers' set", "rating-MF", "rating-kNN",
                      "today's top-N set", "implicit MF (top-N)", "user-kNN (top-N)"]
    assert [t.get_fontweight() for t in figure.legends[0].get_texts()][::4][:2] == ["bold", "bold"]
    hatched = {patch.get_hatch() for patch in figure.axes[0].patches[-2 * 3:]}  # the last two systems' bars
    assert hatched == {figures.TOP_N_HATCH} and figure.axes[0].patches[0].get_hatch() is None
    for ax, (dataset, part) in zip(figure.axes, study.summary.groupby("dataset", sort=False), strict=True):
        means = part.set_index(["system", "design"])["mean"]
        designs = list(dict.fromkeys(part["design"]))
        heights = [patch.get_height() for patch in ax.patches]  # system by system, each over the designs
        assert heights == pytest.approx([means[(system, design)] for system in study.systems for design in designs])
    assert not legend_overlaps_drawing(figure)
    assert overlapping_texts(figure) == []
    plt.close(figure)


def test_the_legend_check_sees_a_legend_drawn_over_the_panels() -> None:
    figure, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="a line")
    figure.legend(loc="center")
    assert legend_overlaps_drawing(figure)
    plt.close(figure)


def test_the_lemma_figure_draws_both_sweeps_with_their_bounds() -> None:
    sweep = pd.DataFrame({"sweep": ["removed test ratings"] * 2 + ["target size"] * 2, "x": [0.0, 0.5, 100.0, 200.0],
                          "system": "pLSA", "lower": [0.10, 0.11, 0.12, 0.13], "value": [0.20, 0.21, 0.22, 0.23],
                          "upper": [0.30, 0.31, 0.32, 0.33]})
    figure = figures.lemma_figure(sweep, "toy")
    removal, growth = figure.axes
    assert removal.get_xlabel() == "test ratings removed" and growth.get_xlabel() == "target set size $|T_u^r|$"
    assert removal.get_ylabel() == "1R P@10" and captions(figure) == ["dataset: toy", "dataset: toy"]
    assert [t.get_text() for t in figure.legends[0].get_texts()] == ["pLSA", "lower bound", "upper bound"]
    assert len(removal.get_lines()) == 3  # 1R P@10 and its two bounds
    for ax, rows in ((removal, sweep.iloc[:2]), (growth, sweep.iloc[2:])):
        value, lower, upper = ax.get_lines()
        assert list(value.get_xdata()) == rows["x"].tolist() and value.get_marker() == "o"
        assert [list(line.get_ydata()) for line in (value, lower, upper)] == [
            rows["value"].tolist(), rows["lower"].tolist(), rows["upper"].tolist()]
        assert (lower.get_linestyle(), upper.get_linestyle()) == (":", "--")
    assert overlapping_texts(figure) == []
    plt.close(figure)
