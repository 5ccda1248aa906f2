"""The web app's HTTP side: a Starlette ASGI app over :mod:`shedders.web.sessions`.

Starlette (with uvicorn serving it) because the app is a dozen small routes and a folder of static files: Starlette
gives routing, JSON and static files with two small dependencies, and FastAPI's extras (pydantic models, OpenAPI)
would add more than they give here, where every field is checked by hand to say exactly what is wrong.

Routes (JSON in and out unless said):

- ``GET /``: the page; ``/static/...`` its script, styles and card pictures (no CDN: it works offline).
- ``GET /api/options``: rulesets, player ranges, house toggles, agent names.
- ``POST /api/games`` ``{"ruleset", "players", "opponents", "seed", "seat", "base", "rules", "spectate"}``:
  a new game; answers its ``id`` and the table.
- ``GET /api/games/{id}?since=K``: the table and the events from number K on.
- ``POST /api/games/{id}/action`` ``{"action": "<action name>"}``: the human's move; the agents then play up to
  the human's next decision.
- ``POST /api/games/{id}/step``: a spectated game's next decision.
- ``GET /api/games/{id}/replay``: the game so far as a replay file (``shedders replay`` reads it).
- ``POST /api/replays`` (the replay file as the body): verified, kept for the viewer; ``GET
  /api/replays/{id}?frame=I&seat=S``: the table before decision I as seat S sees it (no seat: every card).
- ``GET /leaderboard``: the page, showing the leaderboard (``shedders.leaderboard``, the database given to
  ``create_app``); ``GET /api/leaderboard?ruleset=R&players=N``: its entries, best headline first;
  ``GET /api/leaderboard/{entry}``: one score card; ``GET /api/leaderboard/{entry}/replays/{k}``: one of its
  kept games as a replay file (the page opens it in the viewer through ``POST /api/replays``).

Errors are 4xx with ``{"error": message}``: 400 for malformed JSON or a bad field, 403 for a cross-site request,
404 for an unknown (or expired) game, 408 for a body that does not arrive in time, 409 for a move that is not legal
now or not the caller's (or while the agents are still deciding the game's last request, or a replay asked for
before the game is over), 413 for a body too large, 415 for a request body that is not JSON.

Every field from a client is hostile. Opponents come from an allow-list of agents and options with no paths and
capped budgets (:data:`shedders.web.sessions.WEB_AGENT_OPTIONS`); nothing a page shows before the game ends (the
seed, the replay) tells a hidden card; no handler waits for a game's lock or builds a table on the event loop. The
:class:`Guard` middleware refuses a ``Host`` header that does not name the address served (DNS rebinding), a
state-changing request from another origin or without a JSON content type (cross-site forms and ``text/plain``
posts), and sets a content security policy that forbids framing. ``shedders serve`` closes a connection whose
request headers do not arrive within :data:`shedders.web.serve.HEADER_TIMEOUT` seconds, and a body must arrive
within :data:`BODY_TIMEOUT`.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from shedders.rules import RULESETS
from shedders.web.sessions import BadRequest, GameSession, ReplaySession, Store, options

STATIC = Path(__file__).with_name("static")
MAX_JSON = 64 * 1024
MAX_REPLAY = 8 * 1024 * 1024
BODY_TIMEOUT = 10.0  # seconds for a whole request body to arrive
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
JSON_TYPES = ("application/json",)
REPLAY_TYPES = ("application/json", "application/x-ndjson", "application/jsonl")
HEADERS = [(b"content-security-policy", (b"default-src 'self'; img-src 'self' data:; object-src 'none'; "
                                          b"base-uri 'none'; form-action 'self'; frame-ancestors 'none'")),
           (b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"), (b"cross-origin-resource-policy", b"same-origin")]
log = logging.getLogger("shedders.web")
GAME_FIELDS = ("ruleset", "players", "opponents", "seed", "seat", "base", "rules", "spectate")


def _plain(x):
    """numpy scalars (the engine's) as Python numbers for JSON."""
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(f"not JSON: {type(x).__name__}")


class JSON(JSONResponse):
    def render(self, content) -> bytes:
        # ASCII with escapes: a lone surrogate a client sent, quoted back in an error, is still valid JSON
        return json.dumps(content, ensure_ascii=True, separators=(",", ":"), default=_plain).encode("ascii")


def error(message: str, status: int = 400) -> JSONResponse:
    return JSON({"error": message}, status_code=status)


async def _body(request: Request, limit: int) -> bytes:
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limit):
        raise BadRequest(f"request body too large (at most {limit} bytes)", 413)
    body = b""
    with anyio.move_on_after(BODY_TIMEOUT) as scope:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise BadRequest(f"request body too large (at most {limit} bytes)", 413)
    if scope.cancelled_caught:
        raise BadRequest(f"the request body did not arrive within {BODY_TIMEOUT:g} s", 408)
    return body


async def _json(request: Request) -> dict:
    body = await _body(request, MAX_JSON)
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except RecursionError:
        raise BadRequest("malformed JSON: nested too deeply") from None
    except ValueError as e:  # JSONDecodeError, UnicodeDecodeError, an integer of over 4,300 digits
        raise BadRequest(f"malformed JSON: {str(e)[:200]}") from None
    if not isinstance(data, dict):
        raise BadRequest(f"the body must be a JSON object, got {type(data).__name__}")
    return data


def host_name(value: str) -> str | None:
    """The host name in a ``Host`` header or an origin's netloc (``"[::1]:8000"`` -> ``"::1"``), lowercased; None
    when it does not parse."""
    try:
        parts = urlsplit("//" + value)
        _ = parts.port  # a port that is not a number raises
    except ValueError:  # an unbalanced bracket too
        return None
    return parts.hostname


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware in front of every route.

    - ``Host`` must name the address served: one of ``allowed_hosts`` (host names, any port), or any IP address
      when ``any_ip`` (a server listening on every interface). A DNS-rebinding page reaches the server under its
      own domain name, which is refused with 400.
    - A request that can change something (any method but GET and HEAD) must be same-origin: a browser's
      ``Origin`` must be this server's (``Sec-Fetch-Site`` cross-site or same-site is refused too), 403 otherwise;
      and its body must be JSON (``application/json``; a replay upload may be ``application/x-ndjson``), 415
      otherwise, since those are the types a cross-site page cannot send without the preflight that this server
      never grants. Clients that are not browsers send no ``Origin`` and pass.
    - Every answer carries a content security policy (this origin only, never framed) and ``nosniff``.
    """

    def __init__(self, app, allowed_hosts=LOOPBACK_NAMES, any_ip: bool = False):
        self.app, self.allowed, self.any_ip = app, {h.lower().strip("[]") for h in allowed_hosts}, any_ip

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        problem = self.refuse(scope["method"], scope["path"], headers)
        if problem is not None:
            status, message = problem
            return await JSON({"error": message}, status_code=status, headers={
                k.decode(): v.decode() for k, v in HEADERS})(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def host_ok(self, name: str | None) -> bool:
        return name is not None and ("*" in self.allowed or name in self.allowed or (self.any_ip and is_ip(name)))

    def refuse(self, method: str, path: str, headers: dict) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if not self.host_ok(host_name(host)):
            return 400, f"this server does not answer for host {host[:100]!r}"
        if method in ("GET", "HEAD"):
            return None
        if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
            return 403, "cross-site requests are refused"
        origin = headers.get("origin")
        if origin is not None:
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
                return 403, f"cross-origin requests are refused (origin {origin[:100]!r})"
        kind = headers.get("content-type", "").partition(";")[0].strip().lower()
        types = REPLAY_TYPES if path == "/api/replays" else JSON_TYPES
        if kind not in types:
            return 415, f"the body must be sent as {' or '.join(types)}, got {kind or 'no content type'!r}"
        return None


def guarded(handler):
    """A route from ``handler``: a ``BadRequest`` becomes its JSON error; any other exception, a bug, is logged
    with its traceback here and answered with one line."""
    async def route(request: Request):
        try:
            return await handler(request)
        except BadRequest as e:
            return error(str(e), e.status)
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return error("internal error (logged by the server)", 500)
    return route


# The handlers: module functions that find the app's stores on ``request.app.state`` (``games``, ``replays``).
async def index(request: Request):
    return FileResponse(STATIC / "index.html")


async def favicon(request: Request):
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


async def get_options(request: Request):
    return JSON(options(request.app.state.outside))


async def leaderboard_page(request: Request):
    return FileResponse(STATIC / "index.html")


def _board(request: Request):
    """The app's leaderboard, opened on first use (``LeaderboardError``: a 503, the reason logged)."""
    state = request.app.state
    with state.board_lock:
        if state.board is None:
            from shedders import leaderboard

            try:
                state.board = leaderboard.open_db(state.db)
            except leaderboard.LeaderboardError as e:  # the server's log names the file; a client is not told
                log.error("the leaderboard is not available: %s", e)
                raise BadRequest("the leaderboard is not available on this server (its log says why)",
                                 503) from None
        return state.board


def _read_board(request: Request, what):
    """``what(board)`` under the board's lock (one SQLite connection, used by one thread at a time)."""
    board = _board(request)
    with request.app.state.board_lock:
        return what(board)


def _entry_id(request: Request) -> int:
    entry = request.path_params["entry"]
    if not entry.isdigit() or len(entry) > 12:
        raise BadRequest(f"an entry is a number, got {entry[:40]!r}")
    return int(entry)


async def get_leaderboard(request: Request):
    q = request.query_params
    ruleset = q.get("ruleset") or None
    if ruleset is not None and ruleset not in RULESETS:
        raise BadRequest(f"unknown ruleset {ruleset[:40]!r}")
    players = q.get("players") or None
    if players is not None:
        if not players.isdigit() or len(players) > 2:
            raise BadRequest(f"players must be a number, got {players[:40]!r}")
        players = int(players)
    rows = await run_in_threadpool(_read_board, request, lambda b: b.entries(ruleset, players))
    return JSON({"entries": rows})


async def get_card(request: Request):
    entry = _entry_id(request)

    def read(board):
        try:
            return board.card(entry)
        except KeyError:
            raise BadRequest(f"no leaderboard entry {entry}", 404) from None

    return JSON(await run_in_threadpool(_read_board, request, read))


async def get_card_replay(request: Request):
    entry = _entry_id(request)
    k = request.path_params["k"]
    if not k.isdigit() or len(k) > 4:
        raise BadRequest(f"a replay is a number, got {k[:40]!r}")

    def read(board):
        try:
            return board.replay(entry, int(k))
        except KeyError:
            raise BadRequest(f"entry {entry} keeps no replay {k}", 404) from None

    text = await run_in_threadpool(_read_board, request, read)
    return Response(text, media_type="application/x-ndjson")


#: how much nicer than the server a thread of the threadpool runs once agents have decided on it (Linux: a
#: thread's own nice value): their thinking is background work next to serving
DECIDING_NICE = 10


def _deciding(fn, *args):
    import numba

    numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS - 1))  # numba counts threads per calling thread
    if hasattr(os, "setpriority"):  # run_in_threadpool's threads only: never the event loop's
        tid = threading.get_native_id()
        try:
            if os.getpriority(os.PRIO_PROCESS, tid) < DECIDING_NICE:
                os.setpriority(os.PRIO_PROCESS, tid, DECIDING_NICE)
        except OSError:  # not permitted here: the thread runs at the server's priority
            pass
    return fn(*args)


async def agents_decide(fn, *args):
    """``fn(*args)`` where agents decide: off the event loop, on the threadpool, with numba's threads on every core
    but one (a lone search spreads its rollouts over them), which the event loop keeps to serve the other games."""
    return await run_in_threadpool(_deciding, fn, *args)


async def new_game(request: Request):
    data = await _json(request)
    unknown = [k for k in data if k not in GAME_FIELDS]
    if unknown:
        raise BadRequest(f"unknown field {unknown[0]!r}; fields: {', '.join(GAME_FIELDS)}")
    outside = request.app.state.outside
    game = await agents_decide(lambda: GameSession(**data, outside=outside))
    key = request.app.state.games.add(game)
    return JSON({"id": key, **game.payload()}, status_code=201)


def _since(request: Request) -> int:
    since = request.query_params.get("since", "0")
    if not since.isdigit() or len(since) > 9:
        raise BadRequest(f"since must be a non-negative integer, got {since!r}")
    return int(since)


async def get_game(request: Request):  # on the event loop: reads what the game published, never its lock
    game = request.app.state.games.get(request.path_params["id"])
    return JSON({"id": request.path_params["id"], **game.payload(_since(request))})


async def act(request: Request):
    game = request.app.state.games.get(request.path_params["id"])
    data = await _json(request)
    if "action" not in data:
        raise BadRequest("the body needs 'action': an action name, as the buttons' data-action")
    since = len(game.events)
    await agents_decide(game.act, data["action"])
    return JSON({"id": request.path_params["id"], **game.payload(since)})


async def step(request: Request):
    game = request.app.state.games.get(request.path_params["id"])
    since = len(game.events)
    await agents_decide(game.step)
    return JSON({"id": request.path_params["id"], **game.payload(since)})


async def download(request: Request):
    game = request.app.state.games.get(request.path_params["id"])
    text = await run_in_threadpool(game.replay_text)
    name = f"shedders-{game.ruleset}-seed{game.seed}.jsonl"
    return Response(text, media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def upload(request: Request):
    body = await _body(request, MAX_REPLAY)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("a replay is UTF-8 text") from None
    rep = await run_in_threadpool(ReplaySession, text)
    key = request.app.state.replays.add(rep)
    return JSON({"id": key, **rep.frame(0, request.query_params.get("seat"))}, status_code=201)


async def frame(request: Request):
    rep = request.app.state.replays.get(request.path_params["id"], "replay")
    return JSON(rep.frame(request.query_params.get("frame", "0"), request.query_params.get("seat")))


ROUTES = [
    Route("/", index),
    Route("/favicon.ico", favicon),
    Route("/api/options", guarded(get_options)),
    Route("/api/games", guarded(new_game), methods=["POST"]),
    Route("/api/games/{id}", guarded(get_game)),
    Route("/api/games/{id}/action", guarded(act), methods=["POST"]),
    Route("/api/games/{id}/step", guarded(step), methods=["POST"]),
    Route("/api/games/{id}/replay", guarded(download)),
    Route("/api/replays", guarded(upload), methods=["POST"]),
    Route("/api/replays/{id}", guarded(frame)),
    Route("/leaderboard", leaderboard_page),
    Route("/api/leaderboard", guarded(get_leaderboard)),
    Route("/api/leaderboard/{entry}", guarded(get_card)),
    Route("/api/leaderboard/{entry}/replays/{k}", guarded(get_card_replay)),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


def create_app(max_games: int = 256, ttl: float = 1800.0, max_replays: int = 32,
               allowed_hosts=LOOPBACK_NAMES, any_ip: bool = False, db=None, outside_agents=()):
    """The app with its own stores: at most ``max_games`` games and ``max_replays`` replays, each dropped after
    ``ttl`` seconds without a request, behind :class:`Guard` (``allowed_hosts``, ``any_ip``). ``db``: the
    leaderboard database (default: ``shedders.leaderboard.default_path()``, opened when the page first asks);
    ``outside_agents``: agent specs written elsewhere (``file.py:MyAgent``) that clients may pick as opponents,
    by exactly that text (each is built once here, so a broken one stops the server before it starts)."""
    import threading

    import agents

    outside = tuple(outside_agents)
    for spec in outside:  # AgentError (a ValueError): the spec and what went wrong
        name, _ = agents.parse_agent(spec)
        if not agents.is_outside(name):
            raise ValueError(f"agent {spec!r} is built in: clients pick built-in agents by name already")
        agents.agent_class(name, "core")
    app = Starlette(routes=ROUTES)
    app.state.games, app.state.replays = Store(max_games, ttl), Store(max_replays, ttl)
    app.state.db, app.state.board, app.state.board_lock = db, None, threading.Lock()
    app.state.outside = outside
    guard = Guard(app, allowed_hosts, any_ip)
    guard.state = app.state
    return guard
