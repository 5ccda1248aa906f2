"""What the palace and omg scenario loaders share: building a scenario in a scratch game and committing it whole,
and the checks of plain values (flags, small integers, card lists) that name the key they refuse."""

from __future__ import annotations

import numpy as np

#: a value of the wrong type met deep in a loader (a list where a card goes, a string for a dict): refused as
#: ValueError like every other bad scenario, naming the error
WRONG_TYPE = (TypeError, AttributeError, KeyError, IndexError, OverflowError)


def build_checked(build, scratch, rules, sc: dict):
    """``build(scratch, 0, rules, sc)`` into the one-game ``scratch`` state; returns it. Any error of a wrong type
    becomes a ``ValueError``; nothing outside ``scratch`` is written."""
    try:
        build(scratch, 0, rules, sc)
    except WRONG_TYPE as e:
        raise ValueError(f"malformed scenario: {type(e).__name__}: {e}") from None
    return scratch


def commit(s, g: int, t) -> None:
    """Copy the one-game state ``t`` (checked by a loader's ``parse``) into row ``g`` of ``s``, all but the random
    stream, which the caller seeds."""
    for name, dst, src in zip(t._fields, s, t):
        if name != "rng":
            dst[g] = src[0]


def flag(value, where: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{where} must be True or False, got {value!r}")
    return bool(value)


def small_int(value, lo: int, hi: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{where} must be an integer in {lo}..{hi}, got {value!r}")
    return int(value)


def card_list(value, where: str) -> list:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{where} must be a list of cards, got {value!r}")
    return list(value)


def seat(value, n: int, what: str, allow_none: bool = False) -> int:
    """A seat in 0..n-1 (``allow_none``: None is -1, no seat)."""
    if value is None and allow_none:
        return -1
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < n:
        raise ValueError(f"{what} must be a seat in 0..{n - 1}, got {value!r}")
    return int(value)


def unknown_key(sc: dict, known) -> None:
    """``ValueError`` naming the first key of scenario ``sc`` not in ``known`` (a typo such as ``"direciton"``, or
    an env option such as ``ply_cap`` put inside the scenario)."""
    for key in sc:
        if key not in known:
            hint = " (an env option: pass it to the env, not in the scenario)" if key in ENV_OPTIONS else ""
            raise ValueError(f"unknown scenario key {key!r}{hint}; keys: {', '.join(known)}")


ENV_OPTIONS = ("ply_cap", "cap_rule", "base", "rules", "deck", "num_players", "render_mode")
