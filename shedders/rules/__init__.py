"""Rulesets as data: a frozen config of flags and numbers per ruleset, validated, turned into an int array.

``core``, ``south_african`` and every ``house`` combination are one engine reading different parameters.
``shedders.rules.palace`` holds the palace family (ranks, the parameter layout, ``PalaceRules``, the presets),
``shedders.rules.omg`` omg (the deck file, ``OmgRules``); this module validates ``shedders.env``'s arguments.
Nothing in this package imports numba.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shedders.rules.common import CAP_RULES, DEFAULT_PLY_CAP
from shedders.rules.omg import DEFAULT_DECK, HAND_SIZE, Deck, OmgRules, load_deck
from shedders.rules.palace import FATALITY_TOGGLES, HOUSE_TOGGLES, PalaceRules
from shedders.rules.registry import REGISTRY, Ruleset, accepting, lookup, player_range

__all__ = [
    "CAP_RULES",
    "DEFAULT_PLY_CAP",
    "FATALITY_TOGGLES",
    "HOUSE_BASES",
    "HOUSE_TOGGLES",
    "OMG_PLAYER_RANGE",
    "PLAYER_RANGE",
    "PRESETS",
    "REGISTRY",
    "RULESETS",
    "OmgRules",
    "PalaceRules",
    "Ruleset",
    "env_kwargs",
    "lookup",
    "make_rules",
]

# The tables other modules read, each read off the registry's records.
RULESETS = tuple(REGISTRY)
#: the palace rulesets' player ranges (a ruleset built on bases takes its base's)
PLAYER_RANGE = {r.name: r.players for r in REGISTRY.values() if r.family == "palace" and not r.bases}
#: each palace ruleset's fields over PalaceRules' defaults (core's); house starts from its base
PRESETS = {r.name: dict(r.preset) for r in REGISTRY.values() if r.family == "palace" and not r.bases}
HOUSE_BASES = REGISTRY["house"].bases
OMG_PLAYER_RANGE = REGISTRY["omg"].players


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
    **unknown,
) -> PalaceRules | OmgRules:
    """Validate the arguments of ``shedders.env`` and build the ruleset's config.

    Raises ``ValueError`` naming the bad value and the allowed ones (an unknown option too).
    """
    if unknown:
        raise ValueError(f"unknown option {next(iter(unknown))!r}; options: base, rules, ply_cap, deck, cap_rule")
    record = lookup(ruleset)
    for option, given in (("base", base is not None), ("rules", bool(rules)), ("deck", deck is not None)):
        if given and ruleset not in accepting(option):
            names = " and ".join(map(repr, accepting(option)))
            raise ValueError(f"{option}= is accepted by {names} only, not by {ruleset!r}")
    if isinstance(ply_cap, bool) or not isinstance(ply_cap, (int, np.integer)) or not 1 <= ply_cap <= 30000:
        raise ValueError(f"ply_cap must be an integer in 1..30000, got {ply_cap!r}")
    if not isinstance(cap_rule, str) or cap_rule not in CAP_RULES:
        raise ValueError(f"unknown cap_rule {cap_rule!r}; allowed: {', '.join(CAP_RULES)}")
    if record.bases:
        base = record.bases[0] if base is None else base
        _check_choice(f"{ruleset} base", base, record.bases)
    lo, hi = player_range(record, base)
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
        raise ValueError(f"num_players must be an integer in {lo}..{hi} for {ruleset!r}, got {num_players!r}")
    if not lo <= num_players <= hi:
        raise ValueError(f"bad num_players {num_players} for {ruleset!r}; allowed: {lo}..{hi}")
    if record.family == "omg":
        return _omg_rules(num_players, ply_cap, deck, cap_rule)
    return _palace_rules(record, int(num_players), ply_cap, base, rules, cap_rule)


def _omg_rules(num_players: int, ply_cap: int, deck, cap_rule: str) -> OmgRules:
    d = deck if isinstance(deck, Deck) else load_deck(deck)
    if d.num_cards < HAND_SIZE * num_players + 1:
        raise ValueError(f"bad num_players {num_players} for this deck: {num_players} hands of 6 and the "
                         f"opening card need {6 * num_players + 1} cards, the deck holds {d.num_cards}")
    return OmgRules(num_players=int(num_players), deck=d, ply_cap=int(ply_cap), cap_rule=cap_rule)


def _palace_rules(record: Ruleset, num_players: int, ply_cap: int, base, rules, cap_rule: str) -> PalaceRules:
    """A palace ruleset's config: its base's preset (if it has bases), its own preset, then its toggles."""
    fields: dict = {}
    if record.bases:
        fields.update(REGISTRY[base].preset)
    fields.update(record.preset)
    if record.toggles:
        fields.update(_toggles(rules, record.toggle_word, record.toggles))
    if record.two_decks_from is not None and num_players >= record.two_decks_from:
        fields.update(num_decks=2, set_size=5)  # seed 000: two decks, "a full set requires 5 cards"
    config = PalaceRules(name=record.name, num_players=num_players, ply_cap=int(ply_cap),
                         base=base if record.bases else None, cap_rule=cap_rule, **fields)
    if config.num_cards < 9 * num_players:
        raise ValueError(
            f"bad num_players {num_players} for this deck: {num_players} players are dealt "
            f"{9 * num_players} cards but the deck holds {config.num_cards}; allowed: "
            f"{player_range(record, base)[0]}..{config.num_cards // 9}"
        )
    return config


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
