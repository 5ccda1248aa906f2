"""``learned``: the strongest network shipped for a table, deciding from its observation alone (no search, no
engine state).

    agent = agents.make("learned", ruleset="core", num_players=4)

Today it is the committed ``ppo`` checkpoint of the table (``agents/checkpoints/<ruleset>-<n>p.pt``, trained by
``experiments.train_ppo``; the commands, training cost and strength of each are in ``experiments/RESULTS.md``):
no network trained since has beaten those. ``agent.chosen`` names what a table got (the checkpoint and its engine
steps of training); a better network replaces the checkpoint, measured against the one it replaces.

At a table with no committed network (another player count, ``house`` with its toggles on) ``learned`` falls back
to ``expert``, the strongest heuristic that also decides from the observation alone, and ``chosen`` says so
(``"expert (no network for this table)"``).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.expert import ExpertAgent
from agents.omg_expert import OmgExpertAgent
from shedders.rules import lookup

#: each family's fallback where a table has no network
EXPERTS = {"palace": ExpertAgent, "omg": OmgExpertAgent}


class LearnedAgent(Agent):
    """The table's committed network, or ``expert`` where it has none."""

    name = "learned"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None, sample: bool = True,
                 temperature: float = 1.0, device: str = "cpu", **options):
        super().__init__(ruleset, num_players, seed, **options)
        from agents.ppo import PPOAgent, default_checkpoint  # torch, imported on first use

        if default_checkpoint(ruleset, num_players, **options).exists():
            self.inner = PPOAgent(ruleset, num_players, seed=seed, sample=sample, temperature=temperature,
                                  device=device, **options)
            steps = self.inner.counters.get("global_step")
            self.chosen = f"ppo ({self.inner.path}" + (f", {steps:,} engine steps)" if steps else ")")
        else:
            self.inner = EXPERTS[lookup(ruleset).family](ruleset, num_players, seed=seed, **options)
            self.chosen = "expert (no network for this table)"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return self.inner.act(observation, action_mask)
