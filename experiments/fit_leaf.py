"""Fit the leaf value of ``search:leaf=value``: who loses a core-family game, from the cards each seat holds.

    python -m experiments.fit_leaf --ruleset core --players 4

``search`` with ``max_plies`` cuts its rollouts short; ``leaf=value`` then values the cut rollout by a model of who
will be the Shithead: among the seats still in, seat q with probability proportional to ``exp(w . f(q))``, where
``f`` is ``shedders.engine.search.palace_search.leaf_features_nb`` (hand and face-up cards by rank, face-down
cards, whether the seat acts now or next, its hand once the draw pile is empty, the pile it faces). This script
fits ``w`` to where the search's own rollouts end:

1. **States.** ``--samples`` states of games played by the rollout policy (``greedy`` with ``--eps`` random moves,
   every seat), each deal from the seed, sampled at up to 6 random decisions between 4 and 300 (setup excluded).
2. **Targets.** From each state one more rollout of the same policy, in the state's own stream, plays to the end;
   its loser is the target. (Rollouts that hit ``--max-plies`` are dropped.)
3. **Fit.** Multinomial logistic regression of the loser on the seats' features (torch, L-BFGS, a small L2
   penalty), then the negative log-likelihood on ``--test-samples`` fresh states (another seed), next to the
   uniform guess and the best soft count of cards (every zone), ``exp(beta * cards)`` with beta chosen on the test
   states.

The weights are written to ``agents/checkpoints/leaf-<ruleset>-<n>p.json`` (``--out``) with the command, the
counts and the fit's numbers; a rerun writes a new file atomically and never leaves half of one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np

#: the rulesets whose rewards the leaf value models (the loser gets -1, everyone else 1/(N-1))
FAMILY = ("core", "south_african", "house")


def parse(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--ruleset", default="core", choices=FAMILY)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--samples", type=int, default=200_000, help="training states")
    ap.add_argument("--test-samples", type=int, default=50_000, help="held-out states (seed + 1)")
    ap.add_argument("--eps", type=float, default=0.2, help="the rollout policy's share of random moves")
    ap.add_argument("--max-plies", type=int, default=2000, help="a target rollout's longest run")
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="default: agents/checkpoints/leaf-<ruleset>-<players>p.json")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.samples < 100 or a.test_samples < 100:
        ap.error("--samples and --test-samples must be at least 100")
    if not 0.0 <= a.eps <= 1.0:
        ap.error(f"--eps must be in [0, 1], got {a.eps}")
    if not 2 <= a.players <= 8:
        ap.error(f"--players must be in 2..8, got {a.players}")
    return a


def sample(ruleset: str, players: int, n: int, seed: int, eps: float, max_plies: int, progress: bool):
    """(features (n, players, F), still in (n, players), loser (n,)) from states of rollout-policy games."""
    import agents
    import shedders
    from shedders.engine.palace import layout as K
    from shedders.engine.search import palace_search as KS
    from tqdm import tqdm

    vg = shedders.VectorGame(ruleset, 1, players, seed=seed, autoreset=False)
    work = K.alloc_state(2, players, vg.rules.num_cards)
    mask, ids = np.zeros(K.N_ACTIONS, np.int8), np.zeros(K.N_ACTIONS, np.int16)
    obs, off = np.zeros(K.observation_size(players), np.int8), agents.search.expert_offsets(players)
    eps_milli = int(round(eps * 1000))
    rng = np.random.default_rng(seed)
    x = np.zeros((n, players, KS.LEAF_FEATURES), np.float32)
    alive = np.zeros((n, players), bool)
    loser = np.zeros(n, np.int64)
    f = np.zeros(KS.LEAF_FEATURES)
    i = 0
    bar = tqdm(total=n, disable=not progress, desc=f"states (seed {seed})", unit="state")
    while i < n:
        vg.reset(seeds=rng.integers(0, 2**62, size=1).astype(np.uint64))
        KS.copy_game_nb(vg.state, 0, work, 0)
        done = 0
        for at in np.sort(rng.choice(np.arange(4, 300), size=6, replace=False)):
            KS.rollout_nb(work, 0, 0, vg.params, eps_milli, int(at - done), KS.LEAF_NONE, f, mask, ids, 0, 0, obs,
                          off)
            done = at
            if work.phase[0] == K.PH_OVER:
                break
            if work.phase[0] == K.PH_SETUP:
                continue
            KS.copy_game_nb(work, 0, work, 1)
            work.rng[1] = np.uint64(rng.integers(0, 2**62))
            KS.rollout_nb(work, 1, 0, vg.params, eps_milli, max_plies, KS.LEAF_NONE, f, mask, ids, 0, 0, obs, off)
            if work.phase[1] != K.PH_OVER or not work.terminated[1]:
                continue
            for q in range(players):
                KS.leaf_features_nb(work, 0, q, f)
                x[i, q] = f
            alive[i] = work.finished[0] == 0
            loser[i] = int(np.flatnonzero(work.finished[1] == 0)[0])
            i += 1
            bar.update(1)
            if i == n:
                break
    bar.close()
    return x, alive, loser


def fit(train, test, l2: float) -> dict:
    """The weights and the test states' negative log-likelihoods (the model, uniform, the best soft card count)."""
    import torch

    def nll(data, w, soft=None):
        x, alive, loser = (torch.from_numpy(a) for a in data)
        score = (x.double() * w).sum(-1) if soft is None else soft * (x[..., :-4].sum(-1)).double()
        return torch.nn.functional.cross_entropy(score.masked_fill(~alive, -1e9), loser).item()

    x, alive, loser = (torch.from_numpy(a) for a in train)
    x = x.double()
    w = torch.zeros(x.shape[-1], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=500, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        score = (x * w).sum(-1).masked_fill(~alive, -1e9)
        loss = torch.nn.functional.cross_entropy(score, loser) + l2 * (w ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    w = w.detach()
    betas = np.round(np.arange(0.0, 0.51, 0.02), 2)
    soft = {float(b): nll(test, w, soft=float(b)) for b in betas}
    best = min(soft, key=soft.get)
    return {"weights": w.numpy().tolist(), "train_nll": nll(train, w), "test_nll": nll(test, w),
            "uniform_nll": nll(test, torch.zeros_like(w)), "soft_cards_nll": soft[best], "soft_cards_beta": best}


def write(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n")
    os.replace(tmp, path)  # atomic: a killed run never leaves half a file


def main(argv=None) -> dict:
    a = parse(argv)
    from shedders.engine.search import palace_search as KS

    numba.set_num_threads(1)
    start = time.time()
    train = sample(a.ruleset, a.players, a.samples, a.seed, a.eps, a.max_plies, not a.quiet)
    test = sample(a.ruleset, a.players, a.test_samples, a.seed + 1, a.eps, a.max_plies, not a.quiet)
    out = fit(train, test, a.l2)
    record = {"ruleset": a.ruleset, "num_players": a.players, "features": KS.LEAF_FEATURES,
              "command": "python -m experiments.fit_leaf " + " ".join(sys.argv[1:] if argv is None else argv),
              "samples": a.samples, "test_samples": a.test_samples, "eps": a.eps, "seed": a.seed,
              "seconds": round(time.time() - start, 1), **out}
    from agents.search import LEAF_WEIGHTS

    path = Path(a.out) if a.out else LEAF_WEIGHTS / f"leaf-{a.ruleset}-{a.players}p.json"
    write(path, record)
    if not a.quiet:
        print(f"test NLL {out['test_nll']:.4f} (uniform {out['uniform_nll']:.4f}, soft card count "
              f"{out['soft_cards_nll']:.4f} at beta {out['soft_cards_beta']}); train {out['train_nll']:.4f}; "
              f"{record['seconds']} s; wrote {path}")
    return record


if __name__ == "__main__":
    main()
