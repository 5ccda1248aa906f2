"""The palace engine's layout: constants, phases, action ids, the state arrays and the observation layout.

Every layer above the engine takes its constants and action ids from here (and the ranks and the parameter
layout from ``shedders.rules.palace``, re-exported here), never from a kernel module. Nothing here is compiled.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

# Ranks (index order is the rank order), the rule families and the parameter layout are the rules' data.
from shedders.rules.palace import (  # noqa: F401  (re-exported: the layout every layer reads)
    CAP_MOST_CARDS,
    CAP_TRUNCATE,
    FAM_003,
    FAM_FAT,
    FAM_OG,
    N_PARAMS,
    N_PLAIN,
    P_BURN_10,
    P_CAP_RULE,
    P_FAMILY,
    P_FOUR_BURN,
    P_MAX_SKIP,
    P_MIRROR_5,
    P_NDECKS,
    P_NJOKERS,
    P_NOMINATE_A,
    P_NPLAYERS,
    P_PICKUP_WITH_UP,
    P_PLY_CAP,
    P_RESET_2,
    P_REVERSE_ON_DOUBLES,
    P_REVERSE_Q,
    P_SET_SIZE,
    P_SKIP_8,
    P_SLAP,
    P_SWAP_PHASE,
    P_THREES_AS_TOP,
    P_UNDER_7,
    P_UP_WITH_HAND,
    P_VOLUNTARY_PICKUP,
    R2,
    R3,
    R4,
    R5,
    R6,
    R7,
    R8,
    R9,
    R10,
    RA,
    RANK_NAMES,
    RJ,
    RJOKER,
    RK,
    RQ,
    R,
)

MAXC = 8  # most cards of one rank in one play (two decks hold 8 of a rank)
MAXP = 8  # most seats any palace ruleset seats
N_DOWN = 3  # face-down cards per player (seed 003 "3 face down")
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
N_RULES = 4

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
UP_STRIDE = UP_K * UP_K  # ids per rank of "play kxR +mup"
A_PLAY_UP = A_NOMINATE + MAXP - 1  # + rank * UP_STRIDE + (k - 1) * UP_K + (m - 1)
AS_K = 2  # fatality "play kxJOKER as R": k = 1..2 Jokers standing for a rank
A_PLAY_AS = A_PLAY_UP + N_PLAIN * UP_STRIDE  # + named_rank * AS_K + (k - 1)
THREES_K = 4  # fatality "play kx3 as R +mup": k = 1..4 threes, m = 0..3 face-up cards of rank R
THREES_M = 4  # m = 0..3 face-up cards along
THREES_STRIDE = THREES_K * THREES_M  # ids per named rank of "play kx3 as R +mup"
A_THREES_AS = A_PLAY_AS + N_PLAIN * AS_K  # + named_rank * THREES_STRIDE + (k - 1) * THREES_M + m
A_PICKUP_WITH = A_THREES_AS + N_PLAIN * THREES_STRIDE  # + rank: fatality, pick up with the face-up cards of a rank
A_COVER = A_PICKUP_WITH + R  # + rank: og setup, move a card of the six to face-up
A_SNEAK = A_COVER + R  # + rank * MAXC + count - 1: og, sneak that many of the rank just played
N_ACTIONS = A_SNEAK + R * MAXC


PalaceState = namedtuple(
    "PalaceState",
    [
        "hand",  # int8 (B, P, R): rank counts in hand
        "face_up",  # int8 (B, P, R): rank counts face up
        "face_down",  # int8 (B, P, N_DOWN): ranks face down, -1 empty; flipped first slot first
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
        face_down=np.full((b, p, N_DOWN), -1, np.int8),
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
        ("rule", N_RULES, ("pile constraint, one-hot: any, at least top, under 7 (seed 003), 7 or lower (og, "
                          "fatality)")),
        ("run", 1, "how many cards of the top card's rank lie on top"),
        ("pile", R, "pile contents, count per rank (public)"),
        ("pile_size", 1, "cards in the pile"),
        ("deck_size", 1, "cards in the draw pile"),
        ("out", R, "out-of-play counts per rank"),
        ("direction", 1, "1 clockwise, -1 counter-clockwise"),
        ("turn", p, "relative seat whose turn it is, one-hot"),
        ("target", p, "relative seat nominated or punished by a Joker, one-hot (zeros: none)"),
        ("top_by", p, "relative seat that played the pile's top card, one-hot (zeros: empty pile)"),
        ("last", R + 1, ("rank of the last play, as it stood for, one-hot (og: the rank a sneak offer is for); "
                        "last slot: none yet")),
        ("out_of_turn", 1, "og: 1 while a sneaker opens a fresh pile out of turn"),
    ]


def observation_size(num_players: int) -> int:
    return sum(size for _, size, _ in observation_layout(num_players))
