"""Load on the web app: many games at once through the HTTP API on the loopback address.

    python -m benchmarks.web_load --games 50 --ruleset core --opponents greedy

Each client starts a game and plays random legal moves to the end, all clients at once (asyncio + httpx against a
real uvicorn server in this process). Prints the number of requests, failures, and the p50/p95/max response time.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from dataclasses import dataclass

import httpx
import numpy as np

from shedders.commandline import build_parser, config_from
from shedders.web.app import create_app
from shedders.web.testing import serving


@dataclass
class Config:
    """Many concurrent games through the web app's HTTP API."""

    games: int = 50
    """games played at once"""
    ruleset: str = "core"
    """the ruleset of every game"""
    players: int = 4
    """seats per game"""
    opponents: str = "greedy"
    """agent specs for the other seats (comma-separated)"""
    seed: int = 0
    """seed of the first game (game i is dealt from seed + i) and of the clients' choices"""


async def _client(http: httpx.AsyncClient, cfg: Config, i: int, times: list, failures: list) -> bool:
    rng = random.Random(cfg.seed * 1_000_003 + i)

    async def call(method, path, **kw):
        t0 = time.perf_counter()
        r = await http.request(method, path, **kw)
        times.append(time.perf_counter() - t0)
        if r.status_code >= 400:
            failures.append((path, r.status_code, r.text[:200]))
            return None
        return r.json()

    d = await call("POST", "/api/games", json={"ruleset": cfg.ruleset, "players": cfg.players,
                                                "opponents": cfg.opponents, "seed": cfg.seed + i})
    while d is not None and not d["over"]:
        d = await call("POST", f"/api/games/{d['id']}/action", json={"action": rng.choice(d["view"]["legal"])["action"]})
    return d is not None and d["result"] is not None


async def _run(url: str, cfg: Config) -> dict:
    times: list[float] = []
    failures: list = []
    limits = httpx.Limits(max_connections=cfg.games, max_keepalive_connections=cfg.games)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        t0 = time.perf_counter()
        done = await asyncio.gather(*(_client(http, cfg, i, times, failures) for i in range(cfg.games)))
        wall = time.perf_counter() - t0
    ms = np.array(times) * 1000
    return {"games": cfg.games, "finished": int(sum(done)), "requests": len(times), "failures": failures,
            "p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
            "max_ms": float(ms.max()), "wall_s": wall}


def run(cfg: Config, url: str | None = None) -> dict:
    """Play ``cfg.games`` games at once against the server at ``url`` (default: a fresh one in this process)."""
    if url is not None:
        return asyncio.run(_run(url, cfg))
    with serving(create_app(max_games=max(256, cfg.games))) as url:
        return asyncio.run(_run(url, cfg))


def report(r: dict) -> str:
    return (f"{r['games']} concurrent games, {r['finished']} finished, {r['requests']} requests, "
            f"{len(r['failures'])} failed; response time p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
            f"max {r['max_ms']:.1f} ms; {r['wall_s']:.1f} s in all")


def main(argv: list[str] | None = None) -> int:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    r = run(cfg)
    print(report(r))
    for f in r["failures"][:5]:
        print("failed:", f)
    return 1 if r["failures"] or r["finished"] != r["games"] else 0


if __name__ == "__main__":
    sys.exit(main())
