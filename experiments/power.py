"""How many duplicate deals a head-to-head verdict needs: run a pilot, then size the real run.

    python -m experiments.power --ruleset og --players 4 --agents ppo,expert --pilot 256
    python -m experiments.power --ruleset core --agents expert,greedy --pilot 64 --delta 0.01

The pilot is a duplicate tournament of the two agents (``experiments.tournament``; by default two seats each, the
first half of the table agent a: ``--lineup 0,0,1,1`` at 4 players), every deal in every seat rotation. Its game
rows give, per deal, agent a's mean reward minus agent b's (the paired difference, ``experiments.stats``). From the
pilot's mean difference and the standard deviation of the per-deal differences it reports:

- the pilot's own verdict: the mean difference with its 95% interval and p-value (paired t test);
- the deals a paired test at ``--level`` (two-sided) needs to detect the pilot's difference with probability
  ``--power``: n = ((z_(1-alpha/2) + z_power) * sd / delta)^2, with a bootstrap interval over the pilot's deals
  (the pilot estimates both sd and delta, so n is uncertain; a small pilot gives a wide interval);
- with ``--delta``, the same for a difference you name (the smallest that would matter to you).

The verdict a tournament reports afterwards must come from fresh deals (another ``--seed``), sized before it runs.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments import stats
from experiments import tournament as T
from shedders.commandline import build_parser


def analyse(rows: dict, a: int = 0, b: int = 1, delta: float | None = None, level: float = 0.95,
            power: float = 0.8, resamples: int = 2000, seed: int = 0) -> dict:
    """The pilot's paired verdict and the deals a verdict needs, from tournament game rows."""
    ra, rb = stats.paired_rewards(rows["deal"], rows["seat_agent"], rows["reward"], a, b)
    if len(ra) < 2:
        raise ValueError("the pilot needs at least two deals where both agents sit")
    verdict = stats.paired_difference(ra, rb, level)
    d = ra - rb

    def needed(x: np.ndarray) -> float:
        return stats.deals_for_power(float(x.std(ddof=1)), float(x.mean()), level, power)

    n, lo, hi = stats.bootstrap_ci(d, needed, resamples=resamples, seed=seed)
    games_per_deal = len(rows["deal"]) / max(1, len(np.unique(rows["deal"])))
    out = {"pilot": verdict, "deals_needed": n, "deals_needed_lo": lo, "deals_needed_hi": hi,
           "games_per_deal": games_per_deal, "level": level, "power": power}
    if delta is not None:
        out["delta"] = delta
        out["deals_for_delta"] = stats.deals_for_power(verdict["sd"], delta, level, power)
    return out


def report(names: list[str], res: dict) -> str:
    p = res["pilot"]
    g = res["games_per_deal"]

    def n(x):
        return "never (no difference)" if math.isinf(x) else f"{x:,.0f}"

    lines = [
        (f"pilot: {p['deals']} deals; {names[0]} - {names[1]} mean reward per deal {p['diff']:+.4f} "
        f"[{p['lo']:+.4f}, {p['hi']:+.4f}] (95%), p = {p['p']:.3g}, sd of the per-deal difference {p['sd']:.4f}"),
        (f"a paired test at {res['level']:.0%} (two-sided) with power {res['power']:.0%} needs about "
        f"{n(res['deals_needed'])} duplicate deals [{n(res['deals_needed_lo'])}, {n(res['deals_needed_hi'])}] "
        f"for the pilot's difference (x {g:.0f} games per deal)"),
    ]
    if "delta" in res:
        lines.append(f"for a difference of {res['delta']:+.4f}: about {n(res['deals_for_delta'])} duplicate deals")
    if p["p"] < 1 - res["level"]:
        lines.append("the pilot alone already parts them; confirm on fresh deals (another --seed), sized as above")
    return "\n".join(lines)


@dataclass
class Config:
    """A pilot tournament of two agents, and the deals a verdict between them needs."""

    ruleset: str = "core"
    """the ruleset"""
    players: int = 4
    """seats at the table"""
    agents: list[str] = field(default_factory=lambda: ["expert", "greedy"])
    """the two agents, a,b (options as in the tournament)"""
    pilot: int = 128
    """deals in the pilot (each in every seat rotation)"""
    lineup: list[int] | None = None
    """seating before rotation, agent indices per seat (none: half the seats each)"""
    delta: float | None = None
    """also size the run for this mean reward difference"""
    level: float = 0.95
    """the confidence level of the verdict"""
    power: float = 0.8
    """the chance the sized run parts the agents when they differ by the pilot's (or --delta's) difference"""
    seed: int = 0
    """the pilot's deals (the real run takes another)"""
    workers: int = 1
    """processes"""
    chunk: int = 32
    """deals per chunk (the tournament's unit of work and seeding)"""
    ply_cap: int = 5000
    """decisions after which a game is capped"""
    cap_rule: str = "truncate"
    """how a game at the cap ends: truncate or most_cards"""
    out: str = "runs"
    """the folder that holds the run directory"""


def main(argv: list[str] | None = None) -> dict:
    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    names = args.agents
    if len(names) != 2:
        ap.error(f"--agents takes exactly two agents, got {len(names)}")
    if not 0 < args.level < 1 or not 0 < args.power < 1:
        ap.error("--level and --power must be in (0, 1)")
    lineup = args.lineup or [0] * (args.players // 2) + [1] * (args.players - args.players // 2)
    cfg = T.Config(ruleset=args.ruleset, players=args.players, agents=names, games=args.pilot, seed=args.seed,
                   workers=args.workers, out=args.out, ply_cap=args.ply_cap, cap_rule=args.cap_rule,
                   chunk=args.chunk, lineup=lineup)
    cfg.name = "power-" + cfg.run_name()
    try:
        summary = T.run(cfg, progress=not args.quiet)
        res = analyse(summary["game_rows"], 0, 1, args.delta, args.level, args.power, seed=args.seed)
    except ValueError as e:
        ap.error(str(e))
    except KeyboardInterrupt:
        print(f"\ninterrupted: the pilot's finished chunks are in {Path(cfg.out) / cfg.run_name() / 'chunks'}/; "
              f"the same command continues", file=sys.stderr)
        raise SystemExit(130) from None
    print(report(names, res))
    res["run_dir"] = summary["run_dir"]
    return res


if __name__ == "__main__":
    main()
