"""Speed of this checkout against another commit, side by side in one run: the batched engine, the AEC env and the
cold start, each measured in fresh processes that alternate between the two trees; with ``--search``, the
searches' rollouts per second per core too.

    python -m benchmarks.compare --against a467837 --out benchmarks/COMPARE.md
    python -m benchmarks.compare --against c0b9684 --search core,fatality,og,omg --no-engine --cold-rounds 0

``--search`` times, in each tree, the search ``--search-spec`` names for each ruleset (by default the champion's
search when issue 47 opened, ``champion:version=1``, resolved to its explicit ``search:...`` spec in this checkout
so that both trees run the same search) with this checkout's ``benchmarks.search_rate`` (copied into the other
tree's worktree): one thread, batch 1, the same early-play states, no split.

The other commit is checked out in a temporary git worktree (removed at the end); each measurement runs in a new
Python process whose ``PYTHONPATH`` points at one tree, so both use the same interpreter, libraries and machine
state. Rounds alternate the order (old first, then new first), and every figure is the median over the rounds.
A refactor that must not slow anything down is held to: no ruleset slower by more than 5%, cold start no slower.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import shedders
from shedders.commandline import build_parser

ROOT = Path(__file__).resolve().parents[1]
RULESETS = shedders.RULESETS

# run in each tree: engine steps/s (sample_legal + step, as benchmarks.run) and AEC env steps/s, by public API only
MEASURE = r"""
import json, sys, time
import numba, numpy as np
import shedders
rulesets, batch = sys.argv[1].split(","), int(sys.argv[2])
seconds, aec_steps = float(sys.argv[3]), int(sys.argv[4])
out = {"file": shedders.__file__}
for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
    numba.set_num_threads(threads)
    for r in rulesets:
        vg = shedders.VectorGame(r, batch, 4, seed=0)
        vg.reset()
        for _ in range(max(3, 2000 // batch)):
            vg.step(vg.sample_legal(), check=False)
        t = time.perf_counter(); n = 0
        while time.perf_counter() - t < seconds:
            vg.step(vg.sample_legal(), check=False); n += 1
        out[f"engine {r} {threads}t"] = n * batch / (time.perf_counter() - t)
numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
for r in rulesets:
    env = shedders.env(r, 4); rng = np.random.default_rng(0); env.reset(seed=0)
    t = time.perf_counter()
    for _ in range(aec_steps):
        if not env.agents:
            env.reset()
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    out[f"aec {r}"] = aec_steps / (time.perf_counter() - t)
print(json.dumps(out))
"""

# run in each tree: rollouts/s per core of each ruleset's search (benchmarks.search_rate, copied in)
SEARCH = r"""
import contextlib, io, json, sys
from benchmarks import search_rate as S
rulesets, specs, rounds, seeds, decisions = sys.argv[1].split(","), sys.argv[2].split(";"), *sys.argv[3:6]
out = {}
for r, spec in zip(rulesets, specs):
    with contextlib.redirect_stdout(io.StringIO()):
        res = S.main(["--rulesets", r, "--searches", spec, "--no-split", "--rounds", rounds, "--seeds", seeds,
                      "--decisions", decisions])
    out[f"search {r}"] = next(iter(res.values()))["rate"]
import shedders
out["file"] = shedders.__file__
print(json.dumps(out))
"""

COLD = r"""
import time; t = time.perf_counter()
import shedders
e = shedders.env("south_african", 4); e.reset(seed=0); e.last(); e.step(e.unwrapped.legal_actions()[0])
v = shedders.VectorGame("core", 8, 4); v.reset(); v.step(v.sample_legal())
print(time.perf_counter() - t)
"""


@dataclass
class Config:
    """Compare this checkout's speed with another commit's."""

    against: str = "HEAD~1"
    """the commit to compare with (checked out in a temporary git worktree)"""
    rounds: int = 5
    """measurement rounds per tree (alternating which tree goes first)"""
    batch: int = 4096
    """games per VectorGame"""
    seconds: float = 1.0
    """timed seconds per ruleset and thread count"""
    aec_steps: int = 20_000
    """AEC env steps per ruleset"""
    cold_rounds: int = 2
    """cold starts per tree (numba cache emptied: each takes a few minutes on 2 cores)"""
    out: str | None = None
    """also write the table as Markdown to this file"""
    engine: bool = True
    """measure the batched engine and the AEC env (``--no-engine``: only what ``--search`` asks)"""
    search: list[str] = field(default_factory=list)
    """rulesets whose search to time in rollouts/s per core (none by default)"""
    search_spec: str = "champion:version=1"
    """the search timed for each of --search (``champion`` or ``champion:version=N``: the champion's search at its
    default budget, resolved here)"""
    search_rounds: int = 3
    """passes over the states per search measurement (the best is kept, as benchmarks.search_rate does)"""
    search_seeds: list[int] = field(default_factory=lambda: [3, 4, 5, 6])
    """the deals of the search states"""
    search_decisions: int = 20
    """states per deal"""


def run_in(tree: Path, code: str, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tree)
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=tree, env=env, capture_output=True, text=True,
                         check=False)
    if out.returncode:
        raise RuntimeError(f"measurement in {tree} failed:\n{out.stderr}")
    return out.stdout.strip().splitlines()[-1]


def clear_cache(tree: Path) -> None:
    for d in (tree / "shedders").rglob("__pycache__"):
        for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
            f.unlink()


def side_by_side(args: Config) -> dict:
    """Measure this checkout and ``args.against`` in alternating fresh processes; returns ``rev`` and ``here`` (the
    short commits), ``rounds`` and ``cold`` (per tree, one entry per round) and ``specs`` (the searches timed)."""
    rev = subprocess.run(["git", "rev-parse", "--short", args.against], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    here = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="shedders-compare-"))
    old = tmp / "old"
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), rev], cwd=ROOT, check=True)
    trees = {"old": old, "new": ROOT}
    try:
        # each snippet with its arguments: (timed, warm-up) -- the warm-up compiles into each tree's cache
        snippets = []
        if args.engine:
            timed = (",".join(RULESETS), str(args.batch), str(args.seconds), str(args.aec_steps))
            snippets.append((MEASURE, timed, (",".join(RULESETS), "64", "0.05", "200")))
        specs = []
        if args.search:
            from benchmarks.search_rate import search_spec

            specs = [search_spec(args.search_spec, r, 4) for r in args.search]
            states = (",".join(map(str, args.search_seeds)), str(args.search_decisions))
            snippets.append((SEARCH, (",".join(args.search), ";".join(specs), str(args.search_rounds), *states),
                             (",".join(args.search), ";".join(specs), "1", *states)))
            shutil.copy(ROOT / "benchmarks" / "search_rate.py", old / "benchmarks" / "search_rate.py")

        def measure_in(tree: Path, warm: bool = False) -> dict:
            got = {}
            for code, timed, warm_up in snippets:
                got.update(json.loads(run_in(tree, code, *(warm_up if warm else timed))))
            return got

        for name, tree in trees.items():  # compile into each tree's cache first
            got = measure_in(tree, warm=True)
            assert Path(got["file"]).resolve().is_relative_to(tree.resolve()), (name, got["file"])
        rounds = {"old": [], "new": []}
        for r in range(args.rounds):
            for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
                rounds[name].append(measure_in(trees[name]))
                print(f"round {r + 1}/{args.rounds} {name} done", file=sys.stderr, flush=True)
        cold = {"old": [], "new": []}
        for r in range(args.cold_rounds):
            for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
                clear_cache(trees[name])
                t = time.perf_counter()
                run_in(trees[name], COLD)
                cold[name].append(time.perf_counter() - t)
                print(f"cold {r + 1}/{args.cold_rounds} {name}: {cold[name][-1]:.0f} s", file=sys.stderr,
                      flush=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    return {"rev": rev, "here": here, "rounds": rounds, "cold": cold, "specs": specs}


def main(argv: list[str] | None = None) -> list[str]:
    ap = build_parser(Config, description=__doc__)
    args = ap.parse_args(argv)
    if not args.engine and not args.search:
        ap.error("--no-engine leaves nothing to measure without --search")
    got = side_by_side(args)
    rev, here, rounds, cold, specs = got["rev"], got["here"], got["rounds"], got["cold"], got["specs"]
    keys = [k for k in rounds["old"][0] if k != "file"]
    lines = [f"# {here} against {rev}, side by side", "",
             (f"`python -m benchmarks.compare --against {args.against}`: {args.rounds} alternating rounds per "
             f"tree (medians), VectorGame batch {args.batch:,}, 4 players, random legal actions; "
             f"{os.cpu_count()} cores." + (f" Searches ({args.search_spec}): " + ", ".join(
                 f"{r} `{spec}`" for r, spec in zip(args.search, specs)) if specs else "")), "",
             f"| measure | {rev} | {here} | new / old |", "|---|---:|---:|---:|"]
    for k in keys:
        o = statistics.median(x[k] for x in rounds["old"])
        n = statistics.median(x[k] for x in rounds["new"])
        unit = "rollouts/s per core" if k.startswith("search") else "steps/s"
        lines.append(f"| {k} {unit} | {o:,.0f} | {n:,.0f} | {n / o:.3f} |")
    if args.cold_rounds:
        o, n = statistics.median(cold["old"]), statistics.median(cold["new"])
        lines.append(f"| cold start (AEC south_african + VectorGame core), s | {o:.1f} | {n:.1f} | {n / o:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return lines


if __name__ == "__main__":
    main()
