"""Scenario fuzz: hypothesis mutations of valid ``state_dict()``s (keys dropped, values duplicated, retyped or put
out
of range) must each load as a valid game that plays to its end, or be refused with ``ValueError`` and the env left
exactly as it was. Never another exception, never a crash.

SHEDDERS_FUZZ=N runs N examples (default 1,000, a few seconds; the closing note of the hardening issue reports a
10,000 run).
"""

from __future__ import annotations

import copy
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_hardening import snapshot

import shedders

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out

FUZZ = settings(max_examples=int(os.environ.get("SHEDDERS_FUZZ", "1000")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CAP = 400  # every env here caps its games at 400 decisions, so a loaded game is played to its end quickly

CONFIGS = [("og", 3, {}), ("og", 6, {}), ("fatality", 4, {}), ("core", 3, {}), ("south_african", 4, {}),
           ("house", 4, {"base": "south_african", "rules": {"slap": True, "reverse_on_doubles": True}}),
           ("omg", 3, {})]
ENVS = {}


def env_for(i: int, which: int):
    """Env ``which`` (0: the source of states, 1: the env under test) of config ``i``, made once."""
    if (i, which) not in ENVS:
        ruleset, n, kwargs = CONFIGS[i]
        ENVS[i, which] = shedders.raw_env(ruleset, n, ply_cap=CAP, **kwargs)
    return ENVS[i, which]


def play_random(env, steps: int, rng) -> None:
    for _ in range(steps):
        if not env.agents:
            return
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(int(rng.choice(env.legal_actions())))


def nodes(x, path=()):
    """Every place in a nested dict/list, as a path of keys and indices (the root is not one)."""
    out = []
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    for k, v in items:
        out.append(path + (k,))
        out.extend(nodes(v, path + (k,)))
    return out


def parent_of(root, path):
    for k in path[:-1]:
        root = root[k]
    return root


ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.sampled_from([-1, 0, 1, 2, 3, 7, 8, 100, 127, 128,
                                                                             2**15, 2**31, -(2**63)]),
    st.floats(allow_nan=True), st.text(max_size=6), st.sampled_from(["K", "3:9", "JOKER:JOKER", "Zeus Fire 2*",
                                                                     "Zeus Fire 9*", "play", "over", "sneak"]),
    st.lists(st.integers(-2, 9), max_size=4), st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


#: scenario keys that a state_dict() leaves out in some phases (palace windows, omg powers)
OPTIONAL_KEYS = ["turn", "target", "ask", "ask_left", "pile_by", "plies", "sneak_rank", "sneak_by",
                 "resume_player", "resume_phase", "out_of_turn", "last_play", "power", "chosen", "left", "winner",
                 "revealed"]


@st.composite
def mutated_scenarios(draw):
    i = draw(st.integers(0, len(CONFIGS) - 1))
    seed = draw(st.integers(0, 2**20))
    steps = draw(st.integers(0, 80))
    src = env_for(i, 0)
    src.reset(seed=seed)
    play_random(src, steps, np.random.default_rng(seed))
    sc = copy.deepcopy(src.state_dict())
    for _ in range(draw(st.integers(1, 3))):
        places = nodes(sc)
        if not places or draw(st.integers(0, 5)) == 0:  # a key the state may leave out, with an odd value
            sc[draw(st.sampled_from(OPTIONAL_KEYS))] = draw(ODD_VALUES)
            continue
        path = draw(st.sampled_from(places))
        parent, key = parent_of(sc, path), path[-1]
        kind = draw(st.sampled_from(["drop", "duplicate", "retype", "retype"]))
        if kind == "drop":
            del parent[key]
        elif kind == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif kind == "duplicate" and isinstance(parent[key], list) and parent[key]:
            parent[key].append(copy.deepcopy(parent[key][0]))
        else:
            parent[key] = draw(ODD_VALUES)
    return i, sc


def zone_totals(env) -> np.ndarray:
    """Cards per kind over every zone of the game (a loaded scenario may hold fewer than the deck)."""
    s = env._state
    if env.rules.name == "omg":
        tot = s.hand[0].sum(0).astype(np.int64)
        np.add.at(tot, s.pile[0, : s.pile_len[0]], 1)
        np.add.at(tot, s.deck[0, : s.deck_len[0]], 1)
        return tot
    tot = s.hand[0].sum(0).astype(np.int64) + s.face_up[0].sum(0) + s.out[0]
    np.add.at(tot, s.pile[0, : s.pile_len[0]], 1)
    np.add.at(tot, s.deck[0, : s.deck_len[0]], 1)
    down = s.face_down[0]
    np.add.at(tot, down[down >= 0], 1)
    return tot


@FUZZ
@given(mutated_scenarios(), st.integers(0, 2**20))
def test_a_mutated_scenario_loads_as_a_valid_game_or_is_refused_with_the_env_unchanged(case, seed):
    i, sc = case
    env = env_for(i, 1)
    env.reset(seed=seed)
    play_random(env, seed % 7, np.random.default_rng(seed))
    before = snapshot(env)
    try:
        env.reset(seed=seed, options={"scenario": sc})
    except ValueError:
        assert snapshot(env) == before
        event("refused")
        return
    event(f"accepted: {env.rules.name}")
    # accepted: a valid game. It reads back as it loaded, every card stays where the rules move it, each live
    # decision has a legal action, and it ends within the cap.
    loaded = env.state_dict()
    env2 = env_for(i, 0)
    env2.reset(options={"scenario": copy.deepcopy(loaded)})
    assert env2.state_dict() == loaded
    total = zone_totals(env)
    rng = np.random.default_rng(seed)
    for _ in range(CAP + len(env.possible_agents) + 1):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = env.legal_actions()
        assert legal, f"no legal action for {agent} in {env.state_dict()}"
        assert env.observe(agent)["action_mask"].sum() == len(legal)
        env.step(int(rng.choice(legal)))
        assert (zone_totals(env) == total).all()
    assert not env.agents and env.state_dict()["phase"] == "over"
