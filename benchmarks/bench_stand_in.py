"""How often the audit's advice from a stand-in world is among the protocols chapter 8 finds most faithful.

For each simulated world of a grid of popularity skew, observation bias and size, plus the book's default
world, chapter 8 measures every protocol against the world's own truth (today's field, two splits, 200
resamples of users) and names its leaders, the protocols the paired resamples do not tell from the most
faithful one (:func:`recbias.evaluate.fidelity.leaders`).  The audit then sees the world's ratings without
their truth, draws its stand-in world from them (:func:`recbias.synthetic.stand_in_world`) and recommends a
protocol (:func:`recbias.chapters.c09_audit.study.recommend.recommend`).  Prints one line per world and the
number of worlds on which the advice is among the leaders.

Run with ``.venv/bin/python benchmarks/bench_stand_in.py [--quick]`` (``--quick``: the four corners of the
grid at the smaller size).  It takes about a minute per world on 2 cores.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import time

from recbias.bookkit.claims import LEVEL
from recbias.chapters.c08_protocol_fidelity import study as chapter8
from recbias.chapters.c09_audit.study import protocols, recommend
from recbias.protocol_study import LABEL_SEPARATOR
from recbias.ratings import Ratings
from recbias.synthetic import generate

#: world sizes: users, items and ratings (the larger one is MovieLens 100K's)
SIZES = {"600x900": dict(n_users=600, n_items=900, n_ratings=36_000),
         "943x1682": dict(n_users=943, n_items=1682, n_ratings=100_000)}
ALPHAS = (0.8, 1.4, 1.9)
SELECTIONS = (0.0, 2.5)


def worlds(quick: bool) -> dict[str, Ratings]:
    """The grid of worlds (name -> ratings with their truth), and the book's default world."""
    sizes = dict(itertools.islice(SIZES.items(), 1)) if quick else SIZES
    alphas = (ALPHAS[0], ALPHAS[-1]) if quick else ALPHAS
    grid = {f"{size} α={alpha} selection={selection}": dict(dims, alpha=alpha, selection=selection)
            for (size, dims), alpha, selection in itertools.product(sizes.items(), alphas, SELECTIONS)}
    found = {name: generate(seed=0, **params) for name, params in grid.items()}
    return found if quick else found | {"synthetic (the book's default)": generate(seed=0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="four worlds instead of thirteen")
    hits = []
    for name, world in worlds(parser.parse_args().quick).items():
        start = time.perf_counter()
        world = dataclasses.replace(world, name=name)
        main_table, _ = chapter8.protocol_fidelity(world, splits=2, n_boot=200)
        leading = chapter8.leaders(main_table, LEVEL)
        blind = dataclasses.replace(world, true_relevance=None)
        plan = protocols.audit_protocols(blind.n_items)
        advice = recommend.recommend(recommend.truth_fidelity(blind, plan).table, plan)
        hit = advice is not None and advice.protocol in leading
        hits.append(hit)
        print(f"{name:34} advice {advice.protocol if advice else 'none':34} {'among' if hit else 'NOT among'} "
              f"the {len(leading)} leaders ({LABEL_SEPARATOR.join(leading)})  {time.perf_counter() - start:.0f} s",
              flush=True)
    print(f"advice among chapter 8's leaders on {sum(hits)} of {len(hits)} worlds")


if __name__ == "__main__":
    main()
