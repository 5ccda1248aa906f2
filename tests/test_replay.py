"""Replays: every ruleset's games round-trip through a JSON-lines file, state by state; bad files are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

import shedders
from shedders import replay as R
from shedders.rules import env_kwargs, make_rules

CONFIGS = [
    ("og", 4, {}), ("og", 6, {}), ("fatality", 4, {}), ("fatality", 3, {"rules": {"swap_phase": False}}),
    ("core", 4, {}), ("south_african", 5, {}),
    ("house", 4, {"base": "south_african", "rules": {"slap": True, "reverse_on_doubles": True}}),
    ("core", 3, {"ply_cap": 60}), ("omg", 4, {}), ("omg", 2, {"ply_cap": 400}),
]


def record_random_game(ruleset, n, kwargs, seed):
    env = shedders.env(ruleset, n, **kwargs)
    rec = R.Recorder(env)
    rec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    states = [env.unwrapped.state_dict()]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        live = not (term or trunc)
        rec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))) if live else None)
        if live:
            states.append(env.unwrapped.state_dict())
    return rec, states


@pytest.mark.parametrize("ruleset,n,kwargs", CONFIGS, ids=[f"{c[0]}-{c[1]}p-{i}" for i, c in enumerate(CONFIGS)])
def test_replay_reproduces_every_state(ruleset, n, kwargs, tmp_path):
    rec, states = record_random_game(ruleset, n, kwargs, seed=5)
    path = rec.save(tmp_path / "game.jsonl")
    seen = []
    for step, env in R.replay(path):
        seen.append(env.state_dict())
    assert seen == states  # every state, exactly, from the first to the last
    assert env.state_dict()["phase"] == "over"
    rep = R.load(path)
    assert rep.end is not None and rep.end["placing"] == env.placing()
    assert rep.end["truncated"] == bool(env._state.truncated[0])
    assert [s["name"] for s in rep.steps] == [env.action_names[s["action"]] for s in rep.steps]


@pytest.mark.parametrize("ruleset,n,kwargs", CONFIGS)
def test_env_kwargs_rebuild_the_rules(ruleset, n, kwargs):
    rules = make_rules(ruleset, n, **kwargs)
    assert make_rules(ruleset, n, **env_kwargs(rules)) == rules


def test_replay_from_a_scenario_keeps_the_random_stream(tmp_path):
    # fatality draws its first player after the swap phase: the replay must restore the stream, not only the deal
    for seed in range(6):
        rec, states = record_random_game("fatality", 4, {}, seed)
        assert R.verify(rec.save(tmp_path / f"f{seed}.jsonl")) == len(states) - 1


def test_a_tampered_replay_is_detected(tmp_path):
    rec, _ = record_random_game("core", 3, {}, seed=2)
    path = rec.save(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    # change the recorded state of ply 10: the replay names the ply where states part
    step = json.loads(lines[11])
    step["hash"] = "0" * 16
    lines[11] = json.dumps(step)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(R.ReplayError, match="ply 10"):
        R.verify(bad)
    # an illegal action in the middle: refused with the ply and the legal actions
    step = json.loads(lines[11])
    step["action"] = 9999
    lines[11] = json.dumps(step)
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(R.ReplayError, match="ply 10.*not legal"):
        R.verify(bad)


@pytest.mark.parametrize("text,match", [
    ("", "first line must be the replay header"),
    ('{"type": "step"}\n', "first line must be the replay header"),
    ('{"type": "header", "format": "other/9"}\n', "unknown format"),
    ('{"type": "header", "format": "shedders-replay/1"}\n', "lacks ruleset"),
    ("not json\n", "not JSON"),
])
def test_malformed_replays_are_refused(text, match, tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(text)
    with pytest.raises(R.ReplayError, match=match):
        R.load(path)


def test_tournament_games_replay_exactly(tmp_path):
    from experiments import tournament as T

    cfg = T.Config(ruleset="og", players=3, agents=["random", "greedy", "search:budget=4"], games=2, seed=3,
                   out=str(tmp_path), name="t", replays=3)
    summary = T.run(cfg, progress=False)
    files = sorted((tmp_path / "t" / "replays").glob("*.jsonl"))
    assert len(files) == 3
    for f in files:
        rep = R.load(f)
        assert rep.header["source"] == "tournament" and rep.end is not None
        assert R.verify(f) == len(rep.steps)
    assert summary["games"] == 6


def test_omg_tournament_games_replay_exactly(tmp_path):
    from experiments import tournament as T

    cfg = T.Config(ruleset="omg", players=3, agents=["random", "greedy"], games=2, seed=1, out=str(tmp_path),
                   name="o", replays=2)
    T.run(cfg, progress=False)
    for f in sorted((tmp_path / "o" / "replays").glob("*.jsonl")):
        assert R.verify(f) == len(R.load(f).steps) > 0


def test_cli_replay_prints_and_checks(tmp_path, capsys):
    from shedders.cli import replay_main

    rec, states = record_random_game("south_african", 3, {}, seed=4)
    path = rec.save(tmp_path / "g.jsonl")
    assert replay_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert f"all {len(states) - 1} decisions replayed; every state matches the recording" in out
    assert out.count("ply ") >= len(states) - 1
    lines = path.read_text().splitlines()
    step = json.loads(lines[5])
    step["hash"] = "f" * 16
    lines[5] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    assert replay_main([str(path), "--quiet"]) == 1
    assert "replay does not reproduce" in capsys.readouterr().out
