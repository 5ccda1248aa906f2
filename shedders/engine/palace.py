"""Numba kernels for the palace family (hand / face-up / face-down, a pile to beat).

Everything here works on a :class:`PalaceState`: a namedtuple of integer numpy arrays with the batch of games
first (struct of arrays). Single-game kernels take ``(s, g, params)`` where ``g`` is the game's row and ``params``
is the small int64 array built by :meth:`shedders.rules.PalaceRules.to_params`. Kernels never see strings,
dataclasses or RNG objects; every random draw comes from the game's own ``rng`` stream, so results do not depend
on the batch size or the thread count.

Rules are cited as ``seed 003`` (core / south_african / house; quoted in the ruleset docs pages) and ``RULINGS``
(how the open points of the seed texts are settled; each ruleset docs page lists the readings it makes).
Every constant used by a kernel lives in this file: numba freezes globals at compile time and its cache does not
notice changes in other modules.
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np

# --------------------------------------------------------------------------------------------------------------
# Ranks. Index order is the rank order for "equal or higher" (RULINGS: 2 < 3 < ... < K < A); JOKER is last.
# --------------------------------------------------------------------------------------------------------------
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JOKER")
R = 14
R2, R3, R4, R5, R6, R7, R8, R9, R10, RJ, RQ, RK, RA, RJOKER = range(R)
MAXC = 8  # most cards of one rank in one play (two decks hold 8 of a rank)
MAXP = 8  # most seats any palace ruleset seats
HAND_TARGET = 3  # draw back to three
# ``ONE`` (an int64, not a literal) keeps calls like f(s, g, ONE) on the one int64 specialization of f: numba
# compiles another version of a helper for each literal argument, which doubled the cold compile.
ONE = np.int64(1)

# --------------------------------------------------------------------------------------------------------------
# Phases: the kind of decision pending. ``actor`` decides; ``turn`` is whose turn it is (they differ in windows).
# --------------------------------------------------------------------------------------------------------------
# og adds ``sneak`` (an out-of-turn offer to sneak the rank just played) and ``open`` (the opening play of the
# start rank); fatality adds ``name`` (name the rank of a Joker flipped blind).
PH_SETUP, PH_PLAY, PH_NOMINATE, PH_ANSWER, PH_COUNTER, PH_EAT, PH_OVER, PH_SNEAK, PH_NAME, PH_OPEN = range(10)
PHASE_NAMES = ("setup", "play", "nominate", "answer", "counter", "eat", "over", "sneak", "name", "open")
N_KINDS = 11  # observation one-hot: the 10 phases plus "waiting" (not this player's decision)
KIND_WAITING = 10

# Pile constraints (what the next play must satisfy).
RULE_ANY, RULE_GE, RULE_LT7, RULE_LE7 = range(4)
RULE_NAMES = ("any", "at least", "under 7", "7 or lower")
N_RULES = 4

# Rule families: seed 003 (core, south_african, house), seed 000 (og), seed 002 (fatality).
FAM_003, FAM_OG, FAM_FAT = range(3)

# Zones a player plays from.
ZONE_HAND, ZONE_UP, ZONE_DOWN, ZONE_NONE = range(4)

# --------------------------------------------------------------------------------------------------------------
# Action ids: arithmetic, one fixed layout for the whole family (names are generated from ids, for people).
# --------------------------------------------------------------------------------------------------------------
A_PLAY = 0  # + rank * MAXC + (count - 1)
A_PICKUP = A_PLAY + R * MAXC
A_FLIP = A_PICKUP + 1
A_SWAP = A_FLIP + 1  # + hand_rank * R + up_rank
A_READY = A_SWAP + R * R
A_PASS = A_READY + 1
A_NOMINATE = A_PASS + 1  # + k - 1, k = 1 .. MAXP - 1
# og and fatality actions come after seed 003's, so the ids above never moved.
UP_K = 3  # fatality "play kxR +mup": k = 1..3 hand cards, m = 1..3 face-up cards (one deck: k + m <= 4)
A_PLAY_UP = A_NOMINATE + MAXP - 1  # + rank * 9 + (k - 1) * 3 + (m - 1)
A_PLAY_AS = A_PLAY_UP + 13 * UP_K * UP_K  # + named_rank * 2 + (k - 1): k = 1..2 Jokers standing for a rank
THREES_K = 4  # fatality "play kx3 as R +mup": k = 1..4 threes, m = 0..3 face-up cards of rank R
A_THREES_AS = A_PLAY_AS + 13 * 2  # + named_rank * 16 + (k - 1) * 4 + m
A_PICKUP_WITH = A_THREES_AS + 13 * THREES_K * 4  # + rank: fatality, pick up with the face-up cards of a rank
A_COVER = A_PICKUP_WITH + R  # + rank: og setup, move a card of the six to face-up
A_SNEAK = A_COVER + R  # + rank * MAXC + count - 1: og, sneak that many of the rank just played
N_ACTIONS = A_SNEAK + R * MAXC

# --------------------------------------------------------------------------------------------------------------
# Parameter array layout (built by PalaceRules.to_params).
# --------------------------------------------------------------------------------------------------------------
(
    P_NPLAYERS,
    P_RESET_2,
    P_MIRROR_5,
    P_UNDER_7,
    P_BURN_10,
    P_SKIP_8,
    P_REVERSE_Q,
    P_NOMINATE_A,
    P_JOKERS,
    P_FOUR_BURN,
    P_VOLUNTARY_PICKUP,
    P_SLAP,
    P_REVERSE_ON_DOUBLES,
    P_SET_SIZE,
    P_MAX_SKIP,
    P_NDECKS,
    P_NJOKERS,
    P_PLY_CAP,
    P_SWAP_PHASE,
    P_FAMILY,  # FAM_003, FAM_OG, FAM_FAT
    P_UP_WITH_HAND,  # fatality*: face-up cards of rank r join a play of the last hand cards, all r
    P_PICKUP_WITH_UP,  # fatality*: with an empty hand, take face-up cards of one rank along with the pile
    P_THREES_AS_TOP,  # fatality*: a hand of only 3s is played at once as the top's rank
    P_CAP_RULE,  # CAP_TRUNCATE or CAP_MOST_CARDS: how a game at the ply cap ends
    N_PARAMS,
) = range(25)
CAP_TRUNCATE, CAP_MOST_CARDS = range(2)  # the order of shedders.rules.CAP_RULES

PalaceState = namedtuple(
    "PalaceState",
    [
        "hand",  # int8 (B, P, R): rank counts in hand
        "face_up",  # int8 (B, P, R): rank counts face up
        "face_down",  # int8 (B, P, 3): ranks face down, -1 empty; flipped first slot first
        "known",  # int8 (B, P, R): hand cards everyone knows (picked up from the pile, not yet played)
        "pile",  # int8 (B, C): ranks bottom to top
        "pile_by",  # int8 (B, C): seat that played each pile card
        "pile_as",  # int8 (B, C): the rank each pile card stands for (a named Joker, fatality's 3s; else itself)
        "pile_len",  # int16 (B,)
        "deck",  # int8 (B, C): draw pile, next card at deck[deck_len - 1]
        "deck_len",  # int16 (B,)
        "out",  # int8 (B, R): out-of-play counts (burned)
        "turn",  # int8 (B,): whose turn it is
        "actor",  # int8 (B,): who decides now (agent_selection)
        "phase",  # int8 (B,): PH_*
        "direction",  # int8 (B,): 1 clockwise, -1 counter-clockwise
        "target",  # int8 (B,): nominee, or the player a Joker punishes; -1 none
        "ask",  # int8 (B,): joker window: seat asked next
        "ask_left",  # int8 (B,): joker window: seats still to ask
        "win_rank",  # int8 (B,): og sneak window: the rank that may be sneaked; -1 none
        "win_by",  # int8 (B,): og sneak window: who made the play (never asked)
        "resume",  # int8 (B,): og: who decides when the sneak window closes
        "resume_phase",  # int8 (B,): og: the phase that follows the window
        "oot",  # int8 (B,): og: 1 while a sneaker opens a fresh pile out of turn
        "last_rank",  # int8 (B,): the rank of the last play (as it stood for), -1 none
        "finished",  # int8 (B, P): 1 once out
        "placing",  # int8 (B, P): seats in the order they went out, -1 padded
        "n_out",  # int8 (B,)
        "plies",  # int16 (B,): decisions so far
        "rng",  # uint64 (B,): the game's own random stream
        "rewards",  # float32 (B, P): the last step's rewards
        "terminated",  # bool (B,)
        "truncated",  # bool (B,)
    ],
)


def alloc_state(batch: int, num_players: int, capacity: int) -> PalaceState:
    """Preallocate a zeroed state for ``batch`` games; ``capacity`` is the number of cards in play."""
    b, p, c = batch, num_players, capacity
    return PalaceState(
        hand=np.zeros((b, p, R), np.int8),
        face_up=np.zeros((b, p, R), np.int8),
        face_down=np.full((b, p, 3), -1, np.int8),
        known=np.zeros((b, p, R), np.int8),
        pile=np.full((b, c), -1, np.int8),
        pile_by=np.full((b, c), -1, np.int8),
        pile_as=np.full((b, c), -1, np.int8),
        pile_len=np.zeros(b, np.int16),
        deck=np.full((b, c), -1, np.int8),
        deck_len=np.zeros(b, np.int16),
        out=np.zeros((b, R), np.int8),
        turn=np.zeros(b, np.int8),
        actor=np.zeros(b, np.int8),
        phase=np.zeros(b, np.int8),
        direction=np.ones(b, np.int8),
        target=np.full(b, -1, np.int8),
        ask=np.full(b, -1, np.int8),
        ask_left=np.zeros(b, np.int8),
        win_rank=np.full(b, -1, np.int8),
        win_by=np.full(b, -1, np.int8),
        resume=np.full(b, -1, np.int8),
        resume_phase=np.zeros(b, np.int8),
        oot=np.zeros(b, np.int8),
        last_rank=np.full(b, -1, np.int8),
        finished=np.zeros((b, p), np.int8),
        placing=np.full((b, p), -1, np.int8),
        n_out=np.zeros(b, np.int8),
        plies=np.zeros(b, np.int16),
        rng=np.zeros(b, np.uint64),
        rewards=np.zeros((b, p), np.float32),
        terminated=np.zeros(b, np.bool_),
        truncated=np.zeros(b, np.bool_),
    )


# --------------------------------------------------------------------------------------------------------------
# Random stream: splitmix64, one state per game.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def splitmix64_nb(x):
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rand_below_nb(s, g, n):
    """Uniform integer in [0, n) from game g's stream."""
    s.rng[g] = s.rng[g] + np.uint64(0x9E3779B97F4A7C15)
    z = splitmix64_nb(s.rng[g])
    return np.int64((z >> np.uint64(11)) % np.uint64(n))


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
    """A rank whose power is on in the ruleset; the others are plain cards (RULINGS: who starts)."""
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
    """RULINGS (nominate): the answer is a 2, 5, A or Joker, whatever the toggles say."""
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
    for i in range(3):
        if s.face_down[g, p, i] >= 0:
            n += 1
    return n


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def zone_nb(s, g, p):
    """RULINGS: hand first; face-up once hand and draw pile are empty; face-down once both are empty."""
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


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def advance_nb(s, g, seat, steps, params):
    """The seat ``steps`` players on from ``seat`` in the direction of play, counting only players still in.

    RULINGS: skips and "the next player" count only players still in and may come round to the player itself.
    """
    n = params[P_NPLAYERS]
    d = np.int64(s.direction[g])
    cur = np.int64(seat)
    for _ in range(steps):
        for _k in range(n):
            cur = (cur + d) % n
            if s.finished[g, cur] == 0:
                break
    return cur


# --------------------------------------------------------------------------------------------------------------
# Dealing.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def clear_game_nb(s, g, params):
    n = params[P_NPLAYERS]
    for p in range(n):
        for r in range(R):
            s.hand[g, p, r] = 0
            s.face_up[g, p, r] = 0
            s.known[g, p, r] = 0
        for i in range(3):
            s.face_down[g, p, i] = -1
        s.finished[g, p] = 0
        s.placing[g, p] = -1
        s.rewards[g, p] = 0.0
    for r in range(R):
        s.out[g, r] = 0
    s.pile_len[g] = 0
    s.deck_len[g] = 0
    s.turn[g] = 0
    s.actor[g] = 0
    s.phase[g] = PH_SETUP
    s.direction[g] = 1
    s.target[g] = -1
    s.ask[g] = -1
    s.ask_left[g] = 0
    s.win_rank[g] = -1
    s.win_by[g] = -1
    s.resume[g] = -1
    s.resume_phase[g] = PH_PLAY
    s.oot[g] = 0
    s.last_rank[g] = -1
    s.n_out[g] = 0
    s.plies[g] = 0
    s.terminated[g] = False
    s.truncated[g] = False


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def deal_nb(s, g, seed, params):
    """seed 003 "Setup": shuffle, deal 3 mystery, 3 table-top, 3 hole cards each; the rest is the draw pile."""
    clear_game_nb(s, g, params)
    s.rng[g] = splitmix64_nb(np.uint64(seed))
    n = params[P_NPLAYERS]
    c = 0
    for _d in range(params[P_NDECKS]):
        for r in range(13):
            for _k in range(4):
                s.deck[g, c] = r
                c += 1
    for _j in range(params[P_NJOKERS]):
        s.deck[g, c] = RJOKER
        c += 1
    for i in range(c - 1, 0, -1):  # Fisher-Yates
        j = rand_below_nb(s, g, i + 1)
        t = s.deck[g, i]
        s.deck[g, i] = s.deck[g, j]
        s.deck[g, j] = t
    for i in range(3):
        for p in range(n):
            c -= 1
            s.face_down[g, p, i] = s.deck[g, c]
    if params[P_FAMILY] == FAM_OG:
        # seed 000 "Dealing": three blinds, then six cards each, of which each player picks three covers.
        for _i in range(6):
            for p in range(n):
                c -= 1
                s.hand[g, p, s.deck[g, c]] += 1
        s.deck_len[g] = c
        s.phase[g] = PH_SETUP
        s.actor[g] = 0
        s.turn[g] = 0
        return
    for _i in range(3):
        for p in range(n):
            c -= 1
            s.face_up[g, p, s.deck[g, c]] += 1
    for _i in range(3):
        for p in range(n):
            c -= 1
            s.hand[g, p, s.deck[g, c]] += 1
    s.deck_len[g] = c
    if params[P_SWAP_PHASE] != 0:
        s.phase[g] = PH_SETUP
        s.actor[g] = 0
        s.turn[g] = 0
    else:
        start_play_nb(s, g, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def open_rank_nb(s, g, params):
    """og's start rank (RULINGS): the first of 4, 5, 6, ..., K, A, 2, 3 that any hand holds."""
    n = params[P_NPLAYERS]
    for j in range(13):
        r = (j + R4) % 13
        for p in range(n):
            if s.hand[g, p, r] > 0:
                return r
    return R4


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def start_play_nb(s, g, params):
    """Who starts, once setup is over.

    seed 003 "A 3 starts the game": a 3 in hand starts; else the lowest plain card; ties first clockwise.
    seed 000 (RULINGS): the start rank is the first of 4, 5, ..., A, 2, 3 that any hand holds; the first such
    player clockwise opens with it. seed 002: "starting with a randomly determined player" (the game's stream).
    """
    n = params[P_NPLAYERS]
    fam = params[P_FAMILY]
    if fam == FAM_OG:
        r = open_rank_nb(s, g, params)
        for p in range(n):
            if s.hand[g, p, r] > 0:
                s.phase[g] = PH_OPEN
                s.turn[g] = p
                s.actor[g] = p
                return
    if fam == FAM_FAT:
        nin = n_in_nb(s, g, params)
        pick = rand_below_nb(s, g, nin)
        for p in range(n):
            if s.finished[g, p] == 0:
                if pick == 0:
                    s.phase[g] = PH_PLAY
                    s.turn[g] = p
                    s.actor[g] = p
                    return
                pick -= 1
    starter = 0
    found = False
    for i in range(R):
        # seed 003: "Anyone holding a 3 in their hole cards goes first. Nobody has one? The player with the lowest
        # plain card starts." The 3 is looked for first, whatever else is plain (a 2 is plain without reset_2).
        r = R3 if i == 0 else (i - 1 if i <= R3 else i)
        if r != R3 and is_powered_nb(r, params):
            continue
        for p in range(n):
            if s.finished[g, p] == 0 and s.hand[g, p, r] > 0:
                starter = p
                found = True
                break
        if found:
            break
    if not found:
        starter = 0
        while starter < n - 1 and s.finished[g, starter] != 0:
            starter += 1
    s.phase[g] = PH_PLAY
    s.turn[g] = starter
    s.actor[g] = starter


# --------------------------------------------------------------------------------------------------------------
# Legal actions.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def can_counter_nb(s, g, p):
    """RULINGS (Joker): a counter comes from the zone the player may play; face-down Jokers cannot counter."""
    z = zone_nb(s, g, p)
    return (z == ZONE_HAND or z == ZONE_UP) and zone_count_nb(s, g, p, z, ONE * RJOKER) > 0


@nb.njit(cache=True, _nrt=False, inline="always", error_model="numpy")
def add_nb(mask, ids, n, a):
    """Mark action a legal: its mask bit, and its id as the n-th legal one; returns n + 1."""
    mask[a] = 1
    ids[n] = a
    return n + 1


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def legal_mask_nb(s, g, params, mask, ids):
    """Write game g's legal actions for its actor into ``mask`` (int8, N_ACTIONS) and, in the first slots of
    ``ids`` (int16, N_ACTIONS), their ids; returns how many are legal."""
    for a in range(N_ACTIONS):
        mask[a] = 0
    ph = s.phase[g]
    p = np.int64(s.actor[g])
    nlegal = 0
    fam = params[P_FAMILY]
    if ph == PH_OVER:
        return 0
    if ph == PH_SETUP and fam == FAM_OG:
        # seed 000 "Each player must choose three covers": one card of the six at a time.
        for r in range(R):
            if s.hand[g, p, r] > 0:
                nlegal = add_nb(mask, ids, nlegal, A_COVER + r)
        return nlegal
    if ph == PH_SNEAK:
        # seed 000 "Sneaking": sneak any number of the rank just played, or pass.
        r = np.int64(s.win_rank[g])
        cnt = min(np.int64(s.hand[g, p, r]), MAXC)
        for c in range(cnt):
            nlegal = add_nb(mask, ids, nlegal, A_SNEAK + r * MAXC + c)
        return add_nb(mask, ids, nlegal, A_PASS)
    if ph == PH_NAME:
        # RULINGS (fatality): a Joker flipped blind never fails; its player names its rank.
        for r in range(13):
            nlegal = add_nb(mask, ids, nlegal, A_PLAY_AS + r * 2)
        return nlegal
    if ph == PH_OPEN:
        # RULINGS (og): the starter must open with one or more cards of the start rank.
        r = open_rank_nb(s, g, params)
        cnt = min(np.int64(s.hand[g, p, r]), MAXC)
        for c in range(cnt):
            nlegal = add_nb(mask, ids, nlegal, A_PLAY + r * MAXC + c)
        return nlegal
    if ph == PH_SETUP:
        # seed 003 "Swap if you want": hole cards <-> table-top cards, then ready.
        for h in range(R):
            if s.hand[g, p, h] == 0:
                continue
            for u in range(R):
                if u != h and s.face_up[g, p, u] > 0:
                    nlegal = add_nb(mask, ids, nlegal, A_SWAP + h * R + u)
        return add_nb(mask, ids, nlegal, A_READY)
    if ph == PH_NOMINATE:
        # seed 003 "Nominate": point at any other player still in the game.
        for k in range(1, n_in_nb(s, g, params)):
            nlegal = add_nb(mask, ids, nlegal, A_NOMINATE + k - 1)
        return nlegal
    if ph == PH_EAT:
        return add_nb(mask, ids, 0, A_PICKUP)
    if ph == PH_COUNTER:
        return add_nb(mask, ids, add_nb(mask, ids, 0, A_PLAY + RJOKER * MAXC), A_PASS)
    # PH_PLAY or PH_ANSWER
    z = zone_nb(s, g, p)
    rule, top = pile_state_nb(s, g, params)
    nplays = 0
    if z == ZONE_DOWN:
        nplays = add_nb(mask, ids, 0, A_FLIP)
    elif z == ZONE_HAND or z == ZONE_UP:
        for r in range(R):
            cnt = zone_count_nb(s, g, p, z, r)
            if cnt == 0:
                continue
            if ph == PH_ANSWER:
                ok = is_answer_rank_nb(r)
            else:
                ok = can_beat_nb(r, rule, top, params)
            if not ok:
                continue
            if r == RJOKER:
                if fam == FAM_FAT:
                    # RULINGS (fatality): one or both Jokers, on their own, naming any rank.
                    for named in range(13):
                        for c in range(min(cnt, 2)):
                            nplays = add_nb(mask, ids, nplays, A_PLAY_AS + named * 2 + c)
                    continue
                cnt = 1  # seed 003 "Jokers go one at a time"
            if cnt > MAXC:
                cnt = MAXC
            for c in range(cnt):
                nplays = add_nb(mask, ids, nplays, A_PLAY + r * MAXC + c)
        if fam == FAM_FAT and ph == PH_PLAY and z == ZONE_HAND and s.deck_len[g] == 0:
            nplays = fatality_extra_plays_nb(s, g, p, params, rule, top, mask, ids, nplays)
    nlegal = nplays
    if s.pile_len[g] > 0 and (params[P_VOLUNTARY_PICKUP] != 0 or nplays == 0):
        nlegal = add_nb(mask, ids, nlegal, A_PICKUP)
        if fam == FAM_FAT and nplays == 0 and z == ZONE_UP and params[P_PICKUP_WITH_UP] != 0:
            # seed 002* "you can also pick cards of the same rank from your face-up cards"
            for r in range(R):
                if s.face_up[g, p, r] > 0:
                    nlegal = add_nb(mask, ids, nlegal, A_PICKUP_WITH + r)
    return nlegal


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def fatality_extra_plays_nb(s, g, p, params, rule, top, mask, ids, nplays):
    """fatality's starred plays, for a player on hand cards with the draw pile empty.

    seed 002 "Face-up cards can be played with hand cards only when all hand cards of the same rank are played
    together": the last hand cards, all of rank r, plus face-up r's (``play kxR +mup``). seed 002* "a player only
    has 3s in hand [...] they inherit the rank of the last card played": ``play kx3 as R`` (+ face-up R's).
    """
    hc = hand_count_nb(s, g, p)
    if params[P_UP_WITH_HAND] != 0:
        for r in range(13):
            if s.hand[g, p, r] == hc and hc <= UP_K and s.face_up[g, p, r] > 0 and can_beat_nb(r, rule, top, params):
                for m in range(min(np.int64(s.face_up[g, p, r]), UP_K)):
                    nplays = add_nb(mask, ids, nplays, A_PLAY_UP + r * UP_K * UP_K + (hc - 1) * UP_K + m)
    if params[P_THREES_AS_TOP] != 0 and s.hand[g, p, R3] == hc and hc <= THREES_K and 0 <= top < 13 and top != R3:
        for m in range(min(np.int64(s.face_up[g, p, top]), 3) + 1):
            nplays = add_nb(mask, ids, nplays, A_THREES_AS + top * 16 + (hc - 1) * 4 + m)
    return nplays


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
    while hand_count_nb(s, g, p) < HAND_TARGET and draw_one_nb(s, g, p):
        pass


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def pickup_nb(s, g, p):
    """Take the whole pile into the hand; its cards become publicly known (RULINGS: public knowledge)."""
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
    return hand_count_nb(s, g, p) + up_count_nb(s, g, p) + down_count_nb(s, g, p) > 0


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def go_out_nb(s, g, p, params):
    """seed 003 "Last one holding cards loses": a player with no cards is out; the last one left loses.

    Reward (RULINGS, core family): each player out gets +1/(N-1) when going out; the Shithead gets -1.
    Returns True when the game is over.
    """
    n = params[P_NPLAYERS]
    fam = params[P_FAMILY]
    s.finished[g, p] = 1
    s.placing[g, s.n_out[g]] = p
    s.n_out[g] += 1
    if fam == FAM_FAT:
        # RULINGS (fatality): finishing position k scores k points; reward (N + 1 - 2k) / (N - 1).
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


# --------------------------------------------------------------------------------------------------------------
# Windows: the Joker standoff.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def open_joker_window_nb(s, g, victim, params):
    """seed 003 "Joker": the victim eats unless someone counters; ask the players in turn from the victim.

    RULINGS: a counter is not offered when the player it would punish (the top Joker's player) has gone out.
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
        s.ask[g] = (q + d) % n
        if q != owner and s.finished[g, q] == 0 and can_counter_nb(s, g, q):
            s.phase[g] = PH_COUNTER
            s.actor[g] = q
            return
    s.phase[g] = PH_EAT
    s.actor[g] = s.target[g]


# --------------------------------------------------------------------------------------------------------------
# Applying a play.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def resolve_play_nb(s, g, p, r, k, params):
    """Everything that follows k cards of rank r landing on the pile from player p, in the RULINGS' order:
    the play's own effects, then a slap, then drawing back to 3, then any window (nomination, Joker, sneaks).
    ``r`` is the rank the cards stand for (a named Joker's rank)."""
    if params[P_FAMILY] == FAM_OG:
        resolve_og_nb(s, g, p, r, k, params)
        return
    s.last_rank[g] = r
    n = params[P_NPLAYERS]
    # seed 003 "Burn" and "Four of a kind burns": the burn overrides the cards' own powers.
    burned = False
    if r == R10 and params[P_BURN_10] != 0:
        burned = True
    elif params[P_FOUR_BURN] != 0 and r != RJOKER and run_len_nb(s, g) >= params[P_SET_SIZE]:
        burned = True
    skips = 0
    if burned:
        burn_nb(s, g)
        # house "Slap the pile": a uniformly random other player still in draws a penalty card.
        if params[P_SLAP] != 0:
            others = n_in_nb(s, g, params) - (1 if s.finished[g, p] == 0 else 0)
            if others > 0:
                pick = rand_below_nb(s, g, others)
                for q in range(n):
                    if q != p and s.finished[g, q] == 0:
                        if pick == 0:
                            draw_one_nb(s, g, q)
                            break
                        pick -= 1
    else:
        if r == RQ and params[P_REVERSE_Q] != 0:
            # seed 003 "Reverse": each Queen flips the direction; two cancel out.
            if k % 2 == 1:
                s.direction[g] = -s.direction[g]
        if k == 2 and params[P_REVERSE_ON_DOUBLES] != 0:
            s.direction[g] = -s.direction[g]  # house "Reverse on doubles"
        if r == R8 and params[P_SKIP_8] != 0:
            skips = min(k, params[P_MAX_SKIP])  # seed 003 "Skip": play two, skip two; at most 3
    draw_to_three_nb(s, g, p)
    if not has_cards_nb(s, g, p):
        if go_out_nb(s, g, p, params):
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


@nb.njit(cache=True, _nrt=False, error_model="numpy")
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
            nxt = np.int64(s.turn[g])  # RULINGS: play then continues with the player whose turn it was
            s.oot[g] = 0
        else:
            nxt = advance_nb(s, g, p, ONE, params)
            s.turn[g] = nxt
        s.resume[g] = nxt
        s.resume_phase[g] = PH_EAT if eat else PH_PLAY
    open_sneak_window_nb(s, g, r, p, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def open_sneak_window_nb(s, g, r, by, params):
    """RULINGS (og): after a play of rank r, every other player holding r in hand is asked once, clockwise from
    the left of the player who played (the next player included)."""
    s.win_rank[g] = r
    s.win_by[g] = by
    s.ask[g] = (by + 1) % params[P_NPLAYERS]
    s.ask_left[g] = params[P_NPLAYERS] - 1
    continue_sneak_window_nb(s, g, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def continue_sneak_window_nb(s, g, params):
    n = params[P_NPLAYERS]
    r = np.int64(s.win_rank[g])
    while s.ask_left[g] > 0:
        q = np.int64(s.ask[g])
        s.ask[g] = (q + 1) % n
        s.ask_left[g] -= 1
        if q != s.win_by[g] and s.finished[g, q] == 0 and s.hand[g, q, r] > 0:
            s.phase[g] = PH_SNEAK
            s.actor[g] = q
            return
    s.win_rank[g] = -1
    s.win_by[g] = -1
    s.ask[g] = -1
    s.phase[g] = s.resume_phase[g]
    s.actor[g] = s.resume[g]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sneak_nb(s, g, q, k, params):
    """seed 000 "Sneaking": q sneaks k cards of the window's rank. No turn, no change of turn order; q draws.

    RULINGS: sneaked cards go on top when the played cards stayed there; when those left (a 3, a burn) the sneaked
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


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def end_turn_after_pickup_nb(s, g, p, params):
    if params[P_FAMILY] == FAM_OG:
        # RULINGS (og): pick up the pile and immediately open a fresh pile from the hand, in the same turn.
        s.phase[g] = PH_PLAY
        s.actor[g] = p
        s.target[g] = -1
        return
    nxt = advance_nb(s, g, p, ONE, params)
    s.phase[g] = PH_PLAY
    s.turn[g] = nxt
    s.actor[g] = nxt
    s.target[g] = -1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def remove_from_zone_nb(s, g, p, zone, r, k):
    if zone == ZONE_HAND:
        s.hand[g, p, r] -= k
        kn = s.known[g, p, r] - k  # observers cannot tell which copy left: only what is surely still there
        s.known[g, p, r] = kn if kn > 0 else 0
    else:
        s.face_up[g, p, r] -= k


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
        named = (action - A_PLAY_AS) // 2
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
            if not has_cards_nb(s, g, p):
                if go_out_nb(s, g, p, params):
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
        named = x // 16
        k = (x % 16) // 4 + 1
        m = x % 4
        remove_from_zone_nb(s, g, p, ZONE_HAND, ONE * R3, k)
        s.face_up[g, p, named] -= m
        push_as_nb(s, g, ONE * R3, named, k, p)
        push_nb(s, g, named, m, p)
        resolve_play_nb(s, g, p, named, k + m, params)
        return
    if action >= A_PLAY_AS:
        named = (action - A_PLAY_AS) // 2
        k = (action - A_PLAY_AS) % 2 + 1
        remove_from_zone_nb(s, g, p, zone_nb(s, g, p), ONE * RJOKER, k)
        push_as_nb(s, g, ONE * RJOKER, named, k, p)
        resolve_play_nb(s, g, p, named, k, params)
        return
    x = action - A_PLAY_UP
    r = x // (UP_K * UP_K)
    k = (x % (UP_K * UP_K)) // UP_K + 1
    m = x % UP_K + 1
    remove_from_zone_nb(s, g, p, ZONE_HAND, r, k)
    s.face_up[g, p, r] -= m
    push_nb(s, g, r, k + m, p)
    resolve_play_nb(s, g, p, r, k + m, params)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def truncate_check_nb(s, g, params):
    """RULINGS: at the ply cap the game ends truncated; players still in get 0, those out keep what they got.
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


# --------------------------------------------------------------------------------------------------------------
# Observation.
# --------------------------------------------------------------------------------------------------------------
def observation_layout(num_players: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each slice of the observation vector, in order. Seats are relative to the
    observer: slot 0 is the observer, slot 1 the next seat clockwise, and so on."""
    p = num_players
    return [
        ("kind", N_KINDS, "decision kind, one-hot: " + ", ".join(PHASE_NAMES) + ", waiting"),
        ("hand", R, "own hand, count per rank (2 3 4 5 6 7 8 9 10 J Q K A JOKER)"),
        ("zone", 3, "zone the observer plays from, one-hot: hand, face-up, face-down"),
        ("face_up", p * R, "face-up counts per rank, per relative seat (others hidden during setup)"),
        ("face_down", p, "face-down card count per relative seat"),
        ("hand_size", p, "hand size per relative seat"),
        ("known", p * R, "hand cards each relative seat is publicly known to hold (picked up, not yet played)"),
        ("finished", p, "1 if the relative seat has gone out"),
        ("top", R + 1, "effective top rank of the pile, one-hot; last slot: no rank (empty pile)"),
        ("rule", N_RULES, "pile constraint, one-hot: any, at least top, under 7 (seed 003), 7 or lower (og, fatality)"),
        ("run", 1, "how many cards of the top card's rank lie on top"),
        ("pile", R, "pile contents, count per rank (public)"),
        ("pile_size", 1, "cards in the pile"),
        ("deck_size", 1, "cards in the draw pile"),
        ("out", R, "out-of-play counts per rank"),
        ("direction", 1, "1 clockwise, -1 counter-clockwise"),
        ("turn", p, "relative seat whose turn it is, one-hot"),
        ("target", p, "relative seat nominated or punished by a Joker, one-hot (zeros: none)"),
        ("top_by", p, "relative seat that played the pile's top card, one-hot (zeros: empty pile)"),
        ("last", R + 1, "rank of the last play, as it stood for, one-hot (og: the rank a sneak offer is for); "
                        "last slot: none yet"),
        ("out_of_turn", 1, "og: 1 while a sneaker opens a fresh pile out of turn"),
    ]


def observation_size(num_players: int) -> int:
    return sum(size for _, size, _ in observation_layout(num_players))


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def observe_nb(s, g, viewer, params, obs):
    """Write what seat ``viewer`` may know of game g into ``obs`` (int8), following observation_layout."""
    n = params[P_NPLAYERS]
    obs[:] = 0
    ph = s.phase[g]
    o = 0
    if ph == PH_OVER:
        obs[o + PH_OVER] = 1
    elif s.actor[g] == viewer:
        obs[o + ph] = 1
    else:
        obs[o + KIND_WAITING] = 1
    o += N_KINDS
    for r in range(R):
        obs[o + r] = s.hand[g, viewer, r]
    o += R
    z = zone_nb(s, g, viewer)
    if z < 3:
        obs[o + z] = 1
    o += 3
    setup = ph == PH_SETUP
    for j in range(n):
        q = (viewer + j) % n
        if j == 0 or not setup:  # RULINGS: what a player does in setup is hidden until setup ends
            for r in range(R):
                obs[o + j * R + r] = s.face_up[g, q, r]
    o += n * R
    for j in range(n):
        obs[o + j] = down_count_nb(s, g, (viewer + j) % n)
    o += n
    for j in range(n):
        obs[o + j] = hand_count_nb(s, g, (viewer + j) % n)
    o += n
    for j in range(n):
        q = (viewer + j) % n
        for r in range(R):
            obs[o + j * R + r] = s.known[g, q, r]
    o += n * R
    for j in range(n):
        obs[o + j] = s.finished[g, (viewer + j) % n]
    o += n
    rule, top = pile_state_nb(s, g, params)
    if top >= 0:
        obs[o + top] = 1
    else:
        obs[o + R] = 1
    o += R + 1
    obs[o + rule] = 1
    o += N_RULES
    obs[o] = run_len_nb(s, g)
    o += 1
    for i in range(s.pile_len[g]):
        obs[o + s.pile[g, i]] += 1
    o += R
    obs[o] = s.pile_len[g]
    o += 1
    obs[o] = s.deck_len[g]
    o += 1
    for r in range(R):
        obs[o + r] = s.out[g, r]
    o += R
    obs[o] = s.direction[g]
    o += 1
    if ph != PH_OVER and ph != PH_SETUP:
        obs[o + (s.turn[g] - viewer) % n] = 1
    o += n
    if s.target[g] >= 0:
        obs[o + (s.target[g] - viewer) % n] = 1
    o += n
    if s.pile_len[g] > 0 and s.pile_by[g, s.pile_len[g] - 1] >= 0:
        obs[o + (s.pile_by[g, s.pile_len[g] - 1] - viewer) % n] = 1
    o += n
    if s.last_rank[g] >= 0:
        obs[o + s.last_rank[g]] = 1
    else:
        obs[o + R] = 1
    o += R + 1
    obs[o] = s.oot[g]
    o += 1
    return o


# --------------------------------------------------------------------------------------------------------------
# Batch-of-one entry points (the AEC env) and batched entry points.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_one_nb(s, g, seed, params, mask, ids):
    """Deal game g and write its mask. ``g`` comes from the caller, never as a literal: numba compiles a separate
    specialization of every helper for a literal argument, which doubles the cold compile."""
    deal_nb(s, g, seed, params)
    return legal_mask_nb(s, g, params, mask, ids)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_one_nb(s, g, action, params, mask, ids):
    """Check against ``mask`` (game 0's current mask), apply and re-mask. Returns -1, and changes nothing, when
    ``action`` is not legal."""
    if action < 0 or action >= N_ACTIONS or mask[action] == 0:
        return -1
    apply_nb(s, g, action, params)
    return legal_mask_nb(s, g, params, mask, ids)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sample_legal_nb(s, g, ids, n):
    """A uniformly random legal action of game g from its own stream, given the legal ids and their number as
    legal_mask_nb wrote them."""
    if n <= 0:
        return -1
    return np.int64(ids[rand_below_nb(s, g, n)])


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def losers_tax_nb(s, g, loser, winner, params):
    """house "Loser's tax": the last loser's best hand card is swapped with the last winner's worst hand card.

    RULINGS: best is 10, 2, 5, Joker (the wilds of the active ruleset), then A down to 3.
    """
    best = -1
    for r in (R10, R2, R5, RJOKER):
        if is_wild_nb(r, params) and s.hand[g, loser, r] > 0:
            best = r
            break
    if best < 0:
        for r in range(RA, -1, -1):
            if s.hand[g, loser, r] > 0 and not is_wild_nb(r, params):
                best = r
                break
    worst = -1
    for r in range(R):
        if s.hand[g, winner, r] > 0 and not is_wild_nb(r, params):
            worst = r
            break
    if worst < 0:
        for r in (RJOKER, R5, R2, R10):
            if is_wild_nb(r, params) and s.hand[g, winner, r] > 0:
                worst = r
                break
    if best < 0 or worst < 0:
        return
    s.hand[g, loser, best] -= 1
    s.hand[g, winner, best] += 1
    s.hand[g, winner, worst] -= 1
    s.hand[g, loser, worst] += 1


# --------------------------------------------------------------------------------------------------------------
# The batched engine (VectorGame): one prange loop over the batch; every game may be at its own phase and seat.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def next_game_seed_nb(s, g):
    """The seed of game g's next deal, drawn from its own stream (auto-reset, and the AEC env's reset())."""
    s.rng[g] = s.rng[g] + np.uint64(0x9E3779B97F4A7C15)
    return splitmix64_nb(s.rng[g])


@nb.njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def write_view_nb(s, g, params, obs, mask, cur, nlegal, ids):
    """The acting seat's observation, mask, legal ids and their number, and the acting seat, of game g."""
    nlegal[g] = legal_mask_nb(s, g, params, mask[g], ids[g])
    cur[g] = s.actor[g]
    if s.actor[g] >= 0:
        observe_nb(s, g, np.int64(s.actor[g]), params, obs[g])
    else:
        obs[g, :] = 0  # a game over, left for redeal_finished()


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def first_illegal_nb(mask, actions):
    """Index of the first game whose action is masked (-1 skips a game), or -1 when all are legal."""
    for g in range(actions.shape[0]):
        a = actions[g]
        if a == -1:
            continue
        if a < 0 or a >= N_ACTIONS or mask[g, a] == 0:
            return g
    return -1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def step_range_nb(s, lo, hi, actions, params, obs, mask, cur, nlegal, ids, rewards, terminated, truncated,
                  final_placing, final_plies, autoreset):
    """Step games lo..hi-1 with actions[g] (-1: leave game g as it is); finished games record their placing and
    length, then (with ``autoreset``) deal again from their own stream.

    Three passes (apply, masks, observations) rather than one: the fused loop body was too large for the
    instruction cache, and the split ran about 25% faster in an interleaved A/B."""
    n = params[P_NPLAYERS]
    for g in range(lo, hi):
        for q in range(n):
            final_placing[g, q] = -1
        final_plies[g] = 0
        a = actions[g]
        if a < 0:
            for q in range(n):
                rewards[g, q] = 0.0
            terminated[g] = False
            truncated[g] = False
            continue
        apply_nb(s, g, a, params)
        for q in range(n):
            rewards[g, q] = s.rewards[g, q]
        terminated[g] = s.terminated[g]
        truncated[g] = s.truncated[g]
        if s.phase[g] == PH_OVER:
            k = np.int64(s.n_out[g])
            for q in range(k):
                final_placing[g, q] = s.placing[g, q]
            if k == n - 1:  # decided (by the rules, or at the cap by most_cards)
                for q in range(n):
                    if s.finished[g, q] == 0:
                        final_placing[g, k] = q  # the last player, who never went out (og: only the winner)
            final_plies[g] = s.plies[g]
            if autoreset:
                deal_nb(s, g, next_game_seed_nb(s, g), params)
    for g in range(lo, hi):
        nlegal[g] = legal_mask_nb(s, g, params, mask[g], ids[g])
        cur[g] = s.actor[g]
    for g in range(lo, hi):
        if s.actor[g] >= 0:
            observe_nb(s, g, np.int64(s.actor[g]), params, obs[g])
        else:
            obs[g, :] = 0  # a game over, left for redeal_finished()


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def reset_range_nb(s, lo, hi, seeds, params, obs, mask, cur, nlegal, ids):
    for g in range(lo, hi):
        deal_nb(s, g, seeds[g], params)
        write_view_nb(s, g, params, obs, mask, cur, nlegal, ids)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def redeal_over_nb(s, params, obs, mask, cur, nlegal, ids):
    """Deal the next game, from its own stream, in every game that is over (VectorGame with autoreset off)."""
    n = 0
    for g in range(s.phase.shape[0]):
        if s.phase[g] == PH_OVER:
            deal_nb(s, g, next_game_seed_nb(s, g), params)
            write_view_nb(s, g, params, obs, mask, cur, nlegal, ids)
            n += 1
    return n


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def sample_range_nb(s, lo, hi, ids, nlegal, out):
    """A uniformly random legal action per game, each from the game's own stream."""
    for g in range(lo, hi):
        out[g] = sample_legal_nb(s, g, ids[g], np.int64(nlegal[g]))


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def observe_range_nb(s, lo, hi, seats, params, obs):
    """Observation of game g from seat seats[g] (any seat, not only the actor)."""
    for g in range(lo, hi):
        observe_nb(s, g, seats[g], params, obs[g])


# The parallel entry points split the batch into ``nchunks`` chunks (one per thread: numba.get_num_threads() read
# in Python, since reading it inside a kernel keeps numba from caching it) and call a serial kernel per chunk. The
# serial kernels run without numba's reference counting (_nrt=False): passing the 32-array state to a helper
# costs an atomic incref and decref per array per call, which took most of the time of a step, and more so with
# several threads touching the same counters.
@nb.njit(cache=True, parallel=True)
def batch_step_nb(nchunks, s, actions, params, obs, mask, cur, nlegal, ids, rewards, terminated, truncated, final_placing,
                  final_plies, autoreset):
    b = actions.shape[0]
    nt = max(1, min(nchunks, b))
    size = (b + nt - 1) // nt
    for c in nb.prange(nt):
        step_range_nb(s, c * size, min(b, (c + 1) * size), actions, params, obs, mask, cur, nlegal, ids, rewards,
                      terminated, truncated, final_placing, final_plies, autoreset)


@nb.njit(cache=True, parallel=True)
def batch_reset_nb(nchunks, s, seeds, params, obs, mask, cur, nlegal, ids):
    b = seeds.shape[0]
    nt = max(1, min(nchunks, b))
    size = (b + nt - 1) // nt
    for c in nb.prange(nt):
        reset_range_nb(s, c * size, min(b, (c + 1) * size), seeds, params, obs, mask, cur, nlegal, ids)


@nb.njit(cache=True, parallel=True)
def batch_sample_nb(nchunks, s, ids, nlegal, out):
    b = out.shape[0]
    nt = max(1, min(nchunks, b))
    size = (b + nt - 1) // nt
    for c in nb.prange(nt):
        sample_range_nb(s, c * size, min(b, (c + 1) * size), ids, nlegal, out)


@nb.njit(cache=True, parallel=True)
def batch_observe_nb(nchunks, s, seats, params, obs):
    b = seats.shape[0]
    nt = max(1, min(nchunks, b))
    size = (b + nt - 1) // nt
    for c in nb.prange(nt):
        observe_range_nb(s, c * size, min(b, (c + 1) * size), seats, params, obs)


# --------------------------------------------------------------------------------------------------------------
# Search support: copy a game, resample what a player cannot know, a greedy rollout policy, and determinized
# Monte Carlo over the legal actions (agents/search.py). Every rollout is a game of the same engine.
# --------------------------------------------------------------------------------------------------------------
@nb.njit(cache=True, _nrt=False, error_model="numpy")
def copy_game_nb(src, g, dst, d):
    """Row g of state ``src`` into row d of ``dst`` (same player count and card capacity). Element loops, not
    slice assignment: numba would allocate a temporary for a slice copy, which needs its runtime."""
    n = src.hand.shape[1]
    for p in range(n):
        for r in range(R):
            dst.hand[d, p, r] = src.hand[g, p, r]
            dst.face_up[d, p, r] = src.face_up[g, p, r]
            dst.known[d, p, r] = src.known[g, p, r]
        for i in range(3):
            dst.face_down[d, p, i] = src.face_down[g, p, i]
        dst.finished[d, p] = src.finished[g, p]
        dst.placing[d, p] = src.placing[g, p]
        dst.rewards[d, p] = src.rewards[g, p]
    for i in range(src.pile_len[g]):
        dst.pile[d, i] = src.pile[g, i]
        dst.pile_by[d, i] = src.pile_by[g, i]
        dst.pile_as[d, i] = src.pile_as[g, i]
    for i in range(src.deck_len[g]):
        dst.deck[d, i] = src.deck[g, i]
    for r in range(R):
        dst.out[d, r] = src.out[g, r]
    dst.pile_len[d] = src.pile_len[g]
    dst.deck_len[d] = src.deck_len[g]
    dst.turn[d] = src.turn[g]
    dst.actor[d] = src.actor[g]
    dst.phase[d] = src.phase[g]
    dst.direction[d] = src.direction[g]
    dst.target[d] = src.target[g]
    dst.ask[d] = src.ask[g]
    dst.ask_left[d] = src.ask_left[g]
    dst.win_rank[d] = src.win_rank[g]
    dst.win_by[d] = src.win_by[g]
    dst.resume[d] = src.resume[g]
    dst.resume_phase[d] = src.resume_phase[g]
    dst.oot[d] = src.oot[g]
    dst.last_rank[d] = src.last_rank[g]
    dst.n_out[d] = src.n_out[g]
    dst.plies[d] = src.plies[g]
    dst.rng[d] = src.rng[g]
    dst.terminated[d] = src.terminated[g]
    dst.truncated[d] = src.truncated[g]


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def determinize_nb(s, d, viewer, params, pool):
    """Resample, in row d, every card seat ``viewer`` cannot know, from the row's own stream: the other players'
    hands beyond their publicly known cards, every face-down card (the owner's too), the draw pile's order and,
    during setup, the other players' face-up cards. ``pool`` is scratch (int8, at least the card count)."""
    n = params[P_NPLAYERS]
    setup = s.phase[d] == PH_SETUP
    m = 0
    for q in range(n):
        if q != viewer:
            for r in range(R):
                for _ in range(s.hand[d, q, r] - s.known[d, q, r]):
                    pool[m] = r
                    m += 1
                if setup:
                    for _ in range(s.face_up[d, q, r]):
                        pool[m] = r
                        m += 1
        for i in range(3):
            if s.face_down[d, q, i] >= 0:
                pool[m] = s.face_down[d, q, i]
                m += 1
    for i in range(s.deck_len[d]):
        pool[m] = s.deck[d, i]
        m += 1
    for i in range(1, m):  # sort first: the sample then depends only on what the viewer cannot tell apart
        v = pool[i]
        j = i - 1
        while j >= 0 and pool[j] > v:
            pool[j + 1] = pool[j]
            j -= 1
        pool[j + 1] = v
    for i in range(m - 1, 0, -1):
        j = rand_below_nb(s, d, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    m = 0
    for q in range(n):
        if q != viewer:
            k = 0
            for r in range(R):
                k += s.hand[d, q, r] - s.known[d, q, r]
                s.hand[d, q, r] = s.known[d, q, r]
            u = 0
            if setup:
                for r in range(R):
                    u += s.face_up[d, q, r]
                    s.face_up[d, q, r] = 0
            for _ in range(k):
                s.hand[d, q, pool[m]] += 1
                m += 1
            for _ in range(u):
                s.face_up[d, q, pool[m]] += 1
                m += 1
        for i in range(3):
            if s.face_down[d, q, i] >= 0:
                s.face_down[d, q, i] = pool[m]
                m += 1
    for i in range(s.deck_len[d]):
        s.deck[d, i] = pool[m]
        m += 1


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_key_nb(r, params):
    """Greedy's order of ranks: plain ranks low to high, then wilds from the cheapest (5, 3, 2, 10, Joker)."""
    if not is_wild_nb(r, params):
        return r
    if r == R5:
        return 100
    if r == R3:
        return 101
    if r == R2:
        return 102
    if r == R10:
        return 103
    return 104


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def greedy_action_nb(s, g, params, mask, ids, nlegal):
    """The ``greedy`` agent's choice, in numba, for rollouts: lowest plain rank with every copy, wilds last,
    covers and sneaks as agents/greedy.py, counter every Joker, pick up only when nothing else goes."""
    ph = s.phase[g]
    if ph == PH_SETUP:
        if mask[A_READY] != 0:
            return A_READY
        best, bk = -1, -1
        for r in range(R):
            if mask[A_COVER + r] != 0 and greedy_key_nb(r, params) > bk:
                best, bk = r, greedy_key_nb(r, params)
        return A_COVER + best
    if ph == PH_SNEAK:
        r = np.int64(s.win_rank[g])
        if is_wild_nb(r, params):
            return A_PASS
        c = MAXC - 1
        while mask[A_SNEAK + r * MAXC + c] == 0:
            c -= 1
        return A_SNEAK + r * MAXC + c
    if ph == PH_NAME:
        return A_PLAY_AS + R10 * 2
    if ph == PH_COUNTER:
        return A_PLAY + RJOKER * MAXC if mask[A_PLAY + RJOKER * MAXC] != 0 else A_PASS
    if ph == PH_NOMINATE or ph == PH_EAT:
        return np.int64(ids[0])
    best, bk = -1, 1000
    for r in range(R):
        if mask[A_PLAY + r * MAXC] != 0 and greedy_key_nb(r, params) < bk:
            best, bk = r, greedy_key_nb(r, params)
    if best >= 0 and (bk < 100 or mask[A_PLAY_AS + R10 * 2] == 0):
        c = MAXC - 1
        while mask[A_PLAY + best * MAXC + c] == 0:
            c -= 1
        return A_PLAY + best * MAXC + c
    if mask[A_PLAY_AS + R10 * 2] != 0:
        return A_PLAY_AS + R10 * 2
    if mask[A_FLIP] != 0:
        return A_FLIP
    return np.int64(ids[0]) if mask[A_PICKUP] == 0 else A_PICKUP


# ``off[OFF_*]``: where the fields ``expert_action_nb`` reads start in the observation, in the order of
# EXPERT_FIELDS (agents/search.py builds ``off`` from the observation layout).
OFF_UP, OFF_DOWN, OFF_HSIZE, OFF_FIN, OFF_TOP, OFF_RUN, OFF_PILE, OFF_DIR, OFF_PILEC = range(9)
EXPERT_FIELDS = ("face_up", "face_down", "hand_size", "finished", "top", "run", "pile_size", "direction", "pile")
EXPERT_COUNTER_MIN_PLAIN = 2  # agents/expert.py COUNTER_MIN_PLAIN
POLICY_GREEDY, POLICY_EXPERT, POLICY_RANDOM = range(3)  # rollout policies (random: uniform over legal actions)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def cards_left_nb(obs, off, j):
    """Cards relative seat j still holds (hand, face-up, face-down), from an observation."""
    c = np.int64(obs[off[OFF_HSIZE] + j]) + np.int64(obs[off[OFF_DOWN] + j])
    for r in range(R):
        c += obs[off[OFF_UP] + j * R + r]
    return c


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def expert_action_nb(s, g, params, mask, ids, nlegal, obs, off):
    """The ``expert`` agent's choice (agents/expert.py), in numba, for rollouts: the actor's observation is written
    to ``obs`` and the same named rules run on it in the same order, then ``greedy_action_nb``."""
    n = params[P_NPLAYERS]
    fam = params[P_FAMILY]
    observe_nb(s, g, np.int64(s.actor[g]), params, obs)
    # swap_best_to_table (seed 003 and fatality)
    if fam != FAM_OG and mask[A_READY] != 0:
        h, hk, u, uk, any_h = 0, -1e30, 0, 1e30, False
        for a in range(R):
            for b in range(R):
                if mask[A_SWAP + a * R + b] != 0:
                    any_h = True
                    if greedy_key_nb(a, params) > hk:
                        h, hk = a, greedy_key_nb(a, params)
                    if greedy_key_nb(b, params) < uk:
                        u, uk = b, greedy_key_nb(b, params)
        if any_h and hk > uk and mask[A_SWAP + h * R + u] != 0:
            return A_SWAP + h * R + u
        return A_READY
    # counter_a_joker_when_it_pays (seed 003): over a pile of at least EXPERT_COUNTER_MIN_PLAIN non-Jokers
    if fam == FAM_003 and mask[A_PASS] != 0:
        plain = 0
        for r in range(R):
            if r != RJOKER:
                plain += np.int64(obs[off[OFF_PILEC] + r])
        if mask[A_PLAY + RJOKER * MAXC] != 0 and plain >= EXPERT_COUNTER_MIN_PLAIN:
            return A_PLAY + RJOKER * MAXC
        return A_PASS
    # nominate_the_leader (seed 003)
    if fam == FAM_003 and mask[A_NOMINATE] != 0:
        step = 1 if obs[off[OFF_DIR]] >= 0 else -1
        best, best_k, k, j = np.int64(-1), 1, 0, 0
        for _ in range(n - 1):
            j = (j + step) % n
            if obs[off[OFF_FIN] + j] != 0:
                continue
            k += 1
            left = cards_left_nb(obs, off, j)
            if best < 0 or left < best:
                best, best_k = left, k
        return A_NOMINATE + best_k - 1
    # complete_a_burn (every family)
    top = 0
    for r in range(R + 1):
        if obs[off[OFF_TOP] + r] > obs[off[OFF_TOP] + top]:
            top = r
    if top < R and top != R5:
        cnt = 0
        for c in range(MAXC):
            cnt += mask[A_PLAY + top * MAXC + c]
        size = params[P_SET_SIZE] if params[P_FOUR_BURN] != 0 else 10**6
        if cnt > 0 and np.int64(obs[off[OFF_RUN]]) + cnt >= size:
            return A_PLAY + top * MAXC + cnt - 1
    if fam == FAM_OG:  # sabotage_with_a_3
        three = A_PLAY + R3 * MAXC
        if mask[three] != 0:
            nxt = cards_left_nb(obs, off, 1)
            leader = True
            for j in range(1, n):
                if cards_left_nb(obs, off, j) < nxt:
                    leader = False
            pile = np.int64(obs[off[OFF_PILE]])
            if (nxt <= 4 and pile >= 2) or (leader and pile >= 4):
                return three
    elif fam == FAM_FAT:
        # skip_the_leader
        eights = 0
        for c in range(MAXC):
            eights += mask[A_PLAY + R8 * MAXC + c]
        if eights > 0 and obs[off[OFF_FIN] + 1] == 0:
            nxt = cards_left_nb(obs, off, 1)
            leader = nxt <= 5
            for j in range(2, n):
                if obs[off[OFF_FIN] + j] == 0 and cards_left_nb(obs, off, j) < nxt:
                    leader = False
            if leader:
                return A_PLAY + R8 * MAXC + eights - 1
        # shed_face_up_along: the highest legal id from A_PLAY_UP on (the most face-up cards)
        for a in range(A_PICKUP_WITH - 1, A_PLAY_UP - 1, -1):
            if mask[a] != 0:
                return a
    return greedy_action_nb(s, g, params, mask, ids, nlegal)


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def rollout_nb(s, d, viewer, params, eps_milli, max_plies, mask, ids, policy, others, obs, off):
    """Play row d to its end (or ``max_plies`` more decisions): the viewer's decisions with ``policy``, everyone
    else's with ``others`` (POLICY_GREEDY, POLICY_EXPERT, which writes observations to ``obs``, or POLICY_RANDOM),
    each with a uniformly random legal action with probability eps_milli / 1000. Returns the reward ``viewer``
    collects on the way."""
    total = 0.0
    for _ in range(max_plies):
        if s.phase[d] == PH_OVER:
            break
        nl = legal_mask_nb(s, d, params, mask, ids)
        pol = policy if s.actor[d] == viewer else others
        if pol == POLICY_RANDOM or (eps_milli > 0 and rand_below_nb(s, d, 1000) < eps_milli):
            a = np.int64(ids[rand_below_nb(s, d, nl)])
        elif pol == POLICY_EXPERT:
            a = expert_action_nb(s, d, params, mask, ids, nl, obs, off)
        else:
            a = greedy_action_nb(s, d, params, mask, ids, nl)
        apply_nb(s, d, a, params)
        total += s.rewards[d, viewer]
    return total


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_one_nb(src, g, params, work, w0, budget, oracle, seed, eps_milli, max_plies, mask, ids, mask2, ids2, pool,
                  policy, others, obs, off):
    """Determinized Monte Carlo for game g's actor: every legal action is tried in the same ``n_det`` sampled
    worlds (common random numbers), each followed by a rollout with ``policy``; returns the action of highest mean
    reward.
    ``oracle`` skips the resampling: the rollouts see every hidden card and the draw pile's order."""
    viewer = np.int64(src.actor[g])
    nl = legal_mask_nb(src, g, params, mask, ids)
    if nl == 1:
        return np.int64(ids[0])
    n_det = max(1, budget // nl)
    best_a, best_v = np.int64(ids[0]), -1e30
    for i in range(nl):
        a = np.int64(ids[i])
        v = 0.0
        for k in range(n_det):
            copy_game_nb(src, g, work, w0)
            work.rng[w0] = splitmix64_nb(np.uint64(seed) + np.uint64(k) * np.uint64(7919))
            if not oracle:
                determinize_nb(work, w0, viewer, params, pool)
            apply_nb(work, w0, a, params)
            v += work.rewards[w0, viewer] + rollout_nb(work, w0, viewer, params, eps_milli, max_plies, mask2, ids2,
                                                       policy, others, obs, off)
        if v > best_v:
            best_a, best_v = a, v
    return best_a


@nb.njit(cache=True, _nrt=False, error_model="numpy")
def search_range_nb(src, games, lo, hi, params, work, budget, oracle, seeds, eps_milli, max_plies, mask, ids, mask2,
                    ids2, pool, policy, others, obs, off, out):
    for j in range(lo, hi):
        out[j] = search_one_nb(src, games[j], params, work, j, budget, oracle, seeds[j], eps_milli, max_plies,
                               mask[j], ids[j], mask2[j], ids2[j], pool[j], policy, others, obs[j], off)


@nb.njit(cache=True, parallel=True)
def batch_search_nb(nchunks, src, games, params, work, budget, oracle, seeds, eps_milli, max_plies, mask, ids, mask2,
                    ids2, pool, policy, others, obs, off, out):
    """Search the decisions of games[j] (one work row each), in chunks over the threads."""
    b = games.shape[0]
    nt = max(1, min(nchunks, b))
    size = (b + nt - 1) // nt
    for c in nb.prange(nt):
        search_range_nb(src, games, c * size, min(b, (c + 1) * size), params, work, budget, oracle, seeds, eps_milli,
                        max_plies, mask, ids, mask2, ids2, pool, policy, others, obs, off, out)
