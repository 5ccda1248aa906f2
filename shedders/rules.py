"""Rulesets as data: a frozen config of flags and numbers per ruleset, validated, turned into an int array.

``core``, ``south_african`` and every ``house`` combination are one engine reading different parameters.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shedders.engine import palace as K
from shedders.omg_deck import DEFAULT_DECK, Deck, load_deck

RULESETS = ("og", "fatality", "core", "south_african", "house", "omg")
IMPLEMENTED = ("og", "fatality", "core", "south_african", "house", "omg")
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

#: fatality's starred tabletop rules (seed 002: "Some actions are not possible in the online version"), each on
#: by default: the swap phase, pickup with face-up cards, face-up cards joining the last hand cards, and a hand
#: of only 3s played as the top's rank.
FATALITY_TOGGLES = ("swap_phase", "pickup_with_up", "up_with_hand", "threes_as_top")

#: og: 2 players on one deck are shedders' extension (RULINGS); 6-8 players use two decks and full sets of 5.
PLAYER_RANGE = {"og": (2, 8), "fatality": (2, 6), "core": (2, 5), "south_african": (2, 6), "omg": (2, 8)}
FAMILY = {"core": K.FAM_003, "south_african": K.FAM_003, "og": K.FAM_OG, "fatality": K.FAM_FAT}
DEFAULT_PLY_CAP = 5000
#: how a game that reaches the ply cap ends (RULINGS): "truncate" (PettingZoo truncation: players still in get 0)
#: or "most_cards" (players still in are placed by the cards they hold, fewest first; the game is decided)
CAP_RULES = ("truncate", "most_cards")


@dataclass(frozen=True)
class PalaceRules:
    """One palace-family ruleset. Every field is a rule of a seed (or a ruling) that the kernels read."""

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
    up_with_hand: bool = False  # fatality*: face-up cards of rank r join a play of the last hand cards (all r)
    pickup_with_up: bool = False  # fatality*: with an empty hand, pick up face-up cards of one rank with the pile
    threes_as_top: bool = False  # fatality*: a hand of only 3s is played at once as the top's rank
    family: int = K.FAM_003  # which seed's rules: K.FAM_003, K.FAM_OG, K.FAM_FAT
    max_skip: int = 3
    set_size: int = 4
    num_decks: int = 1
    ply_cap: int = DEFAULT_PLY_CAP
    base: str | None = None  # house only: the ruleset it starts from
    cap_rule: str = "truncate"  # CAP_RULES: how a game at the ply cap ends

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
        p[K.P_FAMILY] = self.family
        p[K.P_UP_WITH_HAND] = self.up_with_hand
        p[K.P_PICKUP_WITH_UP] = self.pickup_with_up
        p[K.P_THREES_AS_TOP] = self.threes_as_top
        p[K.P_CAP_RULE] = CAP_RULES.index(self.cap_rule)
        return p


_SOUTH_AFRICAN = dict(skip_8=True, reverse_q=True, nominate_a=True, jokers=True)
# seed 000: 2 resets, 3 forces a pickup (family rule), 7 caps at 7, 10 burns, full sets burn, no voluntary pickup,
# no swap phase (the cover pick is og's setup).
_OG = dict(mirror_5=False, voluntary_pickup=False, swap_phase=False, family=K.FAM_OG)
# seed 002: 2, 3 and Jokers wild (family rule; the 2 does not reset), 7 caps at 7, k eights skip k players with
# no cap, 10 must beat the top and burns, four or more burn, forced play, 2 Jokers.
_FATALITY = dict(
    reset_2=False,
    mirror_5=False,
    skip_8=True,
    max_skip=99,
    jokers=True,
    voluntary_pickup=False,
    up_with_hand=True,
    pickup_with_up=True,
    threes_as_top=True,
    family=K.FAM_FAT,
)


@dataclass(frozen=True)
class OmgRules:
    """The omg ruleset (seed 001): the deck and the player count; every rule is the seed's (RULINGS settle it)."""

    num_players: int
    deck: Deck
    ply_cap: int = DEFAULT_PLY_CAP
    name: str = "omg"
    hand_size: int = 6  # seed 001 "give 6 cards to each player"
    cap_rule: str = "truncate"  # CAP_RULES: how a game at the ply cap ends

    @property
    def num_cards(self) -> int:
        return self.deck.num_cards

    def to_params(self) -> np.ndarray:
        from shedders.engine import omg as O

        p = np.zeros(O.N_PARAMS, np.int64)
        p[O.P_NPLAYERS] = self.num_players
        p[O.P_PLY_CAP] = self.ply_cap
        p[O.P_HAND] = self.hand_size
        p[O.P_NTYPES] = self.deck.num_types
        p[O.P_CAP_RULE] = CAP_RULES.index(self.cap_rule)
        return p


def _check_choice(what: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; allowed: {', '.join(map(str, allowed))}")


def _toggles(rules: dict | None, what: str, allowed) -> dict:
    """``rules=`` checked against the ruleset's toggle names, each True or False."""
    out = {}
    for name, value in (rules or {}).items():
        _check_choice(what, name, allowed)
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"rule {name!r} takes True or False, got {value!r}")
        out[name] = bool(value)
    return out


def make_rules(
    ruleset: str,
    num_players: int = 4,
    *,
    base: str | None = None,
    rules: dict | None = None,
    ply_cap: int = DEFAULT_PLY_CAP,
    deck=None,
    cap_rule: str = "truncate",
) -> PalaceRules | OmgRules:
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
    if deck is not None and ruleset != "omg":
        raise ValueError(f"deck= is accepted by 'omg' only, not by {ruleset!r}")
    if not isinstance(cap_rule, str) or cap_rule not in CAP_RULES:
        raise ValueError(f"unknown cap_rule {cap_rule!r}; allowed: {', '.join(CAP_RULES)}")
    if ruleset == "omg":
        lo, hi = PLAYER_RANGE["omg"]
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ValueError(f"num_players must be an integer in {lo}..{hi} for 'omg', got {num_players!r}")
        if not lo <= num_players <= hi:
            raise ValueError(f"bad num_players {num_players} for 'omg'; allowed: {lo}..{hi}")
        d = deck if isinstance(deck, Deck) else load_deck(deck)
        if d.num_cards < 6 * num_players + 1:
            raise ValueError(f"bad num_players {num_players} for this deck: {num_players} hands of 6 and the "
                             f"opening card need {6 * num_players + 1} cards, the deck holds {d.num_cards}")
        return OmgRules(num_players=int(num_players), deck=d, ply_cap=int(ply_cap), cap_rule=cap_rule)
    family = ruleset
    fields: dict = {}
    if ruleset == "south_african":
        fields.update(_SOUTH_AFRICAN)
    if ruleset == "og":
        fields.update(_OG)
    if ruleset == "fatality":
        fields.update(_FATALITY)
        fields.update(_toggles(rules, "fatality rule", FATALITY_TOGGLES))
    if ruleset == "house":
        base = "core" if base is None else base
        _check_choice("house base", base, HOUSE_BASES)
        family = base
        if base == "south_african":
            fields.update(_SOUTH_AFRICAN)
        fields.update(_toggles(rules, "rule", HOUSE_TOGGLES))
    lo, hi = PLAYER_RANGE[family]
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be an integer in {lo}..{hi} for {ruleset!r}, got {num_players!r}")
    if not lo <= num_players <= hi:
        raise ValueError(f"bad num_players {num_players} for {ruleset!r}; allowed: {lo}..{hi}")
    if ruleset == "og" and num_players >= 6:
        fields.update(num_decks=2, set_size=5)  # seed 000: two decks, "a full set requires 5 cards"
    rules = PalaceRules(name=ruleset, num_players=int(num_players), ply_cap=int(ply_cap), base=base,
                        cap_rule=cap_rule, **fields)
    if rules.num_cards < 9 * rules.num_players:
        raise ValueError(
            f"bad num_players {num_players} for this deck: {num_players} players are dealt "
            f"{9 * num_players} cards but the deck holds {rules.num_cards}; allowed: {lo}..{rules.num_cards // 9}"
        )
    return rules


def replace(rules: PalaceRules, **changes) -> PalaceRules:
    return dataclasses.replace(rules, **changes)


def env_kwargs(rules) -> dict:
    """The keyword arguments of ``shedders.env`` / ``make_rules`` that rebuild ``rules`` (for replays and logs):
    ``make_rules(rules.name, rules.num_players, **env_kwargs(rules)) == rules``."""
    out: dict = {}
    if rules.name == "omg" and Path(rules.deck.source) != DEFAULT_DECK:
        out["deck"] = rules.deck.source
    if rules.name == "house":
        out["base"] = rules.base
        out["rules"] = rules.toggles()
    elif rules.name == "fatality":
        out["rules"] = {t: getattr(rules, t) for t in FATALITY_TOGGLES}
    if rules.ply_cap != DEFAULT_PLY_CAP:
        out["ply_cap"] = rules.ply_cap
    if rules.cap_rule != "truncate":
        out["cap_rule"] = rules.cap_rule
    return out
