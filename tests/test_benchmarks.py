"""The benchmark helpers that compute something beyond a timing: the engine profile's re-derived masks, and the
side-by-side learning curves (their summary statistics, the same-games check and the plot)."""

import csv
import math

import numpy as np
import pytest

from benchmarks import compare_curves as C


def write_run(folder, rows):
    folder.mkdir(parents=True)
    with open(folder / "progress.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def rows_for(seed, diverge_at=None, n=30):
    rng = np.random.default_rng(seed)
    out = []
    for u in range(1, n + 1):
        bump = 1 if diverge_at is not None and u >= diverge_at else 0
        out.append({"update": u, "global_step": 1000 * u, "episodes": 10 * u + bump, "learner_decisions": 900,
                    "sps": 5000 + seed, "reward_vs_greedy": "" if u % 7 == 0 else f"{rng.normal(u / n):.6f}",
                    "reward_vs_expert": f"{rng.normal():.6f}", "entropy": f"{2 - u / n:.6f}"})
    return out


def test_curves_side_by_side_summarise_each_group_over_its_seeds(tmp_path, capsys):
    for seed in range(3):
        write_run(tmp_path / "a" / f"run{seed}", rows_for(seed))
        write_run(tmp_path / "b" / f"run{seed}", rows_for(seed, diverge_at=12 if seed == 0 else None))
    out = tmp_path / "curves.png"
    table = C.main(["--groups", f"a={tmp_path / 'a'},b={tmp_path / 'b'}", "--last", "10", "--out", str(out),
                    "--metrics", "reward_vs_greedy,entropy"])
    assert out.stat().st_size > 10_000
    assert table["b"]["identical_through"] == 11  # the first seeds' games part at update 12
    last = [np.mean([float(r["reward_vs_greedy"]) for r in rows_for(s)[-10:] if r["reward_vs_greedy"]])
            for s in range(3)]
    mean, half = table["a"]["reward_vs_greedy"]
    assert mean == pytest.approx(np.mean(last))
    assert half == pytest.approx(4.302653 * np.std(last, ddof=1) / math.sqrt(3), rel=1e-4)  # t(0.975, 2)
    assert table["a"]["entropy"][0] == pytest.approx(np.mean([2 - u / 30 for u in range(21, 31)]))
    assert "same games through update 11 of 30" in capsys.readouterr().out


def test_curves_refuse_fewer_than_two_groups_or_an_empty_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    write_run(tmp_path / "a" / "r", rows_for(0))
    with pytest.raises(SystemExit):
        C.main(["--groups", f"a={tmp_path / 'a'}"])
    with pytest.raises(SystemExit):
        C.main(["--groups", f"a={tmp_path / 'a'},b={tmp_path / 'empty'}"])


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["core", "omg"])
def test_the_engine_profile_re_derives_the_engines_own_masks(ruleset):
    from benchmarks.engine_profile import COLUMNS, profile

    res = profile(ruleset, 64, 1, iters=3, rounds=1)  # it asserts the re-derived masks equal the engine's
    assert set(COLUMNS) <= set(res) and all(res[c] > 0 for c in ("step", "legal", "observe", "sample"))


def test_search_cost_times_every_agent_on_the_same_states(capsys):
    """``benchmarks.search_cost``: each agent decides the same early-play states (the game moved on by expert), so
    every agent has one time per state; the last column is the deals' median over ``machine_slowdown()``."""
    from benchmarks import search_cost as S

    rows = S.main(["--ruleset", "core", "--agents", "search:budget=8,search:budget=32+max_plies=4+leaf=value",
                   "--seeds", "3,4", "--decisions", "3"])
    assert list(rows) == ["search:budget=8", "search:budget=32+max_plies=4+leaf=value"]
    slow = float(capsys.readouterr().out.split("machine_slowdown(): ")[1].split()[0])
    for row in rows.values():
        assert row["decisions"] == 6 and 0 < row["median"] <= row["p90"]
        assert row["reference"] == pytest.approx(row["deal_median"] / slow, rel=0.01)
    omg = S.main(["--ruleset", "omg", "--agents", "search:budget=8,search:budget=8+leaf=value", "--seeds", "3",
                  "--decisions", "4"])  # no setup: from the first decision
    assert [row["decisions"] for row in omg.values()] == [4, 4]


@pytest.mark.slow
def test_search_rate_counts_the_rollouts_and_splits_them_into_parts_that_add_up(capsys):
    """``benchmarks.search_rate``: each search's rollouts a decision are budget // legal per legal action; the
    split replays each rollout from its record (it raises when a replay does not end where the engine's rollout
    ended) and its four parts add up to the engine's own rollouts."""
    from benchmarks import search_rate as S

    searches = "search:budget=40+max_plies=6+leaf=value,search:budget=7"
    rows = S.main(["--rulesets", "core,omg", "--searches", searches, "--seeds", "3", "--decisions", "3",
                   "--worlds", "4", "--rounds", "1"])
    assert len(rows) == 4
    for (ruleset, spec), row in rows.items():
        table = S.states(ruleset, 4, [3], 3)
        legal = [int(m.sum()) for _, m, _ in table]
        budget = int(spec.split("budget=")[1].split("+")[0])
        assert row["rollouts"] == sum(max(1, budget // n) * n for n in legal)
        assert row["rate"] == pytest.approx(row["rollouts"] / row["seconds"])
        split = row["split"]
        assert sum(split["us"].values()) == pytest.approx(split["total_us"])
        assert 0 < split["plies"] <= (6 if "max_plies=6" in spec else 400)
    assert capsys.readouterr().out.count("| core |") == 2


def test_the_physical_limit_kernel_moves_every_byte_it_claims():
    """``benchmarks.physical_limit``: one step reads and writes back every state byte (each plus one) and fills
    the whole observation and mask from the state's checksum, so no byte can be skipped."""
    from benchmarks import physical_limit as L

    rng = np.random.default_rng(0)
    state = rng.integers(-100, 100, (5, 37)).astype(np.int8)
    before = state.copy()
    obs, mask = np.full((5, 11), 7, np.int8), np.full((5, 13), 7, np.int8)
    L.limit_step_nb(state, obs, mask)
    assert (state == (before + 1).astype(np.int8)).all()
    parity = before.astype(np.int64).sum(axis=1) & 1
    assert (obs == parity[:, None]).all()
    assert (mask == parity[:, None] ^ (np.arange(13) & 1)).all()
    assert L.sizes("core")[0] == __import__("shedders").VectorGame("core", 2, 4).state_bytes_per_game


def test_issue_47_targets_explain_each_one_missed_in_the_runs_own_numbers():
    """``benchmarks.run.issue47_targets``: a target met gets no gap line; each one missed gets one built from the
    figures passed in (synthetic ones here)."""
    from benchmarks import run as R

    lines = []
    rs = R.RULESETS
    best = {(r, 2): 10e6 for r in rs}
    peers = {"openspiel": 100_000, "connect_four": 20_000}
    aec = {r: 120_000 for r in rs}
    scale = {
        "lean": {"peer": {True: 100_000, False: 300_000}, **{r: (10e6, 12e6) for r in rs}},
        "profile": {r: {"step": 250, "sample": 6, "apply + bookkeeping": 90, "legal": 70, "step (no obs)": 160,
                        "observe": 100} for r in rs},
        "limit": {r: 20e6 for r in rs},
        "train": {("core", 2): {"sps": 90_000, "update": 0.7, "forward": 0.2, "engine": 0.05, "opponents": 0.05}},
        "ray": {"median": {"local": 27.0, "ray": 33.0}, "ratio": 27 / 33, "fixed": {"init": 3.0, "shutdown": 1.3}},
        "search": {"core": {"spec": "search:budget=9", "before": 100_000, "now": 250_000, "us": 4.0,
                            "how": "side by side with c0b9684"},
                   "og": {"spec": "search:budget=9", "before": 100_000, "now": 150_000, "us": 6.67,
                          "how": "recorded"}},
    }
    R.issue47_targets(scale, aec, peers, best, 2, lambda line="": lines.append(line))
    text = "\n".join(lines)
    # palace engines at 100x of 100k (10M against 10M: met), omg at 50x (met); AEC 6x (met)
    assert "`core` `VectorGame`" in text and "| no |" in text
    assert "- PPO:" in text and "- Ray: of its 33.0 s, 4.3 s" in text and "30.0 s in all" in text
    assert "- `og` search: 2x is 5.00 us per rollout; it takes 6.67" in text
    assert "250,000 against 100,000 (side by side with c0b9684) | 2.50x | yes" in text
    assert "150,000 against 100,000 (recorded) | 1.50x | no" in text
    assert "- `core` search" not in text and "engine: 100x" not in text and "AEC" not in text.split("###")[-1]


def test_search_side_by_side_falls_back_where_the_commit_is_missing():
    """``benchmarks.run`` measures the search before issue 47 side by side only where git holds that commit; a
    commit that is not there gives None (the run then prints the recorded figures and says why)."""
    from benchmarks import run as R

    assert R.search_side_by_side("0" * 40, ["core"], 1) is None


@pytest.mark.slow
def test_compare_times_the_search_in_a_tree_from_its_own_code():
    """``benchmarks.compare --search`` runs this snippet in each tree: it must import that tree's code (the
    PYTHONPATH it is given) and report a positive rate for each ruleset's search."""
    import json

    from benchmarks import compare as CMP
    from benchmarks.search_rate import search_spec

    spec = search_spec("champion:version=1", "core", 4)
    assert spec.startswith("search:")
    got = json.loads(CMP.run_in(CMP.ROOT, CMP.SEARCH, "core", spec, "1", "3", "2"))
    assert set(got) == {"search core", "file"} and got["search core"] > 0
    assert CMP.Path(got["file"]).resolve().is_relative_to(CMP.ROOT.resolve())
