"""Seed 003, "The South African Arsenal": skip 8, reverse Q, nominate A, Joker standoffs; and their rulings."""

from __future__ import annotations

from conftest import P, act, hand, make, state

SA = "south_african"
FILL = [P("K"), P("K"), P("K")]


# ---------------------------------------------------------------- Skip -----------------------------------------
def test_8_skips_the_next_player_play_two_skip_two_three_skips_three():
    for k, nxt in ((1, 2), (2, 3), (3, 0)):
        env = make(SA, players=[P("8 8 8 4")] + FILL)
        act(env, f"play {k}x8")
        assert state(env)["current_player"] == nxt, k


def test_four_8s_are_a_four_of_a_kind_burn_not_a_skip():
    env = make(SA, players=[P("8 8 8 8 4")] + FILL)
    act(env, "play 4x8")
    assert state(env)["pile"] == [] and state(env)["current_player"] == 0


def test_maximum_skip_is_3():
    env = make("house", base=SA, rules={"four_burn": False},
               players=[P("8 8 8 8 4"), P("K"), P("K"), P("K"), P("K")])
    act(env, "play 4x8")
    assert state(env)["current_player"] == 4


def test_skips_count_only_players_still_in():
    players = [P("8 4"), P(finished=True), P("K"), P("K")]
    env = make(SA, players=players, placing=[1])
    act(env, "play 1x8")
    assert state(env)["current_player"] == 3


def test_a_skip_may_come_round_to_the_player_itself():
    env = make(SA, players=[P("8 4"), P("K")])
    act(env, "play 1x8")
    assert state(env)["current_player"] == 0


# ---------------------------------------------------------------- Reverse --------------------------------------
def test_queens_flip_the_direction_two_cancel_three_flip_again():
    for k, direction, nxt in ((1, -1, 3), (2, 1, 1), (3, -1, 3)):
        env = make(SA, players=[P("Q Q Q 4")] + FILL)
        act(env, f"play {k}xQ")
        assert (state(env)["direction"], state(env)["current_player"]) == (direction, nxt), k


def test_four_queens_burn_the_pile_and_nobody_turns_around():
    env = make(SA, players=[P("Q Q Q Q 4")] + FILL)
    act(env, "play 4xQ")
    st = state(env)
    assert st["pile"] == [] and st["direction"] == 1 and st["current_player"] == 0


# ---------------------------------------------------------------- Nominate -------------------------------------
def test_ace_points_at_any_other_player_still_in():
    env = make(SA, players=[P("A 4")] + FILL)
    act(env, "play 1xA")
    st = state(env)
    assert st["phase"] == "nominate" and st["current_player"] == 0
    assert env.legal_action_names() == ["nominate +1", "nominate +2", "nominate +3"]


def test_nominee_must_answer_with_a_2_5_ace_or_joker_or_eat_the_pile():
    env = make(SA, players=[P("A 4"), P("K"), P("2 5 A JOKER K 9 3"), P("K")])
    act(env, "play 1xA")
    act(env, "nominate +2")
    st = state(env)
    assert st["phase"] == "answer" and st["current_player"] == 2 and st["target"] == 2
    assert set(env.legal_action_names()) == {"play 1x2", "play 1x5", "play 1xA", "play 1xJOKER", "pickup"}


def test_answer_ranks_hold_whatever_the_toggles_say():
    env = make("house", base=SA, rules={"reset_2": False, "mirror_5": False}, players=[P("A 4"), P("2 5 9")])
    act(env, "play 1xA")
    act(env, "nominate +1")
    assert set(env.legal_action_names()) == {"play 1x2", "play 1x5", "pickup"}


def test_play_continues_from_whoever_you_pointed_at():
    env = make(SA, players=[P("A 4"), P("K"), P("2 9 9"), P("K")])
    act(env, "play 1xA")
    act(env, "nominate +2")
    act(env, "play 1x2")
    assert state(env)["current_player"] == 3 and state(env)["phase"] == "play"
    env = make(SA, players=[P("A 4"), P("K"), P("9 9"), P("K")])
    act(env, "play 1xA")
    act(env, "nominate +2")
    act(env, "pickup")
    assert state(env)["current_player"] == 3 and "A" in hand(env, 2)


def test_answering_with_an_ace_points_at_the_next_victim():
    env = make(SA, players=[P("A 4"), P("K"), P("A 9"), P("K")])
    act(env, "play 1xA")
    act(env, "nominate +2")
    act(env, "play 1xA")
    st = state(env)
    assert st["phase"] == "nominate" and st["current_player"] == 2


def test_nominate_counts_only_players_still_in_in_the_direction_of_play():
    players = [P("A 4"), P("K"), P(finished=True), P("5 K")]
    env = make(SA, players=players, placing=[2], direction=-1)
    act(env, "play 1xA")
    assert env.legal_action_names() == ["nominate +1", "nominate +2"]
    act(env, "nominate +1")  # counter-clockwise from seat 0: seat 3
    assert state(env)["current_player"] == 3


def test_nominee_on_face_down_cards_may_flip_it_answers_only_if_2_5_ace_or_joker():
    env = make(SA, players=[P("A 4"), P("", down="5 K")])
    act(env, "play 1xA")
    act(env, "nominate +1")
    assert set(env.legal_action_names()) == {"flip", "pickup"}
    act(env, "flip")
    assert state(env)["pile"] == ["A", "5"] and state(env)["current_player"] == 0
    env = make(SA, players=[P("A 4"), P("", down="K 5")])
    act(env, "play 1xA")
    act(env, "nominate +1")
    act(env, "flip")
    assert state(env)["pile"] == [] and hand(env, 1) == ["K", "A"]


def test_without_the_variant_the_ace_is_simply_the_highest_card():
    env = make("core", players=[P("A 4"), P("K 2 A")], pile="K")
    act(env, "play 1xA")
    st = state(env)
    assert st["phase"] == "play" and st["current_player"] == 1
    assert set(env.legal_action_names()) == {"play 1x2", "play 1xA", "pickup"}


def test_a_player_who_goes_out_on_an_ace_nominates_nobody():
    env = make(SA, players=[P("A"), P("K"), P("K")])
    act(env, "play 1xA")
    st = state(env)
    assert st["players"][0]["finished"] and st["phase"] == "play" and st["current_player"] == 1


# ---------------------------------------------------------------- Joker ----------------------------------------
def test_joker_the_next_player_eats_the_entire_pile():
    env = make(SA, players=[P("JOKER 4"), P("K 9"), P("K")], pile="6 7")
    act(env, "play 1xJOKER")
    st = state(env)
    assert st["phase"] == "eat" and st["current_player"] == 1
    assert env.legal_action_names() == ["pickup"]
    act(env, "pickup")
    assert hand(env, 1) == ["6", "7", "9", "K", "JOKER"] and state(env)["current_player"] == 2


def test_joker_is_wild_on_anything():
    env = make(SA, players=[P("JOKER 9"), P("K")], pile="7")
    assert "play 1xJOKER" in env.legal_action_names() and "play 1x9" not in env.legal_action_names()


def test_jokers_go_one_at_a_time_no_double_throwing():
    env = make(SA, players=[P("JOKER JOKER 4"), P("K")])
    names = env.legal_action_names()
    assert "play 1xJOKER" in names and "play 2xJOKER" not in names


def test_a_counter_bounces_the_punishment_onto_the_previous_jokers_player():
    env = make(SA, players=[P("JOKER 4"), P("JOKER 9"), P("K")], pile="6")
    act(env, "play 1xJOKER")
    st = state(env)
    assert st["phase"] == "counter" and st["current_player"] == 1
    assert set(env.legal_action_names()) == {"play 1xJOKER", "pass"}
    act(env, "play 1xJOKER")
    st = state(env)
    assert st["phase"] == "eat" and st["current_player"] == 0 and st["target"] == 0
    act(env, "pickup")  # last Joker standing wins; the one below eats everything, Jokers included
    assert hand(env, 0) == ["4", "6", "JOKER", "JOKER"]
    assert state(env)["current_player"] == 1  # play continues with the player after the eater


def test_any_player_holding_a_joker_is_asked_in_turn_from_the_victim():
    env = make(SA, players=[P("JOKER 4"), P("K 9"), P("JOKER 9")], pile="6")
    act(env, "play 1xJOKER")
    assert state(env)["phase"] == "counter" and state(env)["current_player"] == 2
    act(env, "pass")
    st = state(env)
    assert st["phase"] == "eat" and st["current_player"] == 1


def test_counters_chain_and_the_asking_starts_again():
    env = make(SA, players=[P("JOKER 4"), P("K 9"), P("JOKER 9")], pile="6")
    act(env, "play 1xJOKER")
    act(env, "play 1xJOKER")  # seat 2 counters seat 0's Joker: seat 0 is punished
    st = state(env)
    assert st["phase"] == "eat" and st["current_player"] == 0 and st["target"] == 0


def test_face_down_jokers_cannot_counter():
    env = make(SA, players=[P("JOKER 4"), P("", down="JOKER"), P("K")], pile="6")
    act(env, "play 1xJOKER")
    assert state(env)["phase"] == "eat" and state(env)["current_player"] == 1


def test_a_counter_is_not_offered_when_the_player_it_would_punish_has_gone_out():
    env = make(SA, players=[P("JOKER"), P("JOKER 9"), P("K")], pile="6")
    act(env, "play 1xJOKER")  # seat 0 goes out on the Joker: the next player still eats
    st = state(env)
    assert st["players"][0]["finished"] and st["phase"] == "eat" and st["current_player"] == 1


def test_a_flipped_joker_is_wild_and_opens_the_window():
    env = make(SA, players=[P("", down="JOKER 4"), P("K 9"), P("K")], pile="A")
    act(env, "flip")
    assert state(env)["phase"] == "eat" and state(env)["current_player"] == 1


def test_a_joker_answers_a_nomination_and_punishes_the_next_player():
    env = make(SA, players=[P("A 4"), P("JOKER 9"), P("K")])
    act(env, "play 1xA")
    act(env, "nominate +1")
    act(env, "play 1xJOKER")
    assert state(env)["phase"] == "eat" and state(env)["current_player"] == 2


def test_ruling_cap_a_joker_standoff_can_cycle_for_ever_and_most_cards_decides_it():
    """Traced from expert self-play (seed 0, ply 4000): two players left, player_2 holds one Joker over three blind
    cards, player_3 twenty-two cards with a Joker. Six legal decisions bring the game back to the same state, and
    player_2 had a choice in only one of its three (the rules offer it nothing but the Joker, then the pickup). The
    rules let the player about to lose keep this going, so only the cap ends it; with cap_rule="most_cards" the
    player holding the most cards is the Shithead."""
    big = "2 2 3 4 4 5 5 5 7 7 7 8 8 8 8 J Q Q K K A JOKER"
    players = [P(finished=True), P(finished=True), P("JOKER", down="J K K", known="JOKER"), P(big, known=big)]
    cycle = ["play 1xJOKER", "play 1xJOKER", "pickup", "play 1x3", "play 1xJOKER", "pickup"]
    env = make("south_african", players, current=2, placing=[0, 1])
    start = state(env)
    forced = []
    for name in cycle:
        if env.agent_selection == "player_2":
            forced.append(len(env.legal_actions()) == 1)
        act(env, name)
    end = state(env)
    assert {k for k in start if start[k] != end[k]} == {"plies", "last_play"}  # the same position again
    assert forced == [True, True, False]
    env = make("south_african", players, current=2, placing=[0, 1], ply_cap=12, cap_rule="most_cards")
    for name in cycle * 2:
        act(env, name)
    assert state(env)["phase"] == "over" and state(env)["placing"] == [0, 1, 2]  # player_3 is the Shithead
    assert env._state.truncated[0]
