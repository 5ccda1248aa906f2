"""The statistics every experiment script uses, in one place: per-deal aggregation, intervals, paired tests on
duplicate deals, win-rate intervals, bootstraps and sample sizes.

Every comparison of agents in shedders is on duplicate deals (the same cards in every seat rotation), so the unit
of independence is the deal, not the game: games of one deal share their cards. The functions here take per-deal
values, or game rows with their deal, and never treat games of one deal as independent.

- :func:`mean_ci`: a mean and its normal-theory interval over independent units (deals).
- :func:`paired_difference`: agent a against agent b on the same deals, the per-deal difference of their mean
  rewards: its mean, a Student-t interval and a two-sided p-value. This is the test a head-to-head verdict uses:
  pairing removes the deal's luck, which both agents share, and is why it needs far fewer games than comparing two
  ratings (Dreef, Borm and van der Genugten 2004 use the same pairing for their skill measures).
- :func:`wilson`: a win rate's interval (Wilson 1927), always inside [0, 1], also at 0 or n wins.
- :func:`deals_for_power`: how many duplicate deals a paired test needs to detect a difference ``delta`` at level
  ``level`` with probability ``power``: n = ((z_(1-alpha/2) + z_power) * sd / delta)^2 (the normal approximation,
  accurate once n is past 30 or so).
- :func:`bootstrap_ci`: a percentile bootstrap over deals for any statistic of per-deal values (Efron and
  Tibshirani 1993), for ratios and other statistics without a simple standard error.
- :func:`games_to_lead`, :func:`normal_games_to_lead`: how many fresh games the better agent needs to be ahead with
  95% probability (experiments/README.md, "games to lead").

Limits: intervals are for the mean over the deal distribution of the tournament's seed stream; the t interval
assumes per-deal values with finite variance (they are bounded rewards here), and the normal sample size is an
approximation that a pilot's variance estimate makes uncertain (``experiments.power`` reports that uncertainty).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

Z95 = 1.96  # the two-sided 95% normal quantile, as rounded in every interval shedders has reported


def norm_ppf(p: float) -> float:
    """The standard normal quantile."""
    return NormalDist().inv_cdf(p)


def t_ppf(p: float, df: float) -> float:
    """Student's t quantile, by the Cornish-Fisher expansion of Abramowitz and Stegun 26.7.5 (within 1e-3 of the
    exact value for df >= 4 at the usual levels; df < 1 is refused). Infinite df is the normal quantile."""
    if df < 1:
        raise ValueError(f"t_ppf needs df >= 1, got {df}")
    z = norm_ppf(p)
    if math.isinf(df):
        return z
    if df == 1:
        return math.tan(math.pi * (p - 0.5))  # Cauchy
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    v = float(df)
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom (the regularized incomplete beta function, by its
    continued fraction), for the p-values of :func:`paired_difference`."""
    if math.isinf(df):
        return 1.0 - NormalDist().cdf(t)
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return tail if t >= 0 else 1.0 - tail


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (Numerical Recipes' continued fraction, Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _betainc(b, a, 1 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-14:
            break
    return front * f / a


def chi2_sf(x: float, dof: int) -> float:
    """P(X > x) for a chi-square with ``dof`` degrees of freedom: the regularized upper incomplete gamma function
    Q(dof / 2, x / 2), by its series below a + 1 and its continued fraction (Lentz) above, as in Numerical
    Recipes. For the Wald test of "no seat advantage" (``experiments.skill_luck.seat_effects``)."""
    a, z = dof / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:  # P by its series, Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= z / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    f = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return min(1.0, f * math.exp(log_front))


def by_deal(deal: np.ndarray, values: np.ndarray,
            weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-deal sums of ``values`` (times ``weights``) and of the weights, the deals in sorted order."""
    keys, inv = np.unique(np.asarray(deal), return_inverse=True)
    values = np.asarray(values, float)
    w = np.ones_like(values, float) if weights is None else np.asarray(weights, float)
    return np.bincount(inv, values * w, len(keys)), np.bincount(inv, w, len(keys))


def mean_ci(values) -> tuple[float, float, float]:
    """(mean, low, high): the mean of independent values (per-deal values) and its normal 95% interval (NaN
    bounds for fewer than two values)."""
    x = np.asarray(values, float)
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    h = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else math.nan
    return m, m - h, m + h


def paired_difference(a, b, level: float = 0.95) -> dict:
    """Agent a against agent b on the same deals: ``a[i]``, ``b[i]`` their mean rewards on deal i. Returns the
    mean difference a - b, its Student-t interval at ``level``, the two-sided p-value of "no difference", the
    standard deviation of the per-deal differences and the number of deals."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired values need one value of each agent per deal, got shapes {a.shape} and "
                         f"{b.shape}")
    d = a - b
    n = len(d)
    mean = float(d.mean()) if n else math.nan
    if n < 2:
        return {"diff": mean, "lo": math.nan, "hi": math.nan, "p": math.nan, "sd": math.nan, "deals": n}
    sd = float(d.std(ddof=1))
    se = sd / math.sqrt(n)
    h = t_ppf(0.5 + level / 2, n - 1) * se
    if se == 0:
        p = 1.0 if mean == 0 else 0.0
    else:
        p = min(1.0, 2.0 * t_sf(abs(mean) / se, n - 1))
    return {"diff": mean, "lo": mean - h, "hi": mean + h, "p": p, "sd": sd, "deals": n}


def agent_by_deal(deal, seat_agent, reward, a: int) -> tuple[np.ndarray, np.ndarray]:
    """(the deals in sorted order, agent a's mean reward over its seats on each: every game of the deal, all its
    rotations; NaN where it did not sit), from game rows (``deal`` (G,), ``seat_agent`` (G, P), ``reward``
    (G, P))."""
    deal = np.asarray(deal)
    seat_agent, reward = np.asarray(seat_agent), np.asarray(reward, float)
    g_deal = np.repeat(deal, seat_agent.shape[1])
    who = seat_agent.ravel()
    total, count = by_deal(g_deal, np.where(who == a, reward.ravel(), 0.0), (who == a).astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.unique(deal), np.where(count > 0, total / count, np.nan)


def paired_rewards(deal, seat_agent, reward, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal where both sit, the mean reward of agent a's seats and of agent b's seats (over every game of the
    deal: all its rotations), from game rows (``deal`` (G,), ``seat_agent`` (G, P), ``reward`` (G, P))."""
    _, ma = agent_by_deal(deal, seat_agent, reward, a)
    _, mb = agent_by_deal(deal, seat_agent, reward, b)
    both = ~np.isnan(ma) & ~np.isnan(mb)
    return ma[both], mb[both]


def wilson(wins: float, n: float, level: float = 0.95) -> tuple[float, float, float]:
    """(rate, low, high): a win rate with its Wilson score interval, always within [0, 1] (NaN for n = 0);
    ``n`` may be an effective number of games (``wilson_clustered``)."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    z = norm_ppf(0.5 + level / 2)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))  # exact at 0 and n wins


def wilson_clustered(successes, clusters, level: float = 0.95) -> tuple[float, float, float]:
    """(share, low, high): a share of games (``successes``: 0/1 per game) whose games come in clusters (the
    rotations of one deal share its cards), with a Wilson interval at the effective number of games: the binomial
    variance p(1-p)/n replaced by the clusters' (the ratio estimator's linearized variance,
    sum((t_c - p m_c)^2) / n^2 over clusters of m_c games and t_c successes), n_eff = p(1-p) / that variance
    (Kish's design effect). Games of independent deals (clusters of one) give the plain Wilson interval; k
    clusters whose games all agree count as k games. Where
    the clusters show no spread (a share of 0 or 1), n_eff is the number of clusters, the cautious choice."""
    y = np.asarray(successes, float)
    keys, inv = np.unique(np.asarray(clusters), return_inverse=True)
    k, n = len(keys), len(y)
    if n == 0:
        return math.nan, math.nan, math.nan
    p = float(y.mean())
    t = np.bincount(inv, y, k)
    m = np.bincount(inv, None, k)
    var = float(np.sum((t - p * m) ** 2)) / n**2
    n_eff = p * (1 - p) / var if var > 0 and 0 < p < 1 else float(k)
    return wilson(p * n_eff, n_eff, level)


def deals_for_power(sd: float, delta: float, level: float = 0.95, power: float = 0.8) -> float:
    """Duplicate deals a paired test at ``level`` (two-sided) needs to find a true difference ``delta`` with
    probability ``power``, when per-deal differences have standard deviation ``sd`` (inf when delta is 0)."""
    if delta == 0:
        return math.inf
    z = norm_ppf(0.5 + level / 2) + norm_ppf(power)
    return max(2.0, float(math.ceil((z * sd / abs(delta)) ** 2)))


def bootstrap_ci(per_deal, statistic, resamples: int = 2000, seed: int = 0, level: float = 0.95) -> tuple:
    """A percentile bootstrap interval of ``statistic(values)`` over deals: ``per_deal`` is an array whose first
    axis is the deal (several columns resample together). Returns (estimate, low, high)."""
    x = np.asarray(per_deal)
    rng = np.random.default_rng(seed)
    est = statistic(x)
    draws = np.array([statistic(x[rng.integers(0, len(x), len(x))]) for _ in range(resamples)], float)
    lo, hi = percentiles(draws, level)
    return est, lo, hi


def percentiles(x: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The (1 - level)/2 and (1 + level)/2 percentiles of values that may be infinite ("never")."""
    big = 1e18
    q = [50 * (1 - level), 50 * (1 + level)]
    lo, hi = np.percentile(np.where(np.isfinite(x), x, big), q)
    return tuple(math.inf if v >= big / 10 else float(v) for v in (lo, hi))


def games_to_lead(scores: np.ndarray, level: float = 0.95, exact_up_to: int = 3000) -> float:
    """The fewest independent games after which the better of two agents is ahead with probability ``level``
    (a tie in the total counts half), for per-game scores 1 (ahead), 1/2 (tied), 0 (behind) drawn as observed.

    Computed exactly by convolving the per-game distribution (+1, 0, -1) n times; beyond ``exact_up_to`` games,
    by the normal approximation n = (z * sd / mean)^2 of the centred scores, which is accurate there. inf when
    the two are even; 1 when one always wins."""
    s = np.asarray(scores, float)
    if not np.all(np.isin(s, (0.0, 0.5, 1.0))):
        raise ValueError("scores must be 1 (ahead), 0.5 (tied) or 0 (behind)")
    pa, pb = float(np.mean(s == 1.0)), float(np.mean(s == 0.0))
    if pa < pb:
        pa, pb = pb, pa
    pt = 1.0 - pa - pb
    if pa == pb:
        return math.inf
    if pa == 1.0:
        return 1.0
    d = s - 0.5
    z = float(norm_ppf(level))
    approx = (z * float(d.std(ddof=1)) / abs(float(d.mean()))) ** 2
    if approx > exact_up_to:
        return float(math.ceil(approx))
    dist = np.array([1.0])  # distribution of (games ahead - games behind), from -n to n
    for n in range(1, exact_up_to + 1):
        new = np.zeros(len(dist) + 2)
        new[2:] += pa * dist
        new[1:-1] += pt * dist
        new[:-2] += pb * dist
        dist = new
        if dist[n + 1:].sum() + 0.5 * dist[n] >= level:
            return float(n)
    return float(math.ceil(approx))


def normal_games_to_lead(values: np.ndarray, level: float = 0.95) -> float:
    """The normal approximation n = (z * sd / mean)^2 for per-unit scores in [0, 1] centred on 1/2 (used for
    whole duplicate deals, whose score is the mean over their rotations)."""
    d = np.asarray(values, float) - 0.5
    mu = abs(float(d.mean()))
    if mu == 0:
        return math.inf
    sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
    return max(1.0, float(math.ceil((norm_ppf(level) * sd / mu) ** 2)))
