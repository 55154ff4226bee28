"""Target sets of recbias.designs against hand-worked sets, loop oracles and sampling laws."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from recbias.designs import GRAMMAR, DesignSpec, build_runs, nonrelevant_pool_sizes, parse_design
from recbias.designs.build import _merge_entries
from recbias.designs.sampling import AvailableItems, sample_sorted_subsets
from recbias.ratings import Ratings
from recbias.splits import uniform_split
from worlds import skewed_split

# ------------------------------------------------------------------ toy of IRJ Fig. 1
# Fig. 1 shows one user u whose positive test items are d and e; the non-relevant item
# sampled for u can be b or c under TI, and also a under AI.  We rebuild a matrix with
# exactly those properties: a has no test rating, u trained on f (liked) and g (disliked),
# and two more users give test ratings to b, c, f and g.  Positive means rating >= 4.
USERS = "uvw"
ITEMS = "abcdefg"
TOY_TRAIN = [("u", "f", 5), ("u", "g", 2), ("v", "a", 5), ("v", "d", 2), ("w", "a", 5), ("w", "e", 5)]
TOY_TEST = [("u", "d", 5), ("u", "e", 4), ("v", "b", 2), ("v", "f", 5), ("w", "c", 5), ("w", "g", 1)]


def toy_ratings(rows: list[tuple[str, str, int]]) -> Ratings:
    return Ratings(
        name="fig1",
        users=[USERS.index(u) for u, _, _ in rows],
        items=[ITEMS.index(i) for _, i, _ in rows],
        values=[v for _, _, v in rows],
        timestamps=None,
        user_ids=np.array(list(USERS)),
        item_ids=np.array(list(ITEMS)),
        scale=(1, 5),
        positive_threshold=4,
    )


TOY = (toy_ratings(TOY_TRAIN), toy_ratings(TOY_TEST))


def target_sets(runs) -> list[tuple[str, str]]:
    """Each run as (user letter, its items as a string in code order)."""
    return [
        (USERS[runs.users[k]], "".join(ITEMS[i] for i in runs.items[runs.offsets[k] : runs.offsets[k + 1]]))
        for k in range(runs.n_runs)
    ]


def test_fig1_all_non_relevant_designs() -> None:
    expected = {
        "AI-AN": [("u", "abcde"), ("v", "bcefg"), ("w", "bcdfg")],
        "TI-AN": [("u", "bcde"), ("v", "bcefg"), ("w", "bcdfg")],
        "1R TI-AN": [("u", "bcd"), ("u", "bce"), ("v", "bcefg"), ("w", "bcdfg")],
        "1R AI-AN": [("u", "abcd"), ("u", "abce"), ("v", "bcefg"), ("w", "bcdfg")],
    }
    for name, sets in expected.items():
        assert target_sets(build_runs(*TOY, name)) == sets, name


def test_fig1_labels_grades_judged() -> None:
    runs = build_runs(*TOY, "TI-AN")
    # u: b c d e | v: b c e f g | w: b c d f g
    assert runs.labels.astype(int).tolist() == [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0]
    assert runs.grades.tolist() == [0, 0, 5, 4, 0, 0, 0, 5, 0, 0, 5, 0, 0, 0]
    # v's b (rated 2) and w's g (rated 1) are judged non-relevant; the rest is unjudged.
    assert runs.judged.astype(int).tolist() == [0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    assert runs.n_relevant.tolist() == [2, 1, 1]
    assert runs.groups.tolist() == [-1, -1, -1]
    assert runs.design == "TI-AN"


@pytest.mark.parametrize(
    ("name", "choices"),
    [("1R TI-NN(1)", {"b", "c"}), ("1R AI-NN(1)", {"a", "b", "c"}), ("TI-NN(1)", {"b", "c"})],
)
def test_fig1_sampled_non_relevant_item(name: str, choices: set[str]) -> None:
    seen = set()
    for seed in range(40):
        runs = build_runs(*TOY, name, seed=seed)
        sets = [items for user, items in target_sets(runs) if user == "u"]
        relevant = ["d", "e"] if name.startswith("1R") else ["de"]
        assert len(sets) == len(relevant)
        for items, rel in zip(sets, relevant):
            assert len(items) == len(rel) + 1 and set(rel) <= set(items)
            seen |= set(items) - set(rel)
    assert seen == choices


def test_fig1_threshold_and_users_without_relevant() -> None:
    runs = build_runs(*TOY, "TI-AN", threshold=5)  # e (rated 4) is no longer relevant
    assert runs.labels[: runs.offsets[1]].astype(int).tolist() == [0, 0, 1, 0]
    assert runs.n_relevant.tolist() == [1, 1, 1]
    strict = build_runs(*TOY, "1R TI-AN", threshold=5.5)
    assert strict.n_runs == 0 and strict.report.users_without_relevant == 3
    kept = build_runs(*TOY, "TI-AN", threshold=5.5, keep_users_without_relevant=True)
    assert kept.n_runs == 3 and kept.labels.sum() == 0


def test_fig1_percentiles() -> None:
    # Popularity r(i) over C = TI = {b..g}: d, e, f, g have 2 ratings, b and c one:
    # two percentiles {d, e, f} and {b, c, g}.  Each run draws from its relevant item's percentile.
    runs = build_runs(*TOY, "P1R(2) TI-AN")
    assert target_sets(runs) == [("u", "d"), ("u", "e"), ("v", "ef"), ("w", "bcg")]
    assert runs.groups.tolist() == [0, 0, 0, 1]


def test_fig1_head_removal() -> None:
    # 7 rated items, 30% head = 2 items: a and d (r = 2, ties by code).  d leaves u's test set.
    runs = build_runs(*TOY, "TI-AN -30% head")
    assert target_sets(runs) == [("u", "bce"), ("v", "bcefg"), ("w", "bcfg")]
    assert runs.report.head_items == 2 and runs.report.head_test_ratings == 1
    assert runs.n_relevant.tolist() == [1, 1, 1]
    # Under AI the head items also leave C: a is never a candidate any more.
    assert target_sets(build_runs(*TOY, "1R AI-AN -30% head")) == [("u", "bce"), ("v", "bcefg"), ("w", "bcfg")]


# ---------------------------------------------------------------- random-data oracle


def random_split_ratings(seed: int = 0, n_users: int = 40, n_items: int = 60, density: float = 0.15):
    return skewed_split(seed, n_users, n_items, density, exponent=0.7, test_ratio=0.3)


def oracle_runs(train: Ratings, test: Ratings, spec: DesignSpec) -> list[tuple[int, int, frozenset]]:
    """Loop construction of AN designs: (user, relevant item or -1, target set) per run."""
    popularity = train.item_counts() + test.item_counts()
    candidates = set(range(test.n_items)) if spec.candidates == "AI" else set(test.items.tolist())
    pool = {i: 0 for i in candidates}
    if spec.percentiles:
        ordered = sorted(candidates, key=lambda i: (-popularity[i], i))
        for rank, i in enumerate(ordered):
            pool[i] = next(g for g, chunk in enumerate(np.array_split(np.arange(len(ordered)), spec.percentiles)) if rank in chunk)
    runs = []
    for u in range(test.n_users):
        trained = set(train.items[train.users == u].tolist())
        mine = test.users == u
        liked = set(test.items[mine][test.values[mine] >= 4].tolist())
        if not liked:
            continue
        if spec.relevant == "AR":
            runs.append((u, -1, frozenset(liked | (candidates - liked - trained))))
        else:
            for i in sorted(liked):
                same = {j for j in candidates if pool[j] == pool[i]}
                runs.append((u, i, frozenset({i} | (same - liked - trained))))
    return runs


@pytest.mark.parametrize("name", ["AI-AN", "TI-AN", "1R TI-AN", "1R AI-AN", "P1R(4) TI-AN", "P1R(3) AI-AN"])
def test_an_designs_match_loop_oracle(name: str) -> None:
    train, test = random_split_ratings()
    spec = parse_design(name)
    runs = build_runs(train, test, spec)
    built = []
    for k in range(runs.n_runs):
        part = slice(runs.offsets[k], runs.offsets[k + 1])
        items = runs.items[part]
        assert np.all(np.diff(items) > 0)
        relevant = items[runs.labels[part]]
        tag = -1 if spec.relevant == "AR" else int(relevant[0])
        built.append((int(runs.users[k]), tag, frozenset(items.tolist())))
    assert built == oracle_runs(train, test, spec)


def check_entries(train: Ratings, test: Ratings, runs) -> None:
    """Labels, grades, judged and n_relevant agree with the test set entry by entry."""
    value = {(u, i): v for u, i, v in zip(test.users, test.items, test.values)}
    trained = set(zip(train.users.tolist(), train.items.tolist()))
    users = runs.users[runs.run_of_entry]
    for u, i, label, grade, judged in zip(users, runs.items, runs.labels, runs.grades, runs.judged):
        v = value.get((u, i))
        assert (u, i) not in trained
        assert judged == (v is not None)
        assert label == (v is not None and v >= 4)
        assert grade == (v if label else 0)
    liked = np.bincount(test.users[test.values >= 4], minlength=test.n_users)
    one_relevant = runs.design.startswith(("1R", "P1R", "U1R"))
    expected = np.ones(runs.n_runs, dtype=np.int64) if one_relevant else liked[runs.users]
    np.testing.assert_array_equal(runs.n_relevant, expected)


@pytest.mark.parametrize("name", ["TI-NN(20)", "AI-NN(30)", "1R TI-NN(25)", "1R AI-NN(40)", "P1R(2) TI-NN(8)"])
@pytest.mark.parametrize("shared", [False, True])
def test_nn_designs_sample_from_the_an_sets(name: str, shared: bool) -> None:
    train, test = random_split_ratings(seed=1)
    spec = parse_design(name)
    an_spec = DesignSpec(spec.relevant, spec.candidates, None, spec.percentiles)
    allowed = oracle_runs(train, test, an_spec)
    runs = build_runs(train, test, spec, seed=3, shared_negatives=shared, on_shortage="exclude")
    check_entries(train, test, runs)
    kept = 0
    for k in range(runs.n_runs):
        part = slice(runs.offsets[k], runs.offsets[k + 1])
        items, labels = runs.items[part], runs.labels[part]
        assert np.all(np.diff(items) > 0)
        assert (~labels).sum() == spec.n_nonrelevant
        tag = -1 if spec.relevant == "AR" else int(items[labels][0])
        matches = [s for u, t, s in allowed if u == runs.users[k] and t == tag]
        assert len(matches) == 1 and set(items.tolist()) <= matches[0]
        kept += 1
    assert kept + runs.report.shortage_runs == len(allowed)


def test_shared_and_fresh_negatives() -> None:
    train, test = random_split_ratings(seed=2)
    for shared in (True, False):
        runs = build_runs(train, test, "1R TI-NN(10)", seed=0, shared_negatives=shared)
        negatives = {}
        for k in range(runs.n_runs):
            part = slice(runs.offsets[k], runs.offsets[k + 1])
            negatives.setdefault(runs.users[k], []).append(frozenset(runs.items[part][~runs.labels[part]].tolist()))
        distinct = [len(set(sets)) for sets in negatives.values() if len(sets) > 1]
        assert distinct
        if shared:
            assert max(distinct) == 1
        else:
            assert max(distinct) > 1


def test_nn_sampling_is_uniform_over_the_available_items() -> None:
    # With fresh samples per run, every allowed item of a user appears in a run with probability k / M.
    train, test = random_split_ratings(seed=4, n_users=20, n_items=80, density=0.2)
    k = 10
    allowed = {(u, t): s for u, t, s in oracle_runs(train, test, parse_design("1R TI-AN"))}
    appearances: dict = {}
    totals: dict = {}
    for seed in range(100):
        runs = build_runs(train, test, "1R TI-NN(10)", seed=seed, on_shortage="exclude")
        for r in range(runs.n_runs):
            part = slice(runs.offsets[r], runs.offsets[r + 1])
            items, labels = runs.items[part], runs.labels[part]
            key = (int(runs.users[r]), int(items[labels][0]))
            totals[key] = totals.get(key, 0) + 1
            for i in items[~labels]:
                appearances[key, int(i)] = appearances.get((key, int(i)), 0) + 1
    z = []
    for key, n_draws in totals.items():
        pool = allowed[key] - {key[1]}
        p = k / len(pool)
        for i in pool:
            z.append((appearances.get((key, i), 0) - n_draws * p) / np.sqrt(n_draws * p * (1 - p)))
    z = np.array(z)
    # Each count is Binomial(n_draws, k / M): z has unit variance, so mean(z^2) is close to 1.
    assert len(z) > 500
    assert abs(np.mean(z**2) - 1) < 0.15 and np.abs(z).max() < 5.5


@pytest.mark.parametrize(("size", "k"), [(6, 2), (5, 3), (4, 4), (7, 1), (11, 2), (16, 3)])  # random keys, then rejection
def test_sample_sorted_subsets_uniform_over_subsets(size: int, k: int) -> None:
    rows = 30000
    sample = sample_sorted_subsets(np.full(rows, size), k, np.random.default_rng(0))
    assert np.all(np.diff(sample, axis=1) > 0) and sample.min() >= 0 and sample.max() < size
    subsets = {s: j for j, s in enumerate(combinations(range(size), k))}
    counts = np.bincount([subsets[tuple(row)] for row in sample.tolist()], minlength=len(subsets))
    if len(subsets) > 1:
        assert stats.chisquare(counts).pvalue > 1e-4


def test_sample_sorted_subsets_mixed_sizes_and_shortage() -> None:
    sizes = np.array([3, 100, 5, 1000, 4])
    sample = sample_sorted_subsets(sizes, 3, np.random.default_rng(1))
    assert np.all(sample.max(axis=1) < sizes) and np.all(np.diff(sample, axis=1) > 0)
    with pytest.raises(ValueError, match="cannot draw 3"):
        sample_sorted_subsets(np.array([2, 5]), 3, np.random.default_rng(0))


def test_available_items_against_brute_force() -> None:
    rng = np.random.default_rng(5)
    n_items, n_users = 50, 6
    candidates = rng.permutation(n_items)[:30]
    pools = np.array_split(candidates, 3)
    pool_items = np.concatenate([np.sort(p) for p in pools])
    pool_offsets = np.concatenate([[0], np.cumsum([len(p) for p in pools])])
    users = rng.integers(0, n_users, 80)
    items = rng.integers(0, n_items, 80)
    available = AvailableItems.build(pool_items, pool_offsets, n_items, users, items)
    for u in range(n_users):
        excluded = set(items[users == u].tolist())
        for p, pool in enumerate(pools):
            expected = [i for i in sorted(pool.tolist()) if i not in excluded]
            block = np.array([u * 3 + p])
            assert available.counts(block).tolist() == [len(expected)]
            ranks = np.arange(len(expected))
            got = available.items(block, ranks)
            assert got.tolist() == expected
    blocks = np.array([5, 0, 5, 17, 9])
    offsets, listed = available.enumerate(blocks)
    for r, b in enumerate(blocks):
        excluded = set(items[users == b // 3].tolist())
        expected = [i for i in sorted(pools[b % 3].tolist()) if i not in excluded]
        assert listed[offsets[r] : offsets[r + 1]].tolist() == expected


def test_available_items_of_any_rank_matrix_match_the_enumerated_lists() -> None:
    rng = np.random.default_rng(6)
    n_items, n_users, n_pools = 60, 8, 2
    pools = np.array_split(rng.permutation(n_items)[:40], n_pools)
    pool_items = np.concatenate([np.sort(p) for p in pools])
    pool_offsets = np.concatenate([[0], np.cumsum([len(p) for p in pools])])
    available = AvailableItems.build(pool_items, pool_offsets, n_items, rng.integers(0, n_users, 120),
                                     rng.integers(0, n_items, 120))
    every = np.arange(n_users * n_pools)
    offsets, listed = available.enumerate(every)
    blocks = rng.choice(every[available.counts(every) > 0], (30, 7))  # blocks change along rows
    blocks[:10] = blocks[:10, :1]  # rows of one block, as designs ask
    ranks = rng.integers(0, 1 << 30, blocks.shape) % available.counts(blocks)
    ranks[:5].sort(axis=1)  # ascending rows (merged) beside rows whose ranks fall (searched again)
    expected = listed[offsets[blocks] + ranks]
    np.testing.assert_array_equal(available.items(blocks, ranks), expected)
    np.testing.assert_array_equal(available.items(blocks[:10, :1], ranks[:10]), expected[:10])
    assert available.items(blocks[0, 0], ranks[0, 0]) == expected[0, 0]


# ------------------------------------------------------------------ U and shortages


def test_uniform_designs_need_a_uniform_split() -> None:
    train, test = random_split_ratings(seed=6, n_users=100, n_items=40, density=0.3)
    with pytest.raises(ValueError, match="uniform item profiles"):
        build_runs(train, test, "UAR")
    ratings = Ratings(
        name="all",
        users=np.concatenate([train.users, test.users]),
        items=np.concatenate([train.items, test.items]),
        values=np.concatenate([train.values, test.values]),
        timestamps=None,
        user_ids=train.user_ids,
        item_ids=train.item_ids,
        scale=(1, 5),
        positive_threshold=4,
    )
    split = uniform_split(ratings, 0.2, 0.2, seed=0)
    uar = build_runs(split.train, split.test, "UAR")
    assert uar.design == "UAR TI-AN"
    assert set(uar.items.tolist()) <= set(split.target_items.tolist())
    assert uar.report.n_candidates == len(split.target_items)
    u1r = build_runs(split.train, split.test, "U1R", n_nonrelevant=5, on_shortage="exclude")
    assert u1r.design == "U1R TI-NN(5)"
    assert set(u1r.items.tolist()) <= set(split.target_items.tolist())


def test_shortage_raises_or_is_counted() -> None:
    train, test = random_split_ratings(seed=7)
    with pytest.raises(ValueError, match=r"n_nonrelevant=55"):
        build_runs(train, test, "1R TI-NN(55)")
    runs = build_runs(train, test, "1R TI-NN(55)", on_shortage="exclude")
    an = build_runs(train, test, "1R TI-AN")
    available = an.sizes - 1
    assert runs.report.shortage_runs == int(np.sum(available < 55))
    assert runs.n_runs == int(np.sum(available >= 55))
    assert runs.report.shortage_users == len(np.unique(an.users[available < 55]))
    with pytest.raises(ValueError, match="on_shortage"):
        build_runs(train, test, "1R TI-NN(5)", on_shortage="truncate")


def test_impossible_requests_name_the_parameter() -> None:
    train, test = random_split_ratings()
    with pytest.raises(ValueError, match="percentiles=500"):
        build_runs(train, test, "P1R(500)")
    with pytest.raises(ValueError, match="max_entries"):
        build_runs(train, test, "AI-AN", max_entries=10)
    with pytest.raises(ValueError, match="n_nonrelevant"):
        DesignSpec("1R", "TI", n_nonrelevant=0)
    with pytest.raises(ValueError, match="1R design only"):
        DesignSpec("AR", "TI", percentiles=10)
    with pytest.raises(ValueError, match="unknown design"):
        build_runs(train, test, 7)
    with pytest.raises(ValueError, match="code spaces"):
        build_runs(train, TOY[1], "TI-AN")
    with pytest.raises(ValueError, match="repeated"):
        build_runs(train, test.subset(np.array([0, 0, 1])), "TI-AN")
    with pytest.raises(ValueError, match="both training and test"):
        build_runs(train, train.subset(np.arange(3)), "TI-AN")


def test_determinism_by_seed() -> None:
    train, test = random_split_ratings(seed=8)
    a, b, c = (build_runs(train, test, "1R TI-NN(10)", seed=s) for s in (1, 1, 2))
    for field in ("offsets", "users", "items", "labels", "grades", "judged"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.items, c.items)


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("AI-AN", "AI-AN"),
        ("TI-AN", "TI-AN"),
        ("AR TI-NN(1700)", "TI-NN(1700)"),
        ("1R TI-NN(100)", "1R TI-NN(100)"),
        ("1R", "1R TI-NN(100)"),
        ("P1R(10)", "P1R(10) TI-NN(100)"),
        ("U1R", "U1R TI-NN(100)"),
        ("UAR", "UAR TI-AN"),
        ("AI-UAR", None),
        ("UAR AI-AN", "UAR AI-AN"),
        ("1R TI-NN(100) -10% head", "1R TI-NN(100) -10% head"),
        ("TI-AN -2.5% head", "TI-AN -2.5% head"),
        ("1R -NR", "1R TI-NN(100) -NR"),
        ("1R TI-NN(99) - NR", "1R TI-NN(99) -NR"),
        ("1R TI-NN(100) -10% head -NR", "1R TI-NN(100) -10% head -NR"),
    ],
)
def test_design_names(name: str, canonical: str | None) -> None:
    if canonical is None:
        with pytest.raises(ValueError, match="unknown design"):
            parse_design(name)
    else:
        assert parse_design(name).name == canonical
        assert parse_design(canonical) == parse_design(name)


@pytest.mark.parametrize("name", ["", "XI-AN", "1R TI-NN()", "TI-AN head", "2R TI-AN", "P1R TI-AN", 7, "-NR",
                                  "1R TI-NN(100) -NR -10% head", "1R NR"])
def test_unknown_names_quote_the_grammar(name) -> None:
    with pytest.raises(ValueError) as error:
        parse_design(name)
    assert GRAMMAR in str(error.value)


# ------------------------------------------------------------- runs of some users


def test_nonrelevant_pool_sizes_match_a_loop() -> None:
    train, test = random_split_ratings(seed=4)
    for candidates in ("AI", "TI"):
        pool = set(range(test.n_items)) if candidates == "AI" else set(test.items.tolist())
        expected = []
        for u in range(test.n_users):
            trained = set(train.items[train.users == u].tolist())
            liked = set(test.items[(test.users == u) & (test.values >= 4)].tolist())
            expected.append(len(pool - trained - liked))
        np.testing.assert_array_equal(nonrelevant_pool_sizes(train, test, candidates), expected)
    with pytest.raises(ValueError, match="candidates"):
        nonrelevant_pool_sizes(train, test, "XI")


@pytest.mark.parametrize("name", ["TI-AN", "1R TI-AN", "AI-AN"])
def test_runs_of_some_users_are_those_of_the_full_design(name: str) -> None:
    train, test = random_split_ratings(seed=5)
    full = build_runs(train, test, name)
    chosen = np.unique(full.users)[::3]
    some = build_runs(train, test, name, users=chosen)
    expected = full.subset(np.isin(full.users, chosen))
    assert some.report.n_candidates == full.report.n_candidates  # C is the whole split's
    for field in ("offsets", "users", "items", "labels", "grades", "judged", "n_relevant"):
        np.testing.assert_array_equal(getattr(some, field), getattr(expected, field))


# ------------------------------------------------- the papers' 1R for bpref (IRJ Sec. 7)


@pytest.mark.parametrize("name", ["1R TI-NN(20)", "1R TI-AN", "P1R(3) TI-NN(5)"])
def test_without_nonrelevance_judgments_the_runs_are_the_same_but_unjudged(name: str) -> None:
    train, test = random_split_ratings(seed=6)
    judged = build_runs(train, test, name, seed=2)
    unjudged = build_runs(train, test, f"{name} -NR", seed=2)
    assert unjudged.design == f"{judged.design} -NR"
    for field in ("offsets", "users", "items", "labels", "grades", "n_relevant", "groups"):
        np.testing.assert_array_equal(getattr(unjudged, field), getattr(judged, field))
    np.testing.assert_array_equal(unjudged.judged, unjudged.labels)
    assert np.count_nonzero(judged.judged & ~judged.labels) > 0  # control: there were judgments to remove


@pytest.mark.parametrize("name", ["1R TI-NN(20)", "1R TI-AN"])
def test_bpref_is_one_for_every_run_of_the_papers_1r(name: str) -> None:
    from recbias.evaluate import evaluate_runs

    train, test = random_split_ratings(seed=7)
    papers, ours = build_runs(train, test, f"{name} -NR", seed=3), build_runs(train, test, name, seed=3)
    popularity = (train.item_counts() + 0.5 * np.arange(train.n_items) / train.n_items).astype(float)
    for runs in (papers, ours):
        systems = {
            "random": np.random.default_rng(0).random(len(runs.items)),
            "popularity": popularity[runs.items],
            "relevant last": -runs.labels.astype(float),
        }
        values = {label: evaluate_runs(runs, scores, ["bpref"], seed=1)["bpref"].to_numpy()
                  for label, scores in systems.items()}
        if runs is papers:
            for label, column in values.items():
                np.testing.assert_array_equal(column, 1.0, err_msg=label)
        else:  # control: with the judgments, a relevant item ranked last loses to them
            assert values["relevant last"].min() == 0.0 and values["relevant last"].mean() < 0.9


def test_merging_runs_equals_a_literal_merge() -> None:
    rng = np.random.default_rng(11)
    n_runs, n_items = 60, 40
    run_users = np.sort(rng.choice(25, n_runs))
    negatives = [np.sort(rng.choice(n_items, rng.integers(0, 30), replace=False)) for _ in range(n_runs)]
    positives = [np.sort(rng.choice(n_items, rng.integers(0, 5), replace=False)) for _ in range(n_runs)]
    values = [rng.integers(1, 6, len(p)).astype(float) for p in positives]
    judged = {u: np.sort(rng.choice(n_items, rng.integers(0, 8), replace=False)) for u in np.unique(run_users)}
    judged_users = np.concatenate([np.full(len(v), u) for u, v in judged.items()])
    judged_items = np.concatenate(list(judged.values()))
    offsets, entries = _merge_entries(
        run_users, np.concatenate([[0], np.cumsum([len(n) for n in negatives])]), np.concatenate(negatives),
        np.repeat(np.arange(n_runs), [len(p) for p in positives]), np.concatenate(positives), np.concatenate(values),
        judged_users, judged_items)
    for r in range(n_runs):  # the literal merge: ascending items, a non-relevant copy before a relevant one
        rows = sorted([(item, 0, 0.0, item in judged[run_users[r]]) for item in negatives[r]]
                      + [(item, 1, value, True) for item, value in zip(positives[r], values[r])])
        run = slice(offsets[r], offsets[r + 1])
        assert entries["items"][run].tolist() == [row[0] for row in rows]
        assert entries["labels"][run].tolist() == [bool(row[1]) for row in rows]
        assert entries["grades"][run].tolist() == [row[2] for row in rows]
        assert entries["judged"][run].tolist() == [bool(row[3]) for row in rows]
