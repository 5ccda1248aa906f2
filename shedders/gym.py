"""Gymnasium views of shedders: one learner seat, the other seats played by given opponent policies.

- :class:`SingleAgentEnv`: a ``gymnasium.Env`` over one game (passes ``gymnasium.utils.env_checker.check_env``).
- :class:`VectorSingleAgentEnv`: a ``gymnasium.vector.VectorEnv`` over the batched engine (``VectorGame``).

An opponent policy is a callable ``policy(observation, action_mask) -> actions`` on batches (numpy, batch first),
or an object with such an ``act`` method (the agents' interface); the default plays uniformly random legal actions.
Observations are ``{"observation": int8[...], "action_mask": int8[A]}`` as in the AEC env; ``action_masks()``
returns the current mask (the method sb3-contrib's MaskablePPO looks for).

Illegal actions: gymnasium's tools (``check_env`` included) step with ``action_space.sample()``, which knows no
mask. With ``illegal_action="resample"`` (the default) an illegal action is replaced by a uniformly random legal
one from the game's own stream and ``info["illegal_action"]`` is True; with ``"raise"`` it raises ``ValueError``.

The learner's episode ends when it goes out (terminated: its reward is then final) or the game ends (terminated)
or reaches the ply cap (truncated). The reward is the learner's, summed over everything that happened since its
last decision.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from shedders.engine import palace as K
from shedders.rules import make_rules
from shedders.vector import VectorGame, game_seeds

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


def random_policy_for(seed: int | None = None) -> Policy:
    """A uniform random legal policy over batches, from its own numpy generator."""
    rng = np.random.default_rng(seed)

    def policy(observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        scores = rng.random(action_mask.shape) * action_mask
        return scores.argmax(axis=1)

    return policy


def _as_policy(p) -> Policy:
    if p is None:
        return random_policy_for(None)
    act = getattr(p, "act", None)
    if callable(act):
        return act
    if callable(p):
        return p
    raise ValueError(f"an opponent must be a callable (observation, action_mask) -> actions, or have .act; got {p!r}")


def _spaces(num_players: int):
    obs = spaces.Dict(
        {
            "observation": spaces.Box(-1, 127, (K.observation_size(num_players),), np.int8),
            "action_mask": spaces.Box(0, 1, (K.N_ACTIONS,), np.int8),
        }
    )
    return obs, spaces.Discrete(K.N_ACTIONS)


class SingleAgentEnv(gymnasium.Env):
    """One game; the learner sits at ``learner_seat`` (an int, or ``"random"`` for a new seat each episode)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        ruleset: str = "core",
        num_players: int = 4,
        learner_seat: int | str = 0,
        opponents=None,
        illegal_action: str = "resample",
        render_mode: str | None = None,
        **options,
    ):
        self.rules = make_rules(ruleset, num_players, **options)
        n = self.rules.num_players
        if learner_seat != "random" and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be a seat in 0..{n - 1} or 'random', got {learner_seat!r}")
        if illegal_action not in ("resample", "raise"):
            raise ValueError(f"illegal_action must be 'resample' or 'raise', got {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"unknown render_mode {render_mode!r}; allowed: ansi, None")
        self.render_mode = render_mode
        self.learner_seat_option = learner_seat
        self.learner = 0 if learner_seat == "random" else learner_seat
        self.illegal_action = illegal_action
        self.opponent = _as_policy(opponents)
        self.observation_space, self.action_space = _spaces(n)
        self._params = self.rules.to_params()
        self._state = K.alloc_state(1, n, self.rules.num_cards)
        self._mask = np.zeros(K.N_ACTIONS, np.int8)
        self._ids = np.zeros(K.N_ACTIONS, np.int16)
        self._obs = np.zeros(K.observation_size(n), np.int8)
        self._dealt = False

    # ------------------------------------------------------------------------------------------------------------
    def _learner_done(self) -> bool:
        s = self._state
        return s.phase[0] == K.PH_OVER or s.finished[0, self.learner] != 0

    def _apply(self, action: int) -> float:
        K.step_one_nb(self._state, 0, action, self._params, self._mask, self._ids)
        return float(self._state.rewards[0, self.learner])

    def _play_opponents(self) -> float:
        """Opponents act until the learner decides or its episode is over; returns the learner's rewards."""
        s = self._state
        reward = 0.0
        while not self._learner_done() and s.actor[0] != self.learner:
            K.observe_nb(s, 0, np.int64(s.actor[0]), self._params, self._obs)
            a = int(np.asarray(self.opponent(self._obs[None], self._mask[None]))[0])
            if self._mask[a] == 0:
                raise ValueError(f"opponent policy chose illegal action {a} ({K.N_ACTIONS} actions)")
            reward += self._apply(a)
        return reward

    def _observation(self) -> dict:
        K.observe_nb(self._state, 0, np.int64(self.learner), self._params, self._obs)
        mask = self._mask if self._state.actor[0] == self.learner else np.zeros_like(self._mask)
        return {"observation": self._obs.copy(), "action_mask": mask.copy()}

    def action_masks(self) -> np.ndarray:
        return self._mask.astype(bool) if self._state.actor[0] == self.learner else np.zeros(K.N_ACTIONS, bool)

    # ------------------------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        s = self._state
        if seed is not None:
            game_seed = game_seeds(seed, 1)[0]
        elif self._dealt:
            game_seed = np.uint64(K.next_game_seed_nb(s, 0))
        else:
            game_seed = np.uint64(self.np_random.integers(0, 2**63))
        self._dealt = True
        K.reset_one_nb(s, 0, game_seed, self._params, self._mask, self._ids)
        if self.learner_seat_option == "random":
            self.learner = int(self.np_random.integers(self.rules.num_players))
        self._play_opponents()  # rewards before the learner's first decision are none: nobody can go out yet
        return self._observation(), {"learner_seat": self.learner}

    def step(self, action):
        s = self._state
        illegal = not (isinstance(action, (int, np.integer)) and 0 <= action < K.N_ACTIONS and self._mask[action])
        if illegal:
            if self.illegal_action == "raise":
                raise ValueError(f"action {action!r} is not legal; legal: {np.flatnonzero(self._mask).tolist()}")
            action = K.sample_legal_nb(s, 0, self._ids, np.int64(self._mask.sum()))
        reward = self._apply(int(action))
        reward += self._play_opponents()
        terminated = bool(s.terminated[0] or s.finished[0, self.learner])
        truncated = bool(s.truncated[0]) and not terminated
        info: dict[str, Any] = {"illegal_action": illegal}
        if s.phase[0] == K.PH_OVER:
            info["placing"] = [int(p) for p in s.placing[0, : s.n_out[0]]]
        return self._observation(), reward, terminated, truncated, info

    def render(self):
        from shedders.render import render_palace

        return render_palace(self._state, self.rules, self._params, self.learner)


class VectorSingleAgentEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games on the batched engine, one learner seat each (``learner_seat``), the other seats played
    by one batched ``opponents`` policy. Autoreset is SAME_STEP: when a learner's episode ends, the returned
    observation is already the next episode's first, and ``infos["final_obs"]`` holds the last one."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        ruleset: str = "core",
        num_envs: int = 16,
        num_players: int = 4,
        learner_seat: int = 0,
        opponents=None,
        seed: int = 0,
        **options,
    ):
        self.game = VectorGame(ruleset, num_envs, num_players, seed=seed, autoreset=False, **options)
        n = self.game.num_players
        if not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be a seat in 0..{n - 1}, got {learner_seat!r}")
        self.learner = learner_seat
        self.opponent = _as_policy(opponents)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = _spaces(n)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._reward = np.zeros(num_envs, np.float32)
        self._seats = np.full(num_envs, learner_seat, np.int64)
        self._final_obs = np.zeros_like(self.game.observation)

    def _advance(self):
        """Let opponents act (and finished games be dealt again) until the learner decides in every game.
        Returns per game whether the learner's episode ended on the way, and whether that end was a truncation."""
        g = self.game
        ended = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        while True:
            over = g.current_player < 0
            learner_out = g.state.finished[:, self.learner] != 0
            newly = (over | learner_out) & ~ended
            if newly.any():
                self._final_obs[newly] = g.observe(self._seats)[newly]
                truncated |= newly & over & g.state.truncated & ~learner_out
                ended |= newly
            if over.any():
                g.redeal_finished()
                continue
            waiting = g.current_player != self.learner
            if not waiting.any():
                return ended, truncated
            acts = np.full(self.num_envs, -1, np.int64)
            idx = np.flatnonzero(waiting)
            acts[idx] = np.asarray(self.opponent(g.observation[idx], g.action_mask[idx]))
            g.step(acts)
            self._reward += np.where(ended, 0.0, g.rewards[:, self.learner])

    def _obs(self):
        return {"observation": self.game.observation.copy(), "action_mask": self.game.action_mask.copy()}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.game._seeds = game_seeds(seed, self.num_envs)
        self.game.reset()
        self._reward[:] = 0
        self._advance()
        return self._obs(), {}

    def step(self, actions):
        g = self.game
        self._reward[:] = 0
        g.step(np.asarray(actions, np.int64))
        self._reward += g.rewards[:, self.learner]
        ended, truncated = self._advance()
        infos: dict[str, Any] = {}
        if ended.any():
            infos["final_obs"] = self._final_obs.copy()
            infos["_final_obs"] = ended
        return self._obs(), self._reward.copy(), ended & ~truncated, truncated, infos

    def action_masks(self) -> np.ndarray:
        return self.game.action_mask.astype(bool)
