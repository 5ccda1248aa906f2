"""Seed 000, "OG": covers, the opening rank, forced pickup-and-open, 2 / 3 / 7 / 10, full sets, sneaking; and the
rulings for og (docs/rulings.md). Each test is named after the sentence (or ruling) it checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import P, act, cards, conserved, hand, make, state

import shedders
from shedders.engine import palace as K
from shedders.envs.palace_env import observation_slices

OG = "og"


def og(players, **kw):
    return make(OG, players=players, **kw)


def seats(n):
    """Filler seats that hold nothing anyone plays in these tests, with covers and blinds so nobody goes out."""
    fill = [P("J", up="Q", down="K"), P("J", up="Q", down="K"), P("J", up="Q", down="K")]
    return fill[:n]


def kind(env, agent):
    """The decision kind an agent's observation announces (a phase name, or "waiting")."""
    obs = env.observe(agent)["observation"]
    k = int(np.argmax(obs[observation_slices(env.rules.num_players)["kind"]]))
    return "waiting" if k == K.KIND_WAITING else K.PHASE_NAMES[k]


# ---------------------------------------------------------------- Requirements ---------------------------------
def test_3_to_5_players_play_one_standard_deck_with_jokers_removed():
    for n in (3, 4, 5):
        rules = shedders.raw_env(OG, n).rules
        assert rules.num_cards == 52 and rules.num_jokers == 0 and rules.set_size == 4


def test_5_to_8_players_mix_two_decks_and_a_full_set_requires_5_cards():
    for n in (6, 7, 8):
        rules = shedders.raw_env(OG, n).rules
        assert rules.num_cards == 104 and rules.set_size == 5
    env = og([P("9 9", up="A", down="A"), P("9", up="A", down="A"), P("J", up="Q", down="K")] + seats(3),
             pile="9 9", deck="4")
    act(env, "play 2x9")  # four 9s on top: not a full set with two decks
    assert state(env)["pile"] == ["9"] * 4
    act(env, "sneak 1x9")  # the fifth is
    assert state(env)["pile"] == [] and state(env)["phase"] == "play" and state(env)["current_player"] == 1


def test_ruling_2_players_on_one_deck_are_an_extension_and_9_players_are_refused():
    assert shedders.raw_env(OG, 2).rules.num_cards == 52
    with pytest.raises(ValueError, match="allowed: 2..8"):
        shedders.raw_env(OG, 9)


# ---------------------------------------------------------------- Dealing --------------------------------------
def test_deal_three_blinds_then_six_cards_the_rest_is_the_draw_pile():
    env = shedders.raw_env(OG, 4)
    env.reset(seed=3)
    st = state(env)
    assert st["phase"] == "setup" and st["current_player"] == 0
    for p in st["players"]:
        assert len(p["face_down"]) == 3 and len(p["hand"]) == 6 and p["face_up"] == []
    assert len(st["deck"]) == 52 - 4 * 9 and conserved(env)


def test_each_player_chooses_three_covers_one_card_at_a_time_the_rest_is_the_hand():
    env = og([P("4 5 9 10 A 2"), P("6 7 8 J Q K")], phase="setup")
    assert env.legal_action_names() == ["cover 2", "cover 4", "cover 5", "cover 9", "cover 10", "cover A"]
    act(env, "cover A")
    act(env, "cover 10")
    assert state(env)["current_player"] == 0  # still picking
    act(env, "cover 2")
    st = state(env)
    assert st["current_player"] == 1 and st["phase"] == "setup"
    assert cards(" ".join(st["players"][0]["face_up"])) == cards("2 10 A") and hand(env, 0) == cards("4 5 9")


def test_ruling_no_player_sees_another_players_covers_until_all_have_picked():
    env = og([P("4 5 9 10 A 2"), P("6 7 8 J Q K")], phase="setup")
    for c in ("A", "10", "2"):
        act(env, f"cover {c}")
    up = observation_slices(2)["face_up"]
    seen_by_1 = env.observe("player_1")["observation"][up]
    assert seen_by_1[K.R:].sum() == 0  # seat 0 is relative slot 1 for player_1: hidden
    for c in ("K", "Q", "J"):
        act(env, f"cover {c}")
    assert state(env)["phase"] == "open"
    assert env.observe("player_1")["observation"][up][K.R:].sum() == 3  # shown once setup is over


def test_setup_ends_by_itself_once_every_player_has_three_covers():
    env = og([P("4 5 9 10 A 2"), P("6 7 8 J Q K")], phase="setup")
    for c in ("A", "10", "2", "K", "Q", "J"):
        act(env, f"cover {c}")
    st = state(env)
    assert st["phase"] == "open" and "ready" not in env.legal_action_names()


# ---------------------------------------------------------------- Playing: the opening -------------------------
def test_if_any_player_has_a_4_they_open_and_the_first_such_player_clockwise_opens():
    players = [P("9 J", up="A A A"), P("5 6 Q", up="K K K"), P("4 4 8", up="2 2 2"), P("4 7 10 3 3 3")]
    env = og(players, phase="setup", current=3)
    for c in ("3", "3", "3"):
        act(env, f"cover {c}")
    st = state(env)
    assert st["phase"] == "open" and st["current_player"] == 2
    assert env.legal_action_names() == ["play 1x4", "play 2x4"]


def test_if_nobody_has_a_4_someone_may_play_a_5_and_so_on():
    players = [P("9 J", up="A A A"), P("6 8 Q", up="K K K"), P("6 9 9", up="2 2 2"), P("7 10 J 3 3 3")]
    env = og(players, phase="setup", current=3)
    for c in ("3", "3", "3"):
        act(env, f"cover {c}")
    assert state(env)["current_player"] == 1 and env.legal_action_names() == ["play 1x6"]


def test_ruling_the_start_rank_goes_on_past_the_ace_to_2_then_3():
    env = og([P("3 3", up="A A A"), P("2 3 K", up="Q Q")], phase="setup", current=1)
    act(env, "cover K")  # no hand holds 4..A now
    st = state(env)
    assert st["phase"] == "open" and st["current_player"] == 1 and env.legal_action_names() == ["play 1x2"]
    env = og([P("3 3", up="A A A"), P("3 K", up="Q Q")], phase="setup", current=1)
    act(env, "cover K")
    assert state(env)["current_player"] == 0 and env.legal_action_names() == ["play 1x3", "play 2x3"]


def test_the_opening_is_a_normal_play_and_play_then_passes_to_the_openers_left():
    env = og([P("J", up="Q", down="K"), P("4 9", up="A", down="A"), P("5", up="Q", down="K")], phase="open",
             current=1)
    act(env, "play 1x4")
    st = state(env)
    assert st["phase"] == "play" and st["current_player"] == 2 and st["pile"] == ["4"]


def test_other_players_with_the_start_rank_may_sneak_it_regardless_of_the_turn_order():
    env = og([P("4 J", up="Q", down="K"), P("4 9", up="A", down="A"), P("5", up="Q", down="K")], phase="open",
             current=1)
    act(env, "play 1x4")
    st = state(env)
    assert st["phase"] == "sneak" and st["current_player"] == 0
    assert env.legal_action_names() == ["pass", "sneak 1x4"]
    act(env, "sneak 1x4")
    st = state(env)
    assert st["pile"] == ["4", "4"] and st["current_player"] == 2 and st["phase"] == "play"


# ---------------------------------------------------------------- Playing: turns -------------------------------
def test_turns_proceed_clockwise_each_play_equal_or_higher_and_multiple_cards_of_the_same_rank():
    env = og([P("5 8 8 9", up="A", down="A")] + seats(2), pile="8")
    assert env.legal_action_names() == ["play 1x8", "play 2x8", "play 1x9"]
    act(env, "play 2x8")
    assert state(env)["current_player"] == 1


def test_with_less_than_three_cards_you_draw_from_the_draw_pile_until_it_is_empty():
    env = og([P("6 9", up="A", down="A")] + seats(2), pile="5", deck="4")
    act(env, "play 1x6")
    assert hand(env, 0) == cards("4 9") and state(env)["deck"] == []


def test_if_you_cant_beat_the_pile_you_pick_it_up_and_play_a_new_card_to_start_the_pile():
    env = og([P("4 5", up="A", down="A"), P("6", up="Q", down="K"), P("J", up="Q", down="K")], pile="9 Q")
    assert env.legal_action_names() == ["pickup"]
    act(env, "pickup")
    st = state(env)
    assert st["current_player"] == 0 and st["phase"] == "play" and st["pile"] == []
    assert env.legal_action_names() == ["play 1x4", "play 1x5", "play 1x9", "play 1xQ"]
    assert cards(" ".join(st["players"][0]["known"])) == cards("9 Q")  # picked-up cards are public
    act(env, "play 1x4")
    assert state(env)["pile"] == ["4"] and state(env)["current_player"] == 1


def test_ruling_there_is_no_voluntary_pickup():
    env = og([P("4 K", up="A", down="A")] + seats(2), pile="9 Q")
    assert "pickup" not in env.legal_action_names()


def test_you_cannot_use_your_covers_until_your_hand_is_empty():
    env = og([P("9", up="10 4", down="A")] + seats(2), pile="5")
    assert env.legal_action_names() == ["play 1x9"]
    env = og([P("", up="10 4", down="A")] + seats(2), pile="5")
    assert env.legal_action_names() == ["play 1x10"]  # covers, now that the hand and draw pile are empty


def test_after_a_pickup_you_must_empty_your_hand_again_before_using_your_covers():
    env = og([P("", up="4 5", down="A")] + seats(2), pile="9 Q")
    act(env, "pickup")
    assert env.legal_action_names() == ["play 1x9", "play 1xQ"]  # from the hand again, not the covers


def test_you_cant_use_your_blinds_until_your_covers_are_gone_and_your_hand_is_empty():
    env = og([P("", up="6", down="4 A")] + seats(2), pile="5")
    assert env.legal_action_names() == ["play 1x6"]
    env = og([P("", down="4 A")] + seats(2), pile="5")
    assert env.legal_action_names() == ["flip"]


def test_you_must_play_your_blind_face_up_even_if_it_does_not_beat_the_pile():
    env = og([P("", down="4 A"), P("6", up="Q", down="K"), P("J", up="Q", down="K")], pile="5")
    act(env, "flip")
    st = state(env)
    # the failed blind is picked up with the pile, in public; then a fresh pile from the hand, same turn
    assert hand(env, 0) == cards("4 5") and cards(" ".join(st["players"][0]["known"])) == cards("4 5")
    assert st["current_player"] == 0 and st["pile"] == [] and env.legal_action_names() == ["play 1x4", "play 1x5"]


def test_a_blind_that_beats_the_pile_is_played():
    env = og([P("", down="9 A"), P("6", up="Q", down="K"), P("J", up="Q", down="K")], pile="5")
    act(env, "flip")
    assert state(env)["pile"] == ["5", "9"] and state(env)["current_player"] == 1


def test_the_player_to_empty_their_blinds_first_wins_the_game_and_it_ends_there():
    env = og([P("", down="9"), P("6", up="Q", down="K"), P("J", up="Q", down="K")], pile="5")
    env.step(env.action_id("flip"))
    st = state(env)
    assert st["phase"] == "over" and st["placing"] == [0] and st["current_player"] is None
    assert env.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(env.terminations.values())


# ---------------------------------------------------------------- Special cards --------------------------------
def test_2_can_be_played_on_any_card_and_resets_the_pile():
    env = og([P("2 4", up="A", down="A"), P("3 5", up="Q", down="K"), P("J", up="Q", down="K")], pile="K")
    assert "play 1x2" in env.legal_action_names()
    act(env, "play 1x2")
    assert state(env)["current_player"] == 1 and set(env.legal_action_names()) == {"play 1x3", "play 1x5"}


def test_3_can_be_played_on_any_card_is_discarded_and_the_next_player_must_pick_up_and_start_fresh():
    env = og([P("3 4", up="A", down="A"), P("6 9", up="Q", down="K"), P("J", up="Q", down="K")], pile="K A")
    act(env, "play 1x3")
    st = state(env)
    assert st["out_of_play"] == ["3"] and st["pile"] == ["K", "A"]
    assert st["phase"] == "eat" and st["current_player"] == 1 and env.legal_action_names() == ["pickup"]
    act(env, "pickup")
    assert state(env)["current_player"] == 1 and state(env)["pile"] == []
    assert "play 1x6" in env.legal_action_names() and "play 1xA" in env.legal_action_names()
    act(env, "play 1x6")
    assert state(env)["current_player"] == 2


def test_ruling_after_a_3_on_an_empty_pile_the_next_player_picks_up_nothing_and_opens():
    env = og([P("3 4", up="A", down="A"), P("6 9", up="Q", down="K"), P("J", up="Q", down="K")])
    act(env, "play 1x3")
    assert env.legal_action_names() == ["pickup"]
    act(env, "pickup")
    assert hand(env, 1) == cards("6 9") and env.legal_action_names() == ["play 1x6", "play 1x9"]


def test_ruling_after_a_3_a_player_with_an_empty_hand_opens_from_the_zone_they_may_play():
    env = og([P("3 4", up="A", down="A"), P("", down="6 9"), P("J", up="Q", down="K")])
    act(env, "play 1x3")
    act(env, "pickup")
    assert env.legal_action_names() == ["flip"]  # an empty pile: the blind always plays
    act(env, "flip")
    assert state(env)["pile"] == ["6"]


def test_ruling_four_3s_in_one_play_are_a_full_set_they_burn_and_the_player_plays_again():
    env = og([P("3 3 3 3 5", up="A", down="A")] + seats(2), pile="K")
    act(env, "play 4x3")
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and st["phase"] == "play"
    assert cards(" ".join(st["out_of_play"])) == cards("3 3 3 3 K")


def test_a_7_can_only_be_played_on_a_card_that_it_beats():
    env = og([P("7 9", up="A", down="A")] + seats(2), pile="8")
    assert env.legal_action_names() == ["play 1x9"]
    env = og([P("7 9", up="A", down="A")] + seats(2), pile="7")
    assert "play 1x7" in env.legal_action_names()


def test_after_a_7_the_next_player_must_play_a_7_or_lower_or_a_10_2_or_3():
    env = og([P("7 4", up="A", down="A"), P("2 3 4 6 7 8 9 10 J Q", up="Q", down="K"), P("J", up="Q", down="K")],
             pile="5")
    act(env, "play 1x7")
    act(env, "pass") if state(env)["phase"] == "sneak" else None
    names = set(env.legal_action_names())
    assert names == {"play 1x2", "play 1x3", "play 1x4", "play 1x6", "play 1x7", "play 1x10"}


def test_10_clears_the_whole_pile_and_the_player_starts_fresh_after_drawing():
    env = og([P("10 4 5", up="A", down="A")] + seats(2), pile="K A 7", deck="9")
    assert "play 1x10" in env.legal_action_names()  # on anything, a 7 included
    act(env, "play 1x10")
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and hand(env, 0) == cards("4 5 9")
    assert cards(" ".join(st["out_of_play"])) == cards("K A 7 10")


def test_the_final_card_of_a_set_of_4_behaves_like_a_10_whoever_played_the_previous_ones():
    env = og([P("9 4", up="A", down="A")] + seats(2), pile="9 9 9", pile_by=[1, 2, 1])
    act(env, "play 1x9")
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and st["out_of_play"] == ["9"] * 4


# ---------------------------------------------------------------- Sneaking -------------------------------------
def test_any_time_a_card_is_played_a_player_with_the_same_card_may_sneak_it_when_it_is_not_their_turn():
    env = og([P("6 4", up="A", down="A"), P("J", up="Q", down="K"), P("6 6 9", up="Q", down="K")], pile="5")
    act(env, "play 1x6")
    st = state(env)
    assert st["phase"] == "sneak" and st["current_player"] == 2 and st["sneak_rank"] == "6"
    assert env.legal_action_names() == ["pass", "sneak 1x6", "sneak 2x6"]
    assert kind(env, "player_2") == "sneak" and kind(env, "player_1") == "waiting"


def test_observation_says_whether_a_decision_is_a_turn_or_a_sneak_offer():
    env = og([P("6 4", up="A", down="A"), P("J", up="Q", down="K"), P("6 9", up="Q", down="K")], pile="5")
    assert kind(env, "player_0") == "play"
    act(env, "play 1x6")
    assert kind(env, "player_2") == "sneak"
    obs = env.observe("player_2")["observation"]
    assert obs[observation_slices(3)["last"]][K.R6] == 1  # the rank on offer
    assert obs[observation_slices(3)["turn"]].tolist() == [0, 0, 1]  # it is player_1's turn (relative slot 2)


def test_ruling_sneak_offers_go_clockwise_from_the_left_of_the_player_who_played_next_player_included():
    players = [P("6 6", up="A", down="A"), P("6 J", up="Q", down="K"), P("J", up="Q", down="K"),
               P("5 6 9", up="Q", down="K")]
    env = og(players, pile="5", current=3)
    act(env, "play 1x6")
    assert state(env)["current_player"] == 0  # seat 3's left
    act(env, "pass")
    assert state(env)["current_player"] == 1  # the next player, whose turn it is not yet
    act(env, "pass")
    assert state(env)["phase"] == "play" and state(env)["current_player"] == 0  # seat 2 holds no 6: not asked


def test_you_cannot_sneak_while_it_is_your_turn_the_player_who_played_is_never_asked():
    env = og([P("6 6 4", up="A", down="A"), P("J", up="Q", down="K"), P("J", up="Q", down="K")], pile="5")
    act(env, "play 1x6")
    assert state(env)["phase"] == "play" and state(env)["current_player"] == 1


def test_a_sneaker_draws_and_the_game_continues_with_the_player_who_would_have_gone_next():
    players = [P("6 4 4", up="A", down="A"), P("J", up="Q", down="K"), P("6 9 9", up="Q", down="K")]
    env = og(players, pile="5", deck="8 8")
    act(env, "play 1x6")  # seat 0 draws an 8
    act(env, "sneak 1x6")  # seat 2 sneaks, draws the other 8
    st = state(env)
    assert st["pile"] == ["5", "6", "6"] and st["current_player"] == 1 and st["phase"] == "play"
    assert hand(env, 2) == cards("8 9 9") and st["deck"] == []


def test_sneaking_never_changes_the_order_of_turns_and_does_not_count_as_a_turn():
    players = [P("6 4", up="A", down="A"), P("6 J", up="Q", down="K"), P("J", up="Q", down="K")]
    env = og(players, pile="5")
    act(env, "play 1x6")
    act(env, "sneak 1x6")  # the next player sneaks...
    st = state(env)
    assert st["current_player"] == 1 and st["phase"] == "play"  # ...and still has the turn
    assert env.legal_action_names() == ["play 1xJ"]


def test_ruling_each_sneak_opens_a_new_window_in_which_the_first_player_may_sneak_again():
    players = [P("6 6 4", up="A", down="A"), P("J", up="Q", down="K"), P("6 9", up="Q", down="K")]
    env = og(players, pile="6")
    act(env, "play 1x6")
    act(env, "sneak 1x6")  # seat 2; new window from seat 0
    st = state(env)
    assert st["phase"] == "sneak" and st["current_player"] == 0 and st["sneak_by"] == 2
    act(env, "sneak 1x6")  # the first player sneaks on the sneak: four 6s, a full set
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and st["out_of_turn"]


def test_you_may_sneak_special_cards_but_they_have_no_additional_effects():
    # a sneaked 2 or 7 stays on top of the played ones: no further effect
    env = og([P("7 4", up="A", down="A"), P("J", up="Q", down="K"), P("7 9", up="Q", down="K")], pile="5")
    act(env, "play 1x7")
    act(env, "sneak 1x7")
    st = state(env)
    assert st["pile"] == ["5", "7", "7"] and st["current_player"] == 1


def test_ruling_a_sneaked_3_leaves_play_with_no_forced_pickup_of_its_own():
    env = og([P("3 4", up="A", down="A"), P("J", up="Q", down="K"), P("3 9", up="Q", down="K")], pile="8")
    act(env, "play 1x3")
    act(env, "sneak 1x3")
    st = state(env)
    assert st["out_of_play"] == ["3", "3"] and st["pile"] == ["8"]
    assert st["phase"] == "eat" and st["current_player"] == 1  # only the played 3's pickup


def test_ruling_a_sneaked_10_leaves_play_with_no_burn_and_the_burner_still_restarts():
    env = og([P("10 4", up="A", down="A"), P("J", up="Q", down="K"), P("10 9", up="Q", down="K")], pile="8",
             deck="5 5")
    act(env, "play 1x10")
    act(env, "sneak 1x10")
    st = state(env)
    assert cards(" ".join(st["out_of_play"])) == cards("8 10 10") and st["pile"] == []
    assert st["current_player"] == 0 and st["phase"] == "play" and not st["out_of_turn"]


def test_if_you_sneak_the_fourth_card_of_a_full_set_you_clear_and_restart_the_pile():
    players = [P("8 4", up="A", down="A"), P("J 5", up="Q", down="K"), P("8 9", up="Q", down="K")]
    env = og(players, pile="8 8")
    act(env, "play 1x8")
    act(env, "sneak 1x8")
    st = state(env)
    assert st["pile"] == [] and st["out_of_play"] == ["8"] * 4
    # the sneaker opens the fresh pile out of turn; then play continues with the player whose turn it was
    assert st["current_player"] == 2 and st["turn"] == 1 and st["out_of_turn"]
    assert env.legal_action_names() == ["play 1x9"]
    act(env, "play 1x9")
    st = state(env)
    assert st["pile"] == ["9"] and st["current_player"] == 1 and not st["out_of_turn"]


def test_ruling_the_next_player_who_sneak_burns_opens_out_of_turn_then_takes_their_turn():
    players = [P("8 4", up="A", down="A"), P("8 5 J", up="Q", down="K"), P("9", up="Q", down="K")]
    env = og(players, pile="8 8")
    act(env, "play 1x8")
    act(env, "sneak 1x8")
    act(env, "play 1x5")  # out of turn
    st = state(env)
    assert st["current_player"] == 1 and st["phase"] == "play" and env.legal_action_names() == ["play 1xJ"]


def test_ruling_sneaks_come_from_the_hand_only():
    env = og([P("6 4", up="A", down="A"), P("", up="6 Q", down="K"), P("J", up="Q", down="K")], pile="5")
    act(env, "play 1x6")
    assert state(env)["phase"] == "play" and state(env)["current_player"] == 1


def test_ruling_a_sneak_that_empties_every_zone_wins_the_game():
    env = og([P("6 4", up="A", down="A"), P("J", up="Q", down="K"), P("6")], pile="5")
    act(env, "play 1x6")
    env.step(env.action_id("sneak 1x6"))
    st = state(env)
    assert st["phase"] == "over" and st["placing"] == [2] and env.rewards["player_2"] == 1.0


def test_ruling_a_sneak_offer_is_a_decision_of_its_own_in_the_sneak_phase_and_scenarios_round_trip():
    env = og([P("6 4", up="A", down="A"), P("J", up="Q", down="K"), P("6 9", up="Q", down="K")], pile="5")
    act(env, "play 1x6")
    st = state(env)
    again = shedders.raw_env(OG, 3)
    again.reset(seed=1, options={"scenario": st})
    assert again.state_dict() == st and again.legal_action_names() == env.legal_action_names()


def test_a_match_of_og_keeps_a_running_tally_of_wins():
    """seed 000: "keep a running tally of how many wins each person has"."""
    match = shedders.Match(OG, 3)
    rng = np.random.default_rng(0)
    for seed in range(4):
        result = match.play_game(lambda env, agent: int(rng.choice(env.legal_actions())), seed=seed)
        assert result["loser"] is None and len(result["placing"]) == 1
    assert match.wins.sum() == 4 and match.losses.sum() == 0
    assert match.tally.sum() == pytest.approx(0.0, abs=1e-5)  # +1 and -1/2, -1/2 each game


def test_ruling_the_opening_play_has_its_normal_effects():
    env = og([P("10 J", up="A", down="A"), P("Q K", up="Q", down="K")], phase="open")  # nobody holds 4..9
    assert env.legal_action_names() == ["play 1x10"]
    act(env, "play 1x10")  # a 10 opening burns: the opener starts the fresh pile
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and st["out_of_play"] == ["10"]


def test_ruling_a_sneaked_2_goes_on_top_of_the_played_2_and_the_pile_stays_reset():
    env = og([P("2 4", up="A", down="A"), P("5 J", up="Q", down="K"), P("2 9", up="Q", down="K")], pile="K")
    act(env, "play 1x2")
    act(env, "sneak 1x2")
    st = state(env)
    assert st["pile"] == ["K", "2", "2"] and st["current_player"] == 1
    assert env.legal_action_names() == ["play 1x5", "play 1xJ"]
