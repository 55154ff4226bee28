"""Counter-based random numbers: SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) keyed by integers.

A value that depends only on its key, never on what else was drawn before, lets a random recommender
score any pair the same way in any order and lets tie-breaking orders be recomputed per item.  The
compiled :func:`grid_uniforms` fills a users x items block in one pass.

>>> a = grid_uniforms(7, np.array([0, 5]), np.arange(3))
>>> b = pair_uniforms(7, np.array([5, 5]), np.array([2, 0]))
>>> bool(b[0] == a[1, 2] and b[1] == a[1, 0] and 0 <= a.min() and a.max() < 1)
True
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: the increment of SplitMix64's state, 2^64 / golden ratio
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def mix(x: np.uint64) -> np.uint64:
    """The SplitMix64 finaliser, a bijective scramble of 64 bits (wrapping arithmetic):
    ``z = (x ^ x >> 30) * 0xBF58476D1CE4E5B9``, ``z = (z ^ z >> 27) * 0x94D049BB133111EB``, ``z ^ z >> 31``."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def splitmix64(x: np.uint64) -> np.uint64:
    """One SplitMix64 output from state ``x``: ``mix(x + GOLDEN)``."""
    return mix(x + GOLDEN)


@njit(cache=True, nogil=True)
def _unit(h: np.uint64) -> float:
    """The top 53 bits of ``h`` as a double in ``[0, 1)`` (exact)."""
    return np.float64(h >> np.uint64(11)) * 2.0**-53


def _key(seed: int) -> np.uint64:
    return np.uint64(splitmix64(np.uint64(seed % (1 << 64))))


@njit(cache=True, nogil=True)
def _user_state(key: np.uint64, user: np.int64) -> np.uint64:
    """The half of a pair's hash that only its user sets: ``s(key ^ user)``."""
    return splitmix64(key ^ np.uint64(user))


@njit(cache=True, nogil=True)
def _uniform(state: np.uint64, item: np.int64) -> float:
    """The number of the pair whose user half is ``state`` (:func:`_user_state`): ``s(state ^ item)``, in ``[0, 1)``."""
    return _unit(splitmix64(state ^ np.uint64(item)))


@njit(cache=True, nogil=True, parallel=True)
def _grid(key: np.uint64, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    out = np.empty((users.shape[0], items.shape[0]))
    for row in prange(users.shape[0]):
        state = _user_state(key, users[row])  # once per row
        for column in range(items.shape[0]):
            out[row, column] = _uniform(state, items[column])
    return out


@njit(cache=True, nogil=True, parallel=True)
def _pairs(key: np.uint64, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    out = np.empty(users.shape[0])
    for k in prange(users.shape[0]):
        out[k] = _uniform(_user_state(key, users[k]), items[k])
    return out


def grid_uniforms(seed: int, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """``(len(users), len(items))`` uniform numbers in ``[0, 1)``, entry ``(u, i)`` a function of
    ``(seed, users[u], items[i])`` only: the top 53 bits of ``h = s(s(s(seed) ^ user) ^ item)``, ``s`` the
    SplitMix64 output function (:func:`splitmix64`); codes are read as unsigned 64-bit integers."""
    return _grid(_key(seed), np.asarray(users, dtype=np.int64).ravel(), np.asarray(items, dtype=np.int64).ravel())


def pair_uniforms(seed: int, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """The numbers of :func:`grid_uniforms` for the pairs ``(users[k], items[k])``, one per pair."""
    users, items = np.asarray(users, dtype=np.int64), np.asarray(items, dtype=np.int64)
    if users.shape != items.shape:
        raise ValueError(f"users and items must pair up, got shapes {users.shape} and {items.shape}")
    return _pairs(_key(seed), users.ravel(), items.ravel()).reshape(users.shape)
