"""train_ppo --view full and the ``fictive`` agent: a network that reads every seat's observation (a
perfect-information learner, the fictive player of skill versus luck). Its input is training's full view, it plays
legal actions only and the same ones for a seed, and every mix-up of views is refused with nothing changed."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
import shedders
from agents.base import act_in
from experiments import train_ppo as P
from experiments.runlog import read_rows

TINY = ["--num-envs", "8", "--num-steps", "16", "--hidden", "32", "--eval-every", "0", "--eval-deals", "0",
        "--checkpoint-every", "1", "--quiet", "--view", "full", "--self-play", "0", "--pool-snapshots", "0",
        "--pool", "greedy", "--learner-seats", "1"]


def run(tmp_path, *extra, name="tiny"):
    return P.main([*TINY, "--out", str(tmp_path), "--name", name, *extra])


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny full-view run on core: its directory and the run's result."""
    tmp = tmp_path_factory.mktemp("fictive")
    return tmp, run(tmp, "--ruleset", "core", "--total-steps", "256")


def test_a_tiny_full_view_run_is_finite_and_reads_every_seat(trained):
    tmp, out = trained
    assert out["counters"]["update"] == 2
    for r in read_rows(tmp / "tiny" / "progress.csv"):
        for k in ("loss", "pg_loss", "v_loss", "entropy"):
            assert np.isfinite(float(r[k])), k
    ck = torch.load(tmp / "tiny" / "checkpoint.pt", weights_only=True)
    vg = shedders.VectorGame("core", 1, 4)
    assert ck["config"]["view"] == "full" and ck["obs_size"] == 4 * vg.observation_size


def test_the_fictive_agent_reads_trainings_full_view_and_plays_legal_seeded_actions(trained):
    tmp, _ = trained
    spec = f"fictive:checkpoint={tmp / 'tiny' / 'checkpoint.pt'}"
    a, b = (agents.make_spec(spec, "core", 4, seed=3) for _ in range(2))
    vg = shedders.VectorGame("core", 16, 4, seed=4)
    vg.reset()
    rows = np.arange(16)
    for step in range(120):
        if step in (0, 60):  # setup, then play: the agent's input is train_ppo's full view of the decider
            mine = np.array([0, 3, 5, 9, 12])
            view = a.full_view(vg.state, mine)
            assert np.array_equal(view, P.full_view(vg, vg.current_player.astype(np.int64)[mine], mine))
            assert np.array_equal(view[:, :vg.observation_size], vg.observation[mine])
        x, y = act_in(a, vg, rows), act_in(b, vg, rows)
        assert np.array_equal(x, y)
        assert np.all(vg.action_mask[rows, x] == 1)
        vg.step(x)


def test_views_are_never_mixed_up(trained, tmp_path):
    tmp, _ = trained
    full = tmp / "tiny" / "checkpoint.pt"
    with pytest.raises(ValueError, match="plays as fictive"):
        agents.make_spec(f"ppo:checkpoint={full}", "core", 4)
    with pytest.raises(ValueError, match="checkpoint=PATH"):
        agents.make("fictive", "core", 4)
    agent = agents.make_spec(f"fictive:checkpoint={full}", "core", 4)
    vg = shedders.VectorGame("core", 2, 4, seed=1)
    vg.reset()
    with pytest.raises(ValueError, match="engine state"):
        agent.act(vg.observation, vg.action_mask)
    own = P.main(["--num-envs", "8", "--num-steps", "8", "--hidden", "32", "--eval-deals", "0", "--quiet",
                  "--total-steps", "64", "--out", str(tmp_path), "--name", "own"])
    with pytest.raises(ValueError, match="plays as ppo"):
        agents.make_spec(f"fictive:checkpoint={own['run_dir']}/checkpoint.pt", "core", 4)
    # a resumed run keeps its view; a fictive run needs a fixed pool; omg has no fictive agent
    with pytest.raises(SystemExit):
        P.main(["--num-envs", "8", "--num-steps", "8", "--hidden", "32", "--eval-deals", "0", "--quiet",
                "--total-steps", "128", "--out", str(tmp_path), "--name", "own", "--resume", "--view", "full",
                "--self-play", "0", "--pool-snapshots", "0"])
    for bad, name in ((["--self-play", "0.5"], "sp"), (["--ruleset", "omg"], "omg")):
        with pytest.raises(SystemExit):
            run(tmp_path, *bad, "--total-steps", "64", name=name)
        assert not (tmp_path / name).exists()
