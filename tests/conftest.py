"""Shared helpers: scenario envs built from readable card strings, and scripted steps by action name."""

from __future__ import annotations

import numpy as np
import pytest

import shedders
from shedders.engine import palace as K


def P(hand="", up="", down="", finished=False, known=""):
    """A player dict from space-separated card strings: P("7 7 K", up="10", down="4 5 6")."""
    return {
        "hand": hand.split(),
        "face_up": up.split(),
        "face_down": down.split(),
        "finished": finished,
        "known": known.split(),
    }


def make(ruleset="core", players=None, n=None, pile="", deck="", current=0, phase="play", seed=0, **extra):
    """A raw env reset into the scenario; ``extra`` holds more scenario keys, or env kwargs (rules, base, ply_cap,
    cap_rule)."""
    env_kwargs = {k: extra.pop(k) for k in ("rules", "base", "ply_cap", "cap_rule") if k in extra}
    players = players or [P("3"), P("4")]
    n = n or len(players)
    env = shedders.raw_env(ruleset, n, **env_kwargs)
    sc = {
        "ruleset": ruleset,
        "current_player": current,
        "phase": phase,
        "players": players,
        "pile": pile.split(),
        "deck": deck.split(),
        **extra,
    }
    env.reset(seed=seed, options={"scenario": sc})
    return env


def act(env, name):
    """Step the agent to act with the action called ``name``; fails the test if it is not legal."""
    legal = env.legal_action_names()
    assert name in legal, f"{name!r} not legal for {env.agent_selection}; legal: {legal}"
    env.step(env.action_id(name))
    while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(None)  # PettingZoo: players who went out are stepped with None
    return env


def state(env):
    return env.state_dict()


def hand(env, seat):
    return sorted(env.state_dict()["players"][seat]["hand"], key=K.RANK_NAMES.index)


def cards(s):
    return sorted(s.split(), key=K.RANK_NAMES.index)


def conserved(env) -> bool:
    """Every card of the ruleset's deck is in exactly one zone."""
    s = env._state
    n = env.rules.num_players
    tot = s.hand[0].sum(0).astype(np.int64) + s.face_up[0].sum(0) + s.out[0]
    for i in range(s.pile_len[0]):
        tot[s.pile[0, i]] += 1
    for i in range(s.deck_len[0]):
        tot[s.deck[0, i]] += 1
    for p in range(n):
        for r in s.face_down[0, p]:
            if r >= 0:
                tot[r] += 1
    return bool((tot == env.rules.deck_counts()).all())


#: beside the engine's cached kernels: the hash of the engine sources that ``agents.precompile`` last compiled
PRECOMPILED = "shedders-precompiled.sha256"


def pytest_configure(config):
    """Unless the current engine sources were precompiled here, compile the kernels first, in parallel processes
    (``agents.precompile``), before the workers start: otherwise each worker compiles the kernels its first tests
    call, the two workers of ``-n 2`` often the same ones at the same time. Runs in xdist's controller only (a run
    in one process compiles what its tests call, as they call it); where everything is cached it only loads (a few
    seconds), and it is skipped once marked."""
    jobs = getattr(config.option, "numprocesses", None)  # xdist's -n: a count, or "auto" before it resolves
    if hasattr(config, "workerinput") or not jobs:
        return
    import os
    import sys

    from shedders.engine.cache import ENGINE_DIR, cache_dir, source_hash

    where = cache_dir(ENGINE_DIR)
    if where is None:
        return
    mark, digest = where / PRECOMPILED, source_hash()
    try:
        if mark.read_text() == digest:
            return
    except OSError:
        pass
    from agents import precompile

    jobs = jobs if isinstance(jobs, int) else os.cpu_count() or 1
    names = list(precompile.groups())
    print(f"shedders: compiling the kernels first over {jobs} processes (python -m agents.precompile)",
          file=sys.__stderr__, flush=True)
    done = precompile.run_groups(names, jobs, stream=sys.__stderr__)
    print("shedders: " + ", ".join(f"{k} {v:.0f} s" for k, v in done.items()), file=sys.__stderr__, flush=True)
    if len(done) == len(names):
        try:
            mark.write_text(digest)
        except OSError:
            pass


def pytest_report_header(config):
    """Shown before the tests start (pytest captures what is printed at import): whether the kernels compile
    now."""
    from shedders.engine.cache import cached_kernels

    n = cached_kernels()
    return (f"numba kernels cached: {n}" if n else "numba kernels cached: none; the first tests compile them (a "
            "few minutes on two cores; the output sits still meanwhile)")


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Compile (or load from numba's cache) every kernel once, before the timed part of any test."""
    e = shedders.raw_env("south_african", 4)
    e.reset(seed=0)
    e.observe("player_0")
    e.step(e.legal_actions()[0])
