"""VectorGame: the same games as the AEC env, auto-reset, final placings, thread independence, bad input."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import shedders

CONFIGS = [
    ("core", 3, {}),
    ("south_african", 4, {}),
    ("house", 5, {"base": "south_african", "rules": {"slap": True, "reverse_on_doubles": True}}),
    ("house", 2, {"rules": {"voluntary_pickup": False, "skip_8": True}}),
    ("og", 4, {}),
    ("og", 7, {}),
    ("fatality", 5, {}),
]


@pytest.mark.parametrize("ruleset,n,kw", CONFIGS)
def test_vector_game_and_aec_env_play_the_same_game_from_the_same_seed_and_actions(ruleset, n, kw):
    seed = 5
    vg = shedders.VectorGame(ruleset, num_envs=3, num_players=n, seed=seed, **kw)
    vg.reset()
    env = shedders.raw_env(ruleset, n, **kw)
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    games = 0
    steps = 0
    while games < 2:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:  # game over in both: the vector game dealt its next game already
                games += 1
                env.reset()  # as the vector game deals game 0's next game from its own stream
                assert env.agent_selection == f"player_{vg.current_player[0]}"
            continue
        seat = int(vg.current_player[0])
        assert agent == f"player_{seat}"
        view = env.observe(agent)
        assert np.array_equal(view["observation"], vg.observation[0])
        assert np.array_equal(view["action_mask"], vg.action_mask[0])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in vg.action_mask])
        env.step(int(actions[0]))
        vg.step(actions)
        steps += 1
        for a in env.possible_agents:
            got = env.rewards.get(a, 0.0)
            assert got == pytest.approx(float(vg.rewards[0, int(a.split("_")[1])]))
        if vg.terminated[0] or vg.truncated[0]:
            placing = env.placing()
            if vg.terminated[0] and env.loser() is not None:
                placing = placing + [env.loser()]
            assert vg.final_placing[0, : len(placing)].tolist() == placing
            assert vg.final_plies[0] == env._state.plies[0]
    assert steps > 100


def test_final_placing_is_a_permutation_of_the_seats_for_games_that_ended():
    vg = shedders.VectorGame("south_african", num_envs=256, num_players=4, seed=1)
    vg.reset()
    ended = 0
    for _ in range(3000):
        vg.step(vg.sample_legal())
        for g in np.flatnonzero(vg.terminated):
            assert sorted(vg.final_placing[g].tolist()) == [0, 1, 2, 3]
            loser = vg.final_placing[g, -1]
            assert vg.rewards[g, loser] == -1.0
            ended += 1
        assert np.all(vg.final_placing[~(vg.terminated | vg.truncated)] == -1)
    assert ended > 100


def test_auto_reset_deals_a_new_game_in_setup():
    vg = shedders.VectorGame("core", num_envs=64, num_players=3, seed=2)
    vg.reset()
    for _ in range(4000):
        vg.step(vg.sample_legal())
        done = np.flatnonzero(vg.terminated | vg.truncated)
        for g in done:
            st = vg.state_dict(int(g))
            assert st["phase"] == "setup" and st["plies"] == 0 and len(st["deck"]) == 52 - 27
        if len(done):
            return
    pytest.fail("no game ended")


@pytest.mark.parametrize("ruleset", ["south_african", "omg"])
def test_results_do_not_depend_on_the_number_of_threads(ruleset):
    """One thread runs the serial kernels (VectorGame calls them directly for a batch of one chunk), more threads
    the parallel entry points: the same games either way."""
    def run(threads):
        numba.set_num_threads(threads)
        vg = shedders.VectorGame(ruleset, num_envs=128, num_players=4, seed=9)
        vg.reset()
        lengths = []
        for _ in range(800):
            vg.step(vg.sample_legal())
            lengths += vg.final_plies[vg.final_plies > 0].tolist()
        return vg.observation.copy(), lengths

    try:
        one = run(1)
        many = run(numba.config.NUMBA_NUM_THREADS)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(one[0], many[0]) and one[1] == many[1]


@pytest.mark.parametrize("ruleset", ["core", "omg"])
def test_a_batch_of_one_game_plays_what_that_row_of_a_batch_plays(ruleset):
    """A batch of one game runs the serial kernels, a batch of 8 on several threads the parallel ones; row 0 of
    both is the same game, step for step (observations, masks, rewards, the finished game's placing), including
    observe() and refresh_legal()."""
    one = shedders.VectorGame(ruleset, num_envs=1, num_players=4, seed=12, ply_cap=400)
    eight = shedders.VectorGame(ruleset, num_envs=8, num_players=4, seed=12, ply_cap=400)
    for vg in (one, eight):
        vg.reset()
    ended = 0
    for _ in range(1000):
        a = eight.sample_legal().copy()
        assert one.sample_legal()[0] == a[0]
        one.step(a[:1])
        eight.step(a)
        for name in ("observation", "action_mask", "rewards", "final_placing", "num_legal", "current_player"):
            assert np.array_equal(getattr(one, name)[0], getattr(eight, name)[0]), name
        ended += int(one.final_plies[0] > 0)
    seats = np.array([1])
    assert np.array_equal(one.observe(seats)[0], eight.observe(np.array([1] * 8))[0])
    one.action_mask[:] = 0
    one.refresh_legal()
    assert np.array_equal(one.action_mask[0], eight.action_mask[0])
    assert ended >= 2  # through finished games (ended or capped) and the next deals


def test_sample_legal_only_picks_legal_actions_and_step_checks_the_mask():
    vg = shedders.VectorGame("house", num_envs=32, num_players=4, seed=3, rules={"jokers": True})
    vg.reset()
    for _ in range(500):
        a = vg.sample_legal()
        assert np.all(vg.action_mask[np.arange(32), a] == 1)
        vg.step(a)  # check=True raises on a masked action
    bad = vg.sample_legal().copy()
    before = [x.copy() for x in vg.state]
    bad[7] = int(np.flatnonzero(vg.action_mask[7] == 0)[0])
    with pytest.raises(ValueError, match="not legal in game 7"):
        vg.step(bad)
    assert all(np.array_equal(x, y) for x, y in zip(before, vg.state))  # no game moved


def test_minus_one_leaves_a_game_untouched():
    vg = shedders.VectorGame("core", num_envs=4, num_players=2, seed=4)
    vg.reset()
    a = vg.sample_legal().copy()
    snap = vg.state_dict(2)
    a[2] = -1
    vg.step(a)
    assert vg.state_dict(2) == snap and vg.rewards[2].sum() == 0


def test_arrays_are_preallocated_and_updated_in_place():
    vg = shedders.VectorGame("core", num_envs=8, num_players=4, seed=0)
    obs, mask = vg.reset()
    ptrs = [a.ctypes.data for a in (vg.observation, vg.action_mask, vg.rewards, vg.terminated, vg.current_player)]
    before = obs.copy()
    out = vg.step(vg.sample_legal())
    assert out[0] is obs and out[1] is mask and not np.array_equal(before, obs)
    after = [a.ctypes.data for a in (vg.observation, vg.action_mask, vg.rewards, vg.terminated, vg.current_player)]
    assert ptrs == after


def test_torch_from_numpy_sees_each_step_without_a_copy():
    torch = pytest.importorskip("torch")
    vg = shedders.VectorGame("core", num_envs=8, num_players=4, seed=0)
    vg.reset()
    t_obs = torch.from_numpy(vg.observation)
    before = t_obs.clone()
    vg.step(vg.sample_legal())
    assert not torch.equal(before, t_obs) and np.shares_memory(t_obs.numpy(), vg.observation)


def test_observe_any_seat_matches_the_aec_env():
    vg = shedders.VectorGame("core", num_envs=1, num_players=3, seed=6)
    vg.reset()
    env = shedders.raw_env("core", 3)
    env.reset(seed=6)
    for seat in range(3):
        assert np.array_equal(vg.observe(np.array([seat]))[0], env.observe(f"player_{seat}")["observation"])


@pytest.mark.parametrize("ruleset", ["core", "og", "fatality", "south_african", "omg"])
def test_cards_held_counts_every_card_a_seat_still_has_to_shed(ruleset):
    vg = shedders.VectorGame(ruleset, num_envs=6, num_players=4, seed=3)
    vg.reset()
    for _ in range(150):
        held = vg.cards_held()
        for g in range(6):
            players = vg.state_dict(g)["players"]
            want = [len(p["hand"]) + len(p.get("face_up", [])) + len(p.get("face_down", [])) for p in players]
            assert held[g].tolist() == want
        vg.step(vg.sample_legal())


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        shedders.VectorGame("core", num_envs=0)
    with pytest.raises(ValueError, match="unknown ruleset"):
        shedders.VectorGame("chess", num_envs=2)
    with pytest.raises(ValueError, match="seed"):
        shedders.VectorGame("core", num_envs=2, seed=-1)
    vg = shedders.VectorGame("core", num_envs=2)
    vg.reset()
    with pytest.raises(ValueError, match="shape"):
        vg.step(np.zeros(3, np.int64))


def test_state_is_under_one_kib_per_game():
    for ruleset, n in (("core", 5), ("south_african", 6)):
        vg = shedders.VectorGame(ruleset, num_envs=16, num_players=n)
        assert vg.state_bytes_per_game <= 1024


def test_random_game_lengths_counts_every_started_game_once():
    from benchmarks.game_lengths import random_game_lengths

    r = random_game_lengths("fatality", 3, games=50, batch=16, progress=False)
    assert r["games"] == 50 and 0.0 <= r["truncated_share"] <= 1.0 and r["mean"] > 9
    capped = random_game_lengths("og", 4, games=20, batch=8, ply_cap=20, progress=False)
    assert capped["truncated_share"] == 1.0 and capped["mean"] == 20  # nobody can shed 9 cards in 20 decisions


@pytest.mark.parametrize("ruleset", ["og", "core", "south_african", "omg"])
def test_write_observations_false_changes_nothing_but_the_observation(ruleset):
    """The same seed and actions with and without observations written each step: every state, mask, reward and
    placing is the same; the skipped observation is what ``observe(current_player)`` gives, as the full step
    writes it."""
    full = shedders.VectorGame(ruleset, num_envs=64, num_players=4, seed=3)
    lean = shedders.VectorGame(ruleset, num_envs=64, num_players=4, seed=3, write_observations=False)
    full.reset()
    lean.reset()
    stale = lean.observation.copy()
    for t in range(300):
        a = full.sample_legal().copy()
        assert np.array_equal(a, lean.sample_legal())
        full.step(a)
        lean.step(a)
        for name in ("action_mask", "current_player", "num_legal", "rewards", "terminated", "truncated",
                     "final_placing", "final_plies"):
            assert np.array_equal(getattr(full, name), getattr(lean, name)), (t, name)
        assert np.array_equal(lean.observation, stale)  # left as it was
        if t % 50 == 0:
            live = full.current_player >= 0
            seen = lean.observe(np.where(live, full.current_player, 0))
            assert np.array_equal(seen[live], full.observation[live])
    assert [lean.state_dict(g) for g in range(64)] == [full.state_dict(g) for g in range(64)]


def test_write_observations_must_be_a_bool():
    with pytest.raises(ValueError, match="write_observations must be True or False"):
        shedders.VectorGame("core", num_envs=2, write_observations="no")


@pytest.mark.parametrize("ruleset", ["og", "fatality", "south_african", "omg"])
def test_refresh_legal_rewrites_the_masks_a_step_ends_with(ruleset):
    vg = shedders.VectorGame(ruleset, 32, 4, seed=5)
    vg.reset()
    for _ in range(60):
        vg.step(vg.sample_legal())
        mask, ids, n = vg.action_mask.copy(), vg.legal_ids.copy(), vg.num_legal.copy()
        vg.action_mask[:] = 1
        vg.num_legal[:] = 0
        vg.refresh_legal()
        assert np.array_equal(vg.action_mask, mask) and np.array_equal(vg.num_legal, n)
        assert all(np.array_equal(vg.legal_ids[g, :n[g]], ids[g, :n[g]]) for g in range(32))
