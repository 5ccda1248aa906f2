"""``champion``: the strongest agent shipped for a ruleset, whatever its method, within a time budget per decision.

    agent = agents.make("champion", ruleset="core", num_players=4, time_budget=0.01)

The champion of a table is the first row of ``CHAMPIONS`` that the table meets: the ruleset whose game it plays
(house without toggles plays its base's), the player count, the least ``time_budget`` (or the fewest rollouts it
must buy) and, for some rows, committed weights that play the table (a ``ppo`` checkpoint, fitted leaf weights).
Each row was chosen on one set of deals (128 duplicate deals, seed 201, 2 against 2, most_cards; for core's search,
the 200 deals of seed 306) and measured on fresh ones (``experiments/RESULTS.md``, the strength table). The table
below is generated from ``CHAMPIONS``:

{table}

``time_budget`` is seconds per decision at batch 1 on the 2-core machine this project is measured on. A search
champion's size is fixed from it when the agent is built, never measured while it plays, so the same seed gives the
same decisions on any machine: a row's ``seconds`` is what one rollout (guided: one world, ``SECONDS_PER_WORLD``)
cost there, and ``time_budget / seconds`` of them are spent. How each constant was measured is in
``experiments/RESULTS.md`` ("The champion's time constants"). ``ppo`` and ``expert`` take well under a millisecond,
inside any budget this option accepts (at least 1 ms). ``champion.chosen`` names the agent inside.

``version`` (default {version}) says which constants a search row spends: each version divides the measured
constants of the rows that were timed again (the cut searches and omg's) by the speed-up their rollouts had gained
by then (``SPEEDUPS``, issue 47): version 2 by the first (``ROLLOUT_SPEEDUP``), version 3 by the second
(``ROLLOUT_SPEEDUP_V3``), so the same budget buys more rollouts; ``champion:version=1`` buys the counts of before,
which the benchmark protocol ``bench-v1`` pins as its opponent.

The constants are seconds on the machine they were measured on. Another machine, or the same one busier, runs the
same search slower or faster: ``machine_slowdown()`` times a fixed search (``reference_workload``: 4 decisions of
``search:budget=256`` on a seeded core deal) against ``REFERENCE_SECONDS``, its time on that machine, and says how
many times slower this one runs it now. ``tests/test_champion.py`` holds each champion to its budget times that
factor (at least 1).

A search champion (``search`` and ``guided``) needs the engine state, as every search does:
``champion.act(obs, mask, state=vg.state, games=rows)`` (``agents.base.act_in`` passes it, and so do the AEC
adapter, the tournaments, the terminal game and the web app); ``champion.needs_state`` says whether it does.
Without the state it refuses with a ``ValueError`` rather than play weaker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from agents.base import Agent
from agents.expert import ExpertAgent
from agents.omg_search import OmgSearchAgent
from agents.search import SearchAgent
from shedders.rules import lookup

MIN_TIME_BUDGET = 1e-3
DEFAULT_TIME_BUDGET = 0.01
#: the fewest rollouts a palace search champion takes: the size measured ahead of ``guided`` (below it, guided
#: plays)
MIN_SEARCH_ROLLOUTS = 1024
# a guided champion's cost per sampled world (RESULTS.md: 0.25 ms at the 90th percentile)
SECONDS_PER_WORLD = 6.25e-4
MAX_WORLDS = 64
GUIDED = {"depth": 16, "top_k": 4}  # the guided champion's search, apart from its worlds
#: each family's search agent (a ``search`` row plays the one of the table's family)
SEARCH_AGENTS = {"palace": SearchAgent, "omg": OmgSearchAgent}


def _frozen(**settings) -> Mapping:
    return MappingProxyType(settings)


@dataclass(frozen=True)
class Champion:
    """One row of the champion table.

    - ``game``: the ruleset whose game the table plays (``agents.ppo.same_game``); None: any.
    - ``players``: the player count it was chosen at; None: any.
    - ``agent``: ``"search"`` (to the game's end), ``"cut"`` (``search`` with rollouts cut at ``max_plies`` and
      valued by the fitted leaf), ``"guided"``, ``"ppo"`` or ``"expert"``.
    - ``seconds``: a search row's cost per rollout, as measured; ``spends``: whether the row's rollouts were
      timed again (issue 47), so that ``per_rollout`` divides ``seconds`` by how many times faster its game's
      rollouts have run since (``SPEEDUPS``); ``least``: the least ``time_budget`` the row takes;
      ``min_rollouts``: the fewest rollouts ``time_budget`` must buy for the row to play.
    - ``settings``: the agent's options; ``needs``: ``"checkpoint"`` or ``"leaf"``, committed weights that must
      play the table.
    - ``table``, ``champion``, ``why``: the docs (the table of the module docstring).
    """

    game: str | None
    agent: str
    table: str
    champion: str
    why: str
    players: int | None = 4
    seconds: float | None = None
    spends: bool = False
    least: float = 0.0
    min_rollouts: int = 0
    settings: Mapping = field(default_factory=_frozen)
    needs: str | None = None

    def per_rollout(self, version: int | None = None) -> float:
        """What a rollout costs the champion of ``version`` (default: this one's): version 1 played the rollouts
        as measured; from version 2 on (issue 47), a row that ``spends`` divides by its game's speed-up of the
        version (``SPEEDUPS``)."""
        return self.seconds / (SPEEDUPS[version or VERSION][self.game] if self.spends else 1.0)


#: the champion's version: 2 and 3 spend issue 47's faster rollouts (``SPEEDUPS``); ``champion:version=1`` plays
#: the sizes of before, which the benchmark protocol ``bench-v1`` pins so that its cards stay comparable. Version 3
#: against version 1 on fresh duplicate deals (``experiments/RESULTS.md``, "The champion spends the faster
#: rollouts"): stronger in core and fatality, level in og and omg
VERSION = 3

#: issue 47: rollouts per second per core at each champion's default settings, this engine over the one its
#: constant was measured on (commit c0b9684): ``python -m benchmarks.search_rate --searches champion --no-split``,
#: alternating the two engines in fresh processes, 3 runs each, the median of the 3 ratios
#: (``benchmarks/SEARCH_RATE.md``). A row's constant divided by it is what a rollout costs now, so the champion
#: spends the gain at the same budget. Measured at 4 players on the shipped decks; omg's other row (other player
#: counts and decks) takes omg's too, its rollouts being the same kernels (``search:budget=256``: 1.83x).
ROLLOUT_SPEEDUP = MappingProxyType({"core": 1.65, "fatality": 1.55, "og": 1.76, "omg": 1.89})
#: the same ratio after the second round of issue 47 (rank and card-type bitmasks, measured at 72b526e) against
#: the same engine of c0b9684: per ruleset the lower of two side-by-side measurements, ``benchmarks.search_rate
#: --searches champion:version=1 --no-split`` by hand (core 2.10, fatality 2.08, og 2.12, omg 2.19) and
#: ``python -m benchmarks.compare --against c0b9684 --search core,fatality,og,omg --no-engine --cold-rounds 0``
#: (2.01, 2.02, 2.07, 2.21), each the median of 3 alternating rounds (``benchmarks/SEARCH_RATE.md``)
ROLLOUT_SPEEDUP_V3 = MappingProxyType({"core": 2.01, "fatality": 2.02, "og": 2.07, "omg": 2.19})
#: what each version divides a timed row's constant by, per game
SPEEDUPS = MappingProxyType({1: MappingProxyType(dict.fromkeys(ROLLOUT_SPEEDUP, 1.0)), 2: ROLLOUT_SPEEDUP,
                             3: ROLLOUT_SPEEDUP_V3})
VERSIONS = tuple(SPEEDUPS)
FULL = "greedy rollouts to the game's end"
CHAMPIONS: tuple[Champion, ...] = (
    Champion("core", "search", seconds=0.025 / 1024, min_rollouts=MIN_SEARCH_ROLLOUTS, settings=_frozen(eps=0.2),
             table="core (and house on core's rules) at 4 players with ``time_budget`` of at least 25 ms",
             champion=f"``search`` ({FULL} with 20% random moves, ``eps=0.2``), as many rollouts as "
                      "``time_budget`` "
                      "buys (1,024 at 25 ms)",
             why="``search:budget=1024`` - guided: +0.167 [+0.125, +0.209] (200 deals, seed 306); then "
                 "``search:budget=1024+eps=0.2`` - ``search:budget=1024`` (search's default ``eps`` 0.1): +0.104 "
                 "[+0.038, +0.171] (the first 64 of those deals; ``eps=0.3`` +0.125 [+0.009, +0.241] and "
                 "``eps=0`` -0.208 [-0.295, -0.122] on the first 32)"),
    Champion("fatality", "search", seconds=0.025 / 1024, min_rollouts=MIN_SEARCH_ROLLOUTS,
             settings=_frozen(eps=0.2),
             table="fatality at 4 players with ``time_budget`` of at least 25 ms",
             champion="``search`` with ``eps=0.2``, as core's (1,024 rollouts at 25 ms)",
             why="``search:budget=1024+eps=0.2`` - ``champion:time_budget=0.025`` (then guided with 40 worlds): "
                 "+0.078 [+0.007, +0.149] (128 deals, seed 316)"),
    Champion("core", "cut", seconds=0.005 / 1007, spends=True, least=0.005,
             settings=_frozen(eps=0.2, max_plies=12, leaf="value"),
             table="core (and house on core's rules) at 4 players with ``time_budget`` from 5 ms to below 25 ms "
                   "(the default 10 ms)",
             champion="``search`` with rollouts cut after 12 decisions and valued by the fitted leaf "
                      "(``eps=0.2+max_plies=12+leaf=value``), as many as ``time_budget`` buys (2,024 at 5 ms, "
                      "4,048 at 10 ms; 1,007 and 2,014 before issue 47's faster rollouts)",
             why="``search:budget=1024+eps=0.2+max_plies=12+leaf=value`` - ``search:budget=256``: +0.326 [+0.255, "
                 "+0.398] (48 deals, seed 306); ``max_plies=24`` with 640 rollouts +0.375 [+0.283, +0.467] (32 "
                 "deals), at a little more cost"),
    Champion("fatality", "cut", seconds=0.005 / 640, spends=True,
             least=0.005,
             settings=_frozen(eps=0.3, max_plies=16, leaf="value"),
             table="fatality at 4 players with ``time_budget`` from 5 ms to below 25 ms (the default 10 ms)",
             champion="``search`` with rollouts cut after 16 decisions, 30% random moves, valued by the fitted "
                      "finishing-order leaf (``eps=0.3+max_plies=16+leaf=value``), as many as ``time_budget`` "
                      "buys (1,292 at 5 ms, 2,585 at 10 ms; 640 and 1,280 before issue 47's faster rollouts)",
             why="``search:budget=640+eps=0.3+max_plies=16+leaf=value`` - ``search:budget=256``: +0.379 [+0.313, "
                 "+0.445] (128 deals, seed 316), the best of 9 cost-matched variants (cuts after 8 to 32 "
                 "decisions, ``eps`` 0.1 to 0.4)"),
    Champion("og", "cut", seconds=0.01 / 1060, spends=True, least=0.01,
             settings=_frozen(eps=0.4, max_plies=12, leaf="value"),
             table="og at 4 players with ``time_budget`` of at least 10 ms (the default 10 ms)",
             champion="``search`` with rollouts cut after 12 decisions, 40% random moves, valued by the fitted "
                      "leaf (``eps=0.4+max_plies=12+leaf=value``), as many as ``time_budget`` buys (2,194 at 10 "
                      "ms, 5,485 at 25 ms; 1,060 and 2,650 before issue 47's faster rollouts)",
             why="``search:budget=1060+eps=0.4+max_plies=12+leaf=value`` - ``search:budget=256``: +0.177 [+0.128, "
                 "+0.226] (128 deals, seed 201), the best of 6 variants (``eps=0.3`` +0.169); "
                 "``search:budget=1024`` "
                 "on the same deals +0.057 [+0.006, +0.109]; at 25 ms, "
                 "``search:budget=2650+eps=0.4+max_plies=12+leaf=value`` - ``search:budget=1024``: +0.057 "
                 "[+0.006, +0.109] (128 deals, seed 201)"),
    Champion("omg", "search", players=None, seconds=12e-6, spends=True, needs="leaf",
             settings=_frozen(eps=0.0, leaf="value"),
             table="omg at 4 players (the shipped deck)",
             champion="``search`` without random moves in its rollouts and the fitted leaf "
                      "(``eps=0.0+leaf=value``, "
                      "the model of who wins of ``experiments/fit_leaf.py --ruleset omg``), as many rollouts as "
                      "``time_budget`` buys (1,825 at 10 ms; 833 before issue 47's faster rollouts)",
             why="``search:budget=833+eps=0.0+leaf=value`` - ``search:budget=256``: +0.060 [+0.009, +0.111] (128 "
                 "deals, seed 201; the best of 4 variants, omg's search without the leaf +0.016), then on 400 "
                 "fresh deals (seed 395) +0.050 [+0.019, +0.081], where ``eps=0.0`` without the leaf had +0.003 "
                 "[-0.027, +0.033] (seed 365)"),
    Champion("omg", "search", players=None, seconds=12e-6, spends=True,
             table="omg at other player counts, or another deck",
             champion="``search``, as many rollouts as ``time_budget`` buys",
             why="omg's search beats ``expert`` (+0.122 [+0.075, +0.168], 200 deals, seed 11) and the committed "
                 "omg ``ppo`` (+0.108 [+0.066, +0.151], seed 364)"),
    Champion("core", "guided", needs="checkpoint",
             table="core below 5 ms",
             champion="``guided`` over the committed ``ppo`` network, ``worlds`` from ``time_budget``, depth "
                      "16, 4 candidates",
             why="guided - ppo: +0.089 [+0.041, +0.136]"),
    Champion("fatality", "guided", needs="checkpoint",
             table="fatality below 5 ms",
             champion="``guided``, as core's",
             why="guided - ppo: +0.055 [-0.010, +0.119]; ``search:budget=1024`` is level with guided (-0.023 "
                 "[-0.078, +0.031] for guided, seed 316)"),
    Champion("south_african", "guided", needs="checkpoint",
             table="south_african at 4 players, any budget (the default 10 ms)",
             champion="``guided``, as core's (16 worlds at the default)",
             why="guided - ppo: +0.091 [+0.034, +0.149]"),
    Champion(None, "ppo", needs="checkpoint",
             table="og at 4 players below 10 ms (any table a committed checkpoint plays)",
             champion="``ppo``, the committed checkpoint",
             why="guided - ppo -0.013 [-0.064, +0.038]: the guided search adds nothing in og, the ruleset with "
                 "the most luck, at 40 times the cost"),
    Champion(None, "expert", players=None,
             table="the palace rulesets at other player counts, house with other toggles",
             champion="``expert``", why="no checkpoint is trained for them"),
)


def table_doc() -> str:
    """The champion table in Markdown, one line per row of ``CHAMPIONS``."""
    lines = ["| table | champion | chosen because (selection deals, paired difference of mean reward a seat) |",
             "|---|---|---|"]
    return "\n".join(lines + [f"| {c.table} | {c.champion} | {c.why} |" for c in CHAMPIONS])


__doc__ = __doc__.format(table=table_doc(), version=VERSION)

#: views of the table, by ruleset: a full search's and a cut search's cost per rollout, the cut searches' settings
#: and least budgets
SECONDS_PER_ROLLOUT = {c.game: c.per_rollout() for c in CHAMPIONS if c.agent == "search"}
SECONDS_PER_LEAF_ROLLOUT = {c.game: c.per_rollout() for c in CHAMPIONS if c.agent == "cut"}
LEAF_SEARCH = {c.game: dict(c.settings) for c in CHAMPIONS if c.agent == "cut"}
MIN_LEAF_TIME = {c.game: c.least for c in CHAMPIONS if c.agent == "cut"}


def has_leaf(ruleset: str, num_players: int, **options) -> bool:
    """Whether committed leaf weights (``leaf=value``) play this omg table."""
    from agents.search import leaf_model
    from shedders.engine.search.omg_search import LEAF_FEATURES

    try:
        leaf_model(ruleset, num_players, LEAF_FEATURES, OmgSearchAgent.leaf_models, **options)
    except ValueError:
        return False
    return True


#: ``reference_workload``'s seconds on the machine the constants above describe (see the module docstring): 16.1 ms
#: when it was set, times 0.525 since the search drew each world once for all the actions (issue 47: the workload
#: at the commit before and after, alternately, 3 runs each of the median of 9: 18.62 and 9.77 ms), so the
#: constants, measured before, still describe the same machine
REFERENCE_SECONDS = 0.0161 * 0.525


def reference_workload() -> float:
    """Seconds this machine takes now for 4 decisions of ``search:budget=256`` (seed 0, one thread) right after the
    setup of a seeded core deal (the setup is played by ``expert`` and not timed)."""
    import time

    import shedders
    from agents.base import act_in
    from shedders.engine.palace import layout as K

    vg = shedders.VectorGame("core", 1, 4, seed=0)
    vg.reset()
    setup = ExpertAgent("core", 4, seed=0)
    while vg.state.phase[0] == K.PH_SETUP:
        vg.step(act_in(setup, vg, np.arange(1)))
    search = SearchAgent("core", 4, seed=0, budget=256)
    search.threaded_decision = False  # one thread, as when REFERENCE_SECONDS was measured
    start = time.perf_counter()
    for _ in range(4):
        act_in(search, vg, np.arange(1))
    return time.perf_counter() - start


def machine_slowdown(repeats: int = 5) -> float:
    """How many times slower than the machine the constants describe this one runs ``reference_workload`` now
    (the median of ``repeats`` runs after one warm-up; below 1 on a faster machine)."""
    reference_workload()
    return float(np.median([reference_workload() for _ in range(repeats)])) / REFERENCE_SECONDS


def guided_worlds(time_budget: float) -> int:
    """The sampled worlds a guided champion spends per decision within ``time_budget`` seconds."""
    return max(1, min(MAX_WORLDS, int(time_budget / SECONDS_PER_WORLD)))


def _row(agent: str, ruleset: str) -> Champion:
    return next(c for c in CHAMPIONS if c.agent == agent and c.game == ruleset)


def search_budget(ruleset: str, time_budget: float, version: int | None = None) -> int:
    """The rollouts a search champion of ``ruleset`` spends per decision within ``time_budget`` seconds."""
    return rollouts(_row("search", ruleset), time_budget, version)


def leaf_budget(ruleset: str, time_budget: float, version: int | None = None) -> int:
    """The cut rollouts (``LEAF_SEARCH``) a leaf-search champion of ``ruleset`` spends per decision within
    ``time_budget`` seconds."""
    return rollouts(_row("cut", ruleset), time_budget, version)


def has_checkpoint(ruleset: str, num_players: int, **options) -> bool:
    """Whether a committed ppo checkpoint plays exactly this game (``agents.ppo`` is imported on first use, as
    ``agents.make("ppo")`` does, so that ``python -m agents.ppo export`` runs that module once)."""
    from agents.ppo import default_checkpoint, same_game

    path = default_checkpoint(ruleset, num_players, **options)
    if not path.exists():
        return False
    trained = path.name.rsplit("-", 1)[0]
    return num_players == 4 and same_game(trained, ruleset, num_players, **options)


def rollouts(row: Champion, time_budget: float, version: int | None = None) -> int:
    """The rollouts a search row spends per decision within ``time_budget`` seconds (a full search at least 16),
    for the champion of ``version`` (default: this one's)."""
    if row.agent == "cut":
        return int(round(time_budget / row.per_rollout(version), 6))
    return max(16, int(time_budget / row.per_rollout(version)))


def choose(ruleset: str, num_players: int, time_budget: float, **options) -> Champion:
    """The first row of ``CHAMPIONS`` this table meets (the last row, ``expert``, meets every table)."""
    from agents.ppo import same_game

    for row in CHAMPIONS:
        if row.players is not None and num_players != row.players:
            continue
        if row.game is not None and not same_game(row.game, ruleset, num_players, **options):
            continue
        if time_budget < row.least or (row.min_rollouts and rollouts(row, time_budget) < row.min_rollouts):
            continue
        if row.needs == "checkpoint" and not has_checkpoint(ruleset, num_players, **options):
            continue
        if row.needs == "leaf" and not has_leaf(ruleset, num_players, **options):
            continue
        return row
    raise AssertionError("the last row of CHAMPIONS takes every table")


class ChampionAgent(Agent):
    name = "champion"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 time_budget: float = DEFAULT_TIME_BUDGET, version: int = VERSION, **options):
        super().__init__(ruleset, num_players, seed, **options)
        if isinstance(time_budget, bool) or not isinstance(time_budget, (int, float)) or not (
                MIN_TIME_BUDGET <= time_budget <= 60):
            raise ValueError(f"time_budget must be a number of seconds in [{MIN_TIME_BUDGET}, 60], got "
                             f"{time_budget!r}")
        if isinstance(version, bool) or version not in VERSIONS:
            raise ValueError(f"version must be one of {VERSIONS}, got {version!r}")
        self.time_budget = float(time_budget)
        self.version = int(version)
        row = choose(ruleset, num_players, self.time_budget, **options)
        if row.agent in ("search", "cut"):
            budget = rollouts(row, self.time_budget, self.version)
            kind = SEARCH_AGENTS[lookup(ruleset).family]
            self.inner = kind(ruleset, num_players, seed=seed, budget=budget, **row.settings, **options)
            self.chosen = f"search:budget={self.inner.budget}" + "".join(
                f"+{k}={v}" for k, v in row.settings.items())
        elif row.agent == "guided":
            from agents.guided import GuidedSearchAgent

            worlds = guided_worlds(time_budget)
            self.inner = GuidedSearchAgent(ruleset, num_players, seed=seed, worlds=worlds, **GUIDED, **options)
            self.chosen = f"guided:worlds={worlds}"
        elif row.agent == "ppo":
            from agents.ppo import PPOAgent

            self.inner = PPOAgent(ruleset, num_players, seed=seed, **options)
            self.chosen = "ppo"
        else:
            self.inner = ExpertAgent(ruleset, num_players, seed=seed, **options)
            self.chosen = "expert"
        self.needs_state = getattr(self.inner, "needs_state", False)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state=None, games=None) -> np.ndarray:
        if self.needs_state:
            return self.inner.act(observation, action_mask, state=state, games=games)
        return self.inner.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"ChampionAgent({self.ruleset!r}, num_players={self.num_players}, chosen={self.chosen!r})"
