"""The omg deal and applying a decision, resolving everything automatic until the next one."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.cards import (
    attr_nb,
    draw_nb,
    hermes_copy_nb,
    push_nb,
    remove_nb,
    shuffle_deck_nb,
    take_nb,
)
from shedders.engine.omg.layout import (
    CCOLOR,
    CGOD,
    CNUM,
    CPOWER,
    F_ATTR,
    F_COLOR,
    F_NONE,
    F_NUMBER,
    HERA,
    HERMES,
    HESTIA,
    L_ATTRIBUTE,
    L_COLOR,
    L_DISCARD,
    L_GIVE,
    L_GOD,
    L_NUMBER,
    L_PLAY,
    L_STOP,
    L_TARGET,
    P_HAND,
    P_NPLAYERS,
    P_PLY_CAP,
    PH_CHOOSE,
    PH_DISCARD,
    PH_GIVE,
    PH_OVER,
    PH_PLAY,
    PH_TARGET,
    ZEUS,
)
from shedders.engine.omg.legal import legal_mask_nb
from shedders.engine.omg.powers import after_discard_nb, continue_give_nb, start_power_nb
from shedders.engine.omg.turns import end_turn_nb
from shedders.engine.rng import rand_below_nb, splitmix64_nb


# ----------------------------------------------------------------------------------------------------------------
# Deal
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def deal_nb(s, g, seed, params, counts):
    n = params[P_NPLAYERS]
    s.rng[g] = splitmix64_nb(np.uint64(seed))
    k = 0
    for t in range(counts.shape[0]):
        for _ in range(counts[t]):
            s.deck[g, k] = t
            k += 1
    shuffle_deck_nb(s, g, k)
    s.deck_len[g] = k
    s.pile_len[g] = 0
    s.hand[g] = 0
    s.hsize[g] = 0
    s.skip[g] = 0
    for _ in range(params[P_HAND]):
        for q in range(n):
            draw_nb(s, g, q, 1)
    push_nb(s, g, take_nb(s, g))  # the opening card; its power does not fire
    s.turn[g] = rand_below_nb(s, g, n)  # R-OMG-SETUP: the first player is drawn at random
    s.phase[g] = PH_PLAY
    s.power[g] = -1
    s.fkind[g] = F_NONE
    s.fval[g] = 0
    s.left[g] = 0
    s.upto[g] = 0
    s.revealed[g] = -1
    s.winner[g] = -1
    s.plies[g] = 0
    s.terminated[g] = False
    s.truncated[g] = False
    s.rewards[g] = 0.0


# Long on purpose (71 lines): the dispatch of a decision by phase (play, target, choose, discard, give), each
# branch short and cited; it runs at every step.
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def apply_nb(s, g, a, params, cards, lay):
    n = params[P_NPLAYERS]
    p = np.int64(s.turn[g])
    ph = s.phase[g]
    if ph == PH_PLAY:
        t = a - lay[L_PLAY]
        top = np.int64(s.pile[g, s.pile_len[g] - 1])
        remove_nb(s, g, p, t)
        god = np.int64(cards[t, CGOD])
        power = god if cards[t, CPOWER] != 0 else np.int64(-1)
        if power == HERMES:
            power = hermes_copy_nb(s, g, cards)  # the pile below the Hermes: it is not on the pile yet
        # the penalty is counted against the card that was on top before the play
        pen = 0
        if cards[t, CNUM] != cards[top, CNUM] and cards[t, CGOD] != cards[top, CGOD] and power != HESTIA:
            pen = abs(cards[t, CNUM] - cards[top, CNUM])
            if cards[t, CCOLOR] != cards[top, CCOLOR]:
                pen += 1
        push_nb(s, g, t)
        if power == HERA:
            s.power[g] = HERA
            s.left[g] = pen
            continue_give_nb(s, g, params)
            return
        draw_nb(s, g, p, pen)
        if power < 0:
            end_turn_nb(s, g, params)
        else:
            start_power_nb(s, g, p, power, params, cards)
        return
    if ph == PH_TARGET:
        q = (p + a - lay[L_TARGET] + 1) % n
        if s.power[g] == ZEUS:
            draw_nb(s, g, q, 2)
        else:
            s.skip[g, q] = 1  # Aphrodite: does not stack
        end_turn_nb(s, g, params)
        return
    if ph == PH_GIVE:
        q = (p + a - lay[L_GIVE] + 1) % n
        t = take_nb(s, g)
        if t >= 0:
            s.hand[g, q, t] += 1
            s.hsize[g, q] += 1
        s.left[g] -= 1
        continue_give_nb(s, g, params)
        return
    if ph == PH_CHOOSE:
        if s.fkind[g] == F_ATTR:
            kd = F_NUMBER + (a - lay[L_ATTRIBUTE])
            s.fkind[g] = kd
            s.fval[g] = attr_nb(cards, np.int64(s.revealed[g]), kd)
        elif s.fkind[g] == F_NUMBER:
            s.fval[g] = a - lay[L_NUMBER] + 1
        elif s.fkind[g] == F_COLOR:
            s.fval[g] = a - lay[L_COLOR]
        else:
            s.fval[g] = a - lay[L_GOD]
        s.left[g] = 2
        s.upto[g] = 1
        s.phase[g] = PH_DISCARD
        return
    if ph == PH_DISCARD:
        if a == lay[L_STOP]:  # stop
            end_turn_nb(s, g, params)
            return
        t = a - lay[L_DISCARD]
        remove_nb(s, g, p, t)
        push_nb(s, g, t)  # face up onto the pile; its power does not fire
        s.left[g] -= 1
        after_discard_nb(s, g, params, cards)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_nb(s, g, a, params, cards, lay, mask, ids):
    """Apply action a if legal (else return -1 and change nothing); then refresh the mask. Returns the number of
    legal actions now (0 when the game is over)."""
    if a < 0 or a >= mask.shape[0] or mask[a] == 0:
        return -1
    s.rewards[g] = 0.0
    apply_nb(s, g, a, params, cards, lay)
    s.plies[g] += 1
    if s.phase[g] != PH_OVER and s.plies[g] >= params[P_PLY_CAP]:
        s.phase[g] = PH_OVER
        # A truncated game gives every player 0. With most_cards too: the public contract says that in omg a game
        # decided by cards left has no winner (R-CAP-MOST-CARDS: omg's capped game has no winner)
        s.truncated[g] = True
    return legal_mask_nb(s, g, params, cards, lay, mask, ids)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_one_nb(s, g, seed, params, counts, cards, lay, mask, ids):
    deal_nb(s, g, seed, params, counts)
    return legal_mask_nb(s, g, params, cards, lay, mask, ids)
