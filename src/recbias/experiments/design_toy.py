"""Chapter 2 ("Experimental design alternatives"): the toy matrix of IRJ 2017 Fig. 1 and its figure.

Three users rate seven items; :func:`toy_target_sets` builds the target sets of user
``u`` under each design with :func:`recbias.designs.build_runs`, and :func:`toy_figure`
draws the ratings beside those sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from recbias.designs import build_runs
from recbias.ratings import Ratings

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: users and items of the toy matrix; the target user is ``u``
TOY_USERS = ("u", "v", "w")
TOY_ITEMS = ("a", "b", "c", "d", "e", "f", "g")
#: (user, item, stars); positive means 4 stars or more
TOY_TRAIN = (("u", "f", 5), ("u", "g", 2), ("v", "a", 5), ("v", "d", 2), ("w", "a", 5), ("w", "e", 5))
TOY_TEST = (("u", "d", 5), ("u", "e", 4), ("v", "b", 2), ("v", "f", 5), ("w", "c", 5), ("w", "g", 1))
#: the designs whose target sets the toy figure shows
TOY_DESIGNS = ("AI-AN", "TI-AN", "AI-NN(1)", "TI-NN(1)", "1R AI-NN(1)", "1R TI-NN(1)")


def fig1_toy() -> tuple[Ratings, Ratings]:
    """Training and test ratings of a toy matrix with the properties of IRJ 2017 Fig. 1.

    User ``u`` liked ``d`` and ``e`` in the test set and rated ``f`` and ``g`` in training;
    item ``a`` has no test rating (so it is a candidate under AI only); ``b`` and ``c`` are
    test items of other users that ``u`` never rated.  Ratings of 4 or 5 stars are positive.
    """

    def build(rows: Sequence[tuple[str, str, int]]) -> Ratings:
        return Ratings(
            name="Fig. 1 toy",
            users=np.array([TOY_USERS.index(u) for u, _, _ in rows]),
            items=np.array([TOY_ITEMS.index(i) for _, i, _ in rows]),
            values=np.array([v for _, _, v in rows], dtype=float),
            timestamps=None,
            user_ids=np.array(TOY_USERS),
            item_ids=np.array(TOY_ITEMS),
            scale=(1, 5),
            positive_threshold=4,
            description="hand-made stars",
        )

    return build(TOY_TRAIN), build(TOY_TEST)


@dataclass(frozen=True)
class ToyTargetSet:
    """One target set of user ``u`` in the toy matrix.

    Attributes:
        label: the design, with the relevant item's index for a 1R set (``"1R TI-NN(1): $T_u^1$"``).
        items: item codes in the set.
        relevant: the relevant items among them.
    """

    label: str
    items: frozenset[int]
    relevant: frozenset[int]

    @property
    def letters(self) -> str:
        """The items as the prose names them, e.g. ``"{b, c, d, e}"``."""
        return "{" + ", ".join(TOY_ITEMS[i] for i in sorted(self.items)) + "}"


def toy_target_sets(seed: int = 0, designs: Sequence[str] = TOY_DESIGNS) -> list[ToyTargetSet]:
    """The target sets of user ``u`` under each design, built by :func:`recbias.designs.build_runs`."""
    train, test = fig1_toy()
    u = TOY_USERS.index("u")
    sets = []
    for name in designs:
        runs = build_runs(train, test, name, seed=seed)
        for r, k in enumerate(np.flatnonzero(runs.users == u), start=1):
            block = slice(runs.offsets[k], runs.offsets[k + 1])
            label = f"{name}: $T_u^{r}$" if name.startswith("1R") else name
            sets.append(ToyTargetSet(label, frozenset(runs.items[block].tolist()),
                                     frozenset(runs.items[block][runs.labels[block]].tolist())))
    return sets


_RELEVANT, _NONRELEVANT, _TRAINED = "#1a7f37", "#8fb8de", "#dddddd"


def toy_figure(target_sets: Sequence[ToyTargetSet]) -> Figure:
    """The toy matrix (stars, positive ones green, test ones circled) beside the target sets of ``u``."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    train, test = fig1_toy()
    fig, (ax_m, ax_t) = plt.subplots(2, 1, figsize=(6.4, 6.6), sharex=True,
                                     gridspec_kw={"height_ratios": [len(TOY_USERS) + 0.4, len(target_sets)]})
    for frame, held_out in ((train, False), (test, True)):
        for user, item, value in zip(frame.users, frame.items, frame.values, strict=True):
            positive = value >= frame.positive_threshold
            ax_m.text(item, user, f"{value:g}", ha="center", va="center", fontsize=14,
                      color=_RELEVANT if positive else "#b42318", fontweight="bold" if positive else "normal")
            if held_out:
                ax_m.scatter(item, user, s=520, facecolors="none", edgecolors="#333333", linewidths=1.2)
    ax_m.set_ylim(len(TOY_USERS) - 0.5, -0.5)
    ax_m.set_yticks(range(len(TOY_USERS)), [f"${u}$" for u in TOY_USERS])
    ax_m.set_title("stars of each user (circled: held out for test)", loc="left")

    trained = set(train.items[train.users == TOY_USERS.index("u")].tolist())
    for row, target in enumerate(target_sets):
        for item in range(len(TOY_ITEMS)):
            colour, text = (
                (_RELEVANT, "rel") if item in target.relevant
                else (_NONRELEVANT, "non") if item in target.items
                else (_TRAINED, "train") if item in trained
                else ("white", "")
            )
            ax_t.add_patch(Rectangle((item - 0.46, row - 0.42), 0.92, 0.84, color=colour))
            ax_t.text(item, row, text, ha="center", va="center", fontsize=10.5,
                      color="white" if colour == _RELEVANT else "#222222")
    ax_t.set_ylim(len(target_sets) - 0.5, -0.5)
    ax_t.set_yticks(range(len(target_sets)), [t.label for t in target_sets])
    ax_t.set_title("target sets of user $u$", loc="left")
    ax_t.set_xlim(-0.5, len(TOY_ITEMS) - 0.5)
    ax_t.set_xticks(range(len(TOY_ITEMS)), [f"${i}$" for i in TOY_ITEMS])
    ax_t.set_xlabel("item")
    ax_m.tick_params(labelbottom=False)
    for ax in (ax_m, ax_t):
        ax.grid(False)
    fig.legend(
        handles=[Patch(color=_RELEVANT, label="relevant"), Patch(color=_NONRELEVANT, label="non-relevant"),
                 Patch(color=_TRAINED, label="training item of $u$")],
        loc="lower center", ncol=3, bbox_to_anchor=(0.5, 0.0),
    )
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig
