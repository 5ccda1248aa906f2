"""The README's recipes for other RL libraries run as written (SB3-contrib's MaskablePPO on the gymnasium view,
Tianshou's DQN on the PettingZoo env), and do what they say. The libraries come with the test extra (the ``peer``
extra), so a missing one fails here."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()
RECIPES = re.findall(r"```python recipe\n(.*?)```", README, flags=re.DOTALL)


def run(code: str) -> dict:
    namespace: dict = {}
    exec(compile(code, "README.md (recipe)", "exec"), namespace)  # noqa: S102  (the README's recipe, as a reader runs it)
    return namespace


def test_there_are_two_recipes():
    assert len(RECIPES) == 2 and "MaskablePPO" in RECIPES[0] and "tianshou" in RECIPES[1]


def test_the_sb3_maskable_ppo_recipe_trains_and_chooses_a_legal_action():
    ns = run(RECIPES[0])
    assert ns["model"].num_timesteps >= 512
    assert ns["env"].action_masks()[int(ns["action"])]  # the trained policy's choice is legal


def test_the_tianshou_dqn_recipe_trains_on_the_pettingzoo_env():
    ns = run(RECIPES[1])
    stats = ns["stats"]
    assert stats.train_step >= 2000 and stats.train_episode > 0 and stats.update_step > 0
    params = [p.detach() for p in ns["net"].parameters()]
    assert params and all(math.isfinite(float(p.abs().sum())) for p in params)
