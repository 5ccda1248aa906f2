"""Fit the leaf value of ``search:leaf=value``: how a game ends, from the cards each seat holds.

    python -m experiments.fit_leaf --ruleset core --players 4
    python -m experiments.fit_leaf --ruleset fatality --players 4          # --model order
    python -m experiments.fit_leaf --ruleset omg --players 4               # --model winner

``search`` with ``max_plies`` cuts its rollouts short; ``leaf=value`` then values the cut rollout by a model fitted
here, on ``f(q) = shedders.engine.search.palace_search.leaf_features_nb`` (seat q's hand and face-up cards by rank,
its face-down cards, whether it acts now or next, its hand once the draw pile is empty, the pile it faces):

- ``--model loser`` (core, south_african, house): who will be the Shithead. Among the seats still in, seat q with
  probability proportional to ``exp(w . f(q))``; the viewer's value is the core family's expected reward.
- ``--model order`` (any palace ruleset; fatality's default, whose rewards depend on every place, and og's): the
  whole finishing order, a Plackett-Luce model. The next seat out is seat q of those still in with probability
  proportional to ``exp(w . f(q))``, then the next among those left; the viewer's value is its ruleset's expected
  place reward over the orders (``order_value_nb``: fatality's in closed form, its place reward being linear in
  the place).
- ``--model winner`` (omg, whose first empty hand wins): who wins, seat q with probability proportional to
  ``exp(w . f(q))`` over omg's own features (``shedders.engine.search.omg_search.leaf_features_nb``: hand size
  and whether it is at most 1, 2 or 3 cards, power cards by god, whether the seat acts now or next, whether it
  loses its next turn, the cards the seat to act holds that match the pile's top); ``search:leaf=value`` in omg.

This script fits ``w`` to where the search's own rollouts end:

1. **States.** ``--samples`` states of games played by the rollout policy (``greedy`` with ``--eps`` random moves,
   every seat; omg: ``expert``, with ``--eps`` 0.1 by default, as omg's search), each deal from the seed, sampled
   at
   up to 6 random decisions between 4 and 300 (setup excluded; omg: up to 3 between 1 and 80).
2. **Targets.** From each state one more rollout of the same policy, in the state's own stream, plays to the end;
   the order in which the seats still in went out is the target (its loser, for ``loser``; og's and omg's games
   end at their first out, so only that is known there). Rollouts that hit ``--max-plies`` are dropped.
3. **Fit.** Maximum likelihood (multinomial logistic regression of the loser, or the Plackett-Luce likelihood of
   the order; torch, L-BFGS, a small L2 penalty), then the negative log-likelihood on ``--test-samples`` fresh
   states (another seed), next to the uniform guess and the best soft count of cards (every zone; omg: the hand),
   ``exp(beta * cards)`` for the loser and ``exp(-beta * cards)`` for the next out, with beta chosen on the test
   states (omg's search without ``leaf=value`` uses that count with beta 0.5).

The weights are written to ``agents/checkpoints/leaf-<ruleset>-<n>p.json`` (``--out``) with the model, the
command, the counts and the fit's numbers; a rerun writes a new file atomically and never leaves half of one.
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

from shedders.rules import RULESETS, lookup

#: the leaf models a ruleset may fit, by its family and how its games pay (its record's ``payout``), the default
#: first: ``loser`` prices the loser's -1 (everyone else 1/(N-1)), ``order`` the whole finishing order (its value
#: uses each ruleset's place rewards, so it fits every palace payout), ``winner`` who wins (omg)
MODELS = {"palace": {"loser": ("loser", "order"), "places": ("order",), "winner": ("order",)},
          "omg": {"winner": ("winner",)}}
#: the share of random moves in the rollouts of each family's search, where ``--eps`` is not given
DEFAULT_EPS = {"palace": 0.2, "omg": 0.1}


def models(ruleset: str) -> tuple[str, ...]:
    """The leaf models ``ruleset`` may fit, its default first."""
    record = lookup(ruleset)
    return MODELS[record.family][record.payout]


def parse(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--ruleset", default="core", choices=RULESETS)
    ap.add_argument("--model", default=None, choices=("loser", "order", "winner"),
                    help="who loses, the whole finishing order, or (omg) who wins (default: order for fatality "
                         "and og, winner for omg, else loser)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--samples", type=int, default=200_000, help="training states")
    ap.add_argument("--test-samples", type=int, default=50_000, help="held-out states (seed + 1)")
    ap.add_argument("--eps", type=float, default=None,
                    help="the rollout policy's share of random moves (default: 0.2; omg 0.1, its search's)")
    ap.add_argument("--max-plies", type=int, default=2000, help="a target rollout's longest run")
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="default: agents/checkpoints/leaf-<ruleset>-<players>p.json")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.samples < 100 or a.test_samples < 100:
        ap.error("--samples and --test-samples must be at least 100")
    a.eps = DEFAULT_EPS[lookup(a.ruleset).family] if a.eps is None else a.eps
    if not 0.0 <= a.eps <= 1.0:
        ap.error(f"--eps must be in [0, 1], got {a.eps}")
    if not 2 <= a.players <= 8:
        ap.error(f"--players must be in 2..8, got {a.players}")
    allowed = models(a.ruleset)
    a.model = a.model or allowed[0]
    if a.model not in allowed:
        ap.error(f"--model {a.model} does not fit {a.ruleset}'s leaf (loser prices the loser's -1, order the "
                 f"finishing order, winner omg's winner); {a.ruleset}'s models: {', '.join(allowed)}")
    return a


def draw_states(n: int, seed: int, progress: bool, picks, deal, advance, record) -> None:
    """The sampling loop both engines share: each deal (``deal(rng)``, into work row 0) is played on to the
    decisions
    ``picks(rng)`` (``advance(plies)``: "over" when the game ended, "skip" for a state not to sample, else "on");
    at each, ``record(i, rng)`` rolls a copy out to its end and stores state i's features and target, or returns
    False (that rollout did not finish)."""
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    i = 0
    bar = tqdm(total=n, disable=not progress, desc=f"states (seed {seed})", unit="state")
    while i < n:
        deal(rng)
        done = 0
        for at in picks(rng):
            reached = advance(int(at - done))
            done = at
            if reached == "over":
                break
            if reached == "skip" or not record(i, rng):
                continue
            i += 1
            bar.update(1)
            if i == n:
                break
    bar.close()


def sample(ruleset: str, players: int, n: int, seed: int, eps: float, max_plies: int, progress: bool):
    """(features (n, players, F), still in (n, players), order (n, players)) from states of rollout-policy games:
    ``order[i]`` lists the seats still in at state i in the order they went out in its target rollout, -1 past the
    known ones (og's game ends at the first out; elsewhere the seat left last closes the list, the loser)."""
    import agents
    import shedders
    from shedders.engine.palace import layout as K
    from shedders.engine.search import palace_search as KS

    vg = shedders.VectorGame(ruleset, 1, players, seed=seed, autoreset=False)
    work = K.alloc_state(2, players, vg.rules.num_cards)
    mask, ids = np.zeros(K.N_ACTIONS, np.int8), np.zeros(K.N_ACTIONS, np.int16)
    obs, off = np.zeros(K.observation_size(players), np.int8), agents.search.expert_offsets(players)
    eps_milli = round(eps * 1000)
    x = np.zeros((n, players, KS.LEAF_FEATURES), np.float32)
    alive = np.zeros((n, players), bool)
    order = np.full((n, players), -1, np.int64)
    f = np.zeros(KS.LEAF_FEATURES)

    # the search's rollouts: greedy for every seat (policy 0), eps random moves, played to the end
    plan = KS.SearchPlan(0, False, False, int(eps_milli), int(max_plies), KS.LEAF_NONE, f, 0, 0, off)

    def deal(rng):
        vg.reset(seeds=rng.integers(0, 2**62, size=1).astype(np.uint64))
        KS.copy_game_nb(vg.state, 0, work, 0)

    def advance(plies):
        KS.rollout_nb(work, 0, 0, vg.params, plan._replace(max_plies=int(plies)), mask, ids, obs)
        return "over" if work.phase[0] == K.PH_OVER else "skip" if work.phase[0] == K.PH_SETUP else "on"

    def record(i, rng):
        KS.copy_game_nb(work, 0, work, 1)
        work.rng[1] = np.uint64(rng.integers(0, 2**62))
        KS.rollout_nb(work, 1, 0, vg.params, plan, mask, ids, obs)
        if work.phase[1] != K.PH_OVER or not work.terminated[1]:
            return False
        for q in range(players):
            KS.leaf_features_nb(work, 0, q, f)
            x[i, q] = f
        alive[i] = work.finished[0] == 0
        left = np.flatnonzero(work.finished[1] == 0)  # one: the loser; og: the seats the winner ended
        outs = list(work.placing[1, work.n_out[0]:work.n_out[1]]) + (list(left) if len(left) == 1 else [])
        order[i, :len(outs)] = outs
        return True

    draw_states(n, seed, progress, lambda rng: np.sort(rng.choice(np.arange(4, 300), size=6, replace=False)), deal,
                advance, record)
    return x, alive, order


def sample_omg(players: int, n: int, seed: int, eps: float, max_plies: int, progress: bool):
    """``sample``'s arrays for omg: states of games of its search's rollout policy (``expert`` with ``eps`` random
    moves), up to 3 a deal at random decisions between 1 and 80; ``order[i, 0]`` is the seat that won the state's
    target rollout (omg's game ends at its first empty hand), the rest -1."""
    import shedders
    from shedders.engine.omg import layout as O
    from shedders.engine.search import omg_search as OS

    vg = shedders.VectorGame("omg", 1, players, seed=seed, autoreset=False)
    deck = vg.rules.deck
    tables = O.make_tables(deck)
    cards = tables.cards
    work = O.alloc_state(2, players, deck.num_types, deck.num_cards)
    na = int(O.action_layout(deck.num_types)["n_actions"])
    mask, ids = np.zeros(na, np.int8), np.zeros(na, np.int16)
    w0, f = np.zeros(OS.LEAF_FEATURES), np.zeros(OS.LEAF_FEATURES)
    eps_milli = round(eps * 1000)
    plan = OS.OmgSearchPlan(0, False, int(eps_milli), int(max_plies), OS.LEAF_HANDS, w0)
    x = np.zeros((n, players, OS.LEAF_FEATURES), np.float32)
    order = np.full((n, players), -1, np.int64)

    def deal(rng):
        vg.reset(seeds=rng.integers(0, 2**62, size=1).astype(np.uint64))
        OS.copy_game_nb(vg.state, 0, work, 0)

    def advance(plies):
        OS.rollout_nb(work, 0, 0, vg.params, tables, plan._replace(max_plies=int(plies)), mask, ids, f)
        return "over" if work.phase[0] == O.PH_OVER else "on"

    def record(i, rng):
        OS.copy_game_nb(work, 0, work, 1)
        work.rng[1] = np.uint64(rng.integers(0, 2**62))
        OS.rollout_nb(work, 1, 0, vg.params, tables, plan, mask, ids, f)
        if work.phase[1] != O.PH_OVER or not work.terminated[1]:
            return False
        for q in range(players):
            OS.leaf_features_nb(work, 0, q, vg.params, cards, f)
            x[i, q] = f
        order[i, 0] = work.winner[1]
        return True

    draw_states(n, seed, progress, lambda rng: np.sort(rng.choice(np.arange(1, 81), size=3, replace=False)), deal,
                advance, record)
    return x, np.ones((n, players), bool), order


def order_nll(score, alive, order, model: str):
    """The mean negative log-likelihood of the targets under seat scores ``score`` (n, players): of the loser
    (``loser``: softmax over the seats still in), or of the known finishing order (``order``: Plackett-Luce, a
    softmax over the seats left at each place; a lone seat left costs nothing)."""
    import torch

    if model == "loser":
        last = (order >= 0).sum(1) - 1
        loser = order.gather(1, last[:, None])[:, 0]
        return torch.nn.functional.cross_entropy(score.masked_fill(~alive, -1e9), loser)
    left, total = alive.clone(), score.new_zeros(())
    for j in range(order.shape[1] - 1):
        known = (order[:, j] >= 0) & (left.sum(1) >= 2)
        if not known.any():
            break
        logp = torch.log_softmax(score.masked_fill(~left, -1e9), 1)
        seat = order[:, j].clamp(min=0)
        total = total - (logp.gather(1, seat[:, None])[:, 0] * known).sum()
        left = left & ~(torch.nn.functional.one_hot(seat, order.shape[1]).bool() & known[:, None])
    return total / len(order)


def held(x, model: str):
    """The cards each seat holds, from its leaf features: omg's (``winner``) first feature is the hand size; the
    palace features' all but the last four are the hand and face-up cards by rank and the face-down count."""
    return x[..., 0] if model == "winner" else x[..., :-4].sum(-1)


def fit(train, test, l2: float, model: str = "loser") -> dict:
    """The weights and the test states' negative log-likelihoods (the model, uniform, the best soft card count)."""
    import torch

    sign = 1.0 if model == "loser" else -1.0  # many cards: likely the loser, unlikely the next out (or to win)
    likelihood = "order" if model == "winner" else model  # the winner is the order's first, its only known place

    def nll(data, w, soft=None):
        x, alive, order = (torch.from_numpy(a) for a in data)
        score = (x.double() * w).sum(-1) if soft is None else sign * soft * held(x, model).double()
        return order_nll(score, alive, order, likelihood).item()

    x, alive, order = (torch.from_numpy(a) for a in train)
    x = x.double()
    w = torch.zeros(x.shape[-1], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=500, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = order_nll((x * w).sum(-1), alive, order, likelihood) + l2 * (w ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    w = w.detach()
    betas = np.round(np.arange(0.0, 1.01, 0.02), 2)
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
    if a.model == "winner":  # omg's model, fitted on omg's states
        from shedders.engine.search import omg_search as OS

        draw, features = (lambda *args: sample_omg(a.players, *args)), OS.LEAF_FEATURES
    else:
        draw, features = (lambda *args: sample(a.ruleset, a.players, *args)), KS.LEAF_FEATURES
    train = draw(a.samples, a.seed, a.eps, a.max_plies, not a.quiet)
    test = draw(a.test_samples, a.seed + 1, a.eps, a.max_plies, not a.quiet)
    out = fit(train, test, a.l2, a.model)
    record = {"ruleset": a.ruleset, "num_players": a.players, "model": a.model, "features": features,
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
