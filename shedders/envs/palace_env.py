"""The PettingZoo AEC environment for the palace family: a batch of one over the numba kernels."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from shedders import palace_state
from shedders.engine import palace as K
from shedders.rules import PalaceRules, make_rules
from shedders.scenario import commit
from shedders.vector import game_seeds


def action_names() -> tuple[str, ...]:
    """Every palace action's name, by id (CONTRACT.md's action names)."""
    names = [""] * K.N_ACTIONS
    for r in range(K.R):
        for c in range(1, K.MAXC + 1):
            names[K.A_PLAY + r * K.MAXC + c - 1] = f"play {c}x{K.RANK_NAMES[r]}"
    names[K.A_PICKUP] = "pickup"
    names[K.A_FLIP] = "flip"
    for h in range(K.R):
        for u in range(K.R):
            names[K.A_SWAP + h * K.R + u] = f"swap {K.RANK_NAMES[h]} for {K.RANK_NAMES[u]}"
    names[K.A_READY] = "ready"
    names[K.A_PASS] = "pass"
    for k in range(1, K.MAXP):
        names[K.A_NOMINATE + k - 1] = f"nominate +{k}"
    rn = K.RANK_NAMES
    for r in range(13):
        for k in range(1, K.UP_K + 1):
            for m in range(1, K.UP_K + 1):
                names[K.A_PLAY_UP + r * K.UP_K * K.UP_K + (k - 1) * K.UP_K + m - 1] = f"play {k}x{rn[r]} +{m}up"
        for k in (1, 2):
            names[K.A_PLAY_AS + r * 2 + k - 1] = f"play {k}xJOKER as {rn[r]}"
        for k in range(1, K.THREES_K + 1):
            for m in range(4):
                up = f" +{m}up" if m else ""
                names[K.A_THREES_AS + r * 16 + (k - 1) * 4 + m] = f"play {k}x3 as {rn[r]}{up}"
    for r in range(K.R):
        names[K.A_PICKUP_WITH + r] = f"pickup with {rn[r]}"
        names[K.A_COVER + r] = f"cover {rn[r]}"
        for c in range(1, K.MAXC + 1):
            names[K.A_SNEAK + r * K.MAXC + c - 1] = f"sneak {c}x{rn[r]}"
    assert all(names) and len(set(names)) == len(names)
    return tuple(names)


ACTION_NAMES = action_names()
ACTION_IDS = {name: i for i, name in enumerate(ACTION_NAMES)}

#: env versions by ruleset (``shedders_<ruleset>_v<N>``, module ``<ruleset>_v<N>``); a change that alters play
#: bumps it and says why in the module's version history (``shedders.envs._docs.VERSION_NOTES``)
VERSIONS = {"house": 1}


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


def observation_table(num_players: int) -> str:
    """The palace observation layout as a Markdown table."""
    return layout_table(K.observation_layout(num_players))


def observation_slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the palace observation vector."""
    return layout_slices(K.observation_layout(num_players))


class ShedEnv(AECEnv):
    """What every shedders AEC env shares: spaces by agent, action names and ids, legal actions, the illegal-action
    message and rendering. Subclasses set ``_state``, ``_mask``, ``_action_ids`` and implement ``render_text``,
    ``_over()`` and ``state_dict``."""

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

    def _illegal_message(self, action) -> str:
        a = _as_int(action)
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
        """The deal's seed: from ``seed`` (game 0 of ``VectorGame(seed=seed)``); else the next deal of the game's own
        stream (``next_seed``, as VectorGame deals a finished game's next one); else fresh entropy."""
        if seed is not None:
            game_seed = game_seeds(seed, 1)[0]  # ValueError for a bad seed, before anything changes
        elif self._dealt:
            game_seed = np.uint64(next_seed(self._state, 0))
        else:
            game_seed = np.random.SeedSequence().generate_state(1, np.uint64)[0]
        self._dealt = True
        return game_seed


class PalaceEnv(ShedEnv):
    """Shithead / Palace as a PettingZoo AEC environment (see the ruleset modules for the docs)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "shedders_palace_v0", "is_parallelizable": False}

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
        self._obs_size = K.observation_size(n)
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
        scenario = _scenario_option(options)
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
        K.observe_nb(self._state, 0, seat, self._params, obs)
        is_actor = self._state.phase[0] != K.PH_OVER and self._state.actor[0] == seat
        mask = self._mask.copy() if is_actor else self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self._state
        a = _as_int(action)
        if K.step_one_nb(s, 0, a, self._params, self._mask, self._ids) < 0:
            raise ValueError(self._illegal_message(action))
        self._cumulative_rewards[agent] = 0.0
        rewards = s.rewards[0]
        if rewards.any():
            for a in self.agents:
                r = float(rewards[self._seat[a]])
                self.rewards[a] = r
                self._cumulative_rewards[a] += r
        elif self._rewards_dirty:
            for a in self.agents:
                self.rewards[a] = 0.0
        self._rewards_dirty = bool(rewards.any())
        if s.phase[0] == K.PH_OVER:
            done = self.terminations if s.terminated[0] else self.truncations
            for a in self.agents:
                done[a] = True
            if s.terminated[0] or self.rules.cap_rule == "most_cards":  # decided, by the rules or at the cap
                info = {"placing": self.placing()}
                if self.rules.family == K.FAM_FAT:
                    info.update(fatality_info(int(s.last_rank[0])))
                self.infos = {a: dict(info) for a in self.agents}
                self.last_loser = self._loser()
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
        """The whole state as a scenario dict (CONTRACT.md); reset(options={"scenario": it}) continues the game."""
        return palace_state.to_dict(self._state, 0, self.rules)

    def placing(self) -> list[int]:
        s = self._state
        return [int(p) for p in s.placing[0, : s.n_out[0]]]

    def _loser(self) -> int | None:
        s = self._state
        left = [i for i in range(self.rules.num_players) if not s.finished[0, i]]
        return left[0] if len(left) == 1 else None

    def render_text(self, seat: int | None = None) -> str:
        """The table as seat ``seat`` (default: the player deciding now) sees it."""
        from shedders.render import render_palace

        return render_palace(self._state, self.rules, self._params, seat, self.last_loser)


#: seed 002 "Fatalities": the last play of the game, by rank (as it stood for).
FATALITIES = {K.R8: "mic drop", K.R10: "burn unit"}


def fatality_info(last_rank: int) -> dict:
    """fatality's final info: the rank of the last play and its fatality (None when it has no name)."""
    return {
        "last_play": K.RANK_NAMES[last_rank] if last_rank >= 0 else None,
        "fatality": FATALITIES.get(last_rank),
    }


def _as_int(action) -> int:
    """An integer action id, or -1 for anything that is not one (None, a float, a string, a number too large for
    any action space), so that every bad action meets the same ``ValueError``."""
    if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
        action = action.item()
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        a = int(action)
        return a if 0 <= a < 2**31 else -1
    return -1


def _scenario_option(options):
    """``options["scenario"]`` (None without one); ``options`` must be a dict or None. Other keys are ignored."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
    return options.get("scenario")


def raw_env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs) -> PalaceEnv:
    return PalaceEnv(make_rules(ruleset, num_players, **kwargs), render_mode=render_mode)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, with ``last()`` answered by the env itself: the inherited ``last()``
    reads five attributes through the wrapper's ``__getattr__``, which cost more than the engine's step."""

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset")
        return self.env.last(observe)


def env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The raw env behind PettingZoo's order-enforcing wrapper only: TerminateIllegalWrapper would end the game on a
    masked action (shedders raises ValueError instead), and the other wrappers cost more than the step."""
    return OrderEnforcing(raw_env(ruleset, num_players, render_mode, **kwargs))
