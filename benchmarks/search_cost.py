"""What a search costs early in play, where a rollout has the whole game ahead: several agents timed on the same
states, one after another, at batch 1 on one thread.

    python -m benchmarks.search_cost --ruleset fatality --agents
    search:budget=1024+eps=0.2,search:budget=1024+eps=0.2+max_plies=12+leaf=value

For each deal (``--seeds``, default 3 to 6) ``expert`` plays the palace setup; then, for the first ``--decisions``
decisions after it (omg, which has no setup: from its first decision), every agent decides the same state (each
timed; the first agent's first decision is a warm-up and left out) and ``expert``'s action moves the game on. The
table gives, per agent, the median, 90th percentile and
mean in milliseconds over all those decisions, the median of the deals' medians, and that median divided by
``agents.champion.machine_slowdown()`` (measured right after, the same factor ``tests/test_champion.py`` holds the
champions to): the time on the machine the champion's constants in ``agents/champion.py`` describe. The agents
share the machine's state at each moment, so their ratio is what a noisy machine measures well; the absolute
times move with the machine.
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
    """the ruleset (palace: early play starts after the setup)"""
    players: int = 4
    """seats at the table"""
    agents: list[str] = field(default_factory=lambda: ["search:budget=256", "search:budget=1024+eps=0.2"])
    """agent specs, comma separated, timed on the same states"""
    seeds: list[int] = field(default_factory=lambda: [3, 4, 5, 6])
    """the deals"""
    decisions: int = 40
    """decisions timed per deal, from the first after the setup"""


def time_on_same_states(cfg: Config) -> dict[str, list[np.ndarray]]:
    """Milliseconds per decision of each agent, one array per deal (the game moved on by ``expert``)."""
    import numba

    import agents
    import shedders
    from agents.base import act_in
    from shedders.engine.palace import layout as K

    numba.set_num_threads(1)
    rows = np.zeros(1, np.int64)
    times: dict[str, list[np.ndarray]] = {spec: [] for spec in cfg.agents}
    warm = True
    for seed in cfg.seeds:
        vg = shedders.VectorGame(cfg.ruleset, 1, cfg.players, seed=seed, ply_cap=5000)
        vg.reset()
        mover = agents.make("expert", ruleset=cfg.ruleset, num_players=cfg.players, seed=seed)
        timed = {spec: agents.make_spec(spec, cfg.ruleset, cfg.players, seed=seed) for spec in cfg.agents}
        for agent in timed.values():  # one thread per decision (a champion's search is its ``inner``)
            inner = getattr(agent, "inner", agent)
            if hasattr(inner, "threaded_decision"):
                inner.threaded_decision = False
        while family_of(cfg.ruleset).setup_phase and vg.state.phase[0] == K.PH_SETUP:
            vg.step(act_in(mover, vg, rows))
        deal = {spec: [] for spec in cfg.agents}
        for _ in range(cfg.decisions):
            if vg.terminated[0] or vg.truncated[0]:
                break
            for spec, agent in timed.items():
                if warm:  # compiles or loads the kernels once
                    act_in(agent, vg, rows)
                t = time.perf_counter()
                act_in(agent, vg, rows)
                deal[spec].append((time.perf_counter() - t) * 1e3)
            warm = False
            vg.step(act_in(mover, vg, rows))
        for spec in cfg.agents:
            times[spec].append(np.array(deal[spec]))
    return times


def main(argv=None) -> dict[str, dict]:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    times = time_on_same_states(cfg)
    from agents.champion import machine_slowdown

    slow = machine_slowdown()
    out = {}
    print(f"\n{cfg.ruleset}, {cfg.players} players, the first {cfg.decisions} decisions after setup of deals "
          f"{', '.join(map(str, cfg.seeds))}, batch 1, one thread, ms per decision\n")
    print(f"machine_slowdown(): {slow:.2f}\n")
    print("| agent | decisions | median | 90th pct | mean | median of the deals' medians | the same, on the "
          "constants' machine |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec, per_deal in times.items():
        ms = np.concatenate(per_deal)
        row = {"decisions": len(ms), "median": float(np.median(ms)), "p90": float(np.percentile(ms, 90)),
               "mean": float(ms.mean()), "deal_median": float(np.median([np.median(d) for d in per_deal]))}
        row["reference"] = row["deal_median"] / slow
        out[spec] = row
        print(f"| {spec} | {row['decisions']} | {row['median']:.2f} | {row['p90']:.2f} | {row['mean']:.2f} | "
              f"{row['deal_median']:.2f} | {row['reference']:.2f} |")
    return out


if __name__ == "__main__":
    main()
