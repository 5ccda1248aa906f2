"""One record per ruleset: every fact about a ruleset that code outside the engine asks for, in one place.

``make_rules`` builds a ruleset's config from its record, and the tables other modules keep (``RULESETS``,
``PLAYER_RANGE``, ``PRESETS``, ``HOUSE_BASES``, the reward bounds and versions) are read off these records, so a
ruleset is described once. A name that is not registered is a ``ValueError`` listing the registered ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from shedders.rules.palace import FATALITY, FATALITY_TOGGLES, HOUSE_TOGGLES, OG, SOUTH_AFRICAN


@dataclass(frozen=True)
class Ruleset:
    """The facts of one ruleset.

    - ``family``: ``"palace"`` (hand, face-up and face-down cards, a pile to beat) or ``"omg"``.
    - ``players``: the player range, (lo, hi); a ruleset built on ``bases`` takes its base's.
    - ``preset``: the ``PalaceRules`` fields it sets over the defaults (core's rules).
    - ``toggles``: the rule names ``rules=`` accepts (each True or False); ``toggle_word`` names them in errors.
    - ``bases``: rulesets it may start from (``base=``, the first the default); their preset comes first.
    - ``two_decks_from``: from this many players the game uses two decks and sets of 5 (og, seed 000).
    - ``reward_bounds``: the least and most a seat can collect in one game.
    - ``version``: the env's ``_vN``, bumped with each change that alters play.
    """

    name: str
    family: str = "palace"
    players: tuple[int, int] | None = None
    preset: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    toggles: tuple[str, ...] = ()
    toggle_word: str = "rule"
    bases: tuple[str, ...] = ()
    two_decks_from: int | None = None
    reward_bounds: tuple[float, float] = (-1.0, 1.0)
    version: int = 0


def _frozen(fields: dict) -> MappingProxyType:
    return MappingProxyType(dict(fields))


#: every ruleset, in the order the package lists them
REGISTRY: dict[str, Ruleset] = {r.name: r for r in (
    Ruleset("og", players=(2, 8), preset=_frozen(OG), two_decks_from=6),
    Ruleset("fatality", players=(2, 6), preset=_frozen(FATALITY), toggles=FATALITY_TOGGLES,
            toggle_word="fatality rule"),
    Ruleset("core", players=(2, 5)),
    Ruleset("south_african", players=(2, 6), preset=_frozen(SOUTH_AFRICAN)),
    Ruleset("house", toggles=HOUSE_TOGGLES, bases=("core", "south_african"), version=1),
    Ruleset("omg", family="omg", players=(2, 8)),
)}


def lookup(name) -> Ruleset:
    """The record of ruleset ``name``; ``ValueError`` naming it and the registered ones otherwise."""
    record = REGISTRY.get(name) if isinstance(name, str) else None
    if record is None:
        raise ValueError(f"unknown ruleset {name!r}; allowed: {', '.join(REGISTRY)}")
    return record


def accepting(option: str) -> list[str]:
    """The rulesets that take ``option`` (``"rules"``, ``"base"`` or ``"deck"``), for error messages."""
    test = {"rules": lambda r: bool(r.toggles), "base": lambda r: bool(r.bases), "deck": lambda r: r.family == "omg"}
    return [r.name for r in REGISTRY.values() if test[option](r)]


def player_range(record: Ruleset, base: str | None = None) -> tuple[int, int]:
    """The player range of a ruleset (one built on bases: of ``base``, by default its first)."""
    if record.bases:
        return REGISTRY[base or record.bases[0]].players
    return record.players
