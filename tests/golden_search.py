"""Golden search decisions: what each kind of search chooses, from a seed, on seeded early-play states.

    python tests/golden_search.py      # regenerate tests/golden/search_decisions.json after a deliberate change

The searches are the engine's kernels at small budgets, with every option that reaches them: uniform and
sequential halving, a lone decision over the threads and a batch of games, greedy, expert and random rollout
policies, rollouts cut short and each leaf value, the oracle, and omg's search. A speed-up of the kernels keeps
this file byte-identical; a change that moves a decision is a change of the search and says so in its commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numba
import numpy as np

import agents
import shedders
from agents.base import act_in

GOLDEN = Path(__file__).resolve().parent / "golden" / "search_decisions.json"
#: (ruleset, players, agent spec): the searches, each on STATES early-play states of a few seeded deals
CASES = [
    ("core", 4, "search:budget=96"),
    ("core", 4, "search:budget=96+eps=0.2+max_plies=12+leaf=value"),
    ("core", 4, "search:budget=96+select=halving+eps=0.2"),
    ("core", 4, "search:budget=64+rollout=expert+leaf=cards+max_plies=20"),
    ("core", 3, "search:budget=64+opponents=random"),
    ("core", 4, "oracle:budget=64"),
    ("fatality", 4, "search:budget=96+eps=0.3+max_plies=16+leaf=value"),
    ("fatality", 4, "search:budget=64+rollout=expert"),
    ("og", 4, "search:budget=96+eps=0.4+max_plies=12+leaf=value"),
    ("og", 4, "search:budget=64+select=halving"),
    ("south_african", 4, "search:budget=64+max_plies=40"),
    ("house", 4, "search:budget=64+eps=0.2"),
    ("omg", 4, "search:budget=96+eps=0.0+leaf=value"),
    ("omg", 3, "search:budget=64+max_plies=30"),
    ("omg", 4, "oracle:budget=64"),
]
SEEDS = (3, 4)
DECISIONS = 12  # decisions per deal, every one searched (``expert`` moves the game on)


def decisions(ruleset: str, players: int, spec: str) -> dict[str, list[int]]:
    """The search's actions on the first DECISIONS decisions of each deal: alone on one thread, alone over two
    threads, and all the deal's states as one batch."""
    from shedders.envs.family import family_of

    rows = np.zeros(1, np.int64)
    states, alone = [], {"one thread": [], "two threads": []}
    for seed in SEEDS:
        vg = shedders.VectorGame(ruleset, 1, players, seed=seed, ply_cap=5000)
        vg.reset()
        mover = agents.make("expert", ruleset=ruleset, num_players=players, seed=seed)
        setup = family_of(ruleset).setup_phase
        while setup and vg.state.phase[0] == 0:  # PH_SETUP: expert sets up
            vg.step(act_in(mover, vg, rows))
        for _ in range(DECISIONS):
            if vg.terminated[0] or vg.truncated[0]:
                break
            states.append((vg.observation.copy(), vg.action_mask.copy(),
                           type(vg.state)(*(np.array(x, copy=True) for x in vg.state))))
            vg.step(act_in(mover, vg, rows))
    before = numba.get_num_threads()
    try:
        for label, threads in (("one thread", 1), ("two threads", min(2, numba.config.NUMBA_NUM_THREADS))):
            numba.set_num_threads(threads)
            agent = agents.make_spec(spec, ruleset, players, seed=7)
            for obs, mask, state in states:
                alone[label] += [int(x) for x in agent.act(obs, mask, state=state, games=rows)]
        batch = type(states[0][2])(*(np.concatenate([s[2][i] for s in states]) for i in range(len(states[0][2]))))
        agent = agents.make_spec(spec, ruleset, players, seed=7)
        obs = np.concatenate([s[0] for s in states])
        mask = np.concatenate([s[1] for s in states])
        alone["batch"] = [int(x) for x in agent.act(obs, mask, state=batch)]
    finally:
        numba.set_num_threads(before)
    return alone


def key(ruleset: str, players: int, spec: str) -> str:
    return f"{ruleset} {players}p {spec}"


def render(table: dict) -> str:
    """The golden file's text: one line per search and way of asking it."""
    lines = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in table.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    GOLDEN.write_text(render({key(*c): decisions(*c) for c in CASES}))
    print("wrote", GOLDEN)
