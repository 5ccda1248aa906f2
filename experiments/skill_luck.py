"""Measure how much of each ruleset is skill and how much is luck.

    python -m experiments.skill_luck --ruleset og --players 4
    python -m experiments.skill_luck --all --deals 200 --workers 2

For each ruleset the script plays a set of duplicate tournaments (``experiments.tournament``: the same deals in
every seat rotation) and computes four measures, each with a 95% interval (methods, formulas and references:
``experiments/README.md``):

1. win rate and mean placing of each agent in a field of ``random`` agents and in a field of copies of itself,
   against the luck-only baseline (the share of seats that win a game: 1/N in og and fatality, (N-1)/N in the
   Shithead rulesets, where everyone but the Shithead wins);
2. relative skill (Dreef, Borm and van der Genugten 2004): learning effect over learning plus random effect, in
   expected reward, with ``oracle`` as the fictive player who knows the chance outcomes;
3. the number of games the better of two agents needs to lead with 95% confidence (in the spirit of Duersch,
   Lambrecht and Oechssler 2020), and the spread of ratings between the strongest and the weakest agent;
4. the share of the variance of a seat's reward explained by the cards it was dealt, by the agent, and the rest.

Writes ``runs/<name>/report.md``, ``report.json`` and plots; every tournament is saved chunk by chunk, so a killed
run picks up where it stopped.
"""

from __future__ import annotations

import inspect
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

import agents as agents_pkg
import shedders
from experiments import tournament as T
from experiments.stats import (
    by_deal,
    chi2_sf,
    games_to_lead,
    mean_ci,
    norm_ppf,
    normal_games_to_lead,  # normal_games_to_lead: also read from here)
    percentiles,
)
from shedders.commandline import build_parser, config_from
from shedders.rules.registry import members

PALACE_RULESETS = members("palace")  # ``--all``: the palace family, in the package's order

Z95_ONE_SIDED = 1.6448536269514722  # P(Z < z) = 0.95: "leads with 95% confidence"


@dataclass
class Config:
    """What to measure. Every run is reproducible from ``seed``."""

    rulesets: list[str] = field(default_factory=lambda: ["og"])
    """rulesets to measure, comma separated (--all: every palace ruleset)"""
    players: int = 4
    """seats at the table"""
    agents: list[str] = field(default_factory=lambda: ["random", "greedy", "expert", "search:budget=64"])
    """real players, beginner first (options as in the tournament); neighbours are compared in measure 3"""
    oracle: str = "oracle:budget=64"
    """the fictive player of measure 2 ('' for none: no relative skill)"""
    field_agent: str = "greedy"
    """the reference field of relative skill (as well as the field of random agents)"""
    copies: list[str] = field(default_factory=lambda: ["random", "greedy", "expert"])
    """agents measured in a field of copies of themselves (measure 1)"""
    deals: int = 100
    """deals per tournament; each is played in every seat rotation"""
    seed: int = 0
    """the seed of every tournament's deals"""
    workers: int = 1
    """processes per tournament"""
    chunk: int = 32
    """deals per chunk (the tournament's unit of work and seeding)"""
    bootstrap: int = 2000
    """resamples of deals for the intervals of ratios"""
    out: str = "runs"
    """the folder that holds the run directory"""
    name: str | None = None
    """the run directory's name (default: skill_luck-<players>p-seed<seed>)"""
    ply_cap: int = 5000
    """decisions after which a game is capped"""
    cap_rule: str = "truncate"
    """how a game at the cap ends: truncate or most_cards (see the tournament's --help)"""
    model_field: bool = False
    """the oracle's rollouts play the other seats as the field it sits at does (opponents=...), so it best-responds
    to that field. Off by default: against random players the rollouts of core and south_african rarely end within
    their 400 decisions (one such tournament, core, 80 deals, had not saved its first 16-deal chunk after more than
    5 minutes on two workers)"""
    beginners: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """relative skill with each of these as the beginner (those among --agents), side by side"""
    certify: bool = False
    """certify the fictive player: double the oracle's budget (from its spec's) until the random effect moves by
    less than --certify-tol, at most up to --max-budget; implies --model-field"""
    certify_tol: float = 0.01
    """the certification's tolerance on the random effect"""
    max_budget: int = 1024
    """the certification's largest oracle budget"""
    split: bool = True
    """choose the best real player on even deals and measure relative skill on odd ones (--no-split: on the same
    deals, the first report's way)"""
    oracle_fields: list[str] = field(default_factory=lambda: ["greedy", "random"])
    """the fields in which the fictive player is played (the others get only the bound by the best payoff)"""

    def run_name(self) -> str:
        return self.name or f"skill_luck-{self.players}p-seed{self.seed}"


# ----------------------------------------------------------------------------------------------------------------
# The measures, on game rows: {"deal", "seat_agent", "reward", "truncated"} lists, one entry per game
# ----------------------------------------------------------------------------------------------------------------
def _arrays(rows: dict):
    deal = np.asarray(rows["deal"])
    seat_agent = np.asarray(rows["seat_agent"])
    reward = np.asarray(rows["reward"], float)
    trunc = np.asarray(rows["truncated"], bool)
    return deal, seat_agent, reward, trunc


def _wins(reward: np.ndarray, trunc: np.ndarray) -> np.ndarray:
    """(games, seats) 1 where the seat has the game's best reward (truncated games: no winner)."""
    r = np.round(reward, 6)
    return (r == r.max(axis=1, keepdims=True)) & ~trunc[:, None]


def luck_baseline(rows: dict) -> float:
    """The win rate of a seat under pure luck: the mean share of seats that win a game."""
    _, _, reward, trunc = _arrays(rows)
    w = _wins(reward, trunc)
    return float(w[~trunc].mean()) if (~trunc).any() else math.nan


def agent_stats(rows: dict, agent: int) -> dict:
    """Win rate, mean placing by reward rank and mean reward of one agent, per-deal 95% intervals."""
    deal, seat_agent, reward, trunc = _arrays(rows)
    mine = seat_agent == agent
    wins = _wins(reward, trunc)
    rank = T.reward_ranks(reward)
    out = {}
    for key, val in (("win_rate", wins), ("rank", rank), ("reward", reward)):
        s, w = by_deal(deal[:, None].repeat(mine.shape[1], 1)[mine], val[mine].astype(float))
        m, lo, hi = mean_ci(s / w)
        if key == "win_rate":  # a rate: the normal interval clipped to [0, 1]
            lo, hi = max(lo, 0.0), min(hi, 1.0)
        out.update({key: m, f"{key}_lo": lo, f"{key}_hi": hi})
    out["seats"] = int(mine.sum())
    return out


def per_deal_reward(rows: dict, agent: int) -> tuple[np.ndarray, np.ndarray]:
    """(deals, mean reward of ``agent`` per deal), deals sorted."""
    deal, seat_agent, reward, _ = _arrays(rows)
    mine = seat_agent == agent
    d = deal[:, None].repeat(mine.shape[1], 1)[mine]
    keys = np.unique(d)
    s, w = by_deal(d, reward[mine])
    return keys, s / w


def seat_win_rates(rows: dict) -> list[dict]:
    """Win rate of each seat (a field of copies: what the seat alone is worth), with per-deal intervals."""
    deal, _, reward, trunc = _arrays(rows)
    wins = _wins(reward, trunc).astype(float)
    out = []
    for s in range(wins.shape[1]):
        ps, pw = by_deal(deal, wins[:, s])
        m, lo, hi = mean_ci(ps / pw)
        lo, hi = max(lo, 0.0), min(hi, 1.0)  # a rate: the normal interval clipped to [0, 1]
        out.append({"seat": s, "win_rate": m, "win_lo": lo, "win_hi": hi})
    return out


def relative_skill(beginner: float, best: float, fictive: float) -> dict:
    """Dreef, Borm and van der Genugten (2004): RS = LE / (LE + RE), with the learning effect LE = best - beginner
    and the random effect RE = fictive - best, in expected reward. NaN when LE + RE = 0."""
    le, re = best - beginner, fictive - best
    return {"learning_effect": le, "random_effect": re,
            "relative_skill": le / (le + re) if le + re != 0 else math.nan}


def relative_skill_from_rows(runs: dict[str, dict], beginner: str, real: list[str], fictive: str,
                             bootstrap: int = 2000, seed: int = 0, split: bool = True,
                             ceiling: float | None = None) -> dict:
    """Relative skill from one-seat tournaments: ``runs[name]`` holds the game rows of ``name`` (agent 0) in a
    fixed field. Deals are shared by every run (same seed), so the bootstrap resamples deals jointly.

    ``split`` (the default): the best real player is chosen on the even-numbered deals (by mean reward) and the
    measure is taken on the odd-numbered ones, with the choice held fixed in every resample, so the best player is
    not picked after the fact from the data that measures it (picking the maximum of noisy means biases the
    learning effect up). ``split=False``: choose and measure on every deal, the best chosen again in every
    resample (the method of the first report).

    ``ceiling``: no fictive player's run; its mean reward is this constant, the game's best payoff, which no
    player can beat. The random effect is then as large as it can be, and the relative skill a lower bound on the
    one any fictive player would give (``fictive`` only names it)."""
    names = list(dict.fromkeys([beginner, *real, fictive]))
    per = {}
    keys = None
    for name in names:
        if name == fictive and ceiling is not None:
            continue
        k, v = per_deal_reward(runs[name], 0)
        if keys is None:
            keys = k
        if not np.array_equal(k, keys):
            raise ValueError("the runs must share their deals (the same seed and number of deals)")
        per[name] = v
    if ceiling is not None:
        per[fictive] = np.full(len(keys), float(ceiling))
    reals = [r for r in names if r != fictive]
    choose = np.flatnonzero(keys % 2 == 0) if split else np.arange(len(keys))
    use = np.flatnonzero(keys % 2 == 1) if split else np.arange(len(keys))
    if split and (len(choose) == 0 or len(use) == 0):
        raise ValueError("a split relative skill needs at least two deals")

    def best_on(idx):
        return max(reals, key=lambda n: per[n][idx].mean())

    fixed = best_on(choose) if split else None

    def measure(idx):
        best = fixed if split else best_on(idx)
        means = {n: per[n][idx].mean() for n in names}
        return relative_skill(means[beginner], means[best], means[fictive]), best

    point, best = measure(use)
    rng = np.random.default_rng(seed)
    draws = np.array([measure(use[rng.integers(0, len(use), len(use))])[0]["relative_skill"]
                      for _ in range(bootstrap)])
    draws = draws[np.isfinite(draws)]
    lo, hi = (np.percentile(draws, [2.5, 97.5]) if len(draws) else (math.nan, math.nan))
    out = {**point, "rs_lo": float(lo), "rs_hi": float(hi), "best": best, "beginner": beginner, "fictive": fictive,
           "means": {n: float(per[n][use].mean()) for n in names}, "deals": len(use),
           "chosen_on": len(choose), "split": split}
    out["note"] = outside_note(out)
    return out


def outside_note(rs: dict) -> str:
    """Why a relative-skill interval leaves [0, 1] ("" when it does not): the measure is LE / (LE + RE), so it
    leaves [0, 1] when the random effect (fictive - best) or the learning effect (best - beginner) is negative."""
    lo, hi = rs["rs_lo"], rs["rs_hi"]
    if not (math.isfinite(lo) and math.isfinite(hi)) or (lo >= 0 and hi <= 1):
        return ""
    why = []
    if hi > 1:
        why.append(f"the random effect can be negative (fictive {rs['fictive']} {rs['means'][rs['fictive']]:+.3f} "
                   f"against best {rs['best']} {rs['means'][rs['best']]:+.3f}): the fictive player is no upper "
                   "bound "
                   "within the noise, so its budget or its model of the field falls short")
    if lo < 0:
        why.append(f"the learning effect can be negative (best {rs['best']} against beginner {rs['beginner']} "
                   f"{rs['means'][rs['beginner']]:+.3f}): on the measured deals the chosen player is not clearly "
                   "better than the beginner")
    return "; ".join(why)


def with_budget(spec: str, budget: int) -> str:
    """``spec`` with its ``budget`` option set (``oracle:opponents=random`` ->
    ``oracle:opponents=random+budget=256``)."""
    _name, options = T.parse_agent(spec)
    label = spec.partition(":")[0]
    options["budget"] = int(budget)
    return label + ":" + "+".join(f"{k}={v}" for k, v in options.items())


def spec_budget(spec: str, ruleset: str = "core") -> int:
    """The ``budget`` a search-type spec names, else its agent's default for ``ruleset``."""
    name, options = T.parse_agent(spec)
    if "budget" in options:
        return int(options["budget"])
    return int(inspect.signature(agents_pkg.agent_class(name, ruleset).__init__).parameters["budget"].default)


def certified(random_effects: list[float], tol: float) -> bool:
    """The doubling has converged: the last doubling moved the random effect by less than ``tol``."""
    return len(random_effects) >= 2 and abs(random_effects[-1] - random_effects[-2]) < tol


def seat_effects(rows: dict) -> dict:
    """Seat advantage in a field of copies: each seat's mean reward minus the table's mean reward per game, per
    deal, with 95% intervals over deals, and a Wald chi-square test of "no seat advantage" (every seat's excess is
    0, N - 1 degrees of freedom, the per-deal covariance of the excesses)."""
    deal, _, reward, _ = _arrays(rows)
    excess = reward - reward.mean(axis=1, keepdims=True)
    keys = np.unique(deal)
    # (deals, seats)
    per = np.stack([np.divide(*by_deal(deal, excess[:, j])) for j in range(excess.shape[1])], axis=1)
    seats = []
    for j in range(per.shape[1]):
        m, lo, hi = mean_ci(per[:, j])
        seats.append({"seat": j, "excess": m, "lo": lo, "hi": hi})
    x = per[:, 1:]  # the excesses sum to 0 over seats: drop one
    k = x.shape[1]
    if len(keys) > k + 1:
        mean = x.mean(axis=0)
        cov = np.cov(x, rowvar=False).reshape(k, k) / len(keys)
        stat = float(mean @ np.linalg.pinv(cov) @ mean)
        p = chi2_sf(stat, k)
    else:
        stat, p = math.nan, math.nan
    half = max((s["hi"] - s["lo"]) / 2 for s in seats)
    return {"seats": seats, "chi2": stat, "dof": k, "p_value": p, "half_width": half, "deals": len(keys)}


def pair_scores(rows: dict, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Per game where both sit: 1 if agent a ranks ahead of b, 1/2 tied, 0 behind; and the game's deal."""
    deal, seat_agent, reward, _ = _arrays(rows)
    rank = T.reward_ranks(reward)
    scores, deals = [], []
    for g in range(len(deal)):
        for i in np.flatnonzero(seat_agent[g] == a):
            for j in np.flatnonzero(seat_agent[g] == b):
                scores.append(1.0 if rank[g, i] < rank[g, j] else 0.5 if rank[g, i] == rank[g, j] else 0.0)
                deals.append(deal[g])
    return np.asarray(scores), np.asarray(deals)


def lead_measure(rows: dict, a: int, b: int, bootstrap: int = 2000, seed: int = 0) -> dict:
    """How many independent games (fresh deals) the better of a and b needs to lead with 95% confidence, with a
    bootstrap interval over deals; and the same in the duplicate format (whole deals, all rotations)."""
    s, d = pair_scores(rows, a, b)
    keys, inv = np.unique(d, return_inverse=True)
    groups = [s[inv == k] for k in range(len(keys))]
    rng = np.random.default_rng(seed)
    boot = []
    for _ in range(bootstrap):
        pick = rng.integers(0, len(groups), len(groups))
        boot.append(games_to_lead(np.concatenate([groups[i] for i in pick])))
    lo, hi = percentiles(np.asarray(boot))
    per_deal = np.array([g.mean() for g in groups])
    rotations = len(s) / len(groups)
    dup = normal_games_to_lead(per_deal) * rotations if len(groups) > 1 else math.nan
    return {"ahead": float(s.mean()), "games": len(s), "games_to_lead": games_to_lead(s), "lo": lo, "hi": hi,
            "duplicate_games_to_lead": float(dup)}


def elo_gap(p: float, games: int) -> float:
    """The Elo difference that predicts a head-to-head score p (clipped half a game from 0 and 1)."""
    eps = 0.5 / max(games, 1)
    p = min(max(p, eps), 1 - eps)
    return 400.0 * math.log10(p / (1 - p))


def variance_components(hand: np.ndarray, agent: np.ndarray, y: np.ndarray) -> dict:
    """How much of the variance of a result comes from the hand (the cards one seat was dealt), from the agent
    playing it, and from the rest (their interaction and the play's own randomness), for a balanced two-way layout
    without replication: every hand played once by every agent.

    Variance components by the ANOVA method of moments (unbiased): with H hands, A agents and mean squares
    MS = SS / df, rest = MS_rest, hand = (MS_hand - MS_rest) / A (hands are random draws), agent =
    (SS_agent - (A - 1) MS_rest) / (H A) (the variance of the A agents' fixed effects); negative estimates are
    set to 0. Shares are components over their sum."""
    hand, agent, y = np.asarray(hand), np.asarray(agent), np.asarray(y, float)
    hands, hi = np.unique(hand, return_inverse=True)
    agents_, ai = np.unique(agent, return_inverse=True)
    h_n, a_n = len(hands), len(agents_)
    counts = np.zeros((h_n, a_n))
    np.add.at(counts, (hi, ai), 1)
    if h_n < 2 or a_n < 2 or not np.all(counts == 1):
        raise ValueError("the variance decomposition needs a balanced design: every hand played once by every "
                         "agent")
    grand = y.mean()
    hand_mean = np.bincount(hi, y) / a_n
    agent_mean = np.bincount(ai, y) / h_n
    ss_total = float(((y - grand) ** 2).sum())
    ss_hand = float(a_n * ((hand_mean - grand) ** 2).sum())
    ss_agent = float(h_n * ((agent_mean - grand) ** 2).sum())
    ss_rest = max(ss_total - ss_hand - ss_agent, 0.0)
    ms_rest = ss_rest / ((h_n - 1) * (a_n - 1))
    comp = {
        "hand": max((ss_hand / (h_n - 1) - ms_rest) / a_n, 0.0),
        "agent": max((ss_agent - (a_n - 1) * ms_rest) / (h_n * a_n), 0.0),
        "rest": ms_rest,
    }
    total = sum(comp.values())
    if total == 0:
        return {"hand": math.nan, "agent": math.nan, "rest": math.nan, "components": comp}
    return {**{k: v / total for k, v in comp.items()}, "components": comp}


def table_layout(rows: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(deal, hand, agent, reward) per seat of a duplicate tournament: hand = (deal, seat)."""
    deal, seat_agent, reward, _ = _arrays(rows)
    n = seat_agent.shape[1]
    d = np.repeat(deal, n)
    hand = d * n + np.tile(np.arange(n), len(deal))
    return d, hand, seat_agent.ravel(), reward.ravel()


def focal_layout(runs: dict[str, dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(deal, hand, agent, reward) of the focal seat of one-seat runs (``runs[name]``: ``name`` alone, as agent 0,
    in a fixed field; for the field's own name, a field of copies). In rotation j of a deal the focal agent sits in
    seat j, so across the runs every hand (deal, seat) is played once by every focal agent."""
    out = ([], [], [], [])
    for k, (name, rows) in enumerate(runs.items()):
        deal, seat_agent, reward, _ = _arrays(rows)
        n = seat_agent.shape[1]
        j = np.zeros(len(deal), int)
        for g in range(1, len(deal)):
            j[g] = j[g - 1] + 1 if deal[g] == deal[g - 1] else 0
        if j.max() >= n or not np.all(seat_agent[np.arange(len(deal)), j] == 0):
            raise ValueError(f"run {name!r} is not a one-seat run (agent 0 in seat j of rotation j)")
        out[0].append(deal)
        out[1].append(deal * n + j)
        out[2].append(np.full(len(deal), k))
        out[3].append(reward[np.arange(len(deal)), j])
    return tuple(np.concatenate(x) for x in out)


def variance_shares(layout, bootstrap: int = 0, seed: int = 0) -> dict:
    """``variance_components`` of a (deal, hand, agent, reward) layout, with percentile intervals from resampling
    deals when ``bootstrap`` > 0."""
    deal, hand, agent, y = layout
    point = variance_components(hand, agent, y)
    if bootstrap:
        keys = np.unique(deal)
        idx = [np.flatnonzero(deal == k) for k in keys]
        n_hands = int(hand.max()) + 1
        rng = np.random.default_rng(seed)
        draws = {k: [] for k in ("hand", "agent", "rest")}
        for _ in range(bootstrap):
            pick = rng.integers(0, len(keys), len(keys))
            sel = np.concatenate([idx[i] for i in pick])
            copy = np.concatenate([np.full(len(idx[i]), c) for c, i in enumerate(pick)])
            v = variance_components(hand[sel] + copy * n_hands, agent[sel], y[sel])
            for k, vals in draws.items():
                vals.append(v[k])
        for k, vals in draws.items():
            vals = np.asarray(vals)
            vals = vals[np.isfinite(vals)]
            point[f"{k}_lo"], point[f"{k}_hi"] = ((float(np.percentile(vals, 2.5)),
                                                   float(np.percentile(vals, 97.5)))
                                                  if len(vals) else (math.nan, math.nan))
    return point


def reward_lead(runs: dict[str, dict], a: str, b: str, level: float = 0.95) -> dict:
    """Games for the better of a and b to lead in total reward, each playing its own games in the same field
    (one-seat runs on the same deals). Fresh deals for each: n = (z sd(A - B) / mean(A - B))^2 with the two
    results independent, var(A - B) = var(A) + var(B). Duplicate format (both play the same deals in every
    seat, compared deal by deal): n = (z sd(per-deal difference) / mean)^2 deals, times N games each."""
    z = norm_ppf(level)
    _, _, _ag, ya = focal_layout({a: runs[a]})
    _, _, _bg, yb = focal_layout({b: runs[b]})
    ka, pa = per_deal_reward(runs[a], 0)
    kb, pb = per_deal_reward(runs[b], 0)
    if not np.array_equal(ka, kb):
        raise ValueError("the runs must share their deals")
    diff = float(ya.mean() - yb.mean())
    leader = a if diff >= 0 else b
    fresh = math.inf if diff == 0 else max(1.0, float(math.ceil((z * math.sqrt(ya.var(ddof=1) + yb.var(ddof=1))
                                                                  / abs(diff)) ** 2)))
    dd = pa - pb
    n = len(ya) / len(ka)
    dup = (math.inf if dd.mean() == 0
           else max(1.0, float(math.ceil((z * dd.std(ddof=1) / abs(dd.mean())) ** 2))) * n)
    se = math.sqrt(ya.var(ddof=1) / len(ya) + yb.var(ddof=1) / len(yb))
    return {"a": a, "b": b, "leader": leader, "reward_gap": diff, "gap_lo": diff - 1.96 * se,
            "gap_hi": diff + 1.96 * se, "games_to_lead": fresh, "duplicate_games_to_lead": float(dup)}


# ----------------------------------------------------------------------------------------------------------------
# Playing the tournaments and writing the report
# ----------------------------------------------------------------------------------------------------------------
def modelled(spec: str, field: str, ruleset: str) -> str:
    """The fictive player's spec for a table of ``field`` players: its rollouts play the other seats as the field
    does (``opponents=``), so it best-responds to the table it sits at, as the relative-skill measure assumes.
    Left as given where the spec names its own model, or the engine has none for that field (omg's search rolls
    out expert for every seat)."""
    name, options = T.parse_agent(spec)
    models = getattr(agents_pkg.agent_class(name, ruleset), "opponent_models", {})
    if "opponents" in options or field not in models or len(models) < 2:  # given, or no choice of model
        return spec
    return f"{spec}{'+' if ':' in spec else ':'}opponents={field}"


def _label(spec: str) -> str:
    return T.parse_agent(spec)[0]


def _tournament(cfg: Config, ruleset: str, agents: list[str], lineup: list[int] | None,
                progress: bool) -> dict:
    tc = T.Config(ruleset=ruleset, players=cfg.players, agents=agents, games=cfg.deals, seed=cfg.seed,
                  workers=cfg.workers, out=str(Path(cfg.out) / cfg.run_name() / "tournaments"),
                  name=None, ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule, chunk=cfg.chunk, lineup=lineup)
    summary = T.run(tc, progress=progress)
    return summary


def measure_ruleset(cfg: Config, ruleset: str, progress: bool = True) -> dict:
    n = cfg.players
    rows: dict[str, dict] = {}
    summaries: dict[str, dict] = {}

    def play(tag, agents, lineup):
        s = _tournament(cfg, ruleset, agents, lineup, progress)
        rows[tag] = s["game_rows"]
        summaries[tag] = s
        return s

    real = [a for a in cfg.agents if _available(a, ruleset)]  # omg: random and greedy only, so far
    oracle = cfg.oracle if cfg.oracle and _available(cfg.oracle, ruleset) else None
    copies_ = [a for a in cfg.copies if _available(a, ruleset)]
    if len(real) < 2 or not _available(cfg.field_agent, ruleset):
        raise ValueError(f"{ruleset}: need two real agents and the field agent available; have {real}")
    names = [*real, *([oracle] if oracle else [])]
    # fields of copies (also the field of random for random, and of the reference field for itself)
    for spec in dict.fromkeys([*copies_, "random", cfg.field_agent]):
        play(f"copies-{_label(spec)}", [spec], [0] * n)
    # one seat in a field of random agents / of the reference field; the oracle best-responds to that field
    for fld in dict.fromkeys(["random", cfg.field_agent]):
        for spec in names:
            if spec == oracle and fld not in cfg.oracle_fields:
                continue
            if _label(spec) != fld:
                seat = modelled(spec, fld, ruleset) if spec == oracle and cfg.model_field else spec
                play(f"field-{fld}-{_label(spec)}", [seat, fld], [0] + [1] * (n - 1))
    # all real agents at one table, every hand played by each (measures 3 and 4)
    play("all", list(real), None)

    def one_seat(fld, spec):
        return rows[f"copies-{fld}"] if _label(spec) == fld else rows[f"field-{fld}-{_label(spec)}"]

    baseline = luck_baseline(rows["copies-random"])
    played = set(rows)
    field_random = {_label(s): agent_stats(one_seat("random", s), 0) for s in names
                    if _label(s) == "random" or f"field-random-{_label(s)}" in played}
    field_ref = {_label(s): agent_stats(one_seat(cfg.field_agent, s), 0) for s in names
                 if _label(s) == cfg.field_agent or f"field-{cfg.field_agent}-{_label(s)}" in played}
    copies = {_label(s): {"win_rate": agent_stats(rows[f"copies-{_label(s)}"], 0),
                          "seats": seat_win_rates(rows[f"copies-{_label(s)}"])} for s in copies_}
    skill, skill_by_beginner, certification = {}, {}, {}  # no fictive player for this ruleset: no relative skill
    beginners = [b for b in cfg.beginners if b in [_label(x) for x in real]] or [_label(real[0])]
    best_payoff = float(np.max(np.asarray(rows["copies-random"]["reward"], float)))  # the game's top reward
    bound = {}
    for fld in dict.fromkeys([cfg.field_agent, "random"]):
        runs = {_label(s): one_seat(fld, s) for s in real}
        bound[fld] = {b: relative_skill_from_rows(runs, b, [_label(s) for s in real], "best payoff", cfg.bootstrap,
                                                  cfg.seed, split=cfg.split, ceiling=best_payoff)
                      for b in beginners}
    for fld in [f for f in dict.fromkeys([cfg.field_agent, "random"]) if f in cfg.oracle_fields] if oracle else ():
        runs = {_label(s): one_seat(fld, s) for s in names}
        if cfg.certify:
            runs[_label(oracle)], certification[fld] = certify_oracle(cfg, ruleset, oracle, fld, runs, real, play)
        skill_by_beginner[fld] = {
            b: relative_skill_from_rows(runs, b, [_label(s) for s in real], _label(oracle), cfg.bootstrap,
                                        cfg.seed, split=cfg.split)
            for b in beginners}
        skill[fld] = skill_by_beginner[fld][beginners[0]]
    seats = {_label(s): seat_effects(rows[f"copies-{_label(s)}"]) for s in copies_}
    capped = {tag: float(summaries[tag]["truncated_share"]) for tag in summaries}
    labels = [_label(s) for s in real]
    pairs = [(i + 1, i) for i in range(len(labels) - 1)] + ([(2, 0)] if len(labels) > 2 else [])
    lead = head_to_head(rows["all"], labels, pairs, cfg)
    spread = rating_spread(summaries["all"]["agents"], real, rows["all"])
    field_runs = {_label(sp): one_seat(cfg.field_agent, sp) for sp in real}
    var = variance_shares(focal_layout(field_runs), min(cfg.bootstrap, 500), cfg.seed)
    reward_leads = [reward_lead(field_runs, labels[a], labels[b]) for a, b in pairs]
    return {"ruleset": ruleset, "players": n, "deals": cfg.deals, "baseline": baseline, "agents": real,
            "oracle": oracle,
            "field_random": field_random, "field_reference": field_ref, "copies": copies, "relative_skill": skill,
            "lead": lead,
            "spread": spread, "variance": var, "reward_lead": reward_leads,
            "relative_skill_by_beginner": skill_by_beginner, "relative_skill_bound": bound,
            "best_payoff": best_payoff, "certification": certification, "seat_effects": seats,
            "capped": capped, "capped_max": max(capped.values()),
            "mean_length": summaries["all"]["mean_length"], "truncated_share": summaries["all"]["truncated_share"]}


def head_to_head(all_rows: dict, labels: list[str], pairs: list[tuple[int, int]], cfg: Config) -> list[dict]:
    """For each pair (a, b) of the all-agent table: how often a finished ahead of b and the games each needs to
    lead (``lead_measure``), with the leader named."""
    lead = []
    for a, b in pairs:
        m = lead_measure(all_rows, a, b, cfg.bootstrap, cfg.seed)
        lead.append({"a": labels[a], "b": labels[b], "leader": labels[a] if m["ahead"] >= 0.5 else labels[b], **m})
    return lead


def rating_spread(table_all: list[dict], real: list[str], all_rows: dict) -> dict:
    """The strongest and weakest agent of the all-agent table by rating: their mu gap (95%), how often the
    strongest finished ahead, and that share as an Elo gap; every agent's rating."""
    top = max(table_all, key=lambda r: r["mu"])
    bottom = min(table_all, key=lambda r: r["mu"])
    s_top, _ = pair_scores(all_rows, real.index(top["agent"]), real.index(bottom["agent"]))
    return {"strongest": _label(top["agent"]), "weakest": _label(bottom["agent"]),
            "mu_gap": top["mu"] - bottom["mu"],
            "mu_gap_ci": 1.96 * math.hypot(top["sigma"], bottom["sigma"]),
            "ahead": float(s_top.mean()), "elo_gap": elo_gap(float(s_top.mean()), len(s_top)),
            "ratings": {_label(r["agent"]): {"mu": r["mu"], "lo": r["mu_lo"], "hi": r["mu_hi"]}
                        for r in table_all}}


def certify_oracle(cfg: Config, ruleset: str, oracle: str, fld: str, runs: dict, real: list[str], play):
    """Double the fictive player's budget until its random effect (its mean reward minus the best real player's, in
    the field ``fld``, every deal) moves by less than ``cfg.certify_tol``, or the budget would pass
    ``cfg.max_budget``. Its rollouts play the other seats as the field does (``modelled``). Returns the game rows
    of the last budget and the record: budgets, random effects, whether it converged."""
    base = modelled(oracle, fld, ruleset)
    budget = spec_budget(base, ruleset)
    best = max((_label(s) for s in real), key=lambda n: per_deal_reward(runs[n], 0)[1].mean())
    best_mean = per_deal_reward(runs[best], 0)[1].mean()
    budgets, effects, rows_ = [], [], None
    while True:
        spec = with_budget(base, budget)
        tag = f"field-{fld}-oracle-b{budget}"
        rows_ = play(tag, [spec, fld], [0] + [1] * (cfg.players - 1))["game_rows"]
        budgets.append(budget)
        effects.append(float(per_deal_reward(rows_, 0)[1].mean() - best_mean))
        if certified(effects, cfg.certify_tol) or budget * 2 > cfg.max_budget:
            break
        budget *= 2
    return rows_, {"spec": spec, "budgets": budgets, "random_effect": effects, "best": best,
                   "certified": certified(effects, cfg.certify_tol), "tol": cfg.certify_tol}


def _available(spec: str, ruleset: str) -> bool:
    name = _label(spec)
    return name in agents_pkg.offered_agents(ruleset)


def report_markdown(report: dict) -> str:
    """The report in Markdown: the summary table, relative skill by field and beginner, then a section per
    ruleset."""
    cfg = report["config"]
    lines = [f"# Skill and luck at {cfg['players']} players", "", f"`{report['command']}`", "",
             (f"{cfg['deals']} deals per tournament, each in every seat rotation; agents "
              f"{', '.join(cfg['agents'])}; fictive player {cfg['oracle']}; reference field {cfg['field_agent']}. "
              "Intervals are 95%."), ""]
    lines += _summary_table(report)
    if any(r.get("relative_skill_bound") for r in report["rulesets"]):
        lines += _bounds_table(report)
    for r in report["rulesets"]:
        lines += _ruleset_section(r, cfg)
    return "\n".join(lines) + "\n"


_NO_SKILL = {"relative_skill": math.nan, "rs_lo": math.nan, "rs_hi": math.nan}


def _skill_text(x: dict) -> str:
    if not math.isfinite(x["relative_skill"]):
        return "n/a (no fictive player)"
    pre = "at least " if x.get("bound") else ""
    return f"{pre}{x['relative_skill']:.2f} [{x['rs_lo']:.2f}, {x['rs_hi']:.2f}]"


def _games_to_lead(r: dict, a: str, b: str) -> str:
    x = next((x for x in r["reward_lead"] if (x["a"], x["b"]) == (a, b)), None)
    if not x:
        return "n/a"
    lead_by = "" if x["leader"] == a else f" ({b} leads)"
    return f"{_n(x['games_to_lead'])} ({_n(x['duplicate_games_to_lead'])} duplicate){lead_by}"


def _summary_table(report: dict) -> list[str]:
    cfg = report["config"]
    lines = ["## Summary", "",
             (f"| ruleset | relative skill, field of {cfg['field_agent']} | relative skill, field of random | "
             "variance of a seat's reward: hand / agent / rest | games for expert to lead random | games for "
             "search to lead expert | rating spread (Elo) |"), "|---|---|---|---|---|---|---|"]
    for r in report["rulesets"]:
        rs, bound = r["relative_skill"], r.get("relative_skill_bound", {})

        def skill(fld, rs=rs, bound=bound):  # the measured relative skill, else the lower bound
            return rs.get(fld) or {**(next(iter(bound[fld].values())) if bound.get(fld) else _NO_SKILL),
                                   "bound": True}

        v = r["variance"]
        vtxt = f"{v['hand']:.2f} / {v['agent']:.2f} / {v['rest']:.2f}" if v else "n/a"
        lines.append(f"| {r['ruleset']} | {_skill_text(skill(cfg['field_agent']))} "
                     f"| {_skill_text(skill('random'))} | {vtxt} | {_games_to_lead(r, 'expert', 'random')} "
                     f"| {_games_to_lead(r, _search_label(cfg), 'expert')} "
                     f"| {r['spread']['elo_gap']:.0f} ({r['spread']['strongest']} vs {r['spread']['weakest']}) |")
    return lines


def _bounds_table(report: dict) -> list[str]:
    cfg = report["config"]
    how = ("best real player chosen on the even deals, measured on the odd ones" if cfg.get("split", False)
           else "best real player chosen and measured on every deal")
    lines = ["", (f"Relative skill by field and beginner ({how}). With the fictive player `oracle`, its budget "
                  "certified when doubling it moved the random effect by less than the tolerance; the lower bound "
                  "puts the game's best payoff in the fictive player's place (no player can score more, so no "
                  "fictive player can give less relative skill). Capped: the largest share of games at the ply "
                  "cap over the ruleset's tournaments."), "",
             ("| ruleset | field | beginner | best real | relative skill, oracle (95%) | lower bound (95%) "
              "| oracle budget | capped |"), "|---|---|---|---|---|---|---|---|"]
    for r in report["rulesets"]:
        for fld, by_b in r.get("relative_skill_bound", {}).items():
            c = r.get("certification", {}).get(fld)
            if c:
                effects = " → ".join(f"{e:+.3f}" for e in c["random_effect"])
                btxt = f"{c['budgets'][-1]} ({'certified' if c['certified'] else 'not certified'}: RE {effects})"
            else:
                btxt = "as given" if fld in r.get("relative_skill_by_beginner", {}) else "not played"
            for b, lb in by_b.items():
                x = r.get("relative_skill_by_beginner", {}).get(fld, {}).get(b)
                orc = "n/a"
                if x:
                    note = f" ({x['note']})" if x.get("note") else ""
                    orc = f"{x['relative_skill']:.2f} [{x['rs_lo']:.2f}, {x['rs_hi']:.2f}]{note}"
                lines.append(f"| {r['ruleset']} | {fld} | {b} | {lb['best']} | {orc} | {lb['relative_skill']:.2f} "
                             f"[{lb['rs_lo']:.2f}, {lb['rs_hi']:.2f}] | {btxt} "
                             f"| {r.get('capped_max', r['truncated_share']):.1%} |")
    return lines


def _ruleset_section(r: dict, cfg: dict) -> list[str]:
    """One ruleset's section: its seats, its fields of copies, relative skill, games to lead, spread, variance."""
    return [*_seat_tables(r, cfg), *_skill_table(r), *_lead_tables(r, cfg), *_spread_and_variance(r, cfg)]


def _seat_tables(r: dict, cfg: dict) -> list[str]:
    ref_field = cfg["field_agent"]
    lines = ["", f"## {r['ruleset']}", "",
             (f"Luck-only win rate (share of seats that win): {r['baseline']:.3f}. Mean length of the all-agent "
             f"games {r['mean_length']:.0f} decisions, {r['truncated_share']:.1%} truncated."), "",
             "One seat against three others, every seat of every deal (95% intervals):", "",
             (f"| agent | win rate vs random | mean rank vs random | mean reward vs random "
             f"| win rate vs {ref_field} | mean reward vs {ref_field} |"), "|---|---|---|---|---|---|"]
    for name, s in r["field_random"].items():
        f = r.get("field_reference", {}).get(name)
        ref = (f"| {f['win_rate']:.3f} [{f['win_rate_lo']:.3f}, {f['win_rate_hi']:.3f}] "
               f"| {f['reward']:+.3f} [{f['reward_lo']:+.3f}, {f['reward_hi']:+.3f}] |") if f else "| | |"
        lines.append(f"| {name} | {s['win_rate']:.3f} [{s['win_rate_lo']:.3f}, {s['win_rate_hi']:.3f}] "
                     f"| {s['rank']:.2f} [{s['rank_lo']:.2f}, {s['rank_hi']:.2f}] "
                     f"| {s['reward']:+.3f} [{s['reward_lo']:+.3f}, {s['reward_hi']:+.3f}] " + ref)
    seats = " | ".join(f"seat {i}" for i in range(r["players"]))
    lines += ["", "Fields of copies, win rate by seat (seat 0 first in the seat order):", "",
              f"| agent | {seats} |", "|---" * (r["players"] + 1) + "|"]
    for name, c in r["copies"].items():
        lines.append(f"| {name} | " + " | ".join(f"{s['win_rate']:.3f} [{s['win_lo']:.3f}, {s['win_hi']:.3f}]"
                                                  for s in c["seats"]) + " |")
    if r.get("seat_effects"):
        lines += ["", ("Seat advantage in fields of copies: each seat's mean reward minus the table's, per deal "
                  "(95% intervals), and the Wald test of no seat advantage:"), "",
                  f"| agent | {seats} | chi2 (dof) | p |", "|---" * (r["players"] + 3) + "|"]
        for name, x in r["seat_effects"].items():
            lines.append(f"| {name} | " + " | ".join(f"{t['excess']:+.3f} [{t['lo']:+.3f}, {t['hi']:+.3f}]"
                                                      for t in x["seats"])
                         + f" | {x['chi2']:.2f} ({x['dof']}) | {x['p_value']:.3f} |")
    if r.get("capped"):
        lines += ["", "Share of games that reached the ply cap, per tournament: "
                  + ", ".join(f"{k} {v:.1%}" for k, v in r["capped"].items()) + "."]
    return lines


def _skill_table(r: dict) -> list[str]:
    lines = ["", "| field | beginner | best real | fictive | learning effect | random effect | relative skill |",
             "|---|---|---|---|---|---|---|"]
    if not r["relative_skill"]:
        lines.append("| - | - | - | - | - | - | n/a: no fictive player (`oracle`) for this ruleset yet |")
    rows_rs = [(fld, x) for fld, by_b in r.get("relative_skill_by_beginner", {}).items() for x in by_b.values()]
    for fld, s in rows_rs or r["relative_skill"].items():
        m = s["means"]
        lines.append(f"| {fld} | {s['beginner']} {m[s['beginner']]:+.3f} | {s['best']} {m[s['best']]:+.3f} "
                     f"| {s['fictive']} {m[s['fictive']]:+.3f} | {s['learning_effect']:+.3f} "
                     f"| {s['random_effect']:+.3f} | {s['relative_skill']:.2f} [{s['rs_lo']:.2f}, "
                     f"{s['rs_hi']:.2f}] |")
    return lines


def _lead_tables(r: dict, cfg: dict) -> list[str]:
    lines = ["", (f"Games to lead in total reward, each agent alone in a field of {cfg['field_agent']} (95% "
             "confidence, normal approximation):"), "",
             "| A | B | reward gap A - B (95%) | leader | games, fresh deals | games, duplicate format |",
             "|---|---|---|---|---|---|"]
    for x in r["reward_lead"]:
        lines.append(f"| {x['a']} | {x['b']} | {x['reward_gap']:+.3f} [{x['gap_lo']:+.3f}, {x['gap_hi']:+.3f}] "
                     f"| {x['leader']} | {_n(x['games_to_lead'])} | {_n(x['duplicate_games_to_lead'])} |")
    table = ", ".join(r.get("agents", cfg["agents"]))
    lines += ["", (f"Head to head at the all-agent table ({table}; finishing ahead, ties half; games to lead "
              "computed exactly, interval from resampling deals):"), "",
              "| A | B | A ahead of B | leader | games to lead, fresh deals (95%) | in duplicate format |",
              "|---|---|---|---|---|---|"]
    for x in r["lead"]:
        lines.append(f"| {x['a']} | {x['b']} | {x['ahead']:.3f} ({x['games']} games) | {x['leader']} "
                     f"| {_n(x['games_to_lead'])} [{_n(x['lo'])}, {_n(x['hi'])}] "
                     f"| {_n(x['duplicate_games_to_lead'])} |")
    return lines


def _spread_and_variance(r: dict, cfg: dict) -> list[str]:
    sp = r["spread"]
    lines = ["", (f"Rating spread: {sp['strongest']} - {sp['weakest']} = {sp['mu_gap']:.1f} +- "
                  f"{sp['mu_gap_ci']:.1f} OpenSkill mu; head to head {sp['ahead']:.3f}, about "
                  f"{sp['elo_gap']:.0f} Elo.")]
    v = r["variance"]
    if v:
        lines += ["", (f"Variance of the reward of one seat against {cfg['field_agent']} "
                  f"(agents {', '.join(r.get('agents', cfg['agents']))}): hand {v['hand']:.3f} "
                  f"[{v['hand_lo']:.3f}, {v['hand_hi']:.3f}], agent {v['agent']:.3f} "
                  f"[{v['agent_lo']:.3f}, {v['agent_hi']:.3f}], rest {v['rest']:.3f} "
                  f"[{v['rest_lo']:.3f}, {v['rest_hi']:.3f}].")]
    return lines


def _search_label(cfg: dict) -> str:
    return _label(cfg["agents"][-1])


def _n(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "never"
    return "> 10^6" if x > 1e6 else f"{x:,.0f}"


def plot(report: dict, path: Path) -> None:
    """Relative skill with intervals, win rate in a field of random, games to lead and variance shares, one panel
    each, the rulesets side by side."""
    from matplotlib.figure import Figure  # no pyplot: a library must not pick (or change) the user's backend

    rs = report["rulesets"]
    names = [r["ruleset"] for r in rs]
    x = np.arange(len(rs))
    fld = report["config"]["field_agent"]
    fig = Figure(figsize=(18, 3.8))
    axes = fig.subplots(1, 4)
    ax = axes[0]
    for off, key in ((-0.15, fld), (0.15, "random")):
        vals = [r["relative_skill"].get(key) for r in rs]
        m = np.array([v["relative_skill"] if v else np.nan for v in vals])
        lo = np.array([v["rs_lo"] if v else np.nan for v in vals])
        hi = np.array([v["rs_hi"] if v else np.nan for v in vals])
        ax.errorbar(x + off, m, yerr=[m - lo, hi - m], fmt="o", capsize=3, label=f"field of {key}")
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel("relative skill LE / (LE + RE)")
    ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    ax.legend(fontsize=8)
    ax = axes[1]
    agents_ = list(dict.fromkeys(a for r in rs for a in r["field_random"]))
    nan = {"win_rate": np.nan, "win_rate_lo": np.nan, "win_rate_hi": np.nan}
    for i, a in enumerate(agents_):
        m = np.array([r["field_random"].get(a, nan)["win_rate"] for r in rs])
        lo = np.array([r["field_random"].get(a, nan)["win_rate_lo"] for r in rs])
        hi = np.array([r["field_random"].get(a, nan)["win_rate_hi"] for r in rs])
        ax.errorbar(x + (i - len(agents_) / 2) * 0.08, m, yerr=[m - lo, hi - m], fmt="o", ms=3, capsize=2, label=a)
    ax.scatter(x, [r["baseline"] for r in rs], marker="_", s=400, color="k", label="luck only")
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel("win rate, one seat vs random")
    ax.legend(fontsize=7)
    ax = axes[2]
    pairs = list(dict.fromkeys((p["a"], p["b"]) for r in rs for p in r["reward_lead"]))
    for i, (a, b) in enumerate(pairs):
        vals = [next((p for p in r["reward_lead"] if (p["a"], p["b"]) == (a, b)), None) for r in rs]
        m = np.array([v["games_to_lead"] if v else np.nan for v in vals], float)
        m[~np.isfinite(m)] = np.nan
        ax.scatter(x + (i - len(pairs) / 2) * 0.1, m, label=f"{a} vs {b}")
    ax.set_yscale("log")
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel(f"games to lead in reward (field of {fld})")
    ax.legend(fontsize=7)
    ax = axes[3]
    bottom = np.zeros(len(rs))
    for key in ("hand", "agent", "rest"):
        v = np.array([r["variance"][key] if r["variance"] else np.nan for r in rs])
        ax.bar(x, v, bottom=bottom, label=key)
        bottom += np.nan_to_num(v)
    ax.set_xticks(x, names, rotation=20)
    ax.set_ylabel(f"share of variance, one seat vs {fld}")
    ax.legend(fontsize=8)
    fig.suptitle(f"skill and luck, {report['config']['players']} players")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def run(cfg: Config, progress: bool = True, command: str = "") -> dict:
    for r in cfg.rulesets:
        shedders.make_rules(r, cfg.players)  # ValueError for an unknown ruleset or player count
    if len(cfg.agents) < 2:
        raise ValueError("agents needs at least two real players (a beginner first)")
    out_dir = Path(cfg.out) / cfg.run_name()
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    rulesets = [measure_ruleset(cfg, r, progress) for r in cfg.rulesets]
    report = {"config": asdict(cfg), "command": command or "python -m experiments.skill_luck",
              "rulesets": rulesets,
              "seconds": time.perf_counter() - t0}
    (out_dir / "report.json").write_text(json.dumps(report, indent=1, default=_finite))
    (out_dir / "report.md").write_text(report_markdown(report))
    plot(report, out_dir / "skill_luck.png")
    report["run_dir"] = str(out_dir)
    return report


def _finite(x):
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def main(argv: list[str] | None = None) -> dict:
    ap = build_parser(Config, description=__doc__, skip=("rulesets",), flags={"field_agent": "--field"})
    ap.add_argument("--ruleset", type=lambda t: T.split_agents(t), default=None,
                    help="a ruleset or a comma separated list (default: og); --all for every palace ruleset")
    ap.add_argument("--all", action="store_true", help="every palace ruleset: " + ", ".join(PALACE_RULESETS))
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.all and args.ruleset:
        ap.error("give --ruleset or --all, not both")
    rulesets = list(PALACE_RULESETS) if args.all else (args.ruleset or ["og"])
    cfg = config_from(Config, args, rulesets=rulesets, model_field=args.model_field or args.certify)
    command = "python -m experiments.skill_luck " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        report = run(cfg, progress=not args.quiet, command=command.strip())
    except ValueError as e:
        ap.error(str(e))
    except KeyboardInterrupt:
        print(f"\ninterrupted: the finished chunks of each tournament are saved under "
              f"{Path(cfg.out) / cfg.run_name()}/tournaments/; the same command continues from them",
              file=sys.stderr)
        raise SystemExit(130) from None
    print(report_markdown(report))
    print(f"wrote {report['run_dir']}/ (report.md, report.json, skill_luck.png) in {report['seconds']:.0f} s")
    return report


if __name__ == "__main__":
    main()
