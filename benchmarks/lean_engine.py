"""The batched engine with and without observations written every step, against OpenSpiel's ``crazy_eights`` with
and without its observation tensor, in one run, like for like.

    python -m benchmarks.lean_engine --rounds 3

``VectorGame(write_observations=False)`` leaves ``observation`` unwritten in ``step()`` (masks, rewards and states
as always); OpenSpiel's step is measured with ``observation_tensor()`` (as ``benchmarks.run`` does) and without.
The engine runs at batch 4,096 on 2 threads (its best batch in ``benchmarks/RESULTS.md``). Needs the bench extra
for OpenSpiel: pip install -e '.[bench]'.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from benchmarks.run import engine_rate, openspiel_rate
from shedders.commandline import build_parser, config_from
from shedders.rules import RULESETS


@dataclass
class Config:
    """Engine steps/s with and without observations, against crazy_eights with and without."""

    rulesets: list[str] = field(default_factory=lambda: list(RULESETS))
    """rulesets to measure"""
    batch: int = 4096
    """games per batch"""
    threads: int = 2
    """numba threads"""
    seconds: float = 1.0
    """length of one timed round"""
    rounds: int = 3
    """timed rounds (the median is reported)"""
    peer_steps: int = 200_000
    """crazy_eights steps per timed round"""


def main(argv: list[str] | None = None) -> dict:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    peer = {obs: statistics.median(openspiel_rate(cfg.peer_steps, seed=r, observe=obs) or float("nan")
                                   for r in range(cfg.rounds)) for obs in (True, False)}
    print(f"OpenSpiel crazy_eights: {peer[True]:,.0f} steps/s with observation_tensor, {peer[False]:,.0f} without")
    print("\n| ruleset | with observations | x crazy_eights (with) | without | x crazy_eights (without) |")
    print("|---|---:|---:|---:|---:|")
    out = {"peer": peer, "rows": []}
    for rs in cfg.rulesets:
        full = engine_rate(rs, cfg.batch, cfg.threads, cfg.seconds, cfg.rounds, write_observations=True)
        lean = engine_rate(rs, cfg.batch, cfg.threads, cfg.seconds, cfg.rounds, write_observations=False)
        out["rows"].append((rs, full, lean))
        print(f"| {rs} | {full:,.0f} | {full / peer[True]:.0f}x | {lean:,.0f} | {lean / peer[False]:.0f}x |",
              flush=True)
    return out


if __name__ == "__main__":
    main()
