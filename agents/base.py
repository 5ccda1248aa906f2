"""The agents' interface: a policy maps a batch of (observation, action_mask) to legal action ids.

    agent = agents.make("greedy", ruleset="core", num_players=4, seed=0)
    actions = agent.act(observation, action_mask)   # (B, obs) int8, (B, A) int8 -> (B,) int64

Every agent owns an explicit numpy generator (``seed``), so a run is reproducible. ``as_aec_policy`` adapts any
agent to the PettingZoo AEC env (one observation at a time).
"""

from __future__ import annotations

import numpy as np

from shedders.rules import make_rules


class Agent:
    """Base class: subclasses implement ``act`` on batches."""

    name = "agent"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options):
        self.rules = make_rules(ruleset, num_players, **options)
        self.ruleset = ruleset
        self.num_players = num_players
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return self.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ruleset!r}, num_players={self.num_players})"


def check_batch(observation: np.ndarray, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Accept one observation or a batch; always return batches (2-D), and refuse rows with no legal action."""
    obs = np.asarray(observation)
    mask = np.asarray(action_mask)
    if mask.ndim == 1:
        obs, mask = obs[None], mask[None]
    if mask.ndim != 2 or obs.shape[0] != mask.shape[0]:
        raise ValueError(f"expected batches (B, obs) and (B, A), got {obs.shape} and {mask.shape}")
    if not np.all(mask.any(axis=1)):
        raise ValueError("every row of action_mask needs at least one legal action")
    return obs, mask


def act_in(agent: Agent, vg, rows: np.ndarray) -> np.ndarray:
    """``agent``'s actions in the games ``rows`` of a ``VectorGame`` (given the engine state if it needs it)."""
    if getattr(agent, "needs_state", False):  # search, oracle
        return agent.act(vg.observation[rows], vg.action_mask[rows], state=vg.state, games=rows)
    return agent.act(vg.observation[rows], vg.action_mask[rows])


def as_aec_policy(agent: Agent):
    """``policy(env, agent_name) -> action`` for the AEC env, from a batched agent."""

    def policy(env, name):
        view = env.observe(name)
        if getattr(agent, "needs_state", False):  # search, oracle: the env's engine state, game row 0
            raw = env.unwrapped
            return int(agent.act(view["observation"][None], view["action_mask"][None], state=raw.engine.state,
                                 games=np.zeros(1, np.int64))[0])
        return int(agent.act(view["observation"][None], view["action_mask"][None])[0])

    return policy
