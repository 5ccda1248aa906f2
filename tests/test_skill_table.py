"""experiments.skill_table: the skill-versus-luck table across rulesets and player counts, on synthetic reports
with known cells: grouping by player count and ruleset, seeds as ranges, the upper end's source, the best
player's win rate, no interval of zero width, refusals, and the picture."""

from __future__ import annotations

import json
import math

import pytest

from experiments import skill_table as T


def cell(v, best="expert", half=0.05):
    return {"relative_skill": v, "rs_lo": v - half, "rs_hi": v + half, "best": best}


def win(p, half=0.02):
    return {"win_rate": p, "win_rate_lo": p - half, "win_rate_hi": p + half}


def section(ruleset="og", bound=0.2, oracle=0.3, best="expert", net=None, baseline=0.25, p=0.4):
    r = {"ruleset": ruleset, "baseline": baseline,
         "relative_skill_bound": {"greedy": {"greedy": cell(bound, best)}},
         "relative_skill_by_beginner": {"greedy": {"greedy": cell(oracle, best)}} if oracle is not None else {},
         "field_reference": {best: win(p)}, "field_random": {}}
    if net is not None:
        r["fictive_network"] = {"greedy": {"stronger": "fictive" if net > (oracle or -1) else "oracle",
                                           "relative_skill": {"greedy": cell(net, best)}}}
    return r


def report(seed, players=4, deals=100, **kw):
    return {"config": {"seed": seed, "name": f"s{seed}", "out": "runs", "players": players, "deals": deals,
                       "rulesets": [kw.get("ruleset", "og")], "field_agent": "greedy",
                       "agents": ["random", "greedy", "expert"], "oracle": "oracle:budget=64"},
            "rulesets": [section(**kw)]}


def test_one_table_per_player_count_a_row_per_ruleset_field_and_beginner():
    reps = [report(0, bound=0.20, oracle=0.30), report(1, bound=0.24, oracle=0.36, p=0.44),
            report(0, players=2, ruleset="core", bound=0.5, oracle=None, baseline=0.5, p=0.8, deals=250)]
    table = T.rows(reps)
    assert [(r["players"], r["ruleset"], [x["seed"] for x in r["seeds"]]) for r in table] == [
        (2, "core", [0]), (4, "og", [0, 1])]
    text = T.markdown(table)
    assert text.index("## 2 players") < text.index("## 4 players")
    # two seeds: the range of the points and the hull of their intervals; the win rate of the best player
    # each cell's deals a tournament beside its seeds
    assert ("| og | 0, 1 (100) | greedy | greedy | expert | 0.20 to 0.24 (intervals within [0.15, 0.29]) "
            "| 0.30 to 0.36 (intervals within [0.25, 0.41]) (oracle) | [0.20, 0.30] / [0.24, 0.36] "
            "| 0.40 to 0.44 (intervals within [0.38, 0.46]) (luck only 0.25) |") in text
    # one seed, no oracle: the upper end is 1 and says none was played
    assert ("| core | 0 (250) | greedy | greedy | expert | 0.50 [0.45, 0.55] | n/a (none played) | [0.50, 1.00] "
            "| 0.80 [0.78, 0.82] (luck only 0.50) |") in text


def test_the_upper_end_is_the_stronger_fictive_player():
    stronger = T.rows([report(0, oracle=0.3, net=0.5)])[0]["seeds"][0]
    assert stronger["source"] == "fictive network" and stronger["upper"]["relative_skill"] == 0.5
    weaker = T.rows([report(0, oracle=0.3, net=0.1)])[0]["seeds"][0]
    assert weaker["source"] == "oracle" and weaker["upper"]["relative_skill"] == 0.3
    assert "(fictive network)" in T.markdown(T.rows([report(0, oracle=0.3, net=0.5)]))


def test_no_interval_of_zero_width_over_seeds():
    reps = [report(s, bound=1.0, oracle=1.0) for s in range(3)]
    for rep in reps:
        sec = rep["rulesets"][0]
        for measure in ("relative_skill_bound", "relative_skill_by_beginner"):
            c = sec[measure]["greedy"]["greedy"]
            c["rs_lo"] = c["rs_hi"] = 1.0
    text = T.markdown(T.rows(reps))
    assert "1.00 (no interval on any seed: every resample the same)" in text
    assert "[1.00, 1.00]" not in text
    assert "closed on every seed (1.00 / 1.00 / 1.00)" in text
    # a narrow hull gets the digits that part its ends
    narrow = T._over_seeds([0.5, 0.5], [0.4991, 0.4990], [0.5001, 0.5002])
    assert narrow == "0.50 (intervals within [0.499, 0.500])"


def test_a_seed_without_the_estimate_is_counted_not_hidden():
    reps = [report(0, bound=0.2), report(1, bound=math.nan)]
    assert T._end([x["lower"] for x in T.rows(reps)[0]["seeds"]]) == (
        "0.20 (intervals within [0.15, 0.25]); 1 of 2 seeds without")


def test_seeds_of_one_cell_must_differ_in_their_seed_alone(tmp_path, capsys):
    with pytest.raises(ValueError, match="og at 4 players: .*deals"):
        T.rows([report(0), report(1, deals=200)])
    with pytest.raises(ValueError, match="repeat a seed"):
        T.rows([report(0), report(0)])
    T.rows([report(0), report(0, players=2)])  # the same seed at another player count is another cell
    (tmp_path / "a.json").write_text(json.dumps(report(0)))
    (tmp_path / "b.json").write_text(json.dumps(report(0)))
    with pytest.raises(SystemExit):
        T.main([str(tmp_path / "a.json"), str(tmp_path / "b.json")])
    assert "repeat a seed" in capsys.readouterr().err


def test_main_writes_the_table_and_the_picture(tmp_path):
    for s in range(2):
        (tmp_path / f"s{s}.json").write_text(json.dumps(report(s, bound=0.2 + 0.1 * s)))
    out, png = tmp_path / "table.md", tmp_path / "brackets.png"
    text = T.main([str(tmp_path / "s0.json"), str(tmp_path / "s1.json"), "--out", str(out), "--plot", str(png)])
    assert out.read_text() == text and png.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="no bracket to draw"):
        T.plot(T.rows([report(0, bound=math.nan)]), tmp_path / "none.png")


def test_every_kept_report_renders_without_a_zero_width_interval():
    import re
    from pathlib import Path
    kept = sorted(Path(__file__).resolve().parents[1].glob("experiments/results/sl3-*.json"))
    assert kept
    text = T.main([str(p) for p in kept])
    assert not [m for m in re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", text) if m[0] == m[1]]


def test_a_cell_where_the_best_player_learns_nothing_over_the_beginner_has_no_bracket():
    """omg's random field at 2 and 6 players: every strong player wins about 99% and none more than `greedy`, so
    relative skill is 0 by the formula with an interval over several units; the bracket says so in words."""
    rep = report(0, bound=0.0, oracle=0.0)
    sec = rep["rulesets"][0]
    for measure in ("relative_skill_bound", "relative_skill_by_beginner"):
        sec[measure]["greedy"]["greedy"].update(learning_effect=0.0, rs_lo=-4.0, rs_hi=1.0)
    text = T.markdown(T.rows([rep]))
    assert "none shown (the best player no better than the beginner on the measured deals)" in text
    assert "0.00 at both ends" not in text
    sec["relative_skill_bound"]["greedy"]["greedy"]["learning_effect"] = 0.05  # any effect: the bracket again
    assert "0.00 at both ends" in T.markdown(T.rows([rep]))
