"""The palace ``greedy`` and ``expert`` strategies, each written once, as numba kernels."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.palace.cards import is_wild_nb
from shedders.engine.palace.layout import (
    A_COVER,
    A_FLIP,
    A_NOMINATE,
    A_PASS,
    A_PICKUP,
    A_PICKUP_WITH,
    A_PLAY,
    A_PLAY_AS,
    A_PLAY_UP,
    A_READY,
    A_SNEAK,
    A_SWAP,
    AS_K,
    FAM_003,
    FAM_FAT,
    FAM_OG,
    MAXC,
    P_FAMILY,
    P_FOUR_BURN,
    P_NPLAYERS,
    P_SET_SIZE,
    PH_COUNTER,
    PH_EAT,
    PH_NAME,
    PH_NOMINATE,
    PH_SETUP,
    PH_SNEAK,
    R,
    R10,
    R2,
    R3,
    R5,
    R8,
    RJOKER,
)
from shedders.engine.palace.observe import observe_nb

@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_key_nb(r, params):
    """Greedy's order of ranks: plain ranks low to high, then wilds from the cheapest (5, 3, 2, 10, Joker)."""
    if not is_wild_nb(r, params):
        return r
    if r == R5:
        return 100
    if r == R3:
        return 101
    if r == R2:
        return 102
    if r == R10:
        return 103
    return 104


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_action_nb(s, g, params, mask, ids, nlegal):
    """The ``greedy`` agent's choice, in numba, for rollouts: lowest plain rank with every copy, wilds last,
    covers and sneaks as agents/greedy.py, counter every Joker, pick up only when nothing else goes."""
    ph = s.phase[g]
    if ph == PH_SETUP:
        if mask[A_READY] != 0:
            return A_READY
        best, bk = -1, -1
        for r in range(R):
            if mask[A_COVER + r] != 0 and greedy_key_nb(r, params) > bk:
                best, bk = r, greedy_key_nb(r, params)
        return A_COVER + best
    if ph == PH_SNEAK:
        r = np.int64(s.win_rank[g])
        if is_wild_nb(r, params):
            return A_PASS
        c = MAXC - 1
        while mask[A_SNEAK + r * MAXC + c] == 0:
            c -= 1
        return A_SNEAK + r * MAXC + c
    if ph == PH_NAME:
        return A_PLAY_AS + R10 * AS_K
    if ph == PH_COUNTER:
        return A_PLAY + RJOKER * MAXC if mask[A_PLAY + RJOKER * MAXC] != 0 else A_PASS
    if ph == PH_NOMINATE or ph == PH_EAT:
        return np.int64(ids[0])
    best, bk = -1, 1000
    for r in range(R):
        if mask[A_PLAY + r * MAXC] != 0 and greedy_key_nb(r, params) < bk:
            best, bk = r, greedy_key_nb(r, params)
    if best >= 0 and (bk < 100 or mask[A_PLAY_AS + R10 * AS_K] == 0):
        c = MAXC - 1
        while mask[A_PLAY + best * MAXC + c] == 0:
            c -= 1
        return A_PLAY + best * MAXC + c
    if mask[A_PLAY_AS + R10 * AS_K] != 0:
        return A_PLAY_AS + R10 * AS_K
    if mask[A_FLIP] != 0:
        return A_FLIP
    return np.int64(ids[0]) if mask[A_PICKUP] == 0 else A_PICKUP


# ``off[OFF_*]``: where the fields ``expert_action_nb`` reads start in the observation, in the order of
# EXPERT_FIELDS (agents/search.py builds ``off`` from the observation layout).
OFF_UP, OFF_DOWN, OFF_HSIZE, OFF_FIN, OFF_TOP, OFF_RUN, OFF_PILE, OFF_DIR, OFF_PILEC = range(9)
EXPERT_FIELDS = ("face_up", "face_down", "hand_size", "finished", "top", "run", "pile_size", "direction", "pile")
EXPERT_COUNTER_MIN_PLAIN = 2  # agents/expert.py COUNTER_MIN_PLAIN
POLICY_GREEDY, POLICY_EXPERT, POLICY_RANDOM = range(3)  # rollout policies (random: uniform over legal actions)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def cards_left_nb(obs, off, j):
    """Cards relative seat j still holds (hand, face-up, face-down), from an observation."""
    c = np.int64(obs[off[OFF_HSIZE] + j]) + np.int64(obs[off[OFF_DOWN] + j])
    for r in range(R):
        c += obs[off[OFF_UP] + j * R + r]
    return c


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_action_nb(s, g, params, mask, ids, nlegal, obs, off):
    """The ``expert`` agent's choice (agents/expert.py), in numba, for rollouts: the actor's observation is written
    to ``obs`` and the same named rules run on it in the same order, then ``greedy_action_nb``."""
    n = params[P_NPLAYERS]
    fam = params[P_FAMILY]
    observe_nb(s, g, np.int64(s.actor[g]), params, obs)
    # swap_best_to_table (seed 003 and fatality)
    if fam != FAM_OG and mask[A_READY] != 0:
        h, hk, u, uk, any_h = 0, -1e30, 0, 1e30, False
        for a in range(R):
            for b in range(R):
                if mask[A_SWAP + a * R + b] != 0:
                    any_h = True
                    if greedy_key_nb(a, params) > hk:
                        h, hk = a, greedy_key_nb(a, params)
                    if greedy_key_nb(b, params) < uk:
                        u, uk = b, greedy_key_nb(b, params)
        if any_h and hk > uk and mask[A_SWAP + h * R + u] != 0:
            return A_SWAP + h * R + u
        return A_READY
    # counter_a_joker_when_it_pays (seed 003): over a pile of at least EXPERT_COUNTER_MIN_PLAIN non-Jokers
    if fam == FAM_003 and mask[A_PASS] != 0:
        plain = 0
        for r in range(R):
            if r != RJOKER:
                plain += np.int64(obs[off[OFF_PILEC] + r])
        if mask[A_PLAY + RJOKER * MAXC] != 0 and plain >= EXPERT_COUNTER_MIN_PLAIN:
            return A_PLAY + RJOKER * MAXC
        return A_PASS
    # nominate_the_leader (seed 003)
    if fam == FAM_003 and mask[A_NOMINATE] != 0:
        step = 1 if obs[off[OFF_DIR]] >= 0 else -1
        best, best_k, k, j = np.int64(-1), 1, 0, 0
        for _ in range(n - 1):
            j = (j + step) % n
            if obs[off[OFF_FIN] + j] != 0:
                continue
            k += 1
            left = cards_left_nb(obs, off, j)
            if best < 0 or left < best:
                best, best_k = left, k
        return A_NOMINATE + best_k - 1
    # complete_a_burn (every family)
    top = 0
    for r in range(R + 1):
        if obs[off[OFF_TOP] + r] > obs[off[OFF_TOP] + top]:
            top = r
    if top < R and top != R5:
        cnt = 0
        for c in range(MAXC):
            cnt += mask[A_PLAY + top * MAXC + c]
        size = params[P_SET_SIZE] if params[P_FOUR_BURN] != 0 else 10**6
        if cnt > 0 and np.int64(obs[off[OFF_RUN]]) + cnt >= size:
            return A_PLAY + top * MAXC + cnt - 1
    if fam == FAM_OG:  # sabotage_with_a_3
        three = A_PLAY + R3 * MAXC
        if mask[three] != 0:
            nxt = cards_left_nb(obs, off, 1)
            leader = True
            for j in range(1, n):
                if cards_left_nb(obs, off, j) < nxt:
                    leader = False
            pile = np.int64(obs[off[OFF_PILE]])
            if (nxt <= 4 and pile >= 2) or (leader and pile >= 4):
                return three
    elif fam == FAM_FAT:
        # skip_the_leader
        eights = 0
        for c in range(MAXC):
            eights += mask[A_PLAY + R8 * MAXC + c]
        if eights > 0 and obs[off[OFF_FIN] + 1] == 0:
            nxt = cards_left_nb(obs, off, 1)
            leader = nxt <= 5
            for j in range(2, n):
                if obs[off[OFF_FIN] + j] == 0 and cards_left_nb(obs, off, j) < nxt:
                    leader = False
            if leader:
                return A_PLAY + R8 * MAXC + eights - 1
        # shed_face_up_along: the highest legal id from A_PLAY_UP on (the most face-up cards)
        for a in range(A_PICKUP_WITH - 1, A_PLAY_UP - 1, -1):
            if mask[a] != 0:
                return a
    return greedy_action_nb(s, g, params, mask, ids, nlegal)
