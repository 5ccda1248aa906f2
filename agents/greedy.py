"""``greedy``: plays the lowest legal rank, as many copies as it holds, keeps wilds for emergencies, picks up only
when it must.

Rules, in order, each a line of numpy over the batch:
1. Setup: ready at once (no swaps).
2. A play is legal: the lowest plain rank (no power in this ruleset, or a power that is not wild), with every copy
   it may play; only when no plain rank goes, the cheapest wild (5, then 2, then 10, then a Joker: a Joker is
   also how it counters a Joker).
3. No play: flip a face-down card if that is the move; else nominate the next player, or pass.
4. Only then pick up the pile.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, check_batch
from shedders.engine import palace as K

WILD_ORDER = (K.R5, K.R2, K.R10, K.RJOKER)  # cheapest emergency first


class GreedyAgent(Agent):
    name = "greedy"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options):
        super().__init__(ruleset, num_players, seed, **options)
        params = self.rules.to_params()
        key = np.arange(K.R, dtype=np.float64)
        for i, r in enumerate(WILD_ORDER):
            if K.is_wild_nb(r, params):
                key[r] = 100 + i
        self._key = key

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        _, mask = check_batch(observation, action_mask)
        plays = mask[:, K.A_PLAY : K.A_PLAY + K.R * K.MAXC].reshape(-1, K.R, K.MAXC)
        counts = plays.sum(axis=2)  # legal counts run 1..c, so c is the most copies it may play
        keys = np.where(counts > 0, self._key, np.inf)
        rank = keys.argmin(axis=1)
        rows = np.arange(len(mask))
        play = K.A_PLAY + rank * K.MAXC + counts[rows, rank] - 1
        has_play = np.isfinite(keys[rows, rank])
        choices = [
            (mask[:, K.A_READY] == 1, K.A_READY),
            (has_play, play),
            (mask[:, K.A_FLIP] == 1, K.A_FLIP),
            (mask[:, K.A_NOMINATE] == 1, K.A_NOMINATE),
            (mask[:, K.A_PASS] == 1, K.A_PASS),
        ]
        return np.select([c for c, _ in choices], [a for _, a in choices], default=K.A_PICKUP).astype(np.int64)
