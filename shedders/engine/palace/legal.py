"""The action mask: every legal decision of the player to act, as a 0/1 mask and a list of ids."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.bits import lowest_bit_nb
from shedders.engine.palace.cards import (
    ANSWER_BITS,
    beat_bits_nb,
    can_beat_nb,
    hand_count_nb,
    n_in_nb,
    pile_state_nb,
    zone_count_nb,
    zone_held_nb,
    zone_nb,
)
from shedders.engine.palace.deal import open_rank_nb
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
    A_THREES_AS,
    AS_K,
    FAM_FAT,
    FAM_OG,
    MAXC,
    N_ACTIONS,
    N_PLAIN,
    ONE,
    P_FAMILY,
    P_PICKUP_WITH_UP,
    P_THREES_AS_TOP,
    P_UP_WITH_HAND,
    P_VOLUNTARY_PICKUP,
    PH_ANSWER,
    PH_COUNTER,
    PH_EAT,
    PH_NAME,
    PH_NOMINATE,
    PH_OPEN,
    PH_OVER,
    PH_PLAY,
    PH_SETUP,
    PH_SNEAK,
    R3,
    RJOKER,
    THREES_K,
    THREES_M,
    THREES_STRIDE,
    UP_K,
    UP_STRIDE,
    ZONE_DOWN,
    ZONE_HAND,
    ZONE_UP,
    R,
)


# --------------------------------------------------------------------------------------------------------------
# Legal actions.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def can_counter_nb(s, g, p):
    """R-SA-JOKER: a counter comes from the zone the player may play; face-down Jokers cannot counter."""
    z = zone_nb(s, g, p)
    return (z == ZONE_HAND or z == ZONE_UP) and zone_count_nb(s, g, p, z, ONE * RJOKER) > 0


@nb.njit(cache=True, _nrt=False, inline="always", error_model="numpy")
def add_nb(mask, ids, n, a):
    """Mark action a legal: its mask bit, and its id as the n-th legal one; returns n + 1."""
    mask[a] = 1
    ids[n] = a
    return n + 1


# Long on purpose (94 lines): one pass over the phases of the family, each branch a phase's short list of legal
# actions; it runs at every step and is inlined whole into the entry points, so it is not split into per-phase
# kernels that would pass the 32-array state between them.
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def legal_mask_nb(s, g, params, mask, ids):
    """Write game g's legal actions for its actor into ``mask`` (int8, N_ACTIONS) and, in the first slots of
    ``ids`` (int16, N_ACTIONS), their ids; returns how many are legal."""
    for a in range(N_ACTIONS):
        mask[a] = 0
    ph = s.phase[g]
    p = np.int64(s.actor[g])
    nlegal = 0
    fam = params[P_FAMILY]
    if ph == PH_OVER:
        return 0
    if ph == PH_SETUP and fam == FAM_OG:
        # seed 000 "Each player must choose three covers": one card of the six at a time.
        for r in range(R):
            if s.hand[g, p, r] > 0:
                nlegal = add_nb(mask, ids, nlegal, A_COVER + r)
        return nlegal
    if ph == PH_SNEAK:
        # seed 000 "Sneaking": sneak any number of the rank just played, or pass.
        r = np.int64(s.win_rank[g])
        cnt = min(np.int64(s.hand[g, p, r]), MAXC)
        for c in range(cnt):
            nlegal = add_nb(mask, ids, nlegal, A_SNEAK + r * MAXC + c)
        return add_nb(mask, ids, nlegal, A_PASS)
    if ph == PH_NAME:
        # R-FAT-BLIND-JOKER: a Joker flipped blind never fails; its player names its rank.
        for r in range(N_PLAIN):
            nlegal = add_nb(mask, ids, nlegal, A_PLAY_AS + r * AS_K)
        return nlegal
    if ph == PH_OPEN:
        # R-OG-START-RANK: the starter must open with one or more cards of the start rank.
        r = open_rank_nb(s, g, params)
        cnt = min(np.int64(s.hand[g, p, r]), MAXC)
        for c in range(cnt):
            nlegal = add_nb(mask, ids, nlegal, A_PLAY + r * MAXC + c)
        return nlegal
    if ph == PH_SETUP:
        # seed 003 "Swap if you want": hole cards <-> table-top cards, then ready.
        for h in range(R):
            if s.hand[g, p, h] == 0:
                continue
            for u in range(R):
                if u != h and s.face_up[g, p, u] > 0:
                    nlegal = add_nb(mask, ids, nlegal, A_SWAP + h * R + u)
        return add_nb(mask, ids, nlegal, A_READY)
    if ph == PH_NOMINATE:
        # seed 003 "Nominate": point at any other player still in the game.
        for k in range(1, n_in_nb(s, g, params)):
            nlegal = add_nb(mask, ids, nlegal, A_NOMINATE + k - 1)
        return nlegal
    if ph == PH_EAT:
        return add_nb(mask, ids, 0, A_PICKUP)
    if ph == PH_COUNTER:
        return add_nb(mask, ids, add_nb(mask, ids, 0, A_PLAY + RJOKER * MAXC), A_PASS)
    # PH_PLAY or PH_ANSWER
    z, held = zone_held_nb(s, g, p)
    rule, top = pile_state_nb(s, g, params)
    nplays = 0
    if z == ZONE_DOWN:
        nplays = add_nb(mask, ids, 0, A_FLIP)
    elif z == ZONE_HAND or z == ZONE_UP:
        # the ranks held that may go (is_answer_rank_nb's or can_beat_nb's, as bits), lowest first
        may = np.int64(ANSWER_BITS) if ph == PH_ANSWER else beat_bits_nb(rule, top, params)
        go = held & may
        while go != 0:
            r = lowest_bit_nb(go)
            go &= go - 1
            cnt = zone_count_nb(s, g, p, z, r)
            if r == RJOKER:
                if fam == FAM_FAT:
                    # R-FAT-JOKER: one or both Jokers, on their own, naming any rank.
                    for named in range(N_PLAIN):
                        for c in range(min(cnt, 2)):
                            nplays = add_nb(mask, ids, nplays, A_PLAY_AS + named * AS_K + c)
                    continue
                cnt = 1  # seed 003 "Jokers go one at a time"
            cnt = min(cnt, MAXC)
            for c in range(cnt):
                nplays = add_nb(mask, ids, nplays, A_PLAY + r * MAXC + c)
        if fam == FAM_FAT and ph == PH_PLAY and z == ZONE_HAND and s.deck_len[g] == 0:
            nplays = fatality_extra_plays_nb(s, g, p, params, rule, top, mask, ids, nplays)
    nlegal = nplays
    if s.pile_len[g] > 0 and (params[P_VOLUNTARY_PICKUP] != 0 or nplays == 0):
        nlegal = add_nb(mask, ids, nlegal, A_PICKUP)
        if fam == FAM_FAT and nplays == 0 and z == ZONE_UP and params[P_PICKUP_WITH_UP] != 0:
            # seed 002* "you can also pick cards of the same rank from your face-up cards"
            for r in range(R):
                if s.face_up[g, p, r] > 0:
                    nlegal = add_nb(mask, ids, nlegal, A_PICKUP_WITH + r)
    return nlegal


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def fatality_extra_plays_nb(s, g, p, params, rule, top, mask, ids, nplays):
    """fatality's starred plays, for a player on hand cards with the draw pile empty.

    seed 002 "Face-up cards can be played with hand cards only when all hand cards of the same rank are played
    together": the last hand cards, all of rank r, plus face-up r's (``play kxR +mup``). seed 002* "a player only
    has 3s in hand [...] they inherit the rank of the last card played": ``play kx3 as R`` (+ face-up R's).
    """
    hc = hand_count_nb(s, g, p)
    if params[P_UP_WITH_HAND] != 0:
        for r in range(N_PLAIN):
            if (s.hand[g, p, r] == hc and hc <= UP_K and s.face_up[g, p, r] > 0
                    and can_beat_nb(r, rule, top, params)):
                for m in range(min(np.int64(s.face_up[g, p, r]), UP_K)):
                    nplays = add_nb(mask, ids, nplays, A_PLAY_UP + r * UP_STRIDE + (hc - 1) * UP_K + m)
    if (params[P_THREES_AS_TOP] != 0 and s.hand[g, p, R3] == hc and hc <= THREES_K and 0 <= top < N_PLAIN
            and top != R3):
        for m in range(min(np.int64(s.face_up[g, p, top]), 3) + 1):
            nplays = add_nb(mask, ids, nplays, A_THREES_AS + top * THREES_STRIDE + (hc - 1) * THREES_M + m)
    return nplays
