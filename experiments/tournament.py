"""Tournaments that rank agents: duplicate deals, rotated seats, confidence intervals, OpenSkill ratings.

    python -m experiments.tournament --ruleset core --players 4 --agents random,greedy,expert,search --games 2000
    python -m experiments.tournament --ruleset og --agents random,greedy,search:budget=128,oracle --workers 2

Format (duplicate, as in bridge and in poker AI evaluations): each deal is played once per seat rotation, N times
at N players, with the same cards; in rotation j the agent of seat i sits at seat (i + j) mod N. Which agents sit
at a deal (and their order) is drawn from the tournament seed: with as many agents as seats, a random order; with
more, a random subset; with fewer, every agent once and the rest filled at random. So no agent gains from its
seat, and the luck of the deal is shared by all.

``--games`` counts deals; a run plays ``games * players`` games. Output goes to ``runs/<name>/``: ``results.json``
(everything), ``agents.csv``, ``pairwise.csv``, ``games.csv`` (one row per game) and ``ratings.png``; the table is
printed too. A killed run loses only its unfinished chunks of deals (``--chunk``, 32 by default): finished chunks
are kept in ``runs/<name>/chunks/`` and reused by a rerun with the same arguments.

Who did better is read from the rewards, the ruleset's own scoring: seats are ranked by the reward they collected
(equal rewards tie). So in core, south_african and house every non-Shithead ties for first, in og the winner is
first and the rest tie, in fatality the finishing order counts. Statistics (95% intervals): win rate (the share
of games an agent's seat ends with the game's best reward; truncated games count as no win: about 1/N for a
luck-only agent in og and fatality, (N-1)/N in core) and mean placing (finishing order; players who never went
out share the places left), each with intervals from the per-deal means (deals are independent; the seatings of
one deal are not); mean reward likewise; head-to-head: how often agent A ranks ahead of B when both sit at a game
(ties count half); OpenSkill (Plackett-Luce) ratings from the reward ranks (an agent in several seats ranked by
its mean reward over them), updated game by game in a fixed order with no skill drift (tau = 0: the agents do not
learn during a tournament), reported as mu +- 1.96 sigma.

Agent options: ``name:key=value+key=value`` in ``--agents`` (``search:budget=128``); ``name@label`` enters a
second copy of an agent under its own label (``greedy,greedy@2``). An agent written elsewhere enters as
``my_pkg.my_module:MyAgent`` or ``path/to/file.py:MyAgent`` (options after another ``:``), or by the name its
package offers through the entry-point group ``shedders.agents`` (``agents/outside.py``). Agents are built from
``agents.make`` with a seed derived from the tournament seed, per chunk, so results do not depend on
``--workers``. ``--backend ray`` spreads chunks over a Ray cluster (``$RAY_ADDRESS``, or a local one with
``--workers`` CPUs) on long-lived workers: see ``experiments/ray_backend.py`` for running it on a real cluster.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from openskill.models import PlackettLuce
from tqdm import tqdm

import agents as agents_pkg
import shedders
from agents import parse_agent
from agents.base import act_in
from agents.outside import source_digest
from experiments import ray_backend
from experiments.stats import mean_ci, paired_difference, paired_rewards
from shedders.commandline import build_parser, config_from
from shedders.replay import Replay, action_names
from shedders.vector import game_seeds

CHUNK_DEALS = 32  # default deals per chunk: the unit of work, of seeding and of saved progress


# --------------------------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------------------------
@dataclass
class Config:
    """A duplicate tournament: every deal is played once in every seat rotation."""

    ruleset: str = "core"
    """the ruleset (og, fatality, core, south_african, house, omg)"""
    players: int = 4
    """seats at the table"""
    agents: list[str] = field(default_factory=lambda: ["random", "greedy", "expert"])
    """agent specs, comma separated; options as name:key=value+key=value (search:budget=128)"""
    games: int = 200
    """deals; each is played once per seat rotation"""
    seed: int = 0
    """the seed of the deals (and of every agent's generator)"""
    workers: int = 1
    """processes (local backend) or CPUs for a local Ray"""
    backend: str = "local"
    """where chunks run: local (processes) or ray"""
    out: str = "runs"
    """the folder that holds the run directory"""
    name: str | None = None
    """the run directory's name (default: derived from the settings)"""
    ply_cap: int = 5000
    """decisions after which a game is capped"""
    cap_rule: str = "truncate"
    """how a game at the cap ends: truncate (players still in get 0) or most_cards (placed by cards left, fewest
    first)"""
    chunk: int = CHUNK_DEALS
    """deals per chunk (part of the seeding): 256 or more speeds up batched agents (heuristics, ppo)"""
    replays: int = 0
    """save the first REPLAYS games as replays under runs/<name>/replays/ (shedders replay FILE)"""
    lineup: list[int] | None = field(default=None, metadata={"items": "agent indices"})
    """a fixed seating, agent indices per seat, for every deal before rotation (0,1,1,1: agent 0 against three
    of 1)"""

    def run_name(self) -> str:
        if self.name:
            return self.name
        skip = (("workers", "backend", "out", "name", "replays") + (("lineup",) if self.lineup is None else ())
                + (("cap_rule",) if self.cap_rule == "truncate" else ()))  # names from before cap_rule stay
        key = json.dumps({k: v for k, v in asdict(self).items() if k not in skip}, sort_keys=True)
        return f"tournament-{self.ruleset}-{self.players}p-{hashlib.sha1(key.encode()).hexdigest()[:8]}"


def split_agents(text: str) -> list[str]:
    """Agents are comma separated; options use ``:`` and ``+`` (``search:budget=128+eps=0.05``)."""
    return [a.strip() for a in text.split(",") if a.strip()]


def lineups(cfg: Config, rng: np.random.Generator, deals: int) -> np.ndarray:
    """(deals, players) agent indices seated at each deal before rotation."""
    k, n = len(cfg.agents), cfg.players
    out = np.zeros((deals, n), np.int64)
    if cfg.lineup is not None:
        out[:] = cfg.lineup
        return out
    for d in range(deals):
        if k == n:
            out[d] = rng.permutation(k)
        elif k > n:
            out[d] = rng.choice(k, size=n, replace=False)
        else:
            seat = np.concatenate([np.arange(k), rng.integers(0, k, size=n - k)])
            out[d] = rng.permutation(seat)
    return out


# --------------------------------------------------------------------------------------------------------------
# Playing one chunk of deals (in any process)
# --------------------------------------------------------------------------------------------------------------
def play_chunk(cfg_dict: dict, chunk: int, deals: int) -> dict:
    """Play deals [chunk * cfg.chunk, + deals) in every rotation; returns one record per game."""

    cfg = Config(**cfg_dict)
    n = cfg.players
    first = chunk * cfg.chunk
    deal_seeds = game_seeds(cfg.seed, deals, start=first)
    lineup = lineups(cfg, np.random.default_rng([cfg.seed, chunk, 1]), deals)
    rows = deals * n
    # row = deal * n + rotation; seat i of rotation j holds lineup[(i - j) mod n]
    seat_agent = np.zeros((rows, n), np.int64)
    for d in range(deals):
        for j in range(n):
            for i in range(n):
                seat_agent[d * n + j, i] = lineup[d, (i - j) % n]
    built = [agents_pkg.make_spec(spec, cfg.ruleset, n, seed=int(np.random.default_rng([cfg.seed, chunk, 2, idx])
                                                                .integers(2**31)))
             for idx, spec in enumerate(cfg.agents)]
    keep = min(cfg.replays, rows) if chunk == 0 else 0
    played = play_games(cfg.ruleset, n, np.repeat(deal_seeds, n), seat_agent, built, cfg.agents,
                        {"seed": cfg.seed, "ply_cap": cfg.ply_cap, "cap_rule": cfg.cap_rule}, keep, "tournament")
    total, placing, plies, truncated, replays = (played[k] for k in ("reward", "placing", "plies", "truncated",
                                                                     "replays"))
    all_rows = np.arange(rows)
    return {
        "replays": replays,
        "chunk": chunk,
        "deal": (first + all_rows // n).tolist(),
        "seat_agent": seat_agent.tolist(),
        "reward": total.tolist(),
        "placing": placing.tolist(),
        "plies": plies.tolist(),
        "truncated": truncated.tolist(),
    }


def play_games(ruleset: str, n: int, seeds: np.ndarray, seat_agent: np.ndarray, built: list, labels: list[str],
               game_options: dict, keep: int = 0, source: str = "tournament") -> dict:
    """Play one game per row to its end: row r dealt from ``seeds[r]``, seat i played by
    ``built[seat_agent[r, i]]`` (agents act on all the rows where they are to move at once). Returns per row the
    summed ``reward`` (rows, n), the finishing ``placing`` (padded with -1), ``plies`` and ``truncated``; the first
    ``keep`` rows as replay lines (``replays``, seats labelled from ``labels``); and per agent the seconds spent in
    its ``act`` calls (``act_seconds``) and the decisions it made (``decisions``)."""
    rows = len(seeds)
    vg = shedders.VectorGame(ruleset, rows, n, autoreset=False, **game_options)
    vg.reset(seeds=seeds)
    names = action_names(vg.rules)
    replays = {r: Replay.start(vg.rules, vg.state_dict(r), vg.state.rng[r], seed=int(seeds[r]),
                               players=[labels[seat_agent[r, i]] for i in range(n)], source=source)
               for r in range(min(keep, rows))}
    total = np.zeros((rows, n))
    placing = np.full((rows, n), -1, np.int64)
    plies = np.zeros(rows, np.int64)
    truncated = np.zeros(rows, bool)
    live = np.ones(rows, bool)
    all_rows = np.arange(rows)
    act_seconds = np.zeros(len(built))
    decisions = np.zeros(len(built), np.int64)
    while live.any():
        actions = np.full(rows, -1, np.int64)
        acting = seat_agent[all_rows, np.maximum(vg.current_player, 0)]
        for k, agent in enumerate(built):
            sel = np.flatnonzero(live & (acting == k))
            if not len(sel):
                continue
            t = time.perf_counter()
            actions[sel] = act_in(agent, vg, sel)
            act_seconds[k] += time.perf_counter() - t
            decisions[k] += len(sel)
        movers = [(r, int(vg.current_player[r]), int(actions[r])) for r in replays if live[r]]
        vg.step(actions)
        total += vg.rewards
        for r, seat, a in movers:
            replays[r].add(seat, a, names[a], vg.state_dict(r))
        ended = np.flatnonzero(live & (vg.terminated | vg.truncated))
        if len(ended):
            placing[ended] = vg.final_placing[ended]
            plies[ended] = vg.final_plies[ended]
            truncated[ended] = vg.truncated[ended]
            live[ended] = False
            for r in ended:
                if r in replays:
                    replays[r].finish(vg.state_dict(r)["placing"], total[r], truncated[r])
    return {"reward": total, "placing": placing, "plies": plies, "truncated": truncated,
            "replays": [replays[r].lines() for r in sorted(replays)], "act_seconds": act_seconds,
            "decisions": decisions}


def places(order, n: int) -> np.ndarray:
    """Place (1-based) of each seat from a finishing order padded with -1; seats not listed share the rest.
    ``order`` is one game's order (n,) or a batch of them (G, n); the result has the same shape."""
    order = np.asarray(order, np.int64)
    one = order.ndim == 1
    order = np.atleast_2d(order)
    listed = order >= 0
    count = listed.sum(axis=1)
    out = np.repeat(((count + 1 + n) / 2)[:, None], n, axis=1)  # the mean of the places left, count+1 .. n
    g, k = np.nonzero(listed)
    out[g, order[g, k]] = np.cumsum(listed, axis=1)[g, k]
    return out[0] if one else out


def agent_ranks(reward, seat_agent) -> tuple[list[int], list[int]]:
    """The agents at one game and their ranks (1 = best, equal ranks tie) by each agent's mean reward over the
    seats it holds: its payoff per seat in that game, the outcome an agent seated more than once plays for. With
    one
    seat per agent this is ``reward_ranks``. In core, where only the Shithead is ranked, two seats each leave one
    agent last in every game with a loser (ranking an agent by its best seat would tie them every time)."""
    seat_agent = np.asarray(seat_agent)
    present, ranks = agent_rank_table(np.asarray(reward, float)[None], seat_agent[None], int(seat_agent.max()) + 1)
    return np.flatnonzero(present[0]).tolist(), ranks[0][present[0]].tolist()


def reward_ranks(reward) -> np.ndarray:
    """Rank (1 = best) of each seat by the reward it collected in the game; equal rewards share the better rank.
    This is the ruleset's own notion of who did well: core's non-Shitheads all tie, og's losers all tie,
    fatality's placings are all distinct. ``reward`` is one game's (n,) or a batch of games (G, n)."""
    r = np.round(np.asarray(reward, float), 6)
    return 1 + np.sum(r[..., None, :] > r[..., :, None], axis=-1)


def agent_rank_table(reward, seat_agent, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``agent_ranks`` for a batch of games: (G, k) whether each agent sits at each game, and its rank there
    (meaningless where it does not sit)."""
    reward, seat_agent = np.asarray(reward, float), np.asarray(seat_agent)
    seats = seat_agent[:, None, :] == np.arange(k)[None, :, None]  # (G, k, n)
    held = seats.sum(axis=2)
    present = held > 0
    mean = np.where(present, (seats * reward[:, None, :]).sum(axis=2) / np.maximum(held, 1), np.nan)
    return present, reward_ranks(mean)  # an absent agent's NaN is ahead of no one


# --------------------------------------------------------------------------------------------------------------
# Aggregation
# --------------------------------------------------------------------------------------------------------------
def openskill_ratings(names: list[str], games, start: list | None = None) -> list:
    """OpenSkill (Plackett-Luce) ratings of ``names`` from ``games``, an iterable of (entries present, their ranks;
    1 is best, equal ranks tie), updated game by game in order, with no skill drift (tau = 0: the agents do not
    learn during a tournament), from ``start`` (ratings returned before) or from scratch. Games with fewer than
    two entries teach nothing and are skipped."""

    model = PlackettLuce(tau=0.0)
    ratings = list(start) if start is not None else [model.rating(name=name) for name in names]
    for present, ranks in games:
        if len(present) < 2:
            continue
        new = model.rate([[ratings[a]] for a in present], ranks=list(ranks))
        for a, team in zip(present, new):
            ratings[a] = team[0]
    return ratings


def summarize(cfg: Config, records: list[dict]) -> dict:
    n, k = cfg.players, len(cfg.agents)
    deal = np.concatenate([np.asarray(r["deal"]) for r in records])
    seat_agent = np.concatenate([np.asarray(r["seat_agent"]) for r in records])
    reward = np.concatenate([np.asarray(r["reward"]) for r in records])
    order = np.concatenate([np.asarray(r["placing"]) for r in records])
    plies = np.concatenate([np.asarray(r["plies"]) for r in records])
    trunc = np.concatenate([np.asarray(r["truncated"]) for r in records])
    sort = np.lexsort((np.arange(len(deal)), deal))  # a fixed game order, whatever the chunk order
    deal, seat_agent, reward, order, plies, trunc = (
        a[sort] for a in (deal, seat_agent, reward, order, plies, trunc))
    place = places(order, n)
    rank = reward_ranks(reward)
    games = len(deal)
    _, deal_index = np.unique(deal, return_inverse=True)

    def by_deal(total, count) -> tuple[float, float, float]:
        """mean_ci over deals of the per-deal mean of what ``total`` sums and ``count`` counts, per game; deals
        with nothing counted are left out."""
        s = np.bincount(deal_index, weights=total)
        c = np.bincount(deal_index, weights=count)
        return mean_ci(s[c > 0] / c[c > 0])

    win = (rank == 1) & ~trunc[:, None]
    per_agent = []
    for a in range(k):
        mine = seat_agent == a
        held = mine.sum(axis=1)
        w, p, r = (by_deal((v * mine).sum(axis=1), held) for v in (win, place, reward))
        per_agent.append({
            "agent": cfg.agents[a], "seats_played": int(held.sum()),
            "win_rate": w[0], "win_lo": w[1], "win_hi": w[2],
            "mean_placing": p[0], "placing_lo": p[1], "placing_hi": p[2],
            "mean_reward": r[0], "reward_lo": r[1], "reward_hi": r[2],
        })

    # score[g, i, j]: seat i finishes ahead of seat j (1), ties (1/2) or behind (0)
    score = (rank[:, :, None] < rank[:, None, :]) + 0.5 * (rank[:, :, None] == rank[:, None, :])
    pairwise = []
    for a in range(k):
        for b in range(k):
            if a == b:
                continue
            ma, mb = (seat_agent == a).astype(float), (seat_agent == b).astype(float)
            pairs = ma.sum(axis=1) * mb.sum(axis=1)
            m = by_deal(np.einsum("gi,gij,gj->g", ma, score, mb), pairs)
            # the verdict: on the deals where both sit, a's mean reward minus b's, a paired t test over deals
            d = paired_difference(*paired_rewards(deal, seat_agent, reward, a, b))
            pairwise.append({"agent": cfg.agents[a], "opponent": cfg.agents[b], "games": int(pairs.sum()),
                             "ahead": m[0], "ahead_lo": m[1], "ahead_hi": m[2],
                             "reward_diff": d["diff"], "diff_lo": d["lo"], "diff_hi": d["hi"], "p_value": d["p"],
                             "paired_deals": d["deals"]})

    present, ranks = agent_rank_table(reward, seat_agent, k)
    ratings = openskill_ratings(cfg.agents, ((np.flatnonzero(present[g]).tolist(), ranks[g][present[g]].tolist())
                                             for g in range(games)))  # agent_ranks, game by game
    for row, rt in zip(per_agent, ratings):
        row.update(mu=rt.mu, sigma=rt.sigma, mu_lo=rt.mu - 1.96 * rt.sigma, mu_hi=rt.mu + 1.96 * rt.sigma)

    return {
        "config": asdict(cfg),
        "games": int(games),
        "deals": len(np.unique(deal)),
        "mean_length": float(plies.mean()),
        "truncated_share": float(trunc.mean()),
        "agents": per_agent,
        "pairwise": pairwise,
        "game_rows": {"deal": deal.tolist(), "seat_agent": seat_agent.tolist(), "reward": reward.tolist(),
                      "place": place.tolist(), "plies": plies.tolist(), "truncated": trunc.tolist()},
    }


def table(summary: dict) -> str:
    cfg = summary["config"]
    lines = [
        (f"{cfg['ruleset']}, {cfg['players']} players: {summary['deals']} deals x {cfg['players']} seatings = "
        f"{summary['games']} games; mean length {summary['mean_length']:.0f} decisions, "
        f"{summary['truncated_share']:.1%} truncated"),
        "",
        "| agent | OpenSkill mu (95%) | win rate (95%) | mean placing (95%) | mean reward (95%) |",
        "|---|---|---|---|---|",
    ]
    for a in sorted(summary["agents"], key=lambda r: -r["mu"]):
        lines.append(
            f"| {a['agent']} | {a['mu']:.1f} [{a['mu_lo']:.1f}, {a['mu_hi']:.1f}] "
            f"| {a['win_rate']:.3f} [{a['win_lo']:.3f}, {a['win_hi']:.3f}] "
            f"| {a['mean_placing']:.2f} [{a['placing_lo']:.2f}, {a['placing_hi']:.2f}] "
            f"| {a['mean_reward']:+.3f} [{a['reward_lo']:+.3f}, {a['reward_hi']:+.3f}] |"
        )
    names = [a["agent"] for a in summary["agents"]]
    lines += ["", "Head-to-head (row finishes ahead of column; ties half):", "",
              "| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for a in names:
        cells = []
        for b in names:
            if a == b:
                cells.append("-")
                continue
            p = next(x for x in summary["pairwise"] if x["agent"] == a and x["opponent"] == b)
            cells.append("n/a" if not p["games"] else f"{p['ahead']:.3f}")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", ("Paired verdicts (row's mean reward minus column's on the deals where both sit, 95% interval, "
                   "paired t test over deals):"), "",
              "| | vs | difference (95%) | p | deals |", "|---|---|---|---|---|"]
    for p in summary["pairwise"]:
        if names.index(p["agent"]) < names.index(p["opponent"]) and p.get("paired_deals", 0) >= 2:
            lines.append(f"| {p['agent']} | {p['opponent']} | {p['reward_diff']:+.4f} [{p['diff_lo']:+.4f}, "
                         f"{p['diff_hi']:+.4f}] | {p['p_value']:.3g} | {p['paired_deals']} |")
    return "\n".join(lines)


def plot(summary: dict, path: Path) -> None:
    from matplotlib.figure import Figure  # no pyplot: a library must not pick (or change) the user's backend

    rows = sorted(summary["agents"], key=lambda r: r["mu"])
    fig = Figure(figsize=(6, 0.5 + 0.45 * len(rows)))
    ax = fig.subplots()
    y = np.arange(len(rows))
    mu = np.array([r["mu"] for r in rows])
    ax.errorbar(mu, y, xerr=1.96 * np.array([r["sigma"] for r in rows]), fmt="o", capsize=4)
    ax.set_yticks(y, [r["agent"] if len(r["agent"]) <= 32 else r["agent"][:29] + "..." for r in rows])
    ax.set_xlabel("OpenSkill (Plackett-Luce) mu, 95% interval")
    cfg = summary["config"]
    ax.set_title(f"{cfg['ruleset']}, {cfg['players']} players, {summary['games']} games")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def write_outputs(summary: dict, run_dir: Path) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "results.json").write_text(json.dumps(summary, indent=1))
    with open(run_dir / "agents.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary["agents"][0]))
        w.writeheader()
        w.writerows(summary["agents"])
    with open(run_dir / "pairwise.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["agent", "opponent", "games", "ahead", "ahead_lo", "ahead_hi",
                                          "reward_diff", "diff_lo", "diff_hi", "p_value", "paired_deals"])
        w.writeheader()
        w.writerows(summary["pairwise"])
    rows = summary["game_rows"]
    with open(run_dir / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        n = summary["config"]["players"]
        w.writerow(["deal"] + [f"agent_{i}" for i in range(n)] + [f"place_{i}" for i in range(n)]
                   + [f"reward_{i}" for i in range(n)] + ["plies", "truncated"])
        names = summary["config"]["agents"]
        for i in range(len(rows["deal"])):
            w.writerow([rows["deal"][i]] + [names[a] for a in rows["seat_agent"][i]] + rows["place"][i]
                       + [round(x, 6) for x in rows["reward"][i]] + [rows["plies"][i], rows["truncated"][i]])
    (run_dir / "table.md").write_text(table(summary) + "\n")
    plot(summary, run_dir / "ratings.png")


# --------------------------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------------------------
def check(cfg: Config) -> None:
    """Every setting checked before anything is written or played: ``ValueError`` names the bad one. Each agent is
    built once here, so an unknown option or a bad value is refused now, not when the games start."""
    if cfg.backend == "ray":
        ray_backend.require_ray()
    shedders.make_rules(cfg.ruleset, cfg.players, ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule)
    if not cfg.agents:
        raise ValueError("agents: give at least one agent")
    for spec in cfg.agents:
        try:
            agents_pkg.make_spec(spec, cfg.ruleset, cfg.players, seed=0)
        except agents_pkg.AgentError:  # names the spec already
            raise
        except ValueError as e:
            raise ValueError(f"agent {spec!r}: {e}") from None
    for what, value, lo in (("games", cfg.games, 1), ("chunk", cfg.chunk, 1), ("workers", cfg.workers, 1),
                            ("replays", cfg.replays, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise ValueError(f"{what} must be an integer of at least {lo}, got {value!r}")
    if cfg.backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {cfg.backend!r}; allowed: local, ray")
    if cfg.lineup is not None and (len(cfg.lineup) != cfg.players
                                   or not all(0 <= int(a) < len(cfg.agents) for a in cfg.lineup)):
        raise ValueError(f"lineup must give an agent index in 0..{len(cfg.agents) - 1} for each of the "
                         f"{cfg.players} seats, got {','.join(map(str, cfg.lineup))}")


#: settings that do not change a tournament's games: a rerun may change them and keep the saved chunks
RESULT_FREE = ("workers", "backend", "out", "name", "replays", "games")


def result_key(cfg: Config) -> dict:
    """Everything that changes the games of a chunk: a saved chunk is reused only under the same key. An agent
    option naming a file (``ppo:checkpoint=PATH``) is keyed by the file's content too: a retrained checkpoint at
    the same path is another agent; so is an outside agent's source file (``file.py:MyAgent``, or the module's)."""
    key = {k: v for k, v in asdict(cfg).items() if k not in RESULT_FREE}
    files = {}
    for spec in cfg.agents:
        name, options = parse_agent(spec)
        for value in options.values():
            if isinstance(value, str) and Path(value).is_file():
                files[value] = hashlib.sha256(Path(value).read_bytes()).hexdigest()[:16]
        if agents_pkg.is_outside(name):  # an outside agent's code: an edited agent is another agent
            digest = source_digest(name)
            if digest is not None:
                files[name] = digest
    if files:
        key["files"] = files
    return key


def claim(run_dir: Path, cfg: Config) -> None:
    """Make ``run_dir`` this tournament's, or refuse: a directory that holds a tournament with other settings
    (other agents, seed, ruleset, ...) is never reused, so its saved chunks are never credited to other agents."""
    path = run_dir / "config.json"
    new = result_key(cfg)
    if path.exists():
        try:
            saved = json.loads(path.read_text())
        except (OSError, ValueError):
            raise ValueError(f"{path} is not a tournament config; choose another --name") from None
        defaults = asdict(Config())  # a setting added since the run was saved has its default there
        old = {k: saved.get(k, defaults.get(k)) for k in set(saved) | set(defaults) if k not in RESULT_FREE}
        if "files" in new and "files" not in old:  # a run written before file digests were kept
            old["files"] = new["files"]
        if old != new:
            diff = ", ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(set(old) | set(new))
                             if old.get(k) != new.get(k))
            raise ValueError(f"{run_dir} holds a tournament with other settings ({diff}); its games would be "
                             f"credited to these: choose another --name (or --out), or rerun with its settings")
    elif run_dir.exists() and any(run_dir.iterdir()):
        raise ValueError(f"{run_dir} exists and holds no tournament config; choose another --name")
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    saved = asdict(cfg) | ({"files": new["files"]} if "files" in new else {})
    tmp.write_text(json.dumps(saved, indent=1))
    os.replace(tmp, path)


def chunk_digest(rec: dict, key: dict) -> str:
    """The sha256 a saved chunk carries: of its record and of the settings it was played under (``result_key``), so
    a chunk whose numbers were changed, or that was copied in from another tournament, is not reused."""
    body = {k: v for k, v in rec.items() if k != "sha256"}
    text = json.dumps([body, key], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def save_chunk(path: Path, rec: dict, key: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(rec | {"sha256": chunk_digest(rec, key)}))
    os.replace(tmp, path)  # atomic: a killed run never leaves half a chunk


def load_chunk(path: Path, key: dict) -> dict | None:
    """A saved chunk whose digest holds, else None (it is played again, and a damaged one says so)."""
    if not path.exists():
        return None
    try:
        rec = json.loads(path.read_text())
        ok = isinstance(rec, dict) and rec.get("sha256") == chunk_digest(rec, key)
    except (OSError, ValueError):
        ok = False
    if not ok:
        print(f"tournament: {path} is damaged or was changed (its sha256 does not match): playing it again",
              file=sys.stderr)
        return None
    del rec["sha256"]
    return rec


def run(cfg: Config, progress: bool = True) -> dict:
    """Play the tournament (reusing saved chunks whose digest holds), write ``runs/<name>/`` and return the
    summary."""
    check(cfg)
    run_dir = Path(cfg.out) / cfg.run_name()
    chunk_dir = run_dir / "chunks"
    claim(run_dir, cfg)
    chunk_dir.mkdir(parents=True, exist_ok=True)
    n_chunks = math.ceil(cfg.games / cfg.chunk)
    todo = []
    records = {}
    key = result_key(cfg)
    for c in range(n_chunks):
        deals = min(cfg.chunk, cfg.games - c * cfg.chunk)
        rec = load_chunk(chunk_dir / f"{c:05d}.json", key)
        if rec is not None and len(rec["deal"]) == deals * cfg.players:
            records[c] = rec
        else:  # missing, or the last chunk of a run with fewer --games: played (again)
            todo.append((c, deals))
    bar = tqdm(total=cfg.games * cfg.players, initial=sum(len(r["deal"]) for r in records.values()),
               desc=f"{cfg.ruleset} tournament (games)", disable=not progress, unit="game")
    cfg_dict = asdict(cfg)

    def done(rec):
        for i, lines in enumerate(rec.pop("replays", [])):
            Replay.from_lines(lines).save(run_dir / "replays" / f"game_{i:04d}.jsonl")
        save_chunk(chunk_dir / f"{rec['chunk']:05d}.json", rec, key)
        records[rec["chunk"]] = rec
        bar.update(len(rec["deal"]))

    if cfg.backend == "ray":  # long-lived actors, batches of chunks (experiments/ray_backend.py)
        ray_backend.run_chunks(play_chunk, cfg_dict, todo, cfg.workers, done)
    elif cfg.workers > 1 and len(todo) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawn, not fork: numba's thread pool does not survive a fork; one numba thread per worker process
        saved = os.environ.get("NUMBA_NUM_THREADS")
        os.environ["NUMBA_NUM_THREADS"] = "1"
        try:
            with ProcessPoolExecutor(cfg.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                futures = [pool.submit(play_chunk, cfg_dict, c, d) for c, d in todo]
                for f in as_completed(futures):
                    done(f.result())
        finally:
            if saved is None:
                os.environ.pop("NUMBA_NUM_THREADS", None)
            else:
                os.environ["NUMBA_NUM_THREADS"] = saved
    elif cfg.backend == "local":
        for c, d in todo:
            done(play_chunk(cfg_dict, c, d))
    else:
        raise ValueError(f"unknown backend {cfg.backend!r}; allowed: local, ray")
    bar.close()
    summary = summarize(cfg, [records[c] for c in sorted(records)])
    write_outputs(summary, run_dir)
    summary["run_dir"] = str(run_dir)
    return summary


def main(argv: list[str] | None = None) -> dict:
    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    cfg = config_from(Config, args)
    t = time.perf_counter()
    try:
        summary = run(cfg, progress=not args.quiet)
    except ValueError as e:
        ap.error(str(e))
    except KeyboardInterrupt:
        chunks = Path(cfg.out) / cfg.run_name() / "chunks"
        saved = len(list(chunks.glob("*.json"))) if chunks.is_dir() else 0
        print(f"\ninterrupted: {saved} of {math.ceil(cfg.games / cfg.chunk)} chunks are saved in {chunks}/; "
              f"the same command continues from them", file=sys.stderr)
        raise SystemExit(130) from None
    print(table(summary))
    print(f"\nwrote {summary['run_dir']}/ (results.json, agents.csv, pairwise.csv, games.csv, ratings.png) "
          f"in {time.perf_counter() - t:.0f} s")
    return summary


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
