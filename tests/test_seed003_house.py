"""Seed 003, "House Rules" and "Prison Rules": every special card a toggle; slap, reverse on doubles, loser's tax,
shaming; plus the rulings on their order and the ply cap."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import P, act, hand, make, state

import shedders
from shedders.engine import palace as K


def test_house_without_rules_plays_its_base_with_every_prison_rule_off():
    for base in ("core", "south_african"):
        house = shedders.make_rules("house", 4, base=base)
        plain = shedders.make_rules(base, 4)
        assert np.array_equal(house.to_params(), plain.to_params())
        assert not (house.slap or house.reverse_on_doubles or house.losers_tax)
    assert shedders.make_rules("house", 4).base == "core"


def test_a_card_whose_toggle_is_off_is_a_plain_card_no_power_and_not_wild():
    env = make("house", rules={"reset_2": False}, players=[P("2 K"), P("3")], pile="K")
    assert "play 1x2" not in env.legal_action_names()
    env = make("house", rules={"burn_10": False}, players=[P("10 10 4"), P("3 J")], pile="9")
    act(env, "play 1x10")
    st = state(env)
    assert st["pile"] == ["9", "10"] and st["current_player"] == 1  # no burn, no extra turn
    assert set(env.legal_action_names()) == {"play 1xJ", "pickup"}  # a plain 10 is beaten by J, not by 3
    env = make("house", rules={"under_7": False}, players=[P("7 4"), P("8 3")])
    act(env, "play 1x7")
    assert set(env.legal_action_names()) == {"play 1x8", "pickup"}
    env = make("house", rules={"mirror_5": False}, players=[P("5 4"), P("4 6")], pile="9")
    assert "play 1x5" not in env.legal_action_names()


def test_house_can_flip_individual_south_african_cards_on_over_core():
    env = make("house", rules={"skip_8": True}, players=[P("8 4"), P("K"), P("K")])
    act(env, "play 1x8")
    assert state(env)["current_player"] == 2
    env = make("house", rules={"reverse_q": True}, players=[P("Q 4"), P("K"), P("K")])
    act(env, "play 1xQ")
    assert state(env)["direction"] == -1 and state(env)["current_player"] == 2


def test_jokers_on_over_core_add_two_jokers_to_the_deck():
    rules = shedders.make_rules("house", 4, rules={"jokers": True})
    assert rules.num_cards == 54 and rules.deck_counts()[K.RJOKER] == 2
    env = shedders.raw_env("house", 4, rules={"jokers": True})
    env.reset(seed=3)
    st = state(env)
    everything = st["deck"] + [c for p in st["players"] for z in ("hand", "face_up", "face_down") for c in p[z]]
    assert len(everything) == 54 and everything.count("JOKER") == 2


def test_four_burn_off_four_of_a_kind_does_not_burn():
    env = make("house", rules={"four_burn": False}, players=[P("9 9 9 9 4"), P("K")])
    act(env, "play 4x9")
    assert len(state(env)["pile"]) == 4 and state(env)["current_player"] == 1


def test_voluntary_pickup_off_pickup_only_when_nothing_is_legal():
    env = make("house", rules={"voluntary_pickup": False}, players=[P("9 K"), P("3")], pile="4")
    assert "pickup" not in env.legal_action_names()
    env = make("house", rules={"voluntary_pickup": False}, players=[P("3 4"), P("3")], pile="9")
    assert env.legal_action_names() == ["pickup"]


@pytest.mark.parametrize("base", ["core", "south_african"])
def test_anyone_holding_a_3_goes_first_also_when_a_plain_2_is_lower(base):
    """seed 003: "Anyone holding a 3 in their hole cards goes first. Nobody has one? The player with the lowest
    plain card starts." With reset_2 off a 2 is a plain card, the lowest there is, but the 3 is looked for
    first."""
    players = [P("9 K", up="4 6 8"), P("2 J", up="4 6 8"), P("3 Q", up="4 6 9")]
    env = make("house", players, phase="setup", current=2, base=base, rules={"reset_2": False})
    act(env, "ready")  # the last seat is done: play starts
    assert state(env)["phase"] == "play" and env.agent_selection == "player_2"
    players[2] = P("5 Q", up="4 6 9")  # nobody holds a 3: the lowest plain card, the 2, starts
    env = make("house", players, phase="setup", current=2, base=base, rules={"reset_2": False})
    act(env, "ready")
    assert env.agent_selection == "player_1"


def test_swap_phase_toggle_off_starts_play_at_once():
    env = shedders.raw_env("house", 3, rules={"swap_phase": False})
    env.reset(seed=1)
    assert state(env)["phase"] == "play"


# ---------------------------------------------------------------- Prison rules ---------------------------------
def test_slap_the_pile_after_a_burn_a_random_other_player_draws_a_penalty_card():
    drew = set()
    for seed in range(20):
        env = make(
            "house", rules={"slap": True}, seed=seed,
            players=[P("10 4 4"), P("K"), P("K"), P(finished=True)], placing=[3], deck="J Q",
        )
        act(env, "play 1x10")
        sizes = [len(p["hand"]) for p in state(env)["players"]]
        assert sizes[0] == 3 and sizes[3] == 0  # the burner drew back to 3; a player out never slaps
        assert sorted(sizes[1:3]) == [1, 2]  # exactly one other player still in drew one card
        drew.add(sizes.index(2, 1))
    assert drew == {1, 2}  # uniformly random: both other players get slapped over 20 seeds


def test_order_after_a_play_the_slap_comes_before_drawing_back_to_3():
    env = make("house", rules={"slap": True}, players=[P("10 4 4"), P("K")], deck="J Q")
    act(env, "play 1x10")
    assert hand(env, 1) == ["J", "K"] and hand(env, 0) == ["4", "4", "Q"]


def test_reverse_on_doubles_any_pair_reverses_direction():
    env = make("house", rules={"reverse_on_doubles": True}, players=[P("9 9 4"), P("K"), P("K")])
    act(env, "play 2x9")
    assert state(env)["direction"] == -1 and state(env)["current_player"] == 2


def test_reversals_apply_before_skips_are_counted():
    env = make(
        "house", base="south_african", rules={"reverse_on_doubles": True},
        players=[P("8 8 4"), P("K"), P("K"), P("K")],
    )
    act(env, "play 2x8")  # reverse first, then skip seats 3 and 2 counter-clockwise
    assert state(env)["direction"] == -1 and state(env)["current_player"] == 1


def test_a_burn_cancels_every_power_a_doubles_reversal_included():
    env = make("house", rules={"reverse_on_doubles": True}, players=[P("9 9 4"), P("K")], pile="9 9")
    act(env, "play 2x9")
    assert state(env)["direction"] == 1 and state(env)["current_player"] == 0 and state(env)["pile"] == []


def _play_out(env, agent):
    return env.legal_actions()[-1]


def test_losers_tax_next_game_the_shitheads_best_card_is_swapped_with_the_winners_worst():
    m = shedders.Match("house", 4, rules={"losers_tax": True})
    rng = np.random.default_rng(0)
    result = m.play_game(lambda env, agent: int(rng.choice(env.legal_actions())), seed=0)
    while result["truncated"]:  # pragma: no cover - random games rarely reach the cap
        result = m.play_game(lambda env, agent: int(rng.choice(env.legal_actions())), seed=None)
    loser, winner = result["loser"], result["placing"][0]
    before = shedders.raw_env("house", 4, rules={"losers_tax": True})
    before.reset(seed=1)
    dealt = before.state_dict()
    env = m.new_game(seed=1)
    taxed = env.state_dict()
    assert m.taxed == (loser, winner)

    order = ["10", "2", "5", "A", "K", "Q", "J", "9", "8", "7", "6", "4", "3"]  # best first, core's wilds first
    lh, wh = dealt["players"][loser]["hand"], dealt["players"][winner]["hand"]
    best = min(lh, key=order.index)
    worst = max(wh, key=order.index)
    exp_l = sorted(lh.copy(), key=K.RANK_NAMES.index)
    exp_l.remove(best)
    exp_w = sorted(wh.copy(), key=K.RANK_NAMES.index)
    exp_w.remove(worst)
    by_rank = K.RANK_NAMES.index
    assert sorted(taxed["players"][loser]["hand"], key=by_rank) == sorted(exp_l + [worst], key=by_rank)
    assert sorted(taxed["players"][winner]["hand"], key=by_rank) == sorted(exp_w + [best], key=by_rank)
    assert m.games == 1 and m.losses.sum() == 1


def test_losers_tax_is_skipped_after_a_truncated_game():
    m = shedders.Match("house", 3, rules={"losers_tax": True}, ply_cap=5)
    result = m.play_game(lambda env, agent: env.legal_actions()[-1], seed=0)
    assert result["truncated"] and m.last_loser is None
    m.new_game(seed=1)
    assert m.taxed is None


def test_match_keeps_a_running_tally():
    m = shedders.Match("core", 3)
    rng = np.random.default_rng(1)
    for seed in range(3):
        m.play_game(lambda env, agent: int(rng.choice(env.legal_actions())), seed=seed)
    assert m.games == 3 and m.truncated == 0 and m.losses.sum() == 3
    assert np.isclose(m.tally.sum(), 0.0)  # zero-sum when every game ended


def finished_with_loser_1(ruleset, **kwargs):
    env = make(ruleset, players=[P("K"), P("3 3")], pile="9", **kwargs)
    env.render_mode = "ansi"
    before = env.state_dict()
    env.step(env.action_id("play 1xK"))
    return env, before


def test_shithead_shaming_the_loser_is_addressed_only_as_shithead():
    """Prison rule "Shithead shaming", a house toggle: with it on, the renderer, the explanations and the table
    view call the last game's loser "Shithead"."""
    from shedders.explain import explain_step, table_view

    env, before = finished_with_loser_1("house", rules={"shithead_shaming": True})
    text = env.render()
    assert 'player_1 "Shithead"' in text and "Shithead: player_1" in text
    said = explain_step(env.rules, before, env.state_dict(), 0, "play 1xK", None)
    assert any("player_1 is the Shithead" in line for line in said)
    assert table_view(env, 0)["shithead"] == 1


@pytest.mark.parametrize("ruleset,kwargs", [("core", {}), ("south_african", {}), ("house", {}),
                                            ("house", {"base": "south_african"}), ("fatality", {})])
def test_shithead_shaming_is_a_prison_rule_off_by_default(ruleset, kwargs):
    """The seed's Prison Rules are "optional rules for when the base game isn't chaotic enough": without the toggle
    no surface names the loser "Shithead" (only "last")."""
    from shedders.explain import explain_step, table_view

    env, before = finished_with_loser_1(ruleset, **kwargs)
    assert not env.rules.shithead_shaming
    text = env.render()
    assert "Shithead" not in text and "last: player_1" in text
    said = explain_step(env.rules, before, env.state_dict(), 0, "play 1xK", None)
    assert not any("Shithead" in line for line in said) and any("player_1 is last" in line for line in said)
    assert table_view(env, 0)["shithead"] is None
    assert table_view(env, 0)["constraint"] == "the game is over"


# ---------------------------------------------------------------- Ply cap --------------------------------------
def test_the_ply_cap_ends_the_game_truncated_players_still_in_get_0():
    env = make(players=[P("9 9 4"), P("K"), P("K")], ply_cap=3, plies=2)
    env.step(env.action_id("play 1x4"))
    assert all(env.truncations.values()) and state(env)["phase"] == "over"
    assert all(r == 0 for r in env.rewards.values())


def test_every_decision_counts_toward_the_cap_setup_and_passes_included():
    env = shedders.raw_env("core", 2, ply_cap=4)
    env.reset(seed=0)
    for _ in range(4):
        env.step(env.action_id("ready") if state(env)["phase"] == "setup" else env.legal_actions()[0])
    assert state(env)["phase"] == "over" and all(env.truncations.values())


@pytest.mark.parametrize("ruleset,n", [("core", 2), ("core", 5), ("south_african", 6), ("house", 3)])
def test_reward_shithead_minus_one_every_other_plus_one_over_n_minus_one(ruleset, n):
    env = shedders.raw_env(ruleset, n)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        total[agent] += rew
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    st = state(env)
    assert not env._state.truncated[0]
    loser = ({*range(n)} - set(st["placing"])).pop()
    for i, a in enumerate(env.possible_agents):
        assert total[a] == pytest.approx(-1.0 if i == loser else 1.0 / (n - 1))
