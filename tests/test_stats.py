"""experiments.stats on rigged data with known answers, and the power calculator (experiments.power) against a
simulation of the test it sizes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments import power as PW
from experiments import stats as S


@pytest.mark.parametrize("df,want", [(4, 2.7764), (5, 2.5706), (10, 2.2281), (30, 2.0423), (120, 1.9799),
                                     (math.inf, 1.9600)])
def test_t_quantiles_match_the_table(df, want):
    assert S.t_ppf(0.975, df) == pytest.approx(want, abs=2e-3)
    assert S.t_sf(S.t_ppf(0.975, df), df) == pytest.approx(0.025, abs=1e-3)


def test_t_tail_is_exact_where_it_has_a_closed_form():
    for t in (0.3, 1.0, 2.5):  # df = 1 is the Cauchy distribution: P(T > t) = 1/2 - atan(t)/pi
        assert S.t_sf(t, 1) == pytest.approx(0.5 - math.atan(t) / math.pi, abs=1e-10)
    assert S.t_sf(0.0, 7) == pytest.approx(0.5)
    assert S.t_sf(-1.5, 7) == pytest.approx(1 - S.t_sf(1.5, 7))


def test_paired_difference_of_a_constant_gap_is_that_gap_with_certainty():
    b = np.linspace(-1, 1, 40)
    r = S.paired_difference(b + 0.1, b)
    assert r["diff"] == pytest.approx(0.1) and r["sd"] == pytest.approx(0.0, abs=1e-12)
    assert r["p"] == 0.0 and r["deals"] == 40
    r = S.paired_difference(b, b)
    assert r["diff"] == 0.0 and r["p"] == 1.0


def test_paired_intervals_cover_the_true_difference_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    covered, rejected = 0, 0
    trials = 2000
    for _ in range(trials):
        luck = rng.normal(0, 1, 12)  # the deal's luck, shared by both agents: pairing removes it
        a = luck + 0.3 + rng.normal(0, 0.5, 12)
        b = luck + rng.normal(0, 0.5, 12)
        r = S.paired_difference(a, b)
        covered += r["lo"] <= 0.3 <= r["hi"]
        null = S.paired_difference(b + rng.normal(0, 0.5, 12), b)
        rejected += null["p"] < 0.05
    # binomial sd at 2,000 trials is about 0.005: both rates within 3 sd of their targets
    assert abs(covered / trials - 0.95) < 0.016
    assert abs(rejected / trials - 0.05) < 0.016


def test_paired_difference_refuses_unpaired_values():
    with pytest.raises(ValueError, match="one value of each agent per deal"):
        S.paired_difference([1, 2, 3], [1, 2])


def test_paired_rewards_averages_each_agents_seats_over_the_deals_rotations():
    # two deals, two rotations each; agent 0 in seats [0, 1] then [2, 3]
    deal = np.array([5, 5, 9, 9])
    seat_agent = np.array([[0, 0, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0]])
    reward = np.array([[1, 0, -1, 0], [0, -1, 1, 0], [0.5, 0.5, -0.5, -0.5], [-1, 0, 0, 1]])
    ra, rb = S.paired_rewards(deal, seat_agent, reward, 0, 1)
    assert ra.tolist() == pytest.approx([(1 + 0 + 1 + 0) / 4, (0.5 + 0.5 + 0 + 1) / 4])
    assert rb.tolist() == pytest.approx([(-1 + 0 + 0 - 1) / 4, (-0.5 - 0.5 - 1 + 0) / 4])
    # a deal where agent 1 never sits is left out
    ra, rb = S.paired_rewards(deal, np.where(deal[:, None] == 9, 0, seat_agent), reward, 0, 1)
    assert len(ra) == len(rb) == 1


@pytest.mark.parametrize("wins,n,lo,hi", [(5, 10, 0.2366, 0.7634), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0),
                                          (1, 1, 0.2065, 1.0)])
def test_wilson_intervals_match_known_values_and_stay_in_0_1(wins, n, lo, hi):
    p, a, b = S.wilson(wins, n)
    assert p == wins / n and a == pytest.approx(lo, abs=1e-4) and b == pytest.approx(hi, abs=1e-4)
    assert 0.0 <= a <= p <= b <= 1.0


def test_mean_ci_is_the_normal_interval_over_units():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    m, lo, hi = S.mean_ci(x)
    h = 1.96 * x.std(ddof=1) / 2
    assert (m, lo, hi) == pytest.approx((2.5, 2.5 - h, 2.5 + h))
    assert all(math.isnan(v) for v in S.mean_ci([]))


def test_bootstrap_interval_agrees_with_the_normal_one_for_a_mean():
    x = np.random.default_rng(1).normal(3.0, 2.0, 400)
    est, lo, hi = S.bootstrap_ci(x, np.mean, resamples=3000, seed=2)
    m, nlo, nhi = S.mean_ci(x)
    assert est == pytest.approx(m) and lo == pytest.approx(nlo, abs=0.04) and hi == pytest.approx(nhi, abs=0.04)


def test_deals_for_power_gives_the_power_it_promises_in_simulation():
    sd, delta = 0.8, 0.2
    n = int(S.deals_for_power(sd, delta, level=0.95, power=0.8))
    assert n == math.ceil(((1.959964 + 0.841621) * sd / delta) ** 2)
    rng = np.random.default_rng(3)
    hits = sum(S.paired_difference(rng.normal(delta, sd, n), np.zeros(n))["p"] < 0.05 for _ in range(2000))
    assert abs(hits / 2000 - 0.8) < 0.03
    assert S.deals_for_power(sd, 0.0) == math.inf


def test_the_power_analysis_of_rigged_game_rows_finds_the_rigged_gap():
    rng = np.random.default_rng(4)
    deals = 300
    deal = np.repeat(np.arange(deals), 2)
    seat_agent = np.tile([[0, 1], [1, 0]], (deals, 1))
    luck = np.repeat(rng.normal(0, 0.5, deals), 2)
    gap = 0.1 + rng.normal(0, 0.3, 2 * deals)  # agent 0 is 0.1 better per game, by construction
    r0 = luck + gap / 2
    reward = np.where(seat_agent == 0, r0[:, None], (luck - gap / 2)[:, None])
    res = PW.analyse({"deal": deal, "seat_agent": seat_agent, "reward": reward}, resamples=500)
    p = res["pilot"]
    assert p["lo"] < 0.1 < p["hi"] and p["p"] < 1e-6
    assert res["deals_needed_lo"] <= res["deals_needed"] <= res["deals_needed_hi"]
    sd = p["sd"]
    assert res["deals_needed"] == S.deals_for_power(sd, p["diff"])


def test_the_power_command_runs_a_pilot_and_sizes_the_run(tmp_path, capsys):
    res = PW.main(["--ruleset", "core", "--agents", "expert,random", "--pilot", "12", "--out", str(tmp_path),
                   "--quiet", "--delta", "0.05"])
    out = capsys.readouterr().out
    assert "pilot: 12 deals; expert - random" in out and "duplicate deals" in out
    assert res["pilot"]["deals"] == 12 and res["deals_for_delta"] >= 2 and res["games_per_deal"] == 4
    with pytest.raises(SystemExit):
        PW.main(["--agents", "expert", "--out", str(tmp_path)])


def test_wilson_clustered_by_deal_has_known_answers():
    from experiments.stats import wilson, wilson_clustered

    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.3).astype(float)
    # games of independent deals (a cluster each): the plain Wilson interval
    assert wilson_clustered(y, np.arange(300)) == pytest.approx(wilson(y.sum(), 300))
    # clusters whose 4 games always agree: 100 deals count as 100 games, not 400
    deal_wins = (rng.random(100) < 0.4).astype(float)
    games = np.repeat(deal_wins, 4)
    p = deal_wins.mean()
    got = wilson_clustered(games, np.repeat(np.arange(100), 4))
    assert got == pytest.approx(wilson(p * 100, 100))
    assert got[2] - got[1] > 1.9 * (wilson(games.sum(), 400)[2] - wilson(games.sum(), 400)[1])
    # never outside [0, 1], and all wins: an interval that reaches 1, of the clusters' size
    share, lo, hi = wilson_clustered(np.ones(40), np.repeat(np.arange(10), 4))
    assert (share, hi) == (1.0, 1.0) and lo == pytest.approx(wilson(10, 10)[1]) and lo < 1


def test_deals_for_width_scales_the_pilot_by_the_square_of_the_width():
    # a pilot of 300 deals measured +-0.05: 300 deals; +-0.10: four times as many; +-0.025: a quarter
    assert PW.deals_for_width(300, 0.30, 0.40, 0.05) == 300
    assert PW.deals_for_width(300, 0.20, 0.40, 0.05) == 1200
    assert PW.deals_for_width(300, 0.325, 0.375, 0.05) == 75
    assert math.isnan(PW.deals_for_width(300, 0.4, 0.4, 0.05))  # no width: nothing to scale
    assert math.isnan(PW.deals_for_width(300, math.nan, 0.4, 0.05))
    with pytest.raises(ValueError):
        PW.deals_for_width(300, 0.3, 0.4, 0.0)


def test_sizing_a_skill_run_reads_each_bracket_end_and_says_what_it_cannot_size(tmp_path, capsys):
    import json

    def cell(est, lo, hi):
        return {"relative_skill": est, "rs_lo": lo, "rs_hi": hi}

    report = {"rulesets": [{"ruleset": "og", "deals": 200,
                            "relative_skill_bound": {"greedy": {"random": cell(0.3, 0.2, 0.4),
                                                                "greedy": cell(1.0, 1.0, 1.0)}},
                            "relative_skill_by_beginner": {"greedy": {"random": cell(0.4, 0.35, 0.45),
                                                                      "greedy": cell(math.nan, -3.0, 4.0)},
                                                           "random": {"greedy": cell(0.2, -5.0, 5.0)}}}]}
    rows = {(r["end"], r["field"], r["beginner"]): r for r in PW.size_skill_run(report, 0.05)}
    assert rows[("lower bound", "greedy", "random")]["needed"] == 800  # +-0.10 over 200 deals
    assert rows[("oracle", "greedy", "random")]["needed"] == 200  # +-0.05 already
    assert math.isnan(rows[("lower bound", "greedy", "greedy")]["needed"])  # exact: no width
    assert math.isnan(rows[("oracle", "greedy", "greedy")]["needed"])  # no estimate
    assert rows[("oracle", "random", "greedy")]["unstable"]
    assert not rows[("oracle", "greedy", "random")]["unstable"]
    (tmp_path / "report.json").write_text(json.dumps(report))
    PW.main(["--skill-run", str(tmp_path)])
    out = capsys.readouterr().out
    assert "cannot be sized (no width)" in out and "cannot be sized (no estimate)" in out
    assert "| og | greedy | random | lower bound | 0.30 [0.20, 0.40] | 200 | 800 |" in out
    assert "not to be trusted" in out
    (tmp_path / "kept.json").write_text(json.dumps(report))  # a report kept apart from its run
    PW.main(["--skill-run", str(tmp_path / "kept.json")])
    assert capsys.readouterr().out == out
    with pytest.raises(SystemExit):
        PW.main(["--skill-run", str(tmp_path / "missing")])
    with pytest.raises(SystemExit):
        PW.main(["--skill-run", str(tmp_path / "missing.json")])
