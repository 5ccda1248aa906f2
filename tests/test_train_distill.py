"""``experiments.train_distill`` (DAgger of the search into a network) and ``SearchAgent.evaluate``, the values it
learns from: tiny configs only."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
import torch

import agents
import shedders
from agents.ppo import load_file
from experiments import train_distill as D

TEACHER = "search:budget=24+max_plies=12"


def distill_args(tmp_path, name: str, rounds: int, *extra: str) -> list[str]:
    return ["--ruleset", "core", "--rounds", str(rounds), "--games", "6", "--chunk", "2", "--teacher", TEACHER,
            "--hidden", "32", "--batch", "256", "--ply-cap", "300", "--out", str(tmp_path), "--name", name,
            "--quiet", "--seed", "5", *extra]


def evaluate_beside_act(a, b, vg, rows, increasing: bool):
    """``b.evaluate`` on the games ``rows``, checked against ``a.act`` from the same seed (the same choices) and
    against each game's legal ids (all of them, in increasing order if ``increasing``, -1 after them)."""
    acted = a.act(vg.observation[rows], vg.action_mask[rows], state=vg.state, games=rows)
    chosen, ids, values = b.evaluate(vg.state, rows)
    assert np.array_equal(acted, chosen)
    for j, g in enumerate(rows):
        legal = np.flatnonzero(vg.action_mask[g])
        k = len(legal)
        listed = list(ids[j, :k]) if increasing else sorted(ids[j, :k])
        assert listed == list(legal) and np.all(ids[j, k:] == -1) and chosen[j] in legal
    return chosen, ids, values


@pytest.mark.parametrize("ruleset", ["core", "omg"])
def test_search_evaluate_gives_acts_choices_and_a_value_for_every_legal_action(ruleset):
    """``evaluate`` is ``act``'s batched search (the same choices from the same seed), and it says what each legal
    action was worth: one value per legal id, within the rewards' range, the chosen action's the highest; a game
    with a single legal action is not searched (nan)."""
    n = 4
    vg = shedders.VectorGame(ruleset, 8, n, seed=11)
    vg.reset()
    for _ in range(12):  # past the setup, into play
        vg.step(vg.sample_legal())
    a = agents.make("search", ruleset, n, seed=3, budget=40)
    b = agents.make("search", ruleset, n, seed=3, budget=40)
    rows = np.flatnonzero(vg.current_player >= 0)
    chosen, ids, values = evaluate_beside_act(a, b, vg, rows, increasing=False)
    for j, g in enumerate(rows):
        k = int(vg.action_mask[g].sum())
        assert np.all(np.isnan(values[j, k:]))
        if k == 1:
            assert np.isnan(values[j, 0])
            continue
        v = values[j, :k]
        assert np.all(np.isfinite(v)) and np.all((v >= -1 - 1e-9) & (v <= 1 + 1e-9))
        assert v[list(ids[j, :k]).index(chosen[j])] == v.max()
    with pytest.raises(ValueError, match="uniform"):
        agents.make("search", "core", 4, select="halving").evaluate(vg.state, rows)


def test_guided_evaluate_gives_acts_choices_and_values_for_its_candidates_only():
    """``guided``'s ``evaluate`` is ``act`` from the same seed, on the engine's own views of each game: its values
    cover exactly the searched candidates (the policy's ``top_k`` likeliest legal actions), nan on every other
    legal action, and nothing on a decision it does not search (setup, played by its policy)."""
    from shedders.engine.palace import layout as K

    n = 4
    vg = shedders.VectorGame("south_african", 8, n, seed=4)
    vg.reset()
    expert = agents.make("expert", "south_african", n, seed=0)
    a, b = (agents.make("guided", "south_african", n, seed=3, worlds=2, depth=2, top_k=3) for _ in range(2))
    seen_setup = seen_play = 0
    for t in range(30):
        rows = np.flatnonzero(vg.current_player >= 0)
        chosen, ids, values = evaluate_beside_act(a, b, vg, rows, increasing=True)
        for j, g in enumerate(rows):
            k = int(vg.action_mask[g].sum())
            valued = np.isfinite(values[j])
            if vg.state.phase[g] == K.PH_SETUP or k == 1:
                assert not valued.any()
                seen_setup += vg.state.phase[g] == K.PH_SETUP
                continue
            seen_play += 1
            assert valued.sum() == min(k, 3) and chosen[j] in ids[j, valued]  # (leaf values: the critic's)
        vg.step(expert.act(vg.observation, vg.action_mask))
    assert seen_setup and seen_play


def test_distill_targets_spread_over_what_the_teacher_valued_and_its_choice_where_it_valued_nothing():
    values = torch.tensor([[0.5, 0.0, 0.2], [0.0, 0.0, 0.0], [0.1, 0.3, 0.0]])
    valued = torch.tensor([[True, False, True], [False, False, False], [True, True, True]])
    choice = torch.tensor([0, 2, 1])
    t = D.targets(values, valued, choice, 0.1)
    assert torch.allclose(t.sum(1), torch.ones(3))
    assert t[0, 1] == 0 and torch.isclose(t[0, 0] / t[0, 2], torch.tensor(math.exp(3.0)))
    assert torch.equal(t[1], torch.tensor([0.0, 0.0, 1.0]))  # nothing valued: the teacher's choice alone
    assert torch.allclose(t[2], torch.softmax(values[2] / 0.1, 0))
    assert torch.equal(D.targets(values, valued, choice, 0.0), torch.eye(3)[choice])


def test_train_distill_learns_from_a_guided_teacher(tmp_path):
    """south_african's champion is ``guided``: its labels value the candidates, its setup is learned from its
    choices, and the losses and held-out measures stay finite."""
    torch.set_num_threads(1)
    out = D.main(["--ruleset", "south_african", "--rounds", "2", "--games", "4", "--chunk", "2", "--teacher",
                  "guided:worlds=2+depth=2+top_k=3", "--hidden", "32", "--batch", "256", "--ply-cap", "300",
                  "--out", str(tmp_path), "--name", "guided", "--quiet", "--seed", "5"])
    for key in ("policy_loss", "value_loss", "agree_before", "regret_before", "ce_before"):
        assert math.isfinite(out["last"][key]), key
    data = D.load_labels(tmp_path / "guided", held_out=None)
    ids, values, choice = data["ids"].astype(np.int64), data["values"], data["choice"].astype(np.int64)
    k = (ids >= 0).sum(1)
    valued = np.isfinite(values).sum(1)
    assert np.all(k > 1) and np.all(valued <= 3) and (valued == 0).any() and (valued > 0).any()
    assert ((valued > 0) & (valued < k)).any()  # candidates only, where there are more legal actions
    some = valued > 0
    assert np.all(np.isfinite(values[some, choice[some]]))  # the search's choice is among its candidates


def test_train_distill_learns_round_trips_and_resumes_from_the_same_counters(tmp_path):
    torch.set_num_threads(1)
    out = D.main(distill_args(tmp_path, "straight", 2))
    last = out["last"]
    for key in ("policy_loss", "value_loss", "agree_before", "regret_before", "ce_before"):
        assert math.isfinite(last[key]), key
    assert out["counters"]["round"] == 2 and out["counters"]["games"] == 12 and out["counters"]["labels"] > 100
    ck_path = tmp_path / "straight" / "checkpoint.pt"
    ck = load_file(ck_path)
    assert ck["counters"] == out["counters"]
    # the checkpoint is a ppo agent: it plays legal actions only, the same for a seed
    vg = shedders.VectorGame("core", 4, 4, seed=2)
    vg.reset()
    for _ in range(40):
        p, q = (agents.make("ppo", "core", 4, seed=9, checkpoint=str(ck_path)) for _ in range(2))
        a = p.act(vg.observation, vg.action_mask)
        assert np.array_equal(a, q.act(vg.observation, vg.action_mask))
        assert np.all(vg.action_mask[np.arange(4), a] == 1)
        vg.step(a)
    # every label: a real choice, legal ids increasing, the teacher's choice among them and valued highest
    data = D.load_labels(tmp_path / "straight", held_out=None)
    ids, values, choice = data["ids"].astype(np.int64), data["values"], data["choice"].astype(np.int64)
    k = (ids >= 0).sum(1)
    assert np.all(k > 1) and len(choice) == out["counters"]["labels"]
    for j in range(len(choice)):
        assert np.all(np.diff(ids[j, :k[j]]) > 0) and choice[j] < k[j]
        assert values[j, choice[j]] == np.nanmax(values[j])
    # a run stopped after one round and resumed ends where the straight run ended, with the same network
    D.main(distill_args(tmp_path, "resumed", 1))
    with pytest.raises(SystemExit):  # a second start without --resume would overwrite the run: refused
        D.main(distill_args(tmp_path, "resumed", 2))
    again = D.main(distill_args(tmp_path, "resumed", 2, "--resume"))
    assert {k: v for k, v in again["counters"].items() if k != "seconds"} == {
        k: v for k, v in out["counters"].items() if k != "seconds"}
    resumed = load_file(tmp_path / "resumed" / "checkpoint.pt")
    for name in ck["model"]:
        assert torch.equal(resumed["model"][name], ck["model"][name])
    with open(tmp_path / "resumed" / "progress.csv") as f:
        assert [r["round"] for r in csv.DictReader(f)] == ["1", "2"]


def test_train_distill_keeps_finished_chunks_and_replays_a_lost_one_to_the_same_labels(tmp_path):
    """A run killed inside a round keeps the chunks it saved; the resumed run plays only the missing ones, from the
    same seeds with the same network, to the very same labels, and ends with the straight run's network."""
    from agents.ppo import policy_from

    torch.set_num_threads(1)
    straight = D.main(distill_args(tmp_path, "straight", 2))
    D.main(distill_args(tmp_path, "kill", 1))
    run = tmp_path / "kill"
    cfg = D.Config(**{**load_file(run / "checkpoint.pt")["config"], "rounds": 2})
    with D.Players(cfg) as players:  # round 2's play, as the run would have played it...
        D.play_round(cfg, run, policy_from(load_file(run / "checkpoint.pt")), 1, players)
    lost, kept = D.shard_path(run, 1, 1), D.shard_path(run, 1, 0)
    labels = D.load_shard(lost)
    lost.unlink()  # ...killed before one chunk was saved
    stamp = kept.stat().st_mtime_ns
    again = D.main(distill_args(tmp_path, "kill", 2, "--resume"))
    assert kept.stat().st_mtime_ns == stamp  # a finished chunk is not played again
    replayed = D.load_shard(lost)
    assert labels.keys() == replayed.keys()
    for key in labels:
        assert np.array_equal(labels[key], replayed[key], equal_nan=True), key
    assert again["counters"]["labels"] == straight["counters"]["labels"]
    mine, theirs = load_file(run / "checkpoint.pt"), load_file(tmp_path / "straight" / "checkpoint.pt")
    for name in theirs["model"]:
        assert torch.equal(mine["model"][name], theirs["model"][name])


def test_train_distill_refuses_bad_configs(tmp_path):
    for args in (["--rounds", "0"], ["--self-play", "2"], ["--pool", "nobody"], ["--temperature", "-1"],
                 ["--teacher", "expert"], ["--teacher", "nobody"], ["--backend", "mpi"],
                 ["--pool-label-share", "1.5"], ["--play-ready-floor", "-0.1"]):
        with pytest.raises(SystemExit):
            D.main(args + ["--out", str(tmp_path), "--quiet"])
    assert not any(tmp_path.iterdir())  # nothing written


def test_the_learners_ready_floor_raises_ready_in_setup_and_changes_nothing_where_it_is_off():
    from shedders.envs.actions import ACTION_IDS

    ready = ACTION_IDS["ready"]
    cfg = D.Config(ruleset="south_african", hidden=32, play_ready_floor=0.5)
    assert D.ready_floor(cfg) == (ready, 0.5)
    assert D.ready_floor(D.Config(ruleset="south_african")) is None  # off by default
    assert D.ready_floor(D.Config(ruleset="omg", play_ready_floor=0.5)) is None  # no setup to floor
    torch.manual_seed(0)
    policy = D.fresh_policy(cfg)
    vg = shedders.VectorGame("south_african", 16, 4, seed=1)
    vg.reset()
    assert vg.action_mask[:, ready].all()  # every game in setup, ready legal
    obs, mask = np.repeat(vg.observation, 200, axis=0), np.repeat(vg.action_mask, 200, axis=0)
    plain = D.sample_policy(policy, obs, mask, np.random.default_rng(3), 0.1)
    floored = D.sample_policy(policy, obs, mask, np.random.default_rng(3), 0.1, D.ready_floor(cfg))
    assert np.all(mask[np.arange(len(mask)), floored] == 1)
    # a fresh network at 0.1 picks ready rarely; floored, at least half the time in every game
    assert (plain == ready).mean() < 0.3
    share = (floored == ready).reshape(16, 200).mean(axis=1)
    assert np.all(share > 0.5 - 4 * np.sqrt(0.25 / 200))
    # a floor the policy already clears changes no draw
    same = D.sample_policy(policy, obs, mask, np.random.default_rng(3), 0.1, (ready, 1e-12))
    assert np.array_equal(same, plain)


@pytest.mark.slow  # spawns two processes and starts Ray
def test_train_distill_labels_the_same_round_on_any_backend(tmp_path):
    """A round's chunks are seeded by their index: one process, two spawned processes and two Ray actors save
    the same labels, decision for decision."""
    torch.set_num_threads(1)
    base = {"games": 6, "chunk": 2, "teacher": TEACHER, "hidden": 32, "ply_cap": 200, "seed": 4}
    policy = D.fresh_policy(D.Config(**base))
    runs = {}
    for backend, workers in (("local", 1), ("local", 2), ("ray", 2)):
        cfg = D.Config(workers=workers, backend=backend, **base)
        run = tmp_path / f"{backend}{workers}"
        with D.Players(cfg) as players:
            D.play_round(cfg, run, policy, 1, players)
        runs[backend, workers] = D.load_labels(run, held_out=None)
    one = runs["local", 1]
    assert len(one["choice"]) > 50
    for key, other in runs.items():
        for field in ("obs", "ids", "values", "choice", "returns"):
            assert np.array_equal(one[field], other[field], equal_nan=True), (key, field)


def test_train_distill_refits_a_network_on_another_runs_labels(tmp_path):
    """``--labels-from RUN``: no play; passes over RUN's labels (its held-out chunks held out), the step size a
    cosine to 0; the network changes, its losses are finite, and the source run is left as it was. A refit asks no
    teacher, so one that could not label (no search at the table) does not stop it."""
    torch.set_num_threads(1)
    D.main(distill_args(tmp_path, "source", 1, "--games", "40"))
    source = tmp_path / "source"
    files = sorted((source / "data").iterdir())
    stamps = [f.stat().st_mtime_ns for f in files]
    out = D.main(["--ruleset", "core", "--rounds", "2", "--epochs", "1", "--hidden", "32", "--batch", "128",
                  "--labels-from", str(source), "--out", str(tmp_path), "--name", "refit", "--quiet",
                  "--seed", "1"])
    last = out["last"]
    assert out["counters"]["round"] == 2 and last["trained_on"] == len(D.load_labels(source)["choice"])
    assert math.isfinite(last["policy_loss"]) and math.isfinite(last["agree_held_out"])
    ck = load_file(tmp_path / "refit" / "checkpoint.pt")
    assert ck["optimizer"]["param_groups"][0]["lr"] < 0.01 * 1e-3  # the cosine ended near 0
    assert not (tmp_path / "refit" / "data").exists()
    assert sorted((source / "data").iterdir()) == files and [f.stat().st_mtime_ns for f in files] == stamps
    with pytest.raises(SystemExit):
        D.main(["--labels-from", str(tmp_path / "nothing"), "--out", str(tmp_path), "--name", "x", "--quiet"])
    assert not (tmp_path / "x").exists()
    # a refit asks no teacher, so a default teacher that is no search at this table (og's champion at 5 ms is its
    # network) does not stop it; the same teacher stops a run that plays
    og = ["--ruleset", "og", "--rounds", "1", "--epochs", "1", "--hidden", "32", "--out", str(tmp_path), "--quiet"]
    with pytest.raises(ValueError, match="teacher"):
        D.check(D.parse_args(og)[0])
    og_source = tmp_path / "og-source"
    D.main([*og, "--games", "4", "--chunk", "2", "--teacher", TEACHER, "--ply-cap", "300", "--name", "og-source"])
    refit = D.main([*og, "--labels-from", str(og_source), "--name", "og-refit"])
    assert refit["counters"]["round"] == 1 and math.isfinite(refit["last"]["policy_loss"])
