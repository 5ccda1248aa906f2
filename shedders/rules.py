"""Rulesets as data: a frozen config of flags and numbers per ruleset, validated, turned into an int array.

``core``, ``south_african`` and every ``house`` combination are one engine reading different parameters.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from shedders.engine import palace as K

RULESETS = ("og", "fatality", "core", "south_african", "house", "omg")
IMPLEMENTED = ("core", "south_african", "house")
HOUSE_BASES = ("core", "south_african")

#: Toggles a ``house`` table may set through ``rules=``. The first nine are seed 003's special cards, then
#: pickup and the prison rules, then ``swap_phase`` (an extra of shedders: turn the setup swap phase off).
HOUSE_TOGGLES = (
    "reset_2",
    "mirror_5",
    "under_7",
    "burn_10",
    "skip_8",
    "reverse_q",
    "nominate_a",
    "jokers",
    "four_burn",
    "voluntary_pickup",
    "slap",
    "reverse_on_doubles",
    "losers_tax",
    "swap_phase",
)

PLAYER_RANGE = {"core": (2, 5), "south_african": (2, 6)}
DEFAULT_PLY_CAP = 5000


@dataclass(frozen=True)
class PalaceRules:
    """One palace-family ruleset. Every field is a rule of seed 003 (or a ruling) that the kernels read."""

    name: str
    num_players: int
    reset_2: bool = True  # 2 resets the pile; wild
    mirror_5: bool = True  # 5 copies the card beneath it; wild
    under_7: bool = True  # after a 7 the next play must be lower than 7, or a wild
    burn_10: bool = True  # 10 burns the pile and the player goes again; wild
    skip_8: bool = False  # k eights skip k players (at most max_skip)
    reverse_q: bool = False  # each queen flips the direction of play
    nominate_a: bool = False  # aces nominate a player who must answer with 2, 5, A or Joker, or eat
    jokers: bool = False  # two Jokers per deck, with the standoff power
    four_burn: bool = True  # four of a rank on top of the pile burn it, overriding powers
    voluntary_pickup: bool = True  # the pile may be picked up at any turn, not only when nothing is legal
    slap: bool = False  # prison: after a burn a random other player draws a penalty card
    reverse_on_doubles: bool = False  # prison: any play of exactly two cards reverses direction
    losers_tax: bool = False  # prison: across games of a Match, loser's best card <-> winner's worst
    swap_phase: bool = True  # setup: swap hand <-> face-up, then ready
    max_skip: int = 3
    set_size: int = 4
    num_decks: int = 1
    ply_cap: int = DEFAULT_PLY_CAP
    base: str | None = None  # house only: the ruleset it starts from

    @property
    def num_jokers(self) -> int:
        return 2 * self.num_decks if self.jokers else 0

    @property
    def num_cards(self) -> int:
        return 52 * self.num_decks + self.num_jokers

    def deck_counts(self) -> np.ndarray:
        """How many cards of each rank the deck holds."""
        c = np.full(K.R, 4 * self.num_decks, np.int64)
        c[K.RJOKER] = self.num_jokers
        return c

    def toggles(self) -> dict[str, bool]:
        return {t: getattr(self, t) for t in HOUSE_TOGGLES}

    def to_params(self) -> np.ndarray:
        p = np.zeros(K.N_PARAMS, np.int64)
        p[K.P_NPLAYERS] = self.num_players
        p[K.P_RESET_2] = self.reset_2
        p[K.P_MIRROR_5] = self.mirror_5
        p[K.P_UNDER_7] = self.under_7
        p[K.P_BURN_10] = self.burn_10
        p[K.P_SKIP_8] = self.skip_8
        p[K.P_REVERSE_Q] = self.reverse_q
        p[K.P_NOMINATE_A] = self.nominate_a
        p[K.P_JOKERS] = self.jokers
        p[K.P_FOUR_BURN] = self.four_burn
        p[K.P_VOLUNTARY_PICKUP] = self.voluntary_pickup
        p[K.P_SLAP] = self.slap
        p[K.P_REVERSE_ON_DOUBLES] = self.reverse_on_doubles
        p[K.P_SET_SIZE] = self.set_size
        p[K.P_MAX_SKIP] = self.max_skip
        p[K.P_NDECKS] = self.num_decks
        p[K.P_NJOKERS] = self.num_jokers
        p[K.P_PLY_CAP] = self.ply_cap
        p[K.P_SWAP_PHASE] = self.swap_phase
        return p


_SOUTH_AFRICAN = dict(skip_8=True, reverse_q=True, nominate_a=True, jokers=True)


def _check_choice(what: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; allowed: {', '.join(map(str, allowed))}")


def make_rules(
    ruleset: str,
    num_players: int = 4,
    *,
    base: str | None = None,
    rules: dict | None = None,
    ply_cap: int = DEFAULT_PLY_CAP,
) -> PalaceRules:
    """Validate the arguments of ``shedders.env`` and build the ruleset's config.

    Raises ``ValueError`` naming the bad value and the allowed ones.
    """
    _check_choice("ruleset", ruleset, RULESETS)
    if ruleset not in IMPLEMENTED:
        raise NotImplementedError(
            f"ruleset {ruleset!r} is not implemented yet; implemented: {', '.join(IMPLEMENTED)}"
        )
    if base is not None and ruleset != "house":
        raise ValueError(f"base= is accepted by 'house' only, not by {ruleset!r}")
    if rules and ruleset not in ("house", "fatality"):
        raise ValueError(f"rules= is accepted by 'house' and 'fatality' only, not by {ruleset!r}")
    if isinstance(ply_cap, bool) or not isinstance(ply_cap, (int, np.integer)) or not 1 <= ply_cap <= 30000:
        raise ValueError(f"ply_cap must be an integer in 1..30000, got {ply_cap!r}")
    family = ruleset
    fields: dict = {}
    if ruleset == "south_african":
        fields.update(_SOUTH_AFRICAN)
    if ruleset == "house":
        base = "core" if base is None else base
        _check_choice("house base", base, HOUSE_BASES)
        family = base
        if base == "south_african":
            fields.update(_SOUTH_AFRICAN)
        for name, value in (rules or {}).items():
            _check_choice("rule", name, HOUSE_TOGGLES)
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"rule {name!r} takes True or False, got {value!r}")
            fields[name] = bool(value)
    lo, hi = PLAYER_RANGE[family]
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be an integer in {lo}..{hi} for {ruleset!r}, got {num_players!r}")
    if not lo <= num_players <= hi:
        raise ValueError(f"bad num_players {num_players} for {ruleset!r}; allowed: {lo}..{hi}")
    rules = PalaceRules(name=ruleset, num_players=int(num_players), ply_cap=int(ply_cap), base=base, **fields)
    if rules.num_cards < 9 * rules.num_players:
        raise ValueError(
            f"bad num_players {num_players} for this deck: {num_players} players are dealt "
            f"{9 * num_players} cards but the deck holds {rules.num_cards}; allowed: {lo}..{rules.num_cards // 9}"
        )
    return rules


def replace(rules: PalaceRules, **changes) -> PalaceRules:
    return dataclasses.replace(rules, **changes)
