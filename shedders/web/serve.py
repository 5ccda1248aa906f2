"""``shedders serve``: the web app on this machine, at 127.0.0.1 and a free port unless told otherwise.

    shedders serve                       # prints the address to open
    shedders serve --host 0.0.0.0 --port 8000 --max-games 64
    shedders serve --db board.sqlite --agent my_agent.py:MyAgent   # the leaderboard of board.sqlite; your agent

Open the printed address: start a game against any agents (``expert``, ``ppo``, ``search:budget=64``, ...),
watch agents play each other, open a saved replay, or browse the leaderboard of ``shedders bench`` score cards
(``/leaderboard``; ``--db``). An agent written elsewhere is offered to players only when the server is started
with it (``--agent``): a client never names a file or a module. Everything is served by the app itself (no CDN),
so it works offline. Games are kept in memory; one left alone for ``--ttl`` seconds is dropped.

The server answers only for the address it listens on (and ``localhost`` on the loopback address; any IP address
when it listens on every interface); ``--allow-host NAME`` adds a host name it may be reached under. Connections
whose request headers take longer than 10 s are closed. See ``shedders.web.app`` for what a client may ask.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from dataclasses import dataclass, field

from shedders.commandline import build_parser, config_from

HEADER_TIMEOUT = 10.0  # seconds a connection may take to send a request's headers
LIMIT_CONCURRENCY = 1000  # connections and requests at once; past it, 503


@dataclass
class Config:
    """A local web app for shedders: play, watch and replay games in the browser."""

    host: str = "127.0.0.1"
    """address to listen on (127.0.0.1: this machine only)"""
    port: int = 0
    """port to listen on (0: a free one, printed at start)"""
    max_games: int = 256
    """games kept in memory at most (the least recently used is dropped first)"""
    ttl: float = 1800.0
    """seconds a game or replay is kept without a request"""
    db: str | None = None
    """the leaderboard database shown at /leaderboard (default: $SHEDDERS_DB, else a file in the user's data
    directory, as shedders leaderboard reads)"""
    agent: list[str] = field(default_factory=list)
    """agents written elsewhere that players may pick as opponents, by exactly this spec (module:Class or
    path/to/file.py:Class, options after ':'); comma separated"""
    allow_host: list[str] = field(default_factory=list)
    """a host name the server may be reached under besides its address (repeatable; a server on every interface
    answers any IP address and localhost, one on the loopback address localhost, 127.0.0.1 and ::1)"""


def allowed_hosts(host: str, extra=()) -> tuple[tuple[str, ...], bool]:
    """(host names the ``Host`` header may name, whether any IP address may) for a server listening on ``host``."""
    names = [host.strip("[]").lower(), *(h.lower() for h in extra)]
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:  # a name: itself and what it resolves to
        return tuple(names), False
    if ip.is_unspecified:
        return tuple(names + ["localhost", socket.gethostname().lower()]), True
    if ip.is_loopback:
        names += ["localhost", "127.0.0.1", "::1"]
    return tuple(names), False


def server(app, header_timeout: float = HEADER_TIMEOUT):
    """A ``uvicorn.Server`` for ``app`` that closes connections whose request headers are slower than
    ``header_timeout`` seconds (uvicorn itself waits for ever: 400 connections trickling headers held a server)."""
    import h11
    import uvicorn
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        timer = None

        def _arm(self) -> None:
            if self.timer is not None:
                self.timer.cancel()
            self.timer = self.loop.call_later(header_timeout, self._late)

        def _late(self) -> None:
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def handle_events(self) -> None:
            super().handle_events()
            if self.timer is not None and self.conn.their_state is not h11.IDLE:  # the headers are in
                self.timer.cancel()
                self.timer = None

        def on_response_complete(self) -> None:
            self._arm()  # the next request's headers (a kept-alive connection) are timed from here
            super().on_response_complete()

        def connection_lost(self, exc) -> None:
            if self.timer is not None:
                self.timer.cancel()
            super().connection_lost(exc)

    return uvicorn.Server(uvicorn.Config(app, http=Protocol, log_level="warning",
                                         limit_concurrency=LIMIT_CONCURRENCY))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: without it a small answer waits ~40 ms for the client's delayed ACK
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def main(argv: list[str] | None = None) -> int:
    ap = build_parser(Config, description=__doc__)
    ap.prog = "shedders serve"
    cfg = config_from(Config, ap.parse_args(argv))
    if not 0 <= cfg.port <= 65535:
        ap.error(f"--port must be in 0..65535, got {cfg.port}")
    if cfg.max_games < 1 or cfg.ttl <= 0:
        ap.error("--max-games must be at least 1 and --ttl positive")
    try:
        import uvicorn  # noqa: F401
    except ModuleNotFoundError:
        print("shedders serve needs uvicorn and starlette, which shedders depends on: reinstall with "
              "pip install -e .", file=sys.stderr)
        return 2
    from shedders.web.app import create_app

    try:
        app = create_app(cfg.max_games, cfg.ttl, allowed_hosts=allowed_hosts(cfg.host, cfg.allow_host)[0],
                         any_ip=allowed_hosts(cfg.host, cfg.allow_host)[1], db=cfg.db, outside_agents=cfg.agent)
    except ValueError as e:
        ap.error(f"--agent: {e}")
    try:
        sock = bind(cfg.host, cfg.port)
    except OSError as e:
        ap.error(f"cannot listen on {cfg.host}:{cfg.port}: {e.strerror or e}")
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"shedders serve: open http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    if cfg.agent:
        print(f"  outside agents offered as opponents: {', '.join(cfg.agent)}", flush=True)
    try:
        server(app).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
