"""``shedders.explain``: one scenario per rule event, told from a seat's point of view, and the property that no
explanation depends on a card the viewer may not know (hidden cards reshuffled, the words unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

import shedders
from shedders.explain import action_label, explain_step, rules_text, table_view, view

OMG_FILL = ["Artemis Fire 3", "Artemis Leaf 2", "Artemis Wave 1", "Artemis Wave 3", "Artemis Thunder 2",
            "Demeter Leaf 1", "Demeter Leaf 3", "Demeter Thunder 1", "Demeter Thunder 3", "Apollo Fire 3"]


def scenario(ruleset, players, pile=(), deck=(), current=0, n=None, **extra):
    env = shedders.raw_env(ruleset, n or len(players))
    sc = {"ruleset": ruleset, "current_player": current, "phase": "play", "players": players, "pile": list(pile),
          "deck": list(deck), **extra}
    env.reset(seed=0, options={"scenario": sc})
    return env


def omg(hands, pile, deck=OMG_FILL, current=0):
    return scenario("omg", [{"hand": list(h)} for h in hands], pile, deck, current)


def told(env, name, viewer):
    """Play ``name`` and return what ``viewer`` is told."""
    seat = env.seat(env.agent_selection)
    before = env.state_dict()
    env.step(env.action_id(name))
    return explain_step(env.rules, before, env.state_dict(), seat, name, viewer)


# ---------------------------------------------------------------------------------------------------------------
# palace family
# ---------------------------------------------------------------------------------------------------------------
def test_a_10_burns_the_pile_and_the_burner_plays_again():
    env = scenario("core", [{"hand": ["10", "10", "4"]}, {"hand": ["K"]}, {"hand": ["Q"]}], pile=["6", "9"])
    assert told(env, "play 2x10", 1) == ["player_0 plays two 10s", "the pile burns (4 cards leave play)",
                                         "player_0 plays again"]


def test_the_burner_is_told_in_the_second_person():
    env = scenario("core", [{"hand": ["10", "4"]}, {"hand": ["K"]}, {"hand": ["Q"]}], pile=["9"])
    assert told(env, "play 1x10", 0) == ["you play a 10", "the pile burns (2 cards leave play)", "you play again"]


def test_four_of_a_kind_burns():
    env = scenario("core", [{"hand": ["9", "4"]}, {"hand": ["K"]}, {"hand": ["Q"]}], pile=["9", "9", "9"])
    assert told(env, "play 1x9", 2)[1:] == ["the pile burns (4 cards leave play)", "player_0 plays again"]


def test_an_8_skips_the_next_player_and_two_8s_skip_two():
    players = [{"hand": ["8", "8", "4"]}, {"hand": ["K"]}, {"hand": ["Q"]}, {"hand": ["J"]}]
    env = scenario("south_african", players, pile=["6"])
    assert told(env, "play 1x8", 3)[-1] == "player_1 is skipped"
    env = scenario("south_african", players, pile=["6"])
    assert told(env, "play 2x8", 3)[-1] == "player_1 and player_2 are skipped"
    env = scenario("south_african", players, pile=["6"])
    assert told(env, "play 1x8", 1)[-1] == "you are skipped"


def test_a_queen_reverses_the_direction():
    env = scenario("south_african", [{"hand": ["Q", "4"]}, {"hand": ["K"]}, {"hand": ["A"]}], pile=["6"])
    assert told(env, "play 1xQ", 1) == ["player_0 plays a Q", ("the direction of play reverses: now "
                                                              "counter-clockwise")]


def test_an_ace_nominates_a_player_who_must_answer():
    env = scenario("south_african", [{"hand": ["A", "4"]}, {"hand": ["K"]}, {"hand": ["Q"]}], pile=["6"])
    assert told(env, "play 1xA", 1)[-1] == "an ace: player_0 nominates a player"
    assert action_label(env.rules, env.state_dict(), "nominate +2") == "nominate player_2"
    assert told(env, "nominate +2", 1) == [
        "player_0 nominates player_2: answer with a 2, 5, A or Joker, or pick up the pile"]
    assert told(env, "pickup", 1) == ["player_2 picks up the pile (nominated): 2 cards (6 A)"]


def test_a_joker_standoff_the_counter_bounces_the_punishment():
    env = scenario("south_african", [{"hand": ["JOKER", "4"]}, {"hand": ["JOKER", "9"]}, {"hand": ["K"]}],
                   pile=["6", "7"])
    assert told(env, "play 1xJOKER", 2)[-1] == (
        "the Joker: player_1 must pick up the pile unless someone counters with a Joker")
    assert told(env, "play 1xJOKER", 2)[-1] == "the Joker is countered: the punishment bounces to player_0"


def test_a_pass_on_a_joker_counter_is_not_told_to_others():
    env = scenario("south_african", [{"hand": ["JOKER", "4"]}, {"hand": ["JOKER", "9"]}, {"hand": ["K"]}],
                   pile=["6", "7"])
    told(env, "play 1xJOKER", 2)
    assert env.legal_action_names() == ["play 1xJOKER", "pass"]
    seat = env.seat(env.agent_selection)
    before = env.state_dict()
    env.step(env.action_id("pass"))
    after = env.state_dict()
    assert explain_step(env.rules, before, after, seat, "pass", 2) == [("nobody counters: player_1 must pick up "
                                                                        "the pile")] or \
        explain_step(env.rules, before, after, seat, "pass", 2) == []
    assert explain_step(env.rules, before, after, seat, "pass", 1)[0] == "you pass"


def og_sneak_env():
    return scenario("og", [{"hand": ["6", "4"], "face_up": ["A"]}, {"hand": ["J"], "face_up": ["Q"]},
                           {"hand": ["6", "9"], "face_up": ["Q"]}], pile=["5"])


def test_og_a_sneak_is_told_and_a_pass_on_a_sneak_offer_is_not():
    env = og_sneak_env()
    told(env, "play 1x6", 1)
    before = env.state_dict()
    env.step(env.action_id("pass"))
    assert explain_step(env.rules, before, env.state_dict(), 2, "pass", 1) == []
    env = og_sneak_env()
    told(env, "play 1x6", 1)
    assert told(env, "sneak 1x6", 1)[0] == "player_2 sneaks a 6 onto the pile, out of turn"


def test_og_a_sneak_offer_is_not_shown_to_others_in_the_view():
    env = og_sneak_env()
    env.step(env.action_id("play 1x6"))
    assert env.phase == "sneak" and env.seat(env.agent_selection) == 2
    v = table_view(env, 1)
    assert v["phase"] == "sneak" and v["actor"] is None and v["legal"] == []  # who is asked stays hidden
    assert table_view(env, 2)["constraint"].startswith("not your turn: you may sneak 6")


def test_og_a_3_leaves_play_and_the_next_player_must_pick_up():
    env = scenario("og", [{"hand": ["3", "4"]}, {"hand": ["J", "5"]}, {"hand": ["9"]}], pile=["A"])
    assert told(env, "play 1x3", 2) == ["player_0 plays a 3", "the 3 leaves play: player_1 must pick up the pile"]
    assert env.constraint == "pick up the pile (a 3 was played)"
    assert told(env, "pickup", 2) == ["player_1 picks up the pile (a 3 was played): 1 card (A)",
                                      "player_1 opens a fresh pile"]


def test_a_failed_blind_flip_picks_up_the_pile():
    env = scenario("core", [{"hand": [], "face_down": ["4"]}, {"hand": ["K"]}, {"hand": ["Q"]}], pile=["8", "9"])
    assert told(env, "flip", 1) == [
        "player_0 flips a 4 from the face-down cards: it does not go, so player_0 picks up the pile (3 cards)"]


def test_a_good_blind_flip_names_the_card():
    env = scenario("core", [{"hand": [], "face_down": ["K", "3"]}, {"hand": ["K"]}, {"hand": ["Q"]}], pile=["9"])
    assert told(env, "flip", 2)[0] == "player_0 flips a K from the face-down cards"


def test_draws_name_the_cards_to_the_drawer_only():
    players = [{"hand": ["9", "4", "5"]}, {"hand": ["K"]}, {"hand": ["Q"]}]
    env = scenario("core", players, pile=["6"], deck=["J", "3"])
    assert told(env, "play 1x9", 0) == ["you play a 9", "you draw 1 card (J)"]
    env = scenario("core", players, pile=["6"], deck=["J", "3"])
    assert told(env, "play 1x9", 1) == ["player_0 plays a 9", "player_0 draws 1 card"]


def test_setup_swaps_are_told_to_their_player_only():
    env = shedders.raw_env("core", 3)
    env.reset(seed=4)
    name = next(n for n in env.legal_action_names() if n.startswith("swap "))
    before = env.state_dict()
    env.step(env.action_id(name))
    after = env.state_dict()
    assert explain_step(env.rules, before, after, 0, name, 1) == []
    assert explain_step(env.rules, before, after, 0, name, 0)[0].startswith("you swap ")


def test_fatality_a_joker_stands_for_the_rank_it_is_played_as():
    env = scenario("fatality", [{"hand": ["JOKER", "4"]}, {"hand": ["K"]}, {"hand": ["Q"]}], pile=["6"])
    assert told(env, "play 1xJOKER as 8", 1) == ["player_0 plays a Joker as an 8", "you are skipped"]


def test_fatality_pickup_with_the_face_up_cards_of_a_rank():
    env = scenario("fatality", [{"hand": [], "face_up": ["5", "5", "K"]}, {"hand": ["K"]}, {"hand": ["Q"]}],
                   pile=["A"])
    assert "pickup with 5" in env.legal_action_names()
    assert told(env, "pickup with 5", 1) == ["player_0 picks up the pile: 1 card (A), and the face-up 5s"]


def test_going_out_and_the_shithead():
    env = scenario("core", [{"hand": ["K"]}, {"hand": ["4"]}], pile=["9"])
    assert told(env, "play 1xK", 1) == ["player_0 plays a K", "player_0 is out (place 1)",
                                        "game over: you are last"]


# ---------------------------------------------------------------------------------------------------------------
# omg: penalties and every power
# ---------------------------------------------------------------------------------------------------------------
def test_omg_a_match_has_no_penalty():
    env = omg([["Hera Leaf 2", "Zeus Leaf 3"], ["Ares Fire 3"], ["Hestia Leaf 3"]], ["Athena Fire 2"])
    assert told(env, "play Hera Leaf 2", 1) == ["player_0 plays Hera Leaf 2 on Athena Fire 2: it matches (number)"]


def test_omg_penalty_different_colors_is_the_difference_plus_one():
    env = omg([["Athena Fire 4", "Zeus Leaf 3"], ["Ares Fire 3"], ["Hestia Leaf 3"]], ["Hera Leaf 2"])
    said = told(env, "play Athena Fire 4", 0)
    assert said[0] == "you play Athena Fire 4 on Hera Leaf 2: no match"
    assert said[1] == "penalty: you draw 3 (Fire 4 on Leaf 2, different colors): Artemis Fire 3, Artemis Leaf 2 " \
                      "and Artemis Wave 1"


def test_omg_penalty_same_color_is_the_difference_and_others_see_no_card():
    env = omg([["Athena Fire 4", "Zeus Leaf 3"], ["Ares Fire 3"], ["Hestia Leaf 3"]], ["Hestia Fire 2"])
    assert told(env, "play Athena Fire 4", 1)[1] == "penalty: player_0 draws 2 (Fire 4 on Fire 2, same color)"


def test_omg_zeus_names_the_player_who_draws_2():
    env = omg([["Zeus Fire 2*", "Ares Fire 3"], ["Hera Leaf 2"], ["Hera Leaf 4"]], ["Athena Fire 2"])
    assert told(env, "play Zeus Fire 2*", 1)[-1] == "Zeus's power: player_0 chooses a player to draw 2"
    assert action_label(env.rules, env.state_dict(), "target +2") == "target player_2"
    assert told(env, "target +2", 1) == ["player_0 chooses player_2 (Zeus): player_2 draws 2"]


def test_omg_ares_each_other_player_draws_1():
    env = omg([["Ares Leaf 2*", "Zeus Leaf 3"], ["Hera Leaf 4"], ["Hera Wave 1"]], ["Athena Fire 2"])
    said = told(env, "play Ares Leaf 2*", 1)
    assert said[1] == "Ares's power: each other player draws 1"
    assert "you draw 1 card (Artemis Fire 3)" in said and "player_2 draws 1 card" in said


def test_omg_athena_discards_half_the_hand():
    env = omg([["Athena Leaf 1*", "Zeus Leaf 3", "Ares Fire 3", "Hera Thunder 2", "Hestia Fire 4"],
               ["Hera Leaf 4"], ["Hera Wave 1"]], ["Aphrodite Leaf 1"])
    assert told(env, "play Athena Leaf 1*", 1)[-1] == "Athena's power: player_0 discards half of the hand"
    assert told(env, "discard Zeus Leaf 3", 1) == ["player_0 discards Zeus Leaf 3 (Athena)"]


@pytest.mark.parametrize("card,choice,words", [
    ("Artemis Leaf 4*", "number 3", "Artemis's power: player_0 chooses a number to discard up to 2 of"),
    ("Demeter Fire 2*", "color Leaf", "Demeter's power: player_0 chooses a color to discard up to 2 of"),
    ("Poseidon Fire 1*", "god Zeus", "Poseidon's power: player_0 chooses a god to discard up to 2 of")])
def test_omg_artemis_demeter_poseidon_choose_then_discard_or_stop(card, choice, words):
    top = "Athena Fire 4" if "Artemis" in card else "Athena Fire 2" if "Demeter" in card else "Athena Thunder 1*"
    env = omg([[card, "Zeus Leaf 3", "Zeus Leaf 1", "Ares Fire 3"], ["Hera Leaf 4"], ["Hera Wave 1"]], [top])
    assert told(env, f"play {card}", 1)[-1] == words
    assert told(env, choice, 1) == [f"player_0 chooses {choice}"]
    assert told(env, "discard Zeus Leaf 3", 1) == [f"player_0 discards Zeus Leaf 3 ({card.split()[0]})"]
    if "stop" in env.legal_action_names():
        assert told(env, "stop", 1)[0] == "player_0 stops discarding"


def test_omg_apollo_reveals_the_deck_top_to_everyone():
    env = omg([["Apollo Fire 1*", "Zeus Leaf 3", "Artemis Wave 1"], ["Hera Leaf 4"], ["Hera Wave 1"]],
              ["Zeus Leaf 1"], deck=["Ares Wave 3", "Demeter Leaf 1", "Demeter Leaf 3", "Demeter Thunder 1"])
    said = told(env, "play Apollo Fire 1*", 2)
    assert said[-1] == "Apollo's power: the deck's top card is Ares Wave 3: player_0 may discard up to 2 cards " \
                       "matching it"


def test_omg_aphrodite_the_target_loses_the_next_turn():
    env = omg([["Aphrodite Fire 2*", "Zeus Leaf 3"], ["Hera Leaf 2"], ["Hera Thunder 2", "Ares Fire 1"]],
              ["Athena Fire 2"])
    told(env, "play Aphrodite Fire 2*", 2)
    assert told(env, "target +1", 2) == ["player_0 chooses player_1 (Aphrodite): player_1 loses the next turn",
                                         "player_1 loses this turn (Aphrodite) and takes the cards back"]


def test_omg_hephaestus_discards_a_card():
    env = omg([["Hephaestus Leaf 2*", "Zeus Leaf 3", "Ares Fire 3"], ["Hera Leaf 4"], ["Hera Wave 1"]],
              ["Athena Fire 2"])
    assert told(env, "play Hephaestus Leaf 2*", 1)[-1] == "Hephaestus's power: player_0 discards a card"


def test_omg_hestia_waives_the_penalty():
    env = omg([["Hestia Leaf 1*", "Zeus Leaf 3"], ["Hera Leaf 4"], ["Hera Wave 1"]], ["Athena Fire 4"])
    assert told(env, "play Hestia Leaf 1*", 1) == [
        "player_0 plays Hestia Leaf 1* on Athena Fire 4: no match, but Hestia waives the penalty of 4"]


def test_omg_hera_deals_the_penalty_to_named_players():
    env = omg([["Hera Fire 3*", "Zeus Leaf 3"], ["Hera Leaf 4"], ["Hera Wave 1"]], ["Artemis Fire 1"])
    said = told(env, "play Hera Fire 3*", 1)
    assert said[0] == ("player_0 plays Hera Fire 3* on Artemis Fire 1: no match, penalty 2 (Fire 3 on Fire 1, "
                       "same color); Hera deals it to the others")
    assert action_label(env.rules, env.state_dict(), "give +1") == "give a card to player_1"
    assert told(env, "give +1", 1) == ["player_0 deals a penalty card to you (Hera): Artemis Fire 3"]
    assert told(env, "give +2", 1)[0] == "player_0 deals a penalty card to player_2 (Hera)"


def test_omg_hermes_copies_the_last_power():
    env = omg([["Hermes Leaf 3*", "Zeus Leaf 1"], ["Hera Leaf 4"], ["Hera Wave 1"]],
              ["Zeus Fire 2*", "Ares Fire 3"])
    assert told(env, "play Hermes Leaf 3*", 1)[-1] == "Hermes copies Zeus: player_0 chooses a player to draw 2"


def test_omg_the_deck_rebuilt_from_the_pile():
    env = omg([["Athena Fire 4", "Zeus Leaf 3"], ["Ares Fire 3"], ["Hestia Leaf 3"]],
              ["Artemis Fire 3", "Artemis Leaf 2", "Hera Leaf 2"], deck=[])
    assert "the deck ran out: the pile under its top card is shuffled into a new deck" in told(
        env, "play Athena Fire 4", 1)


def test_omg_winning():
    env = omg([["Hera Leaf 2"], ["Ares Fire 3"], ["Hestia Leaf 3"]], ["Athena Fire 2"])
    assert told(env, "play Hera Leaf 2", 1)[-1] == "game over: player_0 wins"


def test_rules_text_for_every_ruleset():
    for r in ("og", "fatality", "core", "south_african", "house", "omg"):
        text = rules_text(shedders.raw_env(r, 3).rules)
        assert text.startswith(r) and len(text) > 100
    assert "skip_8" in rules_text(shedders.raw_env("house", 3, base="south_african").rules)


# ---------------------------------------------------------------------------------------------------------------
# never a hidden card
# ---------------------------------------------------------------------------------------------------------------
def reshuffled(rules, state: dict, viewer: int, rng) -> dict:
    """``state`` with every card ``viewer`` may not know replaced by random ones of the deck (counts kept): other
    hands (but for the cards known from pickups), every face-down card, the draw pile (but Apollo's revealed top).
    The result need not be a legal deal: the explanation must not read those cards at all."""
    import copy

    s = copy.deepcopy(state)
    if rules.name == "omg":
        names = list(rules.deck.names())
        for q, p in enumerate(s["players"]):
            if q != viewer:
                p["hand"] = [names[i] for i in rng.integers(len(names), size=len(p["hand"]))]
        keep_top = s["revealed"] is not None
        deck = [names[i] for i in rng.integers(len(names), size=len(s["deck"]))]
        if keep_top and deck:
            deck[0] = state["deck"][0]
        s["deck"] = deck
        return s
    from shedders.engine.palace.layout import RANK_NAMES
    ranks = [r for r in RANK_NAMES if r != "JOKER"]
    pick = lambda k: [ranks[i] for i in rng.integers(len(ranks), size=k)]
    for q, p in enumerate(s["players"]):
        p["face_down"] = pick(len(p["face_down"]))
        if q != viewer:
            known = list(p["known"])
            p["hand"] = known + pick(len(p["hand"]) - len(known))
            if s["phase"] == "setup":
                p["face_up"] = pick(len(p["face_up"]))
    s["deck"] = pick(len(s["deck"]))
    return s


def hidden_card_mismatches(ruleset, n, seeds=range(3), max_plies=400) -> tuple[list, int]:
    """Every decision of random games, told to every seat, against the same told with every card hidden from that
    seat replaced at random (before and after the move): the mismatches, and how many sentences were told."""
    kwargs = {"base": "south_african"} if ruleset == "house" else {}
    rng = np.random.default_rng(7)
    told_any, bad = 0, []
    for seed in seeds:
        env = shedders.raw_env(ruleset, n, **kwargs)
        env.reset(seed=seed)
        while not env.game_over and env.state_dict()["plies"] < max_plies:
            seat = env.seat(env.agent_selection)
            a = int(rng.choice(env.legal_actions()))
            name = env.action_names[a]
            before = env.state_dict()
            env.step(a)
            after = env.state_dict()
            for viewer in range(n):
                said = explain_step(env.rules, before, after, seat, name, viewer)
                again = explain_step(env.rules, reshuffled(env.rules, before, viewer, rng),
                                     reshuffled(env.rules, after, viewer, rng), seat, name, viewer)
                told_any += bool(said)
                if said != again:
                    bad.append((seed, name, viewer, said, again))
                if view(env.rules, after, viewer) != view(env.rules, reshuffled(env.rules, after, viewer, rng),
                                                          viewer):
                    bad.append((seed, name, viewer, "view"))
            while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                env.step(None)
    return bad, told_any


@pytest.mark.parametrize("ruleset,n", [("og", 4), ("fatality", 4), ("core", 4), ("south_african", 4),
                                       ("house", 4), ("omg", 4)])
def test_explanations_never_depend_on_a_hidden_card(ruleset, n):
    """A sentence that named another's drawn card, a face-down card before it is flipped or a card of the draw pile
    would change when the hidden cards are reshuffled; none does, and neither does the view."""
    bad, told_any = hidden_card_mismatches(ruleset, n)
    assert not bad, bad[:3]
    assert told_any > 100


@pytest.mark.parametrize("ruleset", ["core", "omg"])
def test_the_hidden_card_check_catches_a_leak(ruleset, monkeypatch):
    """The check can fail: an explainer that reads every card (the spectator's view for every seat) is caught."""
    import shedders.explain as E

    full = E.view
    monkeypatch.setattr(E, "view", lambda rules, state, viewer: full(rules, state, None))
    bad, _ = hidden_card_mismatches(ruleset, 4, seeds=[0], max_plies=150)
    assert bad


def test_omgs_rules_in_short_name_each_power_in_words_not_as_a_python_tuple():
    """The terminal game's ``?`` and the web page's "Rules in short" print omg's powers: one phrase per god."""
    from shedders.explain import POWER_WORDS, rules_text

    text = rules_text(shedders.make_rules("omg", 4))
    assert "('" not in text and "')" not in text
    for god, words in POWER_WORDS.items():
        assert f"{god}: {words[0]}" in text
