"""Where train_exit's and train_distill's play runs: one round of DAgger play (a fixed searching expert labels the
learner's decisions) here, on spawned processes and on Ray actors, side by side.

    python -m benchmarks.exit_backends --games 64 --expert search:budget=256 --repeats 2
    python -m benchmarks.exit_backends --script distill --games 32 --expert champion:time_budget=0.005

``--script distill`` plays ``experiments.train_distill``'s first round instead (the expert plays the learner's
seats and labels each of their decisions with its values; the labels saved per chunk to a scratch folder).

Each backend's workers start once, as a training run starts them (``train_exit.Players``), and play one round
untimed (the workers load the kernels); then each repeat times the same round on every backend in turn (the
backends alternate, so a busy machine weighs on them alike). It checks that every backend gave the same data and
prints the wall times, the searched decisions per second per worker and the ratio of Ray's per-worker speed to
the local processes' (the target: at least 0.8). Ray runs its workers at nice 15: measure on a quiet machine.
Needs Ray: pip install -e '.[ray]'.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from shedders.commandline import build_parser, config_from


@dataclass
class Config:
    """One round of train_exit's play on each backend, repeated."""

    ruleset: str = "core"
    """a palace ruleset"""
    games: int = 64
    """games in the round"""
    chunk: int = 8
    """games per chunk"""
    workers: int = 2
    """processes (local) and actors (ray)"""
    expert: str = "search:budget=256"
    """the fixed expert whose searches label the decisions"""
    repeats: int = 2
    """rounds timed on each backend"""
    script: str = "exit"
    """whose round: exit (train_exit's) or distill (train_distill's)"""


def main(argv: list[str] | None = None) -> dict:
    ap = build_parser(Config, description=__doc__)
    cfg = config_from(Config, ap.parse_args(argv))
    if cfg.script not in ("exit", "distill"):
        raise SystemExit(f"error: --script must be exit or distill, got {cfg.script!r}")
    import torch

    torch.set_num_threads(1)
    play, labels = (exit_round if cfg.script == "exit" else distill_round)(cfg)
    backends = {"one process": {"workers": 1, "backend": "local"},
                f"local x{cfg.workers}": {"workers": cfg.workers, "backend": "local"},
                f"ray x{cfg.workers}": {"workers": cfg.workers, "backend": "ray"}}
    times: dict[str, list[float]] = {k: [] for k in backends}
    reference, searched = None, 0
    players = {}
    from experiments.train_exit import Players

    for name, how in backends.items():
        t = time.perf_counter()
        players[name] = Players(SimpleNamespace(**how))
        play(how, 99, players[name])  # the workers warm up
        print(f"{name}: started and warmed in {time.perf_counter() - t:.1f} s", flush=True)
    for r in range(cfg.repeats):
        for name, how in backends.items():
            t = time.perf_counter()
            data = play(how, r, players[name])
            times[name].append(time.perf_counter() - t)
            if name == "one process":
                reference, searched = data, labels(data)
            else:
                assert all(np.array_equal(reference[k], data[k], equal_nan=k == "values") for k in reference), name
            print(f"repeat {r}: {name}: {times[name][-1]:.1f} s, {labels(data)} searched decisions", flush=True)
    for p in players.values():
        p.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    per_worker = {k: searched / med[k] / backends[k]["workers"] for k in med}
    for k, seconds in med.items():
        print(f"{k}: median {seconds:.1f} s, {per_worker[k]:.1f} searched decisions/s per worker")
    ratio = per_worker[f"ray x{cfg.workers}"] / per_worker[f"local x{cfg.workers}"]
    print(f"ray per worker / local per worker: {ratio:.2f} (target >= 0.8); every backend gave the same data")
    return {"median_s": med, "per_worker": per_worker, "ratio": ratio}


def exit_round(cfg: Config):
    """train_exit's round on a backend (``play(how, round, players)``) and its count of searched decisions."""
    from agents.guided import Critic
    from agents.ppo import default_checkpoint, load_file, policy_from
    from experiments import train_exit as X

    ck = load_file(default_checkpoint(cfg.ruleset, 4))
    policy, critic = policy_from(ck).eval(), Critic(ck["obs_size"], 4).eval()
    base = {"ruleset": cfg.ruleset, "games": cfg.games, "chunk": cfg.chunk, "expert": cfg.expert,
            "search_share": 1.0, "self_play": 1.0}

    def play(how: dict, round_no: int, players) -> dict:
        data = X.play_round(X.Config(**base, **how), policy, critic, round_no, players)
        return {"obs": data["obs"], "target": data["target"], "soft": data["soft"], "searched": data["searched"]}

    return play, lambda data: int(data["searched"])


def distill_round(cfg: Config):
    """train_distill's round 0 (the teacher plays the learner's seats and labels them; its labels saved to a
    scratch folder and read back) on a backend."""
    import tempfile
    from pathlib import Path

    from experiments import train_distill as D

    base = {"ruleset": cfg.ruleset, "games": cfg.games, "chunk": cfg.chunk, "teacher": cfg.expert,
            "self_play": 1.0}

    def play(how: dict, round_no: int, players) -> dict:
        with tempfile.TemporaryDirectory() as tmp:
            D.play_round(D.Config(**base, **how), Path(tmp), None, round_no, players)
            return D.load_labels(Path(tmp), held_out=None)

    return play, lambda data: len(data["choice"])


if __name__ == "__main__":
    main()
