"""Load on the web app: many games at once through the HTTP API on the loopback address.

    python -m benchmarks.web_load --games 100 --ruleset core --opponents greedy --think 10

Each client starts a game and plays random legal moves to the end, all clients at once (asyncio + httpx against a
real uvicorn server in this process, served as ``shedders serve`` serves). With ``--think S`` one more game, a
spectated one, has its agent think for S seconds on one decision (a ``search:budget=4096`` run again and again,
real CPU work on a worker thread) while the others play, and a watcher reads that game every 0.2 s meanwhile.
Prints the number of requests, failures, and the p50/p95/p99/max response times of the games' requests and of the
watcher's reads of the thinking game.
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
    think: float = 0.0
    """seconds one more game's agent thinks on one decision while the others play (0: no such game)"""


def slow(policy, seconds: float):
    """``policy`` deciding again and again until ``seconds`` have passed: an agent that thinks that long."""
    def decide(env, agent):
        t0 = time.perf_counter()
        action = policy(env, agent)
        while time.perf_counter() - t0 < seconds:
            action = policy(env, agent)
        return action
    return decide


async def _client(http: httpx.AsyncClient, cfg: Config, i: int, times: list, failures: list,
                  stamps: list) -> bool:
    rng = random.Random(cfg.seed * 1_000_003 + i)

    async def call(method, path, **kw):
        t0 = time.perf_counter()
        r = await http.request(method, path, **kw)
        stamps.append(time.perf_counter())
        times.append(stamps[-1] - t0)
        if r.status_code >= 400:
            failures.append((path, r.status_code, r.text[:200]))
            return None
        return r.json()

    d = await call("POST", "/api/games", json={"ruleset": cfg.ruleset, "players": cfg.players,
                                                "opponents": cfg.opponents, "seed": cfg.seed + i})
    while d is not None and not d["over"]:
        move = rng.choice(d["view"]["legal"])["action"]
        d = await call("POST", f"/api/games/{d['id']}/action", json={"action": move})
    return d is not None and d["result"] is not None


async def _thinker(http: httpx.AsyncClient, key: str, watched: list, failures: list, answered: list,
                   window: list) -> float:
    """Step the thinking game once (its agent thinks ``think`` seconds) while reading it every 0.2 s; each read's
    time goes to ``watched``, when it was answered (seconds since the step was sent) to ``answered``, and the
    step's start and end (``time.perf_counter``) to ``window``."""
    step = asyncio.ensure_future(http.post(f"/api/games/{key}/step", json={}))
    t0 = time.perf_counter()
    window.append(t0)
    while not step.done():
        t1 = time.perf_counter()
        r = await http.get(f"/api/games/{key}")
        watched.append(time.perf_counter() - t1)
        answered.append(time.perf_counter() - t0)
        if r.status_code != 200:
            failures.append((f"/api/games/{key}", r.status_code, r.text[:200]))
        await asyncio.sleep(0.2)
    r = await step
    window.append(time.perf_counter())
    if r.status_code != 200:
        failures.append((f"/api/games/{key}/step", r.status_code, r.text[:200]))
    return window[1] - t0


def _ms(times: list) -> dict:
    ms = np.array(times or [np.nan]) * 1000
    return {q: float(np.percentile(ms, p)) for q, p in (("p50_ms", 50), ("p95_ms", 95), ("p99_ms", 99))} | {
        "max_ms": float(ms.max())}


async def _run(url: str, cfg: Config, thinking: str | None = None) -> dict:
    times: list[float] = []
    watched: list[float] = []
    answered: list[float] = []
    stamps: list[float] = []
    window: list[float] = []
    failures: list = []
    limits = httpx.Limits(max_connections=cfg.games + 2, max_keepalive_connections=cfg.games + 2)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        t0 = time.perf_counter()
        jobs = [_client(http, cfg, i, times, failures, stamps) for i in range(cfg.games)]
        if thinking is not None:
            jobs.append(_thinker(http, thinking, watched, failures, answered, window))
        done = await asyncio.gather(*jobs)
        wall = time.perf_counter() - t0
    return {"games": cfg.games, "finished": int(sum(done[:cfg.games])), "requests": len(times),
            "failures": failures, **_ms(times), "wall_s": wall, "think_s": done[cfg.games] if thinking else None,
            "watched": len(watched), "watched_ms": _ms(watched),
            "watched_gap_s": _longest_gap(answered, done[cfg.games]) if thinking else None,
            # the other games' requests answered while the agent thought: a server the thinking agent held (the
            # GIL, the event loop) would answer none
            "served_while_thinking": (int(sum(window[0] < t < window[1] for t in stamps)) if thinking else None)}


def _longest_gap(answered: list[float], think_s: float) -> float:
    """The longest time, while the agent thought, in which no read of its game was answered (from the step's
    start to the first answer, between answers, from the last answer to the step's end). A server that the
    thinking agent held would answer nothing until it was done: a gap of the whole think."""
    marks = [0.0, *sorted(a for a in answered if a < think_s), think_s]
    return float(np.max(np.diff(marks)))


def run(cfg: Config, url: str | None = None) -> dict:
    """Play ``cfg.games`` games at once against the server at ``url`` (default: a fresh one in this process, where
    ``cfg.think`` can add the thinking game)."""
    if url is not None:
        return asyncio.run(_run(url, cfg))
    app = create_app(max_games=max(256, cfg.games + 1))
    with serving(app) as served:
        thinking = None
        if cfg.think > 0:
            with httpx.Client(base_url=served, timeout=120) as http:
                r = http.post("/api/games", json={"ruleset": cfg.ruleset, "players": cfg.players, "spectate": True,
                                                  "opponents": "search:budget=4096", "seed": cfg.seed + cfg.games})
                r.raise_for_status()
                thinking = r.json()["id"]
            game = app.state.games.get(thinking)
            # compile (or load) the thinking search's kernels before the clock starts: the load measures serving
            # while an agent thinks, and numba's compiler would hold the GIL meanwhile
            game.policies[game.env.seat(game.env.agent_selection)](game.env, game.env.agent_selection)
            game.policies = {q: slow(p, cfg.think) for q, p in game.policies.items()}
        return asyncio.run(_run(served, cfg, thinking))


def report(r: dict) -> str:
    text = (f"{r['games']} concurrent games, {r['finished']} finished, {r['requests']} requests, "
            f"{len(r['failures'])} failed; response time p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
            f"p99 {r['p99_ms']:.1f} ms, max {r['max_ms']:.1f} ms; {r['wall_s']:.1f} s in all")
    if r["think_s"] is not None:
        w = r["watched_ms"]
        text += (f"\none game's agent thought for {r['think_s']:.1f} s meanwhile; {r['watched']} reads of that "
                 f"game: p50 {w['p50_ms']:.1f} ms, p95 {w['p95_ms']:.1f} ms, p99 {w['p99_ms']:.1f} ms, "
                 f"max {w['max_ms']:.1f} ms; the longest wait for an answer {r['watched_gap_s']:.2f} s; "
                 f"{r['served_while_thinking']} requests of the other games answered meanwhile")
    return text


def main(argv: list[str] | None = None) -> int:
    cfg = config_from(Config, build_parser(Config, description=__doc__).parse_args(argv))
    r = run(cfg)
    print(report(r))
    for f in r["failures"][:5]:
        print("failed:", f)
    return 1 if r["failures"] or r["finished"] != r["games"] else 0


if __name__ == "__main__":
    sys.exit(main())
