"""``greedy`` for omg: the play with the smallest penalty, powers used against the leader.

Rules, in order, each a line of numpy over the batch:
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
from shedders.engine import omg as O


class OmgGreedyAgent(Agent):
    name = "greedy"

    def __init__(self, ruleset: str = "omg", num_players: int = 4, seed: int | None = None, **options):
        super().__init__(ruleset, num_players, seed, **options)
        from shedders.envs.omg_env import observation_slices

        deck = self.rules.deck
        self.T = deck.num_types
        self.cards = deck.table()
        self.lay = O.action_layout(self.T)
        self.sl = observation_slices(num_players, self.T)
        self.n = num_players

    def _play(self, obs: np.ndarray, mask: np.ndarray, play: np.ndarray) -> np.ndarray:
        """The play action per row (subclasses refine greedy's choice)."""
        return play

    def _keep_value(self) -> np.ndarray:
        """Per card type, how much it is worth keeping; the cheapest legal discard goes first (greedy: low
        numbers are kept, the highest number goes)."""
        return -self.cards[:, 2].astype(np.float64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs, mask = check_batch(observation, action_mask)
        obs = obs.astype(np.int64)
        rows = np.arange(len(mask))
        lay, T, c = self.lay, self.T, self.cards
        god, color, num, power = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
        top_god = obs[:, self.sl["top_god"]].argmax(axis=1)[:, None]
        top_color = obs[:, self.sl["top_color"]].argmax(axis=1)[:, None]
        top_num = obs[:, self.sl["top_number"]].argmax(axis=1)[:, None] + 1
        match = (num[None] == top_num) | (god[None] == top_god) | ((power[None] == 1) & (god[None] == O.HESTIA))
        pen = np.where(match, 0, np.abs(num[None] - top_num) + (color[None] != top_color))
        key = pen * 100.0 - power[None] * 10.0 - num[None]
        plays = mask[:, lay["play"]: lay["play"] + T] == 1
        play = lay["play"] + np.where(plays, key, np.inf).argmin(axis=1)
        play = self._play(obs, mask, play)
        sizes = obs[:, self.sl["hand_sizes"]][:, 1:]  # other seats, +1 .. +(n-1)
        leader = sizes.argmin(axis=1)
        target = lay["target"] + leader
        give = lay["give"] + leader
        hand = obs[:, self.sl["hand"]]
        by_num = np.stack([(hand * (num[None] == v)).sum(axis=1) for v in range(1, O.MAXN + 1)], axis=1)
        by_color = np.stack([(hand * (color[None] == v)).sum(axis=1) for v in range(O.N_COLORS)], axis=1)
        by_god = np.stack([(hand * (god[None] == v)).sum(axis=1) for v in range(O.N_GODS)], axis=1)
        pick = lambda counts, base, size: base + np.where(mask[:, base: base + size] == 1, counts, -1).argmax(axis=1)
        number = pick(by_num, lay["number"], O.MAXN)
        col = pick(by_color, lay["color"], O.N_COLORS)
        gd = pick(by_god, lay["god"], O.N_GODS)
        rev = obs[:, self.sl["revealed"]].argmax(axis=1)
        attr_counts = np.stack([by_num[rows, num[rev] - 1], by_color[rows, color[rev]], by_god[rows, god[rev]]], axis=1)
        attr = pick(attr_counts, lay["attribute"], 3)
        discards = mask[:, lay["discard"]: lay["discard"] + T] == 1
        discard = lay["discard"] + np.where(discards, self._keep_value(), np.inf).argmin(axis=1)
        choices = [
            (plays.any(axis=1), play),
            (mask[:, lay["target"]] == 1, target),
            (mask[:, lay["give"]] == 1, give),
            (mask[:, lay["number"]: lay["number"] + O.MAXN].any(axis=1), number),
            (mask[:, lay["color"]: lay["color"] + O.N_COLORS].any(axis=1), col),
            (mask[:, lay["god"]: lay["god"] + O.N_GODS].any(axis=1), gd),
            (mask[:, lay["attribute"]: lay["attribute"] + 3].any(axis=1), attr),
            (discards.any(axis=1), discard),
        ]
        out = np.select([m for m, _ in choices], [a for _, a in choices], default=lay["stop"]).astype(np.int64)
        bad = mask[rows, out] == 0
        if bad.any():
            out[bad] = mask[bad].argmax(axis=1)
        return out
