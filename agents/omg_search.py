"""``search`` and ``oracle`` for omg: determinized Monte Carlo over the legal decisions, on the omg engine.

The same method as the palace family's ``agents/search.py``: each legal decision is tried in ``budget // legal``
sampled worlds (the same worlds for every decision), and each world is played on with omg's ``expert`` policy (in
numba, ``shedders.engine.omg.expert_action_nb``; a uniformly random legal action with probability ``eps``) to its
end, or for ``max_plies`` decisions; an unfinished rollout is scored by hand sizes (a softmin over seats, 2 cards
per e-fold, on the scale of the real rewards).

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

import numba
import numpy as np

from agents.base import Agent, check_batch
from shedders.engine import omg as O


class OmgSearchAgent(Agent):
    name = "search"
    oracle = False
    needs_state = True

    def __init__(self, ruleset: str = "omg", num_players: int = 4, seed: int | None = None, budget: int = 64,
                 eps: float = 0.1, max_plies: int = 16, **options):
        super().__init__(ruleset, num_players, seed, **options)
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
            raise ValueError(f"budget must be a positive integer (rollouts per decision), got {budget!r}")
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"eps must be in [0, 1], got {eps!r}")
        if isinstance(max_plies, bool) or not isinstance(max_plies, (int, np.integer)) or max_plies < 1:
            raise ValueError(f"max_plies must be a positive integer, got {max_plies!r}")
        from shedders.envs.omg_env import layout_array

        self.budget = int(budget)
        self.eps_milli = int(round(eps * 1000))
        self.max_plies = int(max_plies)
        deck = self.rules.deck
        self.params = self.rules.to_params()
        self.cards = deck.table()
        self.lay = layout_array(deck.num_types)
        self.num_actions = int(O.action_layout(deck.num_types)["n_actions"])
        self._cap = 0

    def _scratch(self, b: int):
        if b > self._cap:
            self._cap = c = max(b, 2 * self._cap)
            deck = self.rules.deck
            self._work = O.alloc_state(c, self.num_players, deck.num_types, deck.num_cards)
            self._mask = np.zeros((c, self.num_actions), np.int8)
            self._ids = np.zeros((c, self.num_actions), np.int16)
            self._mask2 = np.zeros((c, self.num_actions), np.int8)
            self._ids2 = np.zeros((c, self.num_actions), np.int16)
            self._cnt = np.zeros((c, deck.num_types), np.int16)
            self._out = np.zeros(c, np.int64)

    def act(self, observation, action_mask, state=None, games=None) -> np.ndarray:
        """Actions for the games ``games`` (rows of ``state``; default: all rows, one per observation)."""
        _, mask = check_batch(observation, action_mask)
        if state is None:
            raise ValueError(f"{self.name} needs the engine state: act(observation, action_mask, state=vg.state)")
        games = np.arange(len(mask), dtype=np.int64) if games is None else np.asarray(games, np.int64)
        if games.shape != (len(mask),):
            raise ValueError(f"games must name one state row per observation, got shape {games.shape}")
        b = len(games)
        self._scratch(b)
        seeds = self.rng.integers(0, 2**63 - 1, size=b, dtype=np.int64).astype(np.uint64)
        out = self._out[:b]
        O.batch_search_nb(
            numba.get_num_threads(), state, games, self.params, self.cards, self.lay, self._work, self.budget,
            self.oracle, seeds, self.eps_milli, self.max_plies, self._mask, self._ids, self._mask2, self._ids2,
            self._cnt, out,
        )
        return out.copy()


class OmgOracleAgent(OmgSearchAgent):
    name = "oracle"
    oracle = True
