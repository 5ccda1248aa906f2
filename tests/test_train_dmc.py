"""Deep Monte Carlo (experiments.train_dmc) and the ``dmc`` agent: the action features, the returns to go it
regresses on, a tiny run (finite losses, a checkpoint the agent plays, --resume from the same counters) and
refusals with nothing written."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
import shedders
from agents.base import act_in
from agents.dmc import action_features, action_tokens
from agents.ppo import load_file
from experiments import train_dmc as D
from experiments.runlog import read_rows

TINY = ["--num-envs", "8", "--hidden", "32", "--action-hidden", "8", "--batch", "64", "--eval-deals", "0",
        "--checkpoint-every", "1", "--quiet"]


def run(tmp_path, *extra, name="tiny"):
    return D.main([*TINY, "--out", str(tmp_path), "--name", name, *extra])


def test_action_features_share_tokens_between_moves_of_a_rank_or_a_count():
    assert action_tokens("play 3x7") == ["verb:play", "count:3", "rank:7"]
    assert action_tokens("play 1xJ +1up") == ["verb:play", "count:1", "rank:J", "w2:+1up"]
    assert action_tokens("swap 2 for 3") != action_tokens("swap 3 for 2")
    assert action_tokens("pickup") == ["verb:pickup"]
    from shedders.envs.actions import ACTION_IDS

    f = action_features("core", 4)
    assert f.shape[0] == len(ACTION_IDS) and set(np.unique(f)) == {0.0, 1.0}
    a, b, c = f[ACTION_IDS["play 3x7"]], f[ACTION_IDS["play 3x9"]], f[ACTION_IDS["play 2x7"]]
    assert (a * b).sum() == 2 and (a * c).sum() == 2  # the verb and the count; the verb and the rank
    assert len({tuple(r) for r in f}) == len(f)  # every action its own features
    g = action_features("omg", 4)
    assert g.shape[0] == shedders.VectorGame("omg", 1, 4).num_actions and len({tuple(r) for r in g}) == len(g)


def test_each_sample_is_regressed_on_the_return_its_seat_collected_after_it():
    s = D.Samples(2)
    totals = np.zeros((2, 4))
    s.add(np.array([0, 1]), np.zeros((2, 3), np.int8), np.array([5, 6]), np.array([1, 2]), totals)
    totals[0, 1] = 0.25  # seat 1 of game 0 is paid before its second decision (fatality pays by place)
    s.add(np.array([0]), np.ones((1, 3), np.int8), np.array([7]), np.array([1]), totals)
    s.close(0, np.array([0.0, 1.0, -1.0, 0.0]))
    assert s.ready() == 2 and not s.open[0] and len(s.open[1]) == 1
    obs, act, tgt = s.take(2)
    assert act.tolist() == [5, 7] and tgt.tolist() == [1.0, 0.75] and obs[1].tolist() == [1, 1, 1]


@pytest.mark.parametrize("ruleset", ["core", pytest.param("omg", marks=pytest.mark.slow)])
def test_a_tiny_run_is_finite_its_checkpoint_plays_and_resume_keeps_the_counters(tmp_path, ruleset):
    out = run(tmp_path, "--ruleset", ruleset, "--total-steps", "3000")
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert len(rows) == out["counters"]["update"] > 0
    for r in rows:
        assert np.isfinite(float(r["loss"])) and np.isfinite(float(r["q_mean"]))
    spec = f"dmc:checkpoint={tmp_path / 'tiny' / 'checkpoint.pt'}"
    a, b = agents.make_spec(spec, ruleset, 4, seed=1), agents.make_spec(spec, ruleset, 4, seed=1)
    vg = shedders.VectorGame(ruleset, 8, 4, seed=3)
    vg.reset()
    every = np.arange(8)
    for _ in range(40):
        x = act_in(a, vg, every)
        assert np.array_equal(x, act_in(b, vg, every)) and np.all(vg.action_mask[every, x] == 1)
        vg.step(x)
    before = load_file(tmp_path / "tiny" / "checkpoint.pt")["counters"]
    more = run(tmp_path, "--ruleset", ruleset, "--total-steps", "12000", "--resume")
    assert more["counters"]["global_step"] >= 12000 and more["counters"]["update"] > before["update"]
    assert [int(r["update"]) for r in read_rows(tmp_path / "tiny" / "progress.csv")] == list(
        range(1, more["counters"]["update"] + 1))  # each update logged once, from where the checkpoint stood


def test_the_agent_plays_the_legal_move_of_highest_value(tmp_path):
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "1000", "--eval-deals", "1")
    assert np.isfinite(out["last"]["eval"]["mean_reward"])  # the final tournament against greedy and expert
    assert read_rows(tmp_path / "tiny" / "eval.csv")[0]["global_step"] == str(out["counters"]["global_step"])
    agent = agents.make_spec(f"dmc:checkpoint={tmp_path / 'tiny' / 'checkpoint.pt'}", "core", 4)
    vg = shedders.VectorGame("core", 16, 4, seed=9)
    vg.reset()
    for _ in range(30):
        vg.step(vg.sample_legal())
    idx, q = agent.values(vg.observation, vg.action_mask)
    with torch.no_grad():
        for r in range(16):
            legal = np.flatnonzero(vg.action_mask[r])
            one = agent.model.chosen(torch.from_numpy(np.repeat(vg.observation[r:r + 1], len(legal), 0)).float(),
                                     torch.from_numpy(legal))
            assert np.allclose(one.numpy(), q[r, :len(legal)], atol=1e-5) and np.array_equal(idx[r, :len(legal)],
                                                                                                 legal)
    assert np.array_equal(agent.act(vg.observation, vg.action_mask), idx[np.arange(16), np.argmax(q, axis=1)])


def test_bad_settings_and_wrong_checkpoints_are_refused_with_nothing_written(tmp_path, capsys):
    for bad in (["--epsilon", "2"], ["--pool", "nope"], ["--batch", "0"], ["--ruleset", "nope"]):
        with pytest.raises(SystemExit):
            run(tmp_path, *bad, name="bad")
        assert not (tmp_path / "bad").exists()
    with pytest.raises(SystemExit):
        run(tmp_path, "--resume", name="none")
    assert "no checkpoint" in capsys.readouterr().err
    with pytest.raises(ValueError, match="checkpoint=PATH"):
        agents.make("dmc", "core", 4)
    with pytest.raises(ValueError, match="not a train_dmc checkpoint"):
        agents.make("dmc", "core", 4, checkpoint="agents/checkpoints/core-4p.pt")
