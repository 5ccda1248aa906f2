"""Seed 002, "Fatality": forced play, wild 2s, 3s and named Jokers, 7 caps, 8 skips, 10 burns, four or more burn,
the starred tabletop rules behind toggles, finishing-position scoring and the fatality; and the rulings for it
(docs/rulings.md).
Each test is named after the sentence (or ruling) it checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import P, act, cards, hand, make, state

import shedders

FAT = "fatality"


def fat(players, **kw):
    return make(FAT, players=players, **kw)


def fill(n):
    """Seats that hold nothing the tests play, with face-up and face-down cards so nobody goes out."""
    return [P("45"[i % 2], up="6K"[i % 2], down="QJ"[i // 2]) for i in range(n)]


# ---------------------------------------------------------------- Setup ----------------------------------------
def test_each_player_receives_3_face_down_3_face_up_and_3_in_hand_from_54_cards_with_2_jokers():
    env = shedders.raw_env(FAT, 6)
    assert env.rules.num_cards == 54 and env.rules.num_jokers == 2
    env.reset(seed=5)
    st = state(env)
    for p in st["players"]:
        assert (len(p["face_down"]), len(p["face_up"]), len(p["hand"])) == (3, 3, 3)
    assert st["deck"] == [] and st["pile"] == []  # "The game starts with an empty discard pile"


def test_ruling_2_to_6_players():
    for n in range(2, 7):
        shedders.raw_env(FAT, n)
    for n in (1, 7):
        with pytest.raises(ValueError, match="allowed: 2..6"):
            shedders.raw_env(FAT, n)


def test_players_can_exchange_hand_and_face_up_cards_before_the_first_turn_starred():
    env = fat([P("9 4 5", up="K A 10"), P("6 6 6", up="8 8 8")], phase="setup")
    assert "swap 4 for A" in env.legal_action_names() and "ready" in env.legal_action_names()
    env = shedders.raw_env(FAT, 3, rules={"swap_phase": False})
    env.reset(seed=0)
    assert state(env)["phase"] == "play"


def test_players_take_turns_clockwise_starting_with_a_randomly_determined_player():
    starters = []
    for seed in range(60):
        env = shedders.raw_env(FAT, 4, rules={"swap_phase": False})
        env.reset(seed=seed)
        starters.append(state(env)["current_player"])
        env.reset(seed=seed)
        assert state(env)["current_player"] == starters[-1]  # drawn from the game's own seeded stream
    assert set(starters) == {0, 1, 2, 3}
    env = fat([P("9 J"), P("Q"), P("K")], pile="5")
    act(env, "play 1x9")
    assert state(env)["current_player"] == 1


# ---------------------------------------------------------------- Game flow ------------------------------------
def test_on_your_turn_you_must_play_at_least_one_card_pickup_only_when_nothing_is_legal():
    env = fat([P("9 4", up="6", down="6")] + fill(1), pile="8")
    assert env.legal_action_names() == ["play 1x9"]


def test_if_you_cannot_play_you_must_pick_up_the_entire_discard_pile_and_the_turn_ends():
    env = fat([P("4 5", up="6", down="6"), P("9", up="6", down="6")], pile="8 K")
    assert env.legal_action_names() == ["pickup"]
    act(env, "pickup")
    st = state(env)
    assert hand(env, 0) == cards("4 5 8 K") and st["pile"] == [] and st["current_player"] == 1


def test_without_hand_cards_you_can_also_pick_up_face_up_cards_of_the_same_rank_starred():
    env = fat([P("", up="4 4 5", down="6"), P("9", up="6", down="7")], pile="8 K")
    assert env.legal_action_names() == ["pickup", "pickup with 4", "pickup with 5"]
    act(env, "pickup with 4")
    st = state(env)
    assert hand(env, 0) == cards("4 4 8 K") and st["players"][0]["face_up"] == ["5"] and st["current_player"] == 1
    assert cards(" ".join(st["players"][0]["known"])) == cards("4 4 8 K")
    env = fat([P("", up="4 4 5", down="6"), P("9", up="6", down="7")], pile="8 K", rules={"pickup_with_up": False})
    assert env.legal_action_names() == ["pickup"]


def test_as_long_as_the_draw_pile_is_not_empty_draw_to_at_least_3_cards_in_hand():
    env = fat([P("9 4", up="6", down="6")] + fill(1), pile="8", deck="5 7 K")
    act(env, "play 1x9")
    assert hand(env, 0) == cards("4 5 7") and state(env)["deck"] == ["K"]


# ---------------------------------------------------------------- Card playing rules ---------------------------
def test_play_hand_cards_first_then_face_up_then_face_down():
    env = fat([P("9", up="K", down="A")] + fill(1), pile="8")
    assert env.legal_action_names() == ["play 1x9"]
    env = fat([P("", up="K", down="A")] + fill(1), pile="8")
    assert env.legal_action_names() == ["play 1xK"]
    env = fat([P("", down="A 5")] + fill(1), pile="8")
    assert env.legal_action_names() == ["flip"]


def test_cards_played_must_be_of_equal_or_higher_rank_several_of_the_same_rank_at_once():
    env = fat([P("5 8 8 9", up="6", down="6")] + fill(1), pile="8")
    assert env.legal_action_names() == ["play 1x8", "play 2x8", "play 1x9"]


def test_when_playing_from_face_down_a_card_that_cannot_be_played_takes_the_pile():
    env = fat([P("", down="5 A"), P("9", up="6", down="7")], pile="8")
    act(env, "flip")
    st = state(env)
    assert hand(env, 0) == cards("5 8") and st["pile"] == [] and st["current_player"] == 1


# ---------------------------------------------------------------- Special cards --------------------------------
def test_2s_and_3s_can_be_played_on_any_card():
    env = fat([P("2 3 4", up="6", down="6")] + fill(1), pile="A")
    assert env.legal_action_names() == ["play 1x2", "play 1x3"]


def test_7s_the_next_player_must_play_a_7_or_lower_wilds_allowed():
    env = fat([P("7 4", up="6", down="6"), P("2 3 5 7 8 10 JOKER", up="6", down="6")], pile="5")
    act(env, "play 1x7")
    names = set(env.legal_action_names())
    assert {"play 1x2", "play 1x3", "play 1x5", "play 1x7", "play 1xJOKER as 9"} <= names
    assert "play 1x8" not in names and "play 1x10" not in names  # a 10 must beat the top like any rank


def test_8s_skip_the_next_player_and_several_8s_skip_several_players():
    for k, nxt in ((1, 2), (2, 3), (3, 4)):
        env = fat([P("8 8 8 4", up="6", down="6")] + fill(4), pile="5")
        act(env, f"play {k}x8")
        assert state(env)["current_player"] == nxt, k


def test_ruling_skips_count_players_still_in_and_may_come_round_to_the_player():
    env = fat([P("8 8 8 4", up="6", down="6")] + fill(1), pile="5")
    act(env, "play 3x8")  # k eights skip k players, no cap: with two players it comes round
    assert state(env)["current_player"] == 0
    env = fat([P("8 8 4", up="6", down="6")] + fill(1), pile="5")
    act(env, "play 2x8")
    assert state(env)["current_player"] == 1


def test_10s_burn_the_pile_and_the_player_who_played_plays_again():
    env = fat([P("10 4", up="6", down="6")] + fill(1), pile="5 9")
    act(env, "play 1x10")
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and cards(" ".join(st["out_of_play"])) == cards("5 9 10")


def test_ruling_a_10_must_beat_the_top_like_any_rank():
    env = fat([P("10 4", up="6", down="6")] + fill(1), pile="J")
    assert env.legal_action_names() == ["pickup"]


def test_jokers_are_wild_cards_that_can_be_assigned_any_rank():
    env = fat([P("JOKER JOKER 4", up="6", down="6")] + fill(1), pile="A")
    names = env.legal_action_names()
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert names == [f"play {k}xJOKER as {r}" for r in ranks for k in (1, 2)]


def test_ruling_jokers_are_played_on_their_own_never_mixed_with_natural_cards():
    env = fat([P("JOKER 9 9", up="6", down="6")] + fill(1), pile="8")
    names = env.legal_action_names()
    assert "play 1xJOKER" not in names and not any("JOKER" in n and "9" in n.split(" as ")[0] for n in names)
    assert "play 2xJOKER as 9" not in names  # only one Joker in hand


def test_ruling_a_joker_named_10_on_a_j_burns():
    env = fat([P("JOKER 4", up="6", down="6")] + fill(1), pile="J")
    act(env, "play 1xJOKER as 10")
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0 and "JOKER" in st["out_of_play"]


def test_ruling_a_joker_named_7_caps_the_next_play_and_shows_as_joker_7_on_the_pile():
    env = fat([P("JOKER 4", up="6", down="6"), P("8 5", up="6", down="6")], pile="J")
    act(env, "play 1xJOKER as 7")
    assert state(env)["pile"] == ["J", "JOKER:7"] and env.legal_action_names() == ["play 1x5"]


def test_ruling_named_jokers_count_towards_four_of_a_rank():
    env = fat([P("JOKER JOKER 4", up="6", down="6")] + fill(1), pile="9 9")
    act(env, "play 2xJOKER as 9")
    assert state(env)["pile"] == [] and state(env)["current_player"] == 0


def test_ruling_a_joker_flipped_blind_never_fails_its_player_names_its_rank():
    env = fat([P("", down="JOKER 5"), P("9", up="6", down="7")], pile="A")
    act(env, "flip")
    st = state(env)
    assert st["phase"] == "name" and st["current_player"] == 0 and len(env.legal_action_names()) == 13
    act(env, "play 1xJOKER as 8")  # a skip: with two players it comes round
    st = state(env)
    assert st["pile"] == ["A", "JOKER:8"] and st["current_player"] == 0 and st["phase"] == "play"


def test_four_or_more_cards_of_the_same_rank_in_a_row_clear_the_pile_and_the_player_plays_again():
    env = fat([P("5 5 4", up="6", down="6")] + fill(1), pile="5 5")
    act(env, "play 2x5")
    assert state(env)["pile"] == [] and state(env)["current_player"] == 0


def test_face_up_cards_join_hand_cards_only_when_all_hand_cards_of_that_rank_are_played_together():
    env = fat([P("9 9", up="9 K", down="6"), P("4", up="6", down="7")], pile="8")
    names = env.legal_action_names()
    assert "play 2x9 +1up" in names and "play 1x9 +1up" not in names
    act(env, "play 2x9 +1up")
    st = state(env)
    assert st["pile"] == ["8", "9", "9", "9"] and st["players"][0]["face_up"] == ["K"] and hand(env, 0) == []
    # not while other hand cards remain, nor while the draw pile lasts, nor with the toggle off
    env = fat([P("9 9 4", up="9", down="6")] + fill(1), pile="8")
    assert not any("up" in n for n in env.legal_action_names())
    env = fat([P("9 9", up="9", down="6")] + fill(1), pile="8", deck="5")
    assert not any("up" in n for n in env.legal_action_names())
    env = fat([P("9 9", up="9", down="6")] + fill(1), pile="8", rules={"up_with_hand": False})
    assert not any("up" in n for n in env.legal_action_names())


def test_a_hand_of_only_3s_is_played_at_once_inheriting_the_rank_of_the_last_card_played():
    env = fat([P("3 3", up="9 K", down="6"), P("4", up="6", down="7")], pile="8 9")
    names = env.legal_action_names()
    assert "play 2x3 as 9" in names and "play 2x3 as 9 +1up" in names and "play 1x3 as 9" not in names
    act(env, "play 2x3 as 9 +1up")
    st = state(env)
    assert st["pile"] == [] and st["current_player"] == 0  # 9 + two 3s as 9 + a face-up 9: four 9s burn
    assert sorted(st["out_of_play"]) == sorted(["8", "9", "9", "3", "3"])


def test_ruling_3s_played_as_a_rank_are_that_rank_in_every_respect():
    env = fat([P("3", up="K", down="6")] + fill(4), pile="8")
    act(env, "play 1x3 as 8")
    assert state(env)["current_player"] == 2 and state(env)["pile"] == ["8", "3:8"]  # a skip


def test_ruling_a_hand_of_3s_on_an_empty_pile_is_just_3s_and_the_rule_needs_an_empty_draw_pile():
    env = fat([P("3 3", up="K", down="6")] + fill(1))
    assert not any(" as " in n for n in env.legal_action_names())
    env = fat([P("3 3", up="K", down="6")] + fill(1), pile="9", deck="5")
    assert not any(" as " in n for n in env.legal_action_names())
    env = fat([P("3 3", up="K", down="6")] + fill(1), pile="9", rules={"threes_as_top": False})
    assert not any(" as " in n for n in env.legal_action_names())


# ---------------------------------------------------------------- Scoring and fatalities -----------------------
def test_each_player_gets_a_point_per_finishing_position_reward_from_plus_1_down_to_minus_1():
    players = [P("9"), P("J"), P("Q", up="K"), P("4", up="5", down="6")]
    env = fat(players, pile="8")
    total = np.zeros(4)
    for a, name in ((0, "play 1x9"), (1, "play 1xJ"), (2, "play 1xQ"), (3, "pickup"), (2, "play 1xK")):
        assert env.agent_selection == f"player_{a}"
        act(env, name)
        total += env._state.rewards[0]  # the engine's rewards of this step, for every seat
    st = state(env)
    assert st["phase"] == "over" and st["placing"] == [0, 1, 2]
    assert total.tolist() == pytest.approx([1.0, 1 / 3, -1 / 3, -1.0])


def test_play_goes_on_until_one_player_still_holds_cards():
    env = fat([P("9"), P("J", up="K"), P("4", down="5")], pile="8")
    act(env, "play 1x9")
    st = state(env)
    assert st["phase"] == "play" and st["placing"] == [0] and env.agents == ["player_1", "player_2"]


@pytest.mark.parametrize("last,fatality", [("8", "mic drop"), ("10", "burn unit"), ("9", None)])
def test_the_fatality_of_the_last_play_is_reported_in_the_final_info(last, fatality):
    env = fat([P(last), P("4", down="5")], pile="5")
    env.step(env.action_id(f"play 1x{last}"))
    assert state(env)["phase"] == "over"
    assert env.infos["player_1"]["fatality"] == fatality and env.infos["player_0"]["last_play"] == last


def test_a_joker_named_8_that_ends_the_game_is_a_mic_drop():
    env = fat([P("JOKER"), P("4", down="5")], pile="9")
    env.step(env.action_id("play 1xJOKER as 8"))
    assert env.infos["player_1"]["fatality"] == "mic drop"


def test_unknown_fatality_rule_names_are_refused():
    with pytest.raises(ValueError, match="unknown fatality rule 'slap'"):
        shedders.raw_env(FAT, 4, rules={"slap": True})
    with pytest.raises(ValueError, match="accepted by 'fatality' and 'house' only"):
        shedders.raw_env("og", 4, rules={"swap_phase": False})


def test_random_games_use_every_fatality_action_kind():
    """Random play reaches each special action kind, so the property tests exercise them too."""
    seen = set()
    for seed in range(40):
        env = shedders.raw_env(FAT, 3)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            a = env.agent_selection
            if env.terminations[a] or env.truncations[a]:
                env.step(None)
                continue
            name = env.action_names[int(rng.choice(env.legal_actions()))]
            seen |= {k for k in ("up", " as ", "pickup with", "xJOKER as") if k in name}
            if state(env)["phase"] == "name":
                seen.add("name")
            env.step(env.action_id(name))
    assert seen == {"up", " as ", "pickup with", "xJOKER as", "name"}
