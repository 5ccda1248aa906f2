"""The random stream: splitmix64, one state per game, shared by both families (every draw comes from the
game's own stream, so results do not depend on the batch size or the thread count)."""

from __future__ import annotations

import numba as nb
import numpy as np


# --------------------------------------------------------------------------------------------------------------
# Random stream: splitmix64, one state per game.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def splitmix64_nb(x):
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rand_below_nb(s, g, n):
    """Uniform integer in [0, n) from game g's stream."""
    s.rng[g] = s.rng[g] + np.uint64(0x9E3779B97F4A7C15)
    z = splitmix64_nb(s.rng[g])
    return np.int64((z >> np.uint64(11)) % np.uint64(n))


# --------------------------------------------------------------------------------------------------------------
# The batched engine (VectorGame): one prange loop over the batch; every game may be at its own phase and seat.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def next_game_seed_nb(s, g):
    """The seed of game g's next deal, drawn from its own stream (auto-reset, and the AEC env's reset())."""
    s.rng[g] = s.rng[g] + np.uint64(0x9E3779B97F4A7C15)
    return splitmix64_nb(s.rng[g])
