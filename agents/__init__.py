"""Agents for shedders: one batched interface, ``agent.act(observation, action_mask) -> actions``.

    import agents
    agent = agents.make("greedy", ruleset="core", num_players=4, seed=0)

Available now: ``random``, ``greedy``, ``expert`` (the seed-003 family), ``search`` and ``oracle`` (these two take
the engine state too: ``agent.act(obs, mask, state=vg.state)``). PPO and the og / fatality / omg experts arrive
with their issues.
"""

from __future__ import annotations

from agents.base import Agent, as_aec_policy, check_batch
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.search import OracleAgent, SearchAgent

REGISTRY = {"random": RandomAgent, "greedy": GreedyAgent, "expert": ExpertAgent, "search": SearchAgent,
            "oracle": OracleAgent}

__all__ = ["Agent", "ExpertAgent", "GreedyAgent", "OracleAgent", "RandomAgent", "REGISTRY", "SearchAgent",
           "as_aec_policy", "check_batch", "make"]


def make(name: str, ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options) -> Agent:
    """The agent called ``name`` for ``ruleset`` at ``num_players``; ``ValueError`` for an unknown name."""
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(REGISTRY)}")
    return REGISTRY[name](ruleset, num_players, seed=seed, **options)
