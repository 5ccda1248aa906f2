"""``greedy``: plays the lowest legal rank, as many copies as it holds, keeps wilds for emergencies, picks up only
when it must.

Rules, in order, each a line of numpy over the batch:
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
from shedders.engine import palace as K
from shedders.envs.palace_env import observation_slices

WILD_ORDER = (K.R5, K.R3, K.R2, K.R10, K.RJOKER)  # cheapest emergency first


CYCLE_BREAK = 0.02  # rule 6: the share of decisions, draw pile empty, played at random


class GreedyAgent(Agent):
    name = "greedy"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 cycle_break: float = CYCLE_BREAK, **options):
        super().__init__(ruleset, num_players, seed, **options)
        if not isinstance(cycle_break, (int, float)) or isinstance(cycle_break, bool) or not 0 <= cycle_break <= 1:
            raise ValueError(f"cycle_break must be a number in [0, 1], got {cycle_break!r}")
        self.cycle_break = float(cycle_break)
        self._deck = observation_slices(self.rules.num_players)["deck_size"].start
        params = self.rules.to_params()
        key = np.arange(K.R, dtype=np.float64)
        for i, r in enumerate(WILD_ORDER):
            if K.is_wild_nb(r, params):
                key[r] = 100 + i
        self._key = key

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs, mask = check_batch(observation, action_mask)
        out = self.choose(obs, mask)
        self.break_cycles(obs, mask, out)
        return out

    def break_cycles(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray) -> None:
        """Rule 6: with the draw pile empty, a decision is random with probability ``cycle_break``."""
        if self.cycle_break <= 0:
            return
        rows = np.flatnonzero((obs[:, self._deck] == 0) & (self.rng.random(len(out)) < self.cycle_break))
        for r in rows:  # rare: a short loop over those rows only
            legal = np.flatnonzero(mask[r])
            if len(legal) > 1:  # never a voluntary pickup: any other legal action instead
                legal = legal[legal != K.A_PICKUP]
            out[r] = legal[self.rng.integers(len(legal))]

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Rules 1-5 over a checked batch."""
        plays = mask[:, K.A_PLAY : K.A_PLAY + K.R * K.MAXC].reshape(-1, K.R, K.MAXC)
        counts = plays.sum(axis=2)  # legal counts run 1..c, so c is the most copies it may play
        keys = np.where(counts > 0, self._key, np.inf)
        rank = keys.argmin(axis=1)
        rows = np.arange(len(mask))
        play = K.A_PLAY + rank * K.MAXC + counts[rows, rank] - 1
        has_play = np.isfinite(keys[rows, rank])
        covers = mask[:, K.A_COVER : K.A_COVER + K.R] == 1
        cover = K.A_COVER + np.where(covers, self._key, -np.inf).argmax(axis=1)
        sneaks = mask[:, K.A_SNEAK : K.A_SNEAK + K.R * K.MAXC].reshape(-1, K.R, K.MAXC).sum(axis=2)
        s_rank = sneaks.argmax(axis=1)  # the one rank on offer
        s_count = sneaks[rows, s_rank]
        sneak = K.A_SNEAK + s_rank * K.MAXC + s_count - 1
        joker_10 = K.A_PLAY_AS + K.R10 * 2  # fatality: one Joker named 10
        choices = [
            (mask[:, K.A_READY] == 1, K.A_READY),
            (covers.any(axis=1), cover),
            ((s_count > 0) & (self._key[s_rank] < 100), sneak),
            (has_play & (self._key[rank] < 100), play),
            (mask[:, joker_10] == 1, joker_10),
            (has_play, play),
            (mask[:, K.A_FLIP] == 1, K.A_FLIP),
            (mask[:, K.A_NOMINATE] == 1, K.A_NOMINATE),
            (mask[:, K.A_PASS] == 1, K.A_PASS),
        ]
        out = np.select([c for c, _ in choices], [a for _, a in choices], default=K.A_PICKUP).astype(np.int64)
        bad = mask[rows, out] == 0
        if bad.any():
            out[bad] = mask[bad].argmax(axis=1)
        return out
