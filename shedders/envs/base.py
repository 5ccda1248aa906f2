"""What every shedders env shares: the AEC base class, action-id parsing, observation layout tables, deal seeds,
PettingZoo's order-enforcing wrapper, and the documented engine handle that search agents read.

Nothing here imports a kernel module: the layout of each family comes from ``shedders.engine.<family>.layout``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from shedders.rules.registry import lookup


def game_seeds(seed: int, num_games: int, start: int = 0) -> np.ndarray:
    """Per-game deal seeds derived from one seed (game g of VectorGame(seed=s) is dealt from
    game_seeds(s, g+1)[g])."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(int(seed)).generate_state(start + num_games, np.uint64)[start:]


def as_action_id(action) -> int:
    """An integer action id, or -1 for anything that is not one (None, a float, a string, a number too large for
    any action space), so that every bad action meets the same ``ValueError``."""
    if type(action) is int:  # the common case first: a plain int (bool is its own type)
        return action if 0 <= action < 2**31 else -1
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action.item()
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        a = int(action)
        return a if 0 <= a < 2**31 else -1
    return -1


def direct(kernel, *args):
    """``kernel``'s compiled entry point for the types of ``args``, to be called without numba's dispatcher.

    The dispatcher works out the type of every argument on every call; for an engine state (a namedtuple of some 30
    arrays) that takes about 2.5 microseconds, most of what a one-game kernel call costs, and an AEC step makes
    two.
    The entry point is the same machine code (compiled here, or loaded from the cache) and converts the arguments
    as the dispatcher does once the types are known, so it must only be given arguments of exactly these types: an
    env's own state and buffers, and Python ints."""
    import numba

    key = (kernel, _kind(args))
    if key not in _DIRECT:  # numba.typeof of a state and Dispatcher.compile take ~0.5 ms: once per signature
        _DIRECT[key] = kernel.compile(tuple(numba.typeof(a) for a in args))
    return _DIRECT[key]


_DIRECT: dict = {}


def _kind(x):
    """What numba's type of ``x`` depends on, cheaply: the dtype, rank and layout of an array, recursively."""
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.ndim, x.flags.c_contiguous, x.flags.writeable)
    if isinstance(x, tuple):
        return (type(x), tuple(_kind(a) for a in x))
    return type(x)


def scenario_option(options):
    """``options["scenario"]`` (None without one); ``options`` must be a dict or None. Other keys are ignored."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    return options.get("scenario")


def layout_table(layout) -> str:
    """An observation layout [(name, size, meaning)] as a Markdown table (generated, for the docs)."""
    rows = ["| index | name | size | meaning |", "|---|---|---|---|"]
    o = 0
    for name, size, meaning in layout:
        span = f"{o}" if size == 1 else f"{o}-{o + size - 1}"
        rows.append(f"| {span} | `{name}` | {size} | {meaning} |")
        o += size
    return "\n".join(rows)


def layout_slices(layout) -> dict[str, slice]:
    """Name -> slice of the observation vector, for an observation layout [(name, size, meaning)]."""
    out, o = {}, 0
    for name, size, _ in layout:
        out[name] = slice(o, o + size)
        o += size
    return out


@dataclass(frozen=True)
class EngineHandle:
    """The engine state behind an env or a ``VectorGame``, for agents that search (they copy a game and play it
    out): ``rules`` (the ruleset's config), ``state`` (the struct-of-arrays state, batch first: a ``PalaceState``
    or an ``OmgState`` of ``shedders.engine.<family>.layout``) and ``params`` (the rules' int array the kernels
    read). The AEC env's game is row 0. Read it, never write it: the env owns it."""

    rules: Any
    state: Any
    params: np.ndarray

    @property
    def family(self) -> str:
        return lookup(self.rules.name).family


class ShedEnv(AECEnv):
    """What every shedders AEC env shares: spaces by agent, action names and ids, legal actions, the illegal-action
    message, rendering, deal seeds and the engine handle. Subclasses set ``_state``, ``_params``, ``_mask`` and
    ``_action_ids`` and implement ``render_text``, ``_over()`` and ``state_dict``."""

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def action_id(self, name: str) -> int:
        try:
            return self._action_ids[name]
        except KeyError:
            raise ValueError(f"unknown action name {name!r}; see env.unwrapped.action_names") from None

    def legal_actions(self) -> list[int]:
        return [] if self._over() else [int(a) for a in np.flatnonzero(self._mask)]

    def legal_action_names(self) -> list[str]:
        names = self.action_names
        return [names[a] for a in self.legal_actions()]

    def seat(self, agent: str) -> int:
        """The seat of agent ``player_<i>`` (``ValueError`` for an unknown agent)."""
        try:
            return self._seat[agent]
        except KeyError:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}") from None

    @property
    def engine(self) -> EngineHandle:
        """The engine state behind this env (its game is row 0), for search agents; see ``EngineHandle``."""
        return EngineHandle(self.rules, self._state, self._params)

    @property
    def game_over(self) -> bool:
        """True once the game is over (decided, or at the ply cap)."""
        return self._over()

    @property
    def game_terminated(self) -> bool:
        """True once the game has ended by its rules."""
        return bool(self._state.terminated[0])

    @property
    def game_truncated(self) -> bool:
        """True once the game has reached the ply cap (whatever ``cap_rule`` made of it)."""
        return bool(self._state.truncated[0])

    @property
    def phase(self) -> str:
        """The kind of decision pending, as ``state_dict()["phase"]`` names it ("over" once the game is over)."""
        return self._phase_names[int(self._state.phase[0])]

    @property
    def turn(self) -> int:
        """The seat whose turn it is (it differs from the seat deciding now in out-of-turn windows)."""
        return int(self._state.turn[0])

    @property
    def step_rewards(self) -> np.ndarray:
        """Every seat's reward from the last step (a copy; float32, one per seat, stepped agents or not)."""
        return self._state.rewards[0].copy()

    @property
    def random_stream(self) -> int:
        """The game's random stream (a uint64 state). Setting it restores a recorded stream (replays)."""
        return int(self._state.rng[0])

    @random_stream.setter
    def random_stream(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < 2**64:
            raise ValueError(f"random_stream must be an integer in 0..2**64-1, got {value!r}")
        self._state.rng[0] = np.uint64(int(value))

    def _illegal_message(self, action) -> str:
        a = as_action_id(action)
        name = self.action_names[a] if 0 <= a < len(self.action_names) else "not an action id"
        return (
            f"action {action!r} ({name}) is not legal for {self.agent_selection}; "
            f"legal: {', '.join(self.legal_action_names())}"
        )

    def render(self):
        if self.render_mode is None:
            return None
        text = self.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass

    def _game_seed(self, seed, next_seed) -> np.uint64:
        """The deal's seed: from ``seed`` (game 0 of ``VectorGame(seed=seed)``); else the next deal of the game's
        own
        stream (``next_seed``, as VectorGame deals a finished game's next one); else fresh entropy."""
        if seed is not None:
            game_seed = game_seeds(seed, 1)[0]  # ValueError for a bad seed, before anything changes
        elif self._dealt:
            game_seed = np.uint64(next_seed(self._state, 0))
        else:
            game_seed = np.random.SeedSequence().generate_state(1, np.uint64)[0]
        self._dealt = True
        return game_seed


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, with ``last()`` answered by the env itself: the inherited ``last()``
    reads five attributes through the wrapper's ``__getattr__``, which cost more than the engine's step."""

    def step(self, action) -> None:
        # the inherited step reads ``agents`` through the wrapper's ``__getattr__`` and steps through one more
        # wrapper layer: as much as a third of an AEC step; the same checks, read from the env directly
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset")
        return self.env.last(observe)
