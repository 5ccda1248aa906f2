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

``--skill-run DIR`` sizes a skill-versus-luck run instead (no pilot is played: the run is the pilot). For each
ruleset, field and beginner of ``DIR/report.json`` (``experiments.skill_luck``; ``DIR`` may also be a report's
``.json`` file itself, as those kept in ``experiments/results/``), it gives the deals per tournament
that each end of the relative-skill bracket needs for a 95% interval of half-width at most ``--width``: the lower
bound (the best payoff in the fictive player's place) and the oracle. An interval's width falls as one over the
square root of the deals, so a cell measured with interval [lo, hi] over the run's D deals needs
D * ((hi - lo) / 2 / width)^2 (the split between choosing the best player and measuring it stays as it was). A cell
whose estimate is missing or whose interval has no width cannot be sized from this run, and says so; one whose
interval reaches far outside [0, 1] (below -1 or above 2: a ratio of two effects near 0) is flagged, as its width
does not shrink with the deals the way this assumes.

    python -m experiments.power --skill-run runs/sl3-og-4p-s0 --width 0.05
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


def deals_for_width(deals: int, lo: float, hi: float, width: float) -> float:
    """The deals a measure needs for an interval of half-width ``width``, from a pilot whose interval over
    ``deals`` deals was [lo, hi] (the width scales as one over the square root of the deals); nan where [lo, hi]
    is not a finite interval of positive width."""
    if width <= 0:
        raise ValueError(f"the half-width must be positive, got {width}")
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return math.nan
    return float(math.ceil(round(deals * ((hi - lo) / 2 / width) ** 2, 6)))  # round: 0.1 / 2 / 0.05 is not 1.0


#: the ends of a skill run's bracket that ``size_skill_run`` sizes: (label, the report's key)
BRACKET_ENDS = (("lower bound", "relative_skill_bound"), ("oracle", "relative_skill_by_beginner"))


def size_skill_run(report: dict, width: float = 0.05) -> list[dict]:
    """For each ruleset, field, beginner and bracket end of a skill-versus-luck report (``report.json``), the
    deals per tournament an interval of half-width ``width`` needs (``deals_for_width`` over the run's deals)."""
    rows = []
    for r in report["rulesets"]:
        for end, key in BRACKET_ENDS:
            for field_agent, cells in (r.get(key) or {}).items():
                for beginner, c in cells.items():
                    est = float(c.get("relative_skill", math.nan))
                    lo, hi = float(c.get("rs_lo", math.nan)), float(c.get("rs_hi", math.nan))
                    needed = math.nan if math.isnan(est) else deals_for_width(r["deals"], lo, hi, width)
                    rows.append({"ruleset": r["ruleset"], "field": field_agent, "beginner": beginner, "end": end,
                                 "estimate": est, "lo": lo, "hi": hi, "deals": r["deals"], "needed": needed,
                                 # a ratio near 0 / 0: its interval does not shrink as one over the root of deals
                                 "unstable": bool(lo < -1 or hi > 2)})
    return rows


def skill_sizing_report(rows: list[dict], width: float) -> str:
    from experiments.skill_report import ci

    lines = [f"Deals per tournament for a 95% interval of at most +-{width:g} at each end of the bracket:", "",
             "| ruleset | field | beginner | end | estimate (95%) | deals run | deals needed |",
             "|---|---|---|---|---|---:|---:|"]
    for x in rows:
        est = ci(x["estimate"], x["lo"], x["hi"])  # words, not [a, a] or "-0.00", where the interval has none
        if math.isnan(x["needed"]):
            need = "cannot be sized (no " + ("estimate)" if math.isnan(x["estimate"]) else "width)")
        elif x["unstable"]:
            need = (f"{x['needed']:,.0f} (not to be trusted: the interval reaches far outside [0, 1], a ratio "
                    f"of two effects near 0, whose width does not scale with the deals)")
        else:
            need = f"{x['needed']:,.0f}"
        lines.append(f"| {x['ruleset']} | {x['field']} | {x['beginner']} | {x['end']} | {est} | {x['deals']:,} | "
                     f"{need} |")
    return "\n".join(lines)


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
    skill_run: str | None = None
    """size a skill-versus-luck run (its directory, with report.json, or a report's .json file) instead of playing
    a pilot"""
    width: float = 0.05
    """with --skill-run: the half-width each bracket end's interval should have at most"""


def main(argv: list[str] | None = None) -> dict:
    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.skill_run is not None:
        from experiments.skill_seeds import load  # a run's directory or a report's .json, as skill_seeds reads

        try:
            skill_report = load(args.skill_run)
        except ValueError as e:
            ap.error(f"--skill-run: {e} (an experiments.skill_luck run's directory, or its report.json)")
        if not args.width > 0:
            ap.error(f"--width must be positive, got {args.width}")
        rows = size_skill_run(skill_report, args.width)
        print(skill_sizing_report(rows, args.width))
        return {"cells": rows}
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
