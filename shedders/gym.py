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

from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from shedders.envs.family import family_of
from shedders.rules import REGISTRY, make_rules
from shedders.vector import VectorGame

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
    raise ValueError("an opponent must be a callable (observation, action_mask) -> actions, or have .act; got "
                     f"{p!r}")


def _spaces(rules):
    num_actions, observation_size = family_of(rules).sizes(rules)
    obs = spaces.Dict(
        {
            "observation": spaces.Box(-1, 127, (observation_size,), np.int8),
            "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
        }
    )
    return obs, spaces.Discrete(num_actions)


class SingleAgentEnv(gymnasium.Env):
    """One game; the learner sits at ``learner_seat`` (an int, or ``"random"`` for a new seat each episode)."""

    metadata: ClassVar[dict] = {"render_modes": ["ansi"]}

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
        self._default_opponent = opponents is None  # random, drawn from a generator seeded by reset(seed=...)
        self.opponent = _as_policy(opponents)
        self.observation_space, self.action_space = _spaces(self.rules)
        # the game, as the AEC env plays it (the learner's seat is one of it)
        self.env = family_of(self.rules).env_class(self.rules)
        self._num_actions = self.action_space.n

    # ------------------------------------------------------------------------------------------------------------
    def _learner_agent(self) -> str:
        return f"player_{self.learner}"

    def _learner_out(self) -> bool:
        """The learner went out (PettingZoo terminates it at once, and drops it once stepped with None)."""
        agent = self._learner_agent()
        return agent not in self.env.terminations or self.env.terminations[agent]

    def _learner_done(self) -> bool:
        return self.env.game_over or self._learner_out()

    def _apply(self, action: int) -> float:
        self.env.step(action)
        self.env.last_loser = None  # the gym view names no Shithead (no games in a row here)
        return float(self.env.step_rewards[self.learner])

    def _play_opponents(self) -> float:
        """Opponents act until the learner decides or its episode is over; returns the learner's rewards."""
        env = self.env
        reward = 0.0
        while not self._learner_done() and env.agent_selection != self._learner_agent():
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:  # out: PettingZoo steps it with None first
                env.step(None)
                continue
            view = env.observe(agent)
            a = int(np.asarray(self.opponent(view["observation"][None], view["action_mask"][None]))[0])
            if not (0 <= a < self._num_actions and view["action_mask"][a]):
                raise ValueError(f"opponent policy chose illegal action {a} ({self._num_actions} actions)")
            reward += self._apply(a)
        return reward

    def _observation(self) -> dict:
        return self.env.observe(self._learner_agent())

    def action_masks(self) -> np.ndarray:
        return self.env.observe(self._learner_agent())["action_mask"].astype(bool)

    # ------------------------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.env.reset(seed=seed)
        if self._default_opponent and seed is not None:
            self.opponent = random_policy_for(int(self.np_random.integers(2**63)))
        if self.learner_seat_option == "random":
            self.learner = int(self.np_random.integers(self.rules.num_players))
        self._play_opponents()  # rewards before the learner's first decision are none: nobody can go out yet
        return self._observation(), {"learner_seat": self.learner}

    def step(self, action):
        env = self.env
        deciding = env.agent_selection == self._learner_agent() and not self._learner_done()
        legal = env.legal_actions() if deciding else []
        illegal = not (isinstance(action, (int, np.integer)) and int(action) in legal)
        if illegal:
            if self.illegal_action == "raise":
                raise ValueError(f"action {action!r} is not legal; legal: {legal}")
            action = env.sample_legal()
        reward = self._apply(int(action))
        reward += self._play_opponents()
        terminated = bool(env.game_terminated or self._learner_out())
        truncated = env.game_truncated and not terminated
        info: dict[str, Any] = {"illegal_action": illegal}
        if env.game_over:
            info["placing"] = env.placing()
        return self._observation(), reward, terminated, truncated, info

    def render(self):
        return self.env.render_text(seat=self.learner)


class VectorSingleAgentEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games on the batched engine, one learner seat each (``learner_seat``), the other seats played
    by one batched ``opponents`` policy. Autoreset is SAME_STEP: when a learner's episode ends, the returned
    observation is already the next episode's first, and ``infos["final_obs"]`` holds the last one."""

    metadata: ClassVar[dict] = {"autoreset_mode": AutoresetMode.SAME_STEP}

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
        self.single_observation_space, self.single_action_space = _spaces(self.game.rules)
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
            learner_out = g.seats_out()[:, self.learner]
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
            self.game.reseed(seed)
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


def register_gymnasium_ids() -> None:
    """Register ``shedders/<ruleset>-single-v<N>`` (every ruleset; N is the AEC env's version) with gymnasium,
    so that gymnasium's tools find the single-agent views: ``gymnasium.make("shedders/core-single-v0",
    num_players=4)`` builds a ``SingleAgentEnv``, ``gymnasium.make_vec("shedders/core-single-v0", num_envs=64)`` a
    ``VectorSingleAgentEnv``. Importing ``shedders`` registers them."""
    from gymnasium.envs.registration import register, registry

    for ruleset, record in REGISTRY.items():
        env_id = f"shedders/{ruleset}-single-v{record.version}"
        if env_id not in registry:
            register(env_id, entry_point="shedders.gym:SingleAgentEnv",
                     vector_entry_point="shedders.gym:VectorSingleAgentEnv", kwargs={"ruleset": ruleset})
