"""omg entry points for ``VectorGame``: the batch over threads.

Every entry point takes the deck's tables as one ``OmgTables`` (``tables``: the deck's counts, the card table and
the action layout) and the batch's outputs as one ``Buffers`` (``buf``)."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.buffers import chunks_nb, first_illegal_nb  # noqa: F401  (first_illegal_nb: re-exported)
from shedders.engine.omg.layout import P_NPLAYERS, PH_OVER
from shedders.engine.omg.legal import legal_mask_nb
from shedders.engine.omg.observe import observe_nb
from shedders.engine.omg.step import deal_nb, step_nb
from shedders.engine.rng import next_game_seed_nb, rand_below_nb


# ----------------------------------------------------------------------------------------------------------------
# The batched engine: serial kernels over games lo..hi-1 (``VectorGame`` calls them directly for a batch of one
# chunk, one game or one thread: a parallel region wakes numba's worker threads even for one chunk), and the
# parallel entry points, which split the batch into chunks (``chunks_nb``) and call a serial kernel per chunk.
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def write_view_nb(s, g, params, tables, buf):
    """The mask, legal ids and their number, the player to act and its observation, of game g."""
    buf.nlegal[g] = legal_mask_nb(s, g, params, tables.cards, tables.lay, buf.mask[g], buf.ids[g])
    buf.cur[g] = s.turn[g]
    observe_nb(s, g, np.int64(s.turn[g]), params, tables.cards, buf.obs[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_range_nb(s, lo, hi, seeds, params, tables, buf):
    for g in range(lo, hi):
        deal_nb(s, g, seeds[g], params, tables.counts)
        write_view_nb(s, g, params, tables, buf)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_range_nb(s, lo, hi, actions, params, tables, buf, autoreset, write_obs):
    """Step games lo..hi-1 with actions[g] (-1: leave it); without ``write_obs`` the observations are left as they
    were (``VectorGame(write_observations=False)``)."""
    n = params[P_NPLAYERS]
    cards, lay = tables.cards, tables.lay
    for g in range(lo, hi):
        buf.terminated[g] = False
        buf.truncated[g] = False
        buf.final_placing[g] = -1
        buf.final_plies[g] = 0
        for q in range(n):
            buf.rewards[g, q] = 0.0
        a = actions[g]
        if a < 0 or s.phase[g] == PH_OVER:
            continue
        k = step_nb(s, g, a, params, cards, lay, buf.mask[g], buf.ids[g])
        for q in range(n):
            buf.rewards[g, q] = s.rewards[g, q]
        if s.phase[g] == PH_OVER:
            buf.terminated[g] = s.terminated[g]
            buf.truncated[g] = s.truncated[g]
            if s.winner[g] >= 0:  # won (a capped game has no winner)
                buf.final_placing[g, 0] = s.winner[g]
            buf.final_plies[g] = s.plies[g]
            if autoreset:
                deal_nb(s, g, next_game_seed_nb(s, g), params, tables.counts)
                k = legal_mask_nb(s, g, params, cards, lay, buf.mask[g], buf.ids[g])
            else:
                buf.cur[g] = -1
                buf.nlegal[g] = 0
                continue
        buf.nlegal[g] = k
        buf.cur[g] = s.turn[g]
        if write_obs:
            observe_nb(s, g, np.int64(s.turn[g]), params, cards, buf.obs[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def legal_range_nb(s, lo, hi, params, tables, buf):
    """Games lo..hi-1's masks, legal ids and their number written again from their states."""
    for g in range(lo, hi):
        buf.nlegal[g] = legal_mask_nb(s, g, params, tables.cards, tables.lay, buf.mask[g], buf.ids[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sample_range_nb(s, lo, hi, ids, nlegal, out):
    for g in range(lo, hi):
        out[g] = ids[g, rand_below_nb(s, g, nlegal[g])] if nlegal[g] > 0 else -1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def observe_range_nb(s, lo, hi, seats, params, tables, out):
    for g in range(lo, hi):
        observe_nb(s, g, seats[g], params, tables.cards, out[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def redeal_over_nb(s, params, tables, buf):
    k = 0
    for g in range(s.turn.shape[0]):
        if s.phase[g] == PH_OVER:
            deal_nb(s, g, next_game_seed_nb(s, g), params, tables.counts)
            write_view_nb(s, g, params, tables, buf)
            k += 1
    return k


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_reset_nb(nchunks, s, seeds, params, tables, buf):
    b = s.turn.shape[0]
    nt, size = chunks_nb(nchunks, b)
    for c in nb.prange(nt):
        reset_range_nb(s, c * size, min(b, (c + 1) * size), seeds, params, tables, buf)


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_step_nb(nchunks, s, actions, params, tables, buf, autoreset, write_obs):
    b = s.turn.shape[0]
    nt, size = chunks_nb(nchunks, b)
    for c in nb.prange(nt):
        step_range_nb(s, c * size, min(b, (c + 1) * size), actions, params, tables, buf, autoreset, write_obs)


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_legal_nb(nchunks, s, params, tables, buf):
    """Every game's mask, legal ids and their number written again from its state (what a step ends with)."""
    b = s.turn.shape[0]
    nt, size = chunks_nb(nchunks, b)
    for c in nb.prange(nt):
        legal_range_nb(s, c * size, min(b, (c + 1) * size), params, tables, buf)


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_sample_nb(nchunks, s, ids, nlegal, out):
    b = s.turn.shape[0]
    nt, size = chunks_nb(nchunks, b)
    for c in nb.prange(nt):
        sample_range_nb(s, c * size, min(b, (c + 1) * size), ids, nlegal, out)


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def batch_observe_nb(nchunks, s, seats, params, tables, out):
    b = s.turn.shape[0]
    nt, size = chunks_nb(nchunks, b)
    for c in nb.prange(nt):
        observe_range_nb(s, c * size, min(b, (c + 1) * size), seats, params, tables, out)
