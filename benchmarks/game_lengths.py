"""How long random games last, per ruleset: mean and median length in decisions and the share truncated at the
ply cap, over many uniformly random legal games played on the batched engine.

    python -m benchmarks.game_lengths                          # 10,000 games per ruleset at 4 players
    python -m benchmarks.game_lengths --rulesets og --players 6 --games 2000

Every game starts from its own seed (``VectorGame(seed=...)``), so the numbers are reproducible; each game is
counted once, when it ends (terminated or truncated).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

import shedders
from shedders.commandline import build_parser
from shedders.rules.registry import members

PALACE = members("palace")
ALL = shedders.RULESETS


def random_game_lengths(ruleset: str, players: int, games: int, seed: int = 0, batch: int = 1024,
                        ply_cap: int = 5000, progress: bool = True) -> dict:
    """Play exactly ``games`` random games and return their lengths and the share truncated.

    Every game that is started is played to its end, so long games are not under-counted: the first ``batch``
    start together, and each slot that finishes deals the next game until ``games`` have been started."""
    batch = min(batch, games)
    vg = shedders.VectorGame(ruleset, batch, players, seed=seed, autoreset=False, ply_cap=ply_cap)
    lengths, truncated = [], 0
    bar = tqdm(total=games, desc=f"{ruleset} {players}p", disable=not progress, leave=False)
    vg.reset()
    active = np.ones(batch, bool)  # slots playing a game that counts
    started = batch
    while active.any():
        a = vg.sample_legal().copy()
        a[~active] = -1
        vg.step(a)
        ended = np.flatnonzero(active & (vg.terminated | vg.truncated))
        if len(ended) == 0:
            continue
        lengths.extend(int(x) for x in vg.final_plies[ended])
        truncated += int(vg.truncated[ended].sum())
        bar.update(len(ended))
        active[ended] = False
        vg.redeal_finished()
        new = min(len(ended), games - started)
        active[ended[:new]] = True
        started += new
    bar.close()
    lengths = np.array(lengths[:games])
    return {
        "ruleset": ruleset,
        "players": players,
        "games": len(lengths),
        "mean": float(lengths.mean()),
        "median": float(np.median(lengths)),
        "p99": float(np.percentile(lengths, 99)),
        "truncated_share": truncated / len(lengths),
    }


@dataclass
class Config:
    """Lengths of uniformly random games per ruleset, and the share that reaches the ply cap."""

    rulesets: list[str] = field(default_factory=lambda: list(ALL))
    """rulesets to measure"""
    players: int = 4
    """seats at the table"""
    games: int = 10_000
    """random games per ruleset"""
    seed: int = 0
    """the seed of the deals and the random actions"""
    ply_cap: int = 5000
    """decisions after which a game is capped"""
    out: str | None = None
    """also write the table as Markdown to this file (e.g. benchmarks/GAME_LENGTHS.md)"""


def main(argv=None) -> None:
    ap = build_parser(Config, description=__doc__)
    args = ap.parse_args(argv)
    rulesets = args.rulesets
    for r in rulesets:
        if r not in ALL:
            ap.error(f"unknown ruleset {r!r}; allowed: {', '.join(ALL)}")
    print(f"{'ruleset':<14} {'players':>7} {'games':>7} {'mean':>8} {'median':>7} {'p99':>7} {'truncated':>9} "
          f"{'s':>6}")
    rows = ["| ruleset | players | games | mean decisions | median | 99th pct | truncated |",
            "|---|---|---|---|---|---|---|"]
    for ruleset in rulesets:
        t = time.perf_counter()
        r = random_game_lengths(ruleset, args.players, args.games, args.seed, ply_cap=args.ply_cap)
        print(f"{ruleset:<14} {r['players']:>7} {r['games']:>7} {r['mean']:>8.1f} {r['median']:>7.0f} "
              f"{r['p99']:>7.0f} {r['truncated_share']:>9.2%} {time.perf_counter() - t:>6.1f}")
        rows.append(f"| `{ruleset}` | {r['players']} | {r['games']} | {r['mean']:.1f} | {r['median']:.0f} | "
                    f"{r['p99']:.0f} | {r['truncated_share']:.2%} |")
    if args.out:
        cmd = "python -m benchmarks.game_lengths " + " ".join(argv if argv is not None else sys.argv[1:])
        text = (f"# Random-game lengths\n\nUniformly random legal actions, ply cap {args.ply_cap} decisions "
                f"(every decision counts, setup and sneak offers included), seed {args.seed}.\n\n"
                f"Command: `{cmd}`\n\n" + "\n".join(rows) + "\n")
        Path(args.out).write_text(text)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
