"""Replays: any game saved as JSON lines, loaded back into the env, every state reproduced exactly.

A replay file has one JSON object per line:

1. a header: ``{"type": "header", "format": "shedders-replay/2", "ruleset", "num_players", "env_kwargs",
   "seed", "rng", "players", "source", "initial_state"}``. ``initial_state`` is the scenario dict of the
   game's first state (``env.unwrapped.state_dict()``), ``rng`` the game's random stream at that point (a
   decimal string: the palace engine still draws from it after the deal, for fatality's first player and the
   house slap), ``players`` a label per seat (``"human"``, ``"expert"``, ...), ``seed`` the seed the game was
   dealt from (for reference; the replay starts from ``initial_state`` and ``rng``, so games dealt by a
   ``VectorGame`` row replay the same way).
2. one line per decision: ``{"type": "step", "ply", "agent", "action", "name", "hash"}``; ``hash`` is
   :func:`state_hash` of the state after the decision, so a replay checks itself step by step.
3. an end line, always: ``{"type": "end", "over", "decisions", "placing", "rewards", "truncated"}``: whether the
   game was over when it was saved (False: left early), how many decisions the file holds, the seats in the order
   they went out, each seat's summed reward and whether the game hit the ply cap.

Every line carries ``"chain"``: the sha256 of the previous line's chain and this line's canonical JSON (the header
chains from the empty string). The end line's chain is a digest of the whole file. What it proves: an edited,
reordered, dropped or appended line breaks the chain at that line, and a file cut short has no end line, so
:func:`load` refuses either (``ReplayError``). What it does not prove: who wrote the file; someone can rewrite a
whole file with a fresh chain. That is why :func:`replay` also plays every decision again and checks every field
(agent, ply, action, name, the state after it, and the end line's placing, rewards and truncation) against the
env: a consistent forgery must be a real game. A header's ``seed`` is checked too: for a game the env or a
tournament dealt from it (``source`` ``"env"`` or ``"tournament"``), the seed must deal ``initial_state`` and
``rng``
again. Files of format 1 (no chain, end line optional) load only when asked for with ``legacy=True``
(``shedders replay --legacy``): setting a file's format line back to 1 would otherwise drop every chain check.

Record a game of the AEC env with :class:`Recorder`; step through a file with :func:`replay` (or
``shedders replay FILE`` on the command line); ``load_env`` returns the env at the replay's first state.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from shedders.envs import raw_env
from shedders.envs.family import family_of
from shedders.rules import env_kwargs

FORMAT = "shedders-replay/2"
FORMATS = ("shedders-replay/1", FORMAT)  # format 1: no digest chain, end line optional


class ReplayError(ValueError):
    """A malformed replay file, or one whose states do not reproduce."""


def state_hash(state: dict) -> str:
    """A short, stable digest of a state dict (canonical JSON, sha1)."""
    return hashlib.sha1(_canonical(state).encode()).hexdigest()[:16]


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_jsonable)


def chain_digest(prev: str, line: dict) -> str:
    """The chain value of ``line`` (without its own ``"chain"``) after a line whose chain is ``prev``."""
    body = {k: v for k, v in line.items() if k != "chain"}
    return hashlib.sha256((prev + "\n" + _canonical(body)).encode()).hexdigest()


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
    def start(cls, rules, initial_state: dict, rng, seed=None, players=None, source: str = "env") -> Replay:
        """A replay of a game starting at ``initial_state`` with random stream ``rng`` (uint64)."""
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
    def from_lines(cls, lines: list[dict]) -> Replay:
        """The replay of ``lines()`` (header, steps, optional end)."""
        end = lines[-1] if len(lines) > 1 and lines[-1].get("type") == "end" else None
        return cls(lines[0], list(lines[1:-1] if end else lines[1:]), end)

    def add(self, seat: int, action: int, name: str, state_after: dict) -> None:
        self.steps.append({"type": "step", "ply": len(self.steps), "agent": f"player_{seat}",
                           "action": int(action), "name": name, "hash": state_hash(state_after)})

    def finish(self, placing, rewards, truncated: bool, over: bool = True) -> None:
        """The end line: the game's result (``over=False``: the game so far, left before its end)."""
        self.end = end_line(placing, rewards, truncated, over, len(self.steps))

    def lines(self) -> list[dict]:
        return [self.header, *self.steps] + ([self.end] if self.end else [])

    def save(self, path, pending_end: dict | None = None) -> Path:
        """Write the replay as JSON lines with the digest chain, atomically (a temp file, then a rename).
        ``pending_end`` is written as the end line of a game not finished yet (the replay itself is unchanged)."""
        text = self.dumps(pending_end)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        return path

    def dumps(self, pending_end: dict | None = None) -> str:
        """The replay as the text of a replay file (JSON lines with the digest chain); see :meth:`save`."""
        end = self.end or pending_end
        if end is None:
            raise ValueError("a replay needs its end line: call finish() first, or pass pending_end")
        prev, out = "", []
        for line in [self.header, *self.steps, end]:
            line = {k: v for k, v in line.items() if k != "chain"}
            if line["type"] == "header":
                line["format"] = FORMAT
            prev = line["chain"] = chain_digest(prev, line)
            out.append(json.dumps(line, default=_jsonable) + "\n")
        return "".join(out)


def end_line(placing, rewards, truncated: bool, over: bool, decisions: int) -> dict:
    return {"type": "end", "over": bool(over), "decisions": int(decisions), "placing": [int(p) for p in placing],
            "rewards": [round(float(r), 6) for r in rewards], "truncated": bool(truncated)}


HEADER_TYPES = {"ruleset": str, "num_players": int, "env_kwargs": dict, "rng": str, "initial_state": dict}
STEP_TYPES = {"ply": int, "agent": str, "action": int, "name": str, "hash": str}
END_TYPES = {"over": bool, "decisions": int, "placing": list, "rewards": list, "truncated": bool}


def _fields(line: dict, types: dict, where: str, what: str) -> None:
    for key, kind in types.items():
        value = line.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ReplayError(f"{where}: the {what} needs {key!r} ({kind.__name__}), got {value!r}")


def load(path, legacy: bool = False) -> Replay:
    """Read a replay file and check its form and digest chain; ``ReplayError`` says what is wrong with a malformed,
    edited or incomplete one (cut short: no end line)."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            return _parse(f, str(path), legacy)
    except UnicodeDecodeError as e:
        raise ReplayError(f"{path}: not a text file in UTF-8 (byte {e.start})") from None
    except IsADirectoryError:
        raise ReplayError(f"{path}: is a directory") from None


def loads(text: str, where: str = "<replay>", legacy: bool = False) -> Replay:
    """:func:`load` for the text of a replay file (an upload, say); ``where`` names it in messages."""
    if not isinstance(text, str):
        raise ReplayError(f"{where}: a replay is text, got {type(text).__name__}")
    return _parse(text.splitlines(keepends=True), where, legacy)


def _parse(texts, path: str, legacy: bool = False) -> Replay:
    lines = []
    for i, text in enumerate(texts, 1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except json.JSONDecodeError as e:
            raise ReplayError(f"{path}:{i}: not JSON ({e.msg})") from None
        if not isinstance(line, dict):
            raise ReplayError(f"{path}:{i}: a replay line is a JSON object, got {type(line).__name__}")
        lines.append((i, line))
    if not lines or lines[0][1].get("type") != "header":
        raise ReplayError(f"{path}: the first line must be the replay header")
    header = lines[0][1]
    if header.get("format") not in FORMATS:
        raise ReplayError(f"{path}: unknown format {header.get('format')!r}; expected {FORMAT!r}")
    missing = [k for k in HEADER_TYPES if k not in header]
    if missing:
        raise ReplayError(f"{path}: the header lacks {', '.join(missing)}")
    _fields(header, HEADER_TYPES, f"{path}:1", "header")
    if not header["rng"].isdigit() or int(header["rng"]) >= 2**64:
        raise ReplayError(f"{path}:1: the header's rng must be a decimal uint64, got {header['rng']!r}")
    chained = header["format"] != "shedders-replay/1"
    if not chained and not legacy:
        raise ReplayError(f"{path}: format shedders-replay/1 carries no digest chain, so nothing shows the file "
                          "is whole; read it only if you trust it (shedders replay --legacy, "
                          "load(..., legacy=True))")
    prev = ""
    rep = Replay(header)
    for i, line in lines:
        if chained:
            if line.get("chain") != chain_digest(prev, line):
                raise ReplayError(f"{path}:{i}: the digest chain breaks here: this line (or one before it) was "
                                  f"changed, dropped or inserted")
            prev = line["chain"]
        if line is header:
            continue
        kind = line.get("type")
        if rep.end is not None:
            raise ReplayError(f"{path}:{i}: a line after the end line")
        if kind == "step":
            _fields(line, STEP_TYPES, f"{path}:{i}", "step")
            rep.steps.append(line)
        elif kind == "end":
            if chained:
                _fields(line, END_TYPES, f"{path}:{i}", "end line")
                if line["decisions"] != len(rep.steps):
                    raise ReplayError(f"{path}:{i}: the end line counts {line['decisions']} decisions, the file "
                                      f"holds {len(rep.steps)}")
            rep.end = line
        else:
            raise ReplayError(f"{path}:{i}: unknown line type {kind!r}")
    if chained and rep.end is None:
        raise ReplayError(f"{path}: incomplete: the file ends after {len(rep.steps)} decisions with no end line "
                          f"(cut short?)")
    return rep


def load_env(rep: Replay, render_mode: str | None = None):
    """The raw AEC env at the replay's first state, with the game's random stream restored."""
    h = rep.header
    try:
        env = raw_env(h["ruleset"], h["num_players"], render_mode=render_mode, **h["env_kwargs"])
        env.reset(options={"scenario": h["initial_state"]})
    except (ValueError, TypeError, NotImplementedError) as e:
        raise ReplayError(f"the header does not describe a game: {e}") from None
    env.random_stream = int(h["rng"])
    return env


def replay(rep: Replay | str | os.PathLike, render_mode: str | None = None, check: bool = True) -> Iterator:
    """Step through a replay: yields ``(step, env)`` before each decision (``step`` is the decision about to be
    made, the env shows the state it was made in), then ``(None, env)`` at the final state.

    With ``check`` every field is compared with the env as the game is played again: each step's ply, agent,
    action name and the state after it, then the end line's placing, rewards, truncation and whether the game was
    over; the first difference raises ``ReplayError`` naming the ply or the field."""
    if not isinstance(rep, Replay):
        rep = load(rep)
    env = load_env(rep, render_mode)
    if check and state_hash(env.state_dict()) != state_hash(rep.header["initial_state"]):
        raise ReplayError("the initial state does not load back as recorded")
    if check:
        check_seed(rep.header)
    totals = np.zeros(env.rules.num_players)
    for ply, step in enumerate(rep.steps):
        _step_dead(env)
        if not env.agents:
            raise ReplayError(f"ply {step['ply']}: the game is already over, but the replay goes on")
        if env.agent_selection != step["agent"]:
            raise ReplayError(f"ply {step['ply']}: the replay has {step['agent']} deciding, the env "
                              f"{env.agent_selection}")
        if check and step["ply"] != ply:
            raise ReplayError(f"decision {ply} is recorded as ply {step['ply']}")
        names = env.action_names
        if check and 0 <= step["action"] < len(names) and names[step["action"]] != step["name"]:
            raise ReplayError(f"ply {ply}: action {step['action']} is {names[step['action']]!r}, the replay names "
                              f"it {step['name']!r}")
        yield step, env
        try:
            env.step(step["action"])
        except ValueError as e:
            raise ReplayError(f"ply {step['ply']}: {e}") from None
        totals += env.step_rewards
        if check and state_hash(env.state_dict()) != step["hash"]:
            raise ReplayError(f"ply {step['ply']} ({step['name']}): the state differs from the recorded one")
    _step_dead(env)
    if check and rep.end is not None:
        got = end_line(env.placing(), totals, env.game_truncated, env.game_over, len(rep.steps))
        for key in ("over", "placing", "truncated"):
            if key in rep.end and rep.end[key] != got[key]:
                raise ReplayError(f"the end line's {key} {rep.end[key]!r} is not the game's: {got[key]!r}")
        rewards = rep.end.get("rewards")
        if (not isinstance(rewards, list) or len(rewards) != len(totals)
                or not all(isinstance(r, (int, float)) and abs(r - t) <= 1e-5 for r, t in zip(rewards, totals))):
            raise ReplayError(f"the end line's rewards {rewards!r} are not the game's: {got['rewards']!r}")
    yield None, env


def check_seed(header: dict) -> None:
    """``ReplayError`` unless the header's seed deals its ``initial_state`` and ``rng``, for the games that were
    dealt from it: ``source`` ``"env"`` (an AEC env's ``reset(seed=...)``) or ``"tournament"`` (a ``VectorGame``
    row's ``reset(seeds=...)``). Other sources (a scenario, another tool) carry the seed as a note only."""
    seed, source = header.get("seed"), header.get("source")
    if seed is None or source not in ("env", "tournament"):
        return
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ReplayError(f"the header's seed must be an integer in 0..2**64-1, got {seed!r}")
    kwargs = dict(header["env_kwargs"])
    if source == "env":
        env = raw_env(header["ruleset"], header["num_players"], **kwargs)
        env.reset(seed=seed)
        state, rng = env.state_dict(), int(env.random_stream)
    else:
        from shedders.vector import VectorGame

        vg = VectorGame(header["ruleset"], 1, header["num_players"], seed=0, autoreset=False, **kwargs)
        vg.reset(seeds=np.array([seed], np.uint64))
        state, rng = vg.state_dict(0), int(vg.state.rng[0])
    if state_hash(state) != state_hash(header["initial_state"]) or str(rng) != header["rng"]:
        raise ReplayError(f"the header's seed {seed} does not deal the recorded first state: the seed or the deal "
                          f"was changed")


def verify(path, legacy: bool = False) -> int:
    """Replay a file to its end, checking every state; returns the number of decisions."""
    n = 0
    for step, _ in replay(path if isinstance(path, Replay) else load(path, legacy)):
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
        dealt = not (options or {}).get("scenario")  # a scenario's game is not the seed's deal
        self.record = Replay.start(raw.rules, raw.state_dict(), raw.random_stream, seed=seed, players=self.players,
                                   source="env" if dealt else "scenario")
        self._totals = np.zeros(raw.rules.num_players)

    def step(self, action):
        raw = self.env.unwrapped
        agent = self.env.agent_selection
        live = not (self.env.terminations.get(agent) or self.env.truncations.get(agent))
        self.env.step(action)
        if live:
            self._totals += raw.step_rewards
            self.record.add(raw.seat(agent), int(action), raw.action_names[int(action)], raw.state_dict())
            if raw.game_terminated or raw.game_truncated:
                self.record.finish(raw.placing(), self._totals, raw.game_truncated)

    def save(self, path) -> Path:
        """Write the game so far; a game not over yet gets an end line with ``"over": false`` (left early)."""
        if self.record is None:
            raise RuntimeError("nothing recorded: call reset() first")
        return self.record.save(path, pending_end=self._pending_end())

    def dumps(self) -> str:
        """The game so far as the text of a replay file (what :meth:`save` writes)."""
        if self.record is None:
            raise RuntimeError("nothing recorded: call reset() first")
        return self.record.dumps(pending_end=self._pending_end())

    @property
    def totals(self) -> list[float]:
        """Each seat's summed reward so far."""
        return [float(x) for x in self._totals]

    def _pending_end(self) -> dict:
        raw = self.env.unwrapped
        return end_line(raw.placing(), self._totals, False, False, len(self.record.steps))


def action_names(rules) -> tuple[str, ...]:
    """The action names of a ruleset's env, by id (palace rulesets share one table; omg's depends on the deck)."""
    return family_of(rules).action_names(rules)
