"""``champion``: the strongest agent shipped for a ruleset, whatever its method, within a time budget per decision.

    agent = agents.make("champion", ruleset="core", num_players=4, time_budget=0.01)

Which agent that is comes from measurements on fresh duplicate deals, paired per deal (``experiments/RESULTS.md``):

| ruleset | champion | why |
|---|---|---|
| og, fatality, core, south_african (and house on core's rules) at 4 players | ``ppo``, the committed checkpoint | it beats ``expert`` in every one of them (paired, seed 1, most_cards: og +0.030, fatality +0.152, core +0.045, south_african +0.047 mean reward a seat, intervals above 0), and ``search:budget=256`` does not beat it anywhere (og +0.033 [-0.029, +0.095], fatality +0.080 [-0.002, +0.162], core -0.047 [-0.108, +0.015], south_african -0.217 [-0.282, -0.151]) at 25-50 times its cost (0.09 ms against 4.2 ms a decision at batch 1) |
| omg, any player count | ``search``, as many rollouts as ``time_budget`` buys | omg has no learned agent; at the default budget (833 rollouts) the champion beats ``expert`` by +0.122 [+0.075, +0.168] (2 against 2, 200 fresh deals, seed 11) but not yet ``search:budget=256``: +0.023 [-0.020, +0.067] (200 deals, seed 12) |
| the palace rulesets at other player counts, house with other toggles | ``expert`` | no checkpoint is trained for them |

``time_budget`` (seconds per decision at batch 1 on the 2-core machine this project is measured on) sets how many
rollouts a search champion may spend: ``int(time_budget / SECONDS_PER_ROLLOUT)``. omg's rollout (16 decisions of
expert) was measured at 8.5 microseconds (median over a game's decisions at 1,250 rollouts) and 9.9 at the 90th
percentile; the constant allows 12, so the default budget of 10 ms buys 833 rollouts. The rollouts are fixed when the agent is built, not
measured while it plays, so the same seed gives the same decisions on any machine. ``ppo`` and ``expert`` take well
under a millisecond, inside any budget this option accepts (at least 1 ms). ``champion.chosen`` names the agent
inside.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.expert import ExpertAgent
from agents.omg_search import OmgSearchAgent

SECONDS_PER_ROLLOUT = {"omg": 12e-6}  # a search champion's rollout cost, for its budget (see the module docstring)
MIN_TIME_BUDGET = 1e-3
DEFAULT_TIME_BUDGET = 0.01


def search_budget(ruleset: str, time_budget: float) -> int:
    """The rollouts a search champion of ``ruleset`` spends per decision within ``time_budget`` seconds."""
    return max(16, int(time_budget / SECONDS_PER_ROLLOUT[ruleset]))


def has_checkpoint(ruleset: str, num_players: int, **options) -> bool:
    """Whether a committed ppo checkpoint plays exactly this game (``agents.ppo`` is imported on first use, as
    ``agents.make("ppo")`` does, so that ``python -m agents.ppo export`` runs that module once)."""
    from agents.ppo import default_checkpoint, same_game

    path = default_checkpoint(ruleset, num_players, **options)
    if not path.exists():
        return False
    trained = path.name.rsplit("-", 1)[0]
    return num_players == 4 and same_game(trained, ruleset, num_players, **options)


class ChampionAgent(Agent):
    name = "champion"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 time_budget: float = DEFAULT_TIME_BUDGET, **options):
        super().__init__(ruleset, num_players, seed, **options)
        if isinstance(time_budget, bool) or not isinstance(time_budget, (int, float)) or not (
                MIN_TIME_BUDGET <= time_budget <= 60):
            raise ValueError(f"time_budget must be a number of seconds in [{MIN_TIME_BUDGET}, 60], got {time_budget!r}")
        self.time_budget = float(time_budget)
        if ruleset == "omg":
            self.inner = OmgSearchAgent(ruleset, num_players, seed=seed, budget=search_budget(ruleset, time_budget),
                                        **options)
            self.chosen = f"search:budget={self.inner.budget}"
        elif has_checkpoint(ruleset, num_players, **options):
            from agents.ppo import PPOAgent

            self.inner = PPOAgent(ruleset, num_players, seed=seed, **options)
            self.chosen = "ppo"
        else:
            self.inner = ExpertAgent(ruleset, num_players, seed=seed, **options)
            self.chosen = "expert"
        self.needs_state = getattr(self.inner, "needs_state", False)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state=None, games=None) -> np.ndarray:
        if self.needs_state:
            return self.inner.act(observation, action_mask, state=state, games=games)
        return self.inner.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"ChampionAgent({self.ruleset!r}, num_players={self.num_players}, chosen={self.chosen!r})"
