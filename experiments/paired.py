"""One agent of two tournament runs on the same deals, compared deal by deal.

    python -m experiments.paired runs/new-vs-expert runs/old-vs-expert
    python -m experiments.paired runs/a runs/b --agent 0 --agent-b learned --json
    python -m experiments.paired runs/new-8891 runs/old-8891 runs/new-8896 runs/old-8896   # pooled over two sets

Two networks are best compared in the same seat against the same field on the same deals: one tournament each
(``experiments.tournament --lineup 0,1,1,1 --seed S``, the candidate as agent 0), then this. Each argument is a
tournament run directory (or its ``results.json``). For each run it prints the agent's mean reward a game with its
95% interval over deals (each deal's games averaged first, as the tournament does), the games, the share capped
and the mean length; then the first run's agent minus the second's, paired over the deals both played: the mean
difference, its Student-t interval and the p-value of "no difference" (``experiments.stats.paired_difference``).

The two runs must deal the same cards: the same ruleset, players, seed and chunk size (``ValueError`` otherwise).
``--agent`` picks the agent by index or name in the first run (default 0), ``--agent-b`` in the second (default:
the same as ``--agent``).

More pairs of runs (``A1 B1 A2 B2 ...``, each pair on its own deals: another seed, say) are each compared as above,
then pooled: every deal of every pair counts once, for each agent's mean (normal interval over the deals, as a
tournament gives it) and for the paired difference. Two pairs that deal the same cards are refused, as they would
count deals twice.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from experiments.stats import agent_by_deal, mean_ci, paired_difference

#: the settings that decide which cards each deal holds: two runs are paired only where these agree
DEAL_KEYS = ("ruleset", "players", "seed", "chunk")


def load(path: str | Path) -> dict:
    """A tournament's summary from its run directory or its ``results.json``; ``ValueError`` where there is
    none."""
    p = Path(path)
    if p.is_dir():
        p = p / "results.json"
    if not p.is_file():
        raise ValueError(f"{path}: no tournament results here (expected a run directory with results.json)")
    summary = json.loads(p.read_text())
    if "game_rows" not in summary or "config" not in summary:
        raise ValueError(f"{path}: not a tournament's results.json (no game rows)")
    return summary


def agent_index(summary: dict, agent: str | int) -> int:
    """The index of ``agent`` (an index, or a name as the run lists it) among the run's agents."""
    names = summary["config"]["agents"]
    if isinstance(agent, int) or str(agent).isdigit():
        i = int(agent)
        if not 0 <= i < len(names):
            raise ValueError(f"agent index {i} is out of range: the run has {len(names)} agents {names}")
        return i
    if agent not in names:
        raise ValueError(f"no agent {agent!r} in the run: its agents are {names}")
    return names.index(agent)


def per_deal(summary: dict, agent: int) -> tuple[np.ndarray, np.ndarray]:
    """(deals, mean reward of ``agent``'s seats on each deal), over the deals where it sat."""
    rows = summary["game_rows"]
    keys, means = agent_by_deal(rows["deal"], rows["seat_agent"], rows["reward"], agent)
    sat = ~np.isnan(means)
    return keys[sat], means[sat]


def describe(summary: dict, agent: int) -> dict:
    """The agent's mean reward a game with its interval over deals (as the tournament summarised it), and the
    run's deals, games, capped share and mean length."""
    row = summary["agents"][agent]
    return {"agent": row["agent"], "mean_reward": row["mean_reward"], "reward_lo": row["reward_lo"],
            "reward_hi": row["reward_hi"], "deals": summary["deals"], "games": summary["games"],
            "capped": summary["truncated_share"], "mean_length": summary["mean_length"]}


def paired_deals(a: dict, b: dict, agent_a: int, agent_b: int) -> tuple[np.ndarray, np.ndarray]:
    """The two agents' mean rewards on each deal both runs played, in deal order; ``ValueError`` where the runs
    deal different cards or share no deal."""
    ca, cb = a["config"], b["config"]
    differ = [k for k in DEAL_KEYS if ca.get(k) != cb.get(k)]
    if differ:
        raise ValueError("the runs deal different cards: " + ", ".join(f"{k} {ca.get(k)!r} against {cb.get(k)!r}"
                                                                       for k in differ))
    da, va = per_deal(a, agent_a)
    db, vb = per_deal(b, agent_b)
    common, ia, ib = np.intersect1d(da, db, return_indices=True)
    if len(common) == 0:
        raise ValueError("the runs share no deal where both agents sat")
    return va[ia], vb[ib]


def pool(pairs: list[tuple[dict, np.ndarray, np.ndarray]]) -> dict:
    """Several pairs of runs, each on its own deals, pooled: ``pairs`` holds each pair's first run with the two
    agents' per-deal rewards (``paired_deals``). Returns each agent's mean a game over every paired deal with its
    normal interval, and the paired difference over them all; ``ValueError`` where two pairs deal the same
    cards."""
    seen: dict[tuple, int] = {}
    for i, (a, *_) in enumerate(pairs):
        key = tuple(a["config"].get(k) for k in DEAL_KEYS)
        if key in seen:
            raise ValueError(f"pairs {seen[key] + 1} and {i + 1} deal the same cards "
                             f"({', '.join(f'{k} {v!r}' for k, v in zip(DEAL_KEYS, key))}): pooled, their deals "
                             "would count twice")
        seen[key] = i
    va, vb = (np.concatenate([p[j] for p in pairs]) for j in (1, 2))
    (ma, la, ha), (mb, lb, hb) = mean_ci(va), mean_ci(vb)
    return {"a": {"mean_reward": ma, "reward_lo": la, "reward_hi": ha},
            "b": {"mean_reward": mb, "reward_lo": lb, "reward_hi": hb},
            "a_minus_b": paired_difference(va, vb), "pairs": len(pairs)}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.strip().split("\n\n")[0])
    ap.add_argument("run_a", help="the first tournament run (directory or results.json)")
    ap.add_argument("run_b", help="the second, on the same deals")
    ap.add_argument("more", nargs="*", metavar="RUN",
                    help="more pairs (A2 B2 ...), each on its own deals: compared alone, then all pooled")
    ap.add_argument("--agent", default="0", help="the agent in each first run, by index or name (default 0)")
    ap.add_argument("--agent-b", default=None, help="the agent in each second run (default: as --agent)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    paths = [args.run_a, args.run_b, *args.more]
    try:
        if len(paths) % 2:
            raise ValueError(f"runs come in pairs (A B [A2 B2 ...]): got {len(paths)}")
        pairs, outs = [], []
        for pa, pb in zip(paths[::2], paths[1::2]):
            a, b = load(pa), load(pb)
            ia = agent_index(a, args.agent)
            ib = agent_index(b, args.agent if args.agent_b is None else args.agent_b)
            va, vb = paired_deals(a, b, ia, ib)
            pairs.append((a, va, vb))
            outs.append({"a": describe(a, ia), "b": describe(b, ib), "a_minus_b": paired_difference(va, vb)})
        out = outs[0] if len(outs) == 1 else {"pairs": outs, "pooled": pool(pairs)}
    except ValueError as e:
        ap.exit(2, f"{ap.prog}: error: {e}\n")
    if args.json:
        print(json.dumps(out, indent=1))
        return out
    for (pa, pb), o in zip(zip(paths[::2], paths[1::2]), outs):
        for run, d in ((pa, o["a"]), (pb, o["b"])):
            print(f"{run}: {d['agent']} {d['mean_reward']:+.3f} [{d['reward_lo']:+.3f}, {d['reward_hi']:+.3f}] a "
                  f"game ({d['deals']} deals, {d['games']} games, {100 * d['capped']:.2f}% capped, mean length "
                  f"{d['mean_length']:.0f})")
        print(difference_line("first minus second", o["a_minus_b"]))
    if len(outs) > 1:
        p = out["pooled"]
        for which in ("a", "b"):
            d = p[which]
            print(f"pooled, {'first' if which == 'a' else 'second'} runs: {d['mean_reward']:+.3f} "
                  f"[{d['reward_lo']:+.3f}, {d['reward_hi']:+.3f}] a game over {p['a_minus_b']['deals']} deals")
        print(difference_line(f"pooled over {p['pairs']} pairs, first minus second", p["a_minus_b"]))
    return out


def difference_line(what: str, d: dict) -> str:
    """One printed line of a paired difference: what, its deals, the mean, its interval and p."""
    return (f"{what}, paired over {d['deals']} deals: {d['diff']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}], "
            f"p = {d['p']:.4f}")


if __name__ == "__main__":
    sys.exit(main() and 0)
