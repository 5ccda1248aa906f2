"""Single AEC env throughput with random legal actions, and import + compile times (cold and warm).

    python -m benchmarks.aec_env                 # steps/s per ruleset, median of 5 runs
    python -m benchmarks.aec_env --startup       # also cold (no numba cache) and warm import+compile time

Random legal actions are drawn from the mask with a seeded numpy generator, as a user's loop would; every
step goes through the PettingZoo wrapper (`shedders.env`), observe() and last() included.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import shedders
from shedders.commandline import build_parser
from shedders.rules.registry import members

STARTUP = (
    "import time; t=time.perf_counter(); import shedders; e=shedders.env('south_african', 4); e.reset(seed=0); "
    "e.last(); e.step(e.unwrapped.legal_actions()[0]); print(time.perf_counter()-t)"
)


def aec_rate(make_env, steps: int, seed: int = 0) -> float:
    """Steps/s of a PettingZoo AEC env made by ``make_env()``, random legal actions, last() every step."""
    env = make_env()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    t = time.perf_counter()
    while done < steps:
        if not env.agents:
            env.reset()
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        done += 1
    return done / (time.perf_counter() - t)


def steps_per_second(ruleset: str, num_players: int, steps: int, seed: int) -> float:
    return aec_rate(lambda: shedders.env(ruleset, num_players), steps, seed)


def startup_seconds(clear_cache: bool) -> float:
    root = Path(__file__).resolve().parents[1] / "shedders"
    if clear_cache:
        for d in root.rglob("__pycache__"):
            for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
                f.unlink()
    out = subprocess.run([sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


@dataclass
class Config:
    """The single AEC env's steps/s per palace ruleset (and, with --startup, its cold and warm start-up)."""

    steps: int = 50_000
    """steps per timed run"""
    repeats: int = 5
    """timed runs per ruleset (the median is reported)"""
    players: int = 4
    """seats at the table"""
    startup: bool = False
    """also time import + compile + first step, cold (numba cache cleared) and warm"""


def main(argv: list[str] | None = None) -> None:
    args = build_parser(Config, description=__doc__).parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    if args.startup:
        cold = startup_seconds(clear_cache=True)
        warm = [startup_seconds(clear_cache=False) for _ in range(3)]
        print(f"import + compile + first step: cold {cold:.1f} s, warm median {statistics.median(warm):.2f} s")
    steps_per_second("core", args.players, 1000, 0)  # warm-up
    for ruleset in members("palace"):
        runs = [steps_per_second(ruleset, args.players, args.steps, s) for s in range(args.repeats)]
        print(f"{ruleset:14s} {args.players}p  AEC env steps/s: median {statistics.median(runs):,.0f} "
              f"(min {min(runs):,.0f}, max {max(runs):,.0f}, {args.repeats} runs of {args.steps:,})")


if __name__ == "__main__":
    main()
