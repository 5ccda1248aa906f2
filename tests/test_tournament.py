"""The tournament runner: duplicate deals and seat rotation on rigged cases with known answers, reproducibility,
outputs, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments import ray_backend
from experiments import tournament as T

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out


def test_every_deal_is_played_in_every_rotation_each_agent_once_in_each_seat():
    cfg = T.Config(ruleset="fatality", players=4, agents=["random", "greedy", "expert", "search"], games=5, seed=3)
    lineup = T.lineups(cfg, np.random.default_rng(0), 5)
    assert all(sorted(row) == [0, 1, 2, 3] for row in lineup.tolist())
    rec = T.play_chunk({**T.asdict(cfg), "agents": ["random", "greedy", "random", "greedy"]}, 0, 2)
    seat_agent = np.array(rec["seat_agent"]).reshape(2, 4, 4)  # deal, rotation, seat
    for d in range(2):
        for seat in range(4):
            assert sorted(seat_agent[d, :, seat]) == [0, 1, 2, 3]  # each agent once per seat over the rotations
    assert rec["deal"] == [0] * 4 + [1] * 4


def test_rigged_identical_deterministic_agents_tie_exactly(tmp_path):
    """Two copies of the deterministic greedy (rule 6, the random cycle break, off) under different names:
    duplicate deals and rotated seats make every difference cancel, so head-to-head is exactly one half and their
    numbers are equal."""
    s = T.run(T.Config(ruleset="og", players=4, agents=["greedy:cycle_break=0", "greedy@2:cycle_break=0"], games=6,
                       seed=2, out=str(tmp_path)), progress=False)
    a, b = s["agents"]
    assert a["win_rate"] == b["win_rate"] and a["mean_reward"] == pytest.approx(b["mean_reward"])
    h2h = next(p for p in s["pairwise"] if p["agent"] == a["agent"])
    assert h2h["ahead"] == pytest.approx(0.5)


def test_rigged_a_pure_seat_advantage_is_cancelled(tmp_path):
    """Random against itself under two names, on the same deals and the same streams per rotation: whatever the
    seats are worth, both names sit in each seat equally often."""
    s = T.run(T.Config(ruleset="fatality", players=2, agents=["random", "random@2"], games=8, seed=5,
                       out=str(tmp_path)), progress=False)
    seats = np.array(s["game_rows"]["seat_agent"])
    for seat in range(2):
        assert np.sum(seats[:, seat] == 0) == np.sum(seats[:, seat] == 1)


def test_reward_ranks_follow_each_rulesets_scoring():
    assert T.reward_ranks([1 / 3, -1, 1 / 3, 1 / 3]).tolist() == [1, 4, 1, 1]  # core: non-Shitheads tie
    assert T.reward_ranks([1, -1 / 3, -1 / 3, -1 / 3]).tolist() == [1, 2, 2, 2]  # og: the winner, then a tie
    assert T.reward_ranks([-1, 1, 1 / 3, -1 / 3]).tolist() == [4, 1, 2, 3]  # fatality: finishing order


def test_an_agent_in_several_seats_is_ranked_by_its_mean_reward_over_them():
    """core 2 against 2: the side holding the Shithead is last, whichever seat it is; og: the winner's side first;
    fatality: first and last out tie with second and third; one seat each: the seat ranks."""
    assert T.agent_ranks([1 / 3, -1, 1 / 3, 1 / 3], [0, 0, 1, 1]) == ([0, 1], [2, 1])
    assert T.agent_ranks([1 / 3, 1 / 3, 1 / 3, -1], [0, 1, 0, 1]) == ([0, 1], [1, 2])
    assert T.agent_ranks([-1 / 3, -1 / 3, 1, -1 / 3], [1, 0, 0, 1]) == ([0, 1], [1, 2])
    assert T.agent_ranks([1, 1 / 3, -1 / 3, -1], [0, 1, 1, 0]) == ([0, 1], [1, 1])
    assert T.agent_ranks([0.0, 0.0, 0.0, 0.0], [0, 0, 1, 1]) == ([0, 1], [1, 1])  # truncated with no one out
    assert T.agent_ranks([-1, 1, 1 / 3, -1 / 3], [3, 0, 2, 1]) == ([0, 1, 2, 3], [1, 3, 2, 4])
    # three agents, one of them twice: its seats average
    assert T.agent_ranks([-1, 1 / 3, 1 / 3, 1 / 3], [0, 1, 0, 2]) == ([0, 1, 2], [3, 1, 1])


def test_two_seats_each_in_core_part_the_ratings_when_one_side_always_holds_the_shithead():
    """The rating learns from which side lost: the same game row with the loser always on agent 1's side moves the
    ratings apart (ranking by best seat tied them at 25.0 whatever happened)."""
    games = [T.agent_ranks([1 / 3, 1 / 3, -1, 1 / 3] if g % 2 else [1 / 3, 1 / 3, 1 / 3, -1], [0, 0, 1, 1])
             for g in range(200)]
    a, b = T.openskill_ratings(["a", "b"], games)
    assert a.mu - 1.96 * a.sigma > b.mu + 1.96 * b.sigma


def test_the_tournament_is_reproducible_from_its_seed_and_independent_of_workers(tmp_path):
    kw = {"ruleset": "fatality", "players": 3, "agents": ["random", "greedy", "search:budget=4"], "games": 40,
          "seed": 9}
    one = T.run(T.Config(out=str(tmp_path / "a"), **kw), progress=False)
    two = T.run(T.Config(out=str(tmp_path / "b"), workers=2, **kw), progress=False)
    assert one["game_rows"] == two["game_rows"] and one["agents"] == two["agents"]


def test_outputs_and_resuming_from_saved_chunks(tmp_path):
    cfg = T.Config(ruleset="core", players=3, agents=["random", "greedy"], games=40, seed=1, out=str(tmp_path))
    s = T.run(cfg, progress=False)
    run_dir = tmp_path / cfg.run_name()
    for f in ("results.json", "agents.csv", "pairwise.csv", "games.csv", "ratings.png", "table.md"):
        assert (run_dir / f).exists(), f
    assert json.loads((run_dir / "results.json").read_text())["games"] == 120
    chunks = sorted((run_dir / "chunks").glob("*.json"))
    assert len(chunks) == 2
    chunks[1].unlink()  # as if killed during the second chunk
    again = T.run(cfg, progress=False)
    assert again["game_rows"] == s["game_rows"]


def test_a_changed_saved_chunk_is_played_again_not_reused(tmp_path, capsys):
    """Saved chunks carry a sha256 of their record and the tournament's settings: one whose rewards were negated
    (or that is damaged) is played again, and the results are the true ones."""
    cfg = T.Config(ruleset="core", players=3, agents=["random", "greedy"], games=16, seed=1, out=str(tmp_path),
                   chunk=8)
    s = T.run(cfg, progress=False)
    chunks = sorted((tmp_path / cfg.run_name() / "chunks").glob("*.json"))
    rec = json.loads(chunks[0].read_text())
    assert len(rec["sha256"]) == 64
    rec["reward"] = [[-r for r in row] for row in rec["reward"]]
    chunks[0].write_text(json.dumps(rec))
    chunks[1].write_text("{not json")
    again = T.run(cfg, progress=False)
    assert again["game_rows"] == s["game_rows"]
    err = capsys.readouterr().err
    assert "00000.json is damaged or was changed" in err and "00001.json is damaged" in err


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="unknown agent 'alphago'"):
        T.run(T.Config(agents=["alphago"]), progress=False)
    with pytest.raises(ValueError, match="bad num_players"):
        T.run(T.Config(players=9), progress=False)
    with pytest.raises(ValueError, match="key=value"):
        T.parse_agent("search:budget")
    assert T.parse_agent("search:budget=128+eps=0.05") == ("search", {"budget": 128, "eps": 0.05})
    assert T.parse_agent("greedy@2") == ("greedy", {})
    with pytest.raises(SystemExit):
        T.main(["--ruleset", "poker", "--quiet"])


def test_the_ray_backend_gives_the_same_results_as_local(tmp_path):
    """A real local Ray cluster (two actors, one CPU each): the same games as the local backend, chunk for chunk,
    though the chunks are batched and played in any order. Ray is in the test extra: missing, this fails."""
    import ray

    kw = {"ruleset": "fatality", "players": 3, "agents": ["random", "greedy"], "games": 40, "seed": 4, "chunk": 8}
    local = T.run(T.Config(out=str(tmp_path / "local"), **kw), progress=False)
    try:
        remote = T.run(T.Config(out=str(tmp_path / "ray"), backend="ray", workers=2, **kw), progress=False)
        pool = ray_backend.Pool(2)  # the cluster the run started: its actors run one numba and one torch thread
        threads = ray.get([a.threads.remote() for a in pool.actors])
        pool.close()
    finally:
        ray.shutdown()
    assert remote["game_rows"] == local["game_rows"]
    assert threads == [(1, 1), (1, 1)]


def test_a_fixed_lineup_seats_one_agent_against_a_field(tmp_path):
    """``lineup=[0, 1, 1, 1]``: agent 0 alone against three of agent 1, in every seat once per deal."""
    cfg = T.Config(ruleset="core", players=4, agents=["expert", "random"], games=3, seed=1, lineup=[0, 1, 1, 1],
                   out=str(tmp_path))
    rec = T.play_chunk(T.asdict(cfg), 0, 3)
    seat_agent = np.array(rec["seat_agent"]).reshape(3, 4, 4)
    for d in range(3):
        assert (seat_agent[d].sum(axis=1) == 3).all()  # one expert and three random at every game
        assert sorted(np.argmin(seat_agent[d], axis=1)) == [0, 1, 2, 3]  # the expert in each seat once
    s = T.run(cfg, progress=False)
    assert s["agents"][0]["seats_played"] == 12 and s["agents"][1]["seats_played"] == 36
    with pytest.raises(ValueError, match="lineup"):
        T.run(T.Config(ruleset="core", players=4, agents=["expert", "random"], games=1, lineup=[0, 1, 2, 1],
                       out=str(tmp_path)), progress=False)


def test_the_batched_summary_equals_its_game_by_game_definition():
    """summarize works on whole arrays; here every number is recomputed one game and one seat at a time, on
    random games with ties, truncations, unfinished orders and agents missing from some deals and games."""
    rng = np.random.default_rng(4)
    n, k, deals = 4, 3, 60
    games = deals * n
    seat_agent = rng.integers(0, k, size=(games, n))
    seat_agent[:n, :] = 0  # deal 0 seats agent 0 only
    reward = rng.choice([-1.0, -1 / 3, 1 / 3, 1.0], size=(games, n))
    order = np.array([np.r_[rng.permutation(n)[:m], [-1] * (n - m)] for m in rng.integers(0, n + 1, size=games)])
    trunc = rng.random(games) < 0.1
    records = [{"deal": (np.arange(games) // n).tolist(), "seat_agent": seat_agent.tolist(),
                "reward": reward.tolist(), "placing": order.tolist(), "plies": [1] * games,
                "truncated": trunc.tolist()}]
    s = T.summarize(T.Config(ruleset="og", players=n, agents=["a", "b", "c"], games=deals), records)

    def ci(per_deal):
        x = np.array([np.mean(v) for v in per_deal.values()])
        return pytest.approx([x.mean(), x.mean() - 1.96 * x.std(ddof=1) / np.sqrt(len(x)),
                              x.mean() + 1.96 * x.std(ddof=1) / np.sqrt(len(x))])

    for a, row in enumerate(s["agents"]):
        win, place, rew = {}, {}, {}
        for g in range(games):
            listed = [q for q in order[g] if q >= 0]
            for i in np.flatnonzero(seat_agent[g] == a):
                rank = 1 + sum(reward[g] > reward[g, i])
                win.setdefault(g // n, []).append(float(rank == 1 and not trunc[g]))
                place.setdefault(g // n, []).append(listed.index(i) + 1 if i in listed
                                                    else (len(listed) + 1 + n) / 2)
                rew.setdefault(g // n, []).append(reward[g, i])
        assert [row["win_rate"], row["win_lo"], row["win_hi"]] == ci(win)
        assert [row["mean_placing"], row["placing_lo"], row["placing_hi"]] == ci(place)
        assert [row["mean_reward"], row["reward_lo"], row["reward_hi"]] == ci(rew)
        assert row["seats_played"] == int((seat_agent == a).sum())
    for p in s["pairwise"]:
        a, b = ["a", "b", "c"].index(p["agent"]), ["a", "b", "c"].index(p["opponent"])
        ahead = {}
        for g in range(games):
            for i in np.flatnonzero(seat_agent[g] == a):
                for j in np.flatnonzero(seat_agent[g] == b):
                    ahead.setdefault(g // n, []).append(float(np.sign(reward[g, i] - reward[g, j]) + 1) / 2)
        assert [p["ahead"], p["ahead_lo"], p["ahead_hi"]] == ci(ahead)
        assert p["games"] == sum(map(len, ahead.values()))
    ratings = T.openskill_ratings(["a", "b", "c"], (T.agent_ranks(reward[g], seat_agent[g]) for g in range(games)))
    assert [(r["mu"], r["sigma"]) for r in s["agents"]] == [(r.mu, r.sigma) for r in ratings]
