"""Determinized Monte Carlo search for the palace family: copy a game, resample what the viewer cannot
see, try every legal action in the same sampled worlds, roll out with a policy of ``palace_policies``."""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from shedders.engine.buffers import chunks_nb
from shedders.engine.palace.layout import FAM_FAT, FAM_OG, N_DOWN, P_FAMILY, P_NPLAYERS, PH_OVER, PH_SETUP, R
from shedders.engine.palace.legal import legal_mask_nb
from shedders.engine.palace.observe import observe_nb
from shedders.engine.palace.play import apply_nb, place_by_cards_nb
from shedders.engine.rng import rand_below_nb, splitmix64_nb
from shedders.engine.search.palace_policies import (
    POLICY_EXPERT,
    POLICY_RANDOM,
    expert_choice_nb,
    greedy_choice_nb,
    greedy_fast_nb,
)


class SearchPlan(NamedTuple):
    """How a search spends and values its rollouts: one record the kernels take whole, so a new search option is
    one field. Build it with Python ints and bools (and float64 / int64 arrays) so every search shares one
    compiled specialization."""

    budget: int  # rollouts per decision
    oracle: bool  # see every hidden card and the draw pile's order (no resampling)
    halving: bool  # sequential halving over the legal actions instead of an even split
    eps_milli: int  # random moves in the rollouts, per mille
    max_plies: int  # a rollout's longest run, in decisions
    leaf: int  # LEAF_*: how a rollout cut short is valued
    leaf_w: np.ndarray  # float64: the fitted leaf's weights
    policy: int  # POLICY_*: the viewer's rollout policy
    others: int  # POLICY_*: everyone else's
    off: np.ndarray  # int64: the expert policy's observation offsets (palace_policies)
    prior: bool = False  # search only the searched decision's actions its scratch ``allow`` row marks


class SearchScratch(NamedTuple):
    """Scratch rows: one per game of a batched search, one per thread when one decision's rollouts share the
    threads (row 0 holds the decision's own mask, ids and values then). The work state the kernels take with it
    has twice as many rows: row j plays the rollouts of scratch row j, and row ``world_row_nb(work, j)`` holds the
    sampled world they start from (a world is drawn once and played out after each action)."""

    mask: np.ndarray  # int8 (rows, N_ACTIONS): the searched decision's mask
    ids: np.ndarray  # int16 (rows, N_ACTIONS): its legal ids
    mask2: np.ndarray  # int8 (rows, N_ACTIONS): a rollout's
    ids2: np.ndarray  # int16 (rows, N_ACTIONS)
    pool: np.ndarray  # int8 (rows, pool_width(cards)): the hidden cards to resample
    obs: np.ndarray  # int8 (rows, obs): the expert rollout policy's observation
    vals: np.ndarray  # float64 (rows, N_ACTIONS): the actions' sums over the worlds (sequential halving: so far)
    sums: np.ndarray  # float64 (rows, N_ACTIONS): sequential halving's sums over one round's worlds
    buf: np.ndarray  # float64 (>= max(budget, N_ACTIONS),): one decision's rollout rewards over the threads
    allow: np.ndarray  # int8 (rows, N_ACTIONS): with ``plan.prior``, the actions a prior lets the search try


# --------------------------------------------------------------------------------------------------------------
# Search support: copy a game, resample what a player cannot know, a greedy rollout policy, and determinized
# Monte Carlo over the legal actions (agents/search.py). Every rollout is a game of the same engine.
# --------------------------------------------------------------------------------------------------------------
# inlined: a call passes both states whole, which costs about as much as the copy
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def copy_game_nb(src, g, dst, d):
    """Row g of state ``src`` into row d of ``dst`` (same player count and card capacity). Element loops, not
    slice assignment: numba would allocate a temporary for a slice copy, which needs its runtime."""
    n = src.hand.shape[1]
    for p in range(n):
        for r in range(R):
            dst.hand[d, p, r] = src.hand[g, p, r]
            dst.face_up[d, p, r] = src.face_up[g, p, r]
            dst.known[d, p, r] = src.known[g, p, r]
        for i in range(N_DOWN):
            dst.face_down[d, p, i] = src.face_down[g, p, i]
        dst.finished[d, p] = src.finished[g, p]
        dst.placing[d, p] = src.placing[g, p]
        dst.rewards[d, p] = src.rewards[g, p]
    for i in range(src.pile_len[g]):
        dst.pile[d, i] = src.pile[g, i]
        dst.pile_by[d, i] = src.pile_by[g, i]
        dst.pile_as[d, i] = src.pile_as[g, i]
    for i in range(src.deck_len[g]):
        dst.deck[d, i] = src.deck[g, i]
    for r in range(R):
        dst.out[d, r] = src.out[g, r]
    dst.pile_len[d] = src.pile_len[g]
    dst.deck_len[d] = src.deck_len[g]
    dst.turn[d] = src.turn[g]
    dst.actor[d] = src.actor[g]
    dst.phase[d] = src.phase[g]
    dst.direction[d] = src.direction[g]
    dst.target[d] = src.target[g]
    dst.ask[d] = src.ask[g]
    dst.ask_left[d] = src.ask_left[g]
    dst.win_rank[d] = src.win_rank[g]
    dst.win_by[d] = src.win_by[g]
    dst.resume[d] = src.resume[g]
    dst.resume_phase[d] = src.resume_phase[g]
    dst.oot[d] = src.oot[g]
    dst.last_rank[d] = src.last_rank[g]
    dst.n_out[d] = src.n_out[g]
    dst.plies[d] = src.plies[g]
    dst.rng[d] = src.rng[g]
    dst.terminated[d] = src.terminated[g]
    dst.truncated[d] = src.truncated[g]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def hidden_cards_nb(s, d, viewer, params, pool):
    """Collect into ``pool`` every card of row d that seat ``viewer`` cannot know (see ``determinize_nb``), in
    zone order; returns how many."""
    n = params[P_NPLAYERS]
    setup = s.phase[d] == PH_SETUP
    m = 0
    for q in range(n):
        if q != viewer:
            for r in range(R):
                for _ in range(s.hand[d, q, r] - s.known[d, q, r]):
                    pool[m] = r
                    m += 1
                if setup:
                    for _ in range(s.face_up[d, q, r]):
                        pool[m] = r
                        m += 1
        for i in range(N_DOWN):
            if s.face_down[d, q, i] >= 0:
                pool[m] = s.face_down[d, q, i]
                m += 1
    for i in range(s.deck_len[d]):
        pool[m] = s.deck[d, i]
        m += 1
    return m


def pool_width(num_cards: int) -> int:
    """The columns of ``determinize_nb``'s scratch ``pool``: the hidden cards, then a count per rank."""
    return num_cards + R


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sort_and_shuffle_nb(s, d, pool, m):
    """Sort pool[:m] first, so the sample depends only on what the viewer cannot tell apart (a counting sort over
    the ranks, counted in the pool's last R entries: ``pool_width``); then shuffle it from row d's own stream
    (Fisher-Yates)."""
    c0 = pool.shape[0] - R
    for r in range(R):
        pool[c0 + r] = 0
    for i in range(m):
        pool[c0 + pool[i]] += 1
    i = 0
    for r in range(R):
        for _ in range(pool[c0 + r]):
            pool[i] = r
            i += 1
    for i in range(m - 1, 0, -1):
        j = rand_below_nb(s, d, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def deal_back_nb(s, d, viewer, params, pool):
    """Put the shuffled hidden cards back where hidden cards were, zone by zone, in ``hidden_cards_nb``'s order."""
    n = params[P_NPLAYERS]
    setup = s.phase[d] == PH_SETUP
    m = 0
    for q in range(n):
        if q != viewer:
            k = 0
            for r in range(R):
                k += s.hand[d, q, r] - s.known[d, q, r]
                s.hand[d, q, r] = s.known[d, q, r]
            u = 0
            if setup:
                for r in range(R):
                    u += s.face_up[d, q, r]
                    s.face_up[d, q, r] = 0
            for _ in range(k):
                s.hand[d, q, pool[m]] += 1
                m += 1
            for _ in range(u):
                s.face_up[d, q, pool[m]] += 1
                m += 1
        for i in range(N_DOWN):
            if s.face_down[d, q, i] >= 0:
                s.face_down[d, q, i] = pool[m]
                m += 1
    for i in range(s.deck_len[d]):
        s.deck[d, i] = pool[m]
        m += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def determinize_nb(s, d, viewer, params, pool):
    """Resample, in row d, every card seat ``viewer`` cannot know, from the row's own stream: the other players'
    hands beyond their publicly known cards, every face-down card (the owner's too), the draw pile's order and,
    during setup, the other players' face-up cards. ``pool`` is scratch (int8, ``pool_width`` entries at least)."""
    m = hidden_cards_nb(s, d, viewer, params, pool)
    sort_and_shuffle_nb(s, d, pool, m)
    deal_back_nb(s, d, viewer, params, pool)

#: how a rollout cut short by ``max_plies`` is valued (``rollout_nb``). The leaf values are inlined into the
#: rollout: a call that passes the engine state costs a good part of a value.
LEAF_NONE = 0
LEAF_CARDS = 1
LEAF_VALUE = 2
LEAF_ORDER = 3

#: ``leaf_features_nb``'s features of one seat: its hand and face-up cards by rank, its face-down cards, whether it
#: acts now or next, its hand once the draw pile is empty, and the pile it faces when it acts now
LEAF_FEATURES = 2 * R + 5


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def leaf_features_nb(s, d, q, out):
    """Seat q's ``LEAF_FEATURES`` features in row d, into ``out`` (float64)."""
    n = s.finished.shape[1]
    actor = np.int64(s.actor[d])
    hand = 0
    for r in range(R):
        out[r] = s.hand[d, q, r]
        out[R + r] = s.face_up[d, q, r]
        hand += s.hand[d, q, r]
    down = 0
    for i in range(N_DOWN):
        if s.face_down[d, q, i] >= 0:
            down += 1
    out[2 * R] = down
    out[2 * R + 1] = 1.0 if q == actor else 0.0
    out[2 * R + 2] = 1.0 if q == (actor + 1) % n else 0.0
    out[2 * R + 3] = hand if s.deck_len[d] == 0 else 0.0
    out[2 * R + 4] = s.pile_len[d] if q == actor else 0.0


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def leaf_score_nb(s, d, q, leaf_w):
    """leaf_w . leaf_features(q), without writing the features out (the kernels allocate nothing)."""
    n = s.finished.shape[1]
    actor = np.int64(s.actor[d])
    v = 0.0
    hand = 0
    for r in range(R):
        v += leaf_w[r] * s.hand[d, q, r] + leaf_w[R + r] * s.face_up[d, q, r]
        hand += s.hand[d, q, r]
    for i in range(N_DOWN):
        if s.face_down[d, q, i] >= 0:
            v += leaf_w[2 * R]
    if q == actor:
        v += leaf_w[2 * R + 1] + leaf_w[2 * R + 4] * s.pile_len[d]
    if q == (actor + 1) % n:
        v += leaf_w[2 * R + 2]
    if s.deck_len[d] == 0:
        v += leaf_w[2 * R + 3] * hand
    return v


# inlined, as leaf_score_nb: a call that passes the engine state costs more than the score
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def seat_score_nb(s, d, q, n, leaf_w):
    """leaf_score_nb for a seat still in; -inf for one out or past the n seats."""
    if q >= n or s.finished[d, q] != 0:
        return -np.inf
    return leaf_score_nb(s, d, q, leaf_w)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def seat_scores_nb(s, d, n, leaf_w):
    """Every seat's ``seat_score_nb``, each computed once, as a tuple of 8 (no array: these kernels run without
    numba's runtime), and the largest of them."""
    sc = (seat_score_nb(s, d, 0, n, leaf_w), seat_score_nb(s, d, 1, n, leaf_w), seat_score_nb(s, d, 2, n, leaf_w),
          seat_score_nb(s, d, 3, n, leaf_w), seat_score_nb(s, d, 4, n, leaf_w), seat_score_nb(s, d, 5, n, leaf_w),
          seat_score_nb(s, d, 6, n, leaf_w), seat_score_nb(s, d, 7, n, leaf_w))
    top = -1e300
    for q in range(n):
        if s.finished[d, q] == 0:
            top = max(top, sc[q])
    return sc, top


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def leaf_value_nb(s, d, viewer, params, leaf_w):
    """``viewer``'s expected reward from here on in a core-family game (the loser gets -1, every other player
    1/(N-1) on going out), under a model of who loses: seat q of those still in with probability proportional to
    exp(leaf_w . leaf_features(q)), the weights fitted to where rollouts end (``experiments/fit_leaf.py``)."""
    n = params[P_NPLAYERS]
    if s.finished[d, viewer] != 0:
        return 0.0
    sc, top = seat_scores_nb(s, d, n, leaf_w)
    total = 0.0
    mine = 0.0
    for q in range(n):
        if s.finished[d, q] == 0:
            e = np.exp(sc[q] - top)
            total += e
            if q == viewer:
                mine = e
    p_last = mine / total
    return (1.0 - p_last) / (n - 1) - p_last


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def place_reward_nb(k, n, fam):
    """The reward of going out k-th (1-based) of n, by the reward rule of the family: fatality's (N + 1 - 2k) /
    (N - 1), og's +1 for the first out (the game then ends), the core family's 1/(N-1) (the one left loses, -1)."""
    if fam == FAM_FAT:
        return (n + 1.0 - 2.0 * k) / (n - 1)
    if fam == FAM_OG:
        return 1.0 if k == 1 else -1.0 / (n - 1)
    return 1.0 / (n - 1) if k < n else -1.0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def order_expect_nb(bits, e, viewer, k, n, fam):
    """``viewer``'s expected reward when the seats of the bit set ``bits`` (the viewer among them) go out one by
    one from place k on, each next with probability proportional to its weight ``e[q]`` (a Plackett-Luce model of
    the finishing order), exactly: a sum over the orders, at most 8! of them, most pruned where the viewer is out.
    og's game ends at its first out; elsewhere the seat left last takes place n."""
    if bits == (1 << viewer):
        return place_reward_nb(n, n, fam)
    tot = 0.0
    for q in range(n):
        if (bits >> q) & 1:
            tot += e[q]
    v = 0.0
    for q in range(n):
        if (bits >> q) & 1:
            p = e[q] / tot
            if q == viewer:
                v += p * place_reward_nb(k, n, fam)
            elif fam == FAM_OG:
                v += p * place_reward_nb(k + 1, n, fam)  # someone else won: the viewer's -1/(N-1)
            else:
                v += p * order_expect_nb(bits & ~(1 << q), e, viewer, k + 1, n, fam)
    return v


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def fatality_order_value_nb(bits, e, viewer, k, n):
    """``order_expect_nb`` for fatality, in closed form. fatality's place reward (N + 1 - 2k) / (N - 1) is linear
    in the place, so the expectation needs only the viewer's expected place; and under a Plackett-Luce model seat q
    goes out before the viewer with probability e[q] / (e[q] + e[viewer]) (the model is a race of independent
    exponential clocks of rates e), so that place is k plus the sum of those over the other seats of ``bits``. The
    same value as the sum over the orders (up to rounding: ``tests/test_agents.py``), in n terms instead of up
    to n! of them."""
    place = float(k)
    ev = e[viewer]
    for q in range(n):
        if q != viewer and (bits >> q) & 1:
            both = e[q] + ev
            place += e[q] / both if both > 0.0 else 0.5
    return (n + 1.0 - 2.0 * place) / (n - 1)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def seat_weight_nb(score, top):
    """exp(score - top); 0 without the exponential for a seat out (score -inf), which is what it returns."""
    if score == -np.inf:
        return 0.0
    return np.exp(score - top)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def order_value_nb(s, d, viewer, params, leaf_w):
    """``viewer``'s expected reward from here on, by the family's place rewards, under a Plackett-Luce model of
    who goes out next: of the seats still in, seat q with probability proportional to exp(leaf_w .
    leaf_features(q)), then the same among those left (the weights fitted by ``experiments/fit_leaf.py
    --model order``). Any family: fatality prices every place (in closed form: ``fatality_order_value_nb``), og
    the first, core the last (summed over the orders: ``order_expect_nb``)."""
    n = params[P_NPLAYERS]
    if s.finished[d, viewer] != 0:
        return 0.0
    sc, top = seat_scores_nb(s, d, n, leaf_w)
    bits = 0
    for q in range(n):
        if s.finished[d, q] == 0:
            bits |= 1 << q
    # each seat's weight exp(score - top), 0 for a seat out, as a tuple of 8
    e = (seat_weight_nb(sc[0], top), seat_weight_nb(sc[1], top), seat_weight_nb(sc[2], top),
         seat_weight_nb(sc[3], top), seat_weight_nb(sc[4], top), seat_weight_nb(sc[5], top),
         seat_weight_nb(sc[6], top), seat_weight_nb(sc[7], top))
    if params[P_FAMILY] == FAM_FAT:
        return fatality_order_value_nb(bits, e, viewer, s.n_out[d] + 1, n)
    return order_expect_nb(bits, e, viewer, s.n_out[d] + 1, n, params[P_FAMILY])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rollout_nb(s, d, viewer, params, plan, mask, ids, obs):
    """Play row d to its end (or ``plan.max_plies`` more decisions): the viewer's decisions with ``plan.policy``,
    everyone else's with ``plan.others`` (POLICY_GREEDY, POLICY_EXPERT, which writes observations to ``obs``, or
    POLICY_RANDOM), each with a uniformly random legal action with probability eps_milli / 1000. Returns the
    reward ``viewer`` collects on the way. ``plan.leaf`` values a rollout that stops short of the game's end:
    LEAF_NONE by the rewards collected so far, LEAF_CARDS as the ``most_cards`` cap rule ends a game (the players
    still in go out by the cards they hold, fewest first, each rewarded as going out is), LEAF_VALUE by
    ``leaf_value_nb`` with the weights ``plan.leaf_w`` (core-family rewards), LEAF_ORDER by ``order_value_nb`` (a
    model of the whole finishing order, any family's rewards)."""
    eps_milli, leaf, leaf_w, policy, others, off = plan.eps_milli, plan.leaf, plan.leaf_w, plan.policy, \
        plan.others, plan.off
    total = 0.0
    for _ in range(plan.max_plies):
        if s.phase[d] == PH_OVER:
            break
        pol = policy if s.actor[d] == viewer else others
        # the legal actions are listed only where the choice reads them (one place: the kernel inlines it once):
        # greedy's common decisions come from the state (greedy_fast_nb); listing them draws nothing, so the stream
        # is the same either way
        rand = pol == POLICY_RANDOM or (eps_milli > 0 and rand_below_nb(s, d, 1000) < eps_milli)
        a = np.int64(-1)
        if not rand and pol != POLICY_EXPERT:
            a = greedy_fast_nb(s, d, params)
        if a < 0:
            nl = legal_mask_nb(s, d, params, mask, ids)
            if rand:
                a = np.int64(ids[rand_below_nb(s, d, nl)])
            elif pol == POLICY_EXPERT:
                observe_nb(s, d, np.int64(s.actor[d]), params, obs)  # expert reads the actor's observation
                a = expert_choice_nb(obs, off, mask, params)
            else:
                a = greedy_choice_nb(mask, params)
        apply_nb(s, d, a, params)
        total += s.rewards[d, viewer]
    if leaf == LEAF_CARDS and s.phase[d] != PH_OVER:
        for q in range(params[P_NPLAYERS]):
            s.rewards[d, q] = 0.0
        place_by_cards_nb(s, d, params)
        total += s.rewards[d, viewer]
    elif leaf == LEAF_VALUE and s.phase[d] != PH_OVER:
        total += leaf_value_nb(s, d, viewer, params, leaf_w)
    elif leaf == LEAF_ORDER and s.phase[d] != PH_OVER:
        total += order_value_nb(s, d, viewer, params, leaf_w)
    return total


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def world_row_nb(work, w0):
    """The work row that holds the sampled world of scratch row w0's rollouts (``SearchScratch``)."""
    return w0 + work.rng.shape[0] // 2


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def make_world_nb(src, g, k, params, work, w0, seed, plan, scr):
    """World k of game g's search into ``world_row_nb(work, w0)``: a copy of the game with its own stream (the same
    for every action: common random numbers), and what the viewer cannot know resampled from it."""
    w = world_row_nb(work, w0)
    copy_game_nb(src, g, work, w)
    work.rng[w] = splitmix64_nb(np.uint64(seed) + np.uint64(k) * np.uint64(7919))
    if not plan.oracle:
        determinize_nb(work, w, np.int64(src.actor[g]), params, scr.pool[w0])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def action_value_nb(a, viewer, params, work, w0, plan, scr):
    """The viewer's reward after action a in the world of ``world_row_nb(work, w0)``, played out in row w0 (the
    world's stream copied along, so each action's rollout draws what it drew with a world of its own)."""
    copy_game_nb(work, world_row_nb(work, w0), work, w0)
    apply_nb(work, w0, a, params)
    return work.rewards[w0, viewer] + rollout_nb(work, w0, viewer, params, plan, scr.mask2[w0], scr.ids2[w0],
                                                 scr.obs[w0])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def worlds_value_nb(src, g, a, k0, k1, params, work, w0, seed, plan, scr):
    """The viewer's summed reward over worlds k0..k1-1 of game g after action a (world k: ``make_world_nb``), in
    work and scratch row ``w0``."""
    viewer = np.int64(src.actor[g])
    v = 0.0
    for k in range(k0, k1):
        make_world_nb(src, g, k, params, work, w0, seed, plan, scr)
        v += action_value_nb(a, viewer, params, work, w0, plan, scr)
    return v


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def all_worlds_nb(src, g, acts, n_act, k0, k1, params, work, w0, seed, plan, scr, sums):
    """sums[i] = worlds_value_nb(..., acts[i], k0, k1, ...) for i < n_act, each world drawn once for all the
    actions (the same sums, added in the same order)."""
    viewer = np.int64(src.actor[g])
    for i in range(n_act):
        sums[i] = 0.0
    for k in range(k0, k1):
        make_world_nb(src, g, k, params, work, w0, seed, plan, scr)
        for i in range(n_act):
            sums[i] += action_value_nb(np.int64(acts[i]), viewer, params, work, w0, plan, scr)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def keep_allowed_nb(ids, nl, allow):
    """Keep, in their order, the first ``nl`` legal ``ids`` that ``allow`` marks; returns how many are kept. Where
    it marks none of them, all ``nl`` stay: a prior narrows the search, it never empties it."""
    k = nl - nl
    for i in range(nl):
        if allow[ids[i]]:
            ids[k] = ids[i]
            k += 1
    return k if k > 0 else nl


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_one_nb(src, g, params, work, w0, seed, plan, scr):
    """Determinized Monte Carlo for game g's actor: every legal action is tried in the same ``n_det`` sampled
    worlds (common random numbers), each followed by a rollout with ``plan.policy``; returns the action of highest
    mean reward. ``plan.oracle`` skips the resampling: the rollouts see every hidden card and the draw pile's
    order. Work and scratch row ``w0``."""
    mask, ids, vals = scr.mask[w0], scr.ids[w0], scr.vals[w0]
    nl = legal_mask_nb(src, g, params, mask, ids)
    if plan.prior:
        nl = keep_allowed_nb(ids, nl, scr.allow[w0])
    if nl == 1:
        return np.int64(ids[0])
    n_det = max(1, plan.budget // nl)
    all_worlds_nb(src, g, ids, nl, nl - nl, n_det, params, work, w0, seed, plan, scr, vals)  # see halving_one_nb
    best_a, best_v = np.int64(ids[0]), -1e30
    for i in range(nl):
        if vals[i] > best_v:
            best_a, best_v = np.int64(ids[i]), vals[i]
    return best_a


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def halving_start_nb(nl, budget, vals):
    """Sequential halving's rollouts per round for ``nl`` legal actions (the budget split over ceil(log2(nl))
    rounds), with the first ``nl`` values zeroed."""
    rounds = 0
    while (1 << rounds) < nl:
        rounds += 1
    for i in range(nl):
        vals[i] = 0.0
    return budget // rounds


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def better_half_nb(vals, ids, alive):
    """Sort the first ``alive`` actions ``ids`` by ``vals``, best first (stable: the legal order on ties), and
    return how many survive a halving round: the better half, rounded up."""
    for i in range(1, alive):
        v, a = vals[i], ids[i]
        j = i - 1
        while j >= 0 and vals[j] < v:
            vals[j + 1], ids[j + 1] = vals[j], ids[j]
            j -= 1
        vals[j + 1], ids[j + 1] = v, a
    return (alive + 1) // 2


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def halving_one_nb(src, g, params, work, w0, seed, plan, scr):
    """Sequential halving (Karnin, Koren and Somekh, ICML 2013) over the same worlds as search_one_nb: the budget
    is split evenly over ceil(log2(legal)) rounds; each round tries every surviving action in more worlds (the same
    new worlds for all of them) and keeps the better half by mean reward so far (ties: the earlier legal action).
    Returns the last survivor. Work and scratch row ``w0`` (``scr.vals[w0]``: the running sums)."""
    mask, ids, vals, sums = scr.mask[w0], scr.ids[w0], scr.vals[w0], scr.sums[w0]
    nl = legal_mask_nb(src, g, params, mask, ids)
    if plan.prior:
        nl = keep_allowed_nb(ids, nl, scr.allow[w0])
    if nl == 1:
        return np.int64(ids[0])
    per_round = halving_start_nb(nl, plan.budget, vals)
    # done starts at nl - nl, an int64 zero: numba types a constant 0 passed on to a kernel as the literal 0, and
    # would compile the callee's whole chain a second time for it (the uniform search passes nl - nl too)
    alive, done = nl, nl - nl
    while alive > 1:
        upto = done + max(1, per_round // alive)
        all_worlds_nb(src, g, ids, alive, done, upto, params, work, w0, seed, plan, scr, sums)
        for i in range(alive):
            vals[i] += sums[i]
        done = upto
        alive = better_half_nb(vals, ids, alive)
    return np.int64(ids[0])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_range_nb(src, games, lo, hi, params, work, seeds, plan, scr, out):
    for j in range(lo, hi):
        if plan.halving:
            out[j] = halving_one_nb(src, games[j], params, work, j, seeds[j], plan, scr)
        else:
            out[j] = search_one_nb(src, games[j], params, work, j, seeds[j], plan, scr)


# nogil: a search called from a worker thread (the web app) leaves the event loop its GIL while it runs
@nb.njit(cache=True, parallel=True, nogil=True)
def batch_search_nb(nchunks, src, games, params, work, seeds, plan, scr, out):
    """Search the decisions of games[j] (work and scratch row j each), in chunks over the threads;
    ``plan.halving`` chooses sequential halving (halving_one_nb) over the uniform search (search_one_nb)."""
    b = games.shape[0]
    nt, size = chunks_nb(nchunks, b)
    for c in nb.prange(nt):
        search_range_nb(src, games, c * size, min(b, (c + 1) * size), params, work, seeds, plan, scr, out)


# --------------------------------------------------------------------------------------------------------------
# One decision over the threads: at batch 1 the chunks above leave every thread but one idle, so these spread a
# decision's rollouts (action, world) over the threads instead. Each rollout's reward lands in ``buf`` and the sums
# are taken in world order afterwards, the same arithmetic as worlds_value_nb: the same choices as the kernels
# above, whatever the thread count.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, parallel=True)
def rollouts_par_nb(nt, src, g, acts, n_act, k0, k1, params, work, seed, plan, scr):
    """scr.buf[i * (k1 - k0) + k - k0]: the viewer's reward in world k after action acts[i] (i < n_act), the
    worlds split over ``nt`` threads (thread t draws every nt-th and plays it out after each action, in work and
    scratch row t)."""
    w = k1 - k0
    buf = scr.buf  # (taken out of the record before the parallel loop: numba's parfor writes a field's copy)
    viewer = np.int64(src.actor[g])
    for t in nb.prange(nt):
        # numba types a prange index uint64: as int64, the row is the type the batched kernels pass, so the rollout
        # kernels below compile once for both (a second specialization of this chain cost about 90 s of compile)
        row = np.int64(t)
        for j in range(row, w, nt):
            make_world_nb(src, g, k0 + j, params, work, row, seed, plan, scr)
            for i in range(n_act):
                buf[i * w + j] = action_value_nb(np.int64(acts[i]), viewer, params, work, row, plan, scr)


@nb.njit(cache=True, nogil=True)  # nogil: as batch_search_nb
def search_one_par_nb(nt, src, g, params, work, seed, plan, scr):
    """search_one_nb (or, with ``plan.halving``, halving_one_nb) for game g, its rollouts over ``nt`` threads
    (work and scratch rows 0..nt-1; the decision's mask, ids and values in scratch row 0)."""
    mask, ids, vals, buf = scr.mask[0], scr.ids[0], scr.vals[0], scr.buf
    nl = legal_mask_nb(src, g, params, mask, ids)
    if plan.prior:
        nl = keep_allowed_nb(ids, nl, scr.allow[0])
    if nl == 1:
        return np.int64(ids[0])
    if not plan.halving:
        n_det = max(1, plan.budget // nl)
        rollouts_par_nb(nt, src, g, ids, nl, nl - nl, n_det, params, work, seed, plan, scr)  # see halving_one_nb
        best_a, best_v = np.int64(ids[0]), -1e30
        for i in range(nl):
            v = 0.0
            for k in range(n_det):
                v += buf[i * n_det + k]
            if v > best_v:
                best_a, best_v = np.int64(ids[i]), v
        return best_a
    per_round = halving_start_nb(nl, plan.budget, vals)
    alive, done = nl, nl - nl  # an int64 zero, as in halving_one_nb
    while alive > 1:
        upto = done + max(1, per_round // alive)
        w = upto - done
        rollouts_par_nb(nt, src, g, ids, alive, done, upto, params, work, seed, plan, scr)
        for i in range(alive):
            v = 0.0
            for k in range(w):
                v += buf[i * w + k]
            vals[i] += v
        done = upto
        alive = better_half_nb(vals, ids, alive)
    return np.int64(ids[0])
