"""``champion``: the strongest agent shipped for a ruleset, whatever its method, within a time budget per decision.

    agent = agents.make("champion", ruleset="core", num_players=4, time_budget=0.01)

Which agent that is was chosen on one set of deals (128 duplicate deals, seed 201, 2 against 2, most_cards; for
core's search, the 200 deals of seed 306) and measured on fresh ones (``experiments/RESULTS.md``, the strength table):

| table | champion | chosen because (selection deals, paired difference of mean reward a seat) |
|---|---|---|
| core (and house on core's rules) at 4 players with ``time_budget`` of at least 25 ms | ``search`` (greedy rollouts to the game's end with 20% random moves, ``eps=0.2``), as many rollouts as ``time_budget`` buys (1,024 at 25 ms) | ``search:budget=1024`` - guided: +0.167 [+0.125, +0.209] (200 deals, seed 306); then ``search:budget=1024+eps=0.2`` - ``search:budget=1024`` (search's default ``eps`` 0.1): +0.104 [+0.038, +0.171] (the first 64 of those deals; ``eps=0.3`` +0.125 [+0.009, +0.241] and ``eps=0`` -0.208 [-0.295, -0.122] on the first 32) |
| fatality at 4 players with ``time_budget`` of at least 25 ms | ``search`` with ``eps=0.2``, as core's (1,024 rollouts at 25 ms) | ``search:budget=1024+eps=0.2`` - ``champion:time_budget=0.025`` (then guided with 40 worlds): +0.078 [+0.007, +0.149] (128 deals, seed 316) |
| core (and house on core's rules) at 4 players with ``time_budget`` from 5 ms to below 25 ms (the default 10 ms) | ``search`` with rollouts cut after 12 decisions and valued by the fitted leaf (``eps=0.2+max_plies=12+leaf=value``), as many as ``time_budget`` buys (1,007 at 5 ms, 2,014 at 10 ms) | ``search:budget=1024+eps=0.2+max_plies=12+leaf=value`` - ``search:budget=256``: +0.326 [+0.255, +0.398] (48 deals, seed 306); ``max_plies=24`` with 640 rollouts +0.375 [+0.283, +0.467] (32 deals), at a little more cost |
| fatality at 4 players with ``time_budget`` from 5 ms to below 25 ms (the default 10 ms) | ``search`` with rollouts cut after 16 decisions, 30% random moves, valued by the fitted finishing-order leaf (``eps=0.3+max_plies=16+leaf=value``), as many as ``time_budget`` buys (640 at 5 ms, 1,280 at 10 ms) | ``search:budget=640+eps=0.3+max_plies=16+leaf=value`` - ``search:budget=256``: +0.379 [+0.313, +0.445] (128 deals, seed 316), the best of 9 cost-matched variants (cuts after 8 to 32 decisions, ``eps`` 0.1 to 0.4) |
| og at 4 players with ``time_budget`` of at least 10 ms (the default 10 ms) | ``search`` with rollouts cut after 12 decisions, 40% random moves, valued by the fitted leaf (``eps=0.4+max_plies=12+leaf=value``), as many as ``time_budget`` buys (1,060 at 10 ms, 2,650 at 25 ms) | ``search:budget=1060+eps=0.4+max_plies=12+leaf=value`` - ``search:budget=256``: +0.177 [+0.128, +0.226] (128 deals, seed 201), the best of 6 variants (``eps=0.3`` +0.169); ``search:budget=1024`` on the same deals +0.057 [+0.006, +0.109]; at 25 ms, ``search:budget=2650+eps=0.4+max_plies=12+leaf=value`` - ``search:budget=1024``: +0.057 [+0.006, +0.109] (128 deals, seed 201) |
| core and fatality below 5 ms; south_african at 4 players, any budget (the default 10 ms) | ``guided`` over the committed ``ppo`` network, ``worlds`` from ``time_budget`` (16 at the default), depth 16, 4 candidates | guided - ppo: core +0.089 [+0.041, +0.136], fatality +0.055 [-0.010, +0.119], south_african +0.091 [+0.034, +0.149]; in fatality ``search:budget=1024`` is level with guided (-0.023 [-0.078, +0.031] for guided, seed 316) |
| og at 4 players below 10 ms | ``ppo``, the committed checkpoint | guided - ppo -0.013 [-0.064, +0.038]: the guided search adds nothing in og, the ruleset with the most luck, at 40 times the cost |
| omg at 4 players (the shipped deck) | ``search`` without random moves in its rollouts and the fitted leaf (``eps=0.0+leaf=value``, the model of who wins of ``experiments/fit_leaf.py --ruleset omg``), as many rollouts as ``time_budget`` buys (833 at 10 ms) | ``search:budget=833+eps=0.0+leaf=value`` - ``search:budget=256``: +0.060 [+0.009, +0.111] (128 deals, seed 201; the best of 4 variants, omg's search without the leaf +0.016), then on 400 fresh deals (seed 395) +0.050 [+0.019, +0.081], where ``eps=0.0`` without the leaf had +0.003 [-0.027, +0.033] (seed 365) |
| omg at other player counts, or another deck | ``search``, as many rollouts as ``time_budget`` buys | omg's search beats ``expert`` (+0.122 [+0.075, +0.168], 200 deals, seed 11) and the committed omg ``ppo`` (+0.108 [+0.066, +0.151], seed 364) |
| the palace rulesets at other player counts, house with other toggles | ``expert`` | no checkpoint is trained for them |

``time_budget`` (seconds per decision at batch 1 on the 2-core machine this project is measured on) sets what a
search champion may spend. omg: ``int(time_budget / SECONDS_PER_ROLLOUT)`` rollouts; omg's rollout (16 decisions of
expert) was measured at 8.5 microseconds (median over a game's decisions at 1,250 rollouts) and 9.9 at the 90th
percentile; the constant allows 12, so the default budget of 10 ms buys 833 rollouts. The fitted leaf without random
moves cost 1.15 times as much on the same states (``python -m benchmarks.search_cost --ruleset omg``: 16.32 ms
against 14.21 at 833 rollouts, under load), about 9.8 microseconds a rollout, still inside the 12. core: a full greedy rollout
is dearest early in play, where the whole game is still ahead: ``search:budget=1024`` took 19 to 26 ms a decision over
the first 40 decisions after setup (``tests/test_champion.py``'s measurement, idle machine), though only 2.57 ms at
the median of a whole game's decisions (``python -m benchmarks.decision_time``: late and forced decisions are
cheap). The constant allows 24.4 microseconds (25 ms / 1,024), so a budget of 25 ms buys the 1,024 rollouts measured
ahead of ``guided``; a smaller budget keeps ``guided`` (core: the cut search, below). fatality's rollouts cost
less than core's: with ``eps=0.2``, over the first 40 decisions after setup of seeds 3 to 6 (one thread, idle machine, the two rulesets measured one
after the other), fatality's search took 24.7 ms at the median of the four games' medians where core's took 32.7
(this machine had become slower than when core's 25.0 ms was measured), so fatality takes core's constant. Core's
20% random moves (``eps=0.2``) cost little early in play (25.0 ms against 22.6 at the median of the first 40
decisions after setup of seeds 3 to 6, one thread) but lengthen the late rollouts: over whole games its 90th
percentile was 33 ms (``experiments/RESULTS.md``). (og's champion at 25 ms was this full search until the cut search
was measured ahead of it there; og's full rollouts cost less than core's: ``search:budget=1024`` took 21 to 30 ms at
the median of the first 40 decisions after setup, seeds 3 to 6, beside one other single-threaded run, where core's
took 26 to 36 ms.) core's cut search (``LEAF_SEARCH``): over the first
40 decisions after setup of core deals 3 to 6 (one thread, idle machine, the searches timed one after another on
the same states), 1,024 rollouts cut after 12 decisions took 6.94 ms at the median where the full
``search:budget=1024+eps=0.2`` took 34.15 (this machine had become slower again), so on the constants' scale (the
full search's 1,024 in 25 ms) a cut rollout costs 25 ms x 6.94 / 34.15 / 1,024 = 4.96 microseconds and 5 ms buys
1,007 (``SECONDS_PER_LEAF_ROLLOUT``). fatality's and og's the same way, ``python -m benchmarks.search_cost`` (deals
3 to 6, idle machine, each cut search beside its ruleset's full search): fatality's 1,024 rollouts cut after 16
decisions took 6.37 ms where ``search:budget=1024+eps=0.2`` took 20.21 (an earlier run with ``eps=0.2``: 5.46 and
18.33), so 5 ms buys 650 (687); the 640 that were selected were kept. og's 1,024 cut after 12 decisions took 4.81
ms where ``search:budget=1024`` took 13.89, so 10 ms buys about 1,180; the 1,060 selected were kept. The leaf
weights exist for core, fatality and og (``experiments/fit_leaf.py``); south_african has none. guided:
``int(time_budget / SECONDS_PER_WORLD)`` worlds (at most 64); a world costs about 0.25 ms at the 90th percentile of
core's decisions (16 worlds: median 3.42 ms, 90th percentile 4.03 ms, mean 2.81 ms over two games, setup and forced
moves included; ``python -m benchmarks.decision_time``), and the constant allows 0.625 ms, so the default budget
buys 16 worlds. The search's size is fixed when
the agent is built, not measured while it plays, so the same seed gives the same decisions on any machine. ``ppo``
and ``expert`` take well under a millisecond, inside any budget this option accepts (at least 1 ms).
``champion.chosen`` names the agent inside.

The constants are seconds on the machine they were measured on. Another machine, or the same one busier, runs the
same search slower or faster: ``machine_slowdown()`` times a fixed search (``reference_workload``: 4 decisions of
``search:budget=256`` on a seeded core deal) against ``REFERENCE_SECONDS``, its time on that machine, and says how
many times slower this one runs it now. ``tests/test_champion.py`` holds each champion to its budget times that
factor (at least 1). ``REFERENCE_SECONDS`` was set when this machine had become slower: the decision-time rows of
``experiments/RESULTS.md`` ran 2.57 (omg's champion) to 4.2 (``ppo``) times slower than in that table (core's
champion 3.00, ``search:budget=1024`` 3.34), and the workload took 41.4 and 42.1 ms (medians of 7); 41.4 ms / 2.57,
the smallest of those factors, gives the strictest reference: 16.1 ms.

A search champion (``search`` and ``guided``) needs the engine state, as every search does:
``champion.act(obs, mask, state=vg.state, games=rows)`` (``agents.base.act_in`` passes it, and so do the AEC
adapter, the tournaments, the terminal game and the web app); ``champion.needs_state`` says whether it does.
Without the state it refuses with a ``ValueError`` rather than play weaker.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.expert import ExpertAgent
from agents.omg_search import OmgSearchAgent
from agents.search import SearchAgent

# a search champion's rollout cost, for its budget (see the module docstring); core's and fatality's: 1,024
# rollouts in 25 ms
SECONDS_PER_ROLLOUT = {"omg": 12e-6, "core": 0.025 / 1024, "fatality": 0.025 / 1024}
#: the fewest rollouts a palace search champion takes: the size measured ahead of ``guided`` (below it, guided plays)
MIN_SEARCH_ROLLOUTS = 1024
SECONDS_PER_WORLD = 6.25e-4  # a guided champion's cost per sampled world (see the module docstring)
MAX_WORLDS = 64
GUIDED = {"depth": 16, "top_k": 4}  # the guided champion's search, apart from its worlds
MIN_TIME_BUDGET = 1e-3
DEFAULT_TIME_BUDGET = 0.01
#: the palace rulesets whose champion is the guided search (elsewhere ppo, where a checkpoint plays the table)
GUIDED_RULESETS = ("core", "fatality", "south_african")
#: the palace rulesets whose champion is ``search`` once ``time_budget`` buys it ``MIN_SEARCH_ROLLOUTS`` rollouts
SEARCH_RULESETS = ("core", "fatality")
#: a search champion's share of random moves in its rollouts, where it is not search's default (0.1)
SEARCH_EPS = {"core": 0.2, "fatality": 0.2}
#: the palace rulesets whose champion from ``MIN_LEAF_TIME`` to below the full search's budget (og: at any larger
#: budget) is ``search`` with rollouts cut at ``max_plies`` decisions and valued by the fitted leaf
#: (``leaf=value``; the weights of ``experiments/fit_leaf.py``), and its settings
LEAF_SEARCH = {"core": {"eps": 0.2, "max_plies": 12, "leaf": "value"},
               "fatality": {"eps": 0.3, "max_plies": 16, "leaf": "value"},
               "og": {"eps": 0.4, "max_plies": 12, "leaf": "value"}}
#: a cut rollout's cost on the constants' machine (``python -m benchmarks.search_cost``; the module docstring)
SECONDS_PER_LEAF_ROLLOUT = {"core": 0.005 / 1007, "fatality": 0.005 / 640, "og": 0.01 / 1060}
#: the smallest ``time_budget`` at which the cut search was measured ahead of ``search:budget=256``; below it the
#: ruleset's next champion plays
MIN_LEAF_TIME = {"core": 0.005, "fatality": 0.005, "og": 0.01}
#: omg's champion where fitted leaf weights play its table (4 players, the shipped deck): no random moves in the
#: rollouts and the fitted model of who wins at their cut (elsewhere omg's search with its defaults)
OMG_LEAF_SEARCH = {"eps": 0.0, "leaf": "value"}


def has_leaf(ruleset: str, num_players: int, **options) -> bool:
    """Whether committed leaf weights (``leaf=value``) play this omg table."""
    from agents.search import leaf_model
    from shedders.engine.search.omg_search import LEAF_FEATURES

    try:
        leaf_model(ruleset, num_players, LEAF_FEATURES, OmgSearchAgent.leaf_models, **options)
    except ValueError:
        return False
    return True


#: ``reference_workload``'s seconds on the machine the constants above describe (see the module docstring)
REFERENCE_SECONDS = 0.0161


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


def search_budget(ruleset: str, time_budget: float) -> int:
    """The rollouts a search champion of ``ruleset`` spends per decision within ``time_budget`` seconds."""
    return max(16, int(time_budget / SECONDS_PER_ROLLOUT[ruleset]))


def leaf_budget(ruleset: str, time_budget: float) -> int:
    """The cut rollouts (``LEAF_SEARCH``) a leaf-search champion of ``ruleset`` spends per decision within
    ``time_budget`` seconds."""
    return int(round(time_budget / SECONDS_PER_LEAF_ROLLOUT[ruleset], 6))


def has_checkpoint(ruleset: str, num_players: int, **options) -> bool:
    """Whether a committed ppo checkpoint plays exactly this game (``agents.ppo`` is imported on first use, as
    ``agents.make("ppo")`` does, so that ``python -m agents.ppo export`` runs that module once)."""
    from agents.ppo import default_checkpoint, same_game

    path = default_checkpoint(ruleset, num_players, **options)
    if not path.exists():
        return False
    trained = path.name.rsplit("-", 1)[0]
    return num_players == 4 and same_game(trained, ruleset, num_players, **options)


class ChampionAgent(Agent):
    name = "champion"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 time_budget: float = DEFAULT_TIME_BUDGET, **options):
        super().__init__(ruleset, num_players, seed, **options)
        if isinstance(time_budget, bool) or not isinstance(time_budget, (int, float)) or not (
                MIN_TIME_BUDGET <= time_budget <= 60):
            raise ValueError(f"time_budget must be a number of seconds in [{MIN_TIME_BUDGET}, 60], got {time_budget!r}")
        self.time_budget = float(time_budget)
        searched = self._like(SEARCH_RULESETS, ruleset, **options) if num_players == 4 else None
        if searched and search_budget(searched, time_budget) < MIN_SEARCH_ROLLOUTS:
            searched = None  # too little time for the search measured ahead of guided
        cut = self._like(tuple(LEAF_SEARCH), ruleset, **options) if num_players == 4 and not searched else None
        if cut and time_budget < MIN_LEAF_TIME[cut]:
            cut = None  # too little time for the cut search measured ahead of search:256
        search = None  # a search champion: its class, rollouts and settings
        if ruleset == "omg":
            search = (OmgSearchAgent, search_budget(ruleset, time_budget),
                      OMG_LEAF_SEARCH if has_leaf(ruleset, num_players, **options) else {})
        elif searched:
            search = (SearchAgent, search_budget(searched, time_budget),
                      {"eps": SEARCH_EPS[searched]} if searched in SEARCH_EPS else {})
        elif cut:
            search = SearchAgent, leaf_budget(cut, time_budget), LEAF_SEARCH[cut]
        if search:
            kind, budget, settings = search
            self.inner = kind(ruleset, num_players, seed=seed, budget=budget, **settings, **options)
            self.chosen = f"search:budget={self.inner.budget}" + "".join(f"+{k}={v}" for k, v in settings.items())
        elif has_checkpoint(ruleset, num_players, **options) and self._like(GUIDED_RULESETS, ruleset, **options):
            from agents.guided import GuidedSearchAgent

            worlds = guided_worlds(time_budget)
            self.inner = GuidedSearchAgent(ruleset, num_players, seed=seed, worlds=worlds, **GUIDED, **options)
            self.chosen = f"guided:worlds={worlds}"
        elif has_checkpoint(ruleset, num_players, **options):
            from agents.ppo import PPOAgent

            self.inner = PPOAgent(ruleset, num_players, seed=seed, **options)
            self.chosen = "ppo"
        else:
            self.inner = ExpertAgent(ruleset, num_players, seed=seed, **options)
            self.chosen = "expert"
        self.needs_state = getattr(self.inner, "needs_state", False)

    @staticmethod
    def _like(rulesets: tuple, ruleset: str, **options) -> str | None:
        """The ruleset of ``rulesets`` whose 4-player games this table plays (house without toggles plays core's),
        or None."""
        from agents.ppo import same_game

        return next((r for r in rulesets if same_game(r, ruleset, 4, **options)), None)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state=None, games=None) -> np.ndarray:
        if self.needs_state:
            return self.inner.act(observation, action_mask, state=state, games=games)
        return self.inner.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"ChampionAgent({self.ruleset!r}, num_players={self.num_players}, chosen={self.chosen!r})"
