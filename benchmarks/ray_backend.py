"""The Ray backend against the local one, side by side: the same tournament with ``--workers 2`` each way.

    python -m benchmarks.ray_backend --games 4096 --repeats 2

Each run is a fresh ``python -m experiments.tournament`` process (Ray's start-up and the workers' numba cache loads
included, as a user meets them), the two backends alternating; every run writes a new run directory, so nothing is
reused. Prints each wall time, the medians and the ratio local/ray (speed of ray relative to local: >= 0.8 is the
target), checks that both backends gave the same games, and times what every Ray run pays on top of its games:
starting a local cluster and shutting it down, in a fresh process. Needs Ray: pip install -e '.[ray]'.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from shedders.commandline import build_parser, config_from


@dataclass
class Config:
    """A tournament with --workers 2 run locally and on a local Ray cluster, alternating."""

    games: int = 4096
    """deals of the tournament"""
    agents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """agents of the tournament"""
    ruleset: str = "core"
    """ruleset of the tournament"""
    workers: int = 2
    """processes (local) and actors (ray)"""
    repeats: int = 2
    """runs of each backend"""


def one(cfg: Config, backend: str, out: Path) -> tuple[float, Path]:
    name = f"{backend}-{time.monotonic_ns()}"
    cmd = [sys.executable, "-m", "experiments.tournament", "--ruleset", cfg.ruleset,
           "--agents", ",".join(cfg.agents),
           "--games", str(cfg.games), "--workers", str(cfg.workers), "--backend", backend, "--out", str(out),
           "--name", name, "--quiet"]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0, out / name


FIXED = ("import json, time; t0 = time.perf_counter(); from experiments import ray_backend; "
         "ray = ray_backend.init(int(__import__('sys').argv[1])); t1 = time.perf_counter(); ray.shutdown(); "
         "print(json.dumps({'init': t1 - t0, 'shutdown': time.perf_counter() - t1}))")


def fixed_cost(workers: int) -> dict:
    """Seconds a fresh process takes to import Ray and start a local cluster (``ray_backend.init``), and to shut it
    down: what every Ray run pays on top of its games."""
    done = subprocess.run([sys.executable, "-c", FIXED, str(workers)], check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    times = {"local": [], "ray": []}
    with tempfile.TemporaryDirectory() as tmp:
        rows = {}
        for r in range(cfg.repeats):
            for backend in (("local", "ray") if r % 2 == 0 else ("ray", "local")):
                wall, run_dir = one(cfg, backend, Path(tmp))
                times[backend].append(wall)
                rows[backend] = json.loads((run_dir / "results.json").read_text())["game_rows"]
                print(f"{backend:>5}: {wall:6.1f} s", flush=True)
        same = rows["local"] == rows["ray"]
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["local"] / med["ray"]
    fixed = [fixed_cost(cfg.workers) for _ in range(cfg.repeats)]
    fixed = {k: statistics.median(f[k] for f in fixed) for k in ("init", "shutdown")}
    print(f"{cfg.games} deals of {','.join(cfg.agents)} in {cfg.ruleset}, --workers {cfg.workers}: median local "
          f"{med['local']:.1f} s, ray {med['ray']:.1f} s; ray runs at {ratio:.2f}x local's speed; same games: "
          f"{same}; starting a local cluster takes {fixed['init']:.1f} s and shutting it down "
          f"{fixed['shutdown']:.1f} s (median of {cfg.repeats})")
    return {"median": med, "ratio": ratio, "same": same, "times": times, "fixed": fixed}


if __name__ == "__main__":
    main()
