"""The README's examples run as written, and its commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_examples_run():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)


def test_ci_runs_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test]'" in readme and "pip\" install --quiet -e '.[test]'" in ci
    assert ".venv/bin/python -m pytest" in readme and '"$venv/bin/python" -m pytest' in ci


def test_demo_plays_a_game_to_the_end(capsys):
    from shedders import demo

    result = demo.main(["--ruleset", "core", "--players", "3", "--seed", "1", "--quiet"])
    assert not result["truncated"] and len(result["placing"]) == 2
    assert "Shithead" in capsys.readouterr().out
