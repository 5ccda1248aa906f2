"""The engine's shortcuts, each the exact image of what it replaces: the palace kernels' sets of ranks as bits
(``shedders.engine.palace.cards``) against the per-rank queries of the legal actions and greedy's state read, for
every rule, top and toggle; the seat step without a division against the modulo."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import shedders
from shedders.engine.bits import lowest_bit_nb
from shedders.engine.palace import cards as C
from shedders.engine.palace import layout as L

PALACE = ("og", "fatality", "core", "south_african", "house")


def params_of(ruleset: str) -> list[np.ndarray]:
    """The ruleset's params, and the same with each wild toggle of the core family flipped."""
    base = shedders.VectorGame(ruleset, 1, 4, seed=0).params
    out = [base]
    for key in (L.P_RESET_2, L.P_MIRROR_5, L.P_BURN_10):
        p = base.copy()
        p[key] = 1 - (p[key] != 0)
        out.append(p)
    return out


@pytest.mark.parametrize("ruleset", PALACE)
def test_wild_and_beat_bits_are_is_wild_and_can_beat_rank_by_rank(ruleset):
    for params in params_of(ruleset):
        wild = C.wild_bits_nb(params)
        assert [bool((wild >> r) & 1) for r in range(L.R)] == [C.is_wild_nb(r, params) for r in range(L.R)]
        for rule in (L.RULE_ANY, L.RULE_GE, L.RULE_LT7, L.RULE_LE7):
            for top in range(-1, L.R):
                bits = C.beat_bits_nb(rule, top, params)
                want = [C.can_beat_nb(r, rule, top, params) for r in range(L.R)]
                assert [bool((bits >> r) & 1) for r in range(L.R)] == want, (rule, top)
                assert bits >> L.R == 0


def test_answer_bits_are_the_answer_ranks():
    assert [bool((C.ANSWER_BITS >> r) & 1) for r in range(L.R)] == [C.is_answer_rank_nb(r) for r in range(L.R)]


def test_held_bits_mark_the_ranks_with_a_card_in_the_zone():
    vg = shedders.VectorGame("core", 1, 4, seed=0)
    vg.reset()
    s = vg.state
    rng = np.random.default_rng(5)
    for _ in range(200):
        s.hand[0, 1] = rng.integers(0, 3, L.R) * rng.integers(0, 2, L.R) * rng.integers(0, 2)  # often empty
        s.face_up[0, 1] = rng.integers(0, 2, L.R) * rng.integers(0, 2)
        for zone, row in ((L.ZONE_HAND, s.hand[0, 1]), (L.ZONE_UP, s.face_up[0, 1])):
            bits = C.held_bits_nb(s, 0, 1, zone)
            assert [bool((bits >> r) & 1) for r in range(L.R)] == list(row != 0)
        assert C.held_bits_nb(s, 0, 1, L.ZONE_DOWN) == 0
        for deck in (0, 5):
            for down in (-1, 3):
                s.deck_len[0] = deck
                s.face_down[0, 1] = down
                zone, bits = C.zone_held_nb(s, 0, 1)
                assert zone == C.zone_nb(s, 0, 1)
                assert bits == (C.held_bits_nb(s, 0, 1, zone) if zone in (L.ZONE_HAND, L.ZONE_UP) else 0)


def test_lowest_bit_is_the_smallest_member():
    for x in list(range(1, 1 << L.R)) + [1 << 40, (1 << 62) | 8]:
        assert lowest_bit_nb(x) == (x & -x).bit_length() - 1


def test_seat_steps_are_the_modulo():
    for n in range(2, 9):
        for q in range(n):
            for d in (1, -1):
                assert C.step_seat_nb(q, d, n) == (q + d) % n
            for viewer in range(n):
                assert C.seat_from_nb(q, viewer, n) == (q - viewer) % n


def test_held_words_walk_the_types_a_hand_holds_in_increasing_order():
    from shedders.engine.omg.cards import held_type_nb, held_words_nb

    @numba.njit
    def walk(hand, nt, out):
        lo, hi = held_words_nb(hand, nt)
        k = 0
        while lo != 0 or hi != 0:
            t, lo, hi = held_type_nb(lo, hi)
            out[k] = t
            k += 1
        return k

    rng = np.random.default_rng(7)
    out = np.zeros(128, np.int64)
    for nt in (1, 13, 63, 64, 65, 96, 127):
        for density in (0.0, 0.05, 0.5, 1.0):
            hand = (rng.random(128) < density).astype(np.int16) * rng.integers(1, 4, 128).astype(np.int16)
            k = walk(hand, nt, out)
            assert list(out[:k]) == [t for t in range(nt) if hand[t] > 0], (nt, density)
