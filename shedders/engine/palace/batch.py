"""Entry points: one game for the AEC env, and the batch over threads for ``VectorGame``."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.buffers import chunks_nb, first_illegal_nb  # noqa: F401  (first_illegal_nb: re-exported)
from shedders.engine.palace.deal import deal_nb
from shedders.engine.palace.layout import N_ACTIONS, P_NPLAYERS, PH_OVER
from shedders.engine.palace.legal import legal_mask_nb
from shedders.engine.palace.observe import observe_nb
from shedders.engine.palace.play import apply_nb
from shedders.engine.rng import next_game_seed_nb, rand_below_nb


# --------------------------------------------------------------------------------------------------------------
# Batch-of-one entry points (the AEC env) and batched entry points.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_one_nb(s, g, seed, params, mask, ids):
    """Deal game g and write its mask. ``g`` comes from the caller, never as a literal: numba compiles a separate
    specialization of every helper for a literal argument, which doubles the cold compile."""
    deal_nb(s, g, seed, params)
    return legal_mask_nb(s, g, params, mask, ids)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_one_nb(s, g, action, params, mask, ids):
    """Check against ``mask`` (game 0's current mask), apply and re-mask. Returns -1, and changes nothing, when
    ``action`` is not legal."""
    if action < 0 or action >= N_ACTIONS or mask[action] == 0:
        return -1
    apply_nb(s, g, action, params)
    return legal_mask_nb(s, g, params, mask, ids)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sample_legal_nb(s, g, ids, n):
    """A uniformly random legal action of game g from its own stream, given the legal ids and their number as
    legal_mask_nb wrote them."""
    if n <= 0:
        return -1
    return np.int64(ids[rand_below_nb(s, g, n)])


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def write_view_nb(s, g, params, buf):
    """The acting seat's observation, mask, legal ids and their number, and the acting seat, of game g."""
    buf.nlegal[g] = legal_mask_nb(s, g, params, buf.mask[g], buf.ids[g])
    buf.cur[g] = s.actor[g]
    if s.actor[g] >= 0:
        observe_nb(s, g, np.int64(s.actor[g]), params, buf.obs[g])
    else:
        buf.obs[g, :] = 0  # a game over, left for redeal_finished()


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_range_nb(s, lo, hi, actions, params, buf, autoreset, write_obs):
    """Step games lo..hi-1 with actions[g] (-1: leave game g as it is), writing ``buf`` (a ``Buffers``); finished
    games record their placing and length, then (with ``autoreset``) deal again from their own stream. Without
    ``write_obs`` the observations are left as they were (``VectorGame(write_observations=False)``: the caller
    observes when it needs to).

    Three passes (apply, masks, observations) rather than one: the fused loop body was too large for the
    instruction cache, and the split ran about 25% faster in an interleaved A/B."""
    n = params[P_NPLAYERS]
    for g in range(lo, hi):
        for q in range(n):
            buf.final_placing[g, q] = -1
        buf.final_plies[g] = 0
        a = actions[g]
        if a < 0:
            for q in range(n):
                buf.rewards[g, q] = 0.0
            buf.terminated[g] = False
            buf.truncated[g] = False
            continue
        apply_nb(s, g, a, params)
        for q in range(n):
            buf.rewards[g, q] = s.rewards[g, q]
        buf.terminated[g] = s.terminated[g]
        buf.truncated[g] = s.truncated[g]
        if s.phase[g] == PH_OVER:
            k = np.int64(s.n_out[g])
            for q in range(k):
                buf.final_placing[g, q] = s.placing[g, q]
            if k == n - 1:  # decided (by the rules, or at the cap by most_cards)
                for q in range(n):
                    if s.finished[g, q] == 0:
                        buf.final_placing[g, k] = q  # the last player, who never went out (og: only the winner)
            buf.final_plies[g] = s.plies[g]
            if autoreset:
                deal_nb(s, g, next_game_seed_nb(s, g), params)
    for g in range(lo, hi):
        buf.nlegal[g] = legal_mask_nb(s, g, params, buf.mask[g], buf.ids[g])
        buf.cur[g] = s.actor[g]
    if not write_obs:
        return
    for g in range(lo, hi):
        if s.actor[g] >= 0:
            observe_nb(s, g, np.int64(s.actor[g]), params, buf.obs[g])
        else:
            buf.obs[g, :] = 0  # a game over, left for redeal_finished()


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_range_nb(s, lo, hi, seeds, params, buf):
    for g in range(lo, hi):
        deal_nb(s, g, seeds[g], params)
        write_view_nb(s, g, params, buf)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def redeal_over_nb(s, params, buf):
    """Deal the next game, from its own stream, in every game that is over (VectorGame with autoreset off)."""
    n = 0
    for g in range(s.phase.shape[0]):
        if s.phase[g] == PH_OVER:
            deal_nb(s, g, next_game_seed_nb(s, g), params)
            write_view_nb(s, g, params, buf)
            n += 1
    return n


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sample_range_nb(s, lo, hi, ids, nlegal, out):
    """A uniformly random legal action per game, each from the game's own stream."""
    for g in range(lo, hi):
        out[g] = sample_legal_nb(s, g, ids[g], np.int64(nlegal[g]))


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def legal_range_nb(s, lo, hi, params, buf):
    """Games lo..hi-1's masks, legal ids and their number written again from their states."""
    for g in range(lo, hi):
        buf.nlegal[g] = legal_mask_nb(s, g, params, buf.mask[g], buf.ids[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def observe_range_nb(s, lo, hi, seats, params, obs):
    """Observation of game g from seat seats[g] (any seat, not only the actor)."""
    for g in range(lo, hi):
        observe_nb(s, g, seats[g], params, obs[g])


# A batch of one chunk (one game, or one thread) calls the serial ``*_range_nb`` kernels directly (``VectorGame``):
# a parallel region wakes numba's worker threads even for one chunk, and libgomp's workers then spin for a while
# after it, taking a core from whatever runs next (torch, another process).
# The parallel entry points split the batch into chunks (``chunks_nb``: one per thread, numba.get_num_threads()
# read in Python, since reading it inside a kernel keeps numba from caching it) and call a serial kernel per chunk.
# The serial kernels run without numba's reference counting (_nrt=False): passing the 32-array state to a helper
# costs an atomic incref and decref per array per call, which took most of the time of a step, and more so with
# several threads touching the same counters.
@nb.njit(cache=True, parallel=True)
def batch_step_nb(nchunks, s, actions, params, buf, autoreset, write_obs):
    nt, size = chunks_nb(nchunks, actions.shape[0])
    for c in nb.prange(nt):
        step_range_nb(s, c * size, min(actions.shape[0], (c + 1) * size), actions, params, buf, autoreset,
                      write_obs)


@nb.njit(cache=True, parallel=True)
def batch_reset_nb(nchunks, s, seeds, params, buf):
    nt, size = chunks_nb(nchunks, seeds.shape[0])
    for c in nb.prange(nt):
        reset_range_nb(s, c * size, min(seeds.shape[0], (c + 1) * size), seeds, params, buf)


@nb.njit(cache=True, parallel=True)
def batch_legal_nb(nchunks, s, params, buf):
    """Every game's mask, legal ids and their number written again from its state (what a step ends with)."""
    nt, size = chunks_nb(nchunks, buf.mask.shape[0])
    for c in nb.prange(nt):
        legal_range_nb(s, c * size, min(buf.mask.shape[0], (c + 1) * size), params, buf)


@nb.njit(cache=True, parallel=True)
def batch_sample_nb(nchunks, s, ids, nlegal, out):
    nt, size = chunks_nb(nchunks, out.shape[0])
    for c in nb.prange(nt):
        sample_range_nb(s, c * size, min(out.shape[0], (c + 1) * size), ids, nlegal, out)


@nb.njit(cache=True, parallel=True)
def batch_observe_nb(nchunks, s, seats, params, obs):
    nt, size = chunks_nb(nchunks, seats.shape[0])
    for c in nb.prange(nt):
        observe_range_nb(s, c * size, min(seats.shape[0], (c + 1) * size), seats, params, obs)
