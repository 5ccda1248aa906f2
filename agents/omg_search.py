"""``search`` and ``oracle`` for omg: determinized Monte Carlo over the legal decisions, on the omg engine.

The same method as the palace family's ``agents/search.py``: each legal decision is tried in ``budget // legal``
sampled worlds (the same worlds for every decision), and each world is played on with omg's ``expert`` policy (the
kernels of ``shedders.engine.search.omg_policies``; a uniformly random legal action with probability ``eps``) to
its end, or for ``max_plies`` decisions; an unfinished rollout is scored by hand sizes (a softmin over seats, 2
cards
per e-fold, on the scale of the real rewards), or with ``leaf="value"`` by a fitted model of who wins: seat q with
probability proportional to ``exp(w . f(q))``, where ``f(q)`` is the seat's hand size (and whether it is at most 1,
2
or 3 cards), its power cards by god, whether it acts now or next, whether it loses its next turn, and the cards the
seat to act holds that match the pile's top (``shedders.engine.search.omg_search.leaf_features_nb``); ``w`` is
fitted
to where the search's own rollouts end (``python -m experiments.fit_leaf --ruleset omg``, committed as
``agents/checkpoints/leaf-omg-4p.json``).

Why short rollouts: an omg game is a four-way race decided by many penalty draws, so the outcome of a full rollout
says little about one decision (measured: full greedy rollouts at 64 per decision lost to ``expert``, 0.11 win
rate against 0.39). Rolling out 16 decisions, about one round with the powers' follow-ups, and scoring the hand
sizes there trades a little bias for much less noise; with 1,024 rollouts it beats ``expert``
(``experiments/RESULTS.md``). A world keeps what the
deciding player sees (own hand, the whole face-up pile, every hand's size, the deck's size, Apollo's revealed
card while it is on top) and resamples the rest: the other hands and the deck's order.

``oracle`` skips the resampling: it sees every hand and the deck's order. It measures luck and is never a fair
opponent.

    agent = agents.make("search", ruleset="omg", num_players=4, seed=0, budget=64)
    actions = agent.act(vg.observation, vg.action_mask, state=vg.state)
"""

from __future__ import annotations

from typing import ClassVar

import numba
import numpy as np

from agents.omg_expert import OmgExpertAgent
from agents.search import SearchAgent
from shedders.engine.omg import layout as O
from shedders.engine.search import omg_search as OS


class OmgSearchAgent(SearchAgent):
    """The palace ``SearchAgent``'s interface and checks, over the omg engine's kernels and scratch."""

    def __init__(self, ruleset: str = "omg", num_players: int = 4, seed: int | None = None, budget: int = 64,
                 eps: float = 0.1, max_plies: int = 16, rollout: str = "expert", opponents: str | None = None,
                 patience: int | None = 500, **options):
        if rollout != "expert" or opponents not in (None, "expert"):
            raise ValueError(f"omg's search rolls out with expert for every seat only, got rollout={rollout!r}, "
                             f"opponents={opponents!r}")
        super().__init__(ruleset, num_players, seed, budget=budget, eps=eps, max_plies=max_plies, rollout=rollout,
                         patience=patience, **options)

        deck = self.rules.deck
        self.tables = O.make_tables(deck)
        self.cards, self.lay = self.tables.cards, self.tables.lay
        self.num_actions = int(O.action_layout(deck.num_types)["n_actions"])

    fallbacks: ClassVar[dict] = {"expert": OmgExpertAgent}
    #: the other seats' rollout policy: expert, always (no choice to model another field)
    opponent_models: ClassVar[dict] = {"expert": None}
    selections = ("uniform",)  # omg's kernel spreads its rollouts evenly
    #: a cut rollout is scored by hand sizes (``"none"``, the default), or by the fitted model of who wins
    leaves: ClassVar[dict] = {"none": OS.LEAF_HANDS, "value": OS.LEAF_FITTED}
    leaf_features = OS.LEAF_FEATURES
    leaf_models: ClassVar[dict] = {"winner": OS.LEAF_FITTED}
    threaded_decision = False  # and searches one decision on one thread
    takes_prior = False  # its kernel tries every legal action
    state_type = O.OmgState
    _over_phase = O.PH_OVER

    def _scratch(self, b: int):
        if b > self._cap:
            self._cap = c = max(b, 2 * self._cap)
            deck = self.rules.deck
            # two work rows per scratch row: the rollouts' and their world's (OS.OmgSearchScratch)
            self._work = O.alloc_state(2 * c, self.num_players, deck.num_types, deck.num_cards)
            self._mask = np.zeros((c, self.num_actions), np.int8)
            self._ids = np.zeros((c, self.num_actions), np.int16)
            self._mask2 = np.zeros((c, self.num_actions), np.int8)
            self._ids2 = np.zeros((c, self.num_actions), np.int16)
            self._cnt = np.zeros((c, deck.num_types), np.int16)
            self._feat = np.zeros((c, OS.LEAF_FEATURES), np.float64)
            self._vals = np.zeros((c, self.num_actions), np.float64)
            self._out = np.zeros(c, np.int64)

    @property
    def plan(self) -> OS.OmgSearchPlan:
        """The search's settings as the kernels take them (``shedders.engine.search.omg_search.OmgSearchPlan``)."""
        return OS.OmgSearchPlan(self.budget, bool(self.oracle), int(self.eps_milli), self.max_plies,
                                int(self._leaf_code), self._leaf_w)

    def buffers(self, rows: int = 1):
        """The work state and the scratch (``OmgSearchScratch``) the kernels search with, for ``rows`` games at
        least."""
        self._scratch(rows)
        return self._work, OS.OmgSearchScratch(self._mask, self._ids, self._mask2, self._ids2, self._cnt,
                                               self._feat, self._vals)

    def _search(self, state, games, seeds, out) -> None:
        scr = self.buffers(len(games))[1]
        OS.batch_search_nb(numba.get_num_threads(), state, games, self.params, self.tables, self._work, seeds,
                           self.plan, scr, out)


class OmgOracleAgent(OmgSearchAgent):
    name = "oracle"
    oracle = True

    def __init__(self, *args, patience: int | None = None, **kwargs):  # the oracle searches every decision
        super().__init__(*args, patience=patience, **kwargs)
