"""What a rank does on the pile, where a player plays from, and moving cards between zones."""

from __future__ import annotations

import numba as nb
import numpy as np

from shedders.engine.palace.layout import (
    FAM_003,
    FAM_FAT,
    FAM_OG,
    HAND_TARGET,
    N_DOWN,
    P_BURN_10,
    P_FAMILY,
    P_MIRROR_5,
    P_NOMINATE_A,
    P_NPLAYERS,
    P_RESET_2,
    P_REVERSE_Q,
    P_SKIP_8,
    P_UNDER_7,
    PH_OVER,
    R2,
    R3,
    R5,
    R7,
    R8,
    R10,
    RA,
    RJOKER,
    RQ,
    RULE_ANY,
    RULE_GE,
    RULE_LE7,
    RULE_LT7,
    ZONE_DOWN,
    ZONE_HAND,
    ZONE_NONE,
    ZONE_UP,
    R,
)


# --------------------------------------------------------------------------------------------------------------
# Small queries.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def is_wild_nb(r, params):
    """A card that goes on anything. seed 003 "Play equal or higher": 2, 5, 10, Joker, when their power is on.
    seed 000: 2, 3 and 10 "can be played on any card". seed 002: 2s, 3s and Jokers are wildcards."""
    fam = params[P_FAMILY]
    if fam == FAM_OG:
        return r == R2 or r == R3 or r == R10
    if fam == FAM_FAT:
        return r == R2 or r == R3 or r == RJOKER
    if r == R2:
        return params[P_RESET_2] != 0
    if r == R5:
        return params[P_MIRROR_5] != 0
    if r == R10:
        return params[P_BURN_10] != 0
    return r == RJOKER


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def is_powered_nb(r, params):
    """A rank whose power is on in the ruleset; the others are plain cards (R-003-WHO-STARTS)."""
    if r == R2:
        return params[P_RESET_2] != 0
    if r == R5:
        return params[P_MIRROR_5] != 0
    if r == R7:
        return params[P_UNDER_7] != 0
    if r == R8:
        return params[P_SKIP_8] != 0
    if r == R10:
        return params[P_BURN_10] != 0
    if r == RQ:
        return params[P_REVERSE_Q] != 0
    if r == RA:
        return params[P_NOMINATE_A] != 0
    return r == RJOKER


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def pile_state_nb(s, g, params):
    """The pile's effective constraint: (rule, effective top rank or -1).

    seed 003 "Mirror": a 5 copies the card beneath it, the under-7 curse included; a 5 on an empty pile lets the
    next player play anything. seed 003 "Reset": after a 2 the next player can play any card.
    """
    i = np.int64(s.pile_len[g]) - 1
    if params[P_MIRROR_5] != 0:
        while i >= 0 and s.pile_as[g, i] == R5:
            i -= 1
    if i < 0:
        return RULE_ANY, -1
    top = np.int64(s.pile_as[g, i])
    if top == R2 and params[P_RESET_2] != 0:
        return RULE_ANY, top
    if top == R7 and params[P_UNDER_7] != 0:
        # seed 003 "Under": strictly lower than 7. seeds 000 and 002: "a 7 or lower".
        return (RULE_LT7 if params[P_FAMILY] == FAM_003 else RULE_LE7), top
    return RULE_GE, top


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def run_len_nb(s, g):
    """How many cards of the top card's actual rank lie on top of the pile (a 5 counts as 5)."""
    n = np.int64(s.pile_len[g])
    if n == 0:
        return 0
    top = s.pile_as[g, n - 1]
    k = 0
    while k < n and s.pile_as[g, n - 1 - k] == top:
        k += 1
    return k


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def can_beat_nb(r, rule, top, params):
    """seed 003 "Play equal or higher", "Under": may rank r go on the pile?"""
    if is_wild_nb(r, params):
        return True
    if rule == RULE_ANY:
        return True
    if rule == RULE_LT7:
        return r < R7  # "An 8 is NOT an escape"
    if rule == RULE_LE7:
        return r <= R7
    return r >= top


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def is_answer_rank_nb(r):
    """R-SA-NOMINATE: the answer is a 2, 5, A or Joker, whatever the toggles say."""
    return r == R2 or r == R5 or r == RA or r == RJOKER


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def hand_count_nb(s, g, p):
    n = 0
    for r in range(R):
        n += s.hand[g, p, r]
    return n


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def up_count_nb(s, g, p):
    n = 0
    for r in range(R):
        n += s.face_up[g, p, r]
    return n


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def down_count_nb(s, g, p):
    n = 0
    for i in range(N_DOWN):
        if s.face_down[g, p, i] >= 0:
            n += 1
    return n


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def zone_nb(s, g, p):
    """R-PLAY-ZONE: hand first; face-up once hand and draw pile are empty; face-down once both are empty."""
    if hand_count_nb(s, g, p) > 0:
        return ZONE_HAND
    if s.deck_len[g] > 0:
        return ZONE_HAND  # transient only: a player with an empty hand draws before deciding
    if up_count_nb(s, g, p) > 0:
        return ZONE_UP
    if down_count_nb(s, g, p) > 0:
        return ZONE_DOWN
    return ZONE_NONE


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def zone_count_nb(s, g, p, zone, r):
    if zone == ZONE_HAND:
        return np.int64(s.hand[g, p, r])
    if zone == ZONE_UP:
        return np.int64(s.face_up[g, p, r])
    return 0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def n_in_nb(s, g, params):
    n = 0
    for p in range(params[P_NPLAYERS]):
        if s.finished[g, p] == 0:
            n += 1
    return n


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def step_seat_nb(q, d, n):
    """(q + d) % n for a seat q of n and a step d of +1 or -1: a wrap, not a division (the seat arithmetic of
    every turn)."""
    q = np.int64(q) + d
    if q >= n:
        return q - n
    if q < 0:
        return q + n
    return q


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def seat_from_nb(q, viewer, n):
    """(q - viewer) % n for seats q and viewer of n: where q sits from the viewer, without a division."""
    d = np.int64(q) - np.int64(viewer)
    return d + n if d < 0 else d


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def advance_nb(s, g, seat, steps, params):
    """The seat ``steps`` players on from ``seat`` in the direction of play, counting only players still in.

    R-PLAYERS-IN: skips and "the next player" count only players still in and may come round to the player itself.
    """
    n = params[P_NPLAYERS]
    d = np.int64(s.direction[g])
    cur = np.int64(seat)
    for _ in range(steps):
        for _k in range(n):
            cur = step_seat_nb(cur, d, n)
            if s.finished[g, cur] == 0:
                break
    return cur


# --------------------------------------------------------------------------------------------------------------
# Moving cards.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def draw_one_nb(s, g, p):
    if s.deck_len[g] == 0:
        return False
    s.deck_len[g] -= 1
    s.hand[g, p, s.deck[g, s.deck_len[g]]] += 1
    return True


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def draw_to_three_nb(s, g, p):
    """seed 003 "Draw to three": while the draw pile lasts, draw back up to 3 hole cards; never above."""
    n = hand_count_nb(s, g, p)  # counted once: each draw adds one card
    while n < HAND_TARGET and draw_one_nb(s, g, p):
        n += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def pickup_nb(s, g, p):
    """Take the whole pile into the hand; its cards become publicly known (R-PUBLIC-PICKUP)."""
    for i in range(s.pile_len[g]):
        r = s.pile[g, i]
        s.hand[g, p, r] += 1
        s.known[g, p, r] += 1
    s.pile_len[g] = 0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def burn_nb(s, g):
    """seed 003 "Burn": the pile leaves the game."""
    for i in range(s.pile_len[g]):
        s.out[g, s.pile[g, i]] += 1
    s.pile_len[g] = 0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def push_nb(s, g, r, k, p):
    push_as_nb(s, g, r, r, k, p)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def push_as_nb(s, g, r, named, k, p):
    """k cards of rank r onto the pile from seat p, each standing for rank ``named``."""
    for _ in range(k):
        s.pile[g, s.pile_len[g]] = r
        s.pile_as[g, s.pile_len[g]] = named
        s.pile_by[g, s.pile_len[g]] = p
        s.pile_len[g] += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def has_cards_nb(s, g, p):
    # the counts are never negative: the first zone that holds a card answers
    return hand_count_nb(s, g, p) > 0 or up_count_nb(s, g, p) > 0 or down_count_nb(s, g, p) > 0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def go_out_nb(s, g, p, params):
    """seed 003 "Last one holding cards loses": a player with no cards is out; the last one left loses.

    Reward (R-003-REWARD): each player out gets +1/(N-1) when going out; the Shithead gets -1.
    Returns True when the game is over.
    """
    n = params[P_NPLAYERS]
    fam = params[P_FAMILY]
    s.finished[g, p] = 1
    s.placing[g, s.n_out[g]] = p
    s.n_out[g] += 1
    if fam == FAM_FAT:
        # R-FAT-REWARD: finishing position k scores k points; reward (N + 1 - 2k) / (N - 1).
        s.rewards[g, p] += (n + 1.0 - 2.0 * s.n_out[g]) / (n - 1)
    elif fam == FAM_OG:
        s.rewards[g, p] += 1.0  # seed 000 "The player to empty their blinds first wins the game"
    else:
        s.rewards[g, p] += 1.0 / (n - 1)
    if fam == FAM_OG or n_in_nb(s, g, params) <= 1:
        for q in range(n):
            if s.finished[g, q] == 0:
                s.rewards[g, q] += -1.0 / (n - 1) if fam == FAM_OG else -1.0
        s.phase[g] = PH_OVER
        s.actor[g] = -1
        s.terminated[g] = True
        return True
    return False


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def remove_from_zone_nb(s, g, p, zone, r, k):
    if zone == ZONE_HAND:
        s.hand[g, p, r] -= k
        kn = s.known[g, p, r] - k  # observers cannot tell which copy left: only what is surely still there
        s.known[g, p, r] = max(0, kn)
    else:
        s.face_up[g, p, r] -= k


# --------------------------------------------------------------------------------------------------------------
# Sets of ranks as bits (bit r: rank r), so a scan over a hand tests one word instead of branching on each rank's
# count: the legal plays and greedy's state read walk only the ranks held that may go.
# --------------------------------------------------------------------------------------------------------------
ALL_RANKS = (1 << R) - 1
#: ``is_answer_rank_nb``'s ranks
ANSWER_BITS = (1 << R2) | (1 << R5) | (1 << RA) | (1 << RJOKER)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def wild_bits_nb(params):
    """The ranks ``is_wild_nb`` calls wild, as bits."""
    fam = params[P_FAMILY]
    if fam == FAM_OG:
        return np.int64((1 << R2) | (1 << R3) | (1 << R10))
    if fam == FAM_FAT:
        return np.int64((1 << R2) | (1 << R3) | (1 << RJOKER))
    bits = np.int64(1 << RJOKER)
    if params[P_RESET_2] != 0:
        bits |= 1 << R2
    if params[P_MIRROR_5] != 0:
        bits |= 1 << R5
    if params[P_BURN_10] != 0:
        bits |= 1 << R10
    return bits


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def beat_bits_nb(rule, top, params):
    """The ranks ``can_beat_nb(r, rule, top, params)`` lets go on the pile, as bits."""
    if rule == RULE_ANY:
        return np.int64(ALL_RANKS)
    if rule == RULE_LT7:
        bits = np.int64((1 << R7) - 1)
    elif rule == RULE_LE7:
        bits = np.int64((1 << (R7 + 1)) - 1)
    else:
        bits = np.int64(ALL_RANKS) & ~((np.int64(1) << max(np.int64(top), 0)) - 1)
    return bits | wild_bits_nb(params)


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def held_bits_nb(s, g, p, zone):
    """The ranks player p holds at least one card of in ``zone`` (ZONE_HAND or ZONE_UP; none elsewhere), as bits:
    a fixed loop without branches."""
    bits = np.int64(0)
    if zone == ZONE_HAND:
        for r in range(R):
            bits |= np.int64(s.hand[g, p, r] != 0) << r
    elif zone == ZONE_UP:
        for r in range(R):
            bits |= np.int64(s.face_up[g, p, r] != 0) << r
    return bits


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def zone_held_nb(s, g, p):
    """``zone_nb``'s zone, and the ranks player p holds there as ``held_bits_nb`` (0 for the face-down cards and
    none): the counts are never negative, so a zone holds cards exactly when it holds a rank."""
    bits = held_bits_nb(s, g, p, ZONE_HAND)
    if bits != 0 or s.deck_len[g] > 0:
        return ZONE_HAND, bits  # an empty hand with a draw pile is transient (zone_nb)
    bits = held_bits_nb(s, g, p, ZONE_UP)
    if bits != 0:
        return ZONE_UP, bits
    if down_count_nb(s, g, p) > 0:
        return ZONE_DOWN, bits
    return ZONE_NONE, bits
