"""Dealing a game, og's cover pick and opening play, the first player, and house's loser's tax."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.palace.cards import is_powered_nb, is_wild_nb, n_in_nb
from shedders.engine.palace.layout import (
    FAM_FAT,
    FAM_OG,
    N_DOWN,
    N_PLAIN,
    P_FAMILY,
    P_NDECKS,
    P_NJOKERS,
    P_NPLAYERS,
    P_SWAP_PHASE,
    PH_OPEN,
    PH_PLAY,
    PH_SETUP,
    R2,
    R3,
    R4,
    R5,
    R10,
    RA,
    RJOKER,
    R,
)
from shedders.engine.rng import rand_below_nb, splitmix64_nb


# --------------------------------------------------------------------------------------------------------------
# Dealing.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def clear_game_nb(s, g, params):
    n = params[P_NPLAYERS]
    for p in range(n):
        for r in range(R):
            s.hand[g, p, r] = 0
            s.face_up[g, p, r] = 0
            s.known[g, p, r] = 0
        for i in range(N_DOWN):
            s.face_down[g, p, i] = -1
        s.finished[g, p] = 0
        s.placing[g, p] = -1
        s.rewards[g, p] = 0.0
    for r in range(R):
        s.out[g, r] = 0
    s.pile_len[g] = 0
    s.deck_len[g] = 0
    s.turn[g] = 0
    s.actor[g] = 0
    s.phase[g] = PH_SETUP
    s.direction[g] = 1
    s.target[g] = -1
    s.ask[g] = -1
    s.ask_left[g] = 0
    s.win_rank[g] = -1
    s.win_by[g] = -1
    s.resume[g] = -1
    s.resume_phase[g] = PH_PLAY
    s.oot[g] = 0
    s.last_rank[g] = -1
    s.n_out[g] = 0
    s.plies[g] = 0
    s.terminated[g] = False
    s.truncated[g] = False


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def deal_nb(s, g, seed, params):
    """seed 003 "Setup": shuffle, deal 3 mystery, 3 table-top, 3 hole cards each; the rest is the draw pile."""
    clear_game_nb(s, g, params)
    s.rng[g] = splitmix64_nb(np.uint64(seed))
    n = params[P_NPLAYERS]
    c = 0
    for _d in range(params[P_NDECKS]):
        for r in range(N_PLAIN):
            for _k in range(4):
                s.deck[g, c] = r
                c += 1
    for _j in range(params[P_NJOKERS]):
        s.deck[g, c] = RJOKER
        c += 1
    for i in range(c - 1, 0, -1):  # Fisher-Yates
        j = rand_below_nb(s, g, i + 1)
        t = s.deck[g, i]
        s.deck[g, i] = s.deck[g, j]
        s.deck[g, j] = t
    for i in range(N_DOWN):
        for p in range(n):
            c -= 1
            s.face_down[g, p, i] = s.deck[g, c]
    if params[P_FAMILY] == FAM_OG:
        # seed 000 "Dealing": three blinds, then six cards each, of which each player picks three covers.
        for _i in range(6):
            for p in range(n):
                c -= 1
                s.hand[g, p, s.deck[g, c]] += 1
        s.deck_len[g] = c
        s.phase[g] = PH_SETUP
        s.actor[g] = 0
        s.turn[g] = 0
        return
    for _i in range(N_DOWN):
        for p in range(n):
            c -= 1
            s.face_up[g, p, s.deck[g, c]] += 1
    for _i in range(N_DOWN):
        for p in range(n):
            c -= 1
            s.hand[g, p, s.deck[g, c]] += 1
    s.deck_len[g] = c
    if params[P_SWAP_PHASE] != 0:
        s.phase[g] = PH_SETUP
        s.actor[g] = 0
        s.turn[g] = 0
    else:
        start_play_nb(s, g, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def open_rank_nb(s, g, params):
    """og's start rank (R-OG-START-RANK): the first of 4, 5, 6, ..., K, A, 2, 3 that any hand holds."""
    n = params[P_NPLAYERS]
    for j in range(N_PLAIN):
        r = (j + R4) % N_PLAIN
        for p in range(n):
            if s.hand[g, p, r] > 0:
                return r
    return R4


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def start_play_nb(s, g, params):
    """Who starts, once setup is over.

    seed 003 "A 3 starts the game": a 3 in hand starts; else the lowest plain card; ties first clockwise.
    seed 000 (R-OG-START-RANK): the start rank is the first of 4, 5, ..., A, 2, 3 that any hand holds; the first
    such
    player clockwise opens with it. seed 002: "starting with a randomly determined player" (the game's stream).
    """
    n = params[P_NPLAYERS]
    fam = params[P_FAMILY]
    if fam == FAM_OG:
        r = open_rank_nb(s, g, params)
        for p in range(n):
            if s.hand[g, p, r] > 0:
                s.phase[g] = PH_OPEN
                s.turn[g] = p
                s.actor[g] = p
                return
    if fam == FAM_FAT:
        nin = n_in_nb(s, g, params)
        pick = rand_below_nb(s, g, nin)
        for p in range(n):
            if s.finished[g, p] == 0:
                if pick == 0:
                    s.phase[g] = PH_PLAY
                    s.turn[g] = p
                    s.actor[g] = p
                    return
                pick -= 1
    starter = 0
    found = False
    for i in range(R):
        # seed 003: "Anyone holding a 3 in their hole cards goes first. Nobody has one? The player with the lowest
        # plain card starts." The 3 is looked for first, whatever else is plain (a 2 is plain without reset_2).
        r = R3 if i == 0 else (i - 1 if i <= R3 else i)
        if r != R3 and is_powered_nb(r, params):
            continue
        for p in range(n):
            if s.finished[g, p] == 0 and s.hand[g, p, r] > 0:
                starter = p
                found = True
                break
        if found:
            break
    if not found:
        starter = 0
        while starter < n - 1 and s.finished[g, starter] != 0:
            starter += 1
    s.phase[g] = PH_PLAY
    s.turn[g] = starter
    s.actor[g] = starter


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def losers_tax_nb(s, g, loser, winner, params):
    """house "Loser's tax": the last loser's best hand card is swapped with the last winner's worst hand card.

    R-LOSERS-TAX: best is 10, 2, 5, Joker (the wilds of the active ruleset), then A down to 3.
    """
    best = -1
    for r in (R10, R2, R5, RJOKER):
        if is_wild_nb(r, params) and s.hand[g, loser, r] > 0:
            best = r
            break
    if best < 0:
        for r in range(RA, -1, -1):
            if s.hand[g, loser, r] > 0 and not is_wild_nb(r, params):
                best = r
                break
    worst = -1
    for r in range(R):
        if s.hand[g, winner, r] > 0 and not is_wild_nb(r, params):
            worst = r
            break
    if worst < 0:
        for r in (RJOKER, R5, R2, R10):
            if is_wild_nb(r, params) and s.hand[g, winner, r] > 0:
                worst = r
                break
    if best < 0 or worst < 0:
        return
    s.hand[g, loser, best] -= 1
    s.hand[g, winner, best] += 1
    s.hand[g, winner, worst] -= 1
    s.hand[g, loser, worst] += 1
