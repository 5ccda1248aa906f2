"""VectorGame: the batched engine, for self-play training and big tournaments.

    vg = shedders.VectorGame("core", num_envs=4096, num_players=4, seed=0)
    vg.reset()
    while training:
        actions = policy(vg.observation, vg.action_mask)   # or vg.sample_legal()
        vg.step(actions)
        vg.rewards, vg.terminated, vg.truncated, vg.final_placing

Every array is preallocated once and updated in place by ``step()``, batch first, so ``torch.from_numpy`` wraps
them without a copy. There is no Python loop over games: one numba ``prange`` loop steps the batch, each game at
its own phase and seat. Finished games record their placing and deal again from their own random stream, so a
run depends only on the seed, never on the number of threads.

Observations and action ids mean the same as in the AEC env of the same ruleset: ``observation[g]`` is what the
acting seat ``current_player[g]`` sees, ``action_mask[g]`` its legal actions. Game g with seed s is dealt exactly
as ``shedders.env(...).reset(seed=...)`` deals it when given ``game_seed(s, g)``; see ``tests/test_vector.py``.
"""

from __future__ import annotations

import numba
import numpy as np

from shedders.engine.buffers import alloc_buffers, first_illegal_nb
from shedders.envs.base import EngineHandle, game_seeds
from shedders.envs.family import family_of
from shedders.rules import make_rules

__all__ = ["VectorGame", "game_seeds"]


def _int_array(values, shape: tuple, what: str) -> np.ndarray:
    """``values`` as an integer array of ``shape``; ``ValueError`` naming ``what`` otherwise (a float, an object
    array of Python ints too large for int64, a wrong length). Booleans are not integers here."""
    a = np.asarray(values)
    if a.shape != shape or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{what} must be an integer array of shape {shape}, got {a.dtype} {a.shape}")
    return a


class VectorGame:
    """A batch of ``num_envs`` games of one ruleset, stepped together.

    Arguments are those of ``shedders.env`` (``base``, ``rules``, ``ply_cap``) plus ``num_envs`` and ``seed``;
    ``num_threads`` sets numba's thread count for this process (default: all cores). With ``autoreset=False`` a
    finished game stays over until ``redeal_finished()``, so its final state can be read first. With
    ``write_observations=False`` ``step()`` leaves ``observation`` as it was (masks, rewards and everything else
    are
    written as always), for callers that need no observation every step (random or mask-only rollouts,
    throughput measurements); ``observe(current_player)`` writes them on demand. ``reset()`` always writes them.

    Arrays, batch first, updated in place:

    - ``observation`` int8 (B, obs): the acting seat's observation; ``action_mask`` int8 (B, A);
      ``current_player`` int8 (B,): the acting seat; ``num_legal`` int16 (B,): how many actions are legal, and
      ``legal_ids`` int16 (B, A): their ids in
      ``legal_ids[g, :num_legal[g]]``.
    - ``rewards`` float32 (B, P): the last step's rewards for every seat; ``terminated``, ``truncated`` bool (B,).
    - ``final_placing`` int8 (B, P): for games that ended in the last step, seats in finishing order (the loser
      last; -1 padding when truncated, and in og, where the first player out wins and the game ends, after the
      winner), else all -1. With ``cap_rule="most_cards"`` a capped game is decided, so its placing is whole
      (``truncated`` is still set). ``final_plies`` int16 (B,): their length in decisions.
    - ``state``: the engine state (``shedders.engine.palace.PalaceState``), for search agents that clone games.
    """

    def __init__(
        self,
        ruleset: str,
        num_envs: int,
        num_players: int = 4,
        seed: int = 0,
        num_threads: int | None = None,
        autoreset: bool = True,
        write_observations: bool = True,
        **options,
    ):
        b, _ = self._setup(ruleset, num_envs, num_players, seed, num_threads, autoreset, write_observations,
                           options)
        self.family = family = family_of(self.rules)
        self._engine = family.engine
        self.params = self.rules.to_params()
        self._tables = family.tables(self.rules)  # what the family's kernels read after params (omg: the deck's)
        self.state = family.alloc_state(b, self.rules)
        self.num_actions, self.observation_size = family.sizes(self.rules)
        self._buf = alloc_buffers(b, self.num_players, self.observation_size, self.num_actions)
        (self.observation, self.action_mask, self.current_player, self.num_legal, self.legal_ids, self.rewards,
         self.terminated, self.truncated, self.final_placing, self.final_plies) = self._buf
        self._actions = np.zeros(b, np.int64)
        self._sampled = np.zeros(b, np.int64)

    def _setup(self, ruleset, num_envs, num_players, seed, num_threads, autoreset, write_observations,
               options) -> tuple[int, int]:
        """The arguments every ruleset's batch shares, checked before anything is set: (num_envs, num_players)."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if not isinstance(autoreset, (bool, np.bool_)):
            raise ValueError(f"autoreset must be True or False, got {autoreset!r}")
        if not isinstance(write_observations, (bool, np.bool_)):
            raise ValueError(f"write_observations must be True or False, got {write_observations!r}")
        cores = numba.config.NUMBA_NUM_THREADS
        if num_threads is not None and (isinstance(num_threads, bool)
                                        or not isinstance(num_threads, (int, np.integer))
                                        or not 1 <= num_threads <= cores):
            raise ValueError(f"num_threads must be an integer in 1..{cores} (or None: all), got {num_threads!r}")
        self.rules = make_rules(ruleset, num_players, **options)
        self.ruleset = ruleset
        self.num_envs = b = int(num_envs)
        self.num_players = n = self.rules.num_players
        self._seeds = game_seeds(seed, b)
        self.seed = seed
        self.autoreset = bool(autoreset)
        self.write_observations = bool(write_observations)
        if num_threads is not None:
            numba.set_num_threads(int(num_threads))
        return b, n

    def _run(self, serial, parallel, *args):
        """Call an engine entry point on every game: ``parallel(threads, state, *args)`` splits the batch over
        numba's threads; a batch of one chunk (one game, or one thread) calls ``serial(state, 0, num_envs, *args)``
        instead, the same kernel without a parallel region, which would wake numba's worker threads for nothing
        (and libgomp's workers then spin for a while, taking a core from torch or another process)."""
        threads = numba.get_num_threads()
        if min(threads, self.num_envs) <= 1:
            return serial(self.state, 0, self.num_envs, *args)
        return parallel(threads, self.state, *args)

    def _deal_seeds(self, seeds) -> np.ndarray:
        if seeds is None:
            return self._seeds
        deal = _int_array(seeds, (self.num_envs,), "seeds")
        if np.issubdtype(deal.dtype, np.signedinteger) and (deal < 0).any():
            g = int(np.flatnonzero(deal < 0)[0])
            raise ValueError(f"seeds must be non-negative, got {int(deal[g])} for game {g}")
        return deal.astype(np.uint64)

    def _checked_actions(self, actions, check: bool, first_illegal) -> np.ndarray:
        """``actions`` as the contiguous int64 array the kernels take, every value checked to be -1 or legal in its
        game (whatever ``check`` says: one pass over the batch, well under 1% of a step), before any game moves."""
        a = _int_array(actions, (self.num_envs,), "actions")
        # a strided or narrow array: copied, never compiled for
        if a.dtype != np.int64 or not a.flags.c_contiguous:
            if a.min() < -1 or a.max() >= self.num_actions:  # before the conversion, which would wrap a huge value
                self._refuse(a, int(np.flatnonzero((a < -1) | (a >= self.num_actions))[0]))
            self._actions[:] = a
            a = self._actions
        bad = first_illegal(self.action_mask, a)
        if bad >= 0:
            self._refuse(a, bad)
        return a

    def _refuse(self, a: np.ndarray, g: int) -> None:
        """``ValueError`` for game g's action: not an action id, or masked (naming the legal ones)."""
        if not -1 <= a[g] < self.num_actions:
            raise ValueError(f"action {int(a[g])} in game {g} is not an action id (0..{self.num_actions - 1}, "
                             f"or -1 to leave the game untouched)")
        legal = np.flatnonzero(self.action_mask[g])
        raise ValueError(f"action {int(a[g])} is not legal in game {g}; legal: {legal.tolist()}")

    def _checked_seats(self, seats) -> np.ndarray:
        seats = _int_array(seats, (self.num_envs,), "seats")
        out = np.flatnonzero((seats < 0) | (seats >= self.num_players))
        if len(out):
            g = int(out[0])
            raise ValueError(f"seat {int(seats[g])} in game {g} is not a seat (0..{self.num_players - 1})")
        return seats.astype(np.int64)

    def _checked_game(self, g) -> int:
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)) or not 0 <= g < self.num_envs:
            raise ValueError(f"game must be an integer in 0..{self.num_envs - 1}, got {g!r}")
        return int(g)

    def reseed(self, seed: int) -> None:
        """Deal the next ``reset()`` (and every later one without ``seeds``) from ``seed``, as
        ``VectorGame(seed=seed)`` would."""
        self._seeds = game_seeds(seed, self.num_envs)
        self.seed = seed

    @property
    def engine(self) -> EngineHandle:
        """The engine state behind the batch (game g is row g), for search agents; see ``EngineHandle``."""
        return EngineHandle(self.rules, self.state, self.params)

    def reset(self, seeds=None):
        """Deal every game afresh from the seed; returns (observation, action_mask).

        ``seeds`` (uint64, one per game) deals game g from ``seeds[g]`` instead, as ``env.reset(seed=s)`` deals
        from ``game_seeds(s, 1)[0]``: the same seed in several rows gives the same deal (duplicate tournaments)."""
        deal = self._deal_seeds(seeds)
        E = self._engine
        self._run(E.reset_range_nb, E.batch_reset_nb, deal, self.params, *self._tables, self._buf)
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self.final_placing[:] = -1
        self.final_plies[:] = 0
        return self.observation, self.action_mask

    def sample_legal(self) -> np.ndarray:
        """A uniformly random legal action per game, from each game's own stream (the array is reused)."""
        E = self._engine
        self._run(E.sample_range_nb, E.batch_sample_nb, self.legal_ids, self.num_legal, self._sampled)
        return self._sampled

    def step(self, actions, check: bool = True):
        """Apply ``actions`` (int array, shape (num_envs,); -1 leaves a game untouched this step).

        An action that is not an id, or is masked, raises ``ValueError`` naming the game and the action before any
        game moves. ``check=False`` checks the same: the kernels trust every value to be -1 or legal (an illegal
        one could write outside its game's row), and the check is one pass over the batch that costs well under 1%
        of a step, so it is never skipped; the argument stays for callers that pass it.
        Returns (observation, action_mask, rewards, terminated, truncated), the arrays updated in place.
        """
        a = self._checked_actions(actions, check, first_illegal_nb)
        E = self._engine
        self._run(E.step_range_nb, E.batch_step_nb, a, self.params, *self._tables, self._buf, self.autoreset,
                  self.write_observations)
        return self.observation, self.action_mask, self.rewards, self.terminated, self.truncated

    def redeal_finished(self) -> int:
        """With ``autoreset=False``: deal the next game (from its own stream) wherever a game is over; returns how
        many were dealt. A finished game keeps its last state, an all-zero mask and ``current_player`` -1 until
        then, and its actions must be -1."""
        return self._engine.redeal_over_nb(self.state, self.params, *self._tables, self._buf)

    def refresh_legal(self) -> None:
        """Write ``action_mask``, ``legal_ids`` and ``num_legal`` again from the games' states, as a step ends
        with (they are already current after every call of this class; ``benchmarks.engine_profile`` times it)."""
        E = self._engine
        self._run(E.legal_range_nb, E.batch_legal_nb, self.params, *self._tables, self._buf)

    def observe(self, seats) -> np.ndarray:
        """Observations of every game from the given seat per game (shape (num_envs,)), as a new array."""
        seats = self._checked_seats(seats)
        out = np.zeros_like(self.observation)
        E = self._engine
        self._run(E.observe_range_nb, E.batch_observe_nb, seats, self.params, *self._tables, out)
        return out

    def state_dict(self, g: int) -> dict:
        """Game g as a scenario dict (the same form as the AEC env's ``state_dict()``)."""
        return self.family.state.to_dict(self.state, self._checked_game(g), self.rules)

    def seats_out(self) -> np.ndarray:
        """(num_envs, num_players) bool: which seats have gone out of their game (omg: the winner, once there is
        one), as the game stands now."""
        return self.family.seats_out(self.state)

    def cards_held(self) -> np.ndarray:
        """(num_envs, num_players) int64: the cards each seat still has to get rid of (hand, face-up and face-down;
        omg: the hand), as the game stands now. Training's reward shaping reads it (``train_ppo --shaping``)."""
        return self.family.cards_held(self.state)

    @property
    def state_bytes_per_game(self) -> int:
        """Bytes of engine state per game (the observation and mask buffers not counted)."""
        return sum(a.nbytes for a in self.state) // self.num_envs

