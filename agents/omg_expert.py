"""``expert`` for omg: seed 001's two levers, the penalty and the powers, weighed in cards.

The rules are kernels of ``shedders.engine.search.omg_policies`` (``expert_play_nb``, ``expert_discard_nb``), the
one implementation, which the search's rollouts also call; the rest (targets, choices of number, color, god,
attribute) is ``greedy``'s.

1. **Net cards.** A play is scored by what it does to the player's hand: the card leaves (-1), the penalty comes in
   (+penalty; 0 for a match, a Hestia, or a Hermes copying Hestia), and the power sheds more: Athena half the
   hand after the penalty, Hephaestus one card, Artemis / Demeter / Poseidon up to two of the most-held number,
   color or god, Apollo about one. Hera sends the penalty to the others and draws one instead. The play with the
   fewest cards afterwards goes. Greedy looks only at the penalty and so wastes an Athena on a small hand.
2. **Harm counts a little.** Cards forced on others (Zeus 2 to the leader, Ares 1 to each, Hera the penalty, an
   Aphrodite skip worth about a card) lower the score by a third of a card each: in a race to zero, slowing the
   leader is worth less than shedding, but breaks ties the right way.
3. **Keep a Hestia.** A penalty-free card is insurance against a bad top card; playing it costs 1.5 cards of that
   insurance unless the hand is down to its last cards, so it goes when every other play costs more.
4. **Targets:** the player with the fewest cards (Zeus, Aphrodite, Hera's gifts), as greedy.
5. **Discards keep what sheds later:** plain cards go first, extreme numbers (1, 9: far from most tops, so dear to
   play) before middle ones; Hestia, Athena and Hera are kept longest. Never ``stop`` while a discard is legal.
"""

from __future__ import annotations

from agents.omg_greedy import OmgGreedyAgent
from shedders.engine.search.omg_policies import HARM, HESTIA_RESERVE  # noqa: F401  (the weights, documented above)


class OmgExpertAgent(OmgGreedyAgent):
    name = "expert"
    expert = True
