"""Applying a decision: plays and their powers, blind flips, pickups, fatality's plays, the ply cap."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.palace.cards import (
    advance_nb,
    burn_nb,
    can_beat_nb,
    down_count_nb,
    draw_one_nb,
    draw_to_three_nb,
    go_out_nb,
    hand_count_nb,
    has_cards_nb,
    is_answer_rank_nb,
    n_in_nb,
    pickup_nb,
    pile_state_nb,
    push_as_nb,
    push_nb,
    remove_from_zone_nb,
    run_len_nb,
    up_count_nb,
    zone_nb,
)
from shedders.engine.palace.deal import start_play_nb
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
    CAP_MOST_CARDS,
    FAM_FAT,
    FAM_OG,
    MAXC,
    ONE,
    P_BURN_10,
    P_CAP_RULE,
    P_FAMILY,
    P_FOUR_BURN,
    P_MAX_SKIP,
    P_NOMINATE_A,
    P_NPLAYERS,
    P_PLY_CAP,
    P_REVERSE_ON_DOUBLES,
    P_REVERSE_Q,
    P_SET_SIZE,
    P_SKIP_8,
    P_SLAP,
    PH_ANSWER,
    PH_COUNTER,
    PH_EAT,
    PH_NAME,
    PH_NOMINATE,
    PH_OVER,
    PH_PLAY,
    PH_SETUP,
    PH_SNEAK,
    R3,
    R8,
    R10,
    RA,
    RJOKER,
    RQ,
    THREES_M,
    THREES_STRIDE,
    UP_K,
    UP_STRIDE,
    ZONE_HAND,
    R,
)
from shedders.engine.palace.windows import (
    continue_joker_window_nb,
    continue_sneak_window_nb,
    open_joker_window_nb,
    open_sneak_window_nb,
    sneak_nb,
)
from shedders.engine.rng import rand_below_nb


# --------------------------------------------------------------------------------------------------------------
# Applying a play.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def slap_nb(s, g, p, params):
    """house "Slap the pile" (R-HOUSE-SLAP): after a burn, a uniformly random other player still in draws a
    card."""
    n = params[P_NPLAYERS]
    others = n_in_nb(s, g, params) - (1 if s.finished[g, p] == 0 else 0)
    if others > 0:
        pick = rand_below_nb(s, g, others)
        for q in range(n):
            if q != p and s.finished[g, q] == 0:
                if pick == 0:
                    draw_one_nb(s, g, q)
                    break
                pick -= 1


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def resolve_play_nb(s, g, p, r, k, params):
    """Everything that follows k cards of rank r landing on the pile from player p, in the order of R-PLAY-ORDER:
    the play's own effects, then a slap, then drawing back to 3, then any window (nomination, Joker, sneaks).
    ``r`` is the rank the cards stand for (a named Joker's rank)."""
    if params[P_FAMILY] == FAM_OG:
        resolve_og_nb(s, g, p, r, k, params)
        return
    s.last_rank[g] = r
    # seed 003 "Burn" and "Four of a kind burns": the burn overrides the cards' own powers.
    burned = False
    if (r == R10 and params[P_BURN_10] != 0
            or params[P_FOUR_BURN] != 0 and r != RJOKER and run_len_nb(s, g) >= params[P_SET_SIZE]):
        burned = True
    skips = 0
    if burned:
        burn_nb(s, g)
        if params[P_SLAP] != 0:
            slap_nb(s, g, p, params)
    else:
        if r == RQ and params[P_REVERSE_Q] != 0 and k % 2 == 1:
            s.direction[g] = -s.direction[g]  # seed 003 "Reverse": each Queen flips the direction; two cancel out.
        if k == 2 and params[P_REVERSE_ON_DOUBLES] != 0:
            s.direction[g] = -s.direction[g]  # house "Reverse on doubles"
        if r == R8 and params[P_SKIP_8] != 0:
            skips = min(k, params[P_MAX_SKIP])  # seed 003 "Skip": play two, skip two; at most 3
    draw_to_three_nb(s, g, p)
    if not has_cards_nb(s, g, p) and go_out_nb(s, g, p, params):
        return
    still_in = s.finished[g, p] == 0
    s.target[g] = -1
    if burned:
        # "The burner goes again"; with no cards left the burner is out and the next player starts afresh.
        nxt = p if still_in else advance_nb(s, g, p, ONE, params)
        s.phase[g] = PH_PLAY
        s.turn[g] = nxt
        s.actor[g] = nxt
        return
    if r == RJOKER:
        s.turn[g] = p
        open_joker_window_nb(s, g, advance_nb(s, g, p, ONE, params), params)
        return
    if r == RA and params[P_NOMINATE_A] != 0 and still_in:
        s.phase[g] = PH_NOMINATE
        s.turn[g] = p
        s.actor[g] = p
        return
    nxt = advance_nb(s, g, p, 1 + skips, params)
    s.phase[g] = PH_PLAY
    s.turn[g] = nxt
    s.actor[g] = nxt


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def resolve_og_nb(s, g, p, r, k, params):
    """seed 000: what follows k cards of rank r landing on the pile from player p (a turn, the opening, or a
    sneaker's out-of-turn opening), then the sneak window for rank r.

    "3 [...] forces the next player to pick up the pile and start it fresh", "The 3 is discarded immediately";
    "10 [...] clears the whole pile [...] and allows you to start the pile fresh"; "If a player plays the final
    card that completes a set of 4 cards of the same rank [...] that card behaves exactly like a 10".
    """
    burned = False
    eat = False
    if r == R10 or run_len_nb(s, g) >= params[P_SET_SIZE]:
        burned = True
        burn_nb(s, g)
    elif r == R3:
        s.pile_len[g] -= k
        s.out[g, R3] += k
        eat = True
    s.last_rank[g] = r
    draw_to_three_nb(s, g, p)
    if not has_cards_nb(s, g, p):
        go_out_nb(s, g, p, params)
        return
    if burned:
        s.resume[g] = p  # the burner starts the fresh pile; a sneaker who burns stays out of turn
        s.resume_phase[g] = PH_PLAY
    else:
        if s.oot[g] != 0:
            nxt = np.int64(s.turn[g])  # R-OG-SNEAK-BURN: play then continues with the player whose turn it was
            s.oot[g] = 0
        else:
            nxt = advance_nb(s, g, p, ONE, params)
            s.turn[g] = nxt
        s.resume[g] = nxt
        s.resume_phase[g] = PH_EAT if eat else PH_PLAY
    open_sneak_window_nb(s, g, r, p, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def end_turn_after_pickup_nb(s, g, p, params):
    if params[P_FAMILY] == FAM_OG:
        # R-OG-FORCED-PICKUP: pick up the pile and immediately open a fresh pile from the hand, in the same turn.
        s.phase[g] = PH_PLAY
        s.actor[g] = p
        s.target[g] = -1
        return
    nxt = advance_nb(s, g, p, ONE, params)
    s.phase[g] = PH_PLAY
    s.turn[g] = nxt
    s.actor[g] = nxt
    s.target[g] = -1


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def flip_nb(s, g, p, params):
    """seed 003 "Mystery cards are blind": if it beats the pile it plays; else pick up the pile with it."""
    slot = 0
    while s.face_down[g, p, slot] < 0:
        slot += 1
    r = np.int64(s.face_down[g, p, slot])
    s.face_down[g, p, slot] = -1
    if r == RJOKER and params[P_FAMILY] == FAM_FAT:
        push_nb(s, g, r, ONE, p)  # stands for itself until named
        s.phase[g] = PH_NAME
        return
    if s.phase[g] == PH_ANSWER:
        ok = is_answer_rank_nb(r)
    else:
        rule, top = pile_state_nb(s, g, params)
        ok = can_beat_nb(r, rule, top, params)
    push_nb(s, g, r, ONE, p)
    if ok:
        resolve_play_nb(s, g, p, r, ONE, params)
    else:
        pickup_nb(s, g, p)
        end_turn_after_pickup_nb(s, g, p, params)


# Long on purpose (78 lines): the dispatch of a decision by phase, each branch a call to the kernel of its rule
# area; inlined whole into the entry points on the per-step hot path.
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def apply_nb(s, g, action, params):
    """Apply one legal action of game g's actor and resolve everything automatic up to the next decision."""
    ph = s.phase[g]
    p = np.int64(s.actor[g])
    n = params[P_NPLAYERS]
    for q in range(n):
        s.rewards[g, q] = 0.0
    s.plies[g] += 1
    if ph == PH_SETUP and params[P_FAMILY] == FAM_OG:
        r = action - A_COVER
        s.hand[g, p, r] -= 1
        s.face_up[g, p, r] += 1
        if up_count_nb(s, g, p) >= 3:  # the player has its three covers: the next seat picks
            if p + 1 < n:
                s.actor[g] = p + 1
                s.turn[g] = p + 1
            else:
                start_play_nb(s, g, params)
    elif ph == PH_SNEAK:
        if action == A_PASS:
            continue_sneak_window_nb(s, g, params)
        else:
            sneak_nb(s, g, p, (action - A_SNEAK) % MAXC + 1, params)
    elif ph == PH_NAME:
        named = (action - A_PLAY_AS) // AS_K
        s.pile_as[g, s.pile_len[g] - 1] = named
        resolve_play_nb(s, g, p, named, ONE, params)
    elif ph == PH_SETUP:
        if action == A_READY:
            if p + 1 < n:
                s.actor[g] = p + 1
                s.turn[g] = p + 1
            else:
                start_play_nb(s, g, params)
        else:
            h = (action - A_SWAP) // R
            u = (action - A_SWAP) % R
            s.hand[g, p, h] -= 1
            s.face_up[g, p, h] += 1
            s.face_up[g, p, u] -= 1
            s.hand[g, p, u] += 1
    elif ph == PH_NOMINATE:
        k = action - A_NOMINATE + 1
        t = advance_nb(s, g, p, k, params)
        s.phase[g] = PH_ANSWER
        s.target[g] = t
        s.turn[g] = t
        s.actor[g] = t
    elif ph == PH_COUNTER:
        if action == A_PASS:
            continue_joker_window_nb(s, g, params)
        else:
            # A counter sends the punishment to the player of the Joker below it; the asking starts again.
            below = np.int64(s.pile_by[g, s.pile_len[g] - 1])
            z = zone_nb(s, g, p)
            remove_from_zone_nb(s, g, p, z, ONE * RJOKER, ONE)
            push_nb(s, g, ONE * RJOKER, ONE, p)
            draw_to_three_nb(s, g, p)
            if not has_cards_nb(s, g, p) and go_out_nb(s, g, p, params):
                truncate_check_nb(s, g, params)
                return
            open_joker_window_nb(s, g, below, params)
    elif action == A_PICKUP:
        pickup_nb(s, g, p)
        end_turn_after_pickup_nb(s, g, p, params)
    elif action == A_FLIP:
        flip_nb(s, g, p, params)
    elif action >= A_PLAY_UP:
        fatality_play_nb(s, g, p, action, params)
    else:
        r = (action - A_PLAY) // MAXC
        k = (action - A_PLAY) % MAXC + 1
        z = zone_nb(s, g, p)
        remove_from_zone_nb(s, g, p, z, r, k)
        push_nb(s, g, r, k, p)
        resolve_play_nb(s, g, p, r, k, params)
    truncate_check_nb(s, g, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def fatality_play_nb(s, g, p, action, params):
    """fatality's own actions: hand plus face-up cards, named Jokers, 3s as the top's rank, pickup with face-up."""
    if action >= A_PICKUP_WITH:
        r = action - A_PICKUP_WITH
        m = s.face_up[g, p, r]
        s.face_up[g, p, r] = 0
        s.hand[g, p, r] += m
        s.known[g, p, r] += m  # they were face up: everyone saw them
        pickup_nb(s, g, p)
        end_turn_after_pickup_nb(s, g, p, params)
        return
    if action >= A_THREES_AS:
        x = action - A_THREES_AS
        named = x // THREES_STRIDE
        k = (x % THREES_STRIDE) // THREES_M + 1
        m = x % THREES_M
        remove_from_zone_nb(s, g, p, ZONE_HAND, ONE * R3, k)
        s.face_up[g, p, named] -= m
        push_as_nb(s, g, ONE * R3, named, k, p)
        push_nb(s, g, named, m, p)
        resolve_play_nb(s, g, p, named, k + m, params)
        return
    if action >= A_PLAY_AS:
        named = (action - A_PLAY_AS) // AS_K
        k = (action - A_PLAY_AS) % AS_K + 1
        remove_from_zone_nb(s, g, p, zone_nb(s, g, p), ONE * RJOKER, k)
        push_as_nb(s, g, ONE * RJOKER, named, k, p)
        resolve_play_nb(s, g, p, named, k, params)
        return
    x = action - A_PLAY_UP
    r = x // UP_STRIDE
    k = (x % UP_STRIDE) // UP_K + 1
    m = x % UP_K + 1
    remove_from_zone_nb(s, g, p, ZONE_HAND, r, k)
    s.face_up[g, p, r] -= m
    push_nb(s, g, r, k + m, p)
    resolve_play_nb(s, g, p, r, k + m, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def truncate_check_nb(s, g, params):
    """R-CAP-TRUNCATE: at the ply cap the game ends truncated; players still in get 0, those out keep what they
    got.
    With ``cap_rule="most_cards"`` it is decided instead: the players still in go out by the cards they hold in
    every zone, fewest first, ties by seat order from the player to act, each rewarded as going out is; the last
    is the Shithead (og: the first placed wins). Either way the game is flagged truncated."""
    if s.phase[g] != PH_OVER and s.plies[g] >= params[P_PLY_CAP]:
        if params[P_CAP_RULE] == CAP_MOST_CARDS:
            place_by_cards_nb(s, g, params)
        s.phase[g] = PH_OVER
        s.actor[g] = -1
        s.terminated[g] = False
        s.truncated[g] = True


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def place_by_cards_nb(s, g, params):
    """Players still in go out one by one, the fewest cards (hand, face up and face down) first, ties by seat
    order clockwise from the player to act, until ``go_out_nb`` ends the game."""
    n = params[P_NPLAYERS]
    start = np.int64(s.actor[g]) if s.actor[g] >= 0 else np.int64(s.turn[g])
    for _ in range(n):
        best = -1
        fewest = 1 << 30
        for i in range(n):
            q = (start + i) % n
            if s.finished[g, q] == 0:
                c = hand_count_nb(s, g, q) + up_count_nb(s, g, q) + down_count_nb(s, g, q)
                if c < fewest:
                    best = q
                    fewest = c
        if best < 0 or go_out_nb(s, g, best, params):
            return
