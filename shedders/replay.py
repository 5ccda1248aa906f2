"""Replays: any game saved as JSON lines, loaded back into the env, every state reproduced exactly.

A replay file has one JSON object per line:

1. a header: ``{"type": "header", "format": "shedders-replay/1", "ruleset", "num_players", "env_kwargs",
   "seed", "rng", "players", "source", "initial_state"}``. ``initial_state`` is the scenario dict of the
   game's first state (``env.unwrapped.state_dict()``), ``rng`` the game's random stream at that point (a
   decimal string: the palace engine still draws from it after the deal, for fatality's first player and the
   house slap), ``players`` a label per seat (``"human"``, ``"expert"``, ...), ``seed`` the seed the game was
   dealt from (for reference; the replay starts from ``initial_state`` and ``rng``, so games dealt by a
   ``VectorGame`` row replay the same way).
2. one line per decision: ``{"type": "step", "ply", "agent", "action", "name", "hash"}``; ``hash`` is
   :func:`state_hash` of the state after the decision, so a replay checks itself step by step.
3. optionally a footer: ``{"type": "end", "placing", "rewards", "truncated"}``.

Record a game of the AEC env with :class:`Recorder`; step through a file with :func:`replay` (or
``shedders replay FILE`` on the command line); ``load_env`` returns the env at the replay's first state.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

FORMAT = "shedders-replay/1"


class ReplayError(ValueError):
    """A malformed replay file, or one whose states do not reproduce."""


def state_hash(state: dict) -> str:
    """A short, stable digest of a state dict (canonical JSON, sha1)."""
    text = json.dumps(state, sort_keys=True, separators=(",", ":"), default=_jsonable)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _jsonable(x):
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


@dataclass
class Replay:
    """A replay in memory: the header, the decisions and (when the game ended) the footer."""

    header: dict
    steps: list[dict] = field(default_factory=list)
    end: dict | None = None

    @classmethod
    def start(cls, rules, initial_state: dict, rng, seed=None, players=None, source: str = "env") -> "Replay":
        """A replay of a game starting at ``initial_state`` with random stream ``rng`` (uint64)."""
        from shedders.rules import env_kwargs

        n = rules.num_players
        players = list(players) if players is not None else [f"player_{i}" for i in range(n)]
        if len(players) != n:
            raise ValueError(f"players needs one label per seat ({n}), got {len(players)}")
        header = {
            "type": "header",
            "format": FORMAT,
            "ruleset": rules.name,
            "num_players": n,
            "env_kwargs": env_kwargs(rules),
            "seed": None if seed is None else int(seed),
            "rng": str(int(rng)),
            "players": players,
            "source": source,
            "initial_state": initial_state,
        }
        return cls(json.loads(json.dumps(header, default=_jsonable)))

    @classmethod
    def from_lines(cls, lines: list[dict]) -> "Replay":
        """The replay of ``lines()`` (header, steps, optional end)."""
        end = lines[-1] if len(lines) > 1 and lines[-1].get("type") == "end" else None
        return cls(lines[0], list(lines[1:-1] if end else lines[1:]), end)

    def add(self, seat: int, action: int, name: str, state_after: dict) -> None:
        self.steps.append({"type": "step", "ply": len(self.steps), "agent": f"player_{seat}", "action": int(action),
                           "name": name, "hash": state_hash(state_after)})

    def finish(self, placing, rewards, truncated: bool) -> None:
        self.end = {"type": "end", "placing": [int(p) for p in placing],
                    "rewards": [round(float(r), 6) for r in rewards], "truncated": bool(truncated)}

    def lines(self) -> list[dict]:
        return [self.header, *self.steps] + ([self.end] if self.end else [])

    def save(self, path) -> Path:
        """Write the replay as JSON lines, atomically (a temp file, then a rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w") as f:
            for line in self.lines():
                f.write(json.dumps(line, default=_jsonable) + "\n")
        os.replace(tmp, path)
        return path


def load(path) -> Replay:
    """Read a replay file; ``ReplayError`` says what is wrong with a malformed one."""
    path = Path(path)
    lines = []
    with open(path) as f:
        for i, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError as e:
                raise ReplayError(f"{path}:{i}: not JSON ({e.msg})") from None
    if not lines or lines[0].get("type") != "header":
        raise ReplayError(f"{path}: the first line must be the replay header")
    header = lines[0]
    if header.get("format") != FORMAT:
        raise ReplayError(f"{path}: unknown format {header.get('format')!r}; expected {FORMAT!r}")
    missing = [k for k in ("ruleset", "num_players", "env_kwargs", "rng", "initial_state") if k not in header]
    if missing:
        raise ReplayError(f"{path}: the header lacks {', '.join(missing)}")
    rep = Replay(header)
    for i, line in enumerate(lines[1:], 2):
        kind = line.get("type")
        if kind == "step":
            if rep.end is not None:
                raise ReplayError(f"{path}:{i}: a step after the end line")
            if not isinstance(line.get("action"), int) or "agent" not in line:
                raise ReplayError(f"{path}:{i}: a step needs an integer action and an agent")
            rep.steps.append(line)
        elif kind == "end":
            rep.end = line
        else:
            raise ReplayError(f"{path}:{i}: unknown line type {kind!r}")
    return rep


def load_env(rep: Replay, render_mode: str | None = None):
    """The raw AEC env at the replay's first state, with the game's random stream restored."""
    import shedders

    h = rep.header
    env = shedders.raw_env(h["ruleset"], h["num_players"], render_mode=render_mode, **h["env_kwargs"])
    env.reset(options={"scenario": h["initial_state"]})
    env._state.rng[0] = np.uint64(int(h["rng"]))
    return env


def replay(rep: Replay | str | os.PathLike, render_mode: str | None = None, check: bool = True) -> Iterator:
    """Step through a replay: yields ``(step, env)`` before each decision (``step`` is the decision about to be
    made, the env shows the state it was made in), then ``(None, env)`` at the final state.

    With ``check`` every state after a decision is compared with the recorded hash; the first difference raises
    ``ReplayError`` naming the ply."""
    if not isinstance(rep, Replay):
        rep = load(rep)
    env = load_env(rep, render_mode)
    if check and state_hash(env.state_dict()) != state_hash(rep.header["initial_state"]):
        raise ReplayError("the initial state does not load back as recorded")
    for step in rep.steps:
        _step_dead(env)
        if env.agent_selection != step["agent"]:
            raise ReplayError(f"ply {step['ply']}: the replay has {step['agent']} deciding, the env "
                              f"{env.agent_selection}")
        yield step, env
        try:
            env.step(step["action"])
        except ValueError as e:
            raise ReplayError(f"ply {step['ply']}: {e}") from None
        if check and "hash" in step and state_hash(env.state_dict()) != step["hash"]:
            raise ReplayError(f"ply {step['ply']} ({step.get('name')}): the state differs from the recorded one")
    _step_dead(env)
    yield None, env


def verify(path) -> int:
    """Replay a file to its end, checking every state; returns the number of decisions."""
    n = 0
    for step, _ in replay(path):
        n += step is not None
    return n


def _step_dead(env) -> None:
    """Step the players who went out with None, as PettingZoo does, until a live player decides."""
    while env.agents and (env.terminations.get(env.agent_selection) or env.truncations.get(env.agent_selection)):
        env.step(None)


class Recorder:
    """Wraps an AEC env (raw or wrapped) and records every decision into a :class:`Replay`.

        rec = Recorder(shedders.env("core", 4), players=["human", "expert", "expert", "expert"])
        rec.reset(seed=7)
        ... rec.step(action) ...            # everything else is passed through to the env
        rec.save("game.jsonl")

    ``reset()`` without a seed draws one, so every recorded game can be dealt again."""

    def __init__(self, env, players=None):
        self.env = env
        self.players = players
        self.record: Replay | None = None

    def __getattr__(self, name):
        return getattr(self.env, name)

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.env.reset(seed=seed, options=options)
        raw = self.env.unwrapped
        self.record = Replay.start(raw.rules, raw.state_dict(), raw._state.rng[0], seed=seed, players=self.players,
                                   source="env")
        self._totals = np.zeros(raw.rules.num_players)

    def step(self, action):
        raw = self.env.unwrapped
        agent = self.env.agent_selection
        live = not (self.env.terminations.get(agent) or self.env.truncations.get(agent))
        self.env.step(action)
        if live:
            self._totals += raw._state.rewards[0]
            self.record.add(raw._seat[agent], int(action), raw.action_names[int(action)], raw.state_dict())
            if raw._state.terminated[0] or raw._state.truncated[0]:
                self.record.finish(raw.placing(), self._totals, bool(raw._state.truncated[0]))

    def save(self, path) -> Path:
        if self.record is None:
            raise RuntimeError("nothing recorded: call reset() first")
        return self.record.save(path)


def action_names(rules) -> tuple[str, ...]:
    """The action names of a ruleset's env, by id (palace rulesets share one table; omg's depends on the deck)."""
    if rules.name == "omg":
        from shedders.envs.omg_env import action_names as omg_names

        return omg_names(rules)
    from shedders.envs.palace_env import ACTION_NAMES

    return ACTION_NAMES
