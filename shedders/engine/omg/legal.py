"""The omg action mask: the plays, and each choice a power asks for."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.cards import attr_nb, count_matching_nb, held_type_nb, held_words_nb
from shedders.engine.omg.layout import (
    F_ATTR,
    F_COLOR,
    F_NONE,
    F_NUMBER,
    L_ATTRIBUTE,
    L_COLOR,
    L_DISCARD,
    L_GIVE,
    L_GOD,
    L_NUMBER,
    L_PLAY,
    L_STOP,
    L_TARGET,
    MAXN,
    N_ATTRS,
    N_COLORS,
    N_GODS,
    P_NPLAYERS,
    P_NTYPES,
    PH_CHOOSE,
    PH_DISCARD,
    PH_GIVE,
    PH_OVER,
    PH_PLAY,
    PH_TARGET,
)


# ----------------------------------------------------------------------------------------------------------------
# Legal actions
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _mark_nb(mask, ids, k, a):
    mask[a] = 1
    ids[k] = a
    return k + 1


# inlined, as the palace engine's: it runs at every step, and a call passes the whole engine state along
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def legal_mask_nb(s, g, params, cards, lay, mask, ids):
    """Fill mask (0/1 per action) and ids[:k] with the legal action ids, in increasing order; returns k. Each phase
    marks ids of one block of the layout (discard and stop are adjacent), in increasing order where its loop runs
    that way; a power's number, color or god choice is marked by hand card, so that block is listed afterwards."""
    mask[:] = 0
    k = 0
    ph = s.phase[g]
    if ph == PH_OVER:
        return 0
    p = np.int64(s.turn[g])
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    # the types the hand holds, lowest first (cards.held_words_nb): a few of nt
    lo, hi = held_words_nb(s.hand[g, p], nt)
    if ph == PH_PLAY:
        base = lay[L_PLAY]
        while lo != 0 or hi != 0:
            t, lo, hi = held_type_nb(lo, hi)
            k = _mark_nb(mask, ids, k, base + t)
    elif ph == PH_TARGET:
        for j in range(1, n):
            k = _mark_nb(mask, ids, k, lay[L_TARGET] + j - 1)
    elif ph == PH_GIVE:
        for j in range(1, n):
            k = _mark_nb(mask, ids, k, lay[L_GIVE] + j - 1)
    elif ph == PH_CHOOSE:
        kind = s.fkind[g]
        if kind == F_ATTR:
            # Apollo: the attributes of the revealed card that some hand card shares
            r = np.int64(s.revealed[g])
            for a in range(N_ATTRS):
                kd = F_NUMBER + a
                if count_matching_nb(s, g, p, kd, attr_nb(cards, r, kd), cards) > 0:
                    k = _mark_nb(mask, ids, k, lay[L_ATTRIBUTE] + a)
        else:
            if kind == F_NUMBER:
                first, size = lay[L_NUMBER], MAXN
            elif kind == F_COLOR:
                first, size = lay[L_COLOR], N_COLORS
            else:
                first, size = lay[L_GOD], N_GODS
            while lo != 0 or hi != 0:
                t, lo, hi = held_type_nb(lo, hi)
                v = attr_nb(cards, t, kind)
                mask[first + v - 1 if kind == F_NUMBER else first + v] = 1
            for a in range(first, first + size):
                if mask[a]:
                    ids[k] = a
                    k += 1
    elif ph == PH_DISCARD:
        base = lay[L_DISCARD]
        while lo != 0 or hi != 0:
            t, lo, hi = held_type_nb(lo, hi)
            if s.fkind[g] == F_NONE or attr_nb(cards, t, s.fkind[g]) == s.fval[g]:
                k = _mark_nb(mask, ids, k, base + t)
        if s.upto[g] != 0:
            k = _mark_nb(mask, ids, k, lay[L_STOP])  # the block right after discard's
    return k
