"""Kernels of the network-guided search for the palace family (``agents/guided.py``): the search tree's leaves
are rows of a scratch state, expanded, stepped and viewed here in numba; the network that picks the rollouts'
moves and values the leaves runs in torch, on every leaf of the batch at once.

A leaf row holds one sampled world of one decision after one of its candidate actions. Row layout, for the j-th
decision (game ``games[j]``): ``start[j] + k * nacts[j] + i`` is world k after candidate i, so every candidate is
tried in the same worlds (common random numbers, as in ``palace_search``).
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from shedders.engine.palace.layout import PH_OVER
from shedders.engine.palace.legal import legal_mask_nb
from shedders.engine.palace.observe import observe_nb
from shedders.engine.palace.play import apply_nb
from shedders.engine.rng import splitmix64_nb
from shedders.engine.search.palace_search import copy_game_nb, determinize_nb

# world k of a decision seeds its row with splitmix64(seed + k * WORLD_STRIDE), as the search does
WORLD_STRIDE = 7919


class Expansion(NamedTuple):
    """The decisions a guided search expands: decision j is game ``games[j]``, its ``nacts[j]`` candidates
    ``acts[j]`` each tried in ``worlds`` sampled worlds (its stream from ``seeds[j]``; none resampled with
    ``oracle``), written to work rows ``start[j]`` on."""

    games: np.ndarray  # int64 (D,)
    acts: np.ndarray  # int16 (D, k)
    nacts: np.ndarray  # int64 (D,)
    start: np.ndarray  # int64 (D,)
    seeds: np.ndarray  # uint64 (D,)
    worlds: int
    oracle: bool


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expand_one_nb(src, j, ex, params, work, pool, viewer, acc):
    """Decision j of ``ex``, in rows ``ex.start[j] ..`` of ``work``: its game copied, resampled from its actor's
    view (unless ``ex.oracle``; ``pool[j]`` is its scratch), then each candidate applied; ``acc`` gets the reward
    the actor collected by that action."""
    g, acts = ex.games[j], ex.acts[j]
    p = np.int64(src.actor[g])
    r = ex.start[j]
    for k in range(ex.worlds):
        for i in range(ex.nacts[j]):
            copy_game_nb(src, g, work, r)
            work.rng[r] = splitmix64_nb(np.uint64(ex.seeds[j]) + np.uint64(k) * np.uint64(WORLD_STRIDE))
            if not ex.oracle:
                determinize_nb(work, r, p, params, pool[j])
            apply_nb(work, r, np.int64(acts[i]), params)
            viewer[r] = p
            acc[r] = work.rewards[r, p]
            r += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expand_range_nb(lo, hi, src, ex, params, work, pool, viewer, acc):
    """``expand_one_nb`` for decisions lo..hi-1."""
    for j in range(lo, hi):
        expand_one_nb(src, j, ex, params, work, pool, viewer, acc)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def open_rows_nb(work, rows, viewer, out):
    """Those of ``rows`` still worth stepping: the game is on and the viewer is still in. Returns how many."""
    m = 0
    for t in range(rows.shape[0]):
        r = rows[t]
        if work.phase[r] != PH_OVER and work.finished[r, viewer[r]] == 0:
            out[m] = r
            m += 1
    return m


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def views_range_nb(lo, hi, work, rows, params, mask, ids, nlegal, obs):
    """For rows[lo..hi-1]: the actor's legal ids into ``ids[t]`` (the engine's order; ``mask[t]`` is scratch),
    their count into ``nlegal[t]`` and the actor's observation into ``obs[t]`` (the rollout policy's input)."""
    for t in range(lo, hi):
        r = rows[t]
        nlegal[t] = legal_mask_nb(work, r, params, mask[t], ids[t])
        observe_nb(work, r, np.int64(work.actor[r]), params, obs[t])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_range_nb(lo, hi, work, rows, actions, params, viewer, acc):
    """Apply ``actions[t]`` in row ``rows[t]`` for t in lo..hi-1; add what the row's viewer collected to
    ``acc``."""
    for t in range(lo, hi):
        r = rows[t]
        apply_nb(work, r, np.int64(actions[t]), params)
        acc[r] += work.rewards[r, viewer[r]]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def viewer_obs_range_nb(lo, hi, work, rows, viewer, params, obs):
    """rows[lo..hi-1] as their viewers see them (the policy's value head's input)."""
    for t in range(lo, hi):
        observe_nb(work, rows[t], np.int64(viewer[rows[t]]), params, obs[t])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def critic_obs_range_nb(lo, hi, work, rows, viewer, params, size, out):
    """The perfect-information critic's input for rows[lo..hi-1]: every seat's own observation, the viewer's
    first, then the others in seat order after it (``size`` columns each). In a sampled world that is all the
    world holds: it is the search's own sample, not the true deal."""
    n = work.hand.shape[1]
    for t in range(lo, hi):
        r = rows[t]
        v = np.int64(viewer[r])
        for q in range(n):
            observe_nb(work, r, np.int64((v + q) % n), params, out[t, q * size:(q + 1) * size])


# Each ``*_range_nb`` kernel over chunks of its rows on numba's threads. Small batches (a decision at batch 1 has
# 16 worlds x 4 candidates = 64 leaves) run the serial kernel: waking the thread pool for them cost more than the
# work, and on a loaded machine a stalled thread held up every call.
@nb.njit(cache=True, parallel=True)
def expand_nb(nchunks, src, ex, params, work, pool, viewer, acc):
    b = ex.games.shape[0]
    size = (b + nchunks - 1) // nchunks
    for c in nb.prange(nchunks):
        expand_range_nb(c * size, min(b, (c + 1) * size), src, ex, params, work, pool, viewer, acc)


@nb.njit(cache=True, parallel=True)
def views_nb(nchunks, work, rows, params, mask, ids, nlegal, obs):
    b = rows.shape[0]
    size = (b + nchunks - 1) // nchunks
    for c in nb.prange(nchunks):
        views_range_nb(c * size, min(b, (c + 1) * size), work, rows, params, mask, ids, nlegal, obs)


@nb.njit(cache=True, parallel=True)
def step_nb(nchunks, work, rows, actions, params, viewer, acc):
    b = rows.shape[0]
    size = (b + nchunks - 1) // nchunks
    for c in nb.prange(nchunks):
        step_range_nb(c * size, min(b, (c + 1) * size), work, rows, actions, params, viewer, acc)


@nb.njit(cache=True, parallel=True)
def viewer_obs_nb(nchunks, work, rows, viewer, params, obs):
    b = rows.shape[0]
    size = (b + nchunks - 1) // nchunks
    for c in nb.prange(nchunks):
        viewer_obs_range_nb(c * size, min(b, (c + 1) * size), work, rows, viewer, params, obs)


@nb.njit(cache=True, parallel=True)
def critic_obs_nb(nchunks, work, rows, viewer, params, size_, out):
    b = rows.shape[0]
    size = (b + nchunks - 1) // nchunks
    for c in nb.prange(nchunks):
        critic_obs_range_nb(c * size, min(b, (c + 1) * size), work, rows, viewer, params, size_, out)


PARALLEL_MIN_ROWS = 512  # fewer rows than this run serially (see above)


def run(kernel, serial, items: int, *args, rows: int | None = None):
    """``serial(0, items, *args)`` for a small batch (fewer than PARALLEL_MIN_ROWS leaf ``rows``, by default
    ``items``), else ``kernel(threads, *args)`` over numba's threads."""
    threads = nb.get_num_threads()
    if (items if rows is None else rows) < PARALLEL_MIN_ROWS or threads == 1 or items < 2:
        return serial(0, items, *args)
    return kernel(min(threads, items), *args)
