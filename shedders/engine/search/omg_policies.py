"""The omg ``greedy`` and ``expert`` strategies, each written once, as numba kernels."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.omg.cards import attr_nb, count_matching_nb, hermes_copy_nb, penalty_nb
from shedders.engine.omg.layout import (
    APHRODITE,
    APOLLO,
    ARES,
    ARTEMIS,
    ATHENA,
    CGOD,
    CNUM,
    CPOWER,
    DEMETER,
    F_ATTR,
    F_COLOR,
    F_GOD,
    F_NUMBER,
    HEPHAESTUS,
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
    MAXN,
    N_ATTRS,
    N_COLORS,
    N_GODS,
    P_NPLAYERS,
    P_NTYPES,
    PH_CHOOSE,
    PH_DISCARD,
    PH_GIVE,
    PH_PLAY,
    PH_TARGET,
    POSEIDON,
    ZEUS,
)

@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_action_nb(s, g, params, cards, lay, mask):
    """omg's ``greedy`` (agents/omg_greedy.py) from the state, for rollouts: the smallest penalty (powers, then
    higher numbers, first among equals), the fewest-cards player as target, the most-held number / color / god,
    the highest-numbered discard."""
    n = params[P_NPLAYERS]
    nt = params[P_NTYPES]
    p = np.int64(s.turn[g])
    ph = s.phase[g]
    if ph == PH_PLAY:
        top = np.int64(s.pile[g, s.pile_len[g] - 1])
        best, bk = np.int64(-1), 1e30
        for t in range(nt):
            if mask[lay[L_PLAY] + t] != 0:
                pen = penalty_nb(cards, t, top)
                if cards[t, CPOWER] != 0 and cards[t, CGOD] == HESTIA:
                    pen = 0
                key = pen * 100.0 - cards[t, CPOWER] * 10.0 - cards[t, CNUM]
                if key < bk:
                    best, bk = t, key
        return lay[L_PLAY] + best
    if ph == PH_TARGET or ph == PH_GIVE:
        base = lay[L_TARGET] if ph == PH_TARGET else lay[L_GIVE]
        best, bs = np.int64(1), np.int64(1 << 30)
        for j in range(1, n):
            h = np.int64(s.hsize[g, (p + j) % n])
            if h < bs:
                best, bs = j, h
        return base + best - 1
    if ph == PH_CHOOSE:
        kind = s.fkind[g]
        if kind == F_ATTR:
            r = np.int64(s.revealed[g])
            best, bc = np.int64(-1), np.int64(-1)
            for a in range(N_ATTRS):
                if mask[lay[L_ATTRIBUTE] + a] != 0:
                    c = count_matching_nb(s, g, p, F_NUMBER + a, attr_nb(cards, r, F_NUMBER + a), cards)
                    if c > bc:
                        best, bc = a, c
            return lay[L_ATTRIBUTE] + best
        base = lay[L_NUMBER] if kind == F_NUMBER else (lay[L_COLOR] if kind == F_COLOR else lay[L_GOD])
        size = MAXN if kind == F_NUMBER else (N_COLORS if kind == F_COLOR else N_GODS)
        best, bc = np.int64(-1), np.int64(-1)
        for v in range(size):
            if mask[base + v] != 0:
                c = count_matching_nb(s, g, p, kind, v + 1 if kind == F_NUMBER else v, cards)
                if c > bc:
                    best, bc = v, c
        return base + best
    # discard: the highest number; stop only when nothing may go
    best, bn = np.int64(-1), np.int64(-1)
    for t in range(nt):
        if mask[lay[L_DISCARD] + t] != 0 and cards[t, CNUM] > bn:
            best, bn = t, np.int64(cards[t, CNUM])
    return lay[L_DISCARD] + best if best >= 0 else lay[L_STOP]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def most_held_nb(s, g, p, kind, t, cards):
    """The most cards of one number / color / god in p's hand once one card of type t has left it."""
    best = 0
    size = MAXN if kind == F_NUMBER else (N_COLORS if kind == F_COLOR else N_GODS)
    for v0 in range(size):
        v = v0 + 1 if kind == F_NUMBER else v0
        c = count_matching_nb(s, g, p, kind, v, cards)
        if attr_nb(cards, t, kind) == v:
            c -= 1
        if c > best:
            best = c
    return np.int64(best)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_action_nb(s, g, params, cards, lay, mask):
    """omg's ``expert`` (agents/omg_expert.py) from the state, for rollouts: plays scored in net cards (penalty in,
    power sheds out, a third of a card per card forced on others, a Hestia kept in reserve), greedy's choices and
    targets, discards that keep powers and middle numbers."""
    ph = s.phase[g]
    nt = params[P_NTYPES]
    n = params[P_NPLAYERS]
    if ph == PH_DISCARD:
        best, bk = np.int64(-1), 1e30
        for t in range(nt):
            if mask[lay[L_DISCARD] + t] != 0:
                keep = 0.0
                if cards[t, CPOWER] != 0:
                    gd = cards[t, CGOD]
                    keep = 3.0 if gd == HESTIA else (2.0 if gd == ATHENA or gd == HERA else 1.0)
                key = keep * 10.0 - abs(np.int64(cards[t, CNUM]) - 5)
                if key < bk:
                    best, bk = t, key
        return lay[L_DISCARD] + best if best >= 0 else lay[L_STOP]
    if ph != PH_PLAY:
        return greedy_action_nb(s, g, params, cards, lay, mask)
    p = np.int64(s.turn[g])
    top = np.int64(s.pile[g, s.pile_len[g] - 1])
    copy = hermes_copy_nb(s, g, cards)
    h = np.int64(s.hsize[g, p])
    best, bk = np.int64(-1), 1e30
    for t in range(nt):
        if mask[lay[L_PLAY] + t] == 0:
            continue
        eff = np.int64(-1)
        if cards[t, CPOWER] != 0:
            eff = copy if cards[t, CGOD] == HERMES else np.int64(cards[t, CGOD])
        pen = 0 if eff == HESTIA else penalty_nb(cards, t, top)
        after = h - 1 + pen
        sheds = 0
        if eff == ATHENA:
            sheds = after // 2
        elif eff == HEPHAESTUS:
            sheds = min(1, after)
        elif eff == ARTEMIS:
            sheds = min(2, most_held_nb(s, g, p, F_NUMBER, t, cards))
        elif eff == DEMETER:
            sheds = min(2, most_held_nb(s, g, p, F_COLOR, t, cards))
        elif eff == POSEIDON:
            sheds = min(2, most_held_nb(s, g, p, F_GOD, t, cards))
        elif eff == APOLLO:
            sheds = min(1, h - 1)
        own = (0 if eff == HERA else pen - 1) - sheds
        harm = 0.0
        if eff == ZEUS:
            harm = 2.0
        elif eff == ARES:
            harm = 1.0 + 0.25 * (n - 2)
        elif eff == HERA:
            harm = pen
        elif eff == APHRODITE:
            harm = 1.0
        reserve = 1.5 if eff == HESTIA and h > 2 else 0.0
        key = own - harm / 3.0 + reserve - 0.01 * cards[t, CNUM]
        if key < bk:
            best, bk = t, key
    return lay[L_PLAY] + best
