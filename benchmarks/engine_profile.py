"""Where the batched engine's step spends its time, per ruleset: nanoseconds per game-step of each part, measured.

    python -m benchmarks.engine_profile                     # batch 4,096, 2 threads, every ruleset

A numba kernel cannot be sampled by a Python profiler, so the parts are timed apart, on the same games and
threads, each as a batch over every game:
- ``sample``: ``sample_legal()`` alone (a random legal id per game from its own stream);
- ``legal``: re-deriving every game's mask and legal ids from its state (``VectorGame.refresh_legal``), alone;
- ``observe``: writing every game's observation for its acting seat (``observe()``), alone;
- ``step (no obs)``: ``step(check=False)`` with ``write_observations=False``: apply, bookkeeping and the mask;
- ``step``: the same with the observation written, the default.
``apply + bookkeeping`` is ``step (no obs)`` less ``legal``. Times are ns per game-step per thread-second
(wall time x threads / games), the median of ``--rounds``.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

import numba
import numpy as np

import shedders
from shedders.commandline import build_parser, config_from


def _timed(fn, iters: int, rounds: int) -> float:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(iters):
            fn()
        out.append((time.perf_counter() - t) / iters)
    return statistics.median(out)


def profile(ruleset: str, batch: int, threads: int, iters: int, rounds: int) -> dict:
    """ns per game-step (x threads) of each part, on games played 200 random steps in."""
    numba.set_num_threads(threads)
    per = threads * 1e9 / batch
    res = {}
    for write in (False, True):
        vg = shedders.VectorGame(ruleset, batch, 4, seed=0, write_observations=write)
        vg.reset()
        for _ in range(200):
            vg.step(vg.sample_legal(), check=False)
        res["step" if write else "step (no obs)"] = _timed(lambda g=vg: g.step(g.sample_legal(), check=False),
                                                           iters, rounds) * per
    res["sample"] = _timed(vg.sample_legal, iters, rounds) * per
    mask, ids, nlegal = vg.action_mask.copy(), vg.legal_ids.copy(), vg.num_legal.copy()
    vg.action_mask[:] = 0
    vg.refresh_legal()
    assert np.array_equal(mask, vg.action_mask) and np.array_equal(nlegal, vg.num_legal) and \
        np.array_equal(ids, vg.legal_ids), \
        "the re-derived masks differ from the engine's"
    res["legal"] = _timed(vg.refresh_legal, iters, rounds) * per
    seats = np.maximum(vg.current_player, 0).astype(np.int64)
    res["observe"] = _timed(lambda: vg.observe(seats), iters, rounds) * per
    res["step"] -= res["sample"]
    res["step (no obs)"] -= res["sample"]
    res["apply + bookkeeping"] = res["step (no obs)"] - res["legal"]
    return res


COLUMNS = ("step", "step (no obs)", "apply + bookkeeping", "legal", "observe", "sample")


@dataclass
class Config:
    """ns per game-step of each part of the batched engine's step."""

    rulesets: list[str] = field(default_factory=lambda: list(shedders.RULESETS))
    """rulesets to profile"""
    batch: int = 4096
    """games per batch"""
    threads: int = 2
    """numba threads"""
    iters: int = 200
    """calls per timed round"""
    rounds: int = 3
    """timed rounds (the median is reported)"""


def main(argv: list[str] | None = None) -> dict:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    print(f"ns per game-step x {cfg.threads} threads, batch {cfg.batch:,}, median of {cfg.rounds} rounds "
          f"(step figures without sample_legal):")
    print("| ruleset | " + " | ".join(COLUMNS) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    out = {}
    for rs in cfg.rulesets:
        out[rs] = profile(rs, cfg.batch, cfg.threads, cfg.iters, cfg.rounds)
        print(f"| {rs} | " + " | ".join(f"{out[rs][c]:.0f}" for c in COLUMNS) + " |", flush=True)
    return out


if __name__ == "__main__":
    main()
