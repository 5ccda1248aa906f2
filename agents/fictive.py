"""``fictive``: a network that decides from every seat's observation, so it knows the other players' hands: a
fictive player for skill versus luck (it knows what a real player cannot), never a real one.

    agent = agents.make("fictive", ruleset="core", num_players=4, checkpoint="runs/<run>/checkpoint.pt")
    actions = agent.act(obs[rows], mask[rows], state=vg.state, games=rows)

Its network is trained by ``python -m experiments.train_ppo --view full`` against a fixed pool (the field it will
face: ``--pool greedy --self-play 0 --pool-snapshots 0``), so it is a perfect-information learner that
best-responds to that field (PerfectDou trains its critic this way; here the policy too sees every hand). At each
decision it reads, from the engine state, the actor's own observation and then every other seat's, in seat order
after it, as training's ``full_view`` does: every hand, the draw pile's count but not its order, and nobody's
face-down cards. The palace rulesets; ``ppo``'s options (``temperature``, ``sample``, ``ready_floor``).
"""

from __future__ import annotations

import numpy as np

from agents.base import check_batch
from agents.ppo import PPOAgent
from shedders.engine.search import palace_guided as G


class FictiveAgent(PPOAgent):
    name = "fictive"
    view = "full"  # the checkpoints it plays: train_ppo --view full
    needs_state = True  # every seat's observation comes from the engine state

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 checkpoint: str | None = None, **options):
        if not checkpoint:
            raise ValueError("fictive needs checkpoint=PATH: a network trained by python -m experiments.train_ppo "
                             "--view full")
        super().__init__(ruleset, num_players, seed, checkpoint=checkpoint, **options)
        self.obs_size = self.model.obs_size // num_players
        self.params = self.rules.to_params()

    def full_view(self, state, games: np.ndarray) -> np.ndarray:
        """(len(games), seats * obs): each game's actor's observation, then every other seat's in seat order after
        it."""
        games = np.ascontiguousarray(games, dtype=np.int64)
        out = np.zeros((len(games), self.num_players * self.obs_size), np.int8)
        viewer = np.ascontiguousarray(np.asarray(state.actor), dtype=np.int64)
        G.run(G.critic_obs_nb, G.critic_obs_range_nb, len(games), state, games, viewer, self.params,
              np.int64(self.obs_size), out)
        return out

    def act(self, observation, action_mask, state=None, games=None) -> np.ndarray:
        if state is None:
            raise ValueError("fictive needs the engine state: act(observation, action_mask, state=vg.state, "
                             "games=rows)")
        _, mask = check_batch(observation, action_mask)
        games = np.arange(len(mask), dtype=np.int64) if games is None else np.asarray(games, dtype=np.int64)
        if len(games) != len(mask):
            raise ValueError(f"games names {len(games)} games for {len(mask)} rows")
        return super().act(self.full_view(state, games), mask)
