"""Seeded games replay exactly as recorded in tests/golden (regenerate with tests/golden_playthroughs.py)."""

import pytest
from golden_playthroughs import CASES, path, playthrough


@pytest.mark.parametrize("ruleset,n,kwargs,seed", CASES)
def test_golden_playthrough(ruleset, n, kwargs, seed):
    expected = path(ruleset, n, seed).read_text()
    assert playthrough(ruleset, n, kwargs, seed) == expected
