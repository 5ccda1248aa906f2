"""omg's expert, search and oracle: the numba rollout policies are the agents, determinization keeps what the
player sees, search finds a forced win, and the agents' choices follow their written rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_seed001_omg import make

import agents
import shedders
from shedders.engine import omg as O
from shedders.engine.search import omg_policies as OP
from shedders.engine.search import omg_search as OS

DECK = ["Artemis Wave 1", "Artemis Wave 3", "Demeter Fire 4", "Hephaestus Wave 1", "Hephaestus Wave 3"]


def states(n, seed, steps=120, batch=32):
    """Yield a VectorGame in states reached by random play: every phase comes up."""
    vg = shedders.VectorGame("omg", batch, n, seed=seed)
    vg.reset()
    rnd = agents.make("random", "omg", n, seed=seed)
    for _ in range(steps):
        yield vg
        vg.step(rnd.act(vg.observation, vg.action_mask))


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**31 - 1))
def test_rollouts_choose_what_the_agents_choose(n, seed):
    """``greedy`` and ``expert`` are written once (shedders.engine.search.omg_policies); the search's rollouts read
    their inputs from the engine state, the agents from the observation. Both choose the same on every state."""
    greedy, expert = agents.make("greedy", "omg", n), agents.make("expert", "omg", n)
    lay = O.layout_array(greedy.T)
    seen = set()
    for vg in states(n, seed):
        want_g = greedy.act(vg.observation, vg.action_mask)
        want_e = expert.act(vg.observation, vg.action_mask)
        for g in range(vg.num_envs):
            if vg.num_legal[g] == 0:
                continue
            m = vg.action_mask[g]
            ids = np.zeros(m.shape[0] + greedy.T, np.int16)  # the legal ids, as the rollouts list them
            nl = OS.legal_mask_nb(vg.state, g, vg.params, greedy.cards, lay, m.copy(), ids)
            assert np.array_equal(ids[:nl], np.flatnonzero(m))
            for expert_, agent, want in ((False, greedy, want_g), (True, expert, want_e)):
                got = OP.choice_from_state_nb(expert_, vg.state, g, m, ids, nl, vg.params, agent.cards, lay)
                assert got == want[g]
            seen.add(int(vg.state.phase[g]))
    assert {O.PH_PLAY, O.PH_DISCARD} <= seen


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**31 - 1))
def test_determinization_keeps_what_the_player_sees_and_resamples_the_rest(n, seed):
    search = agents.make("search", "omg", n, seed=seed)
    search._scratch(1)
    w = search._work
    changed = 0
    for vg in states(n, seed, steps=60, batch=8):
        for g in range(vg.num_envs):
            if vg.num_legal[g] == 0:
                continue
            s = vg.state
            viewer = int(s.turn[g])
            OS.copy_game_nb(s, g, w, 0)
            w.rng[0] = np.uint64(seed + g + 1)
            OS.determinize_nb(w, 0, viewer, vg.params, search._cnt[0])
            assert np.array_equal(w.hand[0, viewer], s.hand[g, viewer])
            assert np.array_equal(w.hsize[0], s.hsize[g])
            assert np.array_equal(w.hand[0].sum(axis=1), s.hsize[g])
            assert w.deck_len[0] == s.deck_len[g] and w.pile_len[0] == s.pile_len[g]
            assert np.array_equal(w.pile[0, : s.pile_len[g]], s.pile[g, : s.pile_len[g]])
            if s.revealed[g] >= 0:
                assert w.deck[0, w.deck_len[0] - 1] == s.revealed[g]

            def unseen(st_, r, viewer=viewer):  # the multiset of cards outside the viewer's hand and the pile
                c = st_.hand[r].sum(axis=0) - st_.hand[r, viewer]
                return c + np.bincount(st_.deck[r, : st_.deck_len[r]], minlength=c.shape[0])

            assert np.array_equal(unseen(w, 0), unseen(s, g))
            others = [q for q in range(n) if q != viewer]
            changed += not np.array_equal(w.hand[0, others], s.hand[g, others])
    assert changed > 0


def test_search_and_oracle_find_the_forced_win():
    """Two cards left: Hephaestus Leaf 2* matches the top's number (no penalty) and its power discards the other
    card, which empties the hand and wins; the other play draws a penalty."""
    for name in ("search", "oracle"):
        env = make([["Hephaestus Leaf 2*", "Zeus Wave 4"], ["Artemis Fire 3"], ["Demeter Leaf 1"]],
                   ["Apollo Leaf 2"], deck=DECK)
        agent = agents.make(name, "omg", 3, seed=0, budget=32)
        assert env.action_names[agents.as_aec_policy(agent)(env, "player_0")] == "play Hephaestus Leaf 2*"


def test_expert_spends_athena_on_a_big_hand_where_greedy_plays_its_zero_penalty_card():
    """expert rule 1: Athena with a penalty of 1 still sheds half of a big hand; greedy only sees the penalty."""
    hand = ["Athena Leaf 1*", "Apollo Leaf 2", "Zeus Wave 4", "Ares Wave 1", "Ares Wave 3", "Athena Fire 4",
            "Demeter Thunder 3", "Hephaestus Fire 3"]
    env = make([hand, ["Artemis Fire 3"], ["Demeter Leaf 1"]], ["Poseidon Leaf 2"], deck=DECK)
    pick = lambda name: env.action_names[agents.as_aec_policy(agents.make(name, "omg", 3))(env, "player_0")]
    assert pick("greedy") == "play Apollo Leaf 2"
    assert pick("expert") == "play Athena Leaf 1*"


def test_expert_keeps_its_hestia_while_another_play_is_cheap():
    hand = ["Hestia Leaf 1*", "Apollo Fire 3", "Zeus Wave 4", "Demeter Thunder 1"]
    env = make([hand, ["Artemis Fire 3"], ["Demeter Leaf 1"]], ["Poseidon Fire 3"], deck=DECK)
    pick = lambda name: env.action_names[agents.as_aec_policy(agents.make(name, "omg", 3))(env, "player_0")]
    assert pick("greedy") == "play Hestia Leaf 1*"
    assert pick("expert") == "play Apollo Fire 3"


@pytest.mark.parametrize("bad", [{"budget": 0}, {"eps": 2.0}, {"max_plies": 0}])
def test_search_refuses_bad_options(bad):
    with pytest.raises(ValueError):
        agents.make("search", "omg", 4, **bad)


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 8), st.integers(0, 2**31 - 1))
def test_the_fitted_leaf_reads_each_seat_and_prices_the_winner_model(n, seed):
    """omg's ``leaf="value"``: each seat's features are its hand size (and whether it is at most 1, 2 or 3), its
    power cards by god, whether it acts now or next, its lost turn, and for the seat to act the cards matching the
    pile's top, counted here from the deck table; the value is the winner softmax's expected reward, so the seats'
    values sum to 0 (+1 for one, -1/(n-1) for each other); and with the hand-size weight -0.5 alone it is the
    default leaf, the softmin over hand sizes."""
    rng = np.random.default_rng(seed)
    cards = agents.make("expert", "omg", n).rules.deck.table()
    f = np.zeros(OS.LEAF_FEATURES)
    hands_only = np.zeros(OS.LEAF_FEATURES)
    hands_only[0] = -0.5
    w = rng.normal(0, 0.3, OS.LEAF_FEATURES)
    for step, vg in enumerate(states(n, seed, steps=60, batch=4)):
        if step % 7:
            continue
        s, p = vg.state, vg.params
        for g in range(4):
            if s.phase[g] == O.PH_OVER:
                continue
            turn, top = int(s.turn[g]), int(s.pile[g, s.pile_len[g] - 1])
            for q in range(n):
                OS.leaf_features_nb(s, g, q, p, cards, f)
                hand = s.hand[g, q]
                powers = np.bincount(cards[:, O.CGOD], weights=hand * (cards[:, O.CPOWER] != 0),
                                     minlength=O.N_GODS)
                same_number = cards[:, O.CNUM] == cards[top, O.CNUM]
                match = (same_number | (cards[:, O.CGOD] == cards[top, O.CGOD])) @ hand
                h = int(s.hsize[g, q])
                assert h == hand.sum()
                want = [h, h <= 1, h <= 2, h <= 3, *powers, q == turn, q == (turn + 1) % n, s.skip[g, q],
                        match if q == turn else 0]
                assert np.array_equal(f, np.array(want, np.float64))
            values = [OS.fitted_value_nb(s, g, q, p, cards, w, f) for q in range(n)]
            assert sum(values) == pytest.approx(0.0, abs=1e-12)
            for q in range(n):
                assert (OS.fitted_value_nb(s, g, q, p, cards, hands_only, f)
                        == pytest.approx(OS.leaf_value_nb(s, g, q, p), abs=1e-12))


def test_the_search_loads_omgs_fitted_leaf_plays_legally_and_refuses_another_deck(tmp_path):
    """The committed omg weights (``experiments/fit_leaf.py --ruleset omg``) learned more than the hand-size count
    the default leaf uses; ``search:leaf=value`` loads them, plays only legal actions, and refuses a game whose
    deck
    is not the one they were fitted on, or a player count without weights."""
    import json

    from agents.search import LEAF_WEIGHTS
    from shedders.rules.omg import DEFAULT_DECK

    fitted = json.loads((LEAF_WEIGHTS / "leaf-omg-4p.json").read_text())
    assert fitted["model"] == "winner" and fitted["command"].startswith("python -m experiments.fit_leaf "
                                                                        "--ruleset omg")
    assert fitted["test_nll"] < fitted["soft_cards_nll"] < fitted["uniform_nll"]
    agent = agents.make("search", "omg", 4, seed=0, budget=24, leaf="value")
    assert agent._leaf_code == OS.LEAF_FITTED and np.array_equal(agent._leaf_w, fitted["weights"])
    vg = shedders.VectorGame("omg", 6, 4, seed=2)
    vg.reset()
    for _ in range(25):
        a = agent.act(vg.observation, vg.action_mask, state=vg.state)
        assert vg.action_mask[np.arange(6), a].all()
        vg.step(a)
    lines = DEFAULT_DECK.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.endswith(",1"))  # a power card loses its power
    lines[first] = lines[first][:-1] + "0"
    other = tmp_path / "deck.csv"
    other.write_text("\n".join(lines) + "\n")
    agents.make("search", "omg", 4, deck=str(other))  # the deck itself plays
    with pytest.raises(ValueError, match="leaf='value' has no fitted weights for omg at 4 players"):
        agents.make("search", "omg", 4, leaf="value", deck=str(other))
