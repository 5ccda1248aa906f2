"""experiments.rating_power: the tournament's OpenSkill update on simulated tables parts clear gaps, not equal
agents, and ranks winners and losers the right way round."""

from __future__ import annotations

import pytest

from experiments.rating_power import main, simulate

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out


def test_a_clear_gap_parts_and_equal_agents_do_not():
    clear = simulate([0.05, 0.45], [2, 2], [200, 8000], ranked="loser", repeats=2)
    assert clear[-1]["apart"] == 1.0 and clear[-1]["mu_0"] > clear[-1]["mu_1"] + 2
    assert clear[-1]["sigma_0"] < clear[0]["sigma_0"]  # more games, narrower intervals
    level = simulate([0.25, 0.25], [2, 2], [2000], ranked="loser", repeats=2)
    assert level[0]["apart"] == 0.0 and abs(level[0]["mu_0"] - level[0]["mu_1"]) < 0.6


def test_in_winner_tables_the_entry_that_wins_more_is_rated_higher():
    rows = simulate([0.4, 0.1], [1, 1], [1000], ranked="winner", repeats=1)  # half the games: no winner
    assert rows[0]["mu_0"] > rows[0]["mu_1"] + 1


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="add up to 1"):
        simulate([0.4, 0.4], [2, 2], [100])
    with pytest.raises(ValueError, match="increasing"):
        simulate([0.2, 0.3], [2, 2], [200, 100])
    with pytest.raises(SystemExit):
        main(["--ranked", "first"])
