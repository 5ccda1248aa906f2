"""The search's ``copy_game_nb`` (each family's) copies every field of the engine state: a field it missed would
be missing, silently, from every sampled world of every search."""

from __future__ import annotations

import numpy as np
import pytest

import shedders
from shedders.engine.search import omg_search, palace_search

LENGTHS = {"pile_len": "pile", "deck_len": "deck"}  # a length field and the array it counts


@pytest.mark.parametrize("ruleset,copy", [("core", palace_search.copy_game_nb), ("omg", omg_search.copy_game_nb)])
def test_copy_game_copies_every_state_field(ruleset, copy):
    """Row 1 filled with random values in every field (each length at its array's capacity, so whole arrays are
    in play), copied into row 2: every field of row 2 then equals row 1's, field by field by name."""
    vg = shedders.VectorGame(ruleset, 3, 4, seed=0)
    vg.reset()
    s = vg.state
    rng = np.random.default_rng(0)
    for name, a in zip(s._fields, s):
        if name in LENGTHS:
            a[1] = getattr(s, LENGTHS[name]).shape[1]
        elif a.dtype == np.bool_:
            a[1] = rng.integers(0, 2, a[1].shape).astype(bool)
        elif np.issubdtype(a.dtype, np.floating):
            a[1] = rng.normal(size=a[1].shape)
        else:
            a[1] = rng.integers(1, 100, a[1].shape)
        a[2] = 0 if a.dtype != np.bool_ else False
    copy(s, 1, s, 2)
    missed = [name for name, a in zip(s._fields, s) if not np.array_equal(a[2], a[1])]
    assert missed == []
