"""The omg observation vector of one seat, in the layout of ``observation_layout``."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.cards import hermes_copy_nb
from shedders.engine.omg.layout import (
    CCOLOR,
    CGOD,
    CNUM,
    CPOWER,
    F_COLOR,
    F_GOD,
    F_NUMBER,
    KIND_WAITING,
    MAXN,
    N_COLORS,
    N_GODS,
    N_KINDS,
    P_NPLAYERS,
    P_NTYPES,
    PH_DISCARD,
    PH_OVER,
)


# Long on purpose (65 lines): written field by field in the order of observation_layout, so the two read side
# by side; it runs at every step.
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def observe_nb(s, g, seat, params, cards, out):
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    out[:] = 0
    o = 0
    p = np.int64(s.turn[g])
    ph = s.phase[g]
    if ph != PH_OVER and p != seat:
        out[o + KIND_WAITING] = 1
    else:
        out[o + ph] = 1
    o += N_KINDS
    if s.power[g] >= 0:
        out[o + s.power[g]] = 1
    o += N_GODS
    out[o + s.fkind[g]] = 1
    o += 5
    kind = s.fkind[g]
    if ph == PH_DISCARD and kind == F_NUMBER:
        out[o + s.fval[g] - 1] = 1
    o += MAXN
    if ph == PH_DISCARD and kind == F_COLOR:
        out[o + s.fval[g]] = 1
    o += N_COLORS
    if ph == PH_DISCARD and kind == F_GOD:
        out[o + s.fval[g]] = 1
    o += N_GODS
    out[o] = s.left[g]
    out[o + 1] = s.upto[g]
    o += 2
    for t in range(nt):
        out[o + t] = s.hand[g, seat, t]
    o += nt
    top = np.int64(s.pile[g, s.pile_len[g] - 1])
    out[o + top] = 1
    o += nt
    out[o + cards[top, CGOD]] = 1
    o += N_GODS
    out[o + cards[top, CCOLOR]] = 1
    o += N_COLORS
    out[o + cards[top, CNUM] - 1] = 1
    o += MAXN
    for i in range(s.pile_len[g]):
        t = s.pile[g, i]
        out[o + t] += 1
        if cards[t, CPOWER] != 0:
            out[o + nt + cards[t, CGOD]] += 1
    o += nt + N_GODS
    h = hermes_copy_nb(s, g, cards)
    out[o + (h if h >= 0 else N_GODS)] = 1
    o += N_GODS + 1
    for j in range(n):
        out[o + j] = s.hsize[g, (seat + j) % n]
    o += n
    out[o] = s.deck_len[g]
    out[o + 1] = s.pile_len[g]
    o += 2
    if s.revealed[g] >= 0:
        out[o + s.revealed[g]] = 1
    o += nt
    for j in range(n):
        out[o + j] = s.skip[g, (seat + j) % n]
    o += n
    if ph != PH_OVER:
        out[o + (p - seat) % n] = 1
