"""Moving omg cards: shuffles, draws (the deck rebuilt from the pile), the pile, card attributes, penalties."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.bits import lowest_bit_nb
from shedders.engine.omg.layout import CCOLOR, CGOD, CNUM, CPOWER, F_COLOR, F_NUMBER, HERMES
from shedders.engine.rng import rand_below_nb


# ----------------------------------------------------------------------------------------------------------------
# Cards moving
# ----------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def shuffle_deck_nb(s, g, k):
    """Fisher-Yates over deck[g, :k], from the game's own stream."""
    for i in range(k - 1, 0, -1):
        j = rand_below_nb(s, g, i + 1)
        tmp = s.deck[g, i]
        s.deck[g, i] = s.deck[g, j]
        s.deck[g, j] = tmp


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rebuild_nb(s, g):
    """seed 001: "keep the last played card on the table and shuffle the rest of the cards to form a new deck"."""
    k = np.int64(s.pile_len[g]) - 1
    if k <= 0:
        return
    top = s.pile[g, k]
    for i in range(k):
        s.deck[g, i] = s.pile[g, i]
    shuffle_deck_nb(s, g, k)
    s.deck_len[g] = k
    s.pile[g, 0] = top
    s.pile_len[g] = 1
    s.revealed[g] = -1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def take_nb(s, g):
    """The deck's top card (rebuilding an empty deck first), or -1 when no card is left anywhere."""
    if s.deck_len[g] == 0:
        rebuild_nb(s, g)
        if s.deck_len[g] == 0:
            return -1
    s.deck_len[g] -= 1
    s.revealed[g] = -1  # the revealed card, if any, has left the deck's top
    return np.int64(s.deck[g, s.deck_len[g]])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def draw_nb(s, g, q, k):
    """Player q draws k cards (when no card is left anywhere, what there is)."""
    for _ in range(k):
        t = take_nb(s, g)
        if t < 0:
            return
        s.hand[g, q, t] += 1
        s.hsize[g, q] += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def push_nb(s, g, t):
    s.pile[g, s.pile_len[g]] = t
    s.pile_len[g] += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def remove_nb(s, g, q, t):
    s.hand[g, q, t] -= 1
    s.hsize[g, q] -= 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def hermes_copy_nb(s, g, cards):
    """R-OMG-HERMES: the power of the card nearest the top of the pile that has one, skipping Hermes cards; -1
    none."""
    for i in range(np.int64(s.pile_len[g]) - 1, -1, -1):
        t = s.pile[g, i]
        if cards[t, CPOWER] != 0 and cards[t, CGOD] != HERMES:
            return np.int64(cards[t, CGOD])
    return np.int64(-1)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def attr_nb(cards, t, kind):
    if kind == F_NUMBER:
        return cards[t, CNUM]
    if kind == F_COLOR:
        return cards[t, CCOLOR]
    return cards[t, CGOD]


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def held_words_nb(hand, nt):
    """The card types a hand holds (``hand``: its counts by type, the first ``nt``), as the bits of two words:
    types 0..63, then 64..127 (a deck holds at most 127 cards, so at most 127 types). A loop without branches
    (it compiles to vector compares): a hand holds a few of omg's 96 types, and a scan that branches on each
    count mispredicts at every card. Walk the types in increasing order with ``held_type_nb``."""
    lo = np.int64(0)
    hi = np.int64(0)
    for t in range(min(nt, 64)):
        lo |= np.int64(hand[t] > 0) << t
    for t in range(64, nt):
        hi |= np.int64(hand[t] > 0) << (t - 64)
    return lo, hi


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def held_type_nb(lo, hi):
    """The lowest type of ``held_words_nb``'s words (one of them not 0), and the words without it."""
    if lo != 0:
        return lowest_bit_nb(lo), lo & (lo - 1), hi
    return 64 + lowest_bit_nb(hi), lo, hi & (hi - 1)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def count_matching_nb(s, g, q, kind, val, cards):
    c = 0
    lo, hi = held_words_nb(s.hand[g, q], s.hand.shape[2])
    while lo != 0 or hi != 0:
        t, lo, hi = held_type_nb(lo, hi)
        if attr_nb(cards, t, kind) == val:
            c += s.hand[g, q, t]
    return c


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def penalty_nb(cards, t, top):
    """The penalty for playing type t on type top (without powers)."""
    if cards[t, CNUM] == cards[top, CNUM] or cards[t, CGOD] == cards[top, CGOD]:
        return np.int64(0)
    pen = abs(np.int64(cards[t, CNUM]) - np.int64(cards[top, CNUM]))
    if cards[t, CCOLOR] != cards[top, CCOLOR]:
        pen += 1
    return pen
