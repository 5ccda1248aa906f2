"""``shedders serve``: the web app on this machine, at 127.0.0.1 and a free port unless told otherwise.

    shedders serve                       # prints the address to open
    shedders serve --host 0.0.0.0 --port 8000 --max-games 64

Open the printed address: start a game against any agents (``expert``, ``ppo``, ``search:budget=64``, ...),
watch agents play each other, or open a saved replay. Everything is served by the app itself (no CDN), so it works
offline. Games are kept in memory; one left alone for ``--ttl`` seconds is dropped.
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass

from shedders.commandline import build_parser, config_from


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
        import uvicorn
    except ModuleNotFoundError:
        print("shedders serve needs uvicorn and starlette, which shedders depends on: reinstall with "
              "pip install -e .", file=sys.stderr)
        return 2
    from shedders.web.app import create_app

    try:
        sock = bind(cfg.host, cfg.port)
    except OSError as e:
        ap.error(f"cannot listen on {cfg.host}:{cfg.port}: {e.strerror or e}")
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"shedders serve: open http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(cfg.max_games, cfg.ttl), log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
