"""The public interface (kept exactly for outside code), PettingZoo's own API test, and clear errors for bad
input."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from conftest import P, act, make, state
from pettingzoo.test import api_test, seed_test

import shedders
from shedders.engine import palace as K

COUNTS = (
    [("core", n) for n in range(2, 6)]
    + [("south_african", n) for n in range(2, 7)]
    + [("og", n) for n in range(2, 9)]
    + [("fatality", n) for n in range(2, 7)]
)
ALL = ["og", "fatality", "core", "south_african", "house"]
HOUSE = [("core", n) for n in range(2, 6)] + [("south_african", n) for n in range(2, 7)]


@pytest.mark.parametrize("ruleset,n", COUNTS)
def test_pettingzoo_api_test(ruleset, n):
    api_test(shedders.env(ruleset, n), num_cycles=300)


@pytest.mark.parametrize("base,n", HOUSE)
def test_pettingzoo_api_test_house(base, n):
    rules = {"slap": True, "reverse_on_doubles": True, "skip_8": base == "core"}
    api_test(shedders.env("house", n, base=base, rules=rules), num_cycles=300)


@pytest.mark.parametrize("ruleset", ALL)
def test_pettingzoo_seed_test(ruleset):
    seed_test(lambda: shedders.env(ruleset, 4), num_cycles=200)


def test_rulesets_constant():
    assert shedders.RULESETS == ("og", "fatality", "core", "south_african", "house", "omg")


@pytest.mark.parametrize("ruleset", ALL)
def test_versioned_modules(ruleset):
    mod = importlib.import_module(f"shedders.envs.{ruleset}_v0")
    env = mod.env(num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.rules.name == ruleset
    assert isinstance(mod.raw_env(), shedders.PalaceEnv)
    assert "## Observation" in mod.__doc__ and "| `hand` |" in mod.__doc__


def test_env_is_wrapped_but_not_by_terminate_illegal():
    env = shedders.env("core", 4)
    chain = []
    e = env
    while hasattr(e, "env"):
        chain.append(type(e).__name__)
        e = e.env
    assert "TerminateIllegalWrapper" not in chain and chain  # wrapped, thinly
    assert isinstance(env.unwrapped, shedders.PalaceEnv)


def test_action_names_and_ids_are_inverse():
    env = shedders.raw_env("south_african", 4)
    names = env.action_names
    assert len(names) == K.N_ACTIONS == len(set(names))
    for i, name in enumerate(names):
        assert env.action_id(name) == i
    for name in ("play 2x7", "play 1xJOKER", "flip", "pickup", "swap 7 for K", "ready", "pass", "nominate +2"):
        assert name in names
    with pytest.raises(ValueError, match="unknown action name"):
        env.action_id("play 9x7 please")


def test_masks_are_int8_and_zero_for_every_agent_but_the_one_to_act():
    env = shedders.env("core", 4)
    env.reset(seed=0)
    for agent in env.agents:
        m = env.observe(agent)["action_mask"]
        assert m.dtype == np.int8
        assert (m.sum() > 0) == (agent == env.agent_selection)


def test_a_masked_action_raises_value_error_naming_it_and_the_legal_ones_and_changes_nothing():
    env = make(players=[P("9 K"), P("3")], pile="J")
    before = state(env)
    with pytest.raises(ValueError, match=r"play 1x9.*legal: play 1xK, pickup"):
        env.step(env.action_id("play 1x9"))
    assert state(env) == before and env.agent_selection == "player_0"
    for bad in (-1, K.N_ACTIONS, None, 1.5, "pickup"):
        with pytest.raises(ValueError):
            env.step(bad)
    assert state(env) == before
    wrapped = shedders.env("core", 2)
    wrapped.reset(seed=0)
    with pytest.raises(ValueError):
        wrapped.step(wrapped.unwrapped.action_id("pickup"))


def test_unknown_ruleset_names_the_allowed_ones():
    with pytest.raises(ValueError, match=r"'poker'.*core, south_african, house"):
        shedders.env("poker")


@pytest.mark.parametrize("ruleset,n", [("core", 1), ("core", 6), ("south_african", 7), ("house", 0)])
def test_bad_player_count_names_the_allowed_range(ruleset, n):
    with pytest.raises(ValueError, match=rf"num_players {n}.*allowed: 2\.\."):
        shedders.env(ruleset, n)


def test_a_deck_too_small_for_the_table_is_refused():
    with pytest.raises(ValueError, match=r"6 players are dealt 54 cards but the deck holds 52; allowed: 2\.\.5"):
        shedders.env("house", 6, base="south_african", rules={"jokers": False})


def test_bad_player_count_types():
    for bad in ("4", 4.0, True):
        with pytest.raises(ValueError):
            shedders.env("core", bad)


def test_unknown_rule_and_bad_toggle_values():
    with pytest.raises(ValueError, match=r"unknown rule 'skip_9'.*reset_2.*losers_tax"):
        shedders.env("house", 4, rules={"skip_9": True})
    with pytest.raises(ValueError, match="True or False"):
        shedders.env("house", 4, rules={"slap": "yes"})
    with pytest.raises(ValueError, match="house"):
        shedders.env("core", 4, rules={"slap": True})
    with pytest.raises(ValueError, match="unknown house base"):
        shedders.env("house", 4, base="og")
    with pytest.raises(ValueError, match="base= is accepted by 'house' only"):
        shedders.env("core", 4, base="core")
    with pytest.raises(ValueError, match="ply_cap"):
        shedders.env("core", 4, ply_cap=0)
    with pytest.raises(ValueError, match="render_mode"):
        shedders.env("core", 4, render_mode="rgb")


def test_every_ruleset_is_implemented():
    """Each listed ruleset builds, deals four seats with a legal decision for the player to act, and plays a random
    game to its end."""
    for name in shedders.RULESETS:
        env = shedders.raw_env(name, 4)
        env.reset(seed=0)
        assert env.rules.name == name and env.agents == [f"player_{i}" for i in range(4)]
        assert env.legal_actions(), name
        rng = np.random.default_rng(0)
        while not env.game_over:
            agent = env.agent_selection
            dead = env.terminations.get(agent) or env.truncations.get(agent)
            env.step(None if dead else int(rng.choice(env.legal_actions())))
        assert env.game_over and (env.game_truncated or len(env.placing()) >= 1), name


@pytest.mark.parametrize(
    "change,match",
    [
        ({"ruleset": "south_african"}, "this env plays 'core'"),
        ({"players": [P("3")]}, "list of 2 seats"),
        ({"players": [P("3 X"), P("4")]}, "unknown card 'X'"),
        ({"players": [P("JOKER"), P("4")]}, "more cards of rank JOKER"),
        ({"players": [P("9 9 9"), P("9 9")]}, "more cards of rank 9"),
        ({"phase": "lunch"}, "unknown phase 'lunch'"),
        ({"phase": "sneak"}, "phase 'sneak' is og's only"),
        ({"phase": "nominate"}, "needs the nominate_a rule"),
        ({"phase": "eat"}, "needs a Joker on top"),
        ({"current_player": 5}, "current_player must be a seat"),
        ({"direction": 2}, "direction must be 1 or -1"),
        ({"players": [P("3", down="4 5 6 7"), P("4")]}, "at most 3"),
        ({"players": [P("3", finished=True), P("4")]}, "finished but still holds"),
        ({"players": [P("3", known="4"), P("4")]}, "known must be cards of the hand"),
        ({"players": [P(""), P("4")], "deck": ["9"]}, "draws back to 3 while the deck lasts"),
        ({"players": [P(""), P("4")]}, "no legal action"),
        ({"players": [{"hand": ["3"], "hat": 1}, P("4")]}, "unknown keys"),
        ({"pile": ["9"], "pile_by": [7]}, "pile_by"),
    ],
)
def test_a_malformed_scenario_is_refused_with_value_error(change, match):
    sc = {"ruleset": "core", "current_player": 0, "phase": "play", "players": [P("3"), P("4")]}
    sc.update(change)
    env = shedders.raw_env("core", 2)
    with pytest.raises(ValueError, match=match):
        env.reset(options={"scenario": sc})


def test_scenario_keys_left_out_take_defaults_and_other_option_keys_are_ignored():
    env = shedders.raw_env("core", 2)
    env.reset(seed=0, options={"scenario": {"players": [{"hand": ["9"]}, {"hand": ["4"]}]}, "foo": 1})
    st = state(env)
    assert st["phase"] == "play" and st["current_player"] == 0 and st["direction"] == 1
    env.reset(seed=0, options={"foo": 1})
    assert state(env)["phase"] == "setup"


@pytest.mark.parametrize("ruleset,n,steps", [("south_african", 4, 60), ("og", 4, 45), ("og", 6, 80),
                                              ("fatality", 4, 60)])
def test_state_dict_round_trips_and_continues_the_game_exactly(ruleset, n, steps):
    rng = np.random.default_rng(3)
    env = shedders.raw_env(ruleset, n)
    env.reset(seed=3)
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(env.legal_actions())))
    snap = env.state_dict()
    other = shedders.raw_env(ruleset, n)
    other.reset(seed=99, options={"scenario": snap})
    assert other.state_dict() == snap
    assert np.array_equal(other._mask, env._mask)
    for agent in env.possible_agents:
        assert np.array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])
    # and both continue identically under the same actions
    for _ in range(40):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        a = int(rng.choice(env.legal_actions()))
        env.step(a)
        other.step(a)
        assert other.state_dict() == env.state_dict()


def test_players_already_out_in_a_scenario_are_not_in_agents():
    env = make(players=[P("3"), P(finished=True), P("4")], placing=[1])
    assert env.agents == ["player_0", "player_2"]


def test_state_dict_when_the_game_is_over():
    env = make(players=[P("K"), P("3")], pile="9")
    act(env, "play 1xK")
    st = state(env)
    assert st["phase"] == "over" and st["current_player"] is None and st["placing"] == [0]
    assert env.agents == []


def test_render_ansi_shows_the_table_as_the_acting_player_sees_it():
    env = make(players=[P("3 9", up="K", down="4 5"), P("6 J", up="A", known="J")], pile="8")
    env.render_mode = "ansi"
    text = env.render()
    assert "player_0 (you, to act): hand [3 9]" in text
    assert "player_1: hand [2 cards, known: J]" in text and "6" not in text.split("player_1")[1]
    assert "face-down 2" in text and "play 8 or higher" in text


def test_render_human_prints(capsys):
    env = shedders.env("core", 2, render_mode="human")
    env.reset(seed=0)
    assert "shedders core" in capsys.readouterr().out


def test_observation_space_contains_every_observation():
    env = shedders.raw_env("south_african", 5)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(300):
        if not env.agents:
            break
        for a in env.agents:
            assert env.observation_space(a).contains(env.observe(a))
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
        else:
            env.step(int(rng.choice(env.legal_actions())))


def test_registered_in_the_pettingzoo_registry_where_there_is_one():
    registration = pytest.importorskip("pettingzoo.env_registry.registration")
    env = registration.make("aec", "shedders/south_african-v0", num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.rules.name == "south_african" and len(env.agents) == 3
