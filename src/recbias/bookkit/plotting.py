"""One look for every figure of the book: theme, palette per recommender, labels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import seaborn as sns

#: Fixed colours, keyed by the display names of ``recommenders.make``, so a
#: recommender looks the same in every chapter.
RECOMMENDER_COLOURS: dict[str, str] = {
    "Random": "#9e9e9e",
    "Popularity": "#d62728",
    "pLSA": "#1f77b4",
    "MF": "#2ca02c",
    "user-kNN": "#ff7f0e",
    "item-kNN": "#9467bd",
    "X (iALS)": "#2ca02c",
    "Y (item-kNN)": "#9467bd",
    "Z (item-kNN)": "#8c564b",
    "Positive count": "#e377c2",
    "Mean rating": "#17becf",
    "Mean rating (+10)": "#bcbd22",
    "Test-set oracle": "#222222",
}

#: Colours for the kinds of collection compared in chapter 1.
COLLECTION_COLOURS: dict[str, str] = {"IR": "#1f77b4", "recommendation": "#d62728", "simulation": "#7f7f7f"}


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


#: light end of the shades of each kind of collection
_LIGHT = {"IR": "#9ecae1", "recommendation": "#fcbba1", "simulation": "#d9d9d9"}


def collection_styles(names_by_kind: dict[str, list[str]], here: str, truth_suffix: str) -> dict[str, dict]:
    """Line style per collection: shades of its kind's colour (blue IR, red recommendation,
    grey simulation), a thick line for the page's dataset, dashes for simulated truths."""
    styles = {}
    for kind, names in names_by_kind.items():
        base = COLLECTION_COLOURS[kind]
        shades = [base] if len(names) == 1 else sns.blend_palette(["#202020", base, _LIGHT[kind]], len(names) + 2)[1:-1]
        for name, colour in zip(names, shades, strict=True):
            styles[name] = {
                "color": colour,
                "lw": 3.2 if name == here else 1.7,
                "ls": "--" if name.endswith(truth_suffix) else "-",
                "label": f"{name} (this page)" if name == here else name,
            }
    return styles
