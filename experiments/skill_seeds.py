"""The skill-versus-luck table of several seeds side by side, with the spread of every cell.

    python -m experiments.skill_seeds runs/sl-4p-s0 runs/sl-4p-s1 runs/sl-4p-s2
    python -m experiments.skill_seeds runs/sl-4p-s0 runs/sl-4p-s1 runs/sl-4p-s2 --out runs/sl-4p-seeds.md

Each argument is the run directory of one ``experiments.skill_luck`` run (its ``report.json``). The runs must
differ in their seed alone (and their name and folder): the same rulesets, players, agents, fictive players and
deals, so that each cell is the same measure on other deals. For every ruleset, field and beginner the table gives
each seed's relative skill with the oracle, with the fictive network where one was trained, and the lower bound,
each with its 95% interval, the best real player each seed chose, and the spread of the point estimates over the
seeds (largest minus smallest). A spread wider than the cells' own intervals says the seeds disagree by more than
their deals explain; where the best real player changes between seeds, the row says so.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from experiments.skill_report import cell_note, ci

#: the config fields a run of another seed may change
FREE = ("seed", "name", "out")
#: the measures of a cell: (label, how to find it in a ruleset's report for a field and beginner)
MEASURES = (
    ("oracle", lambda r, f, b: r.get("relative_skill_by_beginner", {}).get(f, {}).get(b)),
    ("fictive network",
     lambda r, f, b: (r.get("fictive_network", {}).get(f) or {}).get("relative_skill", {}).get(b)),
    ("lower bound", lambda r, f, b: r.get("relative_skill_bound", {}).get(f, {}).get(b)),
)


def load(run: str | Path) -> dict:
    path = Path(run)
    path = path if path.suffix == ".json" else path / "report.json"
    if not path.is_file():
        raise ValueError(f"{path}: no skill_luck report there")
    return json.loads(path.read_text())


def check_same_design(reports: list[dict]) -> None:
    """``ValueError`` naming every config field (other than ``FREE``) on which the runs differ, or their seeds
    repeat."""
    first = reports[0]["config"]
    differ = sorted({k for r in reports[1:] for k in set(first) | set(r["config"])
                     if k not in FREE and r["config"].get(k) != first.get(k)})
    if differ:
        raise ValueError("the runs differ in more than their seed: " + ", ".join(differ))
    seeds = [r["config"]["seed"] for r in reports]
    if len(set(seeds)) < len(seeds):
        raise ValueError(f"the runs repeat a seed: {seeds}")


def side_by_side(reports: list[dict]) -> list[dict]:
    """One row per (ruleset, field, beginner, measure) some run measured: each seed's cell (None where that run
    has none), the best real player each chose, and the spread of the finite point estimates."""
    rows = []
    keys = {}
    for rep in reports:
        for r in rep["rulesets"]:
            for fld, by_b in r.get("relative_skill_bound", {}).items():
                for b in by_b:
                    keys.setdefault((r["ruleset"], fld, b), None)
    for ruleset, fld, b in keys:
        for label, find in MEASURES:
            cells = []
            for rep in reports:
                r = next((x for x in rep["rulesets"] if x["ruleset"] == ruleset), None)
                cells.append(find(r, fld, b) if r is not None else None)
            if not any(cells):
                continue
            points = [c["relative_skill"] for c in cells if c and math.isfinite(c["relative_skill"])]
            rows.append({"ruleset": ruleset, "field": fld, "beginner": b, "measure": label, "cells": cells,
                         "best": [c.get("best") if c else None for c in cells],
                         "spread": max(points) - min(points) if len(points) > 1 else math.nan,
                         "widest": max((c["rs_hi"] - c["rs_lo"] for c in cells
                                        if c and math.isfinite(c["rs_hi"] - c["rs_lo"])), default=math.nan)})
    return rows


def markdown(reports: list[dict], rows: list[dict]) -> str:
    seeds = [r["config"]["seed"] for r in reports]
    cfg = reports[0]["config"]
    out = [f"# Skill and luck at {cfg['players']} players, seeds {', '.join(map(str, seeds))} side by side", "",
           (f"{cfg['deals']} deals per tournament and seed; agents {', '.join(cfg['agents'])}; fictive player "
            f"{cfg['oracle'] or 'none'}. Each cell: the relative skill measured on that seed's deals (95%). "
            "Spread: the largest minus the smallest point estimate over the seeds; the widest interval of the row "
            "beside it for scale. A cell outside [0, 1] says why, as the report does."), "",
           "| ruleset | field | beginner | measure | " + " | ".join(f"seed {s}" for s in seeds)
           + " | spread (widest interval) | best real per seed |",
           "|---" * (5 + len(seeds)) + "|---|"]
    for row in rows:
        cells = [ci(c["relative_skill"], c["rs_lo"], c["rs_hi"]) + cell_note(c) if c else "not measured"
                 for c in row["cells"]]
        best = [x for x in row["best"] if x]
        who = best[0] if best and len(set(best)) == 1 else " / ".join(x or "-" for x in row["best"]) + " (changes)"
        spread = "n/a" if math.isnan(row["spread"]) else f"{row['spread']:.2f} ({row['widest']:.2f})"
        out.append(f"| {row['ruleset']} | {row['field']} | {row['beginner']} | {row['measure']} | "
                   + " | ".join(cells) + f" | {spread} | {who} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="skill_luck run directories (or their report.json), one per seed")
    ap.add_argument("--out", default="", help="also write the table to this file")
    args = ap.parse_args(argv)
    try:
        if len(args.runs) < 2:
            raise ValueError("give the runs of at least two seeds")
        reports = [load(r) for r in args.runs]
        check_same_design(reports)
    except ValueError as e:
        ap.error(str(e))
    text = markdown(reports, side_by_side(reports))
    if args.out:
        tmp = Path(args.out).with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(args.out)
    sys.stdout.write(text)
    return text


if __name__ == "__main__":
    main()
