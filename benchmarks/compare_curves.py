"""Training runs side by side: the learning curves of two (or more) groups of ``train_ppo`` runs at equal steps.

    python -m benchmarks.compare_curves --groups before=runs/before,after=runs/after --out curves.png

Each group is a folder of run directories (one per seed, each with its ``progress.csv``). For every metric the plot
draws each group's mean over its seeds against engine steps, with the band between its lowest and highest seed, and
the table gives, per group, the mean over the last ``--last`` updates of each seed: their mean with a 95% t
interval over seeds, and the median training steps/s. Runs of two code versions with the same seeds and config
should play the same games up to the point where float rounding flips a sampled action; the printed "same games
through update" says how long the first seeds' games (games ended, the learner's decisions, its rewards) agreed.
"""

from __future__ import annotations

import csv
import math
import statistics
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments.stats import t_ppf
from shedders.commandline import build_parser

METRICS = ("reward_vs_greedy", "reward_vs_expert", "entropy", "learner_decisions")
SAME = ("episodes", "learner_decisions", "reward_vs_greedy", "reward_vs_expert")  # the games, not float noise


def load_group(folder: Path) -> list[list[dict]]:
    runs = sorted(p for p in folder.iterdir() if (p / "progress.csv").is_file()) if folder.is_dir() else []
    if not runs:
        raise ValueError(f"{folder}: no run directory with a progress.csv in it")
    return [list(csv.DictReader(open(r / "progress.csv"))) for r in runs]


def column(rows: list[dict], name: str) -> np.ndarray:
    return np.array([float(r[name]) if r.get(name) not in (None, "") else np.nan for r in rows])


def smooth(y: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over the last ``window`` logged values that exist (a heuristic's reward is missing in an
    update
    where no game against it ended)."""
    out = np.full(len(y), np.nan)
    for i in range(len(y)):
        w = y[max(0, i - window + 1):i + 1]
        w = w[~np.isnan(w)]
        if len(w):
            out[i] = w.mean()
    return out


def identical_through(a: list[dict], b: list[dict]) -> int:
    """The last update through which two runs logged the same games (0: they differ from the first)."""
    last = 0
    for ra, rb in zip(a, b):
        if any(ra.get(k) != rb.get(k) for k in SAME):
            break
        last = int(ra["update"])
    return last


def summary(runs: list[list[dict]], metric: str, last: int) -> tuple[float, float]:
    """Mean over seeds of each seed's mean over its last ``last`` updates, with the 95% t half-width."""
    vals = []
    for rows in runs:
        y = column(rows, metric)[-last:]
        y = y[~np.isnan(y)]
        if len(y):
            vals.append(float(y.mean()))
    if len(vals) < 2:
        return (vals[0] if vals else float("nan")), float("nan")
    return statistics.mean(vals), t_ppf(0.975, len(vals) - 1) * statistics.stdev(vals) / math.sqrt(len(vals))


@dataclass
class Config:
    """Learning curves of groups of train_ppo runs side by side, at equal engine steps."""

    groups: list[str] = field(default_factory=list)
    """LABEL=FOLDER, two or more: each folder holds a group's run directories"""
    metrics: list[str] = field(default_factory=lambda: list(METRICS))
    """progress.csv columns to plot"""
    window: int = 10
    """updates in the trailing mean of each curve"""
    last: int = 20
    """updates at the end of each run averaged in the table"""
    out: str | None = None
    """write the plot here (png)"""


def main(argv: list[str] | None = None) -> dict:
    ap = build_parser(Config, description=__doc__)
    args = ap.parse_args(argv)
    pairs = [g.partition("=")[::2] for g in args.groups]
    if len(pairs) < 2 or any(not label or not folder for label, folder in pairs):
        ap.error("--groups wants two or more LABEL=FOLDER")
    if args.window < 1 or args.last < 1:
        ap.error("--window and --last must be at least 1")
    try:
        groups = {label: load_group(Path(folder)) for label, folder in pairs}
    except ValueError as e:
        ap.error(str(e))
    labels = list(groups)
    metrics = " | ".join(f"{m} (last {args.last})" for m in args.metrics)
    print(f"| group | seeds | median steps/s | {metrics} |")
    print("|---|---:|---:|" + "---:|" * len(args.metrics))
    table = {}
    for label, runs in groups.items():
        sps = statistics.median(float(r["sps"]) for rows in runs for r in rows)
        cells = {m: summary(runs, m, args.last) for m in args.metrics}
        table[label] = {"seeds": len(runs), "sps": sps, **cells}
        shown = " | ".join(f"{m_:.3f} ± {h:.3f}" if not math.isnan(h) else f"{m_:.3f}" for m_, h in cells.values())
        print(f"| {label} | {len(runs)} | {sps:,.0f} | {shown} |")
    first = groups[labels[0]][0]
    for label in labels[1:]:
        same = identical_through(first, groups[label][0])
        table[label]["identical_through"] = same
        print(f"{labels[0]} and {label}, first seed: same games through update {same} of {len(first)}")
    if args.out:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(args.metrics), figsize=(4.2 * len(args.metrics), 3.4), squeeze=False)
        for ax, m in zip(axes[0], args.metrics):
            for label, runs in groups.items():
                n = min(len(rows) for rows in runs)
                x = column(runs[0][:n], "global_step") / 1e6
                ys = np.stack([smooth(column(rows[:n], m), args.window) for rows in runs])
                with warnings.catch_warnings():  # a step where no seed logged the metric stays a gap
                    warnings.simplefilter("ignore", RuntimeWarning)
                    mid, lo, hi = np.nanmean(ys, axis=0), np.nanmin(ys, axis=0), np.nanmax(ys, axis=0)
                line, = ax.plot(x, mid, label=f"{label} ({len(runs)} seeds)")
                ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
            ax.set_title(m)
            ax.set_xlabel("engine steps (millions)")
            ax.grid(alpha=0.3)
        axes[0][0].legend()
        fig.tight_layout()
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.out, dpi=110)
        print(f"wrote {args.out}")
    return table


if __name__ == "__main__":
    main()
