"""PPO's update with and without ``torch.compile``, side by side in one process (issue 47 names it as a way to
change the update's arithmetic).

    python -m benchmarks.update_compile                     # core's shapes, 2 threads, 8 rounds
    python -m benchmarks.update_compile --rounds 4 --decisions 13000

One update of ``experiments.train_ppo`` (its ``ppo_update``: the default 2 epochs of 4 minibatches, Adam) on a
synthetic rollout of core's shapes: ``--decisions`` learner decisions (a default core update holds about 26,000),
observations of 231 entries, up to ``--legal`` legal ids a decision drawn from the ~210 a batch may take. Two
copies of the default network start from the same weights; one calls the network as it is, the other a
``torch.compile``-d copy of its ``legal`` head (the path the update takes). The rounds alternate between them, and
the first round of each is dropped (the compiled one's includes compiling). Prints the median seconds of an update,
the ratio, and how far the two copies' weights have drifted apart after every round (float rounding only, when the
compiled kernels compute the same thing).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np

from shedders.commandline import build_parser, config_from


@dataclass
class Config:
    decisions: int = 26000
    """learner decisions in the synthetic rollout"""
    legal: int = 24
    """the most legal ids a decision has"""
    threads: int = 2
    """torch threads"""
    rounds: int = 8
    """updates timed per variant (after one untimed warm-up each)"""
    seed: int = 0
    """seeds the synthetic rollout and the network"""


def synthetic_rollout(cfg: Config, obs_size: int, used_ids: int = 210):
    """(obs, (idx, valid), act, logp, val, adv, ret) of ``cfg.decisions`` decisions: random observations, each
    decision 1..``cfg.legal`` distinct legal ids among ``used_ids``, the action one of them."""
    import torch

    rng = np.random.default_rng(cfg.seed)
    n = cfg.decisions
    idx = np.stack([rng.choice(used_ids, cfg.legal, replace=False) for _ in range(n)])
    nlegal = rng.integers(1, cfg.legal + 1, n)
    valid = np.arange(cfg.legal)[None, :] < nlegal[:, None]
    act = idx[np.arange(n), (rng.random(n) * nlegal).astype(np.int64)]
    val = rng.normal(0, 0.3, n).astype(np.float32)
    adv = rng.normal(0, 0.3, n).astype(np.float32)
    return (torch.from_numpy(rng.integers(0, 3, (n, obs_size)).astype(np.int8)),
            (torch.from_numpy(idx), torch.from_numpy(valid)), torch.from_numpy(act),
            torch.from_numpy(-np.log(nlegal).astype(np.float32)), torch.from_numpy(val), torch.from_numpy(adv),
            torch.from_numpy(adv + val))


def run(cfg: Config) -> dict:
    import torch

    from agents.ppo import Policy
    from experiments import train_ppo as T

    torch.set_num_threads(cfg.threads)
    tcfg = T.Config(ruleset="core")
    obs_size, num_actions = 231, 810  # core at 4 players
    batch = synthetic_rollout(cfg, obs_size)
    nets = {}
    for name in ("eager", "compiled"):
        torch.manual_seed(cfg.seed)
        model = Policy(obs_size, num_actions, hidden=tcfg.hidden)
        opt = torch.optim.Adam(model.parameters(), lr=tcfg.lr, eps=1e-5)
        if name == "compiled":
            model.legal = torch.compile(model.legal, dynamic=True)
        nets[name] = (model, opt, np.random.default_rng(cfg.seed))
    times = {name: [] for name in nets}
    drift = []
    for r in range(cfg.rounds + 1):
        for name, (model, opt, rng) in nets.items():
            t = time.perf_counter()
            T.ppo_update(model, opt, tcfg, *batch, "cpu", rng)
            if r:
                times[name].append(time.perf_counter() - t)
        drift.append(max(float((a - b).detach().abs().max()) for a, b in zip(nets["eager"][0].parameters(),
                                                                        nets["compiled"][0].parameters())))
    med = {name: statistics.median(v) for name, v in times.items()}
    return {"eager_s": med["eager"], "compiled_s": med["compiled"], "ratio": med["eager"] / med["compiled"],
            "drift": drift}


def main(argv: list[str] | None = None) -> dict:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    out = run(cfg)
    print(f"update (median of {cfg.rounds}): eager {out['eager_s']:.3f} s, "
          f"torch.compile {out['compiled_s']:.3f} s: compiled / eager speed {out['ratio']:.2f}x; "
          "largest weight difference after each round "
          + ", ".join(f"{d:.1e}" for d in out["drift"]))
    return out


if __name__ == "__main__":
    main()
