"""``random``: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, check_batch


class RandomAgent(Agent):
    """Uniformly random legal action per row, from the agent's own generator."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        _, mask = check_batch(observation, action_mask)
        scores = self.rng.random(mask.shape)
        scores[mask == 0] = -1.0
        return scores.argmax(axis=1)
