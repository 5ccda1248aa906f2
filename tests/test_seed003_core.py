"""Seed 003 (core): one test per rule sentence, built from scenarios and named after the rule."""

from __future__ import annotations

import numpy as np
from conftest import P, act, cards, hand, make, state

import shedders
from shedders.engine import palace as K
from shedders.envs.palace_env import observation_slices


# ---------------------------------------------------------------- Setup ----------------------------------------
def test_setup_deals_three_mystery_three_table_top_three_hole_cards():
    for n in (2, 3, 4, 5):
        env = shedders.raw_env("core", n)
        env.reset(seed=n)
        st = state(env)
        for p in st["players"]:
            assert len(p["face_down"]) == 3 and len(p["face_up"]) == 3 and len(p["hand"]) == 3
        assert len(st["deck"]) == 52 - 9 * n
        assert st["phase"] == "setup" and st["current_player"] == 0


def test_swap_if_you_want_hole_and_table_top_cards_trade_places():
    env = make(phase="setup", players=[P("3 4 9", up="K A 10", down="5 5 5"), P("6 6 6", up="8 8 8")])
    act(env, "swap 4 for A")
    st = state(env)["players"][0]
    assert cards(" ".join(st["hand"])) == cards("3 9 A")
    assert cards(" ".join(st["face_up"])) == cards("4 K 10")
    act(env, "ready")  # setup is sequential from seat 0: now seat 1 swaps
    assert state(env)["phase"] == "setup" and state(env)["current_player"] == 1
    act(env, "ready")
    assert state(env)["phase"] == "play"


def test_setup_swaps_are_hidden_from_others_until_setup_ends():
    env = make(phase="setup", players=[P("3 4 9", up="K A 10"), P("6 6 6", up="8 8 8")])
    sl = observation_slices(2)["face_up"]
    obs1 = env.observe("player_1")["observation"][sl]
    assert obs1[14:].sum() == 0  # seat 0's face-up cards, seen from seat 1, are hidden during setup
    assert obs1[:14].sum() == 3  # own face-up cards are seen
    act(env, "ready")
    act(env, "ready")
    assert env.observe("player_1")["observation"][sl][14:].sum() == 3


def test_a_3_starts_the_game():
    players = [P("4 9 K"), P("6 3 J"), P("3 8 8")]
    env = make(phase="setup", current=2, players=players)
    act(env, "ready")
    assert state(env)["current_player"] == 1  # ties go first clockwise from seat 0


def test_nobody_has_a_3_the_lowest_plain_card_starts():
    # core: 2, 5, 7 and 10 have powers; 4 is the lowest plain card here
    env = make(phase="setup", current=1, players=[P("2 2 9"), P("5 4 K")])
    act(env, "ready")
    assert state(env)["current_player"] == 1


def test_lowest_plain_card_counts_the_active_powers():
    # south_african: 8 skips, so the 9 is the lowest plain card
    env = make("south_african", phase="setup", current=1, players=[P("8 K K"), P("9 A A")])
    act(env, "ready")
    assert state(env)["current_player"] == 1


def test_no_plain_card_in_any_hand_seat_0_starts():
    env = make(phase="setup", current=1, players=[P("10 2"), P("5 7")])
    act(env, "ready")
    assert state(env)["current_player"] == 0


def test_play_begins_clockwise():
    env = make(players=[P("3 4"), P("6"), P("6")], current=0)
    act(env, "play 1x3")
    assert state(env)["current_player"] == 1


# ---------------------------------------------------------------- Card types -----------------------------------
def test_hole_cards_are_played_first():
    env = make(players=[P("4", up="K K", down="9"), P("6")])
    assert env.legal_action_names() == ["play 1x4"]  # the pile is empty: no pickup either


def test_table_top_cards_once_the_hole_cards_are_gone():
    env = make(players=[P("", up="K K 4", down="9"), P("6")])
    assert set(env.legal_action_names()) == {"play 1x4", "play 1xK", "play 2xK"}
    act(env, "play 2xK")
    assert state(env)["players"][0]["face_up"] == ["4"]


def test_table_top_cards_wait_for_the_draw_pile_to_empty():
    env = make(players=[P("4", up="K K"), P("6")], deck="9 9")
    act(env, "play 1x4")
    assert hand(env, 0) == ["9", "9"]  # drew instead of moving to the table-top cards


def test_mystery_cards_are_played_blind_last_one_at_a_time():
    env = make(players=[P("", up="", down="9 4 6"), P("6 6")])
    assert env.legal_action_names() == ["flip"]
    act(env, "flip")
    st = state(env)
    assert st["pile"] == ["9"] and st["players"][0]["face_down"] == ["4", "6"]  # the first one listed first


def test_draw_to_three_while_the_draw_pile_exists():
    env = make(players=[P("4 4 9"), P("6")], deck="J Q K A")
    act(env, "play 2x4")
    assert hand(env, 0) == ["9", "J", "Q"]
    assert state(env)["deck"] == ["K", "A"]


def test_holding_more_than_three_no_drawing():
    env = make(players=[P("4 9 9 9 K"), P("6")], deck="J Q")
    act(env, "play 1x4")
    assert hand(env, 0) == ["9", "9", "9", "K"]
    assert state(env)["deck"] == ["J", "Q"]


def test_picked_up_the_pile_and_holding_more_than_three_no_drawing():
    env = make(players=[P("4 6 6"), P("3")], pile="9 K", deck="J Q", current=0)
    act(env, "pickup")
    assert hand(env, 0) == cards("4 6 6 9 K")
    assert state(env)["deck"] == ["J", "Q"]


# ---------------------------------------------------------------- Special cards --------------------------------
def test_2_resets_the_pile_the_next_player_can_play_any_card():
    env = make(players=[P("2 9"), P("3 4")], pile="K")
    act(env, "play 1x2")
    assert {"play 1x3", "play 1x4"} <= set(env.legal_action_names())


def test_2_is_wild_on_anything():
    env = make(players=[P("2 9"), P("3")], pile="A")
    assert "play 1x2" in env.legal_action_names() and "play 1x9" not in env.legal_action_names()


def test_5_mirror_the_pile_counts_as_the_card_beneath():
    env = make(players=[P("5 9"), P("8 9 J")], pile="9")
    act(env, "play 1x5")
    assert set(env.legal_action_names()) == {"play 1x9", "play 1xJ", "pickup"}


def test_5_on_a_7_keeps_the_under_7_curse_alive():
    env = make(players=[P("5 9"), P("8 6")], pile="7")
    act(env, "play 1x5")
    assert set(env.legal_action_names()) == {"play 1x6", "pickup"}


def test_5_never_retriggers_one_shot_effects():
    # south_african: a 5 on an 8 skips nobody, on a Q reverses nothing, on an A nominates nobody
    env = make("south_african", players=[P("5 5 9"), P("9 J"), P("9 J")], pile="8")
    act(env, "play 1x5")
    assert state(env)["current_player"] == 1
    env = make("south_african", players=[P("5 5 9"), P("K"), P("K")], pile="Q")
    act(env, "play 1x5")
    assert state(env)["current_player"] == 1 and state(env)["direction"] == 1
    env = make("south_african", players=[P("5 5 9"), P("K"), P("K")], pile="A")
    act(env, "play 1x5")
    assert state(env)["phase"] == "play" and state(env)["current_player"] == 1


def test_5_on_an_empty_pile_next_player_plays_anything():
    env = make(players=[P("5 9"), P("3 K")])
    act(env, "play 1x5")
    assert {"play 1x3", "play 1xK"} <= set(env.legal_action_names())


def test_7_under_the_next_player_must_play_lower_than_7_or_a_wild():
    env = make(players=[P("7 9"), P("2 3 5 6 7 8 10 K")])
    act(env, "play 1x7")
    legal = set(env.legal_action_names())
    assert legal == {"play 1x2", "play 1x3", "play 1x5", "play 1x6", "play 1x10", "pickup"}


def test_an_8_is_not_an_escape_from_under_7():
    env = make(players=[P("7 9"), P("8 8")])
    act(env, "play 1x7")
    assert env.legal_action_names() == ["pickup"]


def test_once_someone_answers_the_7_normal_play_resumes_from_that_card():
    env = make(players=[P("7 9"), P("4 K"), P("3 5 6 8")])
    act(env, "play 1x7")
    act(env, "play 1x4")
    assert set(env.legal_action_names()) == {"play 1x5", "play 1x6", "play 1x8", "pickup"}


def test_10_burns_the_entire_pile_and_you_go_again():
    env = make(players=[P("10 4 K"), P("6")], pile="J Q")
    act(env, "play 1x10")
    st = state(env)
    assert st["pile"] == [] and cards(" ".join(st["out_of_play"])) == cards("J Q 10")
    assert st["current_player"] == 0


def test_finishing_on_a_10_is_allowed_go_out_in_flames():
    env = make(players=[P("10"), P("6"), P("4")], pile="K")
    act(env, "play 1x10")
    st = state(env)
    assert st["players"][0]["finished"] and st["placing"] == [0]
    assert st["current_player"] == 1 and st["pile"] == []


# ---------------------------------------------------------------- How to play ----------------------------------
def test_play_equal_or_higher_than_the_top_of_the_pile():
    env = make(players=[P("8 9 9 J 3"), P("6")], pile="9")
    assert set(env.legal_action_names()) == {"play 1x9", "play 2x9", "play 1xJ", "pickup"}


def test_play_one_or_more_cards_of_a_single_value():
    env = make(players=[P("9 9 9 J"), P("6")], pile="4")
    act(env, "play 3x9")
    assert state(env)["pile"] == ["4", "9", "9", "9"]


def test_if_you_cant_or_dont_want_to_you_pick_up_the_entire_pile():
    env = make(players=[P("9 K"), P("6")], pile="4 8")
    assert "pickup" in env.legal_action_names()  # voluntary: a play was possible
    act(env, "pickup")
    assert hand(env, 0) == cards("4 8 9 K") and state(env)["current_player"] == 1


def test_no_pickup_from_an_empty_pile():
    env = make(players=[P("9 K"), P("6")])
    assert "pickup" not in env.legal_action_names()


def test_four_of_a_kind_burns_played_at_once():
    env = make(players=[P("9 9 9 9 K"), P("6")], pile="4")
    act(env, "play 4x9")
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and len(st["out_of_play"]) == 5


def test_four_of_a_kind_burns_stacked_across_turns_the_burner_goes_again():
    env = make(players=[P("9 K"), P("9 9 9 4"), P("K")], pile="6")
    act(env, "play 1x9")  # 6 9
    act(env, "play 3x9")  # 6 9 9 9 9: four 9s on top
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 1


def test_a_5_counts_as_5_for_four_of_a_kind():
    env = make(players=[P("5 5 K"), P("5 5 4")], pile="9")
    act(env, "play 2x5")
    act(env, "play 2x5")
    assert state(env)["pile"] == [] and state(env)["current_player"] == 1


def test_mystery_card_that_beats_the_pile_plays():
    env = make(players=[P("", down="K 4"), P("6")], pile="9")
    act(env, "flip")
    assert state(env)["pile"] == ["9", "K"] and state(env)["current_player"] == 1


def test_mystery_card_that_fails_is_picked_up_with_the_pile_in_the_flip_step():
    env = make(players=[P("", down="4 K"), P("6")], pile="9 J")
    act(env, "flip")
    st = state(env)
    assert st["pile"] == [] and hand(env, 0) == cards("4 9 J")
    assert st["current_player"] == 1 and st["players"][0]["face_down"] == ["K"]


def test_last_one_holding_cards_loses_the_shithead():
    env = make(players=[P("K"), P("3 3"), P(finished=True)], pile="9", placing=[2])
    rewards = {}
    env.step(env.action_id("play 1xK"))
    rewards.update(env.rewards)
    st = state(env)
    assert st["phase"] == "over" and st["current_player"] is None
    assert st["placing"] == [2, 0]
    assert rewards["player_0"] == 0.5 and rewards["player_1"] == -1.0
    assert all(env.terminations.values())


def test_first_out_gets_the_glory_each_player_out_is_terminated_at_once():
    env = make(players=[P("K"), P("3 3"), P("4 4")], pile="9")
    env.step(env.action_id("play 1xK"))
    assert env.terminations["player_0"] and env.agent_selection == "player_0"
    assert env.rewards["player_0"] == 0.5
    env.step(None)
    assert "player_0" not in env.agents and env.agent_selection == "player_1"
    assert state(env)["current_player"] == 1


def test_burner_with_no_cards_left_is_out_instead():
    env = make(players=[P("9 9 K"), P("9 9 4"), P("K")], pile="6")
    act(env, "play 2x9")
    act(env, "play 2x9")  # player 1 burns with four 9s, keeps a 4
    assert state(env)["current_player"] == 1
    env = make(players=[P("9 9 K"), P("9 9"), P("K")], pile="6")
    act(env, "play 2x9")
    act(env, "play 2x9")  # player 1 burns with its last cards: out, player 2 starts afresh
    st = state(env)
    assert st["players"][1]["finished"] and st["current_player"] == 2 and st["pile"] == []


def test_picked_up_cards_are_publicly_known_until_played():
    env = make(players=[P("3 4"), P("6 K")], pile="9 J", current=0)
    act(env, "pickup")
    assert cards(" ".join(state(env)["players"][0]["known"])) == cards("9 J")
    known = observation_slices(2)["known"]
    seen_by_1 = env.observe("player_1")["observation"][known]
    assert seen_by_1[14 + 7] == 1 and seen_by_1[14 + 9] == 1  # seat 0 is slot 1 for seat 1: one 9, one J
    act(env, "play 1x6")
    act(env, "play 1xJ")
    assert state(env)["players"][0]["known"] == ["9"]


def test_observation_says_the_kind_of_decision():
    env = make(players=[P("3"), P("4")])
    kind = observation_slices(2)["kind"]
    assert np.argmax(env.observe("player_0")["observation"][kind]) == 1  # play
    assert np.argmax(env.observe("player_1")["observation"][kind]) == K.KIND_WAITING  # waiting
    env = make(phase="setup", players=[P("3"), P("4")])
    assert np.argmax(env.observe("player_0")["observation"][kind]) == 0  # setup
