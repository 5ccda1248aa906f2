"""Kernels of the network-guided search for the palace family (``agents/guided.py``): the search tree's leaves
are rows of a scratch state, expanded, stepped and viewed here in numba; the network that picks the rollouts'
moves and values the leaves runs in torch, on every leaf of the batch at once.

A leaf row holds one sampled world of one decision after one of its candidate actions. Row layout, for the j-th
decision (game ``games[j]``): ``start[j] + k * nacts[j] + i`` is world k after candidate i, so every candidate is
tried in the same worlds (common random numbers, as in ``palace_search``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.palace.layout import PH_OVER
from shedders.engine.palace.legal import legal_mask_nb
from shedders.engine.palace.observe import observe_nb
from shedders.engine.palace.play import apply_nb
from shedders.engine.rng import splitmix64_nb
from shedders.engine.search.palace_search import copy_game_nb, determinize_nb

WORLD_STRIDE = 7919  # world k of a decision seeds its row with splitmix64(seed + k * WORLD_STRIDE), as the search does


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expand_one_nb(src, g, acts, nacts, worlds, oracle, seed, params, work, r0, pool, viewer, acc):
    """Rows ``r0 ..`` of ``work``: game g copied, resampled from its actor's view (unless ``oracle``), then each of
    the ``nacts`` candidates ``acts`` applied; ``acc`` gets the reward the actor collected by that action."""
    p = np.int64(src.actor[g])
    r = r0
    for k in range(worlds):
        for i in range(nacts):
            copy_game_nb(src, g, work, r)
            work.rng[r] = splitmix64_nb(np.uint64(seed) + np.uint64(k) * np.uint64(WORLD_STRIDE))
            if not oracle:
                determinize_nb(work, r, p, params, pool)
            apply_nb(work, r, np.int64(acts[i]), params)
            viewer[r] = p
            acc[r] = work.rewards[r, p]
            r += 1


@nb.njit(cache=True, parallel=True)
def expand_nb(src, games, acts, nacts, start, worlds, oracle, seeds, params, work, pool, viewer, acc):
    """``expand_one_nb`` for every decision j (in parallel; ``pool[j]`` is decision j's scratch)."""
    for j in nb.prange(games.shape[0]):
        expand_one_nb(src, games[j], acts[j], nacts[j], worlds, oracle, seeds[j], params, work, start[j], pool[j],
                      viewer, acc)


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


@nb.njit(cache=True, parallel=True)
def actor_obs_nb(work, rows, params, obs):
    """Each of ``rows`` as its actor sees it (the rollout policy's input), into ``obs[t]``."""
    for t in nb.prange(rows.shape[0]):
        r = rows[t]
        observe_nb(work, r, np.int64(work.actor[r]), params, obs[t])


@nb.njit(cache=True, parallel=True)
def legal_rows_nb(work, rows, params, mask, ids, nlegal):
    """For each of ``rows``: its legal ids into ``ids[t]`` (the engine's order) and their count into
    ``nlegal[t]`` (``mask[t]`` is scratch)."""
    for t in nb.prange(rows.shape[0]):
        nlegal[t] = legal_mask_nb(work, rows[t], params, mask[t], ids[t])


@nb.njit(cache=True, parallel=True)
def step_rows_nb(work, rows, actions, params, viewer, acc):
    """Apply ``actions[t]`` in row ``rows[t]``; add what the row's viewer collected to ``acc``."""
    for t in nb.prange(rows.shape[0]):
        r = rows[t]
        apply_nb(work, r, np.int64(actions[t]), params)
        acc[r] += work.rewards[r, viewer[r]]


@nb.njit(cache=True, parallel=True)
def viewer_obs_nb(work, rows, viewer, params, obs):
    """Each of ``rows`` as its viewer sees it (the actor's value head's input)."""
    for t in nb.prange(rows.shape[0]):
        r = rows[t]
        observe_nb(work, r, np.int64(viewer[r]), params, obs[t])


@nb.njit(cache=True, parallel=True)
def critic_obs_nb(work, rows, viewer, params, size, out):
    """The perfect-information critic's input for each of ``rows``: every seat's own observation, the viewer's
    first, then the others in seat order after it (``size`` columns each). In a sampled world that is all the
    world holds: it is the search's own sample, not the true deal."""
    n = work.hand.shape[1]
    for t in nb.prange(rows.shape[0]):
        r = rows[t]
        v = np.int64(viewer[r])
        for q in range(n):
            observe_nb(work, r, np.int64((v + q) % n), params, out[t, q * size:(q + 1) * size])
