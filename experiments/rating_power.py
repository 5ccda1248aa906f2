"""How many games a tournament needs before OpenSkill's intervals part: a simulation of the tournament's rating.

    python -m experiments.rating_power --ranked loser --rates 0.2,0.3 --games 4000,16000,64000
    python -m experiments.rating_power --ranked winner --rates 0.27,0.23 --entries 2,2 --repeats 10

Each simulated game seats every entry once and ranks them as the tournament does with one seat per entry: in
``--ranked loser`` games (core, house and south_african) one entry loses and the rest tie; in ``--ranked winner``
games (og, omg) one entry wins and the rest tie. Which entry it is, is drawn from ``--rates`` (one rate per group
of entries, ``--entries`` entries per group: ``--rates 0.2,0.3 --entries 2,2`` is a per-seat table of two copies
of each agent, as ``--agents ppo,ppo@2,expert,expert@2`` plays it; the rates of a game's entries must add up to 1
or less, the rest being games with no loser or winner, which the rating skips). ``--entries 1,1`` is also the
two-against-two table (``--lineup 0,0,1,1``): the tournament ranks an agent in several seats by its mean reward
over them, so each side is one entry, and in core the side holding the Shithead is the loser. The ratings come from
``experiments.tournament.openskill_ratings``, the tournament's own update (Plackett-Luce, tau 0, mu +- 1.96 sigma).

Printed per number of games: the mean mu and sigma of each group's entries and the share of repeats where the
first group's intervals all lie above the last group's ("apart"). What it tells, measured with it: in a per-seat
core table, seats losing 20% against 30% of the games part in about half the repeats at 128,000 games and in all at
256,000; 5% against 45% need about 8,000.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
from tqdm import tqdm

from experiments.tournament import openskill_ratings
from shedders.commandline import build_parser


def simulate(rates: list[float], entries: list[int], games: list[int], ranked: str = "loser", repeats: int = 5,
             seed: int = 0, progress: bool = False) -> list[dict]:
    """One row per number of games: mean mu and sigma per group, and the share of repeats with the first group's
    intervals above the last group's."""
    if ranked not in ("loser", "winner"):
        raise ValueError(f"ranked must be 'loser' or 'winner', got {ranked!r}")
    if len(rates) != len(entries) or len(rates) < 2 or min(entries) < 1:
        raise ValueError("give one rate per group, two groups or more, each of one entry or more")
    per_entry = np.repeat(np.asarray(rates, float), entries)
    if per_entry.min() < 0 or per_entry.sum() > 1 + 1e-9:
        raise ValueError(f"the rates of a game's {len(per_entry)} entries must be >= 0 and add up to 1 or less")
    if sorted(games) != list(games) or games[0] < 1:
        raise ValueError("--games must be positive and increasing")
    k = len(per_entry)
    group = np.repeat(np.arange(len(rates)), entries)
    p = np.append(per_entry, max(0.0, 1.0 - per_entry.sum()))  # the last outcome: nobody singled out (skipped)
    names = [f"e{i}" for i in range(k)]
    mu = np.zeros((repeats, len(games), k))
    sigma = np.zeros_like(mu)
    rng = np.random.default_rng(seed)
    bar = tqdm(total=repeats * games[-1], disable=not progress, unit="game", desc="rating_power")
    for r in range(repeats):
        picks = rng.choice(k + 1, size=games[-1], p=p / p.sum())
        done = 0
        ratings = None  # openskill_ratings starts from scratch
        for j, n in enumerate(games):
            ratings = openskill_ratings(names, _games(picks[done:n], k, ranked), start=ratings)
            bar.update(n - done)
            done = n
            mu[r, j] = [x.mu for x in ratings]
            sigma[r, j] = [x.sigma for x in ratings]
    bar.close()
    rows = []
    first, last = group == 0, group == len(rates) - 1
    for j, n in enumerate(games):
        lo, hi = mu[:, j] - 1.96 * sigma[:, j], mu[:, j] + 1.96 * sigma[:, j]
        apart = (lo[:, first].min(axis=1) > hi[:, last].max(axis=1)).mean()
        rows.append({"games": n, "apart": float(apart),
                     **{f"mu_{g}": float(mu[:, j, group == g].mean()) for g in range(len(rates))},
                     **{f"sigma_{g}": float(sigma[:, j, group == g].mean()) for g in range(len(rates))}})
    return rows


def _games(picks: np.ndarray, k: int, ranked: str):
    """(entries, ranks) per simulated game; ``k`` (nobody singled out) is skipped, as a game with no loser is."""
    for who in picks:
        if who == k:
            continue
        ranks = [1] * k if ranked == "loser" else [2] * k
        ranks[who] = 2 if ranked == "loser" else 1
        yield list(range(k)), ranks


@dataclass
class Config:
    """Simulated rating runs: how many games a rating needs to part entries of known strength."""

    ranked: str = "loser"
    """who a game singles out: one loser (core) or one winner (og); the rest tie"""
    rates: list[float] = field(default_factory=lambda: [0.2, 0.3])
    """per group: the share of games an entry of it loses (wins)"""
    entries: list[int] | None = None
    """entries per group (none: 2 each, a per-seat 4-player table)"""
    games: list[int] = field(default_factory=lambda: [4000, 16000, 64000])
    """increasing game counts to report"""
    repeats: int = 5
    """simulated runs per game count"""
    seed: int = 0
    """the simulation's seed"""


def main(argv: list[str] | None = None) -> list[dict]:
    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    if a.ranked not in ("loser", "winner"):
        ap.error(f"--ranked must be loser or winner, got {a.ranked!r}")
    rates = a.rates
    try:
        entries = a.entries or [2] * len(rates)
        rows = simulate(rates, entries, a.games, a.ranked, a.repeats, a.seed, progress=not a.quiet)
    except ValueError as e:
        ap.error(str(e))
    groups = range(len(rates))
    print("| games | " + " | ".join(f"group {g} (rate {rates[g]}) mu, sigma" for g in groups) + " | apart |")
    print("|---:|" + "---:|" * len(rates) + "---:|")
    for r in rows:
        cells = " | ".join(f"{r[f'mu_{g}']:.2f}, {r[f'sigma_{g}']:.3f}" for g in groups)
        print(f"| {r['games']:,} | {cells} | {r['apart']:.0%} |")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
