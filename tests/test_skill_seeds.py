"""experiments.skill_seeds: several seeds' skill-versus-luck tables side by side, on synthetic reports with known
cells: each seed's value, the spread, a cell one seed lacks, a best player that changes, and refusals."""

from __future__ import annotations

import json
import math

import pytest

from experiments import skill_seeds as S


def cell(v, best="expert", half=0.05):
    return {"relative_skill": v, "rs_lo": v - half, "rs_hi": v + half, "best": best}


def report(seed, oracle=0.3, bound=0.2, best="expert", deals=100):
    r = {"ruleset": "og", "relative_skill_bound": {"greedy": {"random": cell(bound, best)}},
         "relative_skill_by_beginner": {"greedy": {"random": cell(oracle, best)}} if oracle is not None else {}}
    return {"config": {"seed": seed, "name": f"s{seed}", "out": "runs", "players": 4, "deals": deals,
                       "agents": ["random", "greedy", "expert"], "oracle": "oracle:budget=64"}, "rulesets": [r]}


def test_each_seeds_cell_side_by_side_with_the_spread(tmp_path):
    reps = [report(0, 0.30, 0.20), report(1, 0.40, 0.22), report(2, None, 0.25, best="search")]
    rows = S.side_by_side(reps)
    by = {r["measure"]: r for r in rows}
    assert set(by) == {"oracle", "lower bound"}
    assert by["oracle"]["spread"] == pytest.approx(0.10) and by["oracle"]["cells"][2] is None
    low = by["lower bound"]
    assert low["spread"] == pytest.approx(0.05) and low["widest"] == pytest.approx(0.10)
    text = S.markdown(reps, rows)
    assert "0.30 [0.25, 0.35] | 0.40 [0.35, 0.45] | not measured | 0.10 (0.10)" in text
    assert "expert / expert / search (changes)" in text
    for i, rep in enumerate(reps):
        (tmp_path / f"s{i}").mkdir()
        (tmp_path / f"s{i}" / "report.json").write_text(json.dumps(rep))
    out = tmp_path / "seeds.md"
    assert S.main([str(tmp_path / f"s{i}") for i in range(3)] + ["--out", str(out)]) == out.read_text() == text


def test_one_seed_alone_gives_no_spread():
    rows = S.side_by_side([report(0), report(1, oracle=math.nan)])
    assert math.isnan(next(r for r in rows if r["measure"] == "oracle")["spread"])


def test_runs_that_differ_in_more_than_their_seed_are_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="deals"):
        S.check_same_design([report(0), report(1, deals=200)])
    with pytest.raises(ValueError, match="repeat a seed"):
        S.check_same_design([report(0), report(0)])
    with pytest.raises(SystemExit):
        S.main([str(tmp_path / "nope"), str(tmp_path / "nope2")])
    assert "no skill_luck report" in capsys.readouterr().err
