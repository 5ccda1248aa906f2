"""Compile the engine's numba kernels ahead of use, in parallel processes, so later runs load them from the cache.

    python -m agents.precompile              # every group, over as many processes as there are cores
    python -m agents.precompile --jobs 1     # one after the other

Numba compiles a kernel on its first call and caches it on disk (``cache=True``). Two processes that first call
the same kernel at the same time both compile it: the pytest workers of ``pytest -n 2`` did, each compiling the
palace search (about 2.5 minutes of one core) for itself. Here each group of kernels compiles once, in its own
process, the groups side by side; a kernel already cached only loads. A test run over xdist workers runs this in
its controller, before the workers start, unless the current engine sources were precompiled already
(``tests/conftest.py``).

Each group plays a few decisions of its agents in a small ``VectorGame``, which compiles exactly the
specializations play uses (the kernels take the engine's state records, whose types are spelled out nowhere
else).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import shedders
from agents import make_spec
from agents.base import act_in
from shedders.rules import lookup


def play(ruleset: str, specs: list[str], games: int, decisions: int = 12, players: int = 4) -> None:
    """Play ``decisions`` steps of ``games`` games of ``ruleset``, every seat deciding with each agent of ``specs``
    in turn (each acts on all the games at once: a batch of one takes the lone-decision kernels). With no specs,
    one game of the AEC env instead (its one-game kernels), by its own uniform draw."""
    if not specs:
        env = shedders.raw_env(ruleset, players)
        env.reset(seed=0)
        for _ in range(decisions):
            env.observe(env.agent_selection)
            env.step(env.unwrapped.sample_legal())
        return
    vg = shedders.VectorGame(ruleset, games, players, autoreset=True)
    rows = np.arange(games)
    vg.reset(seeds=rows)
    greedy = make_spec("greedy", ruleset, players)
    for _ in range(players):  # past the setup, where some agents (guided) play their policy and search nothing
        vg.step(act_in(greedy, vg, rows))
    built = [make_spec(s, ruleset, players, seed=0) for s in specs]
    for k in range(decisions):
        vg.step(act_in(built[k % len(built)], vg, rows))
    vg.sample_legal()


#: the groups: each a list of (family, agent specs, games); no specs: the AEC env. The two heaviest, the palace
#: searches batched and alone, go to different groups. The kernels take the rules as runtime parameters, so one
#: ruleset of a family compiles them for all its rulesets.
GROUPS = {
    "palace-batch": [("palace", ["greedy", "expert", "search:budget=8", "search:budget=8+select=halving"], 2)],
    "palace-lone": [("palace", ["search:budget=8", "search:budget=8+select=halving"], 1), ("palace", [], 1)],
    "omg-and-guided": [("omg", ["greedy", "expert", "search:budget=8"], 2), ("omg", ["search:budget=8"], 1),
                       ("omg", [], 1), ("palace", ["guided:worlds=2+depth=2"], 2),
                       ("palace", ["guided:worlds=2+depth=2"], 1)],
}


def groups() -> dict[str, list[tuple[str, list[str], int]]]:
    """Every group by name, each family replaced by one of its rulesets."""
    first: dict[str, str] = {}
    for r in shedders.RULESETS:
        first.setdefault(lookup(r).family, r)
    return {name: [(first[fam], specs, games) for fam, specs, games in plays] for name, plays in GROUPS.items()}


def compile_group(name: str) -> float:
    """Compile (or load) the kernels of group ``name``; returns the seconds it took."""
    t = time.perf_counter()
    for ruleset, specs, games in groups()[name]:
        play(ruleset, specs, games)
    return time.perf_counter() - t


def run_groups(names: list[str], jobs: int, stream=sys.stderr) -> dict[str, float]:
    """Each group in a process of its own, at most ``jobs`` at a time; returns its seconds by group. A group that
    fails is reported (its kernels then compile on first use, as without this) and left out."""
    done: dict[str, float] = {}
    todo = list(names)
    running: list[tuple[str, subprocess.Popen, float, object]] = []
    with contextlib.ExitStack() as files:
        while todo or running:
            while todo and len(running) < jobs:
                name = todo.pop(0)
                err = files.enter_context(tempfile.TemporaryFile("w+"))
                proc = subprocess.Popen([sys.executable, "-m", "agents.precompile", "--group", name],
                                        stdout=subprocess.DEVNULL, stderr=err, text=True)
                running.append((name, proc, time.perf_counter(), err))
            time.sleep(0.2)
            for item in [r for r in running if r[1].poll() is not None]:
                running.remove(item)
                name, proc, t0, err = item
                if proc.returncode == 0:
                    done[name] = time.perf_counter() - t0
                else:
                    err.seek(0)
                    print(f"shedders: precompiling {name} failed (its kernels compile on first use):\n"
                          f"{err.read()[-2000:]}", file=stream)
    return done


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes at a time (default: cores)")
    ap.add_argument("--group", choices=list(groups()), help="compile this group here, in this process")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.group:
        return {args.group: compile_group(args.group)}
    t = time.perf_counter()
    done = run_groups(list(groups()), args.jobs)
    for name, sec in done.items():
        print(f"{name}: {sec:.1f} s")
    print(f"all: {time.perf_counter() - t:.1f} s over {min(args.jobs, len(GROUPS))} processes")
    return done


if __name__ == "__main__":
    main()
