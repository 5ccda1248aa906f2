"""A match: several games in a row with a running tally (seed 003's loser's tax needs one)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from shedders.envs import raw_env


class Match:
    """Games of one ruleset played in a row, with a running tally of rewards and losses.

    With the ``losers_tax`` rule on (house), each new deal swaps the last Shithead's best hand card for the last
    winner's (first player out) worst hand card, unless the last game was truncated (R-LOSERS-TAX).

    >>> m = Match("house", num_players=4, rules={"losers_tax": True})
    >>> result = m.play_game(lambda env, agent: env.legal_actions()[0], seed=1)
    """

    def __init__(self, ruleset: str = "house", num_players: int = 4, render_mode: str | None = None, **kwargs):
        self.env = raw_env(ruleset, num_players, render_mode, **kwargs)
        n = num_players
        self.tally = np.zeros(n)  # summed rewards per seat
        self.losses = np.zeros(n, np.int64)  # times each seat was the Shithead (the last player; none in og)
        self.wins = np.zeros(n, np.int64)  # times each seat went out first (og's winner)
        self.games = 0
        self.truncated = 0
        self.last_winner: int | None = None
        self.last_loser: int | None = None
        self.taxed: tuple[int, int] | None = None  # (loser, winner) taxed at the last deal

    def new_game(self, seed: int | None = None):
        """Deal a new game (applying the loser's tax where due) and return the env."""
        env = self.env
        env.reset(seed=seed)
        self.taxed = None
        if env.rules.losers_tax and self.last_loser is not None and self.last_winner is not None:
            env.apply_losers_tax(self.last_loser, self.last_winner)
            self.taxed = (self.last_loser, self.last_winner)
        env.last_loser = self.last_loser
        return env

    def play_game(self, policy: Callable, seed: int | None = None) -> dict:
        """Play one whole game; ``policy(env, agent)`` returns the action of the agent to act."""
        env = self.new_game(seed)
        rewards = np.zeros(env.rules.num_players)
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            action = None if term or trunc else policy(env, agent)
            env.step(action)
            for a, r in env.rewards.items():
                rewards[env.seat(a)] += r
        return self.record(rewards)

    def record(self, rewards: np.ndarray) -> dict:
        """Add a finished game's rewards to the tally and remember its winner and loser."""
        self.games += 1
        self.tally += rewards
        placing = self.env.placing()
        truncated = self.env.game_truncated
        if truncated:
            self.truncated += 1
            self.last_winner = self.last_loser = None
            loser = None
        else:
            loser = self.env.loser()  # None in og, where the game ends when the winner goes out
            if loser is not None:
                self.losses[loser] += 1
            self.wins[placing[0]] += 1
            self.last_winner, self.last_loser = placing[0], loser
        self.env.last_loser = self.last_loser
        return {"placing": placing, "loser": loser, "rewards": rewards.tolist(), "truncated": truncated}
