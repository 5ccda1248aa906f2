"""``greedy`` for omg: the play with the smallest penalty, powers used against the leader.

Rules, in order (the kernels of ``shedders.engine.search.omg_policies``, the one implementation; this class
reads their inputs from the observation and runs them over a batch):
1. Play the card with the smallest penalty against the top (0 when it matches the number or god, or is a Hestia);
   between equal penalties, a card with a power first, then the higher number (it is the harder one to match).
2. Zeus, Aphrodite (`target +k`) and Hera (`give +k`): the player with the fewest cards.
3. Artemis, Demeter, Poseidon: the number, color or god with the most cards in hand; Apollo: the attribute of the
   revealed card that most hand cards share.
4. Discards: the highest-numbered legal card; never `stop` while a discard is legal.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, check_batch
from shedders.engine.omg.layout import action_layout, layout_array
from shedders.engine.search.omg_policies import OBS_FIELDS, batch_choice_nb
from shedders.envs.omg_env import observation_slices


class OmgGreedyAgent(Agent):
    name = "greedy"
    expert = False  # which strategy of omg_policies this agent runs

    def __init__(self, ruleset: str = "omg", num_players: int = 4, seed: int | None = None, **options):
        super().__init__(ruleset, num_players, seed, **options)
        deck = self.rules.deck
        self.T = deck.num_types
        self.cards = deck.table()
        self.lay = action_layout(self.T)
        self.sl = observation_slices(num_players, self.T)
        self.n = num_players
        self._lay = layout_array(self.T)
        self._params = self.rules.to_params()
        self._off = np.array([self.sl[f].start for f in OBS_FIELDS], np.int64)
        self._ids = np.zeros(self.lay["n_actions"] + self.T, np.int16)  # scratch: the legal ids, the hand types

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs, mask = check_batch(observation, action_mask)
        out = np.empty(len(mask), np.int64)
        batch_choice_nb(self.expert, np.ascontiguousarray(obs, np.int8), self._off,
                        np.ascontiguousarray(mask, np.int8), self._params, self.cards, self._lay, self._ids, out)
        return out
