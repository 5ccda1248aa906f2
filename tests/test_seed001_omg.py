"""omg (seed 001): one scenario test per rule sentence, worked example and ruling, and each power's normal case and
edge cases. Cards: the default deck (shedders/data/omg_deck.csv)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import shedders


def make(hands, pile, deck=(), current=0, **extra):
    env = shedders.raw_env("omg", len(hands))
    sc = {"ruleset": "omg", "current_player": current, "phase": "play",
          "players": [{"hand": list(h)} for h in hands], "pile": list(pile), "deck": list(deck), **extra}
    env.reset(seed=0, options={"scenario": sc})
    return env


def do(env, *names):
    for name in names:
        env.step(env.action_id(name))


def hand(env, q):
    return env.state_dict()["players"][q]["hand"]


def sizes(env):
    return [len(p["hand"]) for p in env.state_dict()["players"]]


FILL = ["Artemis Fire 3", "Artemis Leaf 2", "Artemis Wave 1", "Artemis Wave 3", "Artemis Thunder 2",
        "Demeter Leaf 1",
        "Demeter Leaf 3", "Demeter Thunder 1", "Demeter Thunder 3", "Apollo Fire 3"]


# ---------------------------------------------------------------------------------------------------------------
# Prepare to Fight
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 9))
def test_shuffle_the_deck_and_give_6_cards_to_each_player(n):
    env = shedders.raw_env("omg", n)
    env.reset(seed=n)
    st = env.state_dict()
    assert sizes(env) == [6] * n
    assert len(st["pile"]) == 1 and len(st["deck"]) == 96 - 6 * n - 1
    everything = st["pile"] + st["deck"] + [c for p in st["players"] for c in p["hand"]]
    assert Counter(everything) == Counter(env.rules.deck.names())


def test_draw_the_first_card_placing_it_face_up_its_power_does_not_fire():
    # over many deals the opening card is often a power card; nobody ever holds more than 6 or is asked anything
    for seed in range(40):
        env = shedders.raw_env("omg", 4)
        env.reset(seed=seed)
        assert env.state_dict()["phase"] == "play" and sizes(env) == [6] * 4
        assert all(n.startswith("play ") for n in env.legal_action_names())


def test_the_first_player_is_drawn_at_random():
    firsts = set()
    for seed in range(60):
        env = shedders.raw_env("omg", 4)
        env.reset(seed=seed)
        firsts.add(env.state_dict()["current_player"])
    assert firsts == {0, 1, 2, 3}


# ---------------------------------------------------------------------------------------------------------------
# The Fight Is On! (the seed's worked example: Mike, Carla and John)
# ---------------------------------------------------------------------------------------------------------------
def example(john_card="Poseidon Wave 1*"):
    # seats: Mike 0, Carla 1, John 2. Top: Aphrodite red (Fire) 2.
    return make([["Hera Leaf 2", "Zeus Leaf 3"], ["Poseidon Leaf 4", "Zeus Thunder 3"],
                 [john_card, "Zeus Fire 4"]], ["Aphrodite Fire 2*"], deck=FILL)


def test_example_mike_matches_the_number_no_penalty_and_it_is_carlas_turn():
    env = example()
    do(env, "play Hera Leaf 2")
    assert sizes(env)[0] == 1 and env.state_dict()["current_player"] == 1


def test_example_carla_same_color_penalty_is_the_difference():
    env = example()
    do(env, "play Hera Leaf 2", "play Poseidon Leaf 4")
    assert sizes(env)[1] == 1 + 2  # "she draws 2 cards"
    assert hand(env, 1)[:0] == [] and env.state_dict()["current_player"] == 2


def test_example_john_matches_the_god_no_penalty_and_it_is_mikes_turn_again():
    env = example()
    do(env, "play Hera Leaf 2", "play Poseidon Leaf 4", "play Poseidon Wave 1*")
    assert sizes(env)[2] == 1  # no penalty
    # R-OMG-DECK: Poseidon's blue 1 carries Poseidon's power, which resolves before Mike's turn
    assert env.legal_action_names() == ["god Zeus"]
    do(env, "god Zeus", "stop")
    assert env.state_dict()["current_player"] == 0


def test_example_john_with_a_different_god_takes_4_different_number_and_color():
    env = example("Ares Wave 1")
    do(env, "play Hera Leaf 2", "play Poseidon Leaf 4", "play Ares Wave 1")
    # "3 from the difference of the two numbers and 1 more due to the different color"
    assert sizes(env)[2] == 1 + 4


def test_the_penalty_is_counted_against_the_card_on_top_before_the_play():
    env = make([["Zeus Fire 4", "Ares Fire 1"], ["Hera Leaf 2"]], ["Athena Fire 2"], deck=FILL)
    do(env, "play Zeus Fire 4")  # against Athena Fire 2: same color, difference 2
    assert sizes(env)[0] == 1 + 2


def test_any_card_may_be_played():
    env = make([["Zeus Fire 4", "Ares Thunder 4", "Hera Wave 1"], ["Hera Leaf 2"]], ["Athena Wave 2"], deck=FILL)
    assert len(env.legal_action_names()) == 3


def test_in_case_the_deck_is_exhausted_keep_the_last_card_and_shuffle_the_rest_into_a_new_deck():
    pile = ["Zeus Leaf 1", "Ares Fire 1", "Athena Fire 4", "Demeter Fire 4", "Hestia Fire 4", "Athena Fire 2"]
    env = make([["Zeus Wave 4", "Ares Wave 3"], ["Hera Leaf 2"]], pile, deck=["Apollo Leaf 2"])
    do(env, "play Zeus Wave 4")  # against Athena Fire 2: color differs, 2 + 1 = 3 cards; the deck holds 1
    st = env.state_dict()
    assert sizes(env)[0] == 1 + 3
    assert st["pile"] == ["Zeus Wave 4"]  # the last played card stays; the rest became the deck
    assert len(st["deck"]) == len(pile) + 1 - 3  # 6 old pile cards + the 1 deck card, minus 3 drawn... after use
    assert Counter(st["deck"] + hand(env, 0)) == Counter(pile + ["Apollo Leaf 2", "Ares Wave 3"])


def test_when_no_card_is_left_anywhere_a_draw_takes_what_there_is():
    env = make([["Zeus Wave 4", "Ares Wave 3"], ["Hera Leaf 2"]], ["Athena Fire 2"], deck=["Apollo Leaf 2"])
    do(env, "play Zeus Wave 4")  # penalty 3: the deck's card, then the old top rebuilt into a deck; then nothing
    assert sizes(env)[0] == 3 and env.state_dict()["deck"] == [] and env.state_dict()["pile"] == ["Zeus Wave 4"]


def test_the_winner_is_the_player_who_empties_the_hand_first():
    env = make([["Hera Leaf 2"], ["Zeus Leaf 3"], ["Ares Fire 3"]], ["Athena Fire 2"], deck=FILL)
    do(env, "play Hera Leaf 2")
    st = env.state_dict()
    assert st["phase"] == "over" and st["placing"] == [0] and st["current_player"] is None
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_a_penalty_on_the_last_card_means_no_win():
    env = make([["Hera Leaf 4"], ["Zeus Leaf 3"]], ["Athena Fire 2"], deck=FILL)
    do(env, "play Hera Leaf 4")  # 2 + 1
    assert env.state_dict()["phase"] == "play" and sizes(env)[0] == 3


# ---------------------------------------------------------------------------------------------------------------
# Special Powers: common rules
# ---------------------------------------------------------------------------------------------------------------
def test_a_power_is_performed_after_the_penalty():
    # Athena Leaf 1* on Zeus Fire 4: penalty 3 + 1 = 4, then discard half of the 5 cards left: 2
    env = make([["Athena Leaf 1*", "Ares Fire 3"], ["Hera Leaf 2"]], ["Zeus Fire 4"], deck=FILL)
    do(env, "play Athena Leaf 1*")
    assert sizes(env)[0] == 5 and env.state_dict()["left"] == 2


def test_a_card_discarded_by_a_power_does_not_apply_its_ability():
    env = make([["Hephaestus Leaf 2*", "Zeus Wave 2*", "Ares Fire 3"], ["Hera Leaf 2"]], ["Athena Fire 2"],
               deck=FILL)
    do(env, "play Hephaestus Leaf 2*", "discard Zeus Wave 2*")
    st = env.state_dict()
    assert st["phase"] == "play" and st["current_player"] == 1 and sizes(env) == [1, 1]  # Zeus did not fire


def test_discarded_cards_go_face_up_on_top_and_the_next_player_matches_the_top():
    env = make([["Artemis Leaf 4*", "Zeus Fire 4", "Ares Leaf 4", "Hera Wave 1"], ["Zeus Leaf 1", "Hera Leaf 2"]],
               ["Athena Wave 4"], deck=FILL)
    do(env, "play Artemis Leaf 4*", "number 4", "discard Zeus Fire 4", "discard Ares Leaf 4")
    # in the order chosen
    assert env.state_dict()["pile"][-3:] == ["Artemis Leaf 4*", "Zeus Fire 4", "Ares Leaf 4"]
    do(env, "play Zeus Leaf 1")  # matches the top Ares Leaf 4? no: penalty 3 (same color)
    assert sizes(env)[1] == 1 + 3


def test_a_choice_with_nothing_to_choose_from_does_nothing():
    # Artemis with an empty hand after the play: no choice is asked; the player wins
    env = make([["Artemis Leaf 4*"], ["Hera Leaf 2"]], ["Athena Wave 4"], deck=FILL)
    do(env, "play Artemis Leaf 4*")
    assert env.state_dict()["phase"] == "over" and env.state_dict()["placing"] == [0]


# ---------------------------------------------------------------------------------------------------------------
# The twelve powers
# ---------------------------------------------------------------------------------------------------------------
def test_zeus_the_chosen_player_draws_2():
    env = make([["Zeus Fire 2*", "Ares Fire 3"], ["Hera Leaf 2"], ["Hera Leaf 4"]], ["Athena Fire 2"], deck=FILL)
    do(env, "play Zeus Fire 2*")
    assert env.legal_action_names() == ["target +1", "target +2"]
    do(env, "target +2")
    assert sizes(env) == [1, 1, 3] and env.state_dict()["current_player"] == 1


def test_zeus_with_an_empty_deck_rebuilds_it_and_with_nothing_anywhere_gives_what_there_is():
    env = make([["Zeus Fire 2*", "Ares Fire 3"], ["Hera Leaf 2"]], ["Athena Leaf 3", "Athena Fire 2"])
    do(env, "play Zeus Fire 2*", "target +1")  # the pile under the top: Athena Leaf 3, Athena Fire 2 (2 cards)
    assert sizes(env)[1] == 3 and env.state_dict()["pile"] == ["Zeus Fire 2*"]
    env = make([["Zeus Fire 2*", "Ares Fire 3"], ["Hera Leaf 2"]], ["Athena Fire 2"])
    do(env, "play Zeus Fire 2*", "target +1")
    assert sizes(env)[1] == 2  # nothing left anywhere but the pile's top


def test_zeus_emptying_the_hand_still_chooses_and_then_wins():
    env = make([["Zeus Fire 2*"], ["Hera Leaf 2"]], ["Athena Fire 2"], deck=FILL)
    do(env, "play Zeus Fire 2*")
    assert env.legal_action_names() == ["target +1"]  # a choice with one option is still a decision
    do(env, "target +1")
    assert sizes(env)[1] == 3 and env.state_dict()["placing"] == [0]


def test_ares_each_other_player_draws_1_clockwise_from_the_left():
    env = make([["Ares Leaf 2*", "Zeus Leaf 3"], ["Hera Leaf 2"], ["Hera Leaf 4"], ["Hera Thunder 4"]],
               ["Athena Fire 2"], deck=["Zeus Thunder 1", "Zeus Thunder 3", "Zeus Wave 4"])
    do(env, "play Ares Leaf 2*")  # automatic: no decision
    assert sizes(env) == [1, 2, 2, 2]
    assert hand(env, 1)[-1:] != [] and "Zeus Thunder 1" in hand(env, 1) and "Zeus Wave 4" in hand(env, 3)
    assert env.state_dict()["current_player"] == 1


def test_ares_with_too_few_cards_deals_what_there_is_in_order():
    env = make([["Ares Leaf 2*", "Zeus Leaf 3"], ["Hera Leaf 2"], ["Hera Leaf 4"], ["Hera Thunder 4"]],
               ["Athena Fire 2"], deck=["Zeus Thunder 1"])
    do(env, "play Ares Leaf 2*")
    # one card in the deck (to the left), then the pile under the top (Athena Fire 2) rebuilt for the next
    assert sizes(env) == [1, 2, 2, 1]


def test_athena_discards_half_of_the_hand_rounded_down_not_optional():
    env = make([["Athena Leaf 1*"] + FILL[:5], ["Hera Leaf 2"]], ["Athena Thunder 3"], deck=FILL[5:])
    do(env, "play Athena Leaf 1*")  # same god: no penalty; 5 cards left: discard 2
    assert "stop" not in env.legal_action_names() and len(env.legal_action_names()) == 5
    do(env, f"discard {FILL[0]}")
    assert env.state_dict()["left"] == 1
    do(env, f"discard {FILL[1]}")
    assert sizes(env)[0] == 3 and env.state_dict()["current_player"] == 1


def test_athena_with_one_card_left_discards_nothing():
    env = make([["Athena Leaf 1*", "Zeus Leaf 3"], ["Hera Leaf 2"]], ["Athena Thunder 3"], deck=FILL)
    do(env, "play Athena Leaf 1*")
    assert sizes(env)[0] == 1 and env.state_dict()["current_player"] == 1


def test_artemis_choose_a_number_discard_up_to_2_with_it():
    env = make([["Artemis Leaf 4*", "Zeus Leaf 3", "Ares Fire 3", "Hera Leaf 4", "Athena Leaf 3"],
                ["Hera Leaf 2"]], ["Artemis Fire 1"], deck=FILL)
    do(env, "play Artemis Leaf 4*")
    assert env.legal_action_names() == ["number 3", "number 4"]  # only numbers found in the hand
    do(env, "number 3")
    assert "stop" in env.legal_action_names()  # stop is offered before the first discard
    assert sorted(env.legal_action_names()) == ["discard Ares Fire 3", "discard Athena Leaf 3",
                                                 "discard Zeus Leaf 3", "stop"]
    do(env, "discard Zeus Leaf 3", "discard Ares Fire 3")  # ends by itself after 2
    assert sizes(env)[0] == 2 and env.state_dict()["current_player"] == 1


def test_artemis_stop_after_one_and_ends_when_nothing_matches():
    env = make([["Artemis Leaf 4*", "Zeus Leaf 3", "Ares Fire 3", "Hera Leaf 4"], ["Hera Leaf 2"]],
               ["Artemis Fire 1"], deck=FILL)
    do(env, "play Artemis Leaf 4*", "number 3", "discard Zeus Leaf 3", "stop")
    assert sizes(env)[0] == 2
    env = make([["Artemis Leaf 4*", "Zeus Leaf 3", "Hera Leaf 4"], ["Hera Leaf 2"]], ["Artemis Fire 1"], deck=FILL)
    do(env, "play Artemis Leaf 4*", "number 3", "discard Zeus Leaf 3")  # nothing else numbered 3: the power ends
    assert env.state_dict()["current_player"] == 1


def test_demeter_choose_a_color_discard_up_to_2_with_it():
    env = make([["Demeter Fire 2*", "Zeus Leaf 3", "Ares Fire 3", "Hera Leaf 4"], ["Hera Leaf 2"]],
               ["Demeter Wave 4"], deck=FILL)
    do(env, "play Demeter Fire 2*")
    assert env.legal_action_names() == ["color Fire", "color Leaf"]
    do(env, "color Leaf", "discard Hera Leaf 4", "discard Zeus Leaf 3")
    assert hand(env, 0) == ["Ares Fire 3"]


def test_demeter_can_stop_before_the_first_discard():
    env = make([["Demeter Fire 2*", "Zeus Leaf 3"], ["Hera Leaf 2"]], ["Demeter Wave 4"], deck=FILL)
    do(env, "play Demeter Fire 2*", "color Leaf", "stop")
    assert hand(env, 0) == ["Zeus Leaf 3"] and env.state_dict()["current_player"] == 1


def test_poseidon_choose_a_god_discard_up_to_2_with_it():
    env = make([["Poseidon Fire 1*", "Zeus Leaf 3", "Zeus Thunder 1", "Zeus Fire 4", "Hera Leaf 2"],
                ["Hera Leaf 4"]], ["Poseidon Wave 3"], deck=FILL)
    do(env, "play Poseidon Fire 1*")
    assert env.legal_action_names() == ["god Zeus", "god Hera"]
    do(env, "god Zeus", "discard Zeus Thunder 1", "discard Zeus Fire 4")
    assert sorted(hand(env, 0)) == ["Hera Leaf 2", "Zeus Leaf 3"]


def test_apollo_reveals_the_top_card_choose_one_attribute_discard_up_to_2_matching():
    deck = ["Hera Leaf 4", "Zeus Leaf 3"]  # next card first: Hera Leaf 4 is revealed
    env = make([["Apollo Fire 1*", "Zeus Fire 4", "Ares Leaf 2*", "Hermes Wave 2"], ["Hera Leaf 2"]],
               ["Apollo Thunder 2"], deck=deck)
    do(env, "play Apollo Fire 1*")
    st = env.state_dict()
    assert st["revealed"] == "Hera Leaf 4" and st["deck"][0] == "Hera Leaf 4"  # revealed to all, stays on the deck
    assert env.legal_action_names() == ["attribute number", "attribute color"]  # no Hera in the hand
    do(env, "attribute number", "discard Zeus Fire 4")
    assert env.state_dict()["current_player"] == 1  # no other 4 in the hand: the power ends by itself
    assert env.state_dict()["revealed"] == "Hera Leaf 4"  # still the deck's top, still revealed


def test_apollo_one_attribute_only_not_one_card_by_color_and_one_by_number():
    env = make([["Apollo Fire 1*", "Zeus Leaf 1", "Ares Leaf 2*", "Hermes Wave 4"], ["Hera Leaf 2"]],
               ["Apollo Thunder 2"], deck=["Hera Leaf 4", "Zeus Leaf 3"])
    do(env, "play Apollo Fire 1*", "attribute color")
    assert sorted(env.legal_action_names()) == ["discard Ares Leaf 2*", "discard Zeus Leaf 1", "stop"]
    do(env, "discard Zeus Leaf 1")
    assert "discard Hermes Wave 4" not in env.legal_action_names()  # a 4, but color was chosen


def test_apollo_the_revealed_card_stops_being_revealed_when_drawn():
    env = make([["Apollo Fire 1*", "Zeus Leaf 1"], ["Hera Leaf 2", "Zeus Thunder 3"]], ["Apollo Thunder 2"],
               deck=["Hera Leaf 4", "Zeus Leaf 3"])
    do(env, "play Apollo Fire 1*", "attribute color", "stop")
    assert env.state_dict()["revealed"] == "Hera Leaf 4"
    do(env, "play Zeus Thunder 3")  # penalty 1: player_1 draws the revealed card
    assert env.state_dict()["revealed"] is None and "Hera Leaf 4" in hand(env, 1)


def test_apollo_with_nothing_matching_ends_after_the_reveal():
    env = make([["Apollo Fire 1*", "Zeus Thunder 3"], ["Hera Leaf 2"]], ["Apollo Thunder 2"],
               deck=["Hera Leaf 4", "Ares Leaf 2*"])
    do(env, "play Apollo Fire 1*")
    st = env.state_dict()
    assert st["current_player"] == 1 and st["revealed"] == "Hera Leaf 4"


def test_apollo_with_an_empty_deck_rebuilds_it_first():
    # (a card is always left to reveal: the card Apollo was played on goes under it, so the rebuilt deck holds it)
    env = make([["Apollo Fire 1*", "Zeus Fire 4"], ["Hera Leaf 2"]], ["Zeus Wave 4", "Apollo Thunder 2"])
    do(env, "play Apollo Fire 1*")
    st = env.state_dict()
    assert st["pile"] == ["Apollo Fire 1*"] and st["revealed"] in ("Apollo Thunder 2", "Zeus Wave 4")
    assert st["revealed"] == st["deck"][0]


def test_aphrodite_the_chosen_player_skips_the_next_turn():
    env = make([["Aphrodite Fire 2*", "Zeus Leaf 3"], ["Hera Leaf 2"], ["Hera Thunder 2", "Ares Fire 1"]],
               ["Athena Fire 2"], deck=FILL)
    do(env, "play Aphrodite Fire 2*", "target +1")
    st = env.state_dict()
    assert st["current_player"] == 2 and st["players"][1]["skip_next"] is False  # the lost turn passed by itself
    do(env, "play Hera Thunder 2")
    assert env.state_dict()["current_player"] == 0
    do(env, "play Zeus Leaf 3")  # penalty; then player_1 plays as normal
    assert env.state_dict()["current_player"] == 1


def test_aphrodite_target_keeps_receiving_cards_and_the_lost_turn_does_not_stack():
    env = make([["Aphrodite Fire 2*", "Zeus Fire 2*", "Aphrodite Thunder 3"], ["Hera Leaf 2"], ["Hera Thunder 2"]],
               ["Athena Fire 2"], deck=FILL, current=0)
    env.reset(seed=0, options={"scenario": {**env.state_dict(), "players": [
        {"hand": ["Aphrodite Fire 2*", "Zeus Fire 2*", "Aphrodite Thunder 3"]},
        {"hand": ["Hera Leaf 2"], "skip_next": True},
        {"hand": ["Hera Thunder 2", "Ares Thunder 4"]}]}})
    do(env, "play Aphrodite Fire 2*", "target +1")  # already skipping: does not stack
    assert env.state_dict()["current_player"] == 2
    do(env, "play Hera Thunder 2")
    assert env.state_dict()["current_player"] == 0
    do(env, "play Zeus Fire 2*", "target +1")
    assert sizes(env)[1] == 3 and env.state_dict()["current_player"] == 1  # received cards; plays this time


def test_aphrodite_with_two_players_the_aphrodite_player_plays_again():
    env = make([["Aphrodite Fire 2*", "Zeus Leaf 3"], ["Hera Leaf 2"]], ["Athena Fire 2"], deck=FILL)
    do(env, "play Aphrodite Fire 2*", "target +1")
    assert env.state_dict()["current_player"] == 0


def test_hephaestus_discard_a_card_not_optional():
    env = make([["Hephaestus Leaf 2*", "Zeus Leaf 3", "Ares Fire 3"], ["Hera Leaf 2"]], ["Athena Fire 2"],
               deck=FILL)
    do(env, "play Hephaestus Leaf 2*")
    assert sorted(env.legal_action_names()) == ["discard Ares Fire 3", "discard Zeus Leaf 3"]
    do(env, "discard Ares Fire 3")
    assert hand(env, 0) == ["Zeus Leaf 3"] and env.state_dict()["pile"][-1] == "Ares Fire 3"


def test_hephaestus_with_an_empty_hand_discards_nothing_and_wins():
    env = make([["Hephaestus Leaf 2*"], ["Hera Leaf 2"]], ["Athena Fire 2"], deck=FILL)
    do(env, "play Hephaestus Leaf 2*")
    assert env.state_dict()["placing"] == [0]


def test_hestia_no_penalty_when_playing_this_card():
    env = make([["Hestia Leaf 1*", "Zeus Leaf 3"], ["Hera Leaf 2"]], ["Ares Thunder 4"], deck=FILL)
    do(env, "play Hestia Leaf 1*")  # would be 3 + 1
    assert sizes(env)[0] == 1 and env.state_dict()["current_player"] == 1


def test_hestia_as_the_last_card_wins_without_penalty():
    env = make([["Hestia Thunder 1*"], ["Hera Leaf 2"]], ["Ares Thunder 4"], deck=FILL)
    do(env, "play Hestia Thunder 1*")
    assert env.state_dict()["placing"] == [0]


def test_hera_distributes_the_penalty_one_card_at_a_time_then_draws_1():
    deck = ["Zeus Thunder 1", "Zeus Thunder 3", "Zeus Wave 4", "Ares Wave 1"]
    env = make([["Hera Fire 3*", "Aphrodite Thunder 3"], ["Hera Leaf 2"], ["Hera Thunder 2"]],
               ["Aphrodite Leaf 1"], deck=deck)
    do(env, "play Hera Fire 3*")  # penalty 2 + 1 = 3
    assert env.state_dict()["phase"] == "give" and env.state_dict()["left"] == 3
    assert env.legal_action_names() == ["give +1", "give +2"]
    do(env, "give +1", "give +2", "give +1")
    assert Counter(hand(env, 1)) == Counter(["Hera Leaf 2", "Zeus Thunder 1", "Zeus Wave 4"])
    assert Counter(hand(env, 2)) == Counter(["Hera Thunder 2", "Zeus Thunder 3"])
    assert Counter(hand(env, 0)) == Counter(["Aphrodite Thunder 3", "Ares Wave 1"])  # then she draws 1 herself


def test_hera_with_zero_penalty_just_draws_1():
    env = make([["Hera Fire 3*", "Aphrodite Thunder 3"], ["Hera Leaf 2"]], ["Hera Thunder 4"], deck=FILL)
    do(env, "play Hera Fire 3*")  # same god: no penalty, no decision
    assert sizes(env) == [2, 1] and env.state_dict()["current_player"] == 1


def test_hera_when_no_card_is_left_the_rest_are_dropped():
    env = make([["Hera Fire 3*", "Aphrodite Thunder 3"], ["Hera Leaf 2"]], ["Aphrodite Leaf 1"],
               deck=["Zeus Thunder 1"])
    # 3 to deal; 2 cards anywhere: the deck's, then the old top rebuilt into a deck; the third is dropped, and
    # Hera's own draw finds nothing
    do(env, "play Hera Fire 3*", "give +1", "give +1")
    assert sizes(env) == [1, 3] and env.state_dict()["current_player"] == 1


def test_hera_emptying_the_hand_still_deals_and_draws_so_no_win():
    env = make([["Hera Fire 3*"], ["Hera Leaf 2"]], ["Aphrodite Leaf 1"], deck=FILL)
    do(env, "play Hera Fire 3*", "give +1", "give +1", "give +1")
    assert sizes(env) == [1, 4] and env.state_dict()["phase"] == "play"


def test_hermes_copies_the_last_special_power_played():
    env = make([["Hermes Leaf 3*", "Aphrodite Thunder 3"], ["Hera Leaf 2"], ["Hera Thunder 2"]],
               ["Zeus Fire 2*", "Athena Leaf 3"], deck=FILL)
    do(env, "play Hermes Leaf 3*")  # nearest power below: Zeus (Athena Leaf 3 is plain)
    assert env.state_dict()["power"] == "Zeus" and env.legal_action_names() == ["target +1", "target +2"]


def test_hermes_skips_hermes_cards_and_counts_discarded_and_opening_cards():
    env = make([["Hermes Thunder 3*", "Aphrodite Thunder 3", "Zeus Leaf 3"], ["Hera Leaf 2"]],
               ["Aphrodite Wave 2*", "Hermes Leaf 3*"], deck=FILL)
    do(env, "play Hermes Thunder 3*")
    assert env.state_dict()["power"] == "Aphrodite"


def test_hermes_with_no_power_below_has_no_effect():
    env = make([["Hermes Leaf 3*", "Aphrodite Thunder 3"], ["Hera Leaf 2"]], ["Zeus Leaf 1", "Athena Leaf 3"],
               deck=FILL)
    do(env, "play Hermes Leaf 3*")
    assert env.state_dict()["current_player"] == 1 and sizes(env) == [1, 1]


def test_hermes_copying_hestia_takes_no_penalty():
    env = make([["Hermes Thunder 3*", "Aphrodite Thunder 3"], ["Hera Leaf 2"]], ["Hestia Leaf 1*", "Zeus Leaf 1"],
               deck=FILL)
    do(env, "play Hermes Thunder 3*")  # against Zeus Fire 1: would be 2 + 1
    assert sizes(env) == [1, 1]


def test_hermes_copying_hera_deals_the_hermes_cards_own_penalty():
    env = make([["Hermes Thunder 3*", "Aphrodite Thunder 3"], ["Hera Leaf 2"], ["Zeus Leaf 3"]],
               ["Hera Wave 3*", "Zeus Thunder 1"], deck=FILL)
    do(env, "play Hermes Thunder 3*")  # against Zeus Thunder 1: same color, 2
    assert env.state_dict()["phase"] == "give" and env.state_dict()["left"] == 2
    do(env, "give +1", "give +2")
    assert sizes(env) == [2, 2, 2]


def test_hermes_as_a_plain_card_copies_nothing():
    env = make([["Hermes Fire 2", "Aphrodite Thunder 3"], ["Hera Leaf 2"]], ["Zeus Fire 2*"], deck=FILL)
    do(env, "play Hermes Fire 2")  # matches the number; a plain Hermes has no power to copy with
    assert env.state_dict()["current_player"] == 1


# ---------------------------------------------------------------------------------------------------------------
# Scenarios, errors, the deck file
# ---------------------------------------------------------------------------------------------------------------
def test_a_power_in_progress_round_trips_through_state_dict():
    env = make([["Artemis Leaf 4*", "Zeus Leaf 3", "Ares Fire 3", "Hera Leaf 4"], ["Hera Leaf 2"]],
               ["Artemis Fire 1"], deck=FILL)
    do(env, "play Artemis Leaf 4*", "number 3", "discard Zeus Leaf 3")
    st = env.state_dict()
    assert st["phase"] == "discard" and st["chosen"] == {"number": 3} and st["left"] == 1
    env2 = shedders.raw_env("omg", 2)
    env2.reset(seed=0, options={"scenario": st})
    assert env2.state_dict() == st and env2.legal_action_names() == env.legal_action_names()


@pytest.mark.parametrize("change,match", [
    ({"pile": []}, "top card"),
    ({"pile": ["Zeus Fire 9"]}, "unknown card"),
    ({"pile": ["Zeus Fire 2*", "Zeus Fire 2*"]}, "copies"),
    ({"phase": "dance"}, "unknown phase"),
    ({"phase": "target"}, "needs 'power'"),
    ({"phase": "target", "power": "Hera"}, "Zeus or Aphrodite"),
    ({"ruleset": "core"}, "does not match"),
    ({"revealed": "Zeus Leaf 3"}, "deck's top"),
    ({"current_player": 5}, "current_player"),
])
def test_a_malformed_omg_scenario_is_refused(change, match):
    env = shedders.raw_env("omg", 2)
    sc = {"ruleset": "omg", "current_player": 0, "phase": "play",
          "players": [{"hand": ["Hera Leaf 2"]}, {"hand": ["Aphrodite Thunder 3"]}], "pile": ["Zeus Leaf 1"],
          "deck": [],
          **change}
    with pytest.raises(ValueError, match=match):
        env.reset(options={"scenario": sc})


@pytest.mark.parametrize("text,match", [
    ("god,color,number\nZeus,Fire,2\n", "header"),
    ("god,color,number,power\nZews,Fire,2,1\n", "unknown god 'Zews'"),
    ("god,color,number,power\nZeus,Pink,2,1\n", "unknown color 'Pink'"),
    ("god,color,number,power\nZeus,Fire,x,1\n", "number must be"),
    ("god,color,number,power\nZeus,Fire,2,yes\n", "power must be 0 or 1"),
    ("god,color,number,power\nZeus,Fire,2,1\n", "at least 13"),
    ("", "empty"),
])
def test_a_malformed_deck_file_is_refused_naming_the_line(text, match, tmp_path):
    path = tmp_path / "deck.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        shedders.env("omg", 2, deck=str(path))


def test_another_deck_file_plays(tmp_path):
    rows = ["god,color,number,power"] + [f"{g},{c},{n},{int(n == 1)}" for g in ("Zeus", "Hera", "Hestia")
                                          for c in ("Fire", "Leaf") for n in (1, 2, 3)]
    path = tmp_path / "small.csv"
    path.write_text("\n".join(rows) + "\n")
    env = shedders.env("omg", 2, deck=str(path))
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.rules.deck.num_cards == 18
    with pytest.raises(ValueError, match="need 25 cards"):
        shedders.env("omg", 4, deck=str(path))


def test_poseidon_and_demeter_with_an_empty_hand_ask_nothing():
    for card in ("Poseidon Fire 1*", "Demeter Fire 2*"):
        env = make([[card], ["Hera Leaf 2"]], ["Zeus Leaf 1"] if card.startswith("Poseidon") else ["Zeus Fire 2*"],
                    deck=FILL)
        do(env, f"play {card}")
        assert env.state_dict()["placing"] == [0]  # nothing to choose from: no decision, and the empty hand wins


def test_poseidon_ends_by_itself_when_no_card_of_the_god_is_left():
    env = make([["Poseidon Fire 1*", "Zeus Leaf 3", "Hera Leaf 2"], ["Hera Leaf 4"]], ["Poseidon Wave 3"],
               deck=FILL)
    do(env, "play Poseidon Fire 1*", "god Zeus", "discard Zeus Leaf 3")
    assert env.state_dict()["current_player"] == 1 and hand(env, 0) == ["Hera Leaf 2"]
