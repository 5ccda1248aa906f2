"""The omg engine's layout: gods, phases, the named action bases, the state arrays and the observation layout.

Cards are types t in 0..T-1 from the deck file (``shedders.rules.omg``); ``cards[t]`` = (god, color, number,
power). Hands are counts per type; the deck and the pile are stacks of types (the deck's top is its last entry,
the pile's top its last entry). Every layer above the engine takes its constants and action bases from here.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np

from shedders.rules.omg import (  # noqa: F401  (re-exported: the layout every layer reads)
    CAP_MOST_CARDS,
    CAP_TRUNCATE,
    COLORS,
    GODS,
    MAX_NUMBER,
    N_PARAMS,
    P_CAP_RULE,
    P_HAND,
    P_NPLAYERS,
    P_NTYPES,
    P_PLY_CAP,
)

# gods, in the order of shedders.rules.omg.GODS
(ZEUS, ARES, ATHENA, ARTEMIS, DEMETER, APOLLO, APHRODITE, HEPHAESTUS, HESTIA, POSEIDON, HERA,
 HERMES) = range(len(GODS))
N_GODS = len(GODS)
N_COLORS = len(COLORS)
MAXN = MAX_NUMBER  # numbers 1..9
MAXP = 8
N_ATTRS = 3  # Apollo: number, color, god
CGOD, CCOLOR, CNUM, CPOWER = 0, 1, 2, 3

# phases
PH_PLAY, PH_TARGET, PH_CHOOSE, PH_DISCARD, PH_GIVE, PH_OVER = range(6)
PHASE_NAMES = ("play", "target", "choose", "discard", "give", "over")
KIND_WAITING = 6
N_KINDS = 7

# what a CHOOSE phase or a discard filter is about
F_NONE, F_NUMBER, F_COLOR, F_GOD, F_ATTR = range(5)


def action_layout(num_types: int) -> dict[str, int]:
    """Base id of each action kind, for a deck of ``num_types`` card types."""
    out = {}
    o = 0
    for name, size in (("play", num_types), ("target", MAXP - 1), ("number", MAXN), ("color", N_COLORS),
                       ("god", N_GODS), ("attribute", N_ATTRS), ("discard", num_types), ("stop", 1),
                       ("give", MAXP - 1)):
        out[name] = o
        o += size
    out["n_actions"] = o
    return out


#: the order of ``layout_array``: the kernels read the base id of kind k as ``lay[L_<KIND>]``
LAYOUT_KINDS = ("play", "target", "number", "color", "god", "attribute", "discard", "stop", "give")
L_PLAY, L_TARGET, L_NUMBER, L_COLOR, L_GOD, L_ATTRIBUTE, L_DISCARD, L_STOP, L_GIVE = range(len(LAYOUT_KINDS))


def layout_array(num_types: int) -> np.ndarray:
    """The action bases of ``action_layout`` as the int64 array the kernels read, in ``LAYOUT_KINDS`` order."""
    lay = action_layout(num_types)
    return np.array([lay[k] for k in LAYOUT_KINDS], np.int64)


class OmgTables(NamedTuple):
    """The deck's tables every omg entry point reads (``make_tables``)."""

    counts: np.ndarray  # int64 (T,): copies of each card type in the deck
    cards: np.ndarray  # int64 (T, 4): each type's god, color, number and power (``Deck.table()``)
    lay: np.ndarray  # int64: the action bases (``layout_array``)


def make_tables(deck) -> OmgTables:
    """The ``OmgTables`` of a ``shedders.rules.omg.Deck``."""
    return OmgTables(np.asarray(deck.count, np.int64), deck.table(), layout_array(deck.num_types))


OmgState = namedtuple(
    "OmgState",
    [
        "hand",  # int16 (B, P, T): counts per card type
        "hsize",  # int16 (B, P)
        "deck",  # int16 (B, C): types, top = deck[deck_len - 1]
        "deck_len",  # int16 (B,)
        "pile",  # int16 (B, C): types, top = pile[pile_len - 1]
        "pile_len",  # int16 (B,)
        "turn",  # int8 (B,): whose turn it is (and who decides)
        "phase",  # int8 (B,)
        "power",  # int8 (B,): the god whose power is resolving, -1 none
        "fkind",  # int8 (B,): F_* of the pending choice / discard filter
        "fval",  # int8 (B,): the chosen number / color / god
        "left",  # int8 (B,): discards left (or Hera's cards left to give)
        "upto",  # int8 (B,): 1 when the discards are "up to" (stop allowed)
        "skip",  # int8 (B, P): 1 = loses the next turn (Aphrodite)
        "revealed",  # int16 (B,): Apollo's revealed card type while it is the deck's top, else -1
        "winner",  # int8 (B,)
        "plies",  # int16 (B,)
        "terminated",  # bool (B,)
        "truncated",  # bool (B,)
        "rewards",  # float32 (B, P): the last step's rewards
        "rng",  # uint64 (B,)
    ],
)


def alloc_state(b: int, n: int, num_types: int, num_cards: int) -> OmgState:
    c = num_cards + 1
    return OmgState(
        hand=np.zeros((b, n, num_types), np.int16),
        hsize=np.zeros((b, n), np.int16),
        deck=np.zeros((b, c), np.int16),
        deck_len=np.zeros(b, np.int16),
        pile=np.zeros((b, c), np.int16),
        pile_len=np.zeros(b, np.int16),
        turn=np.zeros(b, np.int8),
        phase=np.zeros(b, np.int8),
        power=np.full(b, -1, np.int8),
        fkind=np.zeros(b, np.int8),
        fval=np.zeros(b, np.int8),
        left=np.zeros(b, np.int8),
        upto=np.zeros(b, np.int8),
        skip=np.zeros((b, n), np.int8),
        revealed=np.full(b, -1, np.int16),
        winner=np.full(b, -1, np.int8),
        plies=np.zeros(b, np.int16),
        terminated=np.zeros(b, np.bool_),
        truncated=np.zeros(b, np.bool_),
        rewards=np.zeros((b, n), np.float32),
        rng=np.zeros(b, np.uint64),
    )


# ----------------------------------------------------------------------------------------------------------------
# Observation
# ----------------------------------------------------------------------------------------------------------------
def observation_layout(num_players: int, num_types: int) -> list[tuple[str, int, str]]:
    """(name, size, meaning) of each slice of the observation vector; seats are relative to the observer."""
    n, t = num_players, num_types
    return [
        ("kind", N_KINDS, ("decision kind: play, target, choose, discard, give, over, or waiting (not the "
                          "observer's)")),
        ("power", N_GODS, "the god whose power is resolving (one-hot; all 0: none)"),
        ("choice", 5, "what the pending choice or discard filter is about: none, number, color, god, attribute"),
        ("chosen_number", MAXN, "the chosen number, 1..9 (one-hot)"),
        ("chosen_color", N_COLORS, "the chosen color (one-hot)"),
        ("chosen_god", N_GODS, "the chosen god (one-hot)"),
        ("left", 1, "discards left, or Hera's penalty cards left to give"),
        ("may_stop", 1, "1 when the discards are 'up to' (stop is legal)"),
        ("hand", t, "own hand: count per card type"),
        ("top", t, "the pile's top card (one-hot by type)"),
        ("top_god", N_GODS, "the top card's god"),
        ("top_color", N_COLORS, "the top card's color"),
        ("top_number", MAXN, "the top card's number"),
        ("pile", t, "the pile: count per card type (every card in it is face up)"),
        ("pile_powers", N_GODS, "powered cards in the pile, per god"),
        ("hermes_copies", N_GODS + 1, "the power a Hermes would copy now (one-hot; last entry: none)"),
        ("hand_sizes", n, "hand size per seat, relative (0 = observer)"),
        ("deck_size", 1, "cards in the deck"),
        ("pile_size", 1, "cards in the pile"),
        ("revealed", t, "Apollo's revealed card while it is the deck's top (one-hot by type)"),
        ("skips", n, "seats that lose their next turn, relative"),
        ("turn", n, "whose turn it is, relative (one-hot)"),
    ]


def observation_size(num_players: int, num_types: int) -> int:
    return sum(size for _, size, _ in observation_layout(num_players, num_types))
