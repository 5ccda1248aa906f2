"""All throughput numbers in one run on one machine, printed and written to benchmarks/RESULTS.md.

    pip install -e '.[bench]'          # the peers: open_spiel, rlcard (benchmark-only)
    python -m benchmarks.run           # about 5 minutes on 2 cores; --quick for a smoke run

Measures, with uniformly random legal actions everywhere:
- the batched engine (VectorGame: sample_legal + step, observation and mask written every step) per ruleset, at
  batch sizes 1 ... 65,536, on 1 thread and on all threads: steps/s and finished games/s;
- the single AEC env (`shedders.env`, through PettingZoo's wrapper, with last() and observe() every step);
- peers: OpenSpiel's crazy_eights (C++ stepped from Python, an observation tensor each step), RLCard's uno, and
  PettingZoo's classic connect_four and texas_holdem AEC envs;
- bytes of engine state per game, and cold (empty numba cache) / warm import + compile + first step time.
Timing is noisy on a shared machine: each figure is the median of several timed rounds.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numba
import numpy as np

import shedders
from benchmarks.aec_env import aec_rate, startup_seconds
from benchmarks.game_lengths import random_game_lengths
from shedders.commandline import build_parser

RULESETS = ("og", "fatality", "core", "south_african", "house", "omg")
BATCHES = (1, 16, 256, 4096, 65536)
OUT = Path(__file__).resolve().parent / "RESULTS.md"


def median_rate(fn, rounds: int) -> float:
    return statistics.median(fn() for _ in range(rounds))


def mean_game_length(ruleset: str) -> float:
    """Mean decisions per game under random legal play: 2,000 games, each played to its end (game_lengths)."""
    return random_game_lengths(ruleset, 4, 2000, seed=1, batch=256, progress=False)["mean"]


def engine_rate(ruleset: str, batch: int, threads: int, seconds: float, rounds: int,
                write_observations: bool = True) -> float:
    """Median steps/s of sample_legal + step over ``rounds`` rounds of about ``seconds`` each."""
    numba.set_num_threads(threads)
    vg = shedders.VectorGame(ruleset, batch, 4, seed=0, write_observations=write_observations)
    vg.reset()
    for _ in range(max(3, 2000 // batch)):  # leave the setup phase behind, warm caches
        vg.step(vg.sample_legal(), check=False)
    t = time.perf_counter()
    vg.step(vg.sample_legal(), check=False)
    iters = max(3, int(seconds / max(time.perf_counter() - t, 1e-7)))
    rates = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(iters):
            vg.step(vg.sample_legal(), check=False)
        rates.append(iters * batch / (time.perf_counter() - t))
    return statistics.median(rates)


def openspiel_rate(steps: int, seed: int = 0, observe: bool = True) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights")
    rng = np.random.default_rng(seed)
    done = 0
    state = game.new_initial_state()
    t = time.perf_counter()
    while done < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        if observe:
            state.observation_tensor(state.current_player())
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        done += 1
    return done / (time.perf_counter() - t)


def rlcard_rate(steps: int, seed: int = 0) -> float | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": seed})
    rng = np.random.default_rng(seed)
    done = 0
    state, _ = env.reset()
    t = time.perf_counter()
    while done < steps:
        if env.is_over():
            state, _ = env.reset()
        legal = list(state["legal_actions"].keys())
        state, _ = env.step(legal[rng.integers(len(legal))])
        done += 1
    return done / (time.perf_counter() - t)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
        f"numba {numba.__version__}, {platform.system()} {platform.release()}"
    )


def fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:,.0f}"


@dataclass
class Config:
    """Every throughput number in one run, written to benchmarks/RESULTS.md."""

    quick: bool = False
    """tiny budgets (a smoke run); the results are not written"""
    rounds: int = 3
    """timed rounds per figure (the median is reported)"""
    out: str = str(OUT)
    """the Markdown file the results go to"""


def main(argv: list[str] | None = None) -> None:
    args = build_parser(Config, description=__doc__).parse_args(argv)
    quick = args.quick
    seconds = 0.05 if quick else 1.0
    aec_steps = 2_000 if quick else 40_000
    rounds = 1 if quick else args.rounds
    all_threads = numba.config.NUMBA_NUM_THREADS
    lines = [
        "# Benchmark results",
        "",
        f"Written by `python -m benchmarks.run` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC.",
        f"Machine: {machine()}.",
        "All figures: uniformly random legal actions, median of "
        f"{rounds} timed rounds, 4 players unless said.",
        "",
    ]

    def say(line=""):
        print(line, flush=True)
        lines.append(line)

    if not quick:
        cold = startup_seconds(clear_cache=True)
        warm = statistics.median(startup_seconds(clear_cache=False) for _ in range(3))
        code = "import shedders; v=shedders.VectorGame('core', 8, 4); v.reset(); v.step(v.sample_legal())"
        vector_starts = []
        for _ in range(4):  # the first run compiles the batched kernels into the cache
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            vector_starts.append(time.perf_counter() - t)
        say("## Start-up: import + compile + first step, in a new process")
        say()
        say("| | cold (empty numba cache) | warm (cached) |")
        say("|---|---:|---:|")
        say(f"| AEC env (`south_african`) | {cold:.1f} s | {warm:.2f} s |")
        say(f"| VectorGame (`core`), after the AEC kernels are cached | {vector_starts[0]:.1f} s | "
            f"{statistics.median(vector_starts[1:]):.2f} s |")
        say()

    say("## Batched engine (`VectorGame`): sample_legal + step, observation and mask written every step")
    say()
    say("games/s = steps/s / mean game length (random legal play, 4 players).")
    say()
    say("| ruleset | mean length | batch | threads | steps/s | games/s |")
    say("|---|---:|---:|---:|---:|---:|")
    best = {}
    for ruleset in RULESETS:
        length = mean_game_length(ruleset)
        for threads in sorted({1, all_threads}):
            for batch in BATCHES:
                sps = engine_rate(ruleset, batch, threads, seconds, rounds)
                best[(ruleset, threads)] = max(best.get((ruleset, threads), 0), sps)
                say(f"| {ruleset} | {length:,.0f} | {batch:,} | {threads} | {sps:,.0f} | {sps / length:,.1f} |")
    numba.set_num_threads(all_threads)
    say()

    say("## Single environments, one step at a time from Python")
    say()
    say("| environment | steps/s |")
    say("|---|---:|")
    aec = {}
    for ruleset in RULESETS:
        aec[ruleset] = median_rate(lambda: aec_rate(lambda: shedders.env(ruleset, 4), aec_steps), rounds)
        say(f"| shedders `{ruleset}` AEC env (`shedders.env`) | {aec[ruleset]:,.0f} |")
    peers = {}
    peers["openspiel"] = median_rate(lambda: openspiel_rate(aec_steps), rounds) if _has("pyspiel") else None
    say(f"| OpenSpiel `crazy_eights` (C++, observation tensor each step) | {fmt(peers['openspiel'])} |")
    peers["rlcard"] = median_rate(lambda: rlcard_rate(aec_steps), rounds) if _has("rlcard") else None
    say(f"| RLCard `uno` | {fmt(peers['rlcard'])} |")
    from pettingzoo.classic import connect_four_v3, texas_holdem_v4

    peers["connect_four"] = median_rate(lambda: aec_rate(connect_four_v3.env, aec_steps), rounds)
    say(f"| PettingZoo `connect_four_v3.env()` | {peers['connect_four']:,.0f} |")
    peers["texas_holdem"] = median_rate(lambda: aec_rate(texas_holdem_v4.env, aec_steps), rounds)
    say(f"| PettingZoo `texas_holdem_v4.env()` | {peers['texas_holdem']:,.0f} |")
    say()

    say("## State size")
    say()
    say("| ruleset | players | bytes of engine state per game | + observation + mask buffers |")
    say("|---|---:|---:|---:|")
    for ruleset, n in (("core", 4), ("core", 5), ("south_african", 6)):
        vg = shedders.VectorGame(ruleset, 16, n)
        extra = vg.observation.shape[1] + vg.action_mask.shape[1] + 2 + n * 5 + 4
        say(f"| {ruleset} | {n} | {vg.state_bytes_per_game} | {vg.state_bytes_per_game + extra} |")
    say()

    say("## Targets (issue 4)")
    say()
    say("| target | measured | ratio | met |")
    say("|---|---|---:|---|")
    if peers["openspiel"]:
        for ruleset in RULESETS:
            r = best[(ruleset, all_threads)] / peers["openspiel"]
            say(f"| `{ruleset}` engine, {all_threads} threads, best batch >= 50x crazy_eights | "
                f"{best[(ruleset, all_threads)]:,.0f} steps/s | {r:.1f}x | {'yes' if r >= 50 else 'no'} |")
    for ruleset in RULESETS:
        r = aec[ruleset] / peers["connect_four"]
        say(f"| `{ruleset}` AEC env >= 2x connect_four env() | {aec[ruleset]:,.0f} steps/s | {r:.2f}x | "
            f"{'yes' if r >= 2 else 'no'} |")
    if not quick:
        Path(args.out).write_text("\n".join(lines) + "\n")
        print(f"\nwrote {args.out}")


def _has(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    main()
