"""Golden playthroughs: a few seeded random games written out in full (OpenSpiel's integration playthroughs).

    python tests/golden_playthroughs.py      # regenerate tests/golden/*.txt after a deliberate rule change

Review the diff before committing it: every changed line is a game that now plays differently.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import shedders

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = [
    ("core", 3, {}, 11),
    ("south_african", 4, {}, 12),
    ("house", 4, {"base": "south_african", "rules": {"slap": True, "reverse_on_doubles": True}}, 13),
    ("og", 4, {}, 14),
    ("og", 6, {}, 15),
    ("fatality", 4, {}, 16),
    ("omg", 3, {}, 66),
]


def playthrough(ruleset: str, n: int, kwargs: dict, seed: int) -> str:
    env = shedders.raw_env(ruleset, n, **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    lines = [f"# {ruleset} {n}p {json.dumps(kwargs, sort_keys=True)} seed {seed}"]
    lines.append("start " + json.dumps(env.state_dict(), sort_keys=True))
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        a = int(rng.choice(env.legal_actions()))
        st = env.state_dict()
        pile = " ".join(st["pile"][-4:])
        lines.append(f"{st['plies']:4d} {agent} [{st['phase']}] pile ..{pile} | {env.action_names[a]}")
        env.step(a)
    lines.append("end " + json.dumps(env.state_dict(), sort_keys=True))
    return "\n".join(lines) + "\n"


def path(ruleset: str, n: int, seed: int) -> Path:
    return GOLDEN / f"{ruleset}_{n}p_seed{seed}.txt"


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for ruleset, n, kwargs, seed in CASES:
        path(ruleset, n, seed).write_text(playthrough(ruleset, n, kwargs, seed))
        print("wrote", path(ruleset, n, seed))
