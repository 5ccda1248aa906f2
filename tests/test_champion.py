"""``agents.make("champion", ruleset=R, num_players=4)``: the strongest agent shipped for R, legal and within its
time budget per decision; other player counts fall back as documented in agents/champion.py."""

import os
import time

import numba
import numpy as np
import pytest

import agents
import shedders
from agents.base import act_in
from agents.champion import (
    LEAF_SEARCH,
    MAX_WORLDS,
    MIN_LEAF_TIME,
    SECONDS_PER_ROLLOUT,
    SECONDS_PER_WORLD,
    leaf_budget,
    machine_slowdown,
    search_budget,
)
from shedders.engine.palace import layout as K
from shedders.rules import RULESETS


def cut(ruleset, time_budget=0.01):
    """The cut search with the fitted leaf that ``ruleset``'s champion plays at ``time_budget``."""
    return f"search:budget={leaf_budget(ruleset, time_budget)}" + "".join(
        f"+{k}={v}" for k, v in LEAF_SEARCH[ruleset].items())


CHOSEN = {"og": cut("og"), "fatality": cut("fatality"), "core": cut("core"), "south_african": "guided:worlds=16",
          "house": cut("core")}


def timed(agent, ruleset, n, **kwargs):
    """The times of ``decisions(agent, ...)`` and how much slower than the machine the budgets were measured on
    this one ran meanwhile: ``machine_slowdown()`` right before and right after the timing, the larger (a load that
    comes or goes during the timing is counted), and at least 1 (a faster machine is held to the budget itself).
    Under pytest-xdist each worker has one of the machine's cores, so the timing runs on one numba thread, as the
    budgets' constants were measured (benchmarks.search_cost): a batch-1 search spread over two threads while the
    other worker is busy waits at OpenMP barriers (omg at 2 ms took 7.9 ms against a measured slowdown of 2.6)."""
    threads = numba.get_num_threads()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        numba.set_num_threads(1)
    try:
        before = machine_slowdown()
        _, times = decisions(agent, ruleset, n, **kwargs)
        return times, max(1.0, before, machine_slowdown())
    finally:
        numba.set_num_threads(threads)


def decisions(agent, ruleset, n, games=40, seed=3, after_setup=False):
    """Play ``games`` decisions of one game at batch 1 with ``agent`` in every seat (``after_setup``: counting only
    those after the palace setup, where a search searches); the actions and their times."""
    vg = shedders.VectorGame(ruleset, 1, n, seed=seed)
    vg.reset()
    out, times = [], []
    while len(times) < games:
        counted = not after_setup or vg.state.phase[0] != K.PH_SETUP
        t = time.perf_counter()
        a = act_in(agent, vg, np.arange(1))
        if counted:
            times.append(time.perf_counter() - t)
        assert vg.action_mask[0, a[0]] == 1  # legal
        out.append(int(a[0]))
        vg.step(a)
    return out, times


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_champion_plays_only_legal_actions_within_its_time_budget(ruleset):
    champ = agents.make("champion", ruleset=ruleset, num_players=4, seed=0)
    assert champ.chosen == CHOSEN.get(ruleset, f"search:budget={search_budget('omg', 0.01)}+eps=0.0+leaf=value")
    times, slow = timed(champ, ruleset, 4, after_setup=ruleset != "omg")
    # the budget is what a decision may cost at batch 1 on the measured machine (here: times its slowdown); 1.5x
    # leaves room for noise
    assert np.median(times[3:]) <= 1.5 * champ.time_budget * slow
    assert np.percentile(times[3:], 90) <= 2 * champ.time_budget * slow


def test_the_time_budget_buys_the_search_champion_its_rollouts():
    small = agents.make("champion", ruleset="omg", num_players=4, seed=0, time_budget=0.002)
    large = agents.make("champion", ruleset="omg", num_players=4, seed=0, time_budget=0.02)
    assert small.inner.budget == int(0.002 / SECONDS_PER_ROLLOUT["omg"]) < large.inner.budget
    t_small, slow = timed(small, "omg", 4)
    t_large, slow_large = timed(large, "omg", 4)
    assert np.median(t_small[3:]) <= 1.5 * 0.002 * slow
    assert 1.5 * 0.002 * slow_large < np.median(t_large[3:])  # the larger budget buys a search that costs more


def test_the_time_budget_buys_the_guided_champion_its_worlds():
    small = agents.make("champion", ruleset="fatality", num_players=4, seed=0, time_budget=0.002)
    assert small.chosen == f"guided:worlds={int(0.002 / SECONDS_PER_WORLD)}" and small.inner.worlds == 3
    # south_african's champion is guided at every budget (fatality's is the search from 25 ms)
    large = agents.make("champion", ruleset="south_african", num_players=4, time_budget=1.0)
    assert large.inner.worlds == MAX_WORLDS


@pytest.mark.parametrize("ruleset", ["core", "fatality"])
def test_a_budget_that_buys_the_search_makes_it_the_champion_within_that_budget(ruleset):
    """core's and fatality's search champion takes 1,024 rollouts or more (the size measured ahead of guided), and
    only a budget that pays for them at early play's rollout cost gets it (below it the cut search with the fitted
    leaf plays); it rolls out with 20% random moves (chosen ahead of search's default 10%). og's cut search was
    measured ahead of the full search at 25 ms, so og keeps it at every budget from 10 ms."""
    below = agents.make("champion", ruleset=ruleset, num_players=4, time_budget=0.024).chosen
    assert below == cut(ruleset, 0.024)
    if ruleset == "core":
        assert (agents.make("champion", ruleset="house", num_players=4, time_budget=0.025).chosen
                == "search:budget=1024+eps=0.2")
    champ = agents.make("champion", ruleset=ruleset, num_players=4, seed=0, time_budget=0.025)
    rollouts = f"search:budget={int(0.025 / SECONDS_PER_ROLLOUT[ruleset])}"
    assert champ.chosen == rollouts + "+eps=0.2"
    assert champ.inner.budget == 1024 and champ.inner.eps_milli == 200
    assert agents.make("champion", ruleset="og", num_players=4, time_budget=0.025).chosen == cut("og", 0.025)
    times, slow = timed(champ, ruleset, 4, after_setup=True)
    assert np.median(times[3:]) <= 1.5 * 0.025 * slow and np.percentile(times[3:], 90) <= 2 * 0.025 * slow


@pytest.mark.parametrize("ruleset", ["core", "fatality", "og"])
def test_a_budget_from_the_measured_size_buys_the_cut_search_with_the_fitted_leaf_within_that_budget(ruleset):
    """From the smallest budget measured (5 ms in core and fatality, 10 ms in og) to below the full search's 25 ms,
    the champion is ``search`` with rollouts cut after ``max_plies`` decisions and valued by the fitted leaf
    (``leaf=value``), as many as the budget buys at the ruleset's cut-rollout cost; below it the next champion
    plays
    (guided, or ppo in og); south_african and house with other rules keep theirs."""
    least = MIN_LEAF_TIME[ruleset]
    below = agents.make("champion", ruleset=ruleset, num_players=4, time_budget=least - 1e-4).chosen
    assert below.startswith("ppo" if ruleset == "og" else "guided:")
    assert agents.make("champion", ruleset="south_african", num_players=4, time_budget=0.005).chosen.startswith(
        "guided:")
    assert agents.make("champion", ruleset="house", num_players=4, rules={"jokers": True}).chosen == "expert"
    champ = agents.make("champion", ruleset=ruleset, num_players=4, seed=0, time_budget=least)
    settings = LEAF_SEARCH[ruleset]
    assert champ.chosen == cut(ruleset, least)
    assert (champ.inner.budget, champ.inner.max_plies, champ.inner.leaf, champ.inner.eps_milli) == (
        leaf_budget(ruleset, least), settings["max_plies"], "value", round(1000 * settings["eps"]))
    times, slow = timed(champ, ruleset, 4, after_setup=True)
    assert np.median(times[3:]) <= 1.5 * least * slow and np.percentile(times[3:], 90) <= 2 * least * slow


def test_cut_search_budgets_are_the_sizes_measured_times_the_speedup_measured():
    """The cut-search sizes played on the selection and fresh deals (experiments/RESULTS.md: 1,007 at 5 ms, 2,014
    at 10 ms), times the rollouts per second gained since (``ROLLOUT_SPEEDUP_V3``, issue 47; version 3, the
    default)."""
    from agents.champion import ROLLOUT_SPEEDUP_V3, VERSION

    assert VERSION == 3 and ROLLOUT_SPEEDUP_V3["core"] == 2.01
    assert leaf_budget("core", 0.005) == 2024 and leaf_budget("core", 0.01) == 4048
    assert leaf_budget("core", 0.005, version=2) == 1661 and leaf_budget("core", 0.01, version=2) == 3323
    # version 1, the champion before the faster rollouts, buys the sizes measured
    assert leaf_budget("core", 0.005, version=1) == 1007 and leaf_budget("core", 0.01, version=1) == 2014
    assert search_budget("omg", 0.01, version=1) == 833


def test_each_version_divides_only_the_timed_rows_constants_by_its_speedup():
    """Version 3 spends the second measured speed-up (``ROLLOUT_SPEEDUP_V3``) where version 2 spent the first; the
    full searches of core and fatality at 25 ms, never timed again, keep their 1,024 rollouts in every version."""
    from agents.champion import ROLLOUT_SPEEDUP, ROLLOUT_SPEEDUP_V3, SPEEDUPS

    assert SPEEDUPS[2] is ROLLOUT_SPEEDUP and SPEEDUPS[3] is ROLLOUT_SPEEDUP_V3
    for ruleset, old in (("core", 2014), ("fatality", 1280), ("og", 1060)):
        for version, speedup in ((2, ROLLOUT_SPEEDUP), (3, ROLLOUT_SPEEDUP_V3)):
            assert abs(leaf_budget(ruleset, 0.01, version=version) - old * speedup[ruleset]) < 1 + speedup[ruleset]
    assert (leaf_budget("core", 0.01, version=3), search_budget("omg", 0.01, version=3)) == (4048, 1825)
    for version in (1, 2, 3):
        assert search_budget("core", 0.025, version=version) == search_budget("fatality", 0.025, version=version)
        assert search_budget("core", 0.025, version=version) == 1024


@pytest.mark.parametrize("ruleset", ["core", "fatality", "og", "omg"])
def test_champion_version_1_plays_the_sizes_before_the_faster_rollouts_and_bench_v1_pins_it(ruleset):
    from agents.champion import ROLLOUT_SPEEDUP_V3
    from experiments.bench import OPPONENT_SPECS

    old = agents.make_spec(OPPONENT_SPECS["champion"], ruleset, 4, seed=0)
    new = agents.make("champion", ruleset=ruleset, num_players=4, seed=0)
    assert (old.version, new.version) == (1, 3)
    assert old.chosen.split("+")[1:] == new.chosen.split("+")[1:]  # the same search, more rollouts
    # both sizes are floored from the same budget: they differ from the exact ratio by less than one rollout each
    speedup = ROLLOUT_SPEEDUP_V3[ruleset]
    assert abs(new.inner.budget - old.inner.budget * speedup) < 1 + speedup


def test_the_champion_is_reproducible_from_its_seed():
    a = decisions(agents.make("champion", ruleset="omg", num_players=3, seed=5, time_budget=0.002), "omg", 3)[0]
    b = decisions(agents.make("champion", ruleset="omg", num_players=3, seed=5, time_budget=0.002), "omg", 3)[0]
    assert a == b


def test_omgs_champion_uses_the_fitted_leaf_where_its_weights_play_the_table(tmp_path):
    """omg's champion at 4 players rolls out without random moves and values the cut by the fitted model of who
    wins
    (the weights are for 4 players and the shipped deck); at other player counts, or on another deck, it is omg's
    search with its defaults."""
    from shedders.rules.omg import DEFAULT_DECK

    champ = agents.make("champion", ruleset="omg", num_players=4)
    budget = search_budget("omg", 0.01)
    assert (champ.inner.leaf, champ.inner.eps_milli, champ.inner.budget) == ("value", 0, budget)
    assert agents.make("champion", ruleset="omg", num_players=3).chosen == f"search:budget={budget}"
    lines = DEFAULT_DECK.read_text().splitlines()
    swap = next(i for i, line in enumerate(lines) if line.endswith(",1"))
    lines[swap] = lines[swap][:-1] + "0"
    (tmp_path / "deck.csv").write_text("\n".join(lines) + "\n")
    other = agents.make("champion", ruleset="omg", num_players=4, deck=str(tmp_path / "deck.csv"))
    assert other.chosen == f"search:budget={search_budget('omg', 0.01)}" and other.inner.leaf == "none"


def test_other_tables_fall_back_to_the_best_agent_available():
    assert agents.make("champion", ruleset="core", num_players=3).chosen == "expert"  # no 3-player checkpoint
    assert agents.make("champion", ruleset="house", num_players=4, rules={"slap": True}).chosen == "expert"
    assert agents.make("champion", ruleset="omg", num_players=6).chosen.startswith("search:")
    champ = agents.make("champion", ruleset="fatality", num_players=5, seed=1)
    decisions(champ, "fatality", 5, games=20)


def test_bad_champion_options_are_refused():
    for bad in (0, -1, 0.0001, 100, "fast", True):
        with pytest.raises(ValueError, match="time_budget"):
            agents.make("champion", ruleset="core", num_players=4, time_budget=bad)
    with pytest.raises(ValueError, match="unknown option 'budget'"):
        agents.make("champion", ruleset="core", num_players=4, budget=64)
    for bad in (0, 4, True, "2", 1.5):
        with pytest.raises(ValueError, match="version"):
            agents.make("champion", ruleset="core", num_players=4, version=bad)


def test_shedders_play_takes_the_champion_as_opponent():
    from shedders.play import main

    out: list[str] = []
    moves = iter(["ready"] + ["1"] * 4 + ["q"])  # a few moves (champions answer each), then leave: exit code 1
    assert main(["--ruleset", "core", "--players", "3", "--opponents", "champion", "--seed", "1"],
                read=lambda prompt: next(moves), write=out.append) == 1
    assert "seats: player_0=you, player_1=champion, player_2=champion" in out
    assert any(line.startswith(("player_1 (champion) ", "player_2 (champion) ")) for line in out)
    out.clear()  # at 4 players the champion is a search, which the terminal game gives the engine state
    moves = iter(["ready"] + ["1"] * 30 + ["q"])
    assert main(["--ruleset", "core", "--players", "4", "--opponents", "champion", "--seed", "1"],
                read=lambda prompt: next(moves), write=out.append) == 1
    assert sum(line.startswith(("player_1 (champion) ", "player_2 (champion) ", "player_3 (champion) "))
               for line in out) > 6  # past setup: they played
