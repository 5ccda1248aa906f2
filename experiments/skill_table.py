"""The skill-versus-luck table across rulesets and player counts, from kept reports.

    python -m experiments.skill_table experiments/results/sl3-*.json
    python -m experiments.skill_table experiments/results/sl3-*.json --out runs/sl3-table.md --plot runs/sl3.png

Each argument is one ``experiments.skill_luck`` report (a run directory or its ``report.json``). Reports of one
ruleset at one player count are that cell's seeds: they must differ in their seed alone (as
``experiments.skill_seeds`` checks). For every player count the table has a row per ruleset, field and beginner:

- the bracket of relative skill, [lower bound, fictive player]: the lower bound puts the game's best payoff in the
  fictive player's place, the upper end is the stronger feasible fictive player (the oracle, or the fictive
  network where it was stronger), each end with its 95% interval. Over several seeds each end reads the range of
  the seeds' point estimates and the hull of their intervals;
- the best real player (the one the lower bound's learning effect comes from), per seed where it changes;
- that player's win rate alone against the field (Wilson interval, clustered by deal) beside the luck-only rate:
  how far skill moves the chance of winning, which is what seed 000's claim ("skill bumps up your chance of
  winning ... but it doesn't allow you to consistently crush other players") turns on.

The picture (``--plot``) draws each row's bracket: a bar from the lower bound to the upper end, each end's
interval as a whisker, a panel per player count.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from experiments.skill_report import bracket_text, bracket_upper, ci, iv_text, no_learning_shown, separating_form
from experiments.skill_seeds import check_same_design, load


def group(reports: list[dict]) -> dict[tuple[int, str], list[tuple[int, dict, dict]]]:
    """``(players, ruleset) -> [(seed, report config, that ruleset's section)]``, seeds in order; ``ValueError``
    where the reports of one cell differ in more than their seed (or repeat one)."""
    cells: dict[tuple[int, str], list[tuple[dict, dict]]] = {}
    for rep in reports:
        for r in rep["rulesets"]:
            cells.setdefault((rep["config"]["players"], r["ruleset"]), []).append((rep, r))
    out = {}
    for key, pairs in sorted(cells.items()):
        try:
            check_same_design([{**rep, "config": {**rep["config"], "rulesets": None}} for rep, _ in pairs])
        except ValueError as e:
            raise ValueError(f"{key[1]} at {key[0]} players: {e}") from None
        out[key] = sorted(((rep["config"]["seed"], rep["config"], r) for rep, r in pairs), key=lambda t: t[0])
    return out


def rows(reports: list[dict]) -> list[dict]:
    """One row per player count, ruleset, field and beginner: each seed's lower bound, upper end (and its
    source), best real player, and that player's win rate alone against the field."""
    out = []
    for (players, ruleset), seeds in group(reports).items():
        keys = {}
        for _, _, r in seeds:
            for fld, by_b in r.get("relative_skill_bound", {}).items():
                for b in by_b:
                    keys.setdefault((fld, b), None)
        for fld, b in keys:
            per = []
            for seed, cfg, r in seeds:
                lb = r.get("relative_skill_bound", {}).get(fld, {}).get(b)
                if lb is None:
                    continue
                upper, source = bracket_upper(r, fld, b)
                table = r["field_reference"] if fld == cfg["field_agent"] else r.get(f"field_{fld}", {})
                win = table.get(lb["best"])
                per.append({"seed": seed, "lower": lb, "upper": upper, "source": source, "best": lb["best"],
                            "win": win, "baseline": r["baseline"]})
            out.append({"players": players, "ruleset": ruleset, "field": fld, "beginner": b, "seeds": per,
                        "deals": seeds[0][1]["deals"]})
    return out


def _over_seeds(pts: list[float], los: list[float], his: list[float]) -> str:
    """Several seeds' estimates: the range of the points and the hull of their intervals (in words where every
    interval has no width: no hull of zero width is printed)."""
    where = f"{min(pts):.2f}" if f"{min(pts):.2f}" == f"{max(pts):.2f}" else f"{min(pts):.2f} to {max(pts):.2f}"
    pairs = [(lo, hi) for lo, hi in zip(los, his, strict=True) if math.isfinite(lo) and math.isfinite(hi)]
    if not pairs:
        return f"{where} (no intervals)"
    lo, hi = min(p[0] for p in pairs), max(p[1] for p in pairs)
    if lo == hi:
        return f"{where} (no interval on any seed: every resample the same)"
    form = separating_form(".2f", lo, hi)
    return f"{where} (intervals within [{lo:{form}}, {hi:{form}}])"


def _end(cells: list[dict | None]) -> str:
    """One end of the bracket over the seeds: the cell with its interval (one seed), else the range of the point
    estimates and the hull of the intervals; words where no seed has it."""
    have = [c for c in cells if c and math.isfinite(c["relative_skill"])]
    if not have:
        return "n/a"
    if len(cells) == 1:
        c = have[0]
        return ci(c["relative_skill"], c["rs_lo"], c["rs_hi"])
    text = _over_seeds([c["relative_skill"] for c in have], [c["rs_lo"] for c in have],
                       [c["rs_hi"] for c in have])
    return text + (f"; {len(cells) - len(have)} of {len(cells)} seeds without" if len(have) < len(cells) else "")


def _win(seeds: list[dict]) -> str:
    have = [s["win"] for s in seeds if s["win"]]
    if not have:
        return "not played"
    base = f"(luck only {seeds[0]['baseline']:.2f})"
    if len(have) == 1:
        w = have[0]
        rate = iv_text(w["win_rate"], w["win_rate_lo"], w["win_rate_hi"], ".2f",
                       same="(no interval in the report)")
        return f"{rate} {base}"
    return _over_seeds([w["win_rate"] for w in have], [w["win_rate_lo"] for w in have],
                       [w["win_rate_hi"] for w in have]) + f" {base}"


def _brackets(seeds: list[dict]) -> str:
    """Each seed's bracket; said once where every seed gives the same words."""
    texts = [bracket_text(x["lower"], x["upper"]["relative_skill"] if x["upper"] else 1.0) for x in seeds]
    if len(texts) > 1 and all(t.endswith("at both ends") for t in texts):
        return "closed on every seed (" + " / ".join(t.split()[0] for t in texts) + ")"
    if len(set(texts)) == 1:
        return texts[0] + (" on every seed" if len(texts) > 1 else "")
    return " / ".join(texts)


def markdown(table: list[dict]) -> str:
    out = ["# Skill and luck across rulesets and player counts", "",
           ("Relative skill of a beginner's way to the best player, as a bracket [lower bound, fictive player] "
            "(95% intervals; over several seeds, the range of the seeds' estimates and the hull of their "
            "intervals). Upper end: the stronger feasible fictive player (oracle or fictive network); where none "
            "was played, the upper end is 1. Win rate: the best real player alone against the field (Wilson, "
            "clustered by deal), beside the share of seats that win by luck alone.")]
    for players in sorted({r["players"] for r in table}):
        out += ["", f"## {players} players", "",
                ("| ruleset | seeds (deals) | field | beginner | best real | lower bound "
                 "| upper end (fictive player) | bracket | best real's win rate against the field |"),
                "|---" * 9 + "|"]
        for row in (r for r in table if r["players"] == players):
            s = row["seeds"]
            names = [x["best"] for x in s]
            best = names[0] if len(set(names)) == 1 else " / ".join(names) + " (changes)"
            sources = sorted({x["source"] for x in s if x["upper"] is not None})
            upper = _end([x["upper"] for x in s]) + (f" ({', '.join(sources)})" if sources else " (none played)")
            bracket = _brackets(s)
            seeds = f"{', '.join(str(x['seed']) for x in s)} ({row['deals']})"
            out.append(f"| {row['ruleset']} | {seeds} | {row['field']} | {row['beginner']} | {best} "
                       f"| {_end([x['lower'] for x in s])} | {upper} | {bracket} | {_win(s)} |")
    return "\n".join(out) + "\n"


def _plotted(table: list[dict], players: int) -> list[tuple[dict, dict]]:
    """The (row, seed) pairs of one player count that have a bracket to draw (the table says why the others have
    none: no lower bound, or no learning effect over the beginner)."""
    return [(row, x) for row in table if row["players"] == players for x in row["seeds"]
            if math.isfinite(x["lower"]["relative_skill"]) and not no_learning_shown(x["lower"])]


def plot(table: list[dict], path: Path) -> None:
    """Each row's bracket as a bar from the lower bound to the upper end (blue: the reference field, orange: the
    random field), each end's interval a black whisker; a panel per player count, a line per seed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = [p for p in sorted({r["players"] for r in table}) if _plotted(table, p)]
    if not counts:
        raise ValueError("no bracket to draw: no report has a lower bound")
    heights = [len(_plotted(table, p)) for p in counts]
    fig, axes = plt.subplots(len(counts), 1, figsize=(8, 1.5 + 0.3 * sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, players in zip(axes[:, 0], counts, strict=True):
        pairs = _plotted(table, players)
        for y, (row, x) in enumerate(pairs):
            lo = x["lower"]["relative_skill"]
            hi = x["upper"]["relative_skill"] if x["upper"] else 1.0
            ax.plot([lo, hi], [y, y], lw=6, alpha=0.4, solid_capstyle="butt",
                    color="C1" if row["field"] == "random" else "C0")
            for c in (x["lower"], x["upper"]):
                if c and math.isfinite(c["rs_lo"]) and math.isfinite(c["rs_hi"]):
                    m = c["relative_skill"]
                    ax.errorbar(m, y, xerr=[[m - c["rs_lo"]], [c["rs_hi"] - m]], fmt="|", color="k", capsize=2,
                                lw=1)
        ax.set_yticks(range(len(pairs)), [f"{row['ruleset']}, {row['field']} field, {row['beginner']} beginner, "
                                          f"seed {x['seed']}" for row, x in pairs], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(-0.05, 1.1)
        for v in (0, 1):
            ax.axvline(v, color="grey", lw=0.5)
        ax.set_title(f"{players} players: relative skill, [lower bound, fictive player] (95% whiskers)",
                     fontsize=9)
    axes[-1, 0].set_xlabel("relative skill (0: all luck, 1: all skill)")
    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp" + path.suffix)
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(path)


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="skill_luck reports (run directories or their report.json)")
    ap.add_argument("--out", default="", help="also write the table to this Markdown file")
    ap.add_argument("--plot", default="", help="also draw the brackets to this image")
    args = ap.parse_args(argv)
    try:
        table = rows([load(r) for r in args.runs])
    except ValueError as e:
        ap.error(str(e))
    text = markdown(table)
    if args.out:
        tmp = Path(args.out).with_suffix(".tmp")
        tmp.write_text(text)
        tmp.replace(args.out)
    if args.plot:
        try:
            plot(table, Path(args.plot))
        except ValueError as e:
            ap.error(str(e))
    sys.stdout.write(text)
    return text


if __name__ == "__main__":
    main()
