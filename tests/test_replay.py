"""Replays: every ruleset's games round-trip through a JSON-lines file, state by state; bad files are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

import shedders
from shedders import replay as R
from shedders.rules import env_kwargs, make_rules

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out

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


def rechained(lines: list[str]) -> str:
    """The file's lines with a fresh digest chain: what a forger who knows the format writes."""
    prev, out = "", []
    for text in lines:
        line = json.loads(text)
        prev = line["chain"] = R.chain_digest(prev, line)
        out.append(json.dumps(line))
    return "\n".join(out) + "\n"


def test_a_tampered_replay_is_detected(tmp_path):
    rec, _ = record_random_game("core", 3, {}, seed=2)
    path = rec.save(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    # change the recorded state of ply 10: the chain breaks at that line, and with a fresh chain the replay names
    # the ply where states part
    step = json.loads(lines[11])
    step["hash"] = "0" * 16
    lines[11] = json.dumps(step)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(R.ReplayError, match="bad.jsonl:12: the digest chain breaks"):
        R.verify(bad)
    bad.write_text(rechained(lines))
    with pytest.raises(R.ReplayError, match="ply 10"):
        R.verify(bad)
    # an illegal action in the middle: refused with the ply and the legal actions
    step = json.loads(lines[11])
    step["action"] = 9999
    lines[11] = json.dumps(step)
    bad.write_text(rechained(lines))
    with pytest.raises(R.ReplayError, match="ply 10.*not legal"):
        R.verify(bad)


@pytest.mark.parametrize("text,match", [
    ("", "first line must be the replay header"),
    ('{"type": "step"}\n', "first line must be the replay header"),
    ('{"type": "header", "format": "other/9"}\n', "unknown format"),
    ('{"type": "header", "format": "shedders-replay/1"}\n', "lacks ruleset"),
    ("not json\n", "not JSON"),
    ("[1, 2]\n", "a replay line is a JSON object"),
    (('{"type": "header", "format": "shedders-replay/2", "ruleset": "core", "num_players": "3", "env_kwargs": {}, '
     '"rng": "1", "initial_state": {}}\n'), "needs 'num_players'"),
    (('{"type": "header", "format": "shedders-replay/2", "ruleset": "core", "num_players": 3, "env_kwargs": {}, '
     '"rng": "-1", "initial_state": {}}\n'), "rng must be a decimal uint64"),
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
    assert replay_main([str(path), "--quiet"]) == 2  # the chain is broken: not a replay as written
    assert "the digest chain breaks" in capsys.readouterr().err
    path.write_text(rechained(lines))
    assert replay_main([str(path), "--quiet"]) == 1
    assert "replay does not reproduce" in capsys.readouterr().out


def test_a_forged_ending_is_caught_even_with_a_fresh_chain(tmp_path):
    rec, _ = record_random_game("core", 3, {}, seed=5)
    path = rec.save(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    end = json.loads(lines[-1])
    assert end["type"] == "end" and end["over"] is True and end["decisions"] == len(lines) - 2
    for key, forged, match in [("placing", [0, 1], "placing"), ("rewards", [1, 1, 1], "rewards"),
                               ("truncated", True, "truncated"), ("over", False, "over")]:
        bad = json.loads(lines[-1])
        bad[key] = forged
        path.write_text("\n".join(lines[:-1] + [json.dumps(bad)]) + "\n")
        with pytest.raises(R.ReplayError, match="digest chain breaks"):
            R.load(path)
        path.write_text(rechained(lines[:-1] + [json.dumps(bad)]))
        with pytest.raises(R.ReplayError, match=f"end line's {match}"):
            R.verify(path)


def test_step_names_plies_and_missing_hashes_are_checked(tmp_path):
    rec, _ = record_random_game("og", 3, {}, seed=1)
    lines = rec.save(tmp_path / "g.jsonl").read_text().splitlines()
    path = tmp_path / "bad.jsonl"
    step = json.loads(lines[3])
    step["name"] = "play 4xA"
    path.write_text(rechained(lines[:3] + [json.dumps(step)] + lines[4:]))
    with pytest.raises(R.ReplayError, match="ply 2: action .* the replay names it 'play 4xA'"):
        R.verify(path)
    step = json.loads(lines[3])
    del step["hash"]
    path.write_text(rechained(lines[:3] + [json.dumps(step)] + lines[4:]))
    with pytest.raises(R.ReplayError, match=":4: the step needs 'hash'"):
        R.load(path)
    step = json.loads(lines[3])
    step["ply"] = 7
    path.write_text(rechained(lines[:3] + [json.dumps(step)] + lines[4:]))
    with pytest.raises(R.ReplayError, match="decision 2 is recorded as ply 7"):
        R.verify(path)


def test_a_file_cut_at_a_line_boundary_is_incomplete(tmp_path, capsys):
    from shedders.cli import replay_main

    rec, _states = record_random_game("south_african", 4, {}, seed=3)
    lines = rec.save(tmp_path / "g.jsonl").read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    half = len(lines) // 2
    cut.write_text("\n".join(lines[:half]) + "\n")
    with pytest.raises(R.ReplayError, match=f"incomplete: the file ends after {half - 1} decisions"):
        R.load(cut)
    assert replay_main([str(cut), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "incomplete" in err and len(err.strip().splitlines()) == 1
    dropped = tmp_path / "dropped.jsonl"  # a line taken out of the middle
    dropped.write_text("\n".join(lines[:half] + lines[half + 1:]) + "\n")
    with pytest.raises(R.ReplayError, match=f"dropped.jsonl:{half + 1}: the digest chain breaks"):
        R.load(dropped)


def test_the_cli_answers_a_file_that_is_not_a_replay_in_one_line_with_exit_2(tmp_path, capsys):
    from shedders.cli import replay_main

    cases = {"latin1.jsonl": "caf\xe9".encode("latin-1"), "list.jsonl": b"[1]\n", "missing.jsonl": None,
             "header.jsonl": b'{"type": "header", "format": "shedders-replay/2", "ruleset": "nope", '
                             b'"num_players": 3, "env_kwargs": {}, "rng": "1", "initial_state": {}}\n'}
    for name, data in cases.items():
        if data is not None:
            (tmp_path / name).write_bytes(data)
        code = replay_main([str(tmp_path / name), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (name, err)
    header = tmp_path / "header.jsonl"  # a well-formed file whose header names no game: refused when loaded
    prev = ""
    line = json.loads(header.read_text())
    line["chain"] = R.chain_digest(prev, line)
    end = {"type": "end", "over": False, "decisions": 0, "placing": [], "rewards": [0, 0, 0], "truncated": False}
    end["chain"] = R.chain_digest(line["chain"], end)
    header.write_text(json.dumps(line) + "\n" + json.dumps(end) + "\n")
    assert replay_main([str(header), "--quiet"]) == 2
    assert "does not describe a game" in capsys.readouterr().err


def test_a_game_left_early_says_so_in_its_end_line(tmp_path):
    env = shedders.env("core", 3)
    rec = R.Recorder(env)
    rec.reset(seed=1)
    for _ in range(5):
        rec.step(env.unwrapped.legal_actions()[0])
    rep = R.load(rec.save(tmp_path / "g.jsonl"))
    assert rep.end["over"] is False and rep.end["decisions"] == 5 and R.verify(tmp_path / "g.jsonl") == 5


def test_a_format_1_replay_loads_only_when_asked_for(tmp_path, capsys):
    """Files written before the digest chain (format 1: no chain, end line optional) are read only with
    ``legacy=True`` (``shedders replay --legacy``): else setting a file's format line back to 1, with its chains,
    end line and some steps removed, would pass. Read that way only the replay check holds, and the command line
    does not claim an intact chain."""
    from shedders.cli import replay_main

    rec, states = record_random_game("core", 3, {}, seed=6)
    lines = [json.loads(t) for t in rec.save(tmp_path / "g.jsonl").read_text().splitlines()]
    for line in lines:
        del line["chain"]
    lines[0]["format"] = "shedders-replay/1"
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(json.dumps(line) for line in lines[:-1]) + "\n")  # format 1 had no end line here
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(json.dumps(line) for line in lines[:-11]) + "\n")  # the downgrade: 10 steps dropped
    for path in (old, cut):
        with pytest.raises(R.ReplayError, match="no digest chain"):
            R.verify(path)
        assert replay_main([str(path), "--quiet"]) == 2
    assert R.verify(old, legacy=True) == len(states) - 1
    capsys.readouterr()
    assert replay_main([str(old), "--quiet", "--legacy"]) == 0
    out = capsys.readouterr().out
    assert "every state matches the recording" in out and "digest chain" not in out


@pytest.mark.parametrize("ruleset", ["core", "omg"])
def test_a_rewritten_header_seed_is_refused(tmp_path, ruleset):
    """The seed is checked: an env's recording is dealt again from it, so a header whose seed was changed (and
    its chain rewritten) is refused."""
    rec, _ = record_random_game(ruleset, 3, {}, seed=6)
    lines = [json.loads(t) for t in rec.save(tmp_path / "g.jsonl").read_text().splitlines()]
    assert R.verify(tmp_path / "g.jsonl") == len(lines) - 2
    lines[0]["seed"] += 1
    prev = ""
    for line in lines:  # a forger rewrites the whole chain
        line.pop("chain")
        line["chain"] = prev = R.chain_digest(prev, line)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    with pytest.raises(R.ReplayError, match="seed"):
        R.verify(forged)
