"""One look for every figure of the book: theme, palette per recommender, labels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns
from matplotlib.legend import Legend

#: Fixed colours, keyed by the labels of :mod:`recbias.recommenders.sets` and the display names of
#: ``recommenders.make``, so a recommender looks the same in every chapter: the papers' MF and kNN in
#: full green and orange, today's top-N MF and kNN in the light shades of the same hues.
RECOMMENDER_COLOURS: dict[str, str] = {
    "Random": "#9e9e9e",
    "Popularity": "#d62728",
    "pLSA": "#1f77b4",
    "rating-MF": "#2ca02c",
    "rating-kNN": "#ff7f0e",
    "implicit MF (top-N)": "#98df8a",
    "user-kNN (top-N)": "#ffbb78",
    "MF": "#98df8a",
    "user-kNN": "#ffbb78",
    "item-kNN": "#9467bd",
    "X (iALS)": "#2ca02c",
    "Y (item-kNN)": "#9467bd",
    "Z (item-kNN)": "#8c564b",
    "Positive count": "#e377c2",
    "Mean rating": "#17becf",
    "Mean rating (+10)": "#bcbd22",
    "Test-set oracle": "#222222",
}

def use_theme() -> None:
    """Apply the book's seaborn theme (readable in the HTML page at 100% zoom)."""
    sns.set_theme(context="notebook", style="whitegrid", font_scale=1.0)
    plt.rcParams.update(
        {
            "figure.figsize": (7.5, 4.2),
            "figure.dpi": 110,
            "savefig.dpi": 110,
            "axes.titleweight": "bold",
            "axes.titlesize": 12,
            "legend.frameon": False,
        }
    )


def palette(names: list[str]) -> dict[str, str]:
    """Colours for ``names``: the fixed colour when known, a seaborn colour otherwise."""
    spare = iter(sns.color_palette("tab20", len(names)).as_hex())
    return {name: RECOMMENDER_COLOURS.get(name) or next(spare) for name in names}


def dataset_caption(ax: plt.Axes, dataset: str) -> None:
    """Stamp the dataset name in the corner of a figure, so no figure is read without it."""
    ax.annotate(
        f"dataset: {dataset}",
        xy=(1.0, 1.0),
        xycoords="axes fraction",
        xytext=(0, 4),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=8,
        color="#555555",
    )


#: colours of each kind of collection, one per collection in registry order: a family of hues per kind
#: (blues for IR, warm hues for recommendation data, greys for a simulated world), distinct within a kind
KIND_COLOURS = {
    "IR": ("#08306b", "#4292c6", "#6a51a3"),
    "recommendation": ("#cb181d", "#f16913", "#8c510a", "#c51b7d", "#d4a017", "#fb6a4a"),
    "simulation": ("#525252", "#969696", "#252525"),
}
#: line styles and markers taken in turn within a kind, so collections differ in more than hue
_LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)))
_MARKERS = ("o", "s", "^", "D", "v", "P")


def collection_styles(names_by_kind: dict[str, list[str]], here: str, truth_suffix: str) -> dict[str, dict]:
    """Line style per collection (``color``, ``lw``, ``ls``, ``marker``, ``label``): within each kind a
    colour of :data:`KIND_COLOURS`, a line style and a marker of its own, taken in the order given (keep the
    registry's order, so a collection keeps its style whatever the page); a thick line for the page's
    dataset ``here``; a simulated truth (name ending ``truth_suffix``) dashed in the colour of its world."""
    styles = {}
    for kind, names in names_by_kind.items():
        colours = KIND_COLOURS[kind]
        own = [n for n in names if not n.endswith(truth_suffix)]
        for k, name in enumerate(own):
            styles[name] = {"color": colours[k % len(colours)], "lw": 3.0 if name == here else 1.6,
                            "ls": _LINE_STYLES[k % len(_LINE_STYLES)], "marker": _MARKERS[k % len(_MARKERS)],
                            "label": f"{name} (this page)" if name == here else name}
        for name in (n for n in names if n.endswith(truth_suffix)):
            world = styles.get(name.removesuffix(truth_suffix), {"color": colours[0], "marker": _MARKERS[0]})
            styles[name] = {"color": world["color"], "lw": 1.6, "ls": "--", "marker": "x", "label": name}
    return styles


def legend_outside(figure: plt.Figure, handles: list, labels: list[str], *, bold: tuple[int, ...] = (),
                   **options) -> Legend:
    """A legend in one column at the right edge of ``figure``, outside every panel: the panels are laid out
    (``tight_layout``) in the width the legend leaves.  The entries at the positions ``bold`` (headings of
    groups of entries) are set in bold; ``options`` go to :meth:`Figure.legend`."""
    legend = figure.legend(handles, labels, loc="center right", bbox_to_anchor=(1.0, 0.5), **options)
    for k in bold:
        legend.get_texts()[k].set_fontweight("bold")
    figure.canvas.draw()
    width = legend.get_window_extent().width / figure.bbox.width
    figure.tight_layout(rect=(0, 0, 1 - width - 0.01, 1))
    return legend
