"""Our PPO against SB3-contrib's MaskablePPO, side by side in one run: the same ruleset, the same opponents (three
``greedy`` seats), the same network width, the same wall time each.

    python -m benchmarks.train_peer --seconds 120 --eval-deals 100

- **Ours:** ``experiments.train_ppo`` (batched engine, 512 games at a time), one learner seat against greedy in
  every game (``--self-play 0 --pool greedy``), stopped by ``--time-budget``.
- **The peer:** ``MaskablePPO("MultiInputPolicy")`` on ``shedders.gym.SingleAgentEnv`` (one game at a time, the
  opponents played inside ``step``), ``net_arch=[hidden, hidden]``, stopped after the same wall time.

Both play by sampling their policy (ours without its ready floor). Throughput is counted two ways: engine steps
(every seat's decisions, the opponents' included) and the learner's
decisions, each per second of training. Then both final policies play the same fresh deals against three greedy
players, the learner in every seat of each deal: mean reward with its interval, and the paired per-deal difference.
Needs the peer extra: pip install -e '.[peer]'.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import agents
from experiments import train_ppo as P
from experiments.runlog import read_rows
from experiments.stats import mean_ci, paired_difference
from shedders.commandline import build_parser, config_from
from shedders.gym import SingleAgentEnv


@dataclass
class Config:
    """Our PPO and SB3-contrib MaskablePPO trained for the same wall time against greedy, then compared."""

    ruleset: str = "core"
    """a palace ruleset (the gymnasium view plays the palace family)"""
    players: int = 4
    """seats at the table: the learner and players - 1 greedy"""
    seconds: float = 120.0
    """wall time of training for each"""
    hidden: int = 128
    """width of the two hidden layers of both networks"""
    eval_deals: int = 100
    """fresh deals of the evaluation (each played with the learner in every seat)"""
    threads: int = 2
    """torch threads for both"""
    seed: int = 0
    """seeds both trainings; the evaluation deals are seeded apart from it"""
    cap_rule: str = "most_cards"
    """how a game at the ply cap ends, in training and evaluation alike (most_cards: placed by cards left, so a
    policy that stalls loses; truncate would pay a stalled game 0)"""


def train_ours(cfg: Config, out: Path) -> dict:
    pc = P.Config(ruleset=cfg.ruleset, players=cfg.players, total_steps=10**12, time_budget=cfg.seconds,
                  pool=["greedy"], self_play=0.0, learner_seats=1, hidden=cfg.hidden, eval_every=0, eval_deals=0,
                  snapshot_every=0, checkpoint_every=10**9, seed=cfg.seed, threads=cfg.threads, out=str(out),
                  name="ours", cap_rule=cfg.cap_rule)
    t0 = time.perf_counter()
    res = P.train(pc, progress=False)
    wall = time.perf_counter() - t0

    rows = read_rows(Path(res["run_dir"]) / "progress.csv")
    learner = sum(int(r["learner_decisions"]) for r in rows)
    agent = agents.make("ppo", cfg.ruleset, cfg.players, checkpoint=str(Path(res["run_dir"]) / "checkpoint.pt"),
                        # a plain sample of the policy, as the peer's
                        ready_floor=0.0, seed=cfg.seed, cap_rule=cfg.cap_rule)
    return {"engine_steps": res["counters"]["global_step"], "learner_steps": learner, "seconds": wall,
            "act": lambda obs, mask: int(agent.act(obs[None], mask[None])[0])}


def train_peer(cfg: Config) -> dict:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(cfg.threads)
    env = SingleAgentEnv(cfg.ruleset, cfg.players, learner_seat="random", cap_rule=cfg.cap_rule,
                         opponents=agents.make("greedy", cfg.ruleset, cfg.players, seed=cfg.seed))
    engine_steps = [0]
    inner_step = env.env.step

    def counted(action):  # every decision of the game, the opponents' included
        engine_steps[0] += 1
        return inner_step(action)
    env.env.step = counted

    class Stop(BaseCallback):
        def __init__(self, seconds):
            super().__init__()
            self.seconds, self.start = seconds, time.perf_counter()

        def _on_step(self) -> bool:
            return time.perf_counter() - self.start < self.seconds

    model = MaskablePPO("MultiInputPolicy", env, seed=cfg.seed, verbose=0,
                        policy_kwargs={"net_arch": [cfg.hidden, cfg.hidden]})
    t0 = time.perf_counter()
    model.learn(total_timesteps=10**12, callback=Stop(cfg.seconds))
    wall = time.perf_counter() - t0
    env.env.step = inner_step

    def act(obs, mask):
        a, _ = model.predict({"observation": obs, "action_mask": mask}, action_masks=mask.astype(bool),
                             deterministic=False)
        return int(a)
    return {"engine_steps": engine_steps[0], "learner_steps": int(model.num_timesteps), "seconds": wall,
            "act": act}


def evaluate(cfg: Config, act) -> tuple[np.ndarray, np.ndarray]:
    """The learner's reward on each (deal, seat) against greedy, deals seeded apart from training, and whether
    each game reached the ply cap."""
    out = np.zeros((cfg.eval_deals, cfg.players))
    capped = np.zeros((cfg.eval_deals, cfg.players), bool)
    for seat in range(cfg.players):
        env = SingleAgentEnv(cfg.ruleset, cfg.players, learner_seat=seat, cap_rule=cfg.cap_rule,
                             opponents=agents.make("greedy", cfg.ruleset, cfg.players, seed=7))
        for d in range(cfg.eval_deals):
            obs, _ = env.reset(seed=1_000_000 + d)
            total, done = 0.0, False
            while not done:
                obs, r, term, trunc, _ = env.step(act(obs["observation"], obs["action_mask"]))
                total += r
                done = term or trunc
            out[d, seat] = total
            capped[d, seat] = env.env.game_truncated
    return out, capped


def main(argv: list[str] | None = None) -> dict:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["ours"] = train_ours(cfg, Path(tmp))
        results["MaskablePPO"] = train_peer(cfg)
        evals = {k: evaluate(cfg, v["act"]) for k, v in results.items()}
    rewards = {k: e[0] for k, e in evals.items()}
    print(f"{cfg.ruleset}, {cfg.players} players, learner against greedy, hidden {cfg.hidden}, {cfg.seconds:g} "
          f"s of training each, torch threads {cfg.threads}, cap_rule {cfg.cap_rule}:")
    print("| trainer | engine steps/s | learner decisions/s | reward vs greedy (95% CI) | games at the cap |")
    print("|---|---:|---:|---|---:|")
    for k, v in results.items():
        m, lo, hi = mean_ci(rewards[k].mean(axis=1))
        v.update(reward=(m, lo, hi), capped=float(evals[k][1].mean()))
        print(f"| {k} | {v['engine_steps'] / v['seconds']:,.0f} | {v['learner_steps'] / v['seconds']:,.0f} | "
              f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}] | {evals[k][1].mean():.1%} |")
    d = paired_difference(rewards["ours"].mean(axis=1), rewards["MaskablePPO"].mean(axis=1))
    ratio = (results["ours"]["engine_steps"] / results["ours"]["seconds"]) / (
        results["MaskablePPO"]["engine_steps"] / results["MaskablePPO"]["seconds"])
    print(f"ours - MaskablePPO, paired over {d['deals']} deals: {d['diff']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}]"
          f"; engine steps/s ratio {ratio:.1f}x")
    return {"results": {k: {kk: vv for kk, vv in v.items() if kk != "act"} for k, v in results.items()},
            "paired": d, "ratio": ratio}


if __name__ == "__main__":
    main()
    sys.exit(0)
