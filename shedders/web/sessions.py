"""The games and replays behind the web app, without the web: what ``shedders serve`` keeps in memory.

A :class:`GameSession` is one table: a human seat against agents (or, spectating, agents only), recorded as a
replay as it goes. A :class:`ReplaySession` is an uploaded replay, verified as ``shedders replay`` verifies it and
kept as one frame per decision. A :class:`Store` holds either kind under unguessable ids, drops what has not been
used for ``ttl`` seconds, and never holds more than ``max_items`` (the least recently used goes first), so memory
stays bounded however many games are started and abandoned.

Every check on a request happens before anything changes: a bad option, an unknown game, an action that is not
legal or not the human's to make raises :class:`BadRequest` (with the HTTP status the app answers) and leaves the
game as it was.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict

import agents
import shedders
from shedders import replay as R
from shedders.explain import explain_step, rules_text, table_view, table_view_of
from shedders.rules import HOUSE_BASES, HOUSE_TOGGLES, OMG_PLAYER_RANGE, PLAYER_RANGE, RULESETS, make_rules

MAX_SEED = 2**63 - 1
MAX_REPLAY_DECISIONS = 20_000


class BadRequest(ValueError):
    """A request that cannot be carried out; ``status`` is the HTTP status to answer with (4xx)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class Store:
    """Objects under unguessable ids (``secrets.token_urlsafe``), dropped after ``ttl`` idle seconds or when more
    than ``max_items`` are held (least recently used first). Thread-safe."""

    def __init__(self, max_items: int = 256, ttl: float = 1800.0, clock=time.monotonic):
        if max_items < 1 or ttl <= 0:
            raise ValueError("max_items must be >= 1 and ttl > 0")
        self.max_items, self.ttl, self.clock = max_items, ttl, clock
        self._items: OrderedDict[str, tuple[float, object]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)

    def add(self, obj) -> str:
        key = secrets.token_urlsafe(16)
        with self._lock:
            self._expire()
            self._items[key] = (self.clock(), obj)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)
        return key

    def get(self, key: str, what: str = "game"):
        with self._lock:
            self._expire()
            item = self._items.get(key) if isinstance(key, str) else None
            if item is None:
                raise BadRequest(f"no {what} {key!r} (unknown, or dropped after {self.ttl:g} s idle)", 404)
            self._items[key] = (self.clock(), item[1])
            self._items.move_to_end(key)
            return item[1]

    def _expire(self) -> None:
        now = self.clock()
        while self._items:
            key, (touched, _) = next(iter(self._items.items()))
            if now - touched <= self.ttl:
                break
            self._items.popitem(last=False)


def options() -> dict:
    """What the start page offers: rulesets with their player ranges, house bases and toggles, agent names."""
    ranges = {r: list(lo_hi) for r, lo_hi in PLAYER_RANGE.items()}
    ranges["house"] = list(PLAYER_RANGE["core"])  # either base plays 2-5 (south_african up to 6: checked on start)
    ranges["omg"] = list(OMG_PLAYER_RANGE)
    defaults = {b: make_rules("house", 4, base=b).toggles() for b in HOUSE_BASES}
    return {"rulesets": list(RULESETS), "players": ranges, "house_bases": list(HOUSE_BASES),
            "house_toggles": list(HOUSE_TOGGLES), "house_defaults": defaults, "agents": list(agents.REGISTRY),
            "omg_agents": list(agents.OMG_AGENTS)}


def _int(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) < 20:
            value = int(value.strip())
        else:
            raise BadRequest(f"{name} must be an integer in {lo}..{hi}, got {value!r}")
    if not lo <= value <= hi:
        raise BadRequest(f"{name} must be an integer in {lo}..{hi}, got {value}")
    return value


class GameSession:
    """One table. ``seat`` is the human's seat (None: a spectator watches agents only). Opponent specs are agent
    specs (``expert``, ``search:budget=64``, ``ppo``), cycled over the other seats."""

    def __init__(self, ruleset="core", players=4, opponents="expert", seed=None, seat=0, base=None, rules=None,
                 spectate=False):
        if ruleset not in RULESETS:
            raise BadRequest(f"unknown ruleset {ruleset!r}; rulesets: {', '.join(RULESETS)}")
        players = _int(players, "players", 2, 8)
        if seed in (None, ""):
            seed = secrets.randbelow(2**31)
        seed = _int(seed, "seed", 0, MAX_SEED)
        if not isinstance(spectate, bool):
            raise BadRequest(f"spectate must be true or false, got {spectate!r}")
        kwargs = {}
        if ruleset == "house":
            if base not in (None, ""):
                kwargs["base"] = base
            if rules not in (None, {}):
                if not isinstance(rules, dict) or not all(isinstance(v, bool) for v in rules.values()):
                    raise BadRequest(f"rules must map house toggles to true/false, got {rules!r}")
                kwargs["rules"] = rules
        elif base not in (None, "") or rules not in (None, {}):
            raise BadRequest("base and rules are house options; this ruleset takes neither")
        if isinstance(opponents, str):
            opponents = [s.strip() for s in opponents.split(",") if s.strip()]
        if not isinstance(opponents, list) or not opponents or not all(isinstance(s, str) for s in opponents):
            raise BadRequest(f"opponents must name at least one agent (e.g. 'expert,search:budget=64'), got "
                             f"{opponents!r}")
        try:
            env = shedders.raw_env(ruleset, players, **kwargs)
        except (ValueError, TypeError, NotImplementedError) as e:
            raise BadRequest(str(e)) from None
        self.human = None if spectate else _int(seat, "seat", 0, players - 1)
        labels, policies = [], {}
        others = [q for q in range(players) if q != self.human]
        for i, q in enumerate(others):
            spec = opponents[i % len(opponents)]
            try:
                agent = agents.make_spec(spec, ruleset, players, seed=seed + 1000 + q, **kwargs)
            except (ValueError, TypeError, OSError, ImportError) as e:  # ImportError: ppo without torch
                raise BadRequest(f"opponents: {e}") from None
            policies[q] = agents.as_aec_policy(agent)
        for q in range(players):
            labels.append("human" if q == self.human else opponents[others.index(q) % len(opponents)])
        self.env, self.labels, self.policies, self.seed = env, labels, policies, seed
        self.ruleset, self.players = ruleset, players
        self.rec = R.Recorder(env, players=labels)
        self.rec.reset(seed=seed)
        self.events: list[dict] = []
        self.lock = threading.Lock()
        if self.human is not None:
            self._run_agents()

    # -- playing ---------------------------------------------------------------------------------------------
    def _step_dead(self) -> None:
        env = self.env
        while env.agents and (env.terminations.get(env.agent_selection) or env.truncations.get(env.agent_selection)):
            self.rec.step(None)

    def _decide(self, action: int) -> None:
        env = self.env
        seat = env.seat(env.agent_selection)
        before = env.state_dict()
        name = env.action_names[action]
        self.rec.step(action)
        text = explain_step(env.rules, before, env.state_dict(), seat, name, self.human)
        if text:
            self.events.append({"n": len(self.events), "ply": len(self.rec.record.steps) - 1, "seat": seat,
                                "label": self.labels[seat], "text": text})
        self._step_dead()

    def _run_agents(self) -> None:
        """Agents decide until it is the human's turn or the game is over."""
        self._step_dead()
        while not self.env.game_over and self.env.seat(self.env.agent_selection) != self.human:
            seat = self.env.seat(self.env.agent_selection)
            self._decide(self.policies[seat](self.env, self.env.agent_selection))

    def act(self, name) -> None:
        """The human's move, by action name; then the agents play until the human decides again."""
        with self.lock:
            if self.human is None:
                raise BadRequest("a spectator does not act; use step to let the next agent decide", 409)
            if self.env.game_over:
                raise BadRequest("the game is over", 409)
            if not isinstance(name, str):
                raise BadRequest(f"action must be an action name (a string), got {name!r}")
            if self.env.seat(self.env.agent_selection) != self.human:
                raise BadRequest("it is not your turn", 409)
            legal = self.env.legal_action_names()
            if name not in legal:
                known = name in self.env.action_names
                raise BadRequest(f"{'illegal' if known else 'unknown'} action {name!r}; legal now: "
                                 f"{', '.join(legal)}", 409 if known else 400)
            self._decide(self.env.action_id(name))
            self._run_agents()

    def step(self) -> None:
        """Spectating: the next agent decides."""
        with self.lock:
            if self.human is not None:
                raise BadRequest("only a spectated game steps by itself; play your move with action", 409)
            if self.env.game_over:
                raise BadRequest("the game is over", 409)
            seat = self.env.seat(self.env.agent_selection)
            self._decide(self.policies[seat](self.env, self.env.agent_selection))

    # -- what the page shows -----------------------------------------------------------------------------------
    def result(self) -> dict | None:
        env = self.env
        if not env.game_over:
            return None
        placing = env.placing()
        rewards = [round(r, 6) for r in self.rec.totals]
        loser = env.loser() if self.ruleset != "omg" else None
        return {"placing": placing, "rewards": rewards, "truncated": env.game_truncated, "shithead": loser}

    def payload(self, since: int = 0) -> dict:
        with self.lock:
            view = table_view(self.env, self.human)
            if self.human is None:
                view["legal"] = []
            return {"ruleset": self.ruleset, "players": self.players, "seat": self.human, "seed": self.seed,
                    "labels": self.labels, "spectate": self.human is None, "view": view,
                    "events": self.events[since:], "event_count": len(self.events),
                    "decisions": len(self.rec.record.steps), "over": self.env.game_over, "result": self.result(),
                    "rules": rules_text(self.env.rules)}

    def replay_text(self) -> str:
        with self.lock:
            return self.rec.dumps()


class ReplaySession:
    """An uploaded replay, verified decision by decision (``ReplayError`` -> 400), kept as frames: the state before
    each decision and the final state, with what the env said each asks and allows."""

    def __init__(self, text: str):
        try:
            rep = R.loads(text, "replay")
            if len(rep.steps) > MAX_REPLAY_DECISIONS:
                raise BadRequest(f"replay too long: {len(rep.steps)} decisions (at most {MAX_REPLAY_DECISIONS})")
            frames = []
            for step, env in R.replay(rep):
                frames.append((step, env.state_dict(), env.constraint, env.legal_action_names()))
        except R.ReplayError as e:
            raise BadRequest(f"not a valid replay: {e}") from None
        self.rules = env.rules
        self.header = {k: rep.header.get(k) for k in ("ruleset", "num_players", "seed", "players", "source")}
        self.end = rep.end
        self.frames = frames

    def frame(self, i, seat) -> dict:
        n = len(self.frames)
        i = _int(i, "frame", 0, n - 1)
        if seat not in (None, ""):
            seat = _int(seat, "seat", 0, self.rules.num_players - 1)
        else:
            seat = None
        step, state, constraint, legal = self.frames[i]
        view = table_view_of(self.rules, state, seat, constraint, legal)
        view["legal"] = []
        move = None
        if step is not None:
            p = int(step["agent"].split("_")[1])
            after = self.frames[i + 1][1]
            move = {"ply": step["ply"], "seat": p, "name": step["name"],
                    "text": explain_step(self.rules, state, after, p, step["name"], seat)}
        return {"frame": i, "frames": n, "header": self.header, "end": self.end, "seat": seat, "view": view,
                "move": move}
