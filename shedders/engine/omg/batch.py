"""omg entry points for ``VectorGame``: the batch over threads."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.layout import P_NPLAYERS, PH_OVER
from shedders.engine.omg.legal import legal_mask_nb
from shedders.engine.omg.observe import observe_nb
from shedders.engine.omg.step import deal_nb, step_nb
from shedders.engine.rng import next_game_seed_nb, rand_below_nb


# ----------------------------------------------------------------------------------------------------------------
# The batched engine: serial kernels over games lo..hi-1 (``VectorGame`` calls them directly for a batch of one
# chunk, one game or one thread: a parallel region wakes numba's worker threads even for one chunk), and the
# parallel entry points, which split the batch into ``nthreads`` chunks and call a serial kernel per chunk.
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_range_nb(s, lo, hi, seeds, params, counts, cards, lay, obs, mask, cur, nlegal, ids):
    for g in range(lo, hi):
        deal_nb(s, g, seeds[g], params, counts)
        nlegal[g] = legal_mask_nb(s, g, params, cards, lay, mask[g], ids[g])
        cur[g] = s.turn[g]
        observe_nb(s, g, np.int64(s.turn[g]), params, cards, obs[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_range_nb(s, lo, hi, actions, params, counts, cards, lay, obs, mask, cur, nlegal, ids, rewards, term,
                  trunc, final_placing, final_plies, autoreset, write_obs):
    """Step games lo..hi-1 with actions[g] (-1: leave it); without ``write_obs`` the observations are left as they
    were (``VectorGame(write_observations=False)``)."""
    n = params[P_NPLAYERS]
    for g in range(lo, hi):
        term[g] = False
        trunc[g] = False
        final_placing[g] = -1
        final_plies[g] = 0
        for q in range(n):
            rewards[g, q] = 0.0
        a = actions[g]
        if a < 0 or s.phase[g] == PH_OVER:
            continue
        k = step_nb(s, g, a, params, cards, lay, mask[g], ids[g])
        for q in range(n):
            rewards[g, q] = s.rewards[g, q]
        if s.phase[g] == PH_OVER:
            term[g] = s.terminated[g]
            trunc[g] = s.truncated[g]
            if s.winner[g] >= 0:  # won (a capped game has no winner)
                final_placing[g, 0] = s.winner[g]
            final_plies[g] = s.plies[g]
            if autoreset:
                deal_nb(s, g, next_game_seed_nb(s, g), params, counts)
                k = legal_mask_nb(s, g, params, cards, lay, mask[g], ids[g])
            else:
                cur[g] = -1
                nlegal[g] = 0
                continue
        nlegal[g] = k
        cur[g] = s.turn[g]
        if write_obs:
            observe_nb(s, g, np.int64(s.turn[g]), params, cards, obs[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def legal_range_nb(s, lo, hi, params, cards, lay, mask, nlegal, ids):
    """Games lo..hi-1's masks, legal ids and their number written again from their states."""
    for g in range(lo, hi):
        nlegal[g] = legal_mask_nb(s, g, params, cards, lay, mask[g], ids[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sample_range_nb(s, lo, hi, ids, nlegal, out):
    for g in range(lo, hi):
        out[g] = ids[g, rand_below_nb(s, g, nlegal[g])] if nlegal[g] > 0 else -1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def observe_range_nb(s, lo, hi, seats, params, cards, out):
    for g in range(lo, hi):
        observe_nb(s, g, seats[g], params, cards, out[g])


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_reset_nb(nthreads, s, seeds, params, counts, cards, lay, obs, mask, cur, nlegal, ids):
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        reset_range_nb(s, c * chunk, min(b, (c + 1) * chunk), seeds, params, counts, cards, lay, obs, mask, cur,
                       nlegal, ids)


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_step_nb(nthreads, s, actions, params, counts, cards, lay, obs, mask, cur, nlegal, ids, rewards, term,
                  trunc, final_placing, final_plies, autoreset, write_obs):
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        step_range_nb(s, c * chunk, min(b, (c + 1) * chunk), actions, params, counts, cards, lay, obs, mask, cur,
                      nlegal, ids, rewards, term, trunc, final_placing, final_plies, autoreset, write_obs)


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_legal_nb(nthreads, s, params, cards, lay, mask, nlegal, ids):
    """Every game's mask, legal ids and their number written again from its state (what a step ends with)."""
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        legal_range_nb(s, c * chunk, min(b, (c + 1) * chunk), params, cards, lay, mask, nlegal, ids)


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_sample_nb(nthreads, s, ids, nlegal, out):
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        sample_range_nb(s, c * chunk, min(b, (c + 1) * chunk), ids, nlegal, out)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def redeal_over_nb(s, params, counts, cards, lay, obs, mask, cur, nlegal, ids):
    k = 0
    for g in range(s.turn.shape[0]):
        if s.phase[g] == PH_OVER:
            deal_nb(s, g, next_game_seed_nb(s, g), params, counts)
            nlegal[g] = legal_mask_nb(s, g, params, cards, lay, mask[g], ids[g])
            cur[g] = s.turn[g]
            observe_nb(s, g, np.int64(s.turn[g]), params, cards, obs[g])
            k += 1
    return k


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_observe_nb(nthreads, s, seats, params, cards, out):
    b = s.turn.shape[0]
    chunk = (b + nthreads - 1) // nthreads
    for c in nb.prange(nthreads):
        observe_range_nb(s, c * chunk, min(b, (c + 1) * chunk), seats, params, cards, out)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def first_illegal_nb(mask, actions):
    """Index of the first game whose action is not an id or is masked (-1 skips a game), or -1 when all are legal."""
    for g in range(actions.shape[0]):
        a = actions[g]
        if a == -1:
            continue
        if a < 0 or a >= mask.shape[1] or mask[g, a] == 0:
            return g
    return -1
