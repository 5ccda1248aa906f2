"""The gods' powers (seed 001): what each does when played, and the discards and gifts they ask for."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.cards import attr_nb, count_matching_nb, draw_nb, rebuild_nb
from shedders.engine.omg.layout import (
    APHRODITE,
    APOLLO,
    ARES,
    ARTEMIS,
    ATHENA,
    DEMETER,
    F_ATTR,
    F_COLOR,
    F_GOD,
    F_NONE,
    F_NUMBER,
    HEPHAESTUS,
    N_ATTRS,
    P_NPLAYERS,
    PH_CHOOSE,
    PH_DISCARD,
    PH_GIVE,
    PH_TARGET,
    POSEIDON,
    ZEUS,
)
from shedders.engine.omg.turns import end_turn_nb


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def after_discard_nb(s, g, params, cards):
    """A discard power goes on while it may: discards left, and (for "up to") a matching card in hand."""
    p = np.int64(s.turn[g])
    if s.left[g] <= 0 or s.hsize[g, p] == 0:
        end_turn_nb(s, g, params)
        return
    if s.fkind[g] != F_NONE and count_matching_nb(s, g, p, s.fkind[g], s.fval[g], cards) == 0:
        end_turn_nb(s, g, params)
        return
    s.phase[g] = PH_DISCARD


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def start_power_nb(s, g, p, god, params, cards):
    """Resolve the power of ``god`` for player p (after the penalty): automatic parts now, else the first
    decision. A power with nothing to choose from does nothing (R-OMG-CHOICES)."""
    n = params[P_NPLAYERS]
    s.power[g] = god
    if god == ZEUS or god == APHRODITE:
        s.phase[g] = PH_TARGET
        return
    if god == ARES:
        for j in range(1, n):  # "Each other player draws 1 card", clockwise from the left
            draw_nb(s, g, (p + j) % n, 1)
        end_turn_nb(s, g, params)
        return
    if god == ATHENA or god == HEPHAESTUS:
        k = s.hsize[g, p] // 2 if god == ATHENA else min(1, s.hsize[g, p])
        s.left[g] = k
        s.upto[g] = 0
        s.fkind[g] = F_NONE
        after_discard_nb(s, g, params, cards)
        return
    if god == ARTEMIS or god == DEMETER or god == POSEIDON:
        if s.hsize[g, p] == 0:
            end_turn_nb(s, g, params)
            return
        s.fkind[g] = F_NUMBER if god == ARTEMIS else (F_COLOR if god == DEMETER else F_GOD)
        s.phase[g] = PH_CHOOSE
        return
    if god == APOLLO:
        if s.deck_len[g] == 0:
            rebuild_nb(s, g)
        if s.deck_len[g] == 0:
            end_turn_nb(s, g, params)  # no card anywhere to reveal
            return
        r = np.int64(s.deck[g, s.deck_len[g] - 1])
        s.revealed[g] = r
        shared = 0
        for a in range(N_ATTRS):
            kd = F_NUMBER + a
            shared += count_matching_nb(s, g, p, kd, attr_nb(cards, r, kd), cards)
        if shared == 0:
            end_turn_nb(s, g, params)  # nothing matches: the power ends after the reveal
            return
        s.fkind[g] = F_ATTR
        s.phase[g] = PH_CHOOSE
        return
    end_turn_nb(s, g, params)  # Hestia (already applied), or no power


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def continue_give_nb(s, g, params):
    """Hera: each penalty card is its own decision while a card can be dealt; then she draws 1."""
    p = np.int64(s.turn[g])
    if s.left[g] > 0:
        if s.deck_len[g] == 0:
            rebuild_nb(s, g)
        if s.deck_len[g] > 0:
            s.phase[g] = PH_GIVE
            return
        s.left[g] = 0  # no card left anywhere: the rest are dropped
    draw_nb(s, g, p, 1)  # "Then draw 1 card."
    end_turn_nb(s, g, params)
