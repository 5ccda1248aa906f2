"""The physical limit of a batched step on this CPU: a kernel that moves the bytes a step moves, and nothing else.

    python -m benchmarks.physical_limit                 # every ruleset, batch 4,096, 2 threads

For each ruleset, the kernel takes ``VectorGame``'s sizes per game: the engine state's bytes
(``state_bytes_per_game``), the observation's and the action mask's. One step of the kernel, over the whole batch
in a parallel loop, reads every state byte of each game, writes every state byte back, and writes the whole
observation and mask, each byte depending on the state it read (so nothing can be skipped). That is more traffic
than a real step (which writes a few state bytes) with no game logic at all, laid out as one contiguous row per
game: no engine step with observations can beat it on this machine, so ``benchmarks.run`` shows each engine figure
as a share of it. Like ``benchmarks.run``'s engine rows, each step is one call from Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np

import shedders
from benchmarks.timing import batch_rate
from shedders.commandline import build_parser, config_from


@nb.njit(cache=True, parallel=True, _nrt=False, error_model="numpy")
def limit_step_nb(state, obs, mask):
    """Read each game's state row, write it back (each byte plus one) and fill its observation and mask from a
    checksum of it."""
    for g in nb.prange(state.shape[0]):
        x = np.int64(0)
        for j in range(state.shape[1]):
            v = state[g, j]
            x += v
            state[g, j] = v + 1
        c = np.int8(x & 1)
        for j in range(obs.shape[1]):
            obs[g, j] = c
        for j in range(mask.shape[1]):
            mask[g, j] = c ^ np.int8(j & 1)


def sizes(ruleset: str, players: int = 4) -> tuple[int, int, int]:
    """(state bytes, observation bytes, mask bytes) per game of ``VectorGame(ruleset, ..., players)``."""
    vg = shedders.VectorGame(ruleset, 2, players)
    return (vg.state_bytes_per_game, vg.observation.shape[1] * vg.observation.itemsize,
            vg.action_mask.shape[1] * vg.action_mask.itemsize)


def limit_rate(ruleset: str, batch: int, threads: int, seconds: float, rounds: int) -> float:
    """Median steps/s of ``limit_step_nb`` at ``VectorGame``'s sizes for ``ruleset``, one call per step."""
    s, o, m = sizes(ruleset)
    nb.set_num_threads(threads)
    state = np.zeros((batch, s), np.int8)
    obs = np.zeros((batch, o), np.int8)
    mask = np.zeros((batch, m), np.int8)
    for _ in range(3):
        limit_step_nb(state, obs, mask)
    return batch_rate(lambda: limit_step_nb(state, obs, mask), batch, seconds, rounds)


@dataclass
class Config:
    """The physical-limit kernel's steps/s at the engine's sizes."""

    rulesets: list[str] = field(default_factory=lambda: list(shedders.RULESETS))
    """rulesets whose sizes to use (default: all)"""
    batch: int = 4096
    """games per step"""
    threads: int = 2
    """numba threads"""
    seconds: float = 1.0
    """length of one timed round"""
    rounds: int = 3
    """timed rounds (the median is reported)"""


def main(argv: list[str] | None = None) -> dict:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    out = {}
    print("| ruleset | state + observation + mask bytes per game | limit steps/s |")
    print("|---|---:|---:|")
    for rs in cfg.rulesets:
        out[rs] = limit_rate(rs, cfg.batch, cfg.threads, cfg.seconds, cfg.rounds)
        s, o, m = sizes(rs)
        print(f"| {rs} | {s} + {o} + {m} | {out[rs]:,.0f} |")
    return out


if __name__ == "__main__":
    main()
