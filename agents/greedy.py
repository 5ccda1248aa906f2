"""``greedy``: plays the lowest legal rank, as many copies as it holds, keeps wilds for emergencies, picks up only
when it must.

Rules, in order (the kernel ``greedy_choice_nb`` of ``shedders.engine.search.palace_policies``, the one
implementation, which the search's rollouts also call; this class runs it over a batch):
1. Setup: ready at once (no swaps); in og, cover with the best card of the six (wilds, then the highest).
2. og sneak offers: sneak every copy of a plain rank; keep wilds (pass).
3. A play is legal: the lowest plain rank (no power in this ruleset, or a power that is not wild), with every copy
   it may play; only when no plain rank goes, the cheapest wild (5, then 3, then 2, then 10, then a Joker: a
   Joker is also how it counters a Joker). In fatality a Joker is played alone, named 10: a burn, and it goes
   again; so is a Joker flipped blind.
4. No play: flip a face-down card if that is the move; else nominate the next player, or pass.
5. Only then pick up the pile. (Any row still without a legal choice takes its lowest legal id.)
6. ``break_cycles``: once the draw pile is empty nothing random is left in the game, and a policy that is a
   function of the observation can go round the same positions for ever (two players passing a 7 back and forth,
   two Jokers bouncing between two players). With probability ``cycle_break`` (default 0.02) a decision taken with
   the draw pile empty is a uniformly random legal action instead, from the agent's own seeded generator; any
   cycle then ends with probability 1. ``cycle_break=0`` gives the deterministic policy of rules 1-5.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, check_batch
from shedders.engine.palace.layout import A_PICKUP
from shedders.engine.search.palace_policies import greedy_batch_nb
from shedders.envs.palace_env import observation_slices

CYCLE_BREAK = 0.02  # rule 6: the share of decisions, draw pile empty, played at random


def check_cycle_break(cycle_break) -> float:
    """``cycle_break`` as a float in [0, 1], or ``ValueError``."""
    if not isinstance(cycle_break, (int, float)) or isinstance(cycle_break, bool) or not 0 <= cycle_break <= 1:
        raise ValueError(f"cycle_break must be a number in [0, 1], got {cycle_break!r}")
    return float(cycle_break)


def break_cycles(obs: np.ndarray, mask: np.ndarray, out: np.ndarray, rng: np.random.Generator, cycle_break: float,
                 deck_col: int) -> None:
    """Rule 6 on a checked batch, in place: where the draw pile is empty (``obs[:, deck_col] == 0``), a row's
    action ``out`` becomes, with probability ``cycle_break``, a uniformly random legal action other than a pickup
    (a pickup only where nothing else is legal), drawn from ``rng``."""
    if cycle_break <= 0:
        return
    rows = np.flatnonzero((obs[:, deck_col] == 0) & (rng.random(len(out)) < cycle_break))
    for r in rows:  # rare: a short loop over those rows only
        legal = np.flatnonzero(mask[r])
        if len(legal) > 1:  # never a voluntary pickup: any other legal action instead
            legal = legal[legal != A_PICKUP]
        out[r] = legal[rng.integers(len(legal))]


class GreedyAgent(Agent):
    name = "greedy"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 cycle_break: float = CYCLE_BREAK, **options):
        super().__init__(ruleset, num_players, seed, **options)
        self.cycle_break = check_cycle_break(cycle_break)
        self._deck = observation_slices(self.rules.num_players)["deck_size"].start
        self._params = self.rules.to_params()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs, mask = check_batch(observation, action_mask)
        out = self.choose(obs, mask)
        self.break_cycles(obs, mask, out)
        return out

    def break_cycles(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        """Rule 6: with the draw pile empty, a decision is random with probability ``cycle_break``."""
        break_cycles(obs, mask, out, self.rng, self.cycle_break, self._deck)

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Rules 1-5 over a checked batch."""
        out = np.empty(len(mask), np.int64)
        greedy_batch_nb(np.ascontiguousarray(mask, np.int8), self._params, out)
        return out
