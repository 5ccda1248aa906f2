"""``expert``: each seed's own strategy, as small named rules; for og and fatality the rules are listed with
their methods (``sabotage_with_a_3``; ``skip_the_leader``, ``shed_face_up_along``), on top
of ``complete_a_burn`` (a full set in og, four or more in fatality) and, in fatality, ``swap_best_to_table``.

For the seed-003 family (core, south_african, house): seed 003's strategy, as small named rules.

Each rule is a function over the batch; ``act`` applies them in order and the first that decides a row wins.

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
from shedders.engine import palace as K
from shedders.engine.search import palace_policies as KP
from shedders.envs.palace_env import observation_slices

UNDECIDED = -1
COUNTER_MIN_PLAIN = KP.EXPERT_COUNTER_MIN_PLAIN  # rule 2: counter a Joker only over a pile of this many non-Jokers (2)
JOKER = K.A_PLAY + K.RJOKER * K.MAXC  # the one-Joker play (seed 003: one Joker per play)


class ExpertAgent(GreedyAgent):
    name = "expert"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None, **options):
        super().__init__(ruleset, num_players, seed, **options)
        self._sl = observation_slices(self.rules.num_players)
        self._set_size = self.rules.set_size if self.rules.four_burn else 10**6
        self._family = self.rules.family

    def cards_left(self, obs):
        """(B, N) cards each relative seat still holds (hand, face-up, face-down)."""
        n = self.rules.num_players
        return (obs[:, self._sl["hand_size"]].astype(np.int64) + obs[:, self._sl["face_down"]]
                + obs[:, self._sl["face_up"]].reshape(len(obs), n, K.R).sum(axis=2))

    # -- og rules (seed 000, "Strategy") --------------------------------------------------------------------------
    def sabotage_with_a_3(self, obs, mask, out):
        """seed 000: "Sometimes you should play a high card to force the next player to pick up the pile": when
        the next player is down to 4 cards or fewer (and the pile holds 2 or more), or leads the table (and the
        pile holds 4 or more), a 3 makes them pick it up."""
        three = K.A_PLAY + K.R3 * K.MAXC
        rows = np.flatnonzero((out == UNDECIDED) & (mask[:, three] == 1))
        if not len(rows):
            return
        left = self.cards_left(obs[rows]).astype(float)
        left[:, 0] = np.inf
        leader = left[:, 1] <= left.min(axis=1)  # the next player holds the fewest cards of all opponents
        pile = obs[rows, self._sl["pile_size"].start]
        near = ((left[:, 1] <= 4) & (pile >= 2)) | (leader & (pile >= 4))
        out[rows[near]] = three

    # -- fatality rules (seed 002) --------------------------------------------------------------------------------
    def shed_face_up_along(self, obs, mask, out):
        """seed 002: face-up cards may join the last hand cards of their rank (and a hand of 3s may take the top's
        rank with face-up cards of it): take the play that sheds the most cards at once."""
        rows = np.flatnonzero(out == UNDECIDED)
        if not len(rows):
            return
        ups = mask[rows, K.A_PLAY_UP : K.A_PICKUP_WITH]
        has = ups.any(axis=1)
        last = ups.shape[1] - 1 - ups[:, ::-1].argmax(axis=1)  # the highest id: most face-up cards
        out[rows[has]] = (K.A_PLAY_UP + last)[has]

    def skip_the_leader(self, obs, mask, out):
        """seed 002 "8s: the next player is skipped": when the next player is closest to going out, skip them."""
        rows = np.flatnonzero(out == UNDECIDED)
        if not len(rows):
            return
        eights = mask[rows, K.A_PLAY + K.R8 * K.MAXC : K.A_PLAY + K.R9 * K.MAXC].sum(axis=1)
        left = self.cards_left(obs[rows]).astype(float)
        left[obs[rows, self._sl["finished"]] == 1] = np.inf
        left[:, 0] = np.inf
        nxt = left[:, 1]
        leader = (nxt <= left.min(axis=1)) & (nxt <= 5)
        ok = (eights > 0) & leader
        out[rows[ok]] = (K.A_PLAY + K.R8 * K.MAXC + eights - 1)[ok]

    # -- rule 1 ---------------------------------------------------------------------------------------------------
    def swap_best_to_table(self, obs, mask, out):
        rows = np.flatnonzero((out == UNDECIDED) & (mask[:, K.A_READY] == 1))
        if not len(rows):
            return
        swaps = mask[rows, K.A_SWAP : K.A_SWAP + K.R * K.R].reshape(-1, K.R, K.R)  # [row, hand, up]
        has_h = swaps.any(axis=2)
        has_u = swaps.any(axis=1)
        h = np.where(has_h, self._key, -np.inf).argmax(axis=1)  # best hand card
        u = np.where(has_u, self._key, np.inf).argmin(axis=1)  # worst face-up card
        better = has_h.any(axis=1) & (self._key[h] > self._key[u]) & swaps[np.arange(len(rows)), h, u].astype(bool)
        out[rows] = np.where(better, K.A_SWAP + h * K.R + u, K.A_READY)

    # -- rule 2 ---------------------------------------------------------------------------------------------------
    def plain_in_pile(self, obs):
        """(B,) cards in the pile other than Jokers."""
        pile = obs[:, self._sl["pile"]].astype(np.int64)
        return pile.sum(axis=1) - pile[:, K.RJOKER]

    def counter_a_joker_when_it_pays(self, obs, mask, out):
        rows = np.flatnonzero((out == UNDECIDED) & (mask[:, K.A_PASS] == 1))
        pays = self.plain_in_pile(obs[rows]) >= COUNTER_MIN_PLAIN
        out[rows] = np.where((mask[rows, JOKER] == 1) & pays, JOKER, K.A_PASS)

    # -- rule 3 ---------------------------------------------------------------------------------------------------
    def nominate_the_leader(self, obs, mask, out):
        rows = np.flatnonzero((out == UNDECIDED) & (mask[:, K.A_NOMINATE] == 1))
        n = self.rules.num_players
        for i in rows:  # rare decisions: a short loop over those rows only
            o = obs[i]
            left = o[self._sl["hand_size"]] + o[self._sl["face_down"]] + o[self._sl["face_up"]].reshape(n, K.R).sum(1)
            finished = o[self._sl["finished"]]
            step = 1 if o[self._sl["direction"]][0] >= 0 else -1
            best, best_k, k, j = None, 1, 0, 0
            for _ in range(n - 1):
                j = (j + step) % n
                if finished[j]:
                    continue
                k += 1
                if best is None or left[j] < best:
                    best, best_k = left[j], k
            out[i] = K.A_NOMINATE + best_k - 1

    # -- rule 4 ---------------------------------------------------------------------------------------------------
    def complete_a_burn(self, obs, mask, out):
        rows = np.flatnonzero(out == UNDECIDED)
        if not len(rows):
            return
        top = obs[rows, self._sl["top"]].argmax(axis=1)  # effective top rank (R: empty)
        run = obs[rows, self._sl["run"].start].astype(np.int64)
        plays = mask[rows, K.A_PLAY : K.A_PLAY + K.R * K.MAXC].reshape(-1, K.R, K.MAXC)
        safe_top = np.minimum(top, K.R - 1)
        counts = plays[np.arange(len(rows)), safe_top].sum(axis=1)
        # The run counts the top card's own rank; a 5 mirrors but counts as 5, so only a plain top qualifies.
        burns = (top < K.R) & (counts > 0) & (run + counts >= self._set_size) & (top != K.R5)
        chosen = K.A_PLAY + safe_top * K.MAXC + counts - 1
        out[rows[burns]] = chosen[burns]

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Rules 1-5 (with each family's own) over a checked batch; ``act`` adds rule 6."""
        out = np.full(len(mask), UNDECIDED, np.int64)
        if self._family == K.FAM_OG:
            self.complete_a_burn(obs, mask, out)
            self.sabotage_with_a_3(obs, mask, out)
        elif self._family == K.FAM_FAT:
            self.swap_best_to_table(obs, mask, out)
            self.complete_a_burn(obs, mask, out)
            self.skip_the_leader(obs, mask, out)
            self.shed_face_up_along(obs, mask, out)
        else:
            self.swap_best_to_table(obs, mask, out)
            self.counter_a_joker_when_it_pays(obs, mask, out)
            self.nominate_the_leader(obs, mask, out)
            self.complete_a_burn(obs, mask, out)
        rest = out == UNDECIDED
        if rest.any():  # rule 5
            out[rest] = super().choose(obs[rest], mask[rest])
        return out
