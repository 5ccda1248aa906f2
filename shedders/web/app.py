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

Errors are 4xx with ``{"error": message}``: 400 for malformed JSON or a bad field, 404 for an unknown (or expired)
game, 409 for a move that is not legal now or not the caller's, 413 for a body too large.
"""

from __future__ import annotations

import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from shedders.web.sessions import BadRequest, GameSession, ReplaySession, Store, options

STATIC = Path(__file__).with_name("static")
MAX_JSON = 64 * 1024
MAX_REPLAY = 8 * 1024 * 1024
GAME_FIELDS = ("ruleset", "players", "opponents", "seed", "seat", "base", "rules", "spectate")


def _plain(x):
    """numpy scalars (the engine's) as Python numbers for JSON."""
    if hasattr(x, "item"):
        return x.item()
    raise TypeError(f"not JSON: {type(x).__name__}")


class JSON(JSONResponse):
    def render(self, content) -> bytes:
        return json.dumps(content, ensure_ascii=False, separators=(",", ":"), default=_plain).encode("utf-8")


def error(message: str, status: int = 400) -> JSONResponse:
    return JSON({"error": message}, status_code=status)


async def _body(request: Request, limit: int) -> bytes:
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > limit):
        raise BadRequest(f"request body too large (at most {limit} bytes)", 413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadRequest(f"request body too large (at most {limit} bytes)", 413)
    return body


async def _json(request: Request) -> dict:
    body = await _body(request, MAX_JSON)
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadRequest(f"malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise BadRequest(f"the body must be a JSON object, got {type(data).__name__}")
    return data


def create_app(max_games: int = 256, ttl: float = 1800.0, max_replays: int = 32) -> Starlette:
    """The app with its own stores: at most ``max_games`` games and ``max_replays`` replays, each dropped after
    ``ttl`` seconds without a request."""
    games = Store(max_games, ttl)
    replays = Store(max_replays, ttl)

    def guarded(handler):
        async def route(request: Request):
            try:
                return await handler(request)
            except BadRequest as e:
                return error(str(e), e.status)
        return route

    async def index(request: Request):
        return FileResponse(STATIC / "index.html")

    async def get_options(request: Request):
        return JSON(options())

    async def new_game(request: Request):
        data = await _json(request)
        unknown = [k for k in data if k not in GAME_FIELDS]
        if unknown:
            raise BadRequest(f"unknown field {unknown[0]!r}; fields: {', '.join(GAME_FIELDS)}")
        game = await run_in_threadpool(lambda: GameSession(**data))  # agents decide: off the event loop
        key = games.add(game)
        return JSON({"id": key, **game.payload()}, status_code=201)

    def _since(request: Request) -> int:
        since = request.query_params.get("since", "0")
        if not since.isdigit() or len(since) > 9:
            raise BadRequest(f"since must be a non-negative integer, got {since!r}")
        return int(since)

    async def get_game(request: Request):
        game = games.get(request.path_params["id"])
        return JSON({"id": request.path_params["id"], **game.payload(_since(request))})

    async def act(request: Request):
        game = games.get(request.path_params["id"])
        data = await _json(request)
        if "action" not in data:
            raise BadRequest("the body needs 'action': an action name, as the buttons' data-action")
        since = len(game.events)
        await run_in_threadpool(game.act, data["action"])
        return JSON({"id": request.path_params["id"], **game.payload(since)})

    async def step(request: Request):
        game = games.get(request.path_params["id"])
        since = len(game.events)
        await run_in_threadpool(game.step)
        return JSON({"id": request.path_params["id"], **game.payload(since)})

    async def download(request: Request):
        key = request.path_params["id"]
        game = games.get(key)
        name = f"shedders-{game.ruleset}-seed{game.seed}.jsonl"
        return Response(game.replay_text(), media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def upload(request: Request):
        body = await _body(request, MAX_REPLAY)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("a replay is UTF-8 text") from None
        rep = await run_in_threadpool(ReplaySession, text)
        key = replays.add(rep)
        return JSON({"id": key, **rep.frame(0, request.query_params.get("seat"))}, status_code=201)

    async def frame(request: Request):
        rep = replays.get(request.path_params["id"], "replay")
        return JSON(rep.frame(request.query_params.get("frame", "0"), request.query_params.get("seat")))

    routes = [
        Route("/", index),
        Route("/api/options", guarded(get_options)),
        Route("/api/games", guarded(new_game), methods=["POST"]),
        Route("/api/games/{id}", guarded(get_game)),
        Route("/api/games/{id}/action", guarded(act), methods=["POST"]),
        Route("/api/games/{id}/step", guarded(step), methods=["POST"]),
        Route("/api/games/{id}/replay", guarded(download)),
        Route("/api/replays", guarded(upload), methods=["POST"]),
        Route("/api/replays/{id}", guarded(frame)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.games, app.state.replays = games, replays
    return app
