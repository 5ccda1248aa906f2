"""omg invariants over random games (hypothesis): every card exists once, masks are respected, every game ends,
the same seed gives the same game, observations leak no hidden card; PettingZoo's API test at 2-8 players; the
AEC env and VectorGame play the same games."""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import shedders
from shedders.engine import omg as O

SETTINGS = settings(max_examples=int(os.environ.get("SHEDDERS_SOAK", "12")), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
CONFIG = st.tuples(st.integers(2, 8), st.integers(0, 2**31 - 1), st.sampled_from([300, 5000]))


def play_random(env, seed, check=None):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    trajectory = []
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        a = int(rng.choice(env.legal_actions()))
        trajectory.append(a)
        env.step(a)
        if check is not None:
            check(env, rng)
    return trajectory


def all_cards(env) -> Counter:
    st_ = env.state_dict()
    return Counter(st_["pile"] + st_["deck"] + [c for p in st_["players"] for c in p["hand"]])


@SETTINGS
@given(CONFIG)
def test_every_card_exists_exactly_once_after_every_step(cfg):
    n, seed, cap = cfg
    env = shedders.raw_env("omg", n, ply_cap=cap)
    full = Counter(env.rules.deck.names())

    def check(env, rng):
        assert all_cards(env) == full
        s = env._state
        assert (s.hsize[0] == s.hand[0].sum(axis=1)).all() and (s.hand[0] >= 0).all()

    play_random(env, seed, check)


@SETTINGS
@given(CONFIG)
def test_no_step_accepts_a_masked_action_and_masks_belong_to_the_actor(cfg):
    n, seed, cap = cfg
    env = shedders.raw_env("omg", n, ply_cap=cap)

    def check(env, rng):
        if not env.agents or env._state.phase[0] == O.PH_OVER:
            return
        actor = env.agent_selection
        for agent in env.possible_agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8 and (mask.any() == (agent == actor))
        illegal = np.flatnonzero(env.observe(actor)["action_mask"] == 0)
        before = env.state_dict()
        with pytest.raises(ValueError, match="not legal"):
            env.step(int(rng.choice(illegal)))
        assert env.state_dict() == before

    play_random(env, seed, check)


@SETTINGS
@given(CONFIG)
def test_every_game_ends_terminated_or_truncated_at_the_ply_cap(cfg):
    n, seed, cap = cfg
    env = shedders.raw_env("omg", n, ply_cap=cap)
    plies = len(play_random(env, seed))
    s = env._state
    assert s.phase[0] == O.PH_OVER and s.terminated[0] != s.truncated[0]
    assert plies <= cap and (s.truncated[0] == (plies == cap and s.winner[0] < 0))
    if s.truncated[0]:
        assert all(v == 0.0 for v in env._cumulative_rewards.values())
    else:
        assert sum(env._cumulative_rewards.values()) == pytest.approx(0.0, abs=1e-6)


@SETTINGS
@given(CONFIG)
def test_the_same_seed_gives_the_same_game(cfg):
    n, seed, cap = cfg
    a = play_random(shedders.raw_env("omg", n, ply_cap=cap), seed)
    b = play_random(shedders.raw_env("omg", n, ply_cap=cap), seed)
    assert a == b


def shuffle_hidden(env, viewer: int, rng):
    """The same position with everything ``viewer`` cannot see reshuffled: other hands and the deck order (the
    revealed card stays the deck's top). Only possible worlds are drawn: a reshuffle the scenario loader refuses
    (Apollo's choice pending for a player who, in that world, holds no card matching the revealed one; the engine
    skips the choice then, so the pending choice tells everyone such a card is held) is drawn again."""
    for _ in range(200):
        st_ = env.state_dict()
        n = len(st_["players"])
        keep_top = st_["revealed"] is not None
        pool = st_["deck"][1:] if keep_top else list(st_["deck"])
        for q in range(n):
            if q != viewer:
                pool += st_["players"][q]["hand"]
        pool = list(rng.permutation(pool))
        for q in range(n):
            if q != viewer:
                k = len(st_["players"][q]["hand"])
                st_["players"][q]["hand"], pool = pool[:k], pool[k:]
        st_["deck"] = ([st_["deck"][0]] if keep_top else []) + pool
        other = shedders.raw_env("omg", n)
        try:
            other.reset(seed=0, options={"scenario": st_})
        except ValueError as e:
            assert "no legal action in phase 'choose'" in str(e), e  # the only impossible world a shuffle makes
            continue
        return other
    raise AssertionError("no possible world in 200 reshuffles")


@SETTINGS
@given(CONFIG)
def test_observations_do_not_change_when_hidden_cards_are_reshuffled(cfg):
    n, seed, cap = cfg
    env = shedders.raw_env("omg", n, ply_cap=cap)

    def check(env, rng):
        if env._state.phase[0] == O.PH_OVER or rng.random() > 0.2:
            return
        viewer = int(rng.integers(n))
        other = shuffle_hidden(env, viewer, rng)
        agent = env.possible_agents[viewer]
        np.testing.assert_array_equal(env.observe(agent)["observation"], other.observe(agent)["observation"])
        np.testing.assert_array_equal(env.observe(agent)["action_mask"], other.observe(agent)["action_mask"])

    play_random(env, seed, check)


def test_the_hidden_shuffle_test_can_fail():
    """A leak would be caught: the observation of one seat changes when its own hand is reshuffled in."""
    env = shedders.raw_env("omg", 3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    other = shuffle_hidden(env, viewer=1, rng=rng)  # seat 0's hand is reshuffled: seat 0 must see a difference
    assert not np.array_equal(env.observe("player_0")["observation"], other.observe("player_0")["observation"])


@pytest.mark.parametrize("n", range(2, 9))
def test_pettingzoo_api_test(n):
    api_test(shedders.env("omg", n), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(lambda: shedders.env("omg", 4), num_cycles=200)


@pytest.mark.parametrize("n", [2, 4, 8])
def test_vector_game_plays_the_aec_games(n):
    """Game g of VectorGame(seed=s) is dealt as the AEC env with game_seeds(s)[g]; the same actions give the same
    states, and finished games restart by themselves."""
    vg = shedders.VectorGame("omg", num_envs=3, num_players=n, seed=7, autoreset=False)
    vg.reset()
    seeds = shedders.game_seeds(7, 3)
    envs = []
    rng = np.random.default_rng(n)
    for g in range(3):
        env = shedders.raw_env("omg", n)
        env.reset(seed=0)
        from shedders.engine import omg as O_

        O_.reset_one_nb(env._state, 0, seeds[g], env._params, env._counts, env._cards, env._lay, env._mask,
                        env._ids)
        envs.append(env)
    for step in range(400):
        for g, env in enumerate(envs):
            assert vg.state_dict(g) == env.state_dict()
            if env._state.phase[0] != O.PH_OVER:
                np.testing.assert_array_equal(vg.action_mask[g], env._mask)
                agent = env.possible_agents[env._state.turn[0]]
                np.testing.assert_array_equal(vg.observation[g], env.observe(agent)["observation"])
        if not (vg.current_player >= 0).any():
            break
        # actions from an outside generator: sample_legal() would draw from the games' own streams, which also
        # shuffle rebuilt decks
        actions = np.array([int(rng.choice(np.flatnonzero(vg.action_mask[g]))) if vg.current_player[g] >= 0
                            else -1 for g in range(3)])
        for g, env in enumerate(envs):
            if actions[g] >= 0:
                env.step(int(actions[g]))
        vg.step(actions)
    vg2 = shedders.VectorGame("omg", num_envs=64, num_players=n, seed=1)
    vg2.reset()
    done = 0
    for _ in range(3000):
        vg2.step(vg2.sample_legal())
        done += int((vg2.terminated | vg2.truncated).sum())
    assert done > 0 and (vg2.current_player >= 0).all()  # finished games were dealt again


def test_versioned_module_docs_and_registry():
    from shedders.envs import omg_v0

    env = omg_v0.env(num_players=3)
    env.reset(seed=0)
    assert env.unwrapped.rules.name == "omg" and isinstance(omg_v0.raw_env(), shedders.envs.omg_env.OmgEnv)
    assert "## Observation" in omg_v0.__doc__ and "| `hand` |" in omg_v0.__doc__ and "Hermes" in omg_v0.__doc__
    try:
        from pettingzoo.env_registry.registration import aec_registry
    except ImportError:
        pytest.skip("this PettingZoo has no registry")
    assert "shedders/omg-v0" in aec_registry


def test_action_names_follow_the_contract_and_ids_are_inverse():
    env = shedders.raw_env("omg", 4)
    names = env.action_names
    for name in ["play Hera Fire 3*", "play Zeus Fire 4", "target +2", "number 3", "color Fire", "god Hera",
                 "attribute number", "attribute color", "attribute god", "discard Hera Fire 3*", "stop",
                 "give +1"]:
        assert names[env.action_id(name)] == name
    assert len(set(names)) == len(names) == env.action_space("player_0").n
    with pytest.raises(ValueError, match="unknown action name"):
        env.action_id("play Hera Fire 5")


def test_render_shows_the_table_as_the_acting_player_sees_it():
    env = shedders.env("omg", 3, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    me = env.unwrapped.state_dict()["current_player"]
    own = env.unwrapped.state_dict()["players"][me]["hand"]
    assert all(card in text for card in own) and "legal: play" in text
    for q, p in enumerate(env.unwrapped.state_dict()["players"]):
        if q != me:
            assert f"player_{q}: 6 cards\n" in text + "\n"
