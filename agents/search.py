"""``search`` and ``oracle``: determinized Monte Carlo over the legal actions, rolled out on the batched engine.

For each decision, every legal action is tried in ``n = max(1, budget // legal)`` sampled worlds, the same worlds
for every action (common random numbers, so differences between actions are not drowned by deal noise; each world
is drawn once and played out after every action). A world
keeps everything the deciding player knows (own hand, every face-up card, the cards others are publicly known to
hold because they picked them up, the pile, what left play, sizes of every zone) and resamples the rest: the
others' unknown hand cards, every face-down card and the draw pile's order. After the action, a rollout plays the
world to its end with the ``greedy`` policy (a uniformly random legal action with probability ``eps``), in numba;
``rollout="expert"`` rolls out with ``expert``'s rules instead (``expert_choice_nb`` of
``shedders.engine.search.palace_policies``, the kernel ``agents/expert.py`` wraps), a better model of a table of
``expert``s.
The action with the highest mean reward is chosen. This is "determinized" or "perfect-information Monte Carlo"
search (Long, Sturtevant, Buro and Furtak, AAAI 2010; Cowling, Powley and Whitehouse, IEEE TCIAIG 2012 for its
information-set refinement).

``oracle`` is the same search without the resampling: its rollouts see every hidden card and the deck's order.
It stands for the fictive player who knows the chance outcomes (for skill-versus-luck measurements) and is never a
fair opponent.

Both need the engine state, not only observations:

    agent = agents.make("search", ruleset="og", num_players=4, seed=0, budget=64)
    actions = agent.act(vg.observation, vg.action_mask, state=vg.state)          # every game of a VectorGame
    actions = agent.act(obs[rows], mask[rows], state=vg.state, games=rows)       # some of them

``opponents`` sets how the other seats play in the rollouts (``greedy``, ``expert`` or ``random``; by default
the ``rollout`` policy): the model of the field. A search, or the oracle, best-responds to the field it models, so
to measure against a field of ``random`` players, ``oracle:opponents=random`` is the fictive player that knows the
cards and the field (with greedy opponents in its rollouts it best-responds to the wrong table).

``budget`` is the number of rollouts per decision (decisions with one legal action cost none); ``max_plies``
caps each rollout (default 400 decisions; an unfinished rollout scores the rewards collected so far, which keeps
south_african's Joker ping-pong between greedy players from eating the budget); ``leaf`` says how such an
unfinished
rollout is valued: ``"none"`` (the default) by those rewards, ``"cards"`` as the ``most_cards`` cap rule ends a
game (the players still in go out by the cards they hold in every zone, fewest first), ``"value"`` by a fitted
model of who loses (core-family rewards) or of the whole finishing order (fatality's rewards for every place; a
Plackett-Luce model, the seat to go out next drawn by weight, the value exact over the orders left), whichever
``agents/checkpoints/leaf-<ruleset>-<n>p.json`` holds (fitted by ``python -m experiments.fit_leaf``), which
lets a short ``max_plies`` stand for the rest of the game at a fraction of its cost (the champions of core and
fatality from 5 ms, og's from 10 ms: ``max_plies=12+leaf=value``, ``max_plies=16``, ``max_plies=12``; weights are
committed for core, fatality and og at 4 players, and omg's search has a ``leaf=value`` of its own);
``eps`` is the rollouts' share of uniformly random moves.

``select`` spreads the rollouts over the legal actions: ``"uniform"`` (the default, as above) tries each in
``budget // legal`` worlds; ``"halving"`` runs sequential halving (Karnin, Koren and Somekh, ICML 2013): the
budget is split over ``ceil(log2(legal))`` rounds, each round tries the surviving actions in new worlds (the same
ones for each) and keeps the better half, so the most rollouts go to telling the best actions apart. Its
rollouts, and so its cost, are the same ``budget``.

A lone decision (one game, as in the terminal game, the web app and the AEC adapter) spreads its rollouts over
numba's threads; a batch of games spreads the games instead. Either way the choice is the same: each rollout's
reward is summed in world order, whatever the thread count (omg's search keeps one thread per decision).

``patience`` (default 500 decisions; tables of heuristic agents average 115-203): in a game past that many
decisions ``search`` stops searching and plays its ``rollout`` policy itself (the ``greedy`` or ``expert`` agent,
seeded with the search's seed, with its ``break_cycles`` rule), as ``guided`` plays its network there. In
south_african's two-player endings the search held Joker stand-offs: every rollout ran to ``max_plies`` and the
game to the 5,000-decision cap, so a tournament of 128 games of the champion against ``search:budget=256`` did not
finish in 12 minutes. ``patience=None`` searches every decision (the ``oracle``'s default: the fictive player of
the skill-versus-luck measurements is unchanged). Games that end before ``patience`` are played exactly as before.

``prior`` lets a network choose what the search tries (the palace rulesets): ``prior=learned`` (or ``ppo``, the
table's committed networks, or a checkpoint's path) ranks each searched decision's legal actions by the network's
policy, from the decider's observation, and the search spends its whole budget on the ``top_k`` likeliest
(default 4), so each is tried in more worlds. The network costs a forward pass per batch of decisions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import numba
import numpy as np

from agents.base import Agent, check_batch
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from shedders.engine.palace import layout as K
from shedders.engine.search import palace_policies as KP
from shedders.engine.search import palace_search as KS
from shedders.envs.palace_env import observation_slices
from shedders.rules import lookup

#: where the fitted weights of ``leaf="value"`` lie: ``leaf-<ruleset>-<n>p.json`` (``python -m
#: experiments.fit_leaf``)
# rollouts per decision (16.8 million): the champion at its 60 s cap asks for up to 12.1 million
MAX_BUDGET = 1 << 24
LEAF_WEIGHTS = Path(__file__).resolve().parent / "checkpoints"


#: the models a leaf weights file may hold (its ``"model"``, ``"loser"`` when absent), and their kernel leaf codes:
#: who loses (core-family rewards) or the whole finishing order (any family's, fatality's every place)
LEAF_MODELS = {"loser": KS.LEAF_VALUE, "order": KS.LEAF_ORDER}


def leaf_model(ruleset: str, num_players: int, features: int = KS.LEAF_FEATURES, models: dict | None = None,
               **options) -> tuple[np.ndarray, str]:
    """The committed leaf weights (``leaf="value"``) for this game and the model they fit (one of ``models``, by
    default the palace engine's ``LEAF_MODELS``; ``features`` weights each): those fitted on the same ruleset and
    player count, or on rules whose engine parameters are the same (``house`` without toggles plays core's; omg's
    only on the deck they were fitted on)."""
    from agents.ppo import same_game

    models = LEAF_MODELS if models is None else models
    for path in sorted(LEAF_WEIGHTS.glob(f"leaf-*-{num_players}p.json")):
        fitted = json.loads(path.read_text())
        if fitted["num_players"] == num_players and same_game(fitted["ruleset"], ruleset, num_players, **options) \
                and (not lookup(ruleset).takes_deck or same_deck(fitted.get("deck"), **options)):
            w = np.asarray(fitted["weights"], np.float64)
            if w.shape != (features,):
                raise ValueError(f"{path.name} holds {w.size} weights, the leaf has {features} features")
            model = fitted.get("model", "loser")
            if model not in models:
                raise ValueError(f"{path.name} holds a {model!r} model; the leaf knows {', '.join(models)}")
            return w, model
    have = ", ".join(p.stem[len("leaf-"):] for p in sorted(LEAF_WEIGHTS.glob("leaf-*.json"))) or "none"
    raise ValueError(f"leaf='value' has no fitted weights for {ruleset} at {num_players} players (fitted: "
                     f"{have}); "
                     f"python -m experiments.fit_leaf --ruleset {ruleset} --players {num_players} fits them")


def same_deck(fitted: list | None, **options) -> bool:
    """Whether an omg game with ``options`` plays the deck whose table (``Deck.table()``) the weights were fitted
    on (``fitted``; absent: the shipped deck)."""
    from shedders.rules import make_rules

    deck = make_rules("omg", 2, **options).deck.table()
    return np.array_equal(deck, make_rules("omg", 2).deck.table() if fitted is None else np.asarray(fitted))


def leaf_weights(ruleset: str, num_players: int, **options) -> np.ndarray:
    """The committed leaf weights of ``leaf_model``."""
    return leaf_model(ruleset, num_players, **options)[0]


def expert_offsets(num_players: int) -> np.ndarray:
    """Where each of ``EXPERT_FIELDS`` starts in the observation: the ``off`` of ``expert_choice_nb``."""
    return KP.expert_offsets(observation_slices(num_players))


def prior_network(prior: str, ruleset: str, num_players: int, seed: int | None, **options):
    """The network agent behind ``prior=``: ``learned`` or ``ppo`` (the table's committed networks), or the path of
    a ``train_ppo`` / ``train_distill`` checkpoint; ``ValueError`` where there is none."""
    from agents.learned import LearnedAgent  # torch, imported on first use
    from agents.ppo import PPOAgent

    if prior == "learned":
        agent = LearnedAgent(ruleset, num_players, seed=seed, **options)
    elif prior == "ppo":
        agent = PPOAgent(ruleset, num_players, seed=seed, **options)
    elif Path(prior).is_file():
        agent = PPOAgent(ruleset, num_players, seed=seed, checkpoint=prior, **options)
    else:
        raise ValueError(f"prior must be learned, ppo or a checkpoint's path, got {prior!r}")
    if not agent.has_network:  # learned's expert fallback
        raise ValueError(f"prior={prior}: no network plays {ruleset} at {num_players} players "
                         f"({getattr(agent, 'chosen', '')})")
    return agent


class SearchAgent(Agent):
    name = "search"
    oracle = False
    needs_state = True

    rollouts: ClassVar[dict] = {"greedy": KP.POLICY_GREEDY, "expert": KP.POLICY_EXPERT}

    #: policies the other seats may play in the rollouts (``opponents=``): the field the search best-responds to
    opponent_models: ClassVar[dict] = {"greedy": KP.POLICY_GREEDY, "expert": KP.POLICY_EXPERT,
                                       "random": KP.POLICY_RANDOM}

    #: how the rollouts are spread over the legal actions (``select=``): evenly, or by sequential halving
    selections = ("uniform", "halving")
    #: how a rollout cut short by ``max_plies`` is valued
    leaves: ClassVar[dict] = {"none": KS.LEAF_NONE, "cards": KS.LEAF_CARDS, "value": KS.LEAF_VALUE}
    #: the features a fitted leaf weighs, and the models its weights file may name (with their kernel leaf codes)
    leaf_features = KS.LEAF_FEATURES
    leaf_models = LEAF_MODELS

    #: whether a lone decision (batch 1) spreads its rollouts over numba's threads
    threaded_decision = True
    #: whether ``prior=`` can narrow the searched actions (the palace kernels)
    takes_prior = True

    #: the agent that plays the ``rollout`` policy past ``patience`` decisions
    fallbacks: ClassVar[dict] = {"greedy": GreedyAgent, "expert": ExpertAgent}

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None, budget: int = 64,
                 eps: float = 0.1, max_plies: int = 400, rollout: str = "greedy", opponents: str | None = None,
                 patience: int | None = 500, select: str = "uniform", leaf: str = "none", prior: str | None = None,
                 top_k: int = 4, **options):
        super().__init__(ruleset, num_players, seed, **options)
        prior = None if prior is None or str(prior).lower() == "none" else str(prior)
        if prior is not None and not self.takes_prior:
            raise ValueError(f"{ruleset}'s search takes no prior (prior={prior!r}): its kernel tries every action")
        if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
            raise ValueError(f"top_k must be a positive integer (actions searched), got {top_k!r}")
        self.top_k = int(top_k)
        if select not in self.selections:
            raise ValueError(f"select must be one of {', '.join(self.selections)}, got {select!r}")
        self.select = select
        if leaf not in self.leaves:
            raise ValueError(f"leaf must be one of {', '.join(self.leaves)}, got {leaf!r}")
        self.leaf = leaf
        self._leaf_code = self.leaves[leaf]
        self._leaf_w = np.zeros(self.leaf_features)
        if leaf == "value":  # the weights file says which model they fit, so which kernel values the leaf
            self._leaf_w, model = leaf_model(ruleset, num_players, self.leaf_features, self.leaf_models, **options)
            self._leaf_code = self.leaf_models[model]
        # a spec's "none"
        patience = None if isinstance(patience, str) and patience.lower() == "none" else patience
        if patience is not None and (isinstance(patience, bool) or not isinstance(patience, (int, np.integer))
                                     or patience < 0):
            raise ValueError(f"patience must be an integer >= 0 (decisions) or None, got {patience!r}")
        self.patience = None if patience is None else int(patience)
        if rollout not in self.rollouts:
            raise ValueError(f"rollout must be one of {', '.join(self.rollouts)}, got {rollout!r}")
        self.rollout = rollout
        opponents = rollout if opponents is None else opponents
        if opponents not in self.opponent_models:
            raise ValueError(f"opponents must be one of {', '.join(self.opponent_models)}, got {opponents!r}")
        self.opponents = opponents
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or not 1 <= budget <= MAX_BUDGET:
            raise ValueError(f"budget must be an integer in 1..{MAX_BUDGET} (rollouts per decision), got "
                             f"{budget!r}")
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"eps must be in [0, 1], got {eps!r}")
        if isinstance(max_plies, bool) or not isinstance(max_plies, (int, np.integer)) or max_plies < 1:
            raise ValueError(f"max_plies must be a positive integer, got {max_plies!r}")
        self.budget = int(budget)
        self.eps_milli = round(eps * 1000)
        self.max_plies = int(max_plies)
        self.params = self.rules.to_params()
        self.fallback = (self.fallbacks[rollout](ruleset, num_players, seed, **options)
                         if self.patience is not None else None)
        self.prior = prior
        self._prior = None if prior is None else prior_network(prior, ruleset, num_players, seed, **options)
        self._cap = 0
        # one decision's rollout rewards, when its rollouts share the threads (at most the budget, or one a legal
        # action)
        self._buf = np.zeros(max(self.budget, K.N_ACTIONS), np.float64)

    def _scratch(self, b: int):
        if b > self._cap:
            self._cap = max(b, 2 * self._cap)
            c = self._cap
            # two work rows per scratch row: the rollouts' and their world's (KS.SearchScratch)
            self._work = K.alloc_state(2 * c, self.rules.num_players, self.rules.num_cards)
            self._mask = np.zeros((c, K.N_ACTIONS), np.int8)
            self._ids = np.zeros((c, K.N_ACTIONS), np.int16)
            self._mask2 = np.zeros((c, K.N_ACTIONS), np.int8)
            self._ids2 = np.zeros((c, K.N_ACTIONS), np.int16)
            self._pool = np.zeros((c, KS.pool_width(self.rules.num_cards)), np.int8)
            self._obs = np.zeros((c, K.observation_size(self.rules.num_players)), np.int8)
            self._offsets = expert_offsets(self.rules.num_players)
            self._out = np.zeros(c, np.int64)
            self._vals = np.zeros((c, K.N_ACTIONS), np.float64)
            self._sums = np.zeros((c, K.N_ACTIONS), np.float64)
            self._allow = np.zeros((c, K.N_ACTIONS), np.int8)
            self._scr = KS.SearchScratch(self._mask, self._ids, self._mask2, self._ids2, self._pool, self._obs,
                                         self._vals, self._sums, self._buf, self._allow)

    def buffers(self, rows: int = 1):
        """The work state and the scratch (``SearchScratch``) the kernels search with, for ``rows`` games at least:
        for benchmarks and tests that call the kernels themselves."""
        self._scratch(rows)
        return self._work, self._scr

    def act(self, observation, action_mask, state=None, games=None) -> np.ndarray:
        """Actions for the games ``games`` (rows of ``state``; default: all rows, one per observation)."""
        obs, mask = check_batch(observation, action_mask)
        if state is None:
            raise ValueError(f"{self.name} needs the engine state: act(observation, action_mask, state=vg.state)")
        games = self.checked_games(state, games, len(mask))
        late = (np.zeros(len(games), bool) if self.patience is None
                else np.asarray(state.plies)[games] >= self.patience)
        out = np.empty(len(games), np.int64)
        if not late.all():
            now = ~late
            allow = None if self._prior is None else self.allowed(obs[now], mask[now])
            out[now] = self._searched(state, games[now], allow)
        if late.any():  # past ``patience``: the rollout policy plays
            out[late] = self.fallback.act(obs[late], mask[late])
        return out

    def evaluate(self, state, games=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the search makes of each legal action of the games ``games`` (rows of ``state``; default all):
        ``(actions, ids, values)``. ``actions`` are the search's choices. ``ids[j, :n]`` are game j's ``n`` legal
        action ids (-1 after them). ``values[j, :n]`` are their mean rollout rewards for the player to act, over
        the ``max(1, budget // n)`` worlds each was tried in (nan after them, and in a game with one legal action,
        which is not searched). It is the batched kernel of ``act``, with the same draws from the agent's seed,
        so ``actions`` are ``act``'s (``patience`` aside: every game is searched). For distilling the search
        into a network (``experiments.train_distill``). The uniform selection only: sequential halving values
        its actions over different worlds."""
        if self.select != "uniform":
            raise ValueError(f"evaluate needs select=uniform (every action in the same worlds), not "
                             f"{self.select!r}")
        if self._prior is not None:
            raise ValueError(f"evaluate values every legal action; prior={self.prior!r} searches only some")
        games = self.checked_games(state, games, state.phase.shape[0] if games is None else len(games))
        b = len(games)
        self._scratch(max(b, numba.get_num_threads()))
        seeds = self.rng.integers(0, 2**63 - 1, size=b, dtype=np.int64).astype(np.uint64)
        out = self._out[:b]
        self._search(state, games, seeds, out)
        counts = self._mask[:b].sum(axis=1, dtype=np.int64)
        width = max(int(counts.max()), 1) if b else 1
        cols = np.arange(width)
        legal = cols < counts[:, None]
        ids = np.where(legal, self._ids[:b, :width], -1).astype(np.int64)
        n_det = np.maximum(1, self.budget // np.maximum(counts, 1))
        values = np.where(legal & (counts[:, None] > 1), self._vals[:b, :width] / n_det[:, None], np.nan)
        return out.copy(), ids, values

    def allowed(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """int8 (rows, actions): 1 on the ``top_k`` legal actions the prior network finds likeliest in each row
        (ties: the lower id), the actions the search tries."""
        p = np.where(action_mask != 0, self._prior.probabilities(observation, action_mask), -1.0)
        top = np.argsort(-p, axis=1, kind="stable")[:, :self.top_k]
        out = np.zeros(action_mask.shape, np.int8)
        np.put_along_axis(out, top, 1, axis=1)
        return out * (action_mask != 0)

    def _searched(self, state, games, allow=None) -> np.ndarray:
        """The search's actions for the checked rows ``games`` (``allow``: the prior's actions, one row each)."""
        b = len(games)
        threads = numba.get_num_threads()
        self._scratch(max(b, threads))
        if allow is not None:
            self._allow[:b] = allow
        seeds = self.rng.integers(0, 2**63 - 1, size=b, dtype=np.int64).astype(np.uint64)
        out = self._out[:b]
        if b == 1 and threads > 1 and self.threaded_decision:  # one decision: its rollouts over the threads
            self._search_one_threaded(state, int(games[0]), seeds[0], threads, out)
        else:
            self._search(state, games, seeds, out)
        return out.copy()

    @property
    def plan(self) -> KS.SearchPlan:
        """The search's settings as the kernels take them (``shedders.engine.search.palace_search.SearchPlan``)."""
        return KS.SearchPlan(self.budget, bool(self.oracle), self.select == "halving", int(self.eps_milli),
                             self.max_plies, int(self._leaf_code), self._leaf_w,
                             int(self.rollouts[self.rollout]), int(self.opponent_models[self.opponents]),
                             self._offsets, self._prior is not None)

    def _search_one_threaded(self, state, g: int, seed, threads: int, out) -> None:
        out[0] = KS.search_one_par_nb(threads, state, g, self.params, self._work, seed, self.plan, self._scr)

    state_type = K.PalaceState

    def checked_games(self, state, games, rows: int) -> np.ndarray:
        """``games`` as int64 rows of ``state``, checked: the right kind of state for this ruleset and player
        count, one row per observation, every row in range and still being played (the kernels trust all this)."""
        if not isinstance(state, self.state_type):
            raise ValueError(f"{self.name} needs the engine state of a {self.state_type.__name__} (vg.state), got "
                             f"{type(state).__name__}")
        total, n = state.phase.shape[0], state.hand.shape[1]
        if n != self.rules.num_players or state.rng.shape != (total,):
            raise ValueError(f"state holds games of {n} players; this agent plays {self.rules.num_players}")
        if games is None:
            games = np.arange(rows, dtype=np.int64)
        g = np.asarray(games)
        if g.shape != (rows,) or not np.issubdtype(g.dtype, np.integer):
            raise ValueError(f"games must name one state row per observation ({rows} integers), got {g.dtype} "
                             f"{g.shape}")
        bad = np.flatnonzero((g < 0) | (g >= total))
        if len(bad):
            raise ValueError(f"games[{int(bad[0])}] = {int(g[bad[0]])} is not a row of the state (0..{total - 1})")
        g = g.astype(np.int64)
        over = np.flatnonzero(state.phase[g] == self._over_phase)
        if len(over):
            raise ValueError(f"game {int(g[over[0]])} is over: there is no decision to search")
        return g

    _over_phase = K.PH_OVER

    def _search(self, state, games, seeds, out) -> None:
        """Run the engine's batched search kernel over ``games`` into ``out`` (one scratch row per game)."""
        KS.batch_search_nb(numba.get_num_threads(), state, games, self.params, self._work, seeds, self.plan,
                           self._scr, out)


class OracleAgent(SearchAgent):
    name = "oracle"
    oracle = True

    def __init__(self, *args, patience: int | None = None, **kwargs):  # the oracle searches every decision
        super().__init__(*args, patience=patience, **kwargs)
