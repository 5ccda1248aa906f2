"""Agents written outside the package: a class in a file, and one an installed distribution offers through the
entry-point group ``shedders.agents``. Each runs in a tournament, in ``shedders play``, in ``shedders serve``;
each broken form (missing file, missing class, constructor error, illegal action, wrong output shape) is one line
naming the spec, and changes nothing."""

from __future__ import annotations

import re

import httpx
import numpy as np
import pytest
from outside_fixtures import EP_NAME, install_entry_point, write_agent_file

import agents
import shedders
from experiments import tournament as T
from shedders.web.app import create_app
from shedders.web.testing import serving


@pytest.fixture()
def outside(tmp_path, monkeypatch):
    """(the file agent's spec, the entry point's name), both installed for this test only."""
    path = write_agent_file(tmp_path)
    install_entry_point(tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return f"{path}:Uniform", EP_NAME


def test_a_spec_names_a_module_a_file_or_an_entry_point():
    assert agents.parse_agent("my_pkg.agents:MyAgent") == ("my_pkg.agents:MyAgent", {})
    assert agents.parse_agent("dir/my_agent.py:MyAgent:depth=3+temp=0.5") == ("dir/my_agent.py:MyAgent",
                                                                             {"depth": 3, "temp": 0.5})
    assert agents.parse_agent("my_agent.py:MyAgent@2") == ("my_agent.py:MyAgent", {})
    assert agents.parse_agent("search:budget=64") == ("search", {"budget": 64})
    with pytest.raises(ValueError, match="must be key=value"):  # a built-in's malformed option stays one
        agents.parse_agent("search:budget")


def test_outside_agents_play_legal_actions_and_are_reproducible(outside):
    spec, ep = outside
    vg = shedders.VectorGame("core", 32, 4, seed=3)
    vg.reset()
    a, b = (agents.make_spec(spec, "core", 4, seed=5) for _ in range(2))
    acts = a.act(vg.observation, vg.action_mask)
    assert np.array_equal(acts, b.act(vg.observation, vg.action_mask))
    assert vg.action_mask[np.arange(32), acts].all()
    e = agents.make_spec(ep + ":colour=red", "core", 4, seed=0)  # an entry point takes options too (**options)
    assert e.inner.options == {"colour": "red"}
    assert vg.action_mask[np.arange(32), e.act(vg.observation, vg.action_mask)].all()


def test_game_options_reach_an_outside_constructor_only_when_it_takes_them(outside):
    spec, ep = outside
    agent = agents.make_spec(spec, "house", 4, seed=0, base="south_african")  # Uniform takes no base: left out
    assert agent.ruleset == "house"
    assert agent.rules.toggles() == shedders.make_rules("house", 4, base="south_african").toggles()
    assert agents.make_spec(ep, "house", 4, base="south_african").inner.options == {"base": "south_african"}


BROKEN = [
    ("{dir}/missing.py:Uniform", r"agent '.*missing\.py:Uniform': no such file"),
    ("{dir}/my_agent.py:Nobody", r"agent '.*my_agent\.py:Nobody': '.*my_agent\.py' has no class 'Nobody'"),
    ("{dir}/my_agent.py:NOT_A_CLASS", r"'NOT_A_CLASS' is a int, not a class"),
    ("{dir}/my_agent.py:Exploding", r"agent '.*:Exploding': building Exploding failed: RuntimeError: no weights"),
    ("{dir}/my_agent.py:Uniform:depth=3", (r"agent '.*:Uniform:depth=3': unknown option 'depth'; Uniform takes "
                                          r"lowest")),
    ("no_such_pkg.mod:Agent", (r"agent 'no_such_pkg\.mod:Agent': importing module 'no_such_pkg\.mod' failed: "
                              r"ModuleNotFoundError")),
    ("no_such_entry_point", (r"unknown agent 'no_such_entry_point'; available: random, .* entry points of "
                            r"shedders\.agents")),
]


@pytest.mark.parametrize("spec,message", BROKEN)
def test_a_spec_that_cannot_load_or_build_is_one_line_naming_it(outside, tmp_path, spec, message):
    spec = spec.format(dir=tmp_path)
    with pytest.raises(ValueError, match=message) as err:
        agents.make_spec(spec, "core", 4, seed=0)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("cls,message", [
    ("Illegal", r"illegal action \d+ \(.*\) in row 0; legal there: "),
    ("WrongShape", r"act returned shape \(8, 2\) for 8 rows; expected \(8,\)")])
def test_a_wrong_answer_never_reaches_the_engine(outside, tmp_path, cls, message):
    agent = agents.make_spec(f"{tmp_path}/my_agent.py:{cls}", "core", 4, seed=0)
    vg = shedders.VectorGame("core", 8, 4, seed=1, autoreset=False)
    vg.reset()
    before = [vg.state_dict(r) for r in range(8)]
    with pytest.raises(agents.AgentError, match=message) as err:
        vg.step(agent.act(vg.observation, vg.action_mask))
    assert "\n" not in str(err.value) and f"my_agent.py:{cls}" in str(err.value)
    assert [vg.state_dict(r) for r in range(8)] == before


def test_a_float_answer_is_refused_too(outside):
    agent = agents.make_spec(outside[0], "core", 4, seed=0)
    with pytest.raises(agents.AgentError, match="float64 values; expected integer action ids"):
        agent.check(np.zeros(2), np.ones((2, 5), np.int8))


def test_outside_agents_in_a_tournament(outside, tmp_path):
    spec, ep = outside
    cfg = T.Config(ruleset="core", players=4, agents=[spec, ep, "greedy"], games=4, chunk=4,
                   out=str(tmp_path / "r"), seed=2)
    summary = T.run(cfg, progress=False)
    assert [a["agent"] for a in summary["agents"]] == [spec, ep, "greedy"]
    assert all(a["seats_played"] > 0 for a in summary["agents"]) and summary["games"] == 16
    again = T.run(cfg, progress=False)  # the saved chunks are reused: the same games
    assert again["game_rows"] == summary["game_rows"]


def test_an_edited_agent_file_is_another_agent_for_saved_chunks(outside, tmp_path):
    spec, _ = outside
    cfg = T.Config(ruleset="core", agents=[spec, "greedy"], games=2, chunk=2, out=str(tmp_path / "r"), name="x")
    T.run(cfg, progress=False)
    path = tmp_path / "my_agent.py"
    path.write_text(path.read_text() + "\n# retrained\n")
    with pytest.raises(ValueError, match="holds a tournament with other settings"):
        T.run(cfg, progress=False)


@pytest.mark.parametrize("cls", ["Illegal", "WrongShape", "Exploding"])
def test_a_broken_agent_stops_a_tournament_before_anything_is_written(outside, tmp_path, cls):
    cfg = T.Config(ruleset="core", agents=[f"{tmp_path}/my_agent.py:{cls}", "greedy"], games=2, chunk=2,
                   out=str(tmp_path / "r"), name="broken")
    with pytest.raises(ValueError, match=f"my_agent.py:{cls}"):
        T.run(cfg, progress=False)
    chunks = tmp_path / "r" / "broken" / "chunks"
    assert not chunks.exists() or not any(chunks.iterdir())
    assert not (tmp_path / "r" / "broken" / "results.json").exists()


def test_the_tournament_command_line_gives_one_line(outside, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        T.main(["--agents", f"{tmp_path}/nope.py:A,greedy", "--games", "1", "--out", str(tmp_path / "r"),
                "--quiet"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert re.search(r"no such file", err[-1]) and "nope.py:A" in err[-1]


def test_outside_agents_in_the_terminal_game(outside, tmp_path):
    from shedders.play import main

    spec, ep = outside
    out: list[str] = []
    legal = re.compile(r"^\s*(\d+)\) ", re.MULTILINE)

    def read(prompt):
        screen = "\n".join(out).split("your moves:")[-1]
        return legal.findall(screen)[0]

    assert main(["--ruleset", "core", "--players", "3", "--opponents", f"{spec},{ep}", "--seed", "4"], read=read,
                write=out.append) == 0
    text = "\n".join(out)
    assert f"player_1={spec}" in text and f"player_2={ep}" in text and "result: " in text


def test_a_broken_agent_is_one_line_in_the_terminal_game(outside, tmp_path, capsys):
    from shedders.play import main

    with pytest.raises(SystemExit) as exit_:
        main(["--ruleset", "core", "--opponents", f"{tmp_path}/my_agent.py:Exploding"], read=input,
             write=print)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "building Exploding failed: RuntimeError: no weights found" in err[-1]


def test_outside_agents_in_the_web_app_only_when_the_server_names_them(outside, tmp_path):
    spec, ep = outside
    app = create_app(max_games=8, outside_agents=[spec, ep, f"{tmp_path}/my_agent.py:Illegal"])
    with serving(app) as url, httpx.Client(base_url=url, timeout=120) as http:
        assert http.get("/api/options").json()["outside_agents"][:2] == [spec, ep]
        r = http.post("/api/games", json={"ruleset": "core", "players": 3, "opponents": f"{spec},{ep}",
                                          "seed": 3, "spectate": True})
        assert r.status_code == 201, r.text
        game = r.json()["id"]
        for _ in range(3000):
            r = http.post(f"/api/games/{game}/step", json={})
            if r.status_code == 409 and "over" in r.json()["error"]:
                break
            assert r.status_code == 200, r.text
        assert http.get(f"/api/games/{game}").json()["over"]
        # a client cannot name any other outside agent: not a file, not a module
        for other in (f"{tmp_path}/my_agent.py:Exploding", "os:system", "no_such_entry_point"):
            r = http.post("/api/games", json={"ruleset": "core", "opponents": other})
            assert r.status_code == 400 and "unknown agent" in r.json()["error"], r.text
        # an offered agent that answers wrongly: one line, and the game is as it was
        r = http.post("/api/games", json={"ruleset": "core", "opponents": f"{tmp_path}/my_agent.py:Illegal",
                                          "seat": 3, "seed": 1, "spectate": True})
        game = r.json()["id"]
        before = http.get(f"/api/games/{game}").json()
        r = http.post(f"/api/games/{game}/step", json={})
        assert r.status_code == 500 and "the agent failed (illegal action)" in r.json()["error"]
        assert "legal there" not in r.json()["error"]  # a seat's legal actions tell its cards: never to a client
        assert http.get(f"/api/games/{game}").json()["view"] == before["view"]


def test_the_server_refuses_a_broken_outside_agent_before_it_starts(outside, tmp_path):
    with pytest.raises(ValueError, match="no class 'Nobody'"):
        create_app(outside_agents=[f"{tmp_path}/my_agent.py:Nobody"])
    with pytest.raises(ValueError, match="built in"):
        create_app(outside_agents=["greedy"])


def test_an_outside_agent_in_skill_versus_luck(outside, tmp_path):
    from experiments import skill_luck as S

    spec, ep = outside
    report = S.main(["--ruleset", "fatality", "--deals", "2", "--agents", f"random,{spec},{ep}", "--oracle",
                     "oracle:budget=2", "--copies", "greedy", "--bootstrap", "20", "--quiet", "--chunk", "2",
                     "--out", str(tmp_path / "s")])
    assert {spec, ep} <= set(report["rulesets"][0]["field_random"])
