"""``expert``: each seed's own strategy, as small named rules; for og and fatality the rules are listed with
their methods (``sabotage_with_a_3``; ``skip_the_leader``, ``shed_face_up_along``), on top
of ``complete_a_burn`` (a full set in og, four or more in fatality) and, in fatality, ``swap_best_to_table``.

For the seed-003 family (core, south_african, house): seed 003's strategy, as small named rules.

Each rule is a small numba kernel of ``shedders.engine.search.palace_policies`` (``<rule>_nb``), the one
implementation, which the search's rollouts also call; ``expert_choice_nb`` applies them in order and the first
that decides wins. This class runs it over a batch and adds rule 6.

1. ``swap_best_to_table`` (seed 003, "Swap if you want": "put your best cards where they'll hurt most"): in
   setup, while a hand card is better than a face-up card, swap the best hand card for the worst face-up card,
   so the hand keeps low cards to shed early and the table keeps wilds and high cards for later.
2. ``counter_a_joker_when_it_pays`` (seed 003, "Joker": "a counter bounces the punishment back onto the PREVIOUS
   Joker's player"): counter a Joker when the pile holds at least ``COUNTER_MIN_PLAIN`` (2) cards besides
   Jokers; otherwise let it pass and eat. Nothing burns a Joker in this family (the window always ends in an eat),
   so a pile of Jokers is the best pile there is to eat, and countering it only hands the Jokers to the opponent,
   who plays them back: countering every Joker (the rule before) made 74% of four-expert south_african games run
   to the 5,000-decision cap, two players bouncing the same two Jokers. In play a Joker is held as the last wild
   (rule 5). (Measured, 2 against 2 on 300 south_african deals under ``cap_rule="most_cards"``: this rule with
   ``break_cycles`` against the expert before both, +0.100 [+0.066, +0.134] mean reward a seat; ``break_cycles``
   alone, +0.104. Picking up small piles rather than spending a Joker on them cost -0.19, so it was dropped.)
3. ``nominate_the_leader`` (seed 003, "Nominate"): point at the opponent closest to going out (fewest cards
   left), to make them eat the pile.
4. ``complete_a_burn`` (seed 003, "Four of a kind burns"): if some play makes four of a kind on the pile, take
   it: the pile leaves and this player goes again.
5. ``shed_low_keep_wilds``: otherwise play like ``greedy``: the lowest plain rank, every copy, wilds only when
   nothing else goes; flip when on face-down cards; pick up only when nothing else is legal.
6. ``break_cycles`` (every ruleset, as ``greedy``'s rule 6): with the draw pile empty, a decision is a uniformly
   random legal action with probability ``cycle_break`` (0.02), so no cycle of positions lasts for ever.
"""

from __future__ import annotations

import numpy as np

from agents.greedy import GreedyAgent
from shedders.engine.search.palace_policies import COUNTER_MIN_PLAIN, expert_batch_nb, expert_offsets  # noqa: F401
from shedders.envs.palace_env import observation_slices


class ExpertAgent(GreedyAgent):
    name = "expert"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options):
        super().__init__(ruleset, num_players, seed, **options)
        self._off = expert_offsets(observation_slices(self.rules.num_players))

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Rules 1-5 (with each family's own) over a checked batch; ``act`` adds rule 6."""
        out = np.empty(len(mask), np.int64)
        expert_batch_nb(np.ascontiguousarray(obs, np.int8), self._off, np.ascontiguousarray(mask, np.int8),
                        self._params, out)
        return out
