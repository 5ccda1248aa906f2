"""train_ppo --critic full: a perfect-information critic (PerfectDou) that reads every seat's observation in
training, while the policy acts on its own. Its input, a tiny run (finite losses, the critic in the checkpoint, a
ppo agent and a guided one), --resume with the critic restored, and refusals with nothing changed."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
import shedders
from agents.base import act_in
from agents.guided import Critic, load_networks
from experiments import train_ppo as P
from experiments.runlog import read_rows

TINY = ["--num-envs", "8", "--num-steps", "16", "--hidden", "32", "--critic-hidden", "16", "--eval-every", "0",
        "--eval-deals", "0", "--snapshot-every", "1", "--checkpoint-every", "1", "--quiet", "--critic", "full"]


def run(tmp_path, *extra, name="tiny"):
    return P.main([*TINY, "--out", str(tmp_path), "--name", name, *extra])


@pytest.mark.parametrize("ruleset", ["core", "omg"])
def test_the_full_view_is_every_seats_observation_the_deciders_first(ruleset):
    vg = shedders.VectorGame(ruleset, 6, 4, seed=5)
    vg.reset()
    for _ in range(30):  # into the play, where hands differ
        vg.step(vg.sample_legal())
    rows = np.array([0, 2, 3, 5])
    seats = np.array([1, 0, 3, 2])
    full = P.full_view(vg, seats, rows)
    size = vg.observation_size
    assert full.shape == (4, 4 * size) and full.dtype == np.int8
    for k in range(4):
        at = np.zeros(vg.num_envs, np.int64)
        at[rows] = (seats + k) % 4
        assert np.array_equal(full[:, k * size:(k + 1) * size], vg.observe(at)[rows]), k
    cur = vg.current_player.astype(np.int64)  # the decider's own part is what the policy reads
    mine = P.full_view(vg, cur[rows], rows)[:, :size]
    assert np.array_equal(mine, vg.observation[rows])
    assert not np.array_equal(full[:, :size], full[:, size:2 * size])  # another seat's view is other information


@pytest.mark.slow
def test_a_tiny_full_critic_run_is_finite_and_its_checkpoint_plays_as_ppo_and_guided(tmp_path):
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "384")
    assert out["counters"]["update"] == 3
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    for r in rows:
        for k in ("loss", "pg_loss", "v_loss", "own_v_loss", "entropy", "explained_variance"):
            assert np.isfinite(float(r[k])), k
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    assert ck["config"]["critic"] == "full" and ck["critic_hidden"] == 16 and ck["critic_squash"] is False
    critic = Critic(ck["obs_size"], 4, 16)
    critic.load_state_dict(ck["critic"])
    agent = agents.make_spec(f"ppo:checkpoint={tmp_path / 'tiny' / 'checkpoint.pt'}", "core", 4, seed=1)
    vg = shedders.VectorGame("core", 4, 4, seed=2)
    vg.reset()
    acts = act_in(agent, vg, np.arange(4))
    assert all(vg.action_mask[g, a] for g, a in enumerate(acts))
    _, loaded, _ = load_networks(tmp_path / "tiny" / "checkpoint.pt", "core", 4)
    for k, v in critic.state_dict().items():
        assert torch.equal(v, loaded.state_dict()[k]), k


@pytest.mark.slow
def test_resume_restores_the_critic_and_another_critic_is_refused_with_nothing_changed(tmp_path):
    run(tmp_path, "--ruleset", "fatality", "--total-steps", "256")
    path = tmp_path / "tiny" / "checkpoint.pt"
    before = torch.load(path, weights_only=True)
    out = run(tmp_path, "--ruleset", "fatality", "--total-steps", "384", "--lr", "0", "--resume")
    assert out["counters"]["update"] == 3 and out["counters"]["global_step"] == 384
    after = torch.load(path, weights_only=True)
    for k, v in before["critic"].items():  # a zero step size: the restored critic is the saved one
        assert torch.equal(v, after["critic"][k]), k
    raw = path.read_bytes()
    for bad in (["--critic", "shared"], ["--critic-hidden", "8"]):
        with pytest.raises(SystemExit):
            run(tmp_path, "--ruleset", "fatality", "--total-steps", "512", "--resume", *bad)
    assert path.read_bytes() == raw
    assert [int(r["update"]) for r in read_rows(tmp_path / "tiny" / "progress.csv")] == [1, 2, 3]


def test_an_unknown_critic_is_refused_before_anything_is_written(tmp_path, capsys):
    for bad in (["--critic", "oracle"], ["--critic-hidden", "0"]):
        with pytest.raises(SystemExit):
            run(tmp_path, "--ruleset", "core", "--total-steps", "128", *bad)
        assert "critic" in capsys.readouterr().err
    assert not (tmp_path / "tiny").exists()


def test_the_update_fits_the_critic_and_the_own_value_head_to_the_returns():
    torch.manual_seed(0)
    n, size, players = 64, 12, 4
    model = P.Policy(size, 6, 16)
    critic = Critic(size, players, 16)
    opt = torch.optim.Adam([*model.parameters(), *critic.parameters()], lr=1e-2)
    obs = torch.randint(0, 2, (n, size), dtype=torch.int8)
    full = torch.cat([obs, torch.randint(0, 2, (n, size * (players - 1)), dtype=torch.int8)], dim=1)
    ret = full[:, size:2 * size].float().sum(1) / size - 0.5  # the return depends on another seat's view only
    mask = torch.ones((n, 6), dtype=torch.bool)
    act = torch.randint(0, 6, (n,))
    with torch.no_grad():
        logp = torch.log_softmax(model(obs.float())[0], 1).gather(1, act[:, None]).squeeze(1)
        val = critic(full.float())
    cfg = P.Config(update_epochs=40, num_minibatches=1, ent_coef=0.0)

    def err(values):
        return float(((values - ret) ** 2).mean())

    start_critic, start_own = err(val), err(model.value(obs.float()).detach())
    stats = P.ppo_update(model, opt, cfg, obs, mask, act, logp, val, torch.zeros(n), ret, "cpu",
                         np.random.default_rng(0), None, (critic, full))
    assert np.isfinite(stats["v_loss"]) and np.isfinite(stats["own_v_loss"])
    with torch.no_grad():
        end_critic, end_own = err(critic(full.float())), err(model.value(obs.float()))
    assert end_critic < 0.5 * start_critic  # the critic, which sees the other seat, fits the returns
    assert end_own < start_own  # the policy's own head learns the same returns beside it
