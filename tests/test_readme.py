"""The README's examples run as written, and its commands are the ones CI runs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def shown_value(comment: str):
    """The Python literal a README comment starts with (``# 'play 2x7'``, ``# ['pass', 'sneak 1x6']: ...``), or
    ``NOTHING`` when it starts with words."""
    comment = comment.strip()
    for end in range(len(comment), 0, -1):
        try:
            return ast.literal_eval(comment[:end])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return NOTHING


NOTHING = object()


def test_readme_python_examples_run_and_show_what_their_comments_say():
    """Every block runs, in order, in one namespace; a bare expression whose comment starts with a Python literal
    must evaluate to that literal (so a snippet cannot claim an output it does not give)."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) >= 4
    namespace: dict = {}
    checked = 0
    for block in blocks:
        lines = block.splitlines()
        for stmt in ast.parse(block).body:
            code = compile(ast.Module([stmt], []), "README.md", "exec")
            if isinstance(stmt, ast.Expr) and stmt.end_lineno == stmt.lineno:
                line = lines[stmt.lineno - 1]
                comment = line[stmt.end_col_offset:].strip()
                want = shown_value(comment[1:]) if comment.startswith("#") else NOTHING
                if want is not NOTHING:
                    got = eval(compile(ast.Expression(stmt.value), "README.md", "eval"), namespace)
                    assert _plain(got) == want, f"README: {line.strip()!r} gives {got!r}"
                    checked += 1
                    continue
            exec(code, namespace)  # noqa: S102  (the README's own code blocks, run as a reader runs them)
    assert checked >= 8


def _plain(x):
    if hasattr(x, "tolist"):
        return x.tolist()
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    return x


def test_ci_runs_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test]'" in readme and "pip\" install --quiet -e '.[test]'" in ci
    assert ".venv/bin/python -m pytest" in readme and '"$venv/bin/python" -m pytest' in ci


def test_demo_plays_a_game_to_the_end(capsys):
    from shedders import demo

    result = demo.main(["--ruleset", "core", "--players", "3", "--seed", "1", "--quiet"])
    assert not result["truncated"] and len(result["placing"]) == 2
    out = capsys.readouterr().out
    assert "last: player_" in out and "Shithead" not in out  # shaming is a house prison rule, off by default


@pytest.mark.parametrize("ruleset", ["south_african", "core", "og", "omg"])
def test_the_seeded_demo_plays_the_same_game_every_time(ruleset, capsys):
    """The same ``--seed`` prints the same game, in this process and in a fresh one (every player draws from the
    seed: the greedy player's ties too)."""
    import subprocess
    import sys

    from shedders import demo

    outs = []
    for _ in range(3):
        demo.main(["--ruleset", ruleset, "--seed", "7", "--show", "1"])
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] == outs[2]
    fresh = subprocess.run([sys.executable, "-m", "shedders.demo", "--ruleset", ruleset, "--seed", "7",
                            "--show", "1"], capture_output=True, text=True, check=True)
    assert fresh.stdout == outs[0]
