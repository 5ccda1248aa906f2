"""omg as data: the deck (a CSV file with one card per row: god, color, number, power), the parameter
array the kernels read, and ``OmgRules``.

The deck: a CSV file with one card per row (god, color, number, power).

The default deck, ``shedders/data/omg_deck.csv``, is the spread docs/rulings.md settles (R-OMG-DECK) (the published
game does not
list it): 12 gods x 8 cards, two of each color per god; Zeus, Athena, Demeter, Aphrodite, Hestia and Hermes have
2 and 4 in Fire and Wave and 1 and 3 in Leaf and Thunder, the other six gods the other way round; a god's two
cards numbered as the seed's "Card number N" carry its power. Pass ``deck=PATH`` to ``shedders.env("omg", ...)``
to play another spread; a malformed file is refused with a ``ValueError`` naming the line.
"""

from __future__ import annotations

import csv
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shedders.rules.common import CAP_RULES, DEFAULT_PLY_CAP

#: gods in the seed's order; index = god id
GODS = ("Zeus", "Ares", "Athena", "Artemis", "Demeter", "Apollo", "Aphrodite", "Hephaestus", "Hestia", "Poseidon",
        "Hera", "Hermes")
COLORS = ("Fire", "Leaf", "Wave", "Thunder")
MAX_NUMBER = 9
HAND_SIZE = 6  # seed 001 "give 6 cards to each player"
# Parameter array layout (OmgRules.to_params writes it; the kernels read params[P_*]).
P_NPLAYERS, P_PLY_CAP, P_HAND, P_NTYPES, P_CAP_RULE = range(5)
N_PARAMS = 5
CAP_TRUNCATE, CAP_MOST_CARDS = range(2)  # the order of CAP_RULES
DEFAULT_DECK = Path(__file__).parents[1] / "data" / "omg_deck.csv"
MAX_DECK_BYTES = 64 * 1024  # a deck of 127 cards is about 3 kB


@dataclass(frozen=True)
class Deck:
    """Distinct card types and how many copies of each the deck holds."""

    god: tuple[int, ...]
    color: tuple[int, ...]
    number: tuple[int, ...]
    power: tuple[bool, ...]
    count: tuple[int, ...]
    source: str

    @property
    def num_types(self) -> int:
        return len(self.god)

    @property
    def num_cards(self) -> int:
        return sum(self.count)

    def name(self, t: int) -> str:
        """``"Hera Fire 3*"``: god, color, number, and ``*`` when the card carries its god's power."""
        return f"{GODS[self.god[t]]} {COLORS[self.color[t]]} {self.number[t]}{'*' if self.power[t] else ''}"

    def names(self) -> list[str]:
        return [self.name(t) for t in range(self.num_types)]

    def table(self) -> np.ndarray:
        """(T, 4) int64: god, color, number, power per type, for the kernels."""
        return np.array([self.god, self.color, self.number, [int(p) for p in self.power]], np.int64).T.copy()


def load_deck(path: str | Path | None = None) -> Deck:
    """Read and validate a deck file (default: the shipped deck)."""
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"deck must be the path of a deck file, got {type(path).__name__}")
    path = Path(path) if path is not None else DEFAULT_DECK
    try:
        # a regular file of deck size only: a device (/dev/zero), a FIFO or /proc's files are refused unread
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"the OMG deck {str(path)!r} is not a regular file")
        if info.st_size > MAX_DECK_BYTES:
            raise ValueError(f"the OMG deck file {str(path)!r} is {info.st_size} bytes; a deck file holds at most "
                             f"{MAX_DECK_BYTES}")
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"cannot read the OMG deck file {str(path)!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"the OMG deck file {str(path)!r} is not UTF-8 text") from None
    lines = [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip() and not line.startswith("#")]
    if not lines:
        raise ValueError(f"{path}: the deck file is empty")
    header_line, header = lines[0]
    fields = [h.strip() for h in next(csv.reader([header]))]
    if fields != ["god", "color", "number", "power"]:
        # the line is not quoted back: a path that names another file must not show what it holds
        raise ValueError(f"{path}:{header_line}: not an OMG deck file: its first line must be the header "
                         f"'god,color,number,power'")
    counts: dict[tuple, int] = {}
    for i, line in lines[1:]:
        row = [c.strip() for c in next(csv.reader([line]))]
        if len(row) != 4:
            raise ValueError(f"{path}:{i}: expected 4 fields (god,color,number,power), got {len(row)}")
        god, color, number, power = row
        if god not in GODS:
            raise ValueError(f"{path}:{i}: unknown god {god!r}; allowed: {', '.join(GODS)}")
        if color not in COLORS:
            raise ValueError(f"{path}:{i}: unknown color {color!r}; allowed: {', '.join(COLORS)}")
        if not number.isdigit() or not 1 <= int(number) <= MAX_NUMBER:
            raise ValueError(f"{path}:{i}: number must be an integer in 1..{MAX_NUMBER}, got {number!r}")
        if power not in ("0", "1"):
            raise ValueError(f"{path}:{i}: power must be 0 or 1, got {power!r}")
        key = (GODS.index(god), COLORS.index(color), int(number), power == "1")
        counts[key] = counts.get(key, 0) + 1
    if sum(counts.values()) < 2 * 6 + 1:
        raise ValueError(f"{path}: the deck holds {sum(counts.values())} cards; at least 13 are needed (two hands "
                         f"of 6 and the opening card)")
    if sum(counts.values()) > 127:
        raise ValueError(f"{path}: the deck holds {sum(counts.values())} cards; at most 127 are supported")
    keys = sorted(counts)
    return Deck(god=tuple(k[0] for k in keys), color=tuple(k[1] for k in keys), number=tuple(k[2] for k in keys),
                power=tuple(k[3] for k in keys), count=tuple(counts[k] for k in keys), source=str(path))


@dataclass(frozen=True)
class OmgRules:
    """The omg ruleset (seed 001): the deck and the player count; every rule is the seed's (docs/rulings.md
    settles the open points)."""

    num_players: int
    deck: Deck
    ply_cap: int = DEFAULT_PLY_CAP
    name: str = "omg"
    hand_size: int = HAND_SIZE  # seed 001 "give 6 cards to each player"
    cap_rule: str = "truncate"  # CAP_RULES: how a game at the ply cap ends

    @property
    def num_cards(self) -> int:
        return self.deck.num_cards

    def to_params(self) -> np.ndarray:
        p = np.zeros(N_PARAMS, np.int64)
        p[P_NPLAYERS] = self.num_players
        p[P_PLY_CAP] = self.ply_cap
        p[P_HAND] = self.hand_size
        p[P_NTYPES] = self.deck.num_types
        p[P_CAP_RULE] = CAP_RULES.index(self.cap_rule)
        return p
