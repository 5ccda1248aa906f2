"""The network-guided search (``guided``) and its expert iteration (``experiments.train_exit``)."""

import csv
import math

import numpy as np
import pytest
import torch

import agents
import shedders
from agents.base import act_in
from agents.ppo import load_file
from experiments import train_exit as X
from shedders.engine.palace import layout as K

SMALL = {"worlds": 2, "depth": 3, "top_k": 3}


def play(agent, ruleset, games=6, seed=0, steps=400, other=None):
    """Step ``games`` games with ``agent`` in even seats (``other``, default the same agent, in odd ones); every
    action it picks is checked against the mask. Returns its actions in order."""
    vg = shedders.VectorGame(ruleset, games, 4, seed=seed)
    vg.reset()
    other = other or agent
    chosen = []
    for _ in range(steps):
        cur = vg.current_player
        a = np.zeros(games, np.int64)
        for who, rows in ((agent, np.flatnonzero(cur % 2 == 0)), (other, np.flatnonzero(cur % 2 == 1))):
            if len(rows):
                a[rows] = act_in(who, vg, rows)
        assert np.all(vg.action_mask[np.arange(games), a] == 1)  # legal
        chosen.append(a.copy())
        vg.step(a)
    return np.array(chosen)


@pytest.mark.parametrize("ruleset", ["core", "fatality", "og", "south_african"])
def test_guided_search_chooses_only_legal_actions(ruleset):
    play(agents.make("guided", ruleset, 4, seed=1, **SMALL), ruleset, steps=300,
         other=agents.make("expert", ruleset, 4))


def test_guided_search_is_reproducible_from_its_seed():
    a = play(agents.make("guided", "core", 4, seed=7, **SMALL), "core", games=4, steps=200)
    b = play(agents.make("guided", "core", 4, seed=7, **SMALL), "core", games=4, steps=200)
    assert np.array_equal(a, b)


def test_guided_search_values_every_candidate_in_the_same_worlds():
    vg = shedders.VectorGame("core", 8, 4, seed=2)
    vg.reset()
    g = agents.make("guided", "core", 4, seed=0, worlds=4, depth=4, top_k=3)
    expert = agents.make("expert", "core", 4, seed=0)
    for _ in range(150):  # past setup, into play
        vg.step(act_in(expert, vg, np.arange(8)))
    rows = np.flatnonzero((vg.state.phase != K.PH_SETUP) & (vg.num_legal > 1))
    assert len(rows)
    out = act_in(g, vg, rows)
    last = g.last
    for j, a in enumerate(out):
        k = last["num"][j]
        assert 2 <= k <= 3 and a in last["candidates"][j, :k]
        assert np.all(np.isfinite(last["value"][j, :k]))
        # the choice is the best value plus the prior's tie-break
        score = last["value"][j, :k] + g.prior * last["prior"][j, :k]
        assert a == last["candidates"][j, int(np.argmax(score))]
        # candidates are the policy's most likely actions, most likely first
        assert np.all(np.diff(last["prior"][j, :k]) <= 0)


def test_guided_search_refuses_bad_input():
    with pytest.raises(ValueError, match="not available for omg"):
        agents.make("guided", "omg", 4)
    from agents.guided import GuidedSearchAgent

    with pytest.raises(ValueError, match="palace rulesets"):
        GuidedSearchAgent("omg", 4)
    for key, bad in (("worlds", 0), ("depth", -1), ("top_k", 0), ("worlds", 1.5), ("prior", -1.0),
                     ("patience", -1)):
        with pytest.raises(ValueError, match=key):
            agents.make("guided", "core", 4, **{key: bad})
    with pytest.raises(ValueError, match="no checkpoint"):
        agents.make("guided", "core", 3)
    with pytest.raises(ValueError, match="trained for"):
        agents.make("guided", "og", 4, checkpoint="agents/checkpoints/core-4p.pt")
    g = agents.make("guided", "core", 4, **SMALL)
    vg = shedders.VectorGame("core", 2, 4, seed=0)
    vg.reset()
    with pytest.raises(ValueError, match="engine state"):
        g.act(vg.observation, vg.action_mask)


def test_a_small_batch_runs_the_network_on_one_torch_thread_and_restores_the_count():
    """``few_rows_threads``: a network call on fewer than FEW_ROWS rows (a guided decision at batch 1 has 64
    leaves) runs on one torch thread, a larger one on torch's threads as set, and the count is restored after,
    also when the block raises; the guided search's own network calls at batch 1 see one thread."""
    from agents.ppo import FEW_ROWS, few_rows_threads

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with few_rows_threads(64):
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with few_rows_threads(FEW_ROWS):
            assert torch.get_num_threads() == 2
        with pytest.raises(KeyError), few_rows_threads(1):
            raise KeyError("inside")
        assert torch.get_num_threads() == 2
        g = agents.make("guided", "core", 4, seed=0)
        seen = []
        legal = g.policy.legal
        g.policy.legal = lambda *a, **k: (seen.append(torch.get_num_threads()), legal(*a, **k))[1]
        vg = shedders.VectorGame("core", 1, 4, seed=2)
        vg.reset()
        for _ in range(30):
            vg.step(act_in(g, vg, np.arange(1)))
        assert seen and set(seen) == {1} and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def exit_args(tmp_path, name, rounds):
    return ["--ruleset", "core", "--rounds", str(rounds), "--games", "6", "--worlds", "2", "--depth", "2",
            "--batch", "256", "--critic-warmup", "1", "--out", str(tmp_path), "--name", name, "--quiet",
            "--seed", "3"]


def test_train_exit_learns_round_trips_and_resumes_from_the_same_counters(tmp_path):
    torch.set_num_threads(1)
    out = X.main(exit_args(tmp_path, "straight", 2))
    for key in ("policy_loss", "value_loss", "critic_loss"):
        assert math.isfinite(out["last"][key])
    assert out["counters"]["round"] == 2 and out["counters"]["games"] == 12
    ck_path = tmp_path / "straight" / "checkpoint.pt"
    ck = load_file(ck_path)
    assert ck["counters"] == out["counters"]
    # the checkpoint is a guided agent (with its critic) and a ppo agent
    g = agents.make("guided", "core", 4, checkpoint=str(ck_path), **SMALL)
    assert g.critic is not None
    for name, param in g.policy.state_dict().items():
        assert torch.equal(param, ck["model"][name])
    play(g, "core", games=2, steps=60)
    agents.make("ppo", "core", 4, checkpoint=str(ck_path))
    # a run stopped after one round and resumed ends where the straight run ended, with the same network
    X.main(exit_args(tmp_path, "resumed", 1))
    with pytest.raises(SystemExit):  # a second start without --resume would overwrite the run: refused
        X.main(exit_args(tmp_path, "resumed", 2))
    again = X.main(exit_args(tmp_path, "resumed", 2) + ["--resume"])
    assert {k: v for k, v in again["counters"].items() if k != "seconds"} == {
        k: v for k, v in out["counters"].items() if k != "seconds"}
    resumed = load_file(tmp_path / "resumed" / "checkpoint.pt")
    for name in ck["model"]:
        assert torch.equal(resumed["model"][name], ck["model"][name])
    with open(tmp_path / "resumed" / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["round"] for r in rows] == ["1", "2"]


def test_train_exit_with_a_fixed_expert_plays_and_labels_its_choices():
    """``--expert SPEC``: the searched decisions are the fixed agent's, and each one's target is that choice alone
    (one-hot over the decision's legal ids); the other decisions carry no policy target."""
    from agents.guided import Critic
    from agents.ppo import default_checkpoint, policy_from

    torch.set_num_threads(1)
    cfg = X.Config(games=4, expert="expert:cycle_break=0", search_share=1.0, self_play=1.0, ply_cap=300)
    ck = load_file(default_checkpoint("core", 4))
    policy = policy_from(ck)
    data = X.play_round(cfg, policy, Critic(ck["obs_size"], 4), 0)
    taught = np.flatnonzero(data["target"] >= 0)
    assert len(taught) > 50 and data["searched"] == len(taught)
    soft, legal = data["soft"][taught], data["legal"][taught]
    assert np.all(soft.sum(1) == 1) and np.all((soft == 0) | (soft == 1))
    assert np.all(legal[np.arange(len(taught)), soft.argmax(1)] == data["target"][taught])
    # the target is what the expert chooses in that position (cycle_break=0: it is deterministic)
    obs = data["obs"][taught]
    mask = np.zeros((len(taught), K.N_ACTIONS), np.int8)
    rows, cols = np.nonzero(legal >= 0)
    mask[rows, legal[rows, cols]] = 1
    assert np.array_equal(agents.make("expert", "core", 4, cycle_break=0).act(obs, mask), data["target"][taught])
    assert np.all(data["soft"][data["target"] < 0] == 0)


def test_train_exit_min_gap_teaches_only_the_searchs_confident_corrections():
    """``--min-gap G``: a searched decision teaches only where the search valued its choice at least G above the
    policy's most likely action, so with a tiny G every taught choice differs from that action, and with a gap no
    value can reach (rewards lie in [-1, 1]) nothing is taught."""
    from agents.guided import Critic
    from agents.ppo import default_checkpoint, legal_index, policy_from

    torch.set_num_threads(1)
    ck = load_file(default_checkpoint("core", 4))
    policy = policy_from(ck)
    base = dict(games=4, search_share=1.0, self_play=1.0, ply_cap=300, leaf="value", **SMALL)
    critic = Critic(ck["obs_size"], 4)
    tiny = X.play_round(X.Config(min_gap=1e-9, **base), policy, critic, 0)
    taught = np.flatnonzero(tiny["target"] >= 0)
    assert 0 < len(taught) < tiny["searched"]
    legal = tiny["legal"][taught]
    mask = np.zeros((len(taught), K.N_ACTIONS), bool)
    rows, cols = np.nonzero(legal >= 0)
    mask[rows, legal[rows, cols]] = True
    with torch.no_grad():
        idx, valid = legal_index(torch.from_numpy(mask))
        logp, _ = policy.legal(torch.from_numpy(tiny["obs"][taught]).float(), idx, valid)
    top = idx.numpy()[np.arange(len(taught)), logp.masked_fill(~valid, -np.inf).argmax(1).numpy()]
    assert np.all(top != tiny["target"][taught])
    none = X.play_round(X.Config(min_gap=3.0, **base), policy, critic, 0)
    assert none["searched"] > 0 and np.all(none["target"] < 0) and np.all(none["soft"] == 0)


def test_train_exit_anchor_keeps_the_policy_near_its_start(tmp_path):
    """``--anchor-coef``: the KL from the start network to the policy is a finite loss term, logged."""
    torch.set_num_threads(1)
    out = X.main(exit_args(tmp_path, "anchored", 1) + ["--anchor-coef", "1.0", "--critic-warmup", "0"])
    assert math.isfinite(out["last"]["anchor_kl"]) and out["last"]["anchor_kl"] > -1e-6


def test_train_exit_refuses_bad_configs(tmp_path):
    for args in (["--ruleset", "omg"], ["--rounds", "0"], ["--search-share", "2"], ["--pool", "nobody"],
                 ["--leaf", "oracle"], ["--temperature", "0"], ["--expert", "nobody"],
                 ["--min-gap", "-1"], ["--anchor-coef", "-0.5"], ["--expert", "expert", "--min-gap", "0.05"]):
        with pytest.raises(SystemExit):
            X.main(args + ["--out", str(tmp_path), "--quiet"])
    assert not any(tmp_path.iterdir())  # nothing written


@pytest.mark.slow  # spawns two processes and starts Ray
def test_train_exit_plays_the_same_round_on_any_backend():
    """A round's chunks are seeded by their index: one process, two spawned processes and two Ray actors give the
    same data, decision for decision (a DAgger round with a fixed expert, so that the labels are the search's)."""
    from agents.guided import Critic
    from agents.ppo import default_checkpoint, policy_from

    torch.set_num_threads(1)
    ck = load_file(default_checkpoint("core", 4))
    policy = policy_from(ck).eval()
    critic = Critic(ck["obs_size"], 4).eval()
    base = {"games": 6, "chunk": 2, "expert": "search:budget=16", "search_share": 0.5, "self_play": 0.5,
            "ply_cap": 200}
    one = X.play_round(X.Config(**base), policy, critic, 1)
    assert one["searched"] > 0 and len(one["obs"]) == one["decisions"]
    for backend in ("local", "ray"):
        other = X.play_round(X.Config(workers=2, backend=backend, **base), policy, critic, 1)
        for key in ("obs", "cobs", "legal", "soft", "target", "returns", "learner"):
            assert np.array_equal(one[key], other[key]), (backend, key)
        assert (one["decisions"], one["searched"], one["agree"]) == (other["decisions"], other["searched"],
                                                                    other["agree"])
