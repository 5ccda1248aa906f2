"""Time per decision at batch 1: each agent plays whole games alone at a table of itself, one decision at a time.

    python -m benchmarks.decision_time --ruleset core --agents champion,ppo,search:budget=256,expert --games 2

Every decision of ``--games`` games (seeds 1, 2, ...) is timed, the first one of each agent left out (it loads and
warms up). The table gives the median, the 90th percentile and the mean in milliseconds over all decisions, and the
same over the decisions after the palace setup (where a search searches; forced moves included). ``--threads``
sets numba's and torch's threads (default: 2, this machine's cores).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from shedders.commandline import build_parser, config_from
from shedders.envs.family import family_of


@dataclass
class Config:
    ruleset: str = "core"
    """the ruleset"""
    players: int = 4
    """seats at the table"""
    agents: list[str] = field(default_factory=lambda: ["champion", "ppo", "expert"])
    """agent specs, comma separated (search:budget=256)"""
    games: int = 2
    """games per agent (seeds 1..games)"""
    threads: int = 2
    """numba and torch threads"""


def time_agent(spec: str, cfg: Config) -> dict:
    import agents
    import shedders
    from agents.base import act_in

    all_t, play_t = [], []
    for seed in range(1, cfg.games + 1):
        vg = shedders.VectorGame(cfg.ruleset, 1, cfg.players, seed=seed, ply_cap=5000)
        vg.reset()
        agent = agents.make_spec(spec, cfg.ruleset, cfg.players, seed=seed)
        first = True
        while True:
            setup = family_of(cfg.ruleset).setup_phase and int(vg.state.phase[0]) == 0
            t = time.perf_counter()
            a = act_in(agent, vg, np.zeros(1, np.int64))
            dt = time.perf_counter() - t
            if not first:
                all_t.append(dt)
                if not setup:
                    play_t.append(dt)
            first = False
            vg.step(a)
            if vg.terminated[0] or vg.truncated[0]:
                break
    ms = np.array(all_t) * 1e3
    mp = np.array(play_t) * 1e3 if play_t else ms
    return {"agent": spec, "decisions": len(ms), "median": np.median(ms), "p90": np.percentile(ms, 90),
            "mean": ms.mean(), "play_median": np.median(mp), "play_p90": np.percentile(mp, 90),
            "play_mean": mp.mean()}


def main(argv=None) -> list[dict]:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    import numba
    import torch

    numba.set_num_threads(min(cfg.threads, numba.config.NUMBA_NUM_THREADS))
    torch.set_num_threads(cfg.threads)
    rows = [time_agent(spec, cfg) for spec in cfg.agents]
    print(f"\n{cfg.ruleset}, {cfg.players} players, batch 1, {cfg.threads} threads, ms per decision\n")
    print("| agent | decisions | median | 90th pct | mean | after setup: median | 90th pct | mean |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['agent']} | {r['decisions']} | {r['median']:.2f} | {r['p90']:.2f} | {r['mean']:.2f} | "
              f"{r['play_median']:.2f} | {r['play_p90']:.2f} | {r['play_mean']:.2f} |")
    return rows


if __name__ == "__main__":
    main()
