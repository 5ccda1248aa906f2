"""One command-line style (shedders/commandline.py): every script's flags come from its Config, each with help
text and its default; lists are comma separated, booleans --flag / --no-flag."""

import argparse
import dataclasses
import importlib

import pytest

import agents
from shedders.commandline import build_parser, config_from, field_docs

SCRIPTS = ["experiments.tournament", "experiments.skill_luck", "experiments.train_ppo", "experiments.power",
           "experiments.rating_power", "benchmarks.aec_env", "benchmarks.game_lengths", "benchmarks.run",
           "benchmarks.train_throughput", "benchmarks.compare_curves", "benchmarks.engine_profile",
           "benchmarks.lean_engine", "benchmarks.ray_backend", "benchmarks.train_peer", "shedders.play",
           "experiments.bench", "shedders.web.serve", "benchmarks.exit_backends"]


@pytest.mark.parametrize("module", SCRIPTS)
def test_every_flag_of_every_script_says_what_it_does_and_its_default(module):
    cls = importlib.import_module(module).Config
    docs = field_docs(cls)
    missing = [f.name for f in dataclasses.fields(cls) if not docs.get(f.name)]
    assert not missing, f"{module}: fields without a docstring or comment: {missing}"
    ap = build_parser(cls, description="x")
    for action in ap._actions:  # argparse keeps its actions here; this test reads them, the code never does
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help and "(default:" in action.help and not action.help.startswith("(default"), action.dest


def test_the_parser_reads_lists_bools_and_none_back_into_the_config():
    from experiments import skill_luck, tournament

    ap = build_parser(tournament.Config)
    args = ap.parse_args(["--agents", "random,search:budget=8+eps=0.1", "--lineup", "0,1,1,1", "--games", "7"])
    cfg = config_from(tournament.Config, args)
    assert cfg == tournament.Config(agents=["random", "search:budget=8+eps=0.1"], lineup=[0, 1, 1, 1], games=7)
    assert config_from(tournament.Config, ap.parse_args([])) == tournament.Config()
    ap = build_parser(skill_luck.Config)
    cfg = config_from(skill_luck.Config, ap.parse_args(["--no-split", "--certify", "--name", "x"]))
    assert (cfg.split, cfg.certify, cfg.name) == (False, True, "x")
    with pytest.raises(SystemExit):
        build_parser(tournament.Config).parse_args(["--lineup", "0,x"])


def test_train_ppo_help_shows_the_rulesets_own_defaults(capsys):
    from experiments import train_ppo

    with pytest.raises(SystemExit):
        train_ppo.parse_args(["--ruleset", "og", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 5000; here: 1000)" in out


def test_shedders_play_help_lists_every_agent(capsys):
    from shedders.play import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name in agents.REGISTRY:
        assert name in out
    assert "ppo" in out


@pytest.mark.parametrize("save", ["/proc/version", "/proc/nope/game.jsonl"])
def test_play_refuses_a_save_path_it_cannot_write_before_the_game_in_one_line(save, capsys):
    """Permission bits pass for root under /proc: the check writes the file's temporary twin, as the save will."""
    from shedders.cli import main

    with pytest.raises(SystemExit) as e:  # argparse's usage error: the usage, then the one error line
        main(["play", "--save", save, "--seed", "1"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("shedders play: error: --save")
    assert "cannot write" in err


def test_any_failure_of_a_command_is_one_line_and_exit_code_2(monkeypatch, capsys):
    from shedders import cli

    def broken(argv):
        raise RuntimeError("something broke\nsecond line")

    monkeypatch.setattr(cli, "play_main", broken)
    assert cli.main(["play"]) == 2
    assert capsys.readouterr().err == "shedders play: error: RuntimeError: something broke\n"
    monkeypatch.setenv("SHEDDERS_TRACEBACK", "1")
    with pytest.raises(RuntimeError):
        cli.main(["play"])


def test_the_shedders_command_lists_bench_and_leaderboard(capsys):
    from shedders.cli import main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("play", "replay", "serve", "demo", "bench", "leaderboard"):
        assert f"  {command} " in out
