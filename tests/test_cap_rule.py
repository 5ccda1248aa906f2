"""R-CAP-TRUNCATE, the ply cap: "a game that reaches the ply cap ... ends truncated: players still in get 0,
players
already out keep what they got. With cap_rule="most_cards" ... a capped game is decided instead: players still in
are placed by the cards they hold in every zone, fewest first, ties broken by seat order starting from the player
to act; the last placed is the Shithead (-1 in the palace family; in omg the first placed wins). The game is still
flagged truncated." One scenario test per sentence, on the AEC env and the batched engine. For omg the public
interface says otherwise, and it is kept: a game decided at the cap by most_cards has no winner."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import P

import shedders
from shedders import replay as R


def capped(ruleset, players, cap_rule, action, current=0, pile="", **extra):
    """A scenario one decision before a cap of 40 (plies 39), stepped with ``action``: (env, rewards)."""
    env = shedders.raw_env(ruleset, len(players), ply_cap=40, cap_rule=cap_rule)
    env.reset(seed=0, options={"scenario": {"ruleset": ruleset, "current_player": current, "phase": "play",
                                            "players": players, "pile": pile.split(), "plies": 39, **extra}})
    env.step(env.action_id(action))
    return env, {a: env.rewards[a] for a in env.agents}


CORE = [P("9 9", up="5", down="6 7"), P("4", up="K"), P("J Q K", up="A", down="2"), P("8", up="J")]


def test_truncate_players_still_in_get_0_players_already_out_keep_what_they_got():
    players = [P(finished=True), P("4", up="K"), P("J Q K", up="A", down="2"), P("8", up="J")]
    env, got = capped("core", players, "truncate", "play 1x4", current=1, placing=[0])
    s = env._state
    assert s.truncated[0] and not s.terminated[0] and env.state_dict()["placing"] == [0]
    assert set(got.values()) == {0.0}
    assert all(env.truncations[a] for a in ("player_1", "player_2", "player_3"))


def test_most_cards_players_still_in_are_placed_by_the_cards_they_hold_fewest_first():
    # after player_0 plays its two 9s: player_0 holds 3 (5 up, 2 face down), player_1 2, player_2 5, player_3 2
    env, got = capped("core", CORE, "most_cards", "play 2x9")
    sd = env.state_dict()
    # 1 and 3 hold 2 each: the tie goes by seat order from the player to act (player_1, after player_0's play)
    assert sd["placing"] == [1, 3, 0] and sd["phase"] == "over"
    assert got == pytest.approx({"player_0": 1 / 3, "player_1": 1 / 3, "player_2": -1.0, "player_3": 1 / 3})
    assert env._state.truncated[0] and not env._state.terminated[0]  # still flagged truncated
    assert all(env.truncations[a] for a in env.possible_agents)
    assert env.infos["player_0"]["placing"] == [1, 3, 0]


def test_most_cards_ties_are_broken_by_seat_order_starting_from_the_player_to_act():
    players = [P("4 5", up="K"), P("6 7", up="Q"), P("8 9", up="J"), P("J Q K", up="A")]
    env, _ = capped("core", players, "most_cards", "play 1x4", current=0, pile="3")
    # after the play player_0 holds 2, players 1 and 2 hold 3: player_1 acts next, so 1 is placed before 2
    assert env.state_dict()["placing"] == [0, 1, 2]
    env, _ = capped("core", players, "most_cards", "play 1x8", current=2, pile="3")
    # player_2 now holds 2; players 0 and 1 hold 3, and player_3 acts next: 3 holds 4, so 0 then 1
    assert env.state_dict()["placing"] == [2, 0, 1]


def test_most_cards_in_og_the_first_placed_wins():
    players = [P("5 6", up="A", down="2 3 4"), P("9", up="K"), P("J Q", up="A")]
    env, got = capped("og", players, "most_cards", "play 1x5", pile="4")
    while env.agents and env.state_dict()["phase"] == "sneak":
        env.step(env.action_id("pass"))
    sd = env.state_dict()
    assert sd["phase"] == "over" and sd["placing"] == [1]
    assert got == pytest.approx({"player_0": -0.5, "player_1": 1.0, "player_2": -0.5})


def test_most_cards_in_fatality_scores_finishing_positions():
    players = [P("5 6", up="A"), P("9", up="K"), P("J Q K 10", up="A")]
    env, got = capped("fatality", players, "most_cards", "play 1x5", pile="4")
    # player_0 holds 2 (6, A), player_1 2 (9, K): a tie, and player_1 acts next, so player_1 is placed first
    assert env.state_dict()["placing"] == [1, 0]
    # seed 002 / R-FAT-REWARD: finishing position k scores (N + 1 - 2k) / (N - 1)
    assert got == pytest.approx({"player_0": 0.0, "player_1": 1.0, "player_2": -1.0})


def test_most_cards_in_omg_nobody_wins():
    """The public interface: with most_cards, "for omg nobody wins": a capped omg game pays every player 0, has no
    winner, and is flagged truncated."""
    env = shedders.raw_env("omg", 3, ply_cap=10, cap_rule="most_cards")
    env.reset(options={"scenario": {
        "ruleset": "omg", "current_player": 0, "phase": "play", "plies": 9,
        "players": [{"hand": ["Athena Wave 2", "Zeus Leaf 3", "Ares Wave 3"]}, {"hand": ["Ares Fire 3"]},
                    {"hand": ["Athena Leaf 3", "Zeus Thunder 3"]}],
        "pile": ["Athena Fire 2"], "deck": ["Hestia Wave 2", "Artemis Leaf 2"]}})
    env.step(env.action_id("play Athena Wave 2"))  # matches the 2: no penalty, no power; the cap is reached
    sd = env.state_dict()
    assert sd["phase"] == "over" and sd["truncated"] is True and sd.get("winner") is None
    assert env._state.rewards[0].tolist() == [0.0, 0.0, 0.0]
    assert all(env.truncations.values()) and not any(env.terminations.values())
    with pytest.raises(ValueError, match="no 'winner'"):
        env.reset(options={"scenario": {**sd, "plies": 0, "winner": 1}})


def test_the_default_is_truncation_and_an_unknown_cap_rule_is_refused():
    assert shedders.make_rules("core", 4).cap_rule == "truncate"
    with pytest.raises(ValueError, match="unknown cap_rule 'fewest'; allowed: truncate, most_cards"):
        shedders.env("core", 4, cap_rule="fewest")
    with pytest.raises(ValueError, match="unknown cap_rule"):
        shedders.VectorGame("omg", 2, 3, cap_rule=None)


@pytest.mark.parametrize("ruleset", ["og", "fatality", "core", "south_african", "omg"])
def test_vector_game_places_every_seat_of_a_capped_game_and_rewards_sum_to_zero(ruleset):
    vg = shedders.VectorGame(ruleset, 64, 4, seed=1, ply_cap=30, cap_rule="most_cards")
    vg.reset()
    ended = 0
    totals = np.zeros((64, 4))
    for _ in range(31):
        vg.step(vg.sample_legal())
        totals += vg.rewards
        done = vg.terminated | vg.truncated
        for g in np.flatnonzero(vg.truncated):
            placed = [p for p in vg.final_placing[g] if p >= 0]
            if ruleset == "omg":  # the public interface: nobody wins a capped omg game
                assert not placed and not vg.rewards[g].any()
                continue
            assert placed, "a capped game is decided: someone is placed"
            if ruleset != "og":
                assert sorted(placed) == [0, 1, 2, 3]
        ended += int(done.sum())
        totals[done] = 0
    assert ended >= 64 and vg.truncated.sum() + ended > 0


def test_a_most_cards_game_replays_with_its_cap_rule(tmp_path):
    env = shedders.env("south_african", 4, ply_cap=50, cap_rule="most_cards")
    rec = R.Recorder(env)
    rec.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        rec.step(None if term or trunc else int(rng.choice(env.unwrapped.legal_actions())))
    path = rec.save(tmp_path / "g.jsonl")
    rep = R.load(path)
    assert rep.header["env_kwargs"]["cap_rule"] == "most_cards" and rep.end["truncated"]
    assert len(rep.end["placing"]) == 3 and R.verify(path) == len(rep.steps)


def test_a_tournament_plays_under_the_cap_rule_it_is_given(tmp_path):
    from experiments import tournament as T

    s = T.run(T.Config(ruleset="core", agents=["random", "greedy"], games=4, ply_cap=40, cap_rule="most_cards",
                       out=str(tmp_path), name="t"), progress=False)
    assert s["games"] == 16
    with pytest.raises(ValueError, match="cap_rule"):  # the saved games are most_cards games: not reused
        T.run(T.Config(ruleset="core", agents=["random", "greedy"], games=4, ply_cap=40, out=str(tmp_path),
                       name="t"), progress=False)
