"""experiments.paired: one agent of two tournament runs compared deal by deal, against a direct computation from
the runs' game rows; runs that deal different cards are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments import paired as P
from experiments import tournament as T

pytestmark = pytest.mark.slow  # tiny tournaments, as in tests/test_tournament.py


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("paired")
    common = {"ruleset": "fatality", "players": 4, "games": 6, "seed": 11, "lineup": [0, 1, 1, 1],
              "out": str(out)}
    a = T.run(T.Config(agents=["greedy", "random"], name="a", **common), progress=False)
    b = T.run(T.Config(agents=["random@2", "random"], name="b", **common), progress=False)
    c = T.run(T.Config(**{**common, "seed": 12}, agents=["greedy", "random"], name="c"), progress=False)
    d = T.run(T.Config(**{**common, "seed": 12}, agents=["random@2", "random"], name="d"), progress=False)
    return out, a, b, c, d


def lone_seat_by_deal(summary) -> dict[int, float]:
    """Agent 0's mean reward on each deal, straight from the game rows."""
    totals: dict[int, list[float]] = {}
    rows = summary["game_rows"]
    for deal, seats, rewards in zip(rows["deal"], rows["seat_agent"], rows["reward"]):
        totals.setdefault(deal, []).extend(r for s, r in zip(seats, rewards) if s == 0)
    return {d: float(np.mean(v)) for d, v in totals.items()}


def test_the_paired_difference_is_the_mean_of_the_per_deal_differences(runs):
    out, a, b, *_ = runs
    got = P.main([str(out / "a"), str(out / "b"), "--json"])
    da, db = lone_seat_by_deal(a), lone_seat_by_deal(b)
    diffs = np.array([da[d] - db[d] for d in sorted(da)])
    assert got["a_minus_b"]["deals"] == len(diffs) == 6
    assert got["a_minus_b"]["diff"] == pytest.approx(diffs.mean())
    half = got["a_minus_b"]["hi"] - got["a_minus_b"]["diff"]
    assert half == pytest.approx(2.5706 * diffs.std(ddof=1) / np.sqrt(6), rel=1e-3)  # t, 5 degrees of freedom
    assert got["a"]["mean_reward"] == pytest.approx(np.mean(list(da.values())))
    assert got["a"]["games"] == 24 and got["a"]["agent"] == "greedy"


def test_a_run_against_itself_differs_by_nothing_and_agents_go_by_name(runs, capsys):
    out, *_ = runs
    got = P.main([str(out / "a" / "results.json"), str(out / "a"), "--agent", "greedy"])
    assert got["a_minus_b"]["diff"] == 0.0 and got["a_minus_b"]["p"] == 1.0
    assert "paired over 6 deals: +0.000" in capsys.readouterr().out


def test_runs_on_other_deals_or_unknown_agents_are_refused(runs, capsys, tmp_path):
    out, *_ = runs
    with pytest.raises(SystemExit) as e:
        P.main([str(out / "a"), str(out / "c")])
    assert e.value.code == 2 and "seed 11 against 12" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        P.main([str(out / "a"), str(out / "b"), "--agent", "expert"])
    assert "no agent 'expert'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        P.main([str(out / "a"), str(out / "b"), "--agent", "7"])
    assert "out of range" in capsys.readouterr().err
    (tmp_path / "x.json").write_text(json.dumps({"config": {}}))
    with pytest.raises(SystemExit):
        P.main([str(tmp_path / "x.json"), str(out / "b")])
    assert "not a tournament" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        P.main([str(tmp_path / "missing"), str(out / "b")])
    assert "no tournament results" in capsys.readouterr().err


def test_pairs_on_other_deals_pool_every_deal_once(runs, capsys):
    out, a, b, c, d = runs
    got = P.main([str(out / "a"), str(out / "b"), str(out / "c"), str(out / "d"), "--json"])
    capsys.readouterr()
    assert [p["a_minus_b"]["deals"] for p in got["pairs"]] == [6, 6]
    assert got["pairs"][1] == P.main([str(out / "c"), str(out / "d"), "--json"])
    firsts = [*lone_seat_by_deal(a).values(), *lone_seat_by_deal(c).values()]
    seconds = [*lone_seat_by_deal(b).values(), *lone_seat_by_deal(d).values()]
    diffs = np.subtract(firsts, seconds)
    pooled = got["pooled"]
    assert pooled["pairs"] == 2 and pooled["a_minus_b"]["deals"] == 12
    assert pooled["a_minus_b"]["diff"] == pytest.approx(diffs.mean())
    half = pooled["a_minus_b"]["hi"] - pooled["a_minus_b"]["diff"]
    assert half == pytest.approx(2.2010 * diffs.std(ddof=1) / np.sqrt(12), rel=1e-3)  # t, 11 degrees of freedom
    assert pooled["a"]["mean_reward"] == pytest.approx(np.mean(firsts))
    assert pooled["b"]["reward_hi"] - pooled["b"]["mean_reward"] == pytest.approx(
        1.96 * np.std(seconds, ddof=1) / np.sqrt(12), rel=1e-3)
    P.main([str(out / "a"), str(out / "b"), str(out / "c"), str(out / "d")])
    assert "pooled over 2 pairs, first minus second, paired over 12 deals" in capsys.readouterr().out


def test_pairs_that_deal_the_same_cards_or_an_odd_run_are_refused(runs, capsys):
    out, *_ = runs
    with pytest.raises(SystemExit) as e:
        P.main([str(out / "a"), str(out / "b"), str(out / "b"), str(out / "a")])
    assert e.value.code == 2 and "pairs 1 and 2 deal the same cards" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        P.main([str(out / "a"), str(out / "b"), str(out / "c")])
    assert e.value.code == 2 and "runs come in pairs" in capsys.readouterr().err
