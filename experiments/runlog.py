"""A training run's logs and command line, shared by the training scripts (``train_ppo``, ``train_exit``,
``train_distill``, ``train_dmc``): one CSV row per update (its header widened when a column appears), the same
numbers as TensorBoard scalars when TensorBoard is installed, the clean-up that lets a killed run resume with each
update logged once, and the command's way of ending.

    writer = tensorboard_writer(run_dir, resumed_at=None)
    log_row(run_dir / "progress.csv", {"update": 1, "global_step": 32768, "loss": 0.4}, writer)
    forget_after(run_dir, last_update)      # on --resume: rows, events and evaluations past the checkpoint
    run_command(train, cfg, resume, quiet, unit="update", files="checkpoint.pt, progress.csv")
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import sys
from pathlib import Path

LOGS = ("progress.csv", "eval.csv")  # the CSV logs of a run, one row per update (evaluations: per evaluation)


def tensorboard_writer(run_dir: Path, resumed_at: int | None = None):
    """TensorBoard's writer (None when tensorboard is not installed: CSV only). A resumed run purges the events a
    killed run wrote after its checkpoint (steps past ``resumed_at``), as ``forget_after`` drops their CSV rows,
    so each update is shown once."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(run_dir), purge_step=None if resumed_at is None else resumed_at + 1)


def trim_log(path: Path, last_update: int) -> None:
    """Drop the rows of a CSV log past ``last_update`` (atomically), so that after kills and resumes each update
    is in it once."""
    if not path.exists():
        return
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    keep = [r for r in rows if int(float(r["update"])) <= last_update]
    if len(keep) == len(rows) or fields is None:
        return
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(keep)
    os.replace(tmp, path)


def forget_after(run_dir: Path, last_update: int) -> None:
    """What a killed run wrote after its last checkpoint (``last_update``): the CSV rows, and the evaluations of a
    network the kill lost (``eval/update-N`` with N past it). Called when the run resumes from that checkpoint."""
    for log in LOGS:
        trim_log(run_dir / log, last_update)
    for ev in sorted((run_dir / "eval").glob("update-*")):
        if ev.name[7:].isdigit() and int(ev.name[7:]) > last_update:
            shutil.rmtree(ev)


def log_row(path: Path, row: dict, writer, prefix: str = "train/") -> None:
    """Append ``row`` to the CSV log at ``path`` (a new column rewrites the file with the wider header) and, with a
    ``writer``, each finite number of it as a TensorBoard scalar ``prefix + key`` at step
    ``row["global_step"]``."""
    new = not path.exists()
    fields = list(row)
    if not new:
        with open(path) as f:
            header = f.readline().strip().split(",")
        fields = header + [k for k in row if k not in header]
        if fields != header:
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=fields)
                w.writeheader()
                w.writerows(rows)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        if new:
            w.writeheader()
        w.writerow(row)
    if writer is not None:
        step = row.get("global_step", 0)
        for k, v in row.items():
            if isinstance(v, (int, float)) and math.isfinite(v) and k not in ("update", "global_step"):
                writer.add_scalar(prefix + k, v, step)


def as_tuples(x):
    """JSON's lists back as the nested tuples they were (``random.getstate()`` saved in a checkpoint as JSON)."""
    return tuple(as_tuples(v) for v in x) if isinstance(x, list) else x


def read_rows(path: Path) -> list[dict]:
    """The rows of a CSV log, as dicts of strings."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run_command(train, cfg, resume: bool, quiet: bool, unit: str = "update", files: str = "checkpoint.pt, "
                "progress.csv", interrupted: str = "") -> dict:
    """A training script's command around ``train(cfg, resume=..., progress=...)``: a bad setting ends in one line
    (``error: ...``, exit 2, before anything is written); an interrupt says what is kept and that the same command
    with ``--resume`` continues (``interrupted``, else the checkpoint's last ``unit``; exit 130); a finished run
    prints its last progress row and what it wrote."""
    try:
        out = train(cfg, resume=resume, progress=not quiet)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        if not interrupted:
            from agents.ppo import load_file

            ckpt = Path(cfg.out) / cfg.run_name() / "checkpoint.pt"
            interrupted = (f"the last checkpoint ({unit} {load_file(ckpt)['counters'][unit]}) is {ckpt}; the same "
                           "command with --resume continues from it" if ckpt.exists()
                           else "no checkpoint was written yet")
        print(f"\ninterrupted: {interrupted}", file=sys.stderr)
        raise SystemExit(130) from None
    print(json.dumps(out["last"], indent=1, default=float))
    print(f"wrote {out['run_dir']}/ ({files})")
    return out
