"""Nothing lost, nothing mixed up: a training run never overwrites another, a resume logs each update once, a
damaged checkpoint is refused, a tournament never credits saved games to other agents, and ``shedders play`` saves
what was played on any exit."""

from __future__ import annotations

import pytest

import agents
import shedders
from experiments.runlog import read_rows

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out


# ----------------------------------------------------------------------------------------------------------------
# Nothing lost, nothing mixed up: tournaments
# ----------------------------------------------------------------------------------------------------------------
def test_a_tournament_refuses_a_bad_agent_spec_before_it_writes_or_plays_anything(tmp_path):
    from experiments import tournament as T

    cfg = T.Config(agents=["random", "search:budgett=3"], games=2, out=str(tmp_path), name="t")
    with pytest.raises(ValueError, match="unknown option 'budgett'"):
        T.run(cfg, progress=False)
    assert not (tmp_path / "t").exists()


def test_a_tournament_rerun_with_other_agents_never_reuses_the_saved_chunks(tmp_path):
    from experiments import tournament as T

    first = T.run(T.Config(agents=["random", "expert"], games=2, out=str(tmp_path), name="t"), progress=False)
    chunk = tmp_path / "t" / "chunks" / "00000.json"
    saved = chunk.read_bytes()
    for change, match in [({"agents": ["random", "greedy"]}, "agents"), ({"seed": 1}, "seed"),
                          ({"ply_cap": 100}, "ply_cap"), ({"lineup": [0, 0, 1, 1]}, "lineup")]:
        cfg = T.Config(**{"agents": ["random", "expert"], "games": 2, "out": str(tmp_path), "name": "t", **change})
        with pytest.raises(ValueError, match=f"other settings.*{match}"):
            T.run(cfg, progress=False)
        assert chunk.read_bytes() == saved
    again = T.run(T.Config(agents=["random", "expert"], games=2, out=str(tmp_path), name="t", workers=1),
                  progress=False)  # the same settings: the chunks are reused, the same numbers come out
    assert [r["mean_reward"] for r in again["agents"]] == [r["mean_reward"] for r in first["agents"]]
    more = T.run(T.Config(agents=["random", "expert"], games=3, out=str(tmp_path), name="t"), progress=False)
    assert more["games"] == 12  # more deals: the old chunk is kept, the new deal played


def test_a_tournament_keys_a_checkpoint_by_its_content(tmp_path):
    import torch

    from agents.ppo import load_file, save_file
    from experiments import tournament as T

    ck = tmp_path / "net.pt"
    save_file(load_file(agents.ppo.CHECKPOINTS / "core-4p.pt"), ck)
    cfg = T.Config(agents=[f"ppo:checkpoint={ck}", "greedy"], games=1, out=str(tmp_path), name="p")
    T.run(cfg, progress=False)
    net = load_file(ck)
    net["model"] = {k: v + 0.01 if v.dtype == torch.float32 else v for k, v in net["model"].items()}
    save_file(net, ck)  # retrained at the same path: another agent
    with pytest.raises(ValueError, match="other settings.*files"):
        T.run(cfg, progress=False)


def test_the_tournament_cli_answers_bad_input_and_ctrl_c_in_one_line(tmp_path, capsys, monkeypatch):
    from experiments import tournament as T

    base = ["--agents", "random,greedy", "--games", "2", "--out", str(tmp_path), "--quiet"]
    for bad, match in [(["--lineup", "0,x"], "--lineup must be agent indices"),
                       (["--lineup", "0,5,1,1"], "lineup must give an agent index"),
                       (["--agents", "random,search:budgett=3"], "unknown option 'budgett'"),
                       (["--games", "0"], "games must be an integer of at least 1")]:
        with pytest.raises(SystemExit) as e:
            T.main(base + bad)
        assert e.value.code == 2 and match in capsys.readouterr().err

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(T, "play_chunk", interrupted)
    with pytest.raises(SystemExit) as e:
        T.main(base + ["--name", "stop"])
    err = capsys.readouterr().err
    assert e.value.code == 130 and "interrupted: 0 of 1 chunks are saved in" in err and "Traceback" not in err


# ----------------------------------------------------------------------------------------------------------------
# shedders play: bad input, a bad --save path, Ctrl-C
# ----------------------------------------------------------------------------------------------------------------
def test_choose_refuses_digits_it_cannot_read():
    from shedders.play import choose

    env = shedders.raw_env("south_african", 3)
    env.reset(seed=1)
    before = env.state_dict()
    answers = iter(["--1", "\u00b2", "9" * 5000, "-3", "1"])  # tracebacks before
    out = []
    a = choose(env, env._seat[env.agent_selection], read=lambda _: next(answers), write=out.append)
    assert a == env.legal_actions()[0] and env.state_dict() == before
    assert sum("not a number or a move" in o for o in out) == 3 and any("no move -3" in o for o in out)


def test_play_checks_the_save_path_before_the_game(tmp_path, capsys):
    from shedders.play import main

    def never(_):
        raise AssertionError("the game started")

    (tmp_path / "file").write_text("x")
    for bad, match in [(tmp_path, "is a directory"), (tmp_path / "file" / "g.jsonl", "is not a directory")]:
        with pytest.raises(SystemExit):
            main(["--save", str(bad), "--seed", "1"], read=never, write=lambda *_: None)
        assert match in capsys.readouterr().err


def test_ctrl_c_in_play_saves_what_was_played(tmp_path):
    from shedders import replay as R
    from shedders.play import main

    answers = iter(["1", "1", "1"])

    def read(_):
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    out = []
    path = tmp_path / "g.jsonl"
    assert main(["--ruleset", "core", "--players", "3", "--seed", "2", "--opponents", "random", "--save",
                 str(path)], read=read, write=out.append) == 1
    assert any("interrupted" in o for o in out) and any("replay saved" in o for o in out)
    rep = R.load(path)
    assert rep.end["over"] is False and R.verify(path) == len(rep.steps) >= 3


# ----------------------------------------------------------------------------------------------------------------
# Nothing lost, nothing mixed up: training runs and checkpoints
# ----------------------------------------------------------------------------------------------------------------
TINY = ["--num-envs", "8", "--num-steps", "16", "--hidden", "32", "--eval-every", "0", "--eval-deals", "1",
        "--snapshot-every", "1", "--quiet", "--ruleset", "core"]


def train(tmp_path, *extra):
    from experiments import train_ppo as T

    return T.main([*TINY, "--out", str(tmp_path), "--name", "run", *extra])


def test_a_new_run_never_overwrites_an_old_one(tmp_path, capsys):
    train(tmp_path, "--total-steps", "256")
    run = tmp_path / "run"
    files = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    with pytest.raises(SystemExit) as e:
        train(tmp_path, "--total-steps", "512")  # no --resume
    err = capsys.readouterr().err
    assert e.value.code == 2 and "already holds a run: add --resume" in err and len(err.strip().splitlines()) == 1
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == files


def test_resume_without_a_checkpoint_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        train(tmp_path, "--total-steps", "256", "--resume")
    assert "holds no checkpoint to continue from" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_progress_holds_each_update_once_after_a_kill_and_a_resume(tmp_path):
    import csv

    train(tmp_path, "--total-steps", "256", "--checkpoint-every", "1")  # 2 updates, checkpoint at 2
    progress = tmp_path / "run" / "progress.csv"
    rows = read_rows(progress)
    with open(progress, "a", newline="") as f:  # what a run killed after update 3, before its checkpoint, leaves
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writerow({**rows[-1], "update": 3})
    (tmp_path / "run" / "eval" / "update-000003").mkdir(parents=True)  # and a half-played evaluation of it
    train(tmp_path, "--total-steps", "512", "--checkpoint-every", "1", "--resume")
    assert [int(r["update"]) for r in read_rows(progress)] == [1, 2, 3, 4]
    assert not (tmp_path / "run" / "eval" / "update-000003").exists()


def test_a_damaged_checkpoint_is_refused(tmp_path):
    import torch

    from agents.ppo import load_file, save_file
    from experiments import train_ppo as T

    train(tmp_path, "--total-steps", "128", "--checkpoint-every", "1")
    ck = tmp_path / "run" / "checkpoint.pt"
    assert "sha256" in torch.load(ck, weights_only=True)
    load_file(ck)  # intact
    data = bytearray(ck.read_bytes())
    # flip one bit inside a weight tensor's bytes: torch still reads the file
    k = data.find(b"data/0") + 4096
    raw = torch.load(ck, weights_only=True)
    for offset in range(k, len(data) - 64, 997):
        flipped = bytearray(data)
        flipped[offset] ^= 0x10
        ck.write_bytes(bytes(flipped))
        try:
            torch.load(ck, weights_only=True)
        except Exception:  # noqa: BLE001, S112  (any error: this flip broke the file's structure, torch refuses it)
            continue
        with pytest.raises(ValueError, match="damaged|not a readable checkpoint"):
            load_file(ck)
        break
    else:
        pytest.fail("no flip left the file readable by torch")
    with pytest.raises(SystemExit):
        train(tmp_path, "--total-steps", "256", "--checkpoint-every", "1", "--resume")
    with pytest.raises(ValueError, match="damaged"):
        agents.make("ppo", "core", 4, checkpoint=str(ck))
    ck.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a readable checkpoint"):
        agents.ppo.load(str(ck))
    save_file(raw, ck)  # rewritten: reads again
    assert T.load_checkpoint(ck)["counters"] == {k: v for k, v in raw["counters"].items()}


def test_every_committed_checkpoint_carries_a_matching_checksum():
    import torch

    from agents.ppo import CHECKPOINTS, content_digest

    for path in sorted(CHECKPOINTS.glob("*.pt")):
        ck = torch.load(path, weights_only=True)
        assert content_digest({k: v for k, v in ck.items() if k != "sha256"}) == ck["sha256"], path


def test_ctrl_c_in_training_says_where_the_last_checkpoint_is(tmp_path, capsys, monkeypatch):
    from experiments import train_ppo as T

    train(tmp_path, "--total-steps", "256", "--checkpoint-every", "1")
    real = T.ppo_update
    calls = []

    def interrupted(*args, **kwargs):  # Ctrl-C during the second update of the resumed run
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(T, "ppo_update", interrupted)
    with pytest.raises(SystemExit) as e:
        train(tmp_path, "--total-steps", "1024", "--checkpoint-every", "1", "--resume")
    err = capsys.readouterr().err
    assert e.value.code == 130 and "the last checkpoint (update 3) is" in err and "--resume continues" in err
    assert "Traceback" not in err


def test_the_ray_backend_without_ray_says_which_extra_to_install(tmp_path, capsys, monkeypatch):
    import importlib.util

    from experiments import tournament as T

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(SystemExit) as e:
        T.main(["--agents", "random,greedy", "--games", "2", "--out", str(tmp_path), "--backend", "ray",
                "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and "pip install -e '.[ray]'" in err[-1]
    assert not any(tmp_path.iterdir())  # refused before anything was written
