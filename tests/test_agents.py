"""Agents: only legal actions, reproducible from a seed, greedy beats random, the AEC adapter."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import agents
import shedders

CONFIGS = [("core", 2), ("core", 4), ("core", 5), ("south_african", 3), ("south_african", 6), ("house", 4),
           ("og", 3), ("og", 7), ("fatality", 2), ("fatality", 5), ("omg", 3), ("omg", 8)]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(CONFIGS), st.sampled_from(sorted(agents.REGISTRY)), st.integers(0, 2**31 - 1))
def test_agents_only_ever_choose_legal_actions(config, name, seed):
    ruleset, n = config
    if ruleset == "omg":
        assume(name in agents.OMG_AGENTS)
    if name in ("ppo", "guided"):  # the committed checkpoint (tests/test_ppo.py covers trained ones elsewhere)
        assume(config == ("core", 4))
    assume(name not in ("fictive", "dmc"))  # no committed network: tests/test_fictive.py and test_train_dmc.py
    vg = shedders.VectorGame(ruleset, 64, n, seed=seed)
    vg.reset()
    small = {"search": {"budget": 4}, "oracle": {"budget": 4}, "champion": {"time_budget": 0.001},
             "guided": {"worlds": 2, "depth": 2}}  # cheap searches
    agent = agents.make(name, ruleset, n, seed=seed, **small.get(name, {}))
    searching = getattr(agent, "needs_state", False)
    for _ in range(60 if searching else 300):  # states reached by the agent itself, every phase included
        a = agent.act(vg.observation, vg.action_mask, state=vg.state) if searching else agent.act(
            vg.observation, vg.action_mask)
        assert np.all(vg.action_mask[np.arange(64), a] == 1)
        vg.step(a)


# the fast tier checks the first decisions of these search properties; the slow tier every decision of the game
DEPTH = [10, pytest.param(None, marks=pytest.mark.slow, id="whole-game")]


def test_random_agent_is_reproducible_from_its_seed():
    vg = shedders.VectorGame("core", 32, 4, seed=1)
    vg.reset()
    a1 = agents.make("random", "core", 4, seed=5).act(vg.observation, vg.action_mask)
    a2 = agents.make("random", "core", 4, seed=5).act(vg.observation, vg.action_mask)
    assert np.array_equal(a1, a2)


def shithead_rate(ruleset, hero, field, steps, seed, n=4, batch=256):
    """(losses / games ended, games ended) for agent ``hero`` against ``n - 1`` copies of ``field``, the hero's
    seat rotated over the batch so that no seat is favoured."""
    vg = shedders.VectorGame(ruleset, batch, n, seed=seed)
    vg.reset()
    seat = np.arange(batch) % n
    losses = ends = 0
    for _ in range(steps):
        a = np.where(vg.current_player == seat, hero.act(vg.observation, vg.action_mask),
                     field.act(vg.observation, vg.action_mask))
        vg.step(a)
        done = np.flatnonzero(vg.terminated)
        losses += int(np.sum(vg.final_placing[done, -1] == seat[done]))
        ends += len(done)
    return losses / max(ends, 1), ends


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["core", "south_african", "fatality"])
def test_greedy_is_the_shithead_less_often_than_random(ruleset):
    n = 4
    greedy, rnd = agents.make("greedy", ruleset, n, seed=0), agents.make("random", ruleset, n, seed=0)
    rate, ends = shithead_rate(ruleset, greedy, rnd, steps=6000, seed=3, n=n)
    assert ends > 200
    assert rate < 0.5 / n  # random alone would lose 1/n of games


def test_greedy_prefers_the_lowest_plain_rank_with_every_copy_and_keeps_wilds():
    from conftest import P, make

    env = make(players=[P("2 6 6 9 10"), P("K")], pile="4")
    agent = agents.make("greedy", "core", 2, cycle_break=0)  # rules 1-5 (the deck is empty here)
    assert env.action_names[agents.as_aec_policy(agent)(env, "player_0")] == "play 2x6"
    env = make(players=[P("2 10 5 3"), P("K")], pile="J")
    assert env.action_names[agents.as_aec_policy(agent)(env, "player_0")] == "play 1x5"
    env = make(players=[P("3 4"), P("K")], pile="J")
    assert env.action_names[agents.as_aec_policy(agent)(env, "player_0")] == "pickup"


def test_as_aec_policy_plays_a_whole_game():
    env = shedders.env("south_african", 3)
    env.reset(seed=2)
    policy = agents.as_aec_policy(agents.make("greedy", "south_african", 3, seed=0))
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else policy(env, agent))
    assert env.unwrapped.state_dict()["phase"] == "over"


def test_bad_input():
    with pytest.raises(ValueError, match="unknown agent 'alphago'"):
        agents.make("alphago")
    agent = agents.make("random")
    with pytest.raises(ValueError, match="at least one legal action"):
        agent.act(np.zeros((1, 10), np.int8), np.zeros((1, 319), np.int8))


def test_expert_is_the_shithead_less_often_than_greedy_in_core():
    n = 4
    expert, greedy = agents.make("expert", "core", n, seed=0), agents.make("greedy", "core", n, seed=1)
    rate, ends = shithead_rate("core", expert, greedy, steps=4000, seed=11, n=n)
    assert ends > 3000
    assert rate < 0.22  # measured about 0.18; a greedy copy would lose 1/4


def test_expert_swaps_its_best_hand_card_for_its_worst_face_up_card():
    from conftest import P, make

    env = make(phase="setup", players=[P("10 4 9", up="3 K 6"), P("5 5 5", up="8 8 8")])
    policy = agents.as_aec_policy(agents.make("expert", "core", 2, cycle_break=0))  # no random rule 6
    assert env.action_names[policy(env, "player_0")] == "swap 10 for 3"


def test_expert_completes_a_four_of_a_kind_burn():
    from conftest import P, make

    env = make(players=[P("4 9 9"), P("K")], pile="6 9 9")
    policy = agents.as_aec_policy(agents.make("expert", "core", 2, cycle_break=0))  # no random rule 6
    assert env.action_names[policy(env, "player_0")] == "play 2x9"  # greedy would shed the 4


@pytest.mark.slow
def test_greedy_wins_og_more_often_than_random():
    """og is winner-take-all: the first player out wins. Greedy's seat is rotated over the batch."""
    n, batch = 4, 256
    greedy, rnd = agents.make("greedy", "og", n, seed=0), agents.make("random", "og", n, seed=0)
    vg = shedders.VectorGame("og", batch, n, seed=5)
    vg.reset()
    seat = np.arange(batch) % n
    wins = ends = 0
    for _ in range(4000):
        a = np.where(vg.current_player == seat, greedy.act(vg.observation, vg.action_mask),
                     rnd.act(vg.observation, vg.action_mask))
        vg.step(a)
        done = np.flatnonzero(vg.terminated)
        wins += int(np.sum(vg.final_placing[done, 0] == seat[done]))
        ends += len(done)
    assert ends > 500
    assert wins / ends > 1.5 / n  # a random seat would win 1/n


def test_greedy_sneaks_plain_cards_keeps_wilds_and_covers_with_its_best_cards():
    from conftest import P, make

    policy = agents.as_aec_policy(agents.make("greedy", "og", 3, cycle_break=0))  # no random rule 6
    env = make("og", players=[P("6 4", up="A", down="A"), P("J", up="Q", down="K"), P("6 6 9", up="Q", down="K")],
               pile="5")
    env.step(env.action_id("play 1x6"))
    assert env.action_names[policy(env, "player_2")] == "sneak 2x6"
    env = make("og", players=[P("2 4", up="A", down="A"), P("J", up="Q", down="K"), P("2 9", up="Q", down="K")],
               pile="5")
    env.step(env.action_id("play 1x2"))
    assert env.action_names[policy(env, "player_2")] == "pass"
    env = make("og", phase="setup", players=[P("4 5 9 10 A 2"), P("6 7 8 J Q K")])
    assert env.action_names[policy(env, "player_0")] == "cover 10"


def test_search_needs_the_engine_state_and_a_positive_budget():
    vg = shedders.VectorGame("core", 4, 3, seed=0)
    vg.reset()
    with pytest.raises(ValueError, match="needs the engine state"):
        agents.make("search", "core", 3).act(vg.observation, vg.action_mask)
    with pytest.raises(ValueError, match="budget"):
        agents.make("search", "core", 3, budget=0)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([c for c in CONFIGS if c[0] != "omg"]), st.integers(0, 2**31 - 1))
def test_rollouts_choose_what_the_agents_choose(config, seed):
    """``greedy`` and ``expert`` are written once (shedders.engine.search.palace_policies); the search's rollouts
    call the kernels on the engine state (greedy on the mask, expert on the observation the rollout writes for the
    actor), the agents on the batch they are given. Both choose the same on every state (the agents' rule 6, the
    random ``cycle_break``, is off here: the rollouts draw their own randomness). The rollouts' greedy reads its
    common decisions from the state (``greedy_fast_nb``): where it answers, it answers what greedy does."""
    from agents.search import expert_offsets
    from shedders.engine import palace as K
    from shedders.engine.search import palace_policies as KP

    ruleset, n = config
    vg = shedders.VectorGame(ruleset, 32, n, seed=seed)
    vg.reset()
    greedy = agents.make("greedy", ruleset, n, cycle_break=0)
    expert = agents.make("expert", ruleset, n, cycle_break=0)
    rnd = agents.make("random", ruleset, n, seed=seed)
    off, obs = expert_offsets(n), np.zeros(K.observation_size(n), np.int8)
    rng = np.random.default_rng(seed)
    seen = set()
    fast = asked = 0
    for _ in range(150):
        want_g = greedy.act(vg.observation, vg.action_mask)
        want_e = expert.act(vg.observation, vg.action_mask)
        for g in np.flatnonzero(vg.num_legal > 0):
            mask = np.zeros(K.N_ACTIONS, np.int8)
            K.legal_mask_nb(vg.state, g, vg.params, mask, np.zeros(K.N_ACTIONS, np.int16))
            assert KP.greedy_choice_nb(mask, vg.params) == want_g[g]
            quick = KP.greedy_fast_nb(vg.state, g, vg.params)
            assert quick in (-1, want_g[g]), (int(vg.state.phase[g]), quick, want_g[g])
            fast += quick >= 0
            asked += 1
            K.observe_nb(vg.state, g, np.int64(vg.state.actor[g]), vg.params, obs)
            assert KP.expert_choice_nb(obs, off, mask, vg.params) == want_e[g]
            seen.add(int(vg.state.phase[g]))
        vg.step(np.where(rng.random(32) < 0.5, want_e, rnd.act(vg.observation, vg.action_mask)))
    assert {K.PH_SETUP, K.PH_PLAY} <= seen
    assert fast > asked / 3, (fast, asked)  # the fast answers were checked on most decisions


def test_greedy_fast_answers_fatality_jokers_as_greedy_does_through_whole_games():
    """fatality's rollouts read greedy's Joker named 10, its wilds and its pickups from the state too
    (``greedy_fast_nb``): on every decision of whole games, to the empty draw pile and the starred plays, it
    answers what greedy answers, and it answers the Joker case itself."""
    from shedders.engine import palace as K
    from shedders.engine.search import palace_policies as KP

    vg = shedders.VectorGame("fatality", 64, 4, seed=7, ply_cap=600, autoreset=False)
    vg.reset()
    greedy = agents.make("greedy", "fatality", 4, cycle_break=0)
    rnd = agents.make("random", "fatality", 4, seed=7)
    rng = np.random.default_rng(7)
    mask, ids = np.zeros(K.N_ACTIONS, np.int8), np.zeros(K.N_ACTIONS, np.int16)
    joker = fast = asked = late = 0
    while (live := np.flatnonzero(vg.num_legal > 0)).size:
        want = greedy.act(vg.observation[live], vg.action_mask[live])
        for g, w in zip(live, want):
            K.legal_mask_nb(vg.state, g, vg.params, mask, ids)
            quick = KP.greedy_fast_nb(vg.state, g, vg.params)
            assert quick in (-1, w), (int(vg.state.phase[g]), quick, w)
            fast += quick >= 0
            joker += quick == KP.JOKER_10
            late += quick >= 0 and vg.state.deck_len[g] == 0
            asked += 1
        moves = np.full(64, -1)
        other = rnd.act(vg.observation[live], vg.action_mask[live])
        moves[live] = np.where(rng.random(live.size) < 0.7, want, other)
        vg.step(moves)
    assert joker > 0 and late > 0
    assert fast > 0.8 * asked, (fast, asked)


def test_search_rollout_option():
    vg = shedders.VectorGame("core", 8, 4, seed=1)
    vg.reset()
    agent = agents.make_spec("search:budget=8+rollout=expert", "core", 4, seed=0)
    assert agent.rollout == "expert"
    a = agent.act(vg.observation, vg.action_mask, state=vg.state)
    assert vg.action_mask[np.arange(8), a].all()
    with pytest.raises(ValueError, match="rollout"):
        agents.make("search", "core", 4, rollout="random")
    with pytest.raises(ValueError, match="rollout"):
        agents.make("search", "omg", 4, rollout="greedy")


@pytest.mark.parametrize("ruleset,rollout,select", [("og", "greedy", "uniform"), ("fatality", "greedy", "uniform"),
                                                    ("south_african", "greedy", "uniform"),
                                                    ("core", "expert", "uniform"), ("core", "greedy", "halving")])
@pytest.mark.parametrize("decisions", DEPTH)
def test_search_decides_on_what_it_may_know_only(ruleset, rollout, select, decisions):
    """Reshuffling every card the deciding player cannot see leaves search's choice unchanged (same seed): it
    samples worlds from the information set, never from the true hidden cards. The oracle is the control."""
    from test_properties import copy_state, shuffle_hidden

    n = 4
    vg = shedders.VectorGame(ruleset, 1, n, seed=7)
    vg.reset()
    rng = np.random.default_rng(0)
    checked = 0
    for step in range(400):
        if checked == decisions:
            break
        if vg.num_legal[0] > 1 and step % 3 == 0:
            shuffled = shuffle_hidden(vg.state, int(vg.current_player[0]), n, rng, vg.params)
            same = copy_state(vg.state)
            a1 = agents.make("search", ruleset, n, seed=3, budget=24, rollout=rollout, select=select).act(
                vg.observation, vg.action_mask, state=same)
            a2 = agents.make("search", ruleset, n, seed=3, budget=24, rollout=rollout, select=select).act(
                vg.observation, vg.action_mask, state=shuffled)
            assert a1[0] == a2[0], f"search's choice depends on hidden cards at step {step}"
            checked += 1
        vg.step(vg.sample_legal())
    assert checked >= min(21, decisions or 21)


@pytest.mark.slow
def test_search_beats_greedy_in_fatality(tmp_path):
    """A small duplicate tournament: search (64 rollouts per decision) collects more reward than greedy."""
    from experiments.tournament import Config, run

    s = run(Config(ruleset="fatality", players=4, agents=["greedy", "search:budget=64"], games=32, seed=1,
                   out=str(tmp_path)), progress=False)
    by = {a["agent"]: a for a in s["agents"]}
    assert by["search:budget=64"]["mean_reward"] > by["greedy"]["mean_reward"]


@pytest.mark.slow
def test_an_oracle_that_models_the_field_beats_one_that_models_greedy_against_random_players(tmp_path):
    """The fictive player best-responds to the table it models: against three random players in og, the oracle
    whose
    rollouts play the others at random scores above the one whose rollouts play them as greedy (which scored below
    greedy itself: RESULTS' relative skill above 1). Same deals for both (duplicate format), paired test."""
    from experiments import stats as S
    from experiments import tournament as T

    means = {}
    for i, spec in enumerate(("oracle:budget=16", "oracle:budget=16+opponents=random")):
        s = T.run(T.Config(ruleset="og", players=4, agents=[spec, "random"], lineup=[0, 1, 1, 1], games=40, seed=5,
                           chunk=40, out=str(tmp_path), name=f"t{i}"), progress=False)
        rows = s["game_rows"]
        means[spec] = S.paired_rewards(rows["deal"], rows["seat_agent"], rows["reward"], 0, 1)[0]
    d = S.paired_difference(means["oracle:budget=16+opponents=random"], means["oracle:budget=16"])
    assert d["lo"] > 0, d


def test_search_opponent_models_are_checked_and_default_to_the_rollout_policy():
    vg = shedders.VectorGame("core", 8, 4, seed=3)
    vg.reset()
    a = agents.make("search", "core", 4, seed=1, budget=8).act(vg.observation, vg.action_mask, state=vg.state)
    b = agents.make("search", "core", 4, seed=1, budget=8, opponents="greedy").act(vg.observation, vg.action_mask,
                                                                                   state=vg.state)
    assert (a == b).all()
    with pytest.raises(ValueError, match="opponents must be one of greedy, expert, random"):
        agents.make("search", "core", 4, opponents="ppo")
    with pytest.raises(ValueError, match="omg's search rolls out with expert"):
        agents.make("search", "omg", 4, opponents="random")


@pytest.mark.parametrize("ruleset,rollout", [("south_african", "greedy"), ("core", "expert"), ("omg", "expert")])
def test_search_past_its_patience_plays_its_rollout_policy(ruleset, rollout):
    """Past ``patience`` decisions a game is no longer searched: ``search`` plays its rollout policy's agent,
    seeded
    with its own seed (so with patience 0 it plays exactly as that agent from the first decision), and below it
    searches exactly as a search without patience (same seed, same actions)."""
    vg = shedders.VectorGame(ruleset, 16, 4, seed=5)
    vg.reset()
    spec = {"budget": 8, "rollout": rollout}
    at_once = agents.make("search", ruleset, 4, seed=2, patience=0, **spec)
    twin = agents.make(rollout, ruleset, 4, seed=2)
    never = agents.make("search", ruleset, 4, seed=4, patience=None, **spec)
    later = agents.make("search", ruleset, 4, seed=4, patience=10**4, **spec)
    differs = 0
    for _ in range(120):
        a = at_once.act(vg.observation, vg.action_mask, state=vg.state)
        assert np.array_equal(a, twin.act(vg.observation, vg.action_mask))
        b = never.act(vg.observation, vg.action_mask, state=vg.state)
        assert np.array_equal(b, later.act(vg.observation, vg.action_mask, state=vg.state))
        differs += int((a != b).sum())
        vg.step(a)
    assert differs > 0  # the control: searching is not the rollout policy


def test_search_patience_is_checked_and_the_oracle_has_none():
    for bad in (-1, 1.5, True, "soon"):
        with pytest.raises(ValueError, match="patience"):
            agents.make("search", "core", 4, patience=bad)
    assert agents.make("search", "core", 4).patience == 500
    assert agents.make_spec("search:patience=none", "core", 4).patience is None
    assert agents.make("oracle", "core", 4).patience is None
    assert agents.make("oracle", "omg", 4).patience is None


def _choice(env, agent):
    return env.unwrapped.action_names[agents.as_aec_policy(agent)(env, env.agent_selection)]


def test_expert_counters_a_joker_only_over_a_pile_worth_sending_back():
    """agents/expert.py rule 2: a pile of Jokers alone is eaten (countering only hands the Jokers to the opponent,
    who plays them back); a pile with 2+ other cards is sent back. The numba rollout expert does the same."""
    from conftest import P, act, make

    expert = agents.make("expert", "south_african", 3, cycle_break=0)
    env = make("south_african", players=[P("JOKER 4"), P("JOKER 9"), P("K")])
    act(env, "play 1xJOKER")  # onto an empty pile: seat 1 may counter
    assert env.agent_selection == "player_1" and _choice(env, expert) == "pass"
    env = make("south_african", players=[P("JOKER 4"), P("JOKER 9"), P("K")], pile="5 6")
    act(env, "play 1xJOKER")
    assert _choice(env, expert) == "play 1xJOKER"


def test_the_cycle_break_acts_only_with_the_draw_pile_empty_and_never_picks_up_by_chance():
    """Rule 6 of greedy and expert: with cycle_break=1 every decision with the draw pile empty is random among the
    legal actions other than a pickup; with cards left to draw the policy is the deterministic one."""
    for name in ("greedy", "expert"):
        for bad in (-0.1, 1.5, "x", True):
            with pytest.raises(ValueError, match="cycle_break"):
                agents.make(name, "core", 3, cycle_break=bad)
    from shedders.engine import palace as K
    from shedders.envs.palace_env import observation_slices

    vg = shedders.VectorGame("core", 64, 3, seed=5)
    vg.reset()
    det = agents.make("greedy", "core", 3, cycle_break=0)
    rnd = agents.make("greedy", "core", 3, seed=1, cycle_break=1)
    stepper = agents.make("random", "core", 3, seed=2)
    differed = 0
    for _ in range(600):
        live = np.flatnonzero(vg.num_legal > 0)
        if not len(live):
            break
        obs, mask = vg.observation[live], vg.action_mask[live]
        a, b = det.act(obs, mask), rnd.act(obs, mask)
        deck = obs[:, observation_slices(3)["deck_size"].start]
        assert np.array_equal(a[deck > 0], b[deck > 0])
        multi = (deck == 0) & (mask.sum(axis=1) > 1)
        assert not np.any(b[multi] == K.A_PICKUP)
        differed += int(np.sum(a[deck == 0] != b[deck == 0]))
        acts = np.full(len(vg.num_legal), -1, np.int64)
        acts[live] = stepper.act(obs, mask)
        vg.step(acts)
    assert differed > 0


def test_search_halving_is_sequential_halving_over_the_uniform_searchs_worlds():
    """``select="halving"``: the kernel keeps the better half of the surviving actions each round, every survivor
    tried in the same new worlds (a reference written here from worlds_value_nb, the uniform search's own
    evaluation); with two legal actions it is the uniform search itself (one round, budget // 2 worlds each)."""
    from shedders.engine import palace as K
    from shedders.engine.search import palace_search as KS

    n, budget = 4, 40
    agent = agents.make("search", "core", n, seed=0, budget=budget, select="halving")
    agent._scratch(1)
    vg = shedders.VectorGame("core", 1, n, seed=5)
    vg.reset()
    plan = agent.plan  # halving, the agent's budget, greedy rollouts
    uniform = plan._replace(halving=False)
    p, work, w0, seed, scr = vg.params, agent._work, 0, 99, agent._scr
    by_legal = {}
    for _ in range(300):
        if vg.state.phase[0] == K.PH_OVER or min(by_legal.get(2, 0), by_legal.get(3, 0)) >= 4:
            break
        nl = int(vg.num_legal[0])
        if nl > 1:
            legal = [int(a) for a in np.flatnonzero(vg.action_mask[0])]
            got = KS.halving_one_nb(vg.state, 0, p, work, w0, seed, plan, scr)
            rounds = int(np.ceil(np.log2(nl)))
            alive, vals, done = legal, {a: 0.0 for a in legal}, 0
            while len(alive) > 1:
                upto = done + max(1, budget // rounds // len(alive))
                for a in alive:
                    vals[a] += KS.worlds_value_nb(vg.state, 0, a, done, upto, p, work, w0, seed, plan, scr)
                done = upto
                # stable: legal order on ties
                alive = sorted(alive, key=lambda a: -vals[a])[:(len(alive) + 1) // 2]
            assert got == alive[0]
            if nl == 2:
                assert got == KS.search_one_nb(vg.state, 0, p, work, w0, seed, uniform, scr)
            by_legal[min(nl, 3)] = by_legal.get(min(nl, 3), 0) + 1
        vg.step(vg.sample_legal())
    assert by_legal.get(2, 0) >= 3 and by_legal.get(3, 0) >= 3, by_legal  # both kinds of decision were checked


@pytest.mark.parametrize("ruleset", ["core", "fatality"])
def test_search_leaf_cards_values_a_cut_rollout_as_the_most_cards_cap_rule_ends_the_game(ruleset):
    """``leaf="cards"``: a rollout cut after m decisions is worth to the viewer exactly what the same rollout earns
    in
    a game whose ply cap falls m decisions ahead with ``cap_rule="most_cards"`` (the players still in go out by the
    cards they hold). Checked from many states of real games, for every seat as the viewer; ``leaf="none"`` counts
    only the rewards collected before the cut, which differs from the capped game's wherever the cut comes
    first."""
    from shedders.engine import palace as K
    from shedders.engine.search import palace_search as KS

    vg = shedders.VectorGame(ruleset, 1, 4, seed=3, autoreset=False)
    vg.reset()
    work = K.alloc_state(3, 4, vg.rules.num_cards)
    mask, ids = np.zeros(K.N_ACTIONS, np.int8), np.zeros(K.N_ACTIONS, np.int16)
    obs, off = np.zeros(K.observation_size(4), np.int8), agents.search.expert_offsets(4)
    leaves = agents.make("search", ruleset, 4).leaves
    w = np.zeros(KS.LEAF_FEATURES)  # no leaf value here
    checked = differs = 0
    while vg.state.phase[0] != K.PH_OVER:
        for m in (1, 5, 30):
            capped = vg.params.copy()
            capped[K.P_PLY_CAP] = vg.state.plies[0] + m
            capped[K.P_CAP_RULE] = K.CAP_MOST_CARDS
            for viewer in range(4):
                KS.copy_game_nb(vg.state, 0, work, 0)
                KS.copy_game_nb(vg.state, 0, work, 1)
                KS.copy_game_nb(vg.state, 0, work, 2)
                # greedy for every seat, no random moves
                plan = KS.SearchPlan(0, False, False, 0, 10_000, leaves["none"], w, 0, 0, off)
                want = KS.rollout_nb(work, 0, viewer, capped, plan, mask, ids, obs)
                got = KS.rollout_nb(work, 1, viewer, vg.params, plan._replace(max_plies=m, leaf=leaves["cards"]),
                                    mask, ids, obs)
                cut = KS.rollout_nb(work, 2, viewer, vg.params, plan._replace(max_plies=m), mask, ids, obs)
                assert got == pytest.approx(want), (vg.state.plies[0], m, viewer)
                checked += 1
                differs += cut != pytest.approx(want)
        vg.step(vg.sample_legal())
    assert checked > 300 and differs > 50, (checked, differs)  # the leaf rule decided many cut rollouts


def plays_20_legal_steps(spec, ruleset="core"):
    """``spec``'s agent plays 20 steps of 8 games of ``ruleset``, choosing only legal actions."""
    vg = shedders.VectorGame(ruleset, 8, 4, seed=1)
    vg.reset()
    agent = agents.make_spec(spec, ruleset, 4, seed=0)
    for _ in range(20):
        a = agent.act(vg.observation, vg.action_mask, state=vg.state)
        assert vg.action_mask[np.arange(8), a].all()
        vg.step(a)


def test_search_leaf_option():
    plays_20_legal_steps("search:budget=16+max_plies=8+leaf=cards")
    assert agents.make("search", "core", 4).leaf == "none"
    with pytest.raises(ValueError, match="leaf must be one of none, cards, value, got 'critic'"):
        agents.make("search", "core", 4, leaf="critic")
    with pytest.raises(ValueError, match="leaf must be one of none, value, got 'cards'"):
        agents.make("search", "omg", 4, leaf="cards")  # omg's kernel scores a cut rollout by hand sizes or the fit


def test_search_leaf_value_uses_the_fitted_weights_of_its_game_and_refuses_a_game_without_them():
    from agents.search import LEAF_WEIGHTS
    from shedders.engine.search import palace_search as KS

    fitted = json.loads((LEAF_WEIGHTS / "leaf-core-4p.json").read_text())
    assert fitted["command"].startswith("python -m experiments.fit_leaf")
    assert fitted["test_nll"] < fitted["soft_cards_nll"] < fitted["uniform_nll"]  # it learned more than a count
    for ruleset, options in (("core", {}), ("house", {})):  # house without toggles plays core's rules
        agent = agents.make("search", ruleset, 4, leaf="value", **options)
        assert np.array_equal(agent._leaf_w, fitted["weights"])
    assert fitted.get("model", "loser") == "loser" and agent._leaf_code == KS.LEAF_VALUE
    jokers = {"rules": {"jokers": True}}
    for ruleset, n, options in (("south_african", 4, {}), ("core", 3, {}), ("house", 4, jokers), ("omg", 3, {})):
        with pytest.raises(ValueError, match="leaf='value' has no fitted weights for"):
            agents.make("search", ruleset, n, leaf="value", **options)


def test_search_leaf_value_takes_its_model_from_the_weights_file_and_refuses_an_unknown_one(tmp_path, monkeypatch):
    """A weights file fitted with ``--model order`` (fatality's) makes ``leaf=value`` value cut rollouts with the
    finishing-order kernel (LEAF_ORDER), one without a model or with ``loser`` with the loser kernel; a model the
    kernels do not know, or weights of the wrong size, are refused by name."""
    from agents.search import LEAF_WEIGHTS
    from shedders.engine.search import palace_search as KS

    fat = json.loads((LEAF_WEIGHTS / "leaf-fatality-4p.json").read_text())
    assert fat["model"] == "order" and fat["test_nll"] < fat["soft_cards_nll"] < fat["uniform_nll"]
    agent = agents.make("search", "fatality", 4, leaf="value")
    assert agent._leaf_code == KS.LEAF_ORDER and np.array_equal(agent._leaf_w, fat["weights"])
    plays_20_legal_steps("search:budget=16+max_plies=6+leaf=value", ruleset="fatality")
    monkeypatch.setattr("agents.search.LEAF_WEIGHTS", tmp_path)
    record = {"ruleset": "core", "num_players": 4, "weights": [0.0] * KS.LEAF_FEATURES}
    for model, code in ((None, KS.LEAF_VALUE), ("loser", KS.LEAF_VALUE), ("order", KS.LEAF_ORDER)):
        fitted = record | ({} if model is None else {"model": model})
        (tmp_path / "leaf-core-4p.json").write_text(json.dumps(fitted))
        assert agents.make("search", "core", 4, leaf="value")._leaf_code == code
    (tmp_path / "leaf-core-4p.json").write_text(json.dumps(record | {"model": "winner"}))
    with pytest.raises(ValueError, match="holds a 'winner' model; the leaf knows loser, order"):
        agents.make("search", "core", 4, leaf="value")
    (tmp_path / "leaf-core-4p.json").write_text(json.dumps(record | {"weights": [0.0] * 3}))
    with pytest.raises(ValueError, match="holds 3 weights"):
        agents.make("search", "core", 4, leaf="value")


def game_in_play(ruleset, n, seed, plies):
    """One game of ``n`` seats after up to ``plies`` random legal steps; hypothesis drops the example if it
    ended."""
    from shedders.engine import palace as K

    vg = shedders.VectorGame(ruleset, 1, n, seed=seed, autoreset=False)
    vg.reset()
    for _ in range(plies):
        if vg.state.phase[0] == K.PH_OVER:
            break
        vg.step(vg.sample_legal())
    assume(vg.state.phase[0] != K.PH_OVER)
    return vg


def orders_expected_reward(e, alive, viewer, n_out, n, reward):
    """The viewer's expected reward by brute force: every order of the seats still in, each with its
    Plackett-Luce probability (the next out drawn by weight ``e`` among those left), the viewer's place priced by
    ``reward(place)`` (og: the first out wins and the game ends, so only who is first matters)."""
    import itertools

    seats = [q for q in range(n) if alive[q]]
    total = 0.0
    for perm in itertools.permutations(seats):
        p, left = 1.0, list(seats)
        for q in perm:
            p *= e[q] / sum(e[x] for x in left)
            left.remove(q)
        total += p * reward(perm, n_out + 1 + perm.index(viewer))
    return total


@settings(max_examples=40, deadline=None)
@given(ruleset=st.sampled_from(["fatality", "core", "og", "south_african"]), players=st.integers(2, 6),
       seed=st.integers(0, 10_000), plies=st.integers(0, 400))
def test_search_leaf_order_is_the_plackett_luce_models_expected_place_reward(ruleset, players, seed, plies):
    """``order_value_nb`` (the leaf of a ``--model order`` fit): the viewer's expected reward when the seats still
    in go out in a Plackett-Luce order, the next with probability proportional to exp(w . f(q)), each place priced
    by its ruleset's reward (fatality (N + 1 - 2k)/(N - 1); og +1 for the first out, -1/(N-1) else; core 1/(N-1),
    the last -1) equals the sum over every order, from states of real games; a seat already out gets nothing
    more, and the values of the seats still in sum to what their places will pay."""
    from shedders.engine import palace as K
    from shedders.engine.search import palace_search as KS

    n = min(players, 5) if ruleset == "core" else players
    rng = np.random.default_rng(seed)
    vg = game_in_play(ruleset, n, seed, plies)
    w = rng.normal(0, 0.3, KS.LEAF_FEATURES)
    scores = np.array([KS.leaf_score_nb(vg.state, 0, q, w) for q in range(n)])
    alive = vg.state.finished[0] == 0
    e = np.where(alive, np.exp(scores - scores.max()), 0.0)
    n_out = int(vg.state.n_out[0])
    fam = vg.params[K.P_FAMILY]

    def reward(perm, place):
        if fam == K.FAM_OG:
            return 1.0 if place == 1 else -1.0 / (n - 1)
        return KS.place_reward_nb(place, n, fam)

    values = [KS.order_value_nb(vg.state, 0, q, vg.params, w) for q in range(n)]
    for q in range(n):
        want = orders_expected_reward(e, alive, q, n_out, n, reward) if alive[q] else 0.0
        assert values[q] == pytest.approx(want, abs=1e-12)
    places = range(n_out + 1, n + 1)
    if fam == K.FAM_OG:
        assert sum(values) == pytest.approx(1 - (alive.sum() - 1) / (n - 1))
    else:
        assert sum(values) == pytest.approx(sum(KS.place_reward_nb(k, n, fam) for k in places))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), w_seed=st.integers(0, 1000))
def test_with_two_seats_left_the_order_leaf_on_negated_weights_is_the_loser_leaf(seed, w_seed):
    """With two core seats still in, the next out is the winner and the other the loser: the order model with
    weights -w (the next out by exp(-w . f)) and the loser model with w (the loser by exp(w . f)) are the same
    model, and the two kernels give the same values."""
    from shedders.engine import palace as K
    from shedders.engine.search import palace_search as KS

    vg = shedders.VectorGame("core", 1, 4, seed=seed, autoreset=False)
    vg.reset()
    while vg.state.phase[0] != K.PH_OVER and (vg.state.finished[0] == 0).sum() > 2:
        vg.step(vg.sample_legal())
    assume(vg.state.phase[0] != K.PH_OVER)
    w = np.random.default_rng(w_seed).normal(0, 0.3, KS.LEAF_FEATURES)
    for q in range(4):
        assert (KS.order_value_nb(vg.state, 0, q, vg.params, -w)
                == pytest.approx(KS.leaf_value_nb(vg.state, 0, q, vg.params, w), abs=1e-12))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 250))
def test_search_leaf_value_is_the_fitted_models_expected_reward(seed, plies):
    """The kernel's leaf (leaf_score_nb, which writes no features out) scores a seat as the fitter's features
    (leaf_features_nb) dotted with the weights; its value is 1/(N-1) for going out minus 1 for losing, weighted by
    the softmax over the seats still in, so the values of all seats sum to what is left to share ((k-1)/(N-1) - 1
    with k seats in) and a seat already out gets nothing more."""
    from shedders.engine.search import palace_search as KS

    rng = np.random.default_rng(seed)
    vg = game_in_play("core", 4, seed, plies)
    w = rng.normal(0, 0.3, KS.LEAF_FEATURES)
    f = np.zeros(KS.LEAF_FEATURES)
    scores = []
    for q in range(4):
        KS.leaf_features_nb(vg.state, 0, q, f)
        scores.append(float(f @ w))
        assert KS.leaf_score_nb(vg.state, 0, q, w) == pytest.approx(scores[-1])
    alive = vg.state.finished[0] == 0
    e = np.where(alive, np.exp(np.array(scores) - max(scores)), 0.0)
    p_last = e / e.sum()
    values = [KS.leaf_value_nb(vg.state, 0, q, vg.params, w) for q in range(4)]
    for q in range(4):
        assert values[q] == pytest.approx((1 - p_last[q]) / 3 - p_last[q] if alive[q] else 0.0)
    assert sum(values) == pytest.approx((alive.sum() - 1) / 3 - 1)


def test_search_select_option():
    for spec in ("search:budget=16+select=halving", "oracle:budget=16+select=halving"):
        plays_20_legal_steps(spec)
    assert agents.make("search", "core", 4).select == "uniform"
    with pytest.raises(ValueError, match="select must be one of uniform, halving"):
        agents.make("search", "core", 4, select="ucb")
    with pytest.raises(ValueError, match="select must be one of uniform, got"):
        agents.make("search", "omg", 4, select="halving")  # omg's kernel spreads its rollouts evenly


@pytest.mark.parametrize("decisions", DEPTH)
@pytest.mark.parametrize("select", ["uniform", "halving"])
def test_a_lone_decision_over_the_threads_chooses_what_one_thread_chooses(select, decisions):
    """At batch 1 ``search`` spreads one decision's rollouts over numba's threads (search_one_par_nb, in ``nt``
    chunks, each in its own scratch row); its sums are taken in world order, so it chooses exactly what the
    one-thread kernel chooses: here over every decision of a game, in 1, 2 and 3 chunks, with fewer rollouts than
    chunks too, and through the agent at batch 1 (threaded when numba has more than one thread)."""
    from shedders.engine import palace as K
    from shedders.engine.search import palace_search as KS

    vg = shedders.VectorGame("core", 1, 4, seed=11)
    vg.reset()
    halving = select == "halving"
    checked = 0
    for step in range(150):
        if vg.state.phase[0] == K.PH_OVER or checked == decisions:
            break
        if vg.num_legal[0] > 1:
            for budget in (2, 30):
                agent = agents.make("search", "core", 4, seed=step, budget=budget, select=select)
                agent._scratch(4)
                kernel = KS.halving_one_nb if halving else KS.search_one_nb
                want = kernel(vg.state, 0, vg.params, agent._work, 0, 7 + step, agent.plan, agent._scr)
                for nt in (1, 2, 3):
                    got = KS.search_one_par_nb(nt, vg.state, 0, vg.params, agent._work, 7 + step, agent.plan,
                                               agent._scr)
                    assert got == want, (step, budget, nt)
                seeded = [agents.make("search", "core", 4, seed=step, budget=budget, select=select)
                          for _ in range(2)]
                seeded[1].threaded_decision = False  # the batch kernel, one thread for the one decision
                assert len({int(a.act(vg.observation, vg.action_mask, state=vg.state)[0]) for a in seeded}) == 1
            checked += 1
        vg.step(vg.sample_legal())
    assert checked >= min(20, decisions or 20)


@pytest.mark.parametrize("ruleset", ["core", "fatality", "og", "south_african", "house", "omg"])
def test_learned_is_the_tables_network_legal_and_seeded(ruleset):
    """The CONTRACT's ``learned``: a network deciding from the observation alone, the same for a seed."""
    import shedders

    vg = shedders.VectorGame(ruleset, 64, 4, seed=2)
    vg.reset()
    a, b = (agents.make("learned", ruleset, 4, seed=9) for _ in range(2))
    assert a.chosen.startswith(("ppo (", "distilled (")) and not getattr(a, "needs_state", False)
    for _ in range(30):
        acts = a.act(vg.observation, vg.action_mask)
        assert np.array_equal(acts, b.act(vg.observation, vg.action_mask))
        assert vg.action_mask[np.arange(64), acts].all()
        vg.step(acts)


def test_learned_plays_a_committed_network_of_its_table_ahead_of_ppo():
    """``learned.NETWORKS``: each entry's file is a committed checkpoint of its table, which ``learned`` plays at
    the entry's temperature (unless told another), there and where a ruleset plays that table's game (house without
    toggles is core); other tables keep their ``ppo``."""
    from agents.learned import NETWORKS
    from agents.ppo import CHECKPOINTS, PPOAgent, load_file, same_game

    assert NETWORKS
    for (ruleset, n), net in NETWORKS.items():
        ck = load_file(CHECKPOINTS / net.file)
        assert ck["config"]["players"] == n and same_game(ck["config"]["ruleset"], ruleset, n)
        assert set(ck) >= {"model", "config", "counters"} and "optimizer" not in ck  # exported: small to commit
        agent = agents.make("learned", ruleset, n, seed=0)
        assert agent.chosen.startswith("distilled (") and net.file in agent.chosen
        assert agent.inner.temperature == net.temperature
        assert agents.make("learned", ruleset, n, seed=0, temperature=1.0).inner.temperature == 1.0
        # the entry's ready floor where it has one, else ppo's own; a floor asked for wins
        ppo_floor = inspect.signature(PPOAgent).parameters["ready_floor"].default
        assert agent.inner.ready_floor == (ppo_floor if net.ready_floor is None else net.ready_floor)
        assert agents.make("learned", ruleset, n, seed=0, ready_floor=0.2).inner.ready_floor == 0.2
        assert agent.cycle_break == net.cycle_break  # the entry's rule 6, unless told another
    if ("core", 4) in NETWORKS:
        assert agents.make("learned", "house", 4, seed=0).chosen == agents.make("learned", "core", 4).chosen
    # a table with a committed ppo and no entry plays the ppo
    ppo_tables = [(r, 4) for r in ("core", "fatality", "og", "south_african", "omg")
                  if (CHECKPOINTS / f"{r}-4p.pt").exists()]
    assert ppo_tables
    for table in ppo_tables:
        kept = dict(NETWORKS)
        try:
            NETWORKS.pop(table, None)
            assert agents.make("learned", table[0], 4, seed=0).chosen.startswith("ppo (")
        finally:
            NETWORKS.clear()
            NETWORKS.update(kept)


def test_learned_falls_back_to_expert_where_no_network_plays_the_table():
    agent = agents.make("learned", "core", 3, seed=0)
    assert agent.chosen == "expert (no network for this table)"
    assert agents.make("learned", "house", 4, rules={"slap": True}).chosen.startswith("expert")


def test_learned_cycle_break_is_greedys_rule_6_on_its_own_stream():
    """``learned:cycle_break=p``: with the draw pile empty, a decision is a random legal action other than a
    pickup with probability p, from a stream apart from the network's sampling: where the pile is not empty the
    network's actions are exactly those it plays with p = 0; bad values and non-palace tables refuse."""
    from agents.ppo import ACTION_IDS
    from shedders.envs.palace_env import observation_slices

    vg = shedders.VectorGame("og", 128, 4, seed=5)
    vg.reset()
    deck = observation_slices(4)["deck_size"].start
    pickup = ACTION_IDS["pickup"]
    plain, always, default = (agents.make("learned", "og", 4, seed=3, **kw)
                              for kw in ({"cycle_break": 0.0}, {"cycle_break": 1.0}, {}))
    assert plain.cycle_break == 0.0 and always.cycle_break == 1.0
    empty_seen = changed = 0
    for _ in range(400):
        obs, mask = vg.observation, vg.action_mask
        want = plain.act(obs, mask)
        got, some = always.act(obs, mask), default.act(obs, mask)
        assert mask[np.arange(len(got)), got].all() and mask[np.arange(len(some)), some].all()
        empty = obs[:, deck] == 0
        assert np.array_equal(got[~empty], want[~empty])  # the network's own draws, untouched
        assert np.array_equal(some[~empty], want[~empty])
        others = (mask.sum(axis=1) > 1) & empty
        assert (got[others] != pickup).all()  # never a voluntary pickup
        empty_seen += int(empty.sum())
        changed += int((got != want).sum())
        vg.step(want)
    assert empty_seen > 500 and changed > 0
    with pytest.raises(ValueError, match="cycle_break"):
        agents.make("learned", "og", 4, cycle_break=1.5)
    with pytest.raises(ValueError, match="palace"):
        agents.make("learned", "omg", 4, cycle_break=0.1)
    assert agents.make("learned", "og", 3, cycle_break=0.1).inner.cycle_break == 0.1  # expert's own rule 6
