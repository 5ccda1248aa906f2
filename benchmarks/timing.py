"""Timing helpers the benchmarks share."""

from __future__ import annotations

import statistics
import time


def batch_rate(step, batch: int, seconds: float, rounds: int) -> float:
    """Median game-steps/s of ``step()`` (one call steps ``batch`` games) over ``rounds`` rounds of about
    ``seconds`` each, the calls per round set from one timed call."""
    t = time.perf_counter()
    step()
    iters = max(3, int(seconds / max(time.perf_counter() - t, 1e-7)))
    rates = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(iters):
            step()
        rates.append(iters * batch / (time.perf_counter() - t))
    return statistics.median(rates)
