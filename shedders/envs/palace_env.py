"""The PettingZoo AEC environment for the palace family: a batch of one over the numba kernels."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces

from shedders.engine import palace as K
from shedders.envs import palace_state
from shedders.envs.actions import ACTION_IDS, ACTION_NAMES
from shedders.envs.base import (
    OrderEnforcing,
    ShedEnv,
    as_action_id,
    direct,
    layout_slices,
    layout_table,
    scenario_option,
)
from shedders.envs.render import palace_constraint, render_palace
from shedders.envs.scenario import commit
from shedders.rules import REGISTRY, PalaceRules, make_rules

__all__ = ["ACTION_IDS", "ACTION_NAMES", "VERSIONS", "PalaceEnv", "env", "fatality_info", "observation_slices",
           "observation_table", "raw_env"]


#: env versions by ruleset (``shedders_<ruleset>_v<N>``, module ``<ruleset>_v<N>``); a change that alters play
#: bumps it and says why in its record's ``version_notes`` (``shedders.rules.registry``), shown on the docs page
VERSIONS = {r.name: r.version for r in REGISTRY.values() if r.version}  # the env's _vN where N > 0


def observation_table(num_players: int) -> str:
    """The palace observation layout as a Markdown table."""
    return layout_table(K.observation_layout(num_players))


def observation_slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the palace observation vector."""
    return layout_slices(K.observation_layout(num_players))


class PalaceEnv(ShedEnv):
    """Shithead / Palace as a PettingZoo AEC environment (see the ruleset modules for the docs)."""

    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human"], "name": "shedders_palace_v0",
                                "is_parallelizable": False}

    def __init__(self, rules: PalaceRules, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; allowed: ansi, human, None")
        self.rules = rules
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"shedders_{rules.name}_v{VERSIONS.get(rules.name, 0)}")
        n = rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._params = rules.to_params()
        self._state = K.alloc_state(1, n, rules.num_cards)
        self._mask = np.zeros(K.N_ACTIONS, np.int8)
        self._zero_mask = np.zeros(K.N_ACTIONS, np.int8)
        self._ids = np.zeros(K.N_ACTIONS, np.int16)  # legal ids, in the mask kernel's order
        self._action_ids = ACTION_IDS
        self._phase_names = K.PHASE_NAMES
        self._obs_size = K.observation_size(n)
        # the two kernels of every step, called past the dispatcher (base.direct): the AEC step's largest cost
        self._observe_nb = direct(K.observe_nb, self._state, 0, 0, self._params, np.empty(self._obs_size, np.int8))
        self._step_nb = direct(K.step_one_nb, self._state, 0, 0, self._params, self._mask, self._ids)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low=-1, high=127, shape=(self._obs_size,), dtype=np.int8),
                "action_mask": spaces.Box(low=0, high=1, shape=(K.N_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(K.N_ACTIONS) for a in self.possible_agents}
        self._dealt = False
        self.last_loser: int | None = None  # for Shithead shaming across games of a Match
        self.agents = []

    # ----------------------------------------------------------------------------------------------------------
    # PettingZoo API
    # ----------------------------------------------------------------------------------------------------------
    @property
    def action_names(self) -> tuple[str, ...]:
        return ACTION_NAMES

    def _over(self) -> bool:
        return self._state.phase[0] == K.PH_OVER

    def reset(self, seed: int | None = None, options: dict | None = None):
        s = self._state
        scenario = scenario_option(options)
        loaded = None if scenario is None else palace_state.parse(self.rules, scenario)  # checked before any write
        game_seed = self._game_seed(seed, K.next_game_seed_nb)
        if loaded is None:
            K.reset_one_nb(s, 0, game_seed, self._params, self._mask, self._ids)
        else:
            commit(s, 0, loaded)
            s.rng[0] = K.splitmix64_nb(np.uint64(game_seed))  # the scenario's random stream
            K.legal_mask_nb(s, 0, self._params, self._mask, self._ids)
        self.agents = [a for i, a in enumerate(self.possible_agents) if not s.finished[0, i]]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._rewards_dirty = False
        self._n_out = int(s.n_out[0])
        self.agent_selection = self.possible_agents[s.actor[0]]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        obs = np.empty(self._obs_size, np.int8)
        seat = self._seat[agent]
        self._observe_nb(self._state, 0, seat, self._params, obs)
        is_actor = self._state.phase[0] != K.PH_OVER and self._state.actor[0] == seat
        mask = self._mask.copy() if is_actor else self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self._state
        a = as_action_id(action)
        if self._step_nb(s, 0, a, self._params, self._mask, self._ids) < 0:
            raise ValueError(self._illegal_message(action))
        self._cumulative_rewards[agent] = 0.0
        rewards = s.rewards[0]
        # a palace step pays rewards only where somebody goes out or the game ends (a capped game's places):
        # the test below spares the array scan on every other step
        paid = (s.n_out[0] != self._n_out or s.phase[0] == K.PH_OVER) and bool(rewards.any())
        if paid:
            for a in self.agents:
                r = float(rewards[self._seat[a]])
                self.rewards[a] = r
                self._cumulative_rewards[a] += r
        elif self._rewards_dirty:
            for a in self.agents:
                self.rewards[a] = 0.0
        self._rewards_dirty = paid
        if s.phase[0] == K.PH_OVER:
            done = self.terminations if s.terminated[0] else self.truncations
            for a in self.agents:
                done[a] = True
            if s.terminated[0] or self.rules.cap_rule == "most_cards":  # decided, by the rules or at the cap
                info = {"placing": self.placing()}
                if self.rules.family == K.FAM_FAT:
                    info.update(fatality_info(int(s.last_rank[0])))
                self.infos = {a: dict(info) for a in self.agents}
                self.last_loser = self.loser()
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[s.actor[0]]
            if s.n_out[0] != self._n_out:  # somebody went out: terminated at once, stepped with None first
                self._n_out = int(s.n_out[0])
                for a in self.agents:
                    if s.finished[0, self._seat[a]]:
                        self.terminations[a] = True
                self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    # ----------------------------------------------------------------------------------------------------------
    # shedders extras
    # ----------------------------------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The whole state as a scenario dict (the README's "Scenarios"); reset(options={"scenario": it})
        continues the game."""
        return palace_state.to_dict(self._state, 0, self.rules)

    def placing(self) -> list[int]:
        s = self._state
        return [int(p) for p in s.placing[0, : s.n_out[0]]]

    def loser(self) -> int | None:
        """The Shithead of a finished game: the one player who never went out (None in og, or while two or more
        are still in)."""
        s = self._state
        left = [i for i in range(self.rules.num_players) if not s.finished[0, i]]
        return left[0] if len(left) == 1 else None

    def sample_legal(self) -> int:
        """A uniformly random legal action, drawn from the game's own random stream (as
        ``VectorGame.sample_legal``);
        -1 when the game is over."""
        if self._over():
            return -1
        return int(K.sample_legal_nb(self._state, 0, self._ids, np.int64(self._mask.sum())))

    def apply_losers_tax(self, loser: int, winner: int) -> None:
        """house "Loser's tax", at the deal of a new game (``Match`` calls it): the last loser's best hand card is
        swapped with the last winner's worst hand card (R-LOSERS-TAX). The legal actions are recomputed."""
        n = self.rules.num_players
        for what, q in (("loser", loser), ("winner", winner)):
            if isinstance(q, bool) or not isinstance(q, (int, np.integer)) or not 0 <= q < n:
                raise ValueError(f"{what} must be a seat in 0..{n - 1}, got {q!r}")
        K.losers_tax_nb(self._state, 0, int(loser), int(winner), self._params)
        K.legal_mask_nb(self._state, 0, self._params, self._mask, self._ids)

    @property
    def constraint(self) -> str:
        """What the decision now asks, in words: the pile's constraint ("play 9 or higher (or a wild)") or, in the
        phases the pile does not decide, the decision itself (an og 3: "pick up the pile (a 3 was played)")."""
        return palace_constraint(self._state, self.rules, self._params)

    def render_text(self, seat: int | None = None) -> str:
        """The table as seat ``seat`` (default: the player deciding now) sees it."""
        return render_palace(self._state, self.rules, self._params, seat, self.last_loser)


#: seed 002 "Fatalities": the last play of the game, by rank (as it stood for).
FATALITIES = {K.R8: "mic drop", K.R10: "burn unit"}


def fatality_info(last_rank: int) -> dict:
    """fatality's final info: the rank of the last play and its fatality (None when it has no name)."""
    return {
        "last_play": K.RANK_NAMES[last_rank] if last_rank >= 0 else None,
        "fatality": FATALITIES.get(last_rank),
    }


def raw_env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs) -> PalaceEnv:
    return PalaceEnv(make_rules(ruleset, num_players, **kwargs), render_mode=render_mode)


def env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The raw env behind PettingZoo's order-enforcing wrapper only: TerminateIllegalWrapper would end the game on
    a
    masked action (shedders raises ValueError instead), and the other wrappers cost more than the step."""
    return OrderEnforcing(raw_env(ruleset, num_players, render_mode, **kwargs))
