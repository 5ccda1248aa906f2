"""Seeded games replay exactly as recorded in tests/golden (regenerate with tests/golden_playthroughs.py)."""

import pytest
from golden_playthroughs import CASES, path, playthrough


@pytest.mark.parametrize("ruleset,n,kwargs,seed", CASES)
def test_golden_playthrough(ruleset, n, kwargs, seed):
    expected = path(ruleset, n, seed).read_text()
    assert playthrough(ruleset, n, kwargs, seed) == expected


def test_golden_search_decisions():
    """Every kind of search decides as recorded (tests/golden_search.py): a faster kernel chooses the same."""
    import json

    from golden_search import CASES, GOLDEN, decisions, key

    expected = json.loads(GOLDEN.read_text())
    assert set(expected) == {key(*c) for c in CASES}
    for case in CASES:
        assert decisions(*case) == expected[key(*case)], key(*case)


def test_golden_observations():
    """Every seat's observation and every mask along seeded games hash as recorded (tests/golden_observations.py):
    a faster observation or mask kernel writes the same bytes."""
    import json

    from golden_observations import CASES, GOLDEN, digest, key

    expected = json.loads(GOLDEN.read_text())
    assert set(expected) == {key(*c) for c in CASES}
    for case in CASES:
        assert digest(*case) == expected[key(*case)], key(*case)
