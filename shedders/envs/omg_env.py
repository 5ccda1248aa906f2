"""The PettingZoo AEC environment for omg: a batch of one over the numba kernels of ``shedders.engine.omg``."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces

from shedders.engine import omg as O
from shedders.envs import omg_state
from shedders.envs.actions import omg_action_names as action_names
from shedders.envs.base import (
    OrderEnforcing,
    ShedEnv,
    as_action_id,
    direct,
    layout_slices,
    layout_table,
    scenario_option,
)
from shedders.envs.render import omg_constraint, render_omg
from shedders.envs.scenario import commit
from shedders.rules import OmgRules, make_rules

__all__ = ["OmgEnv", "action_names", "env", "observation_slices", "observation_table", "raw_env"]


def observation_table(num_players: int, num_types: int = 96) -> str:
    return layout_table(O.observation_layout(num_players, num_types))


def observation_slices(num_players: int, num_types: int = 96) -> dict[str, slice]:
    return layout_slices(O.observation_layout(num_players, num_types))


class OmgEnv(ShedEnv):
    """OMG as a PettingZoo AEC environment (see ``shedders.envs.omg_v0`` for the docs)."""

    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human"], "name": "shedders_omg_v0",
                                "is_parallelizable": False}

    def __init__(self, rules: OmgRules, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; allowed: ansi, human, None")
        self.rules = rules
        self.render_mode = render_mode
        n = rules.num_players
        deck = rules.deck
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._params = rules.to_params()
        self._cards = deck.table()
        self._counts = np.asarray(deck.count, np.int64)
        self._lay = O.layout_array(deck.num_types)
        self._names = action_names(rules)
        self._action_ids = {name: i for i, name in enumerate(self._names)}
        self._phase_names = O.PHASE_NAMES
        self.num_actions = len(self._names)
        self._state = O.alloc_state(1, n, deck.num_types, deck.num_cards)
        self._mask = np.zeros(self.num_actions, np.int8)
        self._zero_mask = np.zeros(self.num_actions, np.int8)
        self._ids = np.zeros(self.num_actions, np.int16)
        self._obs_size = O.observation_size(n, deck.num_types)
        # the two kernels of every step, called past the dispatcher (base.direct): the AEC step's largest cost
        self._observe_nb = direct(O.observe_nb, self._state, 0, 0, self._params, self._cards,
                                  np.empty(self._obs_size, np.int8))
        self._step_nb = direct(O.step_nb, self._state, 0, 0, self._params, self._cards, self._lay, self._mask,
                               self._ids)
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=-1, high=127, shape=(self._obs_size,), dtype=np.int8),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._dealt = False
        self.last_loser = None
        self.agents = []

    @property
    def action_names(self) -> tuple[str, ...]:
        return self._names

    def _over(self) -> bool:
        return self._state.phase[0] == O.PH_OVER

    def reset(self, seed: int | None = None, options: dict | None = None):
        s = self._state
        scenario = scenario_option(options)
        loaded = None if scenario is None else omg_state.parse(self.rules, scenario)  # checked before any write
        game_seed = self._game_seed(seed, O.next_game_seed_nb)
        if loaded is None:
            O.reset_one_nb(s, 0, game_seed, self._params, self._counts, self._cards, self._lay, self._mask,
                           self._ids)
        else:
            commit(s, 0, loaded)
            s.rng[0] = O.splitmix64_nb(np.uint64(game_seed))
            O.legal_mask_nb(s, 0, self._params, self._cards, self._lay, self._mask, self._ids)
        over = s.phase[0] == O.PH_OVER
        self.agents = [] if over else list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[0 if over else s.turn[0]]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        obs = np.empty(self._obs_size, np.int8)
        seat = self._seat[agent]
        self._observe_nb(self._state, 0, seat, self._params, self._cards, obs)
        is_actor = self._state.phase[0] != O.PH_OVER and self._state.turn[0] == seat
        return {"observation": obs, "action_mask": self._mask.copy() if is_actor else self._zero_mask.copy()}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self._state
        a = as_action_id(action)
        if self._step_nb(s, 0, a, self._params, self._cards, self._lay, self._mask, self._ids) < 0:
            raise ValueError(self._illegal_message(action))
        self._cumulative_rewards[agent] = 0.0
        for a_ in self.agents:
            self.rewards[a_] = float(s.rewards[0, self._seat[a_]])
            self._cumulative_rewards[a_] += self.rewards[a_]
        if s.phase[0] == O.PH_OVER:
            done = self.terminations if s.terminated[0] else self.truncations
            for a_ in self.agents:
                done[a_] = True
            if s.winner[0] >= 0:  # won (a capped game has no winner, whatever the cap rule)
                self.infos = {a_: {"placing": self.placing()} for a_ in self.agents}
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[s.turn[0]]
        if self.render_mode == "human":
            self.render()

    # shedders extras --------------------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        return omg_state.to_dict(self._state, 0, self.rules)

    def placing(self) -> list[int]:
        w = int(self._state.winner[0])
        return [w] if w >= 0 else []

    def sample_legal(self) -> int:
        """A uniformly random legal action, drawn from the game's own random stream (as
        ``VectorGame.sample_legal``);
        -1 when the game is over."""
        if self._over():
            return -1
        out = np.zeros(1, np.int64)
        O.sample_range_nb(self._state, 0, 1, self._ids[None], np.array([self._mask.sum()], np.int16), out)
        return int(out[0])

    def loser(self) -> None:
        """None: an omg game has a winner, no loser (as ``PalaceEnv.loser`` in og)."""

    @property
    def constraint(self) -> str:
        """What the pile's top asks, in words (as the rendered table says it)."""
        return omg_constraint(self._state, self.rules)

    def render_text(self, seat: int | None = None) -> str:
        return render_omg(self._state, self.rules, self._params, self._cards, self._lay, seat)


def raw_env(num_players: int = 4, render_mode: str | None = None, **kwargs) -> OmgEnv:
    return OmgEnv(make_rules("omg", num_players, **kwargs), render_mode=render_mode)


def env(num_players: int = 4, render_mode: str | None = None, **kwargs):
    return OrderEnforcing(raw_env(num_players, render_mode, **kwargs))
