"""``expert`` for omg: seed 001's two levers, the penalty and the powers, weighed in cards.

Each rule is a line of numpy over the batch; the rest (choices of number, color, god, attribute) is ``greedy``'s.

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

import numpy as np

from agents.omg_greedy import OmgGreedyAgent
from shedders.engine import omg as O

HARM = 1.0 / 3.0
HESTIA_RESERVE = 1.5


class OmgExpertAgent(OmgGreedyAgent):
    name = "expert"

    def __init__(self, ruleset: str = "omg", num_players: int = 4, seed: int | None = None, **options):
        super().__init__(ruleset, num_players, seed, **options)
        c = self.cards
        god, num, power = c[:, 0], c[:, 2], c[:, 3]
        keep = np.where(power == 1, 1.0, 0.0)
        for g, v in ((O.HESTIA, 3.0), (O.ATHENA, 2.0), (O.HERA, 2.0)):
            keep = np.where((power == 1) & (god == g), v, keep)
        self._keep = keep * 10.0 - np.abs(num - 5)

    def _keep_value(self) -> np.ndarray:
        return self._keep

    def _play(self, obs: np.ndarray, mask: np.ndarray, play: np.ndarray) -> np.ndarray:
        c, T, n, sl = self.cards, self.T, self.n, self.sl
        god, color, num, power = (c[:, k][None] for k in range(4))
        top_god = obs[:, sl["top_god"]].argmax(axis=1)[:, None]
        top_color = obs[:, sl["top_color"]].argmax(axis=1)[:, None]
        top_num = obs[:, sl["top_number"]].argmax(axis=1)[:, None] + 1
        copy = obs[:, sl["hermes_copies"]].argmax(axis=1)[:, None]  # N_GODS: nothing to copy
        eff = np.where(power == 1, np.where(god == O.HERMES, copy, god), O.N_GODS)  # (B, T) effective power
        match = (num == top_num) | (god == top_god)
        pen = np.where(match | (eff == O.HESTIA), 0, np.abs(num - top_num) + (color != top_color))
        hand = obs[:, sl["hand"]]
        h = hand.sum(axis=1)[:, None]
        after = h - 1 + pen  # hand size after the play and its penalty

        def most_held(attr, values):  # (B, T): the most-held value of attr once card t has left the hand
            by = np.stack([(hand * (attr == v)).sum(axis=1) for v in values], axis=1)  # (B, V)
            own = (attr[0][None, :, None] == np.asarray(values)[None, None, :])  # (1, T, V)
            return (by[:, None, :] - own).max(axis=2)

        sheds = np.zeros(pen.shape)
        sheds = np.where(eff == O.ATHENA, after // 2, sheds)
        sheds = np.where(eff == O.HEPHAESTUS, np.minimum(1, after), sheds)
        sheds = np.where(eff == O.ARTEMIS, np.minimum(2, most_held(num, range(1, O.MAXN + 1))), sheds)
        sheds = np.where(eff == O.DEMETER, np.minimum(2, most_held(color, range(O.N_COLORS))), sheds)
        sheds = np.where(eff == O.POSEIDON, np.minimum(2, most_held(god, range(O.N_GODS))), sheds)
        sheds = np.where(eff == O.APOLLO, np.minimum(1, h - 1), sheds)
        own = np.where(eff == O.HERA, 0, pen - 1) - sheds
        harm = np.select([eff == O.ZEUS, eff == O.ARES, eff == O.HERA, eff == O.APHRODITE],
                         [2.0, 1.0 + 0.25 * (n - 2), pen, 1.0], 0.0)
        reserve = np.where((eff == O.HESTIA) & (h > 2), HESTIA_RESERVE, 0.0)
        score = own - HARM * harm + reserve - 0.01 * num  # last: higher numbers first among equals, as greedy
        plays = mask[:, :T] == 1
        best = np.where(plays, score, np.inf).argmin(axis=1)
        return np.where(plays.any(axis=1), best, play)
