"""The skill-versus-luck measures, on the game rows of duplicate tournaments (``experiments.tournament``): the
luck-only baseline, win rates and placings, relative skill with its lower bound, games to lead, rating spread and
the variance shares. Pure functions of the rows: ``experiments.skill_luck`` plays the tournaments and
``experiments.skill_report`` writes the report. Methods, formulas and references: ``experiments/README.md``."""

from __future__ import annotations

import math

import numpy as np

from experiments import tournament as T
from experiments.stats import (
    by_deal,
    chi2_sf,
    games_to_lead,
    mean_ci,
    norm_ppf,
    normal_games_to_lead,
    paired_difference,
    percentiles,
    wilson_clustered,
)


def spec_label(spec: str) -> str:
    """An agent spec's name (``"search:budget=64"`` -> ``"search"``), as the tables and reports label it."""
    return T.parse_agent(spec)[0]


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
    seat_deal = deal[:, None].repeat(mine.shape[1], 1)[mine]
    for key, val in (("win_rate", wins), ("rank", rank), ("reward", reward)):
        if key == "win_rate":  # a share: Wilson, clustered by deal (the rotations of a deal share its cards)
            m, lo, hi = wilson_clustered(val[mine].astype(float), seat_deal)
        else:
            s, w = by_deal(seat_deal, val[mine].astype(float))
            m, lo, hi = mean_ci(s / w)
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
        m, lo, hi = wilson_clustered(wins[:, s], deal)  # a share: Wilson, clustered by deal
        out.append({"seat": s, "win_rate": m, "win_lo": lo, "win_hi": hi})
    return out


def relative_skill(beginner: float, best: float, fictive: float) -> dict:
    """Dreef, Borm and van der Genugten (2004): RS = LE / (LE + RE), with the learning effect LE = best - beginner
    and the random effect RE = fictive - best, in expected reward. NaN when LE + RE = 0."""
    le, re = best - beginner, fictive - best
    return {"learning_effect": le, "random_effect": re,
            "relative_skill": le / (le + re) if le + re != 0 else math.nan}


def learning_tiers(runs: dict[str, dict], beginner: str, real: list[str], split: bool = True) -> list[dict]:
    """The learning effect each real player shows over ``beginner`` (its mean reward minus the beginner's, each
    alone in the same field, paired by deal), strongest last, on the deals relative skill is measured on (the odd
    ones with ``split``). Read down the list: where the effect stops rising with the players' strength, the table
    has found the skill there is; where it still rises, a stronger player would show more."""
    keys, base = per_deal_reward(runs[beginner], 0)
    use = np.flatnonzero(keys % 2 == 1) if split else np.arange(len(keys))
    out = []
    for name in real:
        if name == beginner:
            continue
        k, v = per_deal_reward(runs[name], 0)
        if not np.array_equal(k, keys):
            raise ValueError("the runs must share their deals (the same seed and number of deals)")
        d = paired_difference(v[use], base[use])
        out.append({"player": name, "learning_effect": d["diff"], "lo": d["lo"], "hi": d["hi"],
                    "deals": d["deals"]})
    return sorted(out, key=lambda x: x["learning_effect"])


def relative_skill_from_rows(runs: dict[str, dict], beginner: str, real: list[str], fictive: str,
                             bootstrap: int = 2000, seed: int = 0, split: bool = True,
                             ceiling: float | None = None) -> dict:
    """Relative skill from one-seat tournaments: ``runs[name]`` holds the game rows of ``name`` (agent 0) in a
    fixed field. Deals are shared by every run (same seed), so the bootstrap resamples deals jointly.

    ``split`` (the default): the best real player is chosen on the even-numbered deals (by mean reward) and the
    measure is taken on the odd-numbered ones, so the best player is not picked after the fact from the data that
    measures it (picking the maximum of noisy means biases the learning effect up). The bootstrap resamples both
    halves and chooses again on each resampled even half, so the interval carries the uncertainty of the choice
    too: with the choice held fixed (the first split reports), two real players who tie gave a zero-width interval
    around whichever the even deals happened to favour. ``best_share`` is how often each real player was the
    choice over the resamples. ``split=False``: choose and measure on every deal, the best chosen again in every
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

    def measure_on(pick, idx):
        best = best_on(pick) if split else best_on(idx)
        means = {n: per[n][idx].mean() for n in names}
        return relative_skill(means[beginner], means[best], means[fictive]), best

    point, best = measure(use)
    rng = np.random.default_rng(seed)
    draws, chosen = [], []
    for _ in range(bootstrap):
        pick = choose[rng.integers(0, len(choose), len(choose))]
        idx = use[rng.integers(0, len(use), len(use))]
        rs, who = measure_on(pick, idx)
        draws.append(rs["relative_skill"])
        chosen.append(who)
    draws = np.array(draws)
    draws = draws[np.isfinite(draws)]
    lo, hi = (np.percentile(draws, [2.5, 97.5]) if len(draws) else (math.nan, math.nan))
    out = {**point, "rs_lo": float(lo), "rs_hi": float(hi), "best": best, "beginner": beginner, "fictive": fictive,
           "means": {n: float(per[n][use].mean()) for n in names}, "deals": len(use),
           "chosen_on": len(choose), "split": split,
           "best_share": {n: chosen.count(n) / max(len(chosen), 1) for n in reals if n in chosen}}
    out["note"] = outside_note(out)
    return out


def _signed(x: float) -> str:
    """A mean reward to three decimals with its sign; float noise around zero prints as +0.000, never -0.000."""
    return f"{round(x, 3) + 0.0:+.3f}"


def outside_note(rs: dict) -> str:
    """Why a relative-skill interval leaves [0, 1] ("" when it does not): the measure is LE / (LE + RE), so it
    leaves [0, 1] when the random effect (fictive - best) or the learning effect (best - beginner) is negative. An
    effect whose point estimate is negative is named as such (a negative random effect alone also takes the
    measure below 0, once it outweighs the learning effect); where both points are non-negative, the side the
    interval leaves on names the effect that can be negative within the noise."""
    lo, hi = rs["rs_lo"], rs["rs_hi"]
    eps = 1e-9  # float noise: a resample whose best player is the beginner gives 0 as -4e-16
    if not (math.isfinite(lo) and math.isfinite(hi)) or (lo >= -eps and hi <= 1 + eps):
        return ""
    means = rs["means"]
    le = means[rs["best"]] - means[rs["beginner"]]
    re = means[rs["fictive"]] - means[rs["best"]]
    m = {k: _signed(v) for k, v in means.items()}
    who = "the fictive network" if rs["fictive"] == "fictive" else f"fictive {rs['fictive']}"
    why = []
    if re < -eps or (le >= -eps and hi > 1 + eps):
        verb, noise = ("is", "") if re < -eps else ("can be", " within the noise")
        why.append(f"the random effect {verb} negative ({who} {m[rs['fictive']]} against best {rs['best']} "
                   f"{m[rs['best']]}): the fictive player is no upper bound{noise}, so its budget or its model of "
                   "the field falls short")
    if le < -eps or (re >= -eps and lo < -eps):
        verb = "is" if le < -eps else "can be"
        why.append(f"the learning effect {verb} negative (best {rs['best']} {m[rs['best']]} against beginner "
                   f"{rs['beginner']} {m[rs['beginner']]}): on the measured deals the chosen player is not "
                   "clearly better than the beginner")
    return "; ".join(why)


def certified(random_effects: list[float], tol: float) -> bool:
    """The first report's stopping rule, kept for reading old reports: the last doubling moved the random effect's
    point estimate by less than ``tol``. It stops on noise (the effect swings by more than ``tol`` between budgets
    on a few hundred deals), which pushes relative skill up; ``plateaued`` replaced it."""
    return len(random_effects) >= 2 and abs(random_effects[-1] - random_effects[-2]) < tol


def budget_gain(before, after, level: float = 0.95) -> dict:
    """What a doubling of the fictive player's budget bought, on the same deals: the paired difference of its
    per-deal mean rewards (``after`` minus ``before``, one value per deal each), with its t interval."""
    return paired_difference(after, before, level)


def plateaued(gain: dict, tol: float) -> bool:
    """The doubling is shown to add less than ``tol``: the upper end of the paired interval of its gain is below
    ``tol``. A gain the noise hides is no plateau: a wide interval keeps doubling (and at the budget cap the
    fictive player is reported as not certified)."""
    return math.isfinite(gain["hi"]) and gain["hi"] < tol


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
    if not len(s):  # more agents than seats: on few deals two of them may never share a table
        return {"ahead": math.nan, "games": 0, "games_to_lead": math.nan, "lo": math.nan, "hi": math.nan,
                "duplicate_games_to_lead": math.nan}
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


def _lead_counts(ya, yb, pa, pb, n: float, z: float, sign: float) -> tuple[float, float]:
    """(fresh, duplicate) games for the side ``sign`` names (+1: a, -1: b) to lead; inf where it does not lead."""
    diff = float(ya.mean() - yb.mean())
    fresh = (math.inf if diff * sign <= 0
             else max(1.0, float(math.ceil((z * math.sqrt(ya.var(ddof=1) + yb.var(ddof=1)) / abs(diff)) ** 2))))
    dd = pa - pb
    dup = (math.inf if float(dd.mean()) * sign <= 0
           else max(1.0, float(math.ceil((z * dd.std(ddof=1) / abs(dd.mean())) ** 2))) * n)
    return fresh, float(dup)


def reward_lead(runs: dict[str, dict], a: str, b: str, level: float = 0.95, bootstrap: int = 1000,
                seed: int = 0) -> dict:
    """Games for the better of a and b to lead in total reward, each playing its own games in the same field
    (one-seat runs on the same deals). Fresh deals for each: n = (z sd(A - B) / mean(A - B))^2 with the two
    results independent, var(A - B) = var(A) + var(B). Duplicate format (both play the same deals in every
    seat, compared deal by deal): n = (z sd(per-deal difference) / mean)^2 deals, times N games each.

    Each count has a percentile interval from resampling deals (``bootstrap`` times), the leader held to the one
    the whole sample names: a resample in which the other side leads counts as never (inf), so a leader the deals
    cannot tell apart shows an interval reaching "never" instead of a count that flips sign between seeds."""
    z = norm_ppf(level)
    da, _, _ag, ya = focal_layout({a: runs[a]})
    db, _, _bg, yb = focal_layout({b: runs[b]})
    ka, pa = per_deal_reward(runs[a], 0)
    kb, pb = per_deal_reward(runs[b], 0)
    if not np.array_equal(ka, kb):
        raise ValueError("the runs must share their deals")
    diff = float(ya.mean() - yb.mean())
    leader = a if diff >= 0 else b
    sign = 1.0 if diff >= 0 else -1.0
    n = len(ya) / len(ka)
    fresh, dup = _lead_counts(ya, yb, pa, pb, n, z, sign) if diff != 0 else (math.inf, math.inf)
    se = math.sqrt(ya.var(ddof=1) / len(ya) + yb.var(ddof=1) / len(yb))
    out = {"a": a, "b": b, "leader": leader, "reward_gap": diff, "gap_lo": diff - 1.96 * se,
           "gap_hi": diff + 1.96 * se, "games_to_lead": fresh, "duplicate_games_to_lead": dup}
    if bootstrap and len(ka) > 1:
        rng = np.random.default_rng(seed)
        ga = [ya[da == k] for k in ka]
        gb = [yb[db == k] for k in kb]
        draws = []
        for _ in range(bootstrap):
            pick = rng.integers(0, len(ka), len(ka))
            draws.append(_lead_counts(np.concatenate([ga[i] for i in pick]), np.concatenate([gb[i] for i in pick]),
                                      pa[pick], pb[pick], n, z, sign))
        draws = np.array(draws)
        q = [2.5, 97.5]  # order statistics, never interpolated (a count may be inf)
        out["lead_lo"], out["lead_hi"] = (float(x) for x in np.percentile(draws[:, 0], q, method="inverted_cdf"))
        out["dup_lo"], out["dup_hi"] = (float(x) for x in np.percentile(draws[:, 1], q, method="inverted_cdf"))
        out["leader_share"] = float(np.mean(np.isfinite(draws[:, 0])))  # resamples where the leader leads
    return out


# ----------------------------------------------------------------------------------------------------------------
# Playing the tournaments and writing the report
# ----------------------------------------------------------------------------------------------------------------
def head_to_head(all_rows: dict, labels: list[str], pairs: list[tuple[int, int]], bootstrap: int = 2000,
                 seed: int = 0) -> list[dict]:
    """For each pair (a, b) of the all-agent table: how often a finished ahead of b and the games each needs to
    lead (``lead_measure``), with the leader named (None for a pair that never shared a table: ``games`` 0)."""
    lead = []
    for a, b in pairs:
        m = lead_measure(all_rows, a, b, bootstrap, seed)
        leader = None if not m["games"] else labels[a] if m["ahead"] >= 0.5 else labels[b]
        lead.append({"a": labels[a], "b": labels[b], "leader": leader, **m})
    return lead


def rating_spread(table_all: list[dict], real: list[str], all_rows: dict) -> dict:
    """The strongest and weakest agent of the all-agent table by rating: their mu gap (95%), how often the
    strongest finished ahead, and that share as an Elo gap; every agent's rating."""
    top = max(table_all, key=lambda r: r["mu"])
    bottom = min(table_all, key=lambda r: r["mu"])
    s_top, _ = pair_scores(all_rows, real.index(top["agent"]), real.index(bottom["agent"]))
    ahead = float(s_top.mean()) if len(s_top) else math.nan  # nan: the two never shared a table
    return {"strongest": spec_label(top["agent"]), "weakest": spec_label(bottom["agent"]),
            "mu_gap": top["mu"] - bottom["mu"],
            "mu_gap_ci": 1.96 * math.hypot(top["sigma"], bottom["sigma"]),
            "ahead": ahead, "elo_gap": elo_gap(ahead, len(s_top)) if len(s_top) else math.nan,
            "ratings": {spec_label(r["agent"]): {"mu": r["mu"], "lo": r["mu_lo"], "hi": r["mu_hi"]}
                        for r in table_all}}
