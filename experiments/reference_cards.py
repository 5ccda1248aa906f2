"""The reference agents' score cards that the package ships (``shedders/data/leaderboard/``), so that a fresh
install shows a populated leaderboard. Each is the card of

    shedders bench --agent AGENT --ruleset RULESET --quick

for AGENT one of the protocol's reference opponents, made by the same code (``experiments.bench.run``), with its
games and kept replays, gzipped with a fixed timestamp so that the same card gives the same bytes.

    python -m experiments.reference_cards                          # every reference agent on every ruleset
    python -m experiments.reference_cards --agents expert,champion --rulesets core,og
    python -m experiments.reference_cards --cached-only            # only the cards whose cells are all played

Finished cells are reused from ``--work`` (``runs/bench`` by default, as ``shedders bench`` keeps them), so a
killed run continues where it stopped. ``experiments/RESULTS.md`` ("The benchmark's reference cards") lists what
each took.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

from experiments import bench as B
from shedders import leaderboard as L
from shedders.rules import RULESETS


def file_name(card: dict) -> str:
    slug = "".join(c if c.isalnum() else "_" for c in card["agent"])
    return f"{card['ruleset']}-{card['players']}p-{slug}.json.gz"


def write(card: dict, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name(card)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(gzip.compress(json.dumps(card, sort_keys=True).encode(), mtime=0))
    tmp.replace(path)
    return path


def table(folder: Path) -> str:
    """The shipped cards as a markdown table: headline and each opponent's 1-against-the-rest mean."""
    cards = [json.loads(gzip.decompress(p.read_bytes())) for p in sorted(folder.glob("*.json.gz"))]
    cards.sort(key=lambda c: (RULESETS.index(c["ruleset"]), B.OPPONENTS.index(c["agent"])
                              if c["agent"] in B.OPPONENTS else 99))
    lines = ["| ruleset | agent | headline (95%) | " + " | ".join(f"1v3 {o}" for o in B.OPPONENTS)
             + " | capped | ms/decision |", "|---" * (5 + len(B.OPPONENTS)) + "|"]
    for c in cards:
        one = {r["opponent"]: r for r in c["results"] if r["format"].startswith("1v")}
        h = c["headline"]
        lines.append(f"| {c['ruleset']} | `{c['agent']}` | {h['mean']:+.3f} [{h['lo']:+.3f}, {h['hi']:+.3f}] | "
                     + " | ".join(f"{one[o]['mean']:+.3f}" if o in one else "" for o in B.OPPONENTS)
                     + f" | {c['capped']:.1%} | {c['timing']['ms_per_decision']:.3f} |")
    return "\n".join(lines)


def all_cells_played(cfg: B.Config) -> bool:
    return all((Path(cfg.work) / f"{cfg.ruleset}-{cfg.players}p-{B.cell_key(cfg, opp, fmt)}.json").exists()
               for opp in B.OPPONENTS for fmt in B.formats(cfg.players))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", default=",".join(B.OPPONENTS), help="reference agents, comma separated")
    ap.add_argument("--rulesets", default=",".join(RULESETS), help="rulesets, comma separated")
    ap.add_argument("--work", default="runs/bench", help="where the bench keeps finished cells")
    ap.add_argument("--out", default=str(L.SHIPPED), help="where the cards go (default: the package's folder)")
    ap.add_argument("--cached-only", action="store_true", help="skip a card whose cells are not all played yet")
    ap.add_argument("--table", action="store_true", help="print the shipped cards as a markdown table and stop")
    args = ap.parse_args(argv)
    if args.table:
        print(table(Path(args.out)))
        return 0
    for ruleset in args.rulesets.split(","):
        for agent in args.agents.split(","):
            cfg = B.Config(agent=agent, ruleset=ruleset, quick=True, work=args.work)
            if args.cached_only and not all_cells_played(cfg):
                print(f"{ruleset} {agent}: not all cells played yet; skipped")
                continue
            card = B.run(cfg, progress=sys.stderr.isatty())
            path = write(card, Path(args.out))
            h = card["headline"]
            print(f"{ruleset} {agent}: headline {h['mean']:+.3f} [{h['lo']:+.3f}, {h['hi']:+.3f}], "
                  f"{card['timing']['ms_per_decision']:.3f} ms a decision -> {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
