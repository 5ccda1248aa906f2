"""PPO training throughput at the start of a run: engine steps per second end to end (collection plus update).

    python -m benchmarks.train_throughput                       # every ruleset, 1 and 2 threads, ~4 minutes
    python -m benchmarks.train_throughput --rulesets core --threads 2 --updates 8

Each measurement is a fresh run of ``experiments.train_ppo`` with its default config (network, 512 games x 64
steps per update, opponents pool) and the given ruleset, evaluation off, in a temporary folder. The first updates
of a run are the slowest: the policy is near uniform, so games are long and most steps are the learner's (its
decisions are what the forward pass and the update pay for). The figure reported is the median over the updates
of a run of (engine steps of the update) / (its wall time), with the median shares of that time spent in the
engine, the learner's forward passes, the heuristic and snapshot opponents, and the PPO update. Writes nothing
unless ``--out`` is given (a markdown table).
"""

from __future__ import annotations

import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import torch

from experiments.runlog import read_rows
from shedders.commandline import build_parser
from shedders.rules import REGISTRY

#: every ruleset a network is trained on (one on bases, house, plays its base's game)
RULESETS = tuple(name for name, record in REGISTRY.items() if not record.bases)
SHARES = ("engine", "forward", "opponents", "update")


def measure(ruleset: str, threads: int, updates: int, seed: int = 0) -> dict:
    """Median steps/s and time shares over the first ``updates`` updates of a fresh default run."""
    from experiments.train_ppo import Config, train

    # train() sets both pools: torch ``threads``, the engine its default
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Config(ruleset=ruleset, seed=seed, threads=threads, eval_deals=0, out=tmp, name="bench")
        cfg.total_steps = updates * cfg.num_envs * cfg.num_steps
        train(cfg, progress=False)
        rows = read_rows(Path(tmp) / "bench" / "progress.csv")
    out = {"ruleset": ruleset, "threads": threads, "updates": len(rows),
           "sps": statistics.median(float(r["sps"]) for r in rows),
           "learner_share": statistics.median(float(r["learner_decisions"]) for r in rows)
           / (cfg.num_envs * cfg.num_steps)}
    for k in SHARES:
        out[k] = statistics.median(float(r[f"share_{k}"]) for r in rows)
    return out


@dataclass
class Config:
    """PPO training throughput at the start of a fresh default run, with the shares of its parts."""

    rulesets: list[str] = field(default_factory=lambda: list(RULESETS))
    """rulesets to measure"""
    threads: list[int] = field(default_factory=lambda: [1, 2])
    """torch thread counts (the engine keeps train_ppo's default, engine_threads=1)"""
    updates: int = 12
    """updates per run (512 x 64 engine steps each)"""
    out: str | None = None
    """also write the table here (markdown)"""


def main(argv: list[str] | None = None) -> list[dict]:
    ap = build_parser(Config, description=__doc__)
    args = ap.parse_args(argv)
    if args.updates < 1:
        ap.error("--updates must be at least 1")
    threads = args.threads
    if any(t < 1 for t in threads):
        ap.error("--threads must be positive")
    lines = [(f"PPO training throughput, first {args.updates} updates of a fresh default run (torch "
             f"{torch.__version__}); median over the updates."), "",
             ("| ruleset | threads | engine steps/s | learner's share of steps | engine | forward | opponents | "
             "update |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    results = []
    for ruleset in args.rulesets:
        for t in threads:
            r = measure(ruleset, t, args.updates)
            results.append(r)
            line = (f"| {ruleset} | {t} | {r['sps']:,.0f} | {r['learner_share']:.0%} | "
                    + " | ".join(f"{r[k]:.1%}" for k in SHARES) + " |")
            lines.append(line)
            print(line, flush=True)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    return results


if __name__ == "__main__":
    main()
