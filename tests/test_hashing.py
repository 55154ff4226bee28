"""Counter-based uniforms: SplitMix64 against its reference output and a pure-Python evaluation of the formula."""

from __future__ import annotations

import numpy as np
import pytest

from recbias import hashing

MASK = (1 << 64) - 1


def python_splitmix64(x: int) -> int:
    """SplitMix64's output function on Python integers (Steele, Lea and Flood 2014; Vigna's splitmix64.c)."""
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def python_uniform(seed: int, user: int, item: int) -> float:
    h = python_splitmix64(python_splitmix64(python_splitmix64(seed % (1 << 64)) ^ user) ^ item)
    return (h >> 11) * 2.0**-53


def test_splitmix64_gives_the_reference_outputs() -> None:
    # the first two outputs of splitmix64.c from state 0: the state advances by GOLDEN per output
    assert int(hashing.splitmix64(np.uint64(0))) == 0xE220A8397B1DCDAF
    assert int(hashing.splitmix64(np.uint64(0x9E3779B97F4A7C15))) == 0x6E789E6AA1B965F4
    for x in (1, 2**63, MASK):
        assert int(hashing.splitmix64(np.uint64(x))) == python_splitmix64(x)


@pytest.mark.parametrize("seed", [0, 7, -3, 2**64 + 5])
def test_every_entry_of_a_grid_is_the_formula_of_its_pair(seed) -> None:
    users, items = np.array([0, 3, 2**40]), np.array([5, 0, 1, 2**33])
    grid = hashing.grid_uniforms(seed, users, items)
    assert grid.shape == (3, 4)
    assert grid.tolist() == [[python_uniform(seed, int(u), int(i)) for i in items] for u in users]
    pairs = hashing.pair_uniforms(seed, np.repeat(users, 4), np.tile(items, 3))
    assert np.array_equal(pairs, grid.ravel())


def test_uniforms_fill_the_unit_interval_evenly_and_pairs_must_match() -> None:
    grid = hashing.grid_uniforms(1, np.arange(300), np.arange(400))
    assert 0 <= grid.min() and grid.max() < 1
    assert abs(grid.mean() - 0.5) < 0.005 and len(np.unique(grid)) == grid.size
    with pytest.raises(ValueError, match="must pair up"):
        hashing.pair_uniforms(1, np.arange(3), np.arange(4))
