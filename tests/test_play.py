"""``shedders play``: a human seat plays a whole seeded game in a pseudo-terminal, bad input included."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from shedders import replay as R

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out

pexpect = pytest.importorskip("pexpect")

PROMPT = r"your move \[1-(\d+), \? for help\]: "
MENU_LINE = re.compile(r"^\s+(\d+)\) (.+?)\s*$", re.MULTILINE)


def command() -> tuple[str, list[str]]:
    script = Path(sys.executable).with_name("shedders")  # the console script the package installs
    if script.exists():
        return str(script), []
    return sys.executable, ["-m", "shedders"]


def pick(menu: dict[int, str]) -> int:
    """A simple human: ready at once, cover / play the first offered, pickup only when nothing else goes."""
    for k, name in menu.items():
        if name == "ready":
            return k
    for k, name in menu.items():
        if name.startswith(("play ", "cover ", "flip", "discard ")):
            return k
    return 1


def spawn(args: list[str]):
    exe, pre = command()
    return pexpect.spawn(exe, pre + ["play", *args], encoding="utf-8", timeout=120, dimensions=(50, 200))


@pytest.mark.parametrize("ruleset,opponents,seed", [("core", "expert,greedy,random", 11), ("og", "greedy", 4)])
def test_a_human_plays_a_whole_game_in_a_terminal(ruleset, opponents, seed, tmp_path):
    save = tmp_path / "game.jsonl"
    child = spawn(["--ruleset", ruleset, "--players", "4", "--opponents", opponents, "--seed", str(seed),
                   "--save", str(save)])
    transcript = []
    child.expect(PROMPT)
    transcript.append(child.before)
    # bad input is refused and asked again; the menu stays the same and nothing moves
    menu = {int(k): v for k, v in MENU_LINE.findall(child.before)}
    for bad, answer in [("abc", "not a number or a move: 'abc'"), ("0", "no move 0"), ("99", "no move 99"),
                        ("", "not a number or a move: ''"), ("play 4x9", "'play 4x9' is not legal now"),
                        ("-3", "no move -3")]:
        child.sendline(bad)
        child.expect_exact(answer)
        child.expect(PROMPT)
    first = pick(menu)
    child.sendline(str(first))
    decisions = 1
    while True:
        i = child.expect([PROMPT, r"result: .*\n", pexpect.EOF])
        transcript.append(child.before)
        if i != 0:
            break
        menu = {int(k): v for k, v in MENU_LINE.findall(child.before.split("your moves:")[-1])}
        assert menu and sorted(menu) == list(range(1, len(menu) + 1))
        child.sendline(str(pick(menu)))
        decisions += 1
        assert decisions < 3000
    assert i == 1, "the game must end with a result line"
    result = child.after
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = "".join(transcript) + result
    assert "result: out in order" in result or "truncated" in result
    # opponents' hidden moves never show: swaps and covers during setup, passes on sneak offers
    assert not re.search(r"player_\d \([^)]*\) (swaps|puts) ", text)
    assert not re.search(r"player_\d \([^)]*\) passes", text)
    # but their public moves are told, with what followed
    assert re.search(r"player_\d \([^)]*\) (plays|picks up|flips|opens) ", text)
    # the saved replay holds every decision, the human's first one being the one typed after the bad input
    rep = R.load(save)
    assert rep.header["players"][0] == "human" and rep.header["seed"] == seed
    human = [s for s in rep.steps if s["agent"] == "player_0"]
    assert len(human) == decisions
    assert human[0]["name"] == menu_first_name(transcript[0], first)
    assert R.verify(save) == len(rep.steps)


def menu_first_name(screen: str, k: int) -> str:
    return {int(a): b for a, b in MENU_LINE.findall(screen)}[k]


def test_the_same_seed_deals_the_same_game():
    screens = []
    for _ in range(2):
        child = spawn(["--ruleset", "fatality", "--players", "3", "--opponents", "random", "--seed", "9"])
        child.expect(PROMPT)
        screens.append(child.before)
        child.sendline("q")
        child.expect("you left the game")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 1
    assert screens[0] == screens[1]
    assert "== shedders fatality" in screens[0]


def test_bad_options_are_refused_with_the_allowed_values(capsys):
    from shedders.play import main

    for argv, match in [(["--ruleset", "nope"], "unknown ruleset 'nope'"),
                        (["--players", "9"], "bad num_players 9"),
                        (["--opponents", "ppo9"], "unknown agent 'ppo9'"), (["--seat", "4"], "bad --seat 4")]:
        with pytest.raises(SystemExit):
            main(argv)
        assert match in capsys.readouterr().err


def test_choose_refuses_bad_input_without_moving():
    import shedders
    from shedders.play import choose

    env = shedders.raw_env("south_african", 3)
    env.reset(seed=1)
    before = env.state_dict()
    answers = iter(["x", "1000", "?", "t", "ready"])
    out = []
    a = choose(env, env._seat[env.agent_selection], read=lambda _: next(answers), write=out.append)
    assert env.action_names[a] == "ready"
    assert env.state_dict() == before
    assert any("not a number" in o for o in out) and any("no move 1000" in o for o in out)


def test_the_readme_screen_capture_is_a_real_game():
    """The README's terminal capture is what ``shedders play`` prints for those inputs, line for line."""
    from shedders.play import main

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    capture = re.search(r"--seed 2 --save my_game.jsonl\n```\n\n```text\n(.*?)```", readme, re.DOTALL).group(1)
    out: list[str] = []
    answers = iter(["1", "1", "1", "x", "?", "1", "1", "q"])

    def read(prompt):
        answer = next(answers)
        out.append(prompt + answer)
        return answer

    main(["--ruleset", "og", "--players", "3", "--opponents", "expert,greedy", "--seed", "2"], read=read,
         write=out.append)
    assert capture in "\n".join(out) + "\n"


@pytest.mark.parametrize("ruleset,players,extra", [("fatality", 4, []), ("south_african", 4, []),
                                                   ("house", 3, ["--base", "south_african"]), ("og", 6, []),
                                                   ("omg", 3, [])])
def test_every_ruleset_plays_to_the_end_in_the_terminal_game(ruleset, players, extra, tmp_path):
    from shedders.play import main

    out: list[str] = []

    def read(prompt):
        screen = "\n".join(out).split("your moves:")[-1]
        return str(pick({int(k): v for k, v in MENU_LINE.findall(screen)}))

    save = tmp_path / "g.jsonl"
    assert main(["--ruleset", ruleset, "--players", str(players), "--opponents", "greedy,random", "--seed", "1",
                 "--save", str(save), *extra], read=read, write=out.append) == 0
    assert any(line.startswith("result: ") for line in out)
    assert R.verify(save) == len(R.load(save).steps)


def test_help_shows_the_rules_in_short_and_what_the_decision_asks():
    import shedders
    from shedders.play import choose

    env = shedders.raw_env("og", 3)
    env.reset(options={"scenario": {"ruleset": "og", "current_player": 0, "phase": "play",
                                    "players": [{"hand": ["3", "4"]}, {"hand": ["J", "5"]}, {"hand": ["9"]}],
                                    "pile": ["A"]}})
    env.step(env.action_id("play 1x3"))
    out: list[str] = []
    answers = iter(["?", "1"])
    a = choose(env, 1, read=lambda _: next(answers), write=out.append)
    assert env.action_names[a] == "pickup"
    text = "\n".join(out)
    assert "3 on anything: it leaves play and the next player must pick up the pile" in text.replace("\n", " ")
    assert "now: pick up the pile (a 3 was played)" in text
    assert "-> pick up the pile (a 3 was played)" in text  # the pile line says it too, not "play A or higher"


def test_omg_targets_name_the_player_in_the_menu():
    import shedders
    from shedders.play import choose

    env = shedders.raw_env("omg", 3)
    env.reset(options={"scenario": {"ruleset": "omg", "current_player": 0, "phase": "play",
                                    "players": [{"hand": ["Zeus Fire 2*", "Hera Leaf 4"]},
                                                {"hand": ["Ares Fire 3"]}, {"hand": ["Hestia Leaf 3"]}],
                                    "pile": ["Athena Fire 2"], "deck": ["Apollo Leaf 2", "Hermes Wave 4"]}})
    env.step(env.action_id("play Zeus Fire 2*"))
    out: list[str] = []
    answers = iter(["target player_2"])
    a = choose(env, 0, read=lambda _: next(answers), write=out.append)
    assert env.action_names[a] == "target +2"
    assert "   1) target player_1" in out and "   2) target player_2" in out
