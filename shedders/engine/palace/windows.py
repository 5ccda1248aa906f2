"""Decisions out of turn: Joker standoffs (seed 003) and og's sneak windows (seed 000)."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.palace.cards import (
    burn_nb,
    draw_to_three_nb,
    go_out_nb,
    has_cards_nb,
    push_nb,
    remove_from_zone_nb,
    run_len_nb,
    step_seat_nb,
)
from shedders.engine.palace.layout import (
    ONE,
    P_NPLAYERS,
    P_SET_SIZE,
    PH_COUNTER,
    PH_EAT,
    PH_PLAY,
    PH_SNEAK,
    ZONE_HAND,
)
from shedders.engine.palace.legal import can_counter_nb


# --------------------------------------------------------------------------------------------------------------
# Windows: the Joker standoff.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def open_joker_window_nb(s, g, victim, params):
    """seed 003 "Joker": the victim eats unless someone counters; ask the players in turn from the victim.

    R-SA-JOKER: a counter is not offered when the player it would punish (the top Joker's player) has gone out.
    """
    s.target[g] = victim
    s.ask[g] = victim
    s.ask_left[g] = params[P_NPLAYERS]
    continue_joker_window_nb(s, g, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def continue_joker_window_nb(s, g, params):
    n = params[P_NPLAYERS]
    owner = np.int64(s.pile_by[g, s.pile_len[g] - 1])
    owner_in = owner >= 0 and s.finished[g, owner] == 0
    d = np.int64(s.direction[g])
    while owner_in and s.ask_left[g] > 0:
        q = np.int64(s.ask[g])
        s.ask_left[g] -= 1
        s.ask[g] = step_seat_nb(q, d, n)
        if q != owner and s.finished[g, q] == 0 and can_counter_nb(s, g, q):
            s.phase[g] = PH_COUNTER
            s.actor[g] = q
            return
    s.phase[g] = PH_EAT
    s.actor[g] = s.target[g]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def open_sneak_window_nb(s, g, r, by, params):
    """R-OG-SNEAK-WINDOW: after a play of rank r, every other player holding r in hand is asked once, clockwise
    from
    the left of the player who played (the next player included)."""
    s.win_rank[g] = r
    s.win_by[g] = by
    s.ask[g] = step_seat_nb(by, ONE, params[P_NPLAYERS])
    s.ask_left[g] = params[P_NPLAYERS] - 1
    continue_sneak_window_nb(s, g, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def continue_sneak_window_nb(s, g, params):
    n = params[P_NPLAYERS]
    r = np.int64(s.win_rank[g])
    by = np.int64(s.win_by[g])
    # the seat asked and the asks left in locals, written back once: a store to the state inside the loop would
    # be read back at every seat (the state's arrays may alias one another)
    q, left = np.int64(s.ask[g]), np.int64(s.ask_left[g])
    while left > 0:
        asked = q
        q = step_seat_nb(q, ONE, n)
        left -= 1
        if asked != by and s.finished[g, asked] == 0 and s.hand[g, asked, r] > 0:
            s.ask[g] = q
            s.ask_left[g] = left
            s.phase[g] = PH_SNEAK
            s.actor[g] = asked
            return
    s.ask_left[g] = left
    s.win_rank[g] = -1
    s.win_by[g] = -1
    s.ask[g] = -1
    s.phase[g] = s.resume_phase[g]
    s.actor[g] = s.resume[g]


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def sneak_nb(s, g, q, k, params):
    """seed 000 "Sneaking": q sneaks k cards of the window's rank. No turn, no change of turn order; q draws.

    R-OG-SNEAK-EFFECTS: sneaked cards go on top when the played cards stayed there; when those left (a 3, a burn)
    the sneaked
    ones leave play too. A sneak that completes a full set burns and the sneaker opens the fresh pile out of turn.
    """
    r = np.int64(s.win_rank[g])
    remove_from_zone_nb(s, g, q, ZONE_HAND, r, k)
    n = np.int64(s.pile_len[g])
    if n > 0 and s.pile_as[g, n - 1] == r:
        push_nb(s, g, r, k, q)
        if run_len_nb(s, g) >= params[P_SET_SIZE]:
            burn_nb(s, g)
            s.resume[g] = q
            s.resume_phase[g] = PH_PLAY
            s.oot[g] = 1
    else:
        s.out[g, r] += k
    s.last_rank[g] = r
    draw_to_three_nb(s, g, q)
    if not has_cards_nb(s, g, q):
        go_out_nb(s, g, q, params)
        return
    open_sneak_window_nb(s, g, r, q, params)
