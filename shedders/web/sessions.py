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

import json
import logging
import secrets
import threading
import time
import zlib
from collections import OrderedDict
from contextlib import contextmanager

import agents
import shedders
from shedders import replay as R
from shedders.explain import explain_step, rules_text, table_view, table_view_of
from shedders.rules import HOUSE_BASES, HOUSE_TOGGLES, REGISTRY, RULESETS, make_rules
from shedders.rules.registry import accepting, lookup, player_range

log = logging.getLogger("shedders.web")
MAX_SEED = 2**63 - 1
MAX_REPLAY_DECISIONS = 5_000  # the default ply cap; a frame takes 0.4-0.9 kB compressed (random games: 432-775 B)
REPLAY_ENV_KWARGS = ("base", "rules", "ply_cap", "cap_rule")  # never a deck: that is a path on the server


@contextmanager
def _release(lock: threading.Lock):
    """Releases ``lock``, already taken, when the block ends."""
    try:
        yield
    finally:
        lock.release()


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
            _key, (touched, _) = next(iter(self._items.items()))
            if now - touched <= self.ttl:
                break
            self._items.popitem(last=False)


def options(outside: tuple[str, ...] = ()) -> dict:
    """What the start page offers: rulesets with their player ranges, house bases and toggles, agent names (and
    the outside agents the server was started with, ``shedders serve --agent SPEC``)."""
    # a ruleset on bases shows its first base's range (house on south_african takes 6 too: checked on start)
    ranges = {name: list(player_range(record)) for name, record in REGISTRY.items()}
    defaults = {b: make_rules("house", 4, base=b).toggles() for b in HOUSE_BASES}
    return {"rulesets": list(RULESETS), "players": ranges, "house_bases": list(HOUSE_BASES),
            "house_toggles": list(HOUSE_TOGGLES), "house_defaults": defaults,
            "agents": [a for a in WEB_AGENT_OPTIONS if a in agents.REGISTRY],
            "omg_agents": [a for a in WEB_AGENT_OPTIONS if a in agents.OMG_AGENTS],
            "outside_agents": list(outside),
            "agent_options": {a: {k: list(v[1:]) if v[0] is not bool else [True, False] for k, v in opts.items()}
                              for a, opts in WEB_AGENT_OPTIONS.items()}}


def _int(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value.strip()) < 20:
            value = int(value.strip())
        else:
            raise BadRequest(f"{name} must be an integer in {lo}..{hi}, got {value!r}")
    if not lo <= value <= hi:
        raise BadRequest(f"{name} must be an integer in {lo}..{hi}, got {value}")
    return value


# What a web client may ask of an agent. The client is hostile: it picks agents by name and options from this
# list only, so no option that names a file or a device (``deck``, ``checkpoint``, ``device``) or changes the game
# (``rules``, ``ply_cap``) is ever taken from it, and every option that buys thinking time is capped, so that no
# decision takes more than about a second on this 2-core machine. Each entry: the kind of value and its bounds
# (numbers) or its choices (strings); a flag is ``true``/``false`` or ``1``/``0``.
SEARCH_OPTIONS = {"budget": (int, 1, 4096), "eps": (float, 0.0, 1.0), "max_plies": (int, 1, 400),
                  "select": (str, "uniform", "halving"), "leaf": (str, "none", "cards", "value"),
                  "rollout": (str, "greedy", "expert"), "opponents": (str, "greedy", "expert", "random")}
WEB_AGENT_OPTIONS = {
    "random": {}, "greedy": {}, "expert": {},
    "search": SEARCH_OPTIONS, "oracle": SEARCH_OPTIONS,
    "champion": {"time_budget": (float, 0.001, 1.0)},
    "ppo": {"sample": (bool,), "temperature": (float, 0.05, 10.0)},
    "learned": {"sample": (bool,), "temperature": (float, 0.05, 10.0)},
    "guided": {"worlds": (int, 1, 32), "depth": (int, 0, 64), "top_k": (int, 1, 16)},
}
MAX_SPEC = 200  # characters in one agent spec


def _option(agent: str, key: str, value, kind: tuple):
    """One option value checked against its allow-list entry; ``BadRequest`` naming the option otherwise."""
    what = f"opponents: option {key!r} of {agent!r}"
    if kind[0] is bool:
        if value in (True, 1, "true"):
            return True
        if value in (False, 0, "false"):
            return False
        raise BadRequest(f"{what} must be true or false, got {value!r}")
    if kind[0] is str:
        if value not in kind[1:]:
            raise BadRequest(f"{what} must be one of {', '.join(kind[1:])}, got {value!r}")
        return value
    cast, lo, hi = kind
    wrong_int = cast is int and not isinstance(value, int)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or wrong_int:
        raise BadRequest(f"{what} must be {'an integer' if cast is int else 'a number'} in {lo:g}..{hi:g}, "
                         f"got {value!r}")
    if not lo <= value <= hi:  # NaN fails both sides
        raise BadRequest(f"{what} must be in {lo:g}..{hi:g} on this server, got {value!r}")
    return cast(value)


def web_agent(spec, ruleset: str, players: int, seed: int, outside: tuple[str, ...] = (), **game_options):
    """The agent a web client names with ``spec`` (``"search:budget=64+eps=0.2"``, ``"greedy@2"``), built only
    from :data:`WEB_AGENT_OPTIONS`, or one of the ``outside`` agent specs the server was started with (named
    exactly as given there: a client never names a file, a module or an option of its own): ``BadRequest`` for
    any other agent, option or value, before anything is built."""
    if (not isinstance(spec, str) or not spec or len(spec) > MAX_SPEC or not spec.isprintable()
            or not spec.isascii()):
        raise BadRequest(f"opponents: an agent spec is a short ASCII text such as 'search:budget=64', got "
                         f"{spec[:40] if isinstance(spec, str) else spec!r}")
    if spec in outside:
        try:
            return agents.make_spec(spec, ruleset, players, seed=seed, **game_options)
        except (ValueError, ImportError) as e:  # an AgentError names the spec
            raise BadRequest(f"opponents: {e}") from None
    try:
        name, opts = agents.parse_agent(spec)
    except ValueError as e:
        raise BadRequest(f"opponents: {e}") from None
    allowed = WEB_AGENT_OPTIONS.get(name)
    offered = agents.offered_agents(ruleset)
    if allowed is None or name not in offered:
        names = [n for n in WEB_AGENT_OPTIONS if n in offered] + list(outside)
        raise BadRequest(f"opponents: unknown agent {name!r} for {ruleset}; agents: {', '.join(names)}")
    checked = {}
    for key, value in opts.items():
        if key not in allowed:
            raise BadRequest(f"opponents: unknown option {key!r} for {name!r} on this server (no paths, devices "
                             f"or rule changes); options: {', '.join(allowed) or 'none'}")
        checked[key] = _option(name, key, value, allowed[key])
    try:
        return agents.make(name, ruleset, players, seed=seed, **checked, **game_options)
    except (ValueError, ImportError) as e:  # ImportError: ppo without torch
        raise BadRequest(f"opponents: {e}") from None


class GameSession:
    """One table. ``seat`` is the human's seat (None: a spectator watches agents only). Opponent specs are agent
    specs (``expert``, ``search:budget=64``, ``ppo``), cycled over the other seats."""

    def __init__(self, ruleset="core", players=4, opponents="expert", seed=None, seat=0, base=None, rules=None,
                 spectate=False, outside: tuple[str, ...] = ()):
        if ruleset not in RULESETS:
            raise BadRequest(f"unknown ruleset {ruleset!r}; rulesets: {', '.join(RULESETS)}")
        players = _int(players, "players", 2, 8)
        if seed in (None, ""):
            seed = secrets.randbelow(2**31)
        seed = _int(seed, "seed", 0, MAX_SEED)
        if not isinstance(spectate, bool):
            raise BadRequest(f"spectate must be true or false, got {spectate!r}")
        kwargs = {}
        record = lookup(ruleset)
        for option, given, takes in (("base", base not in (None, ""), record.bases),
                                     ("rules", rules not in (None, {}), record.toggles)):
            if given and not takes:
                raise BadRequest(f"{option} is an option of {' and '.join(accepting(option))} only, not of "
                                 f"{ruleset!r}")
        if base not in (None, ""):
            kwargs["base"] = base
        if rules not in (None, {}):
            if not isinstance(rules, dict) or not all(isinstance(v, bool) for v in rules.values()):
                raise BadRequest(f"rules must map {ruleset} toggles to true/false, got {rules!r}")
            kwargs["rules"] = rules
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
            policies[q] = agents.as_aec_policy(web_agent(opponents[i % len(opponents)], ruleset, players,
                                                         seed + 1000 + q, outside, **kwargs))
        for q in range(players):
            labels.append("human" if q == self.human else opponents[others.index(q) % len(opponents)])
        self.env, self.labels, self.policies, self.seed = env, labels, policies, seed
        self.ruleset, self.players = ruleset, players
        self.rec = R.Recorder(env, players=labels)
        self.rec.reset(seed=seed)
        self.events: list[dict] = []
        self.rules_text = rules_text(env.rules)
        # Held while a request changes the game, the agents' thinking included; never waited for: a second request
        # for a busy game is answered 409 at once, and what the page reads is the table published after the last
        # decision (``payload``), so no request waits on another game's agents, or on this one's.
        self.lock = threading.Lock()
        self._publish()
        if self.human is not None:
            self._run_agents()

    # -- playing ---------------------------------------------------------------------------------------------
    def _step_dead(self) -> None:
        env = self.env
        while env.agents and (env.terminations.get(env.agent_selection)
                              or env.truncations.get(env.agent_selection)):
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
        self._publish()

    def _publish(self) -> None:
        """The table as the human (or the spectator) sees it now, for ``payload`` to read without the lock."""
        view = table_view(self.env, self.human)
        if self.human is None:
            view["legal"] = []
        self._shown = {"view": view, "decisions": len(self.rec.record.steps), "over": self.env.game_over,
                       "result": self.result(), "event_count": len(self.events)}

    def _busy(self):
        """The game's lock, taken without waiting: ``BadRequest`` 409 while another request is changing the
        game."""
        if not self.lock.acquire(blocking=False):
            raise BadRequest("the agents are still deciding this game's last request; ask again when they are "
                             "done", 409)
        return _release(self.lock)

    def _run_agents(self) -> None:
        """Agents decide until it is the human's turn or the game is over."""
        self._step_dead()
        while not self.env.game_over and self.env.seat(self.env.agent_selection) != self.human:
            self._agent_decides()

    def _agent_decides(self) -> None:
        """The agent to move decides; an outside agent that fails or answers an illegal action stops here (its
        answer never reaches the game) and the request gets one line, as a server error. The line says what kind
        of failure it was, never the details (they list the seat's legal actions, which tell its cards): those go
        to the server's log."""
        seat = self.env.seat(self.env.agent_selection)
        try:
            action = self.policies[seat](self.env, self.env.agent_selection)
        except agents.AgentError as e:
            log.warning("game of %s, player_%d: %s", self.ruleset, seat, e)
            raise BadRequest(f"player_{seat} ({self.labels[seat]}): the agent failed ({e.kind}); the game is as "
                             f"it was, the details are in the server's log", 500) from None
        self._decide(action)

    def act(self, name) -> None:
        """The human's move, by action name; then the agents play until the human decides again."""
        with self._busy():
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
        with self._busy():
            if self.human is not None:
                raise BadRequest("only a spectated game steps by itself; play your move with action", 409)
            if self.env.game_over:
                raise BadRequest("the game is over", 409)
            self._agent_decides()

    # -- what the page shows -----------------------------------------------------------------------------------
    def result(self) -> dict | None:
        env = self.env
        if not env.game_over:
            return None
        placing = env.placing()
        rewards = [round(r, 6) for r in self.rec.totals]
        loser = env.loser()
        shamed = loser if getattr(env.rules, "shithead_shaming", False) else None
        return {"placing": placing, "rewards": rewards, "truncated": env.game_truncated, "last": loser,
                "shithead": shamed}

    def payload(self, since: int = 0) -> dict:
        """What the page shows, read without waiting: the table published after the last decision and the events
        from number ``since`` on. The seed (which rebuilds every hidden card) is shown once the game is over."""
        shown = self._shown
        return {"ruleset": self.ruleset, "players": self.players, "seat": self.human,
                "seed": self.seed if shown["over"] else None, "labels": self.labels,
                "spectate": self.human is None, **shown, "thinking": self.lock.locked(),
                "events": self.events[since:shown["event_count"]], "rules": self.rules_text}

    def replay_text(self) -> str:
        """The whole game as a replay file, once it is over (before that it would show every hidden card)."""
        if not self._shown["over"]:
            raise BadRequest("the replay is served once the game is over: it holds the whole deal", 409)
        with self._busy():
            return self.rec.dumps()


class ReplaySession:
    """An uploaded replay, verified decision by decision (``ReplayError`` -> 400), kept as frames: the state before
    each decision and the final state, with what the env said each asks and allows, each frame compressed (a
    5,000-decision omg replay takes about 4 MB, so the store's 32 replays stay near 150 MB; uncompressed, a 19,761-
    decision replay took 63 MB)."""

    def __init__(self, text: str):
        try:
            rep = R.loads(text, "replay")
            if len(rep.steps) > MAX_REPLAY_DECISIONS:
                raise BadRequest(f"replay too long: {len(rep.steps)} decisions (at most {MAX_REPLAY_DECISIONS})")
            extra = [k for k in rep.header["env_kwargs"] if k not in REPLAY_ENV_KWARGS]
            if extra:
                raise BadRequest(f"this server replays games of its own decks and rules only; the replay sets "
                                 f"{', '.join(map(repr, extra))}")
            frames = []
            for step, env in R.replay(rep):
                frame = (step, env.state_dict(), env.constraint, env.legal_action_names())
                frames.append(zlib.compress(json.dumps(frame, separators=(",", ":")).encode(), 6))
        except R.ReplayError as e:
            raise BadRequest(f"not a valid replay: {e}") from None
        self.rules = env.rules
        self.header = {k: rep.header.get(k) for k in ("ruleset", "num_players", "seed", "players", "source")}
        self.end = rep.end
        self.frames = frames

    def _frame(self, i: int):
        return json.loads(zlib.decompress(self.frames[i]))

    def frame(self, i, seat) -> dict:
        n = len(self.frames)
        i = _int(i, "frame", 0, n - 1)
        if seat not in (None, ""):
            seat = _int(seat, "seat", 0, self.rules.num_players - 1)
        else:
            seat = None
        step, state, constraint, legal = self._frame(i)
        view = table_view_of(self.rules, state, seat, constraint, legal)
        view["legal"] = []
        move = None
        if step is not None:
            p = int(step["agent"].split("_")[1])
            after = self._frame(i + 1)[1]
            move = {"ply": step["ply"], "seat": p, "name": step["name"],
                    "text": explain_step(self.rules, state, after, p, step["name"], seat)}
        return {"frame": i, "frames": n, "header": self.header, "end": self.end, "seat": seat, "view": view,
                "move": move}
