"""Determinized Monte Carlo search for omg: copy, resample, roll out with ``omg_policies``' expert."""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from shedders.engine.buffers import chunks_nb
from shedders.engine.omg.cards import held_type_nb, held_words_nb
from shedders.engine.omg.layout import CGOD, CNUM, CPOWER, N_GODS, P_NPLAYERS, P_NTYPES, PH_OVER
from shedders.engine.omg.legal import legal_mask_nb
from shedders.engine.omg.step import apply_nb
from shedders.engine.rng import rand_below_nb, splitmix64_nb
from shedders.engine.search.omg_policies import choice_from_state_nb


# ----------------------------------------------------------------------------------------------------------------
# Search (agents/omg_search.py): copying a game, resampling what a seat cannot see, expert rollouts. Kept in this
# file so that numba's cache, which checks only the cached function's own source file, never mixes versions.
# ----------------------------------------------------------------------------------------------------------------
# inlined: a call passes both states whole, which costs about as much as the copy
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def copy_game_nb(src, g, dst, d):
    """Row g of ``src`` into row d of ``dst`` (same shapes but the batch)."""
    n = src.hand.shape[1]
    for q in range(n):
        for t in range(src.hand.shape[2]):
            dst.hand[d, q, t] = src.hand[g, q, t]
        dst.hsize[d, q] = src.hsize[g, q]
        dst.skip[d, q] = src.skip[g, q]
        dst.rewards[d, q] = src.rewards[g, q]
    for i in range(src.deck_len[g]):
        dst.deck[d, i] = src.deck[g, i]
    for i in range(src.pile_len[g]):
        dst.pile[d, i] = src.pile[g, i]
    dst.deck_len[d] = src.deck_len[g]
    dst.pile_len[d] = src.pile_len[g]
    dst.turn[d] = src.turn[g]
    dst.phase[d] = src.phase[g]
    dst.power[d] = src.power[g]
    dst.fkind[d] = src.fkind[g]
    dst.fval[d] = src.fval[g]
    dst.left[d] = src.left[g]
    dst.upto[d] = src.upto[g]
    dst.revealed[d] = src.revealed[g]
    dst.winner[d] = src.winner[g]
    dst.plies[d] = src.plies[g]
    dst.terminated[d] = src.terminated[g]
    dst.truncated[d] = src.truncated[g]
    dst.rng[d] = src.rng[g]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def determinize_nb(s, d, viewer, params, cnt):
    """Resample, in row d, every card seat ``viewer`` cannot see: the other hands (sizes kept) and the deck's
    order,
    except Apollo's revealed card while it is the deck's top. The pile is face up and the viewer's hand is known.
    Hera's penalty cards are dealt unseen (seed 001), so no other card is public. ``cnt`` is scratch (int16, T)."""
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    for t in range(nt):
        cnt[t] = 0
    for q in range(n):
        if q != viewer:
            for t in range(nt):
                cnt[t] += s.hand[d, q, t]
                s.hand[d, q, t] = 0
    kd = np.int64(s.deck_len[d])
    if s.revealed[d] >= 0 and kd > 0:
        kd -= 1  # the revealed card stays on top
    for i in range(kd):
        cnt[s.deck[d, i]] += 1
    # lay the unseen cards out in type order (so the sample depends only on what the viewer cannot tell apart),
    # shuffle them with the row's stream, then deal the other hands and the deck back at their sizes
    m = 0
    for t in range(nt):
        for _ in range(cnt[t]):
            s.deck[d, m] = t
            m += 1
    for i in range(m - 1, 0, -1):
        j = rand_below_nb(s, d, i + 1)
        tmp = s.deck[d, i]
        s.deck[d, i] = s.deck[d, j]
        s.deck[d, j] = tmp
    # the deck keeps its first kd entries; the rest go to the other hands (the revealed top is rewritten after)
    m = kd
    for q in range(n):
        if q != viewer:
            for _ in range(s.hsize[d, q]):
                s.hand[d, q, s.deck[d, m]] += 1
                m += 1
    if s.revealed[d] >= 0 and s.deck_len[d] > 0:
        s.deck[d, kd] = s.revealed[d]


#: how a rollout cut short by ``max_plies`` is valued: by hand sizes (``leaf_value_nb``, the default), or by the
#: fitted model of who wins (``fitted_value_nb``, ``leaf="value"``)
LEAF_HANDS = 0
LEAF_FITTED = 1

#: ``leaf_features_nb``'s features of one seat: its hand size and whether that is at most 1, 2 or 3 cards; the
#: power cards it holds, by god; whether it acts now or next; whether it loses its next turn; and, for the seat to
#: act, the cards it holds that match the pile's top (number or god: played without a penalty)
LEAF_FEATURES = 4 + N_GODS + 4


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def leaf_features_nb(s, d, q, params, cards, out):
    """Seat q's ``LEAF_FEATURES`` features in row d, into ``out`` (float64)."""
    n = params[P_NPLAYERS]
    h = s.hsize[d, q]
    out[0] = h
    out[1] = 1.0 if h <= 1 else 0.0
    out[2] = 1.0 if h <= 2 else 0.0
    out[3] = 1.0 if h <= 3 else 0.0
    for k in range(N_GODS):
        out[4 + k] = 0.0
    turn = np.int64(s.turn[d])
    top = np.int64(s.pile[d, s.pile_len[d] - 1]) if s.pile_len[d] > 0 else -1
    match = 0
    lo, hi = held_words_nb(s.hand[d, q], params[P_NTYPES])
    while lo != 0 or hi != 0:  # the types the hand holds, lowest first
        t, lo, hi = held_type_nb(lo, hi)
        c = s.hand[d, q, t]
        if cards[t, CPOWER] != 0:
            out[4 + cards[t, CGOD]] += c
        if q == turn and top >= 0 and (cards[t, CNUM] == cards[top, CNUM] or cards[t, CGOD] == cards[top, CGOD]):
            match += c
    out[4 + N_GODS] = 1.0 if q == turn else 0.0
    out[5 + N_GODS] = 1.0 if q == (turn + 1) % n else 0.0
    out[6 + N_GODS] = s.skip[d, q]
    out[7 + N_GODS] = match


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def leaf_value_nb(s, d, viewer, params):
    """The viewer's value of an unfinished game: +1 / -1/(n-1) shaded by hand sizes (a softmin over seats, 2 cards
    per e-fold), on the scale of the real rewards."""
    n = params[P_NPLAYERS]
    z = 0.0
    for q in range(n):
        z += np.exp(-0.5 * s.hsize[d, q])
    pw = np.exp(-0.5 * s.hsize[d, viewer]) / z
    return pw * (1.0 + 1.0 / (n - 1)) - 1.0 / (n - 1)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def leaf_score_nb(s, d, q, params, cards, leaf_w, f):
    """leaf_w . leaf_features(q), the features written to the scratch ``f``."""
    leaf_features_nb(s, d, q, params, cards, f)
    v = 0.0
    for k in range(LEAF_FEATURES):
        v += leaf_w[k] * f[k]
    return v


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def fitted_value_nb(s, d, viewer, params, cards, leaf_w, f):
    """The viewer's expected reward (+1 for the winner, -1/(n-1) for each other seat) under a model of who wins:
    seat q with probability proportional to exp(leaf_w . leaf_features(q)), the weights fitted to where rollouts
    end (``experiments/fit_leaf.py --ruleset omg``). ``f`` is scratch for one seat's features. Each seat's score
    is computed once (a tuple of 8: no array, these kernels run without numba's runtime)."""
    n = params[P_NPLAYERS]
    sc = (seat_score_nb(s, d, 0, n, params, cards, leaf_w, f), seat_score_nb(s, d, 1, n, params, cards, leaf_w, f),
          seat_score_nb(s, d, 2, n, params, cards, leaf_w, f), seat_score_nb(s, d, 3, n, params, cards, leaf_w, f),
          seat_score_nb(s, d, 4, n, params, cards, leaf_w, f), seat_score_nb(s, d, 5, n, params, cards, leaf_w, f),
          seat_score_nb(s, d, 6, n, params, cards, leaf_w, f), seat_score_nb(s, d, 7, n, params, cards, leaf_w, f))
    top = -1e300
    for q in range(n):
        top = max(top, sc[q])
    z = 0.0
    mine = 0.0
    for q in range(n):
        e = np.exp(sc[q] - top)
        z += e
        if q == viewer:
            mine = e
    return (mine / z) * (1.0 + 1.0 / (n - 1)) - 1.0 / (n - 1)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def seat_score_nb(s, d, q, n, params, cards, leaf_w, f):
    """leaf_score_nb for one of the n seats; 0 past them (never read)."""
    if q >= n:
        return 0.0
    return leaf_score_nb(s, d, q, params, cards, leaf_w, f)


class OmgSearchPlan(NamedTuple):
    """How omg's search spends and values its rollouts (Python ints and bools, a float64 array)."""

    budget: int  # rollouts per decision
    oracle: bool  # see every hand and the deck's order (no resampling)
    eps_milli: int  # random moves in the rollouts, per mille
    max_plies: int  # a rollout's longest run, in decisions
    leaf: int  # LEAF_HANDS or LEAF_FITTED: how a rollout cut short is valued
    leaf_w: np.ndarray  # float64: the fitted leaf's weights


class OmgSearchScratch(NamedTuple):
    """Scratch rows, one per game searched. The work state the kernels take with it has twice as many rows: row j
    plays the rollouts of scratch row j, and row j + rows holds the sampled world they start from (a world is drawn
    once and played out after each action)."""

    mask: np.ndarray  # int8 (rows, A): the searched decision's mask
    ids: np.ndarray  # int16 (rows, A): its legal ids
    mask2: np.ndarray  # int8 (rows, A): a rollout's
    ids2: np.ndarray  # int16 (rows, A)
    cnt: np.ndarray  # int16 (rows, T): the unseen cards to resample
    feat: np.ndarray  # float64 (rows, LEAF_FEATURES): the fitted leaf's features
    vals: np.ndarray  # float64 (rows, A): each legal action's sum over the worlds


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rollout_nb(s, d, viewer, params, tables, plan, mask, ids, f):
    """Play row d to its end, or ``plan.max_plies`` more decisions (then the leaf value: ``plan.leaf``
    LEAF_HANDS or LEAF_FITTED with the weights ``plan.leaf_w`` and the scratch ``f``): expert, with a uniformly
    random legal action with probability eps_milli / 1000. Returns the viewer's value."""
    cards, lay = tables.cards, tables.lay
    for _ in range(plan.max_plies):
        if s.phase[d] == PH_OVER:
            return np.float64(s.rewards[d, viewer]) if s.terminated[d] else 0.0
        nl = legal_mask_nb(s, d, params, cards, lay, mask, ids)
        if plan.eps_milli > 0 and rand_below_nb(s, d, 1000) < plan.eps_milli:
            a = np.int64(ids[rand_below_nb(s, d, nl)])
        else:
            a = choice_from_state_nb(True, s, d, mask, ids, nl, params, cards, lay)  # expert
        s.rewards[d] = 0.0
        apply_nb(s, d, a, params, cards, lay)
    if s.phase[d] == PH_OVER:
        return np.float64(s.rewards[d, viewer]) if s.terminated[d] else 0.0
    if plan.leaf == LEAF_FITTED:
        return fitted_value_nb(s, d, viewer, params, cards, plan.leaf_w, f)
    return leaf_value_nb(s, d, viewer, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_one_nb(src, g, params, tables, work, w0, seed, plan, scr):
    """Determinized Monte Carlo for game g's player: every legal action is tried in the same ``budget // legal``
    sampled worlds (common random numbers), each followed by an expert rollout; the action of highest mean value.
    ``plan.oracle`` skips the resampling: its rollouts see every hand and the deck's order. Work and scratch row
    ``w0``."""
    cards, lay = tables.cards, tables.lay
    mask, ids = scr.mask[w0], scr.ids[w0]
    viewer = np.int64(src.turn[g])
    nl = legal_mask_nb(src, g, params, cards, lay, mask, ids)
    if nl == 1:
        return np.int64(ids[0])
    n_det = max(1, plan.budget // nl)
    vals = scr.vals[w0]
    for i in range(nl):
        vals[i] = 0.0
    w = w0 + work.rng.shape[0] // 2  # the world's row (OmgSearchScratch)
    for k in range(n_det):
        # world k, the same for every action (common random numbers); its stream is copied along with it, so each
        # action's rollout draws what it drew with a world of its own
        copy_game_nb(src, g, work, w)
        work.rng[w] = splitmix64_nb(np.uint64(seed) + np.uint64(k) * np.uint64(7919))
        if not plan.oracle:
            determinize_nb(work, w, viewer, params, scr.cnt[w0])
        for i in range(nl):
            copy_game_nb(work, w, work, w0)
            work.rewards[w0] = 0.0
            apply_nb(work, w0, np.int64(ids[i]), params, cards, lay)
            vals[i] += rollout_nb(work, w0, viewer, params, tables, plan, scr.mask2[w0], scr.ids2[w0],
                                  scr.feat[w0])
    best_a, best_v = np.int64(ids[0]), -1e30
    for i in range(nl):
        if vals[i] > best_v:
            best_a, best_v = np.int64(ids[i]), vals[i]
    return best_a


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_range_nb(src, games, lo, hi, params, tables, work, seeds, plan, scr, out):
    for j in range(lo, hi):
        out[j] = search_one_nb(src, games[j], params, tables, work, j, seeds[j], plan, scr)


# nogil: a search called from a worker thread (the web app) leaves the event loop its GIL while it runs
@nb.njit(cache=True, parallel=True, nogil=True)
def batch_search_nb(nchunks, src, games, params, tables, work, seeds, plan, scr, out):
    """Search the decisions of games[j] (work and scratch row j each), in chunks over the threads."""
    b = games.shape[0]
    nt, size = chunks_nb(nchunks, b)
    for c in nb.prange(nt):
        search_range_nb(src, games, c * size, min(b, (c + 1) * size), params, tables, work, seeds, plan, scr, out)
