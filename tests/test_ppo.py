"""PPO: a tiny training run gives finite losses and an exact checkpoint round trip, --resume continues from the
same
counters, and masking means no illegal action is ever sampled."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

import agents
import shedders
from agents.ppo import Policy, legal_index, legal_log_probs, load, masked_logits, packed_legal, sample_masked
from experiments import train_ppo as P
from experiments.runlog import read_rows

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out

TINY = ["--num-envs", "8", "--num-steps", "16", "--hidden", "32", "--eval-every", "0", "--eval-deals", "2",
        "--snapshot-every", "1", "--checkpoint-every", "1", "--quiet"]


def run(tmp_path, *extra):
    return P.main([*TINY, "--out", str(tmp_path), "--name", "tiny", *extra])


def test_a_tiny_training_run_is_finite_and_its_checkpoint_round_trips(tmp_path):
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "384")
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert len(rows) == 3 and out["counters"]["update"] == 3 and out["counters"]["global_step"] == 384
    for r in rows:
        for k in ("loss", "pg_loss", "v_loss", "entropy", "approx_kl", "sps"):
            assert np.isfinite(float(r[k])), k
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    model = Policy(ck["obs_size"], ck["num_actions"], 32)
    model.load_state_dict(ck["model"])
    for k, v in model.state_dict().items():
        assert torch.equal(v, ck["model"][k])
    assert ck["counters"]["update"] == 3 and len(ck["pool"]) == 3
    assert set(ck["rng"]) == {"torch", "numpy", "python"}
    assert (tmp_path / "tiny" / "learning_curve.png").exists()
    assert (tmp_path / "tiny" / "eval.csv").exists()  # the final evaluation tournament against greedy and expert
    # the checkpoint is an agent: in the batched interface, a tournament spec and the AEC env
    agent = load(str(tmp_path / "tiny" / "checkpoint.pt"))
    env = shedders.env("core", 4)
    env.reset(seed=3)
    policy = agents.as_aec_policy(agent)
    for name in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else policy(env, name))
    made = agents.make_spec(f"ppo:checkpoint={tmp_path / 'tiny' / 'checkpoint.pt'}", "core", 4)
    assert made.counters == ck["counters"]


def test_resume_continues_from_the_same_counters(tmp_path):
    run(tmp_path, "--ruleset", "fatality", "--total-steps", "256")
    ck1 = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    out = run(tmp_path, "--ruleset", "fatality", "--total-steps", "512", "--resume")
    assert ck1["counters"]["update"] == 2 and out["counters"]["update"] == 4
    assert out["counters"]["global_step"] == 512 and out["counters"]["episodes"] >= ck1["counters"]["episodes"]
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert [int(r["update"]) for r in rows] == [1, 2, 3, 4]
    out = run(tmp_path, "--ruleset", "fatality", "--total-steps", "1024", "--num-envs", "16", "--resume")
    assert out["counters"]["update"] == 6 and out["counters"]["global_step"] == 1024  # 2 more of 256 steps each
    with pytest.raises(SystemExit):  # a checkpoint for another ruleset is refused
        run(tmp_path, "--ruleset", "core", "--total-steps", "640", "--resume")


def test_a_time_budget_stops_at_the_end_of_an_update_and_resume_goes_on(tmp_path):
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "1280", "--time-budget", "0.001")
    assert out["counters"]["update"] == 1 and out["counters"]["global_step"] == 128  # 10 updates asked, 1 made
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    assert ck["counters"]["update"] == 1
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "1280", "--resume")
    assert out["counters"]["update"] == 10 and out["counters"]["global_step"] == 1280


def test_init_fine_tunes_from_a_checkpoints_weights_with_fresh_counters(tmp_path):
    run(tmp_path, "--ruleset", "core", "--total-steps", "256")
    src = tmp_path / "tiny" / "checkpoint.pt"
    exported = agents.ppo.export(str(src), str(tmp_path / "slim.pt"))
    start = torch.load(src, weights_only=True)["model"]
    # with a zero step size the weights cannot move: the new run's network is the initial checkpoint's
    out = P.main([*TINY, "--out", str(tmp_path), "--name", "tuned", "--ruleset", "core", "--total-steps", "128",
                  "--lr", "0", "--init", str(exported)])
    assert out["counters"]["update"] == 1 and out["counters"]["global_step"] == 128
    tuned = torch.load(tmp_path / "tuned" / "checkpoint.pt", weights_only=True)["model"]
    for k, v in start.items():
        assert torch.equal(v, tuned[k]), k
    fresh = P.main([*TINY, "--out", str(tmp_path), "--name", "fresh", "--ruleset", "core", "--total-steps", "128",
                    "--lr", "0"])
    assert fresh["counters"]["update"] == 1
    other = torch.load(tmp_path / "fresh" / "checkpoint.pt", weights_only=True)["model"]
    assert not all(torch.equal(v, other[k]) for k, v in start.items())  # without --init: a new network
    for bad in (["--ruleset", "fatality"], ["--ruleset", "core", "--hidden", "16"]):  # another game, another width
        with pytest.raises(SystemExit):
            P.main([*TINY, "--out", str(tmp_path), "--name", "bad", "--total-steps", "128", "--init", str(src),
                    *bad])
    with pytest.raises(SystemExit):
        run(tmp_path, "--ruleset", "core", "--total-steps", "128", "--init", str(tmp_path / "nope.pt"))


def test_each_ruleset_starts_from_its_own_defaults_and_a_flag_given_wins():
    sa, _, _ = P.parse_args(["--ruleset", "south_african"])
    assert sa == P.Config.for_ruleset("south_african")
    assert (sa.self_play, sa.pool, sa.learner_seats, sa.pool_snapshots, sa.ply_cap) == (
        0.25, ["greedy", "expert", "expert", "expert"], 2, 3, 1000)
    og, _, _ = P.parse_args(["--ruleset", "og"])
    assert (og.self_play, og.pool, og.learner_seats, og.ply_cap) == (0.5, ["greedy", "expert"], 1, 1000)
    omg, _, _ = P.parse_args(["--ruleset", "omg"])
    assert omg == P.Config(ruleset="omg", squash_obs=True, shaping=0.05)  # what made its network learn at all
    assert P.parse_args([])[0] == P.Config.for_ruleset("core")  # core is the default ruleset
    given, _, _ = P.parse_args(["--ply-cap", "300", "--ruleset", "core", "--pool", "greedy", "--self-play", "0.5"])
    assert (given.ply_cap, given.pool, given.self_play, given.learner_seats) == (300, ["greedy"], 0.5, 2)
    assert P.Config.for_ruleset("core", ply_cap=50).ply_cap == 50


def test_the_same_seed_gives_the_same_run(tmp_path):
    for d in ("a", "b"):  # in one process, after other torch work: the seed alone must fix the run
        torch.rand(3)
        P.main([*TINY, "--out", str(tmp_path / d), "--name", "tiny", "--ruleset", "core", "--total-steps", "256"])
    a, b = (torch.load(tmp_path / d / "tiny" / "checkpoint.pt", weights_only=True) for d in ("a", "b"))
    assert a["counters"] == {**b["counters"], "seconds": a["counters"]["seconds"]}
    for k, v in a["model"].items():
        assert torch.equal(v, b["model"][k]), k


def test_anneal_lr_decays_linearly_and_resume_takes_the_command_lines_lr(tmp_path):
    run(tmp_path, "--ruleset", "core", "--total-steps", "256", "--lr", "0.001", "--anneal-lr")
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    assert ck["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.0005)  # update 2 of 2
    run(tmp_path, "--ruleset", "core", "--total-steps", "512", "--lr", "0.0002", "--resume")  # no anneal now
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert [float(r["lr"]) for r in rows] == pytest.approx([0.001, 0.0005, 0.0002, 0.0002])
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    assert ck["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.0002)


def test_learner_seats_draws_one_to_k_seats_for_the_network_in_pool_games():
    cfg = P.Config(ruleset="core", players=4, self_play=0.0, learner_seats=2, pool=["expert", "expert", "greedy"])
    opp = P.Opponents(cfg, np.random.default_rng(0), 400)
    opp.deal(np.arange(400))
    mine = (opp.controller < 0).sum(axis=1)
    assert set(mine.tolist()) == {1, 2} and 0.4 < (mine == 2).mean() < 0.6
    for row in opp.controller:  # the other seats are one pool member
        assert len(set(row[row >= 0].tolist())) == 1
    assert 0.55 < np.isin(opp.controller.max(axis=1), [0, 1]).mean() < 0.78  # expert listed twice: drawn 2/3
    cfg.learner_seats = 1
    opp.deal(np.arange(400))
    assert ((opp.controller < 0).sum(axis=1) == 1).all()


def test_a_game_dealt_against_a_snapshot_finishes_against_it_when_the_pool_drops_it():
    """Once the pool is full, a new snapshot drops the oldest: games already dealt against it play on against the
    same network (members are never renumbered) and are credited to the name it had at their deal."""
    cfg = P.Config(ruleset="core", players=4, self_play=0.0, pool=[], pool_snapshots=2)
    opp = P.Opponents(cfg, np.random.default_rng(0), 64)
    nets = [object(), object(), object()]
    opp.add_snapshot(nets[0])
    opp.add_snapshot(nets[1])
    opp.deal(np.arange(64))
    against_oldest = [g for g in range(64) if opp.dealt_as[g] == "snapshot-0"]
    assert against_oldest and all(opp.members[opp.controller[g].max()] is nets[0] for g in against_oldest)
    opp.add_snapshot(nets[2])  # the pool drops nets[0]
    assert opp.snapshots == [nets[1], nets[2]] and opp.names == ["snapshot-0", "snapshot-1"]
    for g in against_oldest:  # still played by nets[0], still credited as dealt
        assert opp.members[opp.controller[g].max()] is nets[0] and opp.dealt_as[g] == "snapshot-0"
    opp.deal(np.arange(64))  # every game redealt: nets[0] is freed, the new deals draw only from the pool
    assert nets[0] not in opp.members
    assert {id(opp.members[opp.controller[g].max()]) for g in range(64)} == {id(nets[1]), id(nets[2])}


def test_resume_purges_the_tensorboard_events_a_killed_run_wrote_after_its_checkpoint(tmp_path):
    """A killed run logs updates past its checkpoint; on --resume those are written again. TensorBoard's reader
    must
    see each update once (the resumed writer purges steps past the checkpoint), as progress.csv does."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run(tmp_path, "--ruleset", "core", "--total-steps", "512", "--checkpoint-every", "2")
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    assert ck["counters"]["update"] == 4
    # a kill after update 4's events: roll the checkpoint back to update 2's as if 3 and 4 were never saved
    run(tmp_path / "two", "--ruleset", "core", "--total-steps", "256")
    (tmp_path / "tiny" / "checkpoint.pt").write_bytes((tmp_path / "two" / "tiny" / "checkpoint.pt").read_bytes())
    run(tmp_path, "--ruleset", "core", "--total-steps", "512", "--resume")
    acc = EventAccumulator(str(tmp_path / "tiny"))
    acc.Reload()
    steps = [e.step for e in acc.Scalars("train/loss")]
    assert steps == sorted(set(steps)) and steps == [128, 256, 384, 512]
    with open(tmp_path / "tiny" / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["update"]) for r in rows] == [1, 2, 3, 4]


def test_resume_with_fewer_pool_snapshots_keeps_the_newest(tmp_path):
    run(tmp_path, "--ruleset", "core", "--total-steps", "512", "--pool-snapshots", "4")
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)
    assert len(ck["pool"]) == 4
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "1024", "--pool-snapshots", "2", "--self-play", "0",
              "--learner-seats", "3", "--resume")
    assert out["counters"]["update"] == 8
    assert len(torch.load(tmp_path / "tiny" / "checkpoint.pt", weights_only=True)["pool"]) == 2


def test_a_teacher_labels_real_choices_and_its_loss_is_logged(tmp_path):
    """--teacher search: the search agent gets the engine state (as does a search agent in the pool)."""
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "256", "--teacher", "search:budget=4",
              "--teacher-share", "1", "--self-play", "0.5", "--pool", "search:budget=2")  # search in the pool too
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert out["counters"]["update"] == 2
    for r in rows:
        assert np.isfinite(float(r["bc_loss"])) and float(r["bc_loss"]) > 0
        assert 0.0 <= float(r["teacher_agree"]) <= 1.0 and float(r["share_teacher"]) > 0
    with pytest.raises(SystemExit):
        run(tmp_path, "--ruleset", "core", "--total-steps", "128", "--teacher", "nobody", "--name", "bad")


def test_the_imitation_loss_moves_the_policy_to_the_teachers_choices():
    """ppo_update with teacher labels and zero advantages: the labelled actions gain probability, every other row's
    (unlabelled) policy is left to the PPO terms, and an illegal label is refused."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    n, obs_size, actions = 256, 24, 12
    model = Policy(obs_size, actions, 32)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    obs = torch.from_numpy(rng.integers(0, 2, (n, obs_size)).astype(np.int8))
    mask = torch.from_numpy(rng.random((n, actions)) < 0.5)
    mask[:, 0] = True
    teach = torch.tensor([int(rng.choice(np.flatnonzero(m.numpy()))) for m in mask])
    teach[n // 2:] = -1  # half the rows unlabelled
    with torch.no_grad():
        logits, value = model(obs.float())
        idx, valid = legal_index(mask)
        act, logp = sample_masked(logits, mask)

    def teacher_logp():
        with torch.no_grad():
            lp = legal_log_probs(model(obs.float())[0], idx, valid)
            pos = (idx[: n // 2] == teach[: n // 2, None]).to(torch.uint8).argmax(dim=1)
            return float(lp[: n // 2].gather(1, pos[:, None]).mean())

    cfg = P.Config(update_epochs=30, num_minibatches=2, ent_coef=0.0, bc_coef=1.0)
    zeros = torch.zeros(n)
    before = teacher_logp()
    stats = P.ppo_update(model, opt, cfg, obs, mask, act, logp, value, zeros, value.clone(), "cpu", rng, teach)
    assert teacher_logp() > before + 0.3 and np.isfinite(stats["bc_loss"])
    bad = teach.clone()
    row = int(np.flatnonzero((~mask).any(dim=1).numpy())[0])
    bad[row] = int(np.flatnonzero(~mask[row].numpy())[0])
    with pytest.raises(RuntimeError, match="illegal"):
        P.ppo_update(model, opt, cfg, obs, mask, act, logp, value, zeros, value.clone(), "cpu", rng, bad)


def test_omg_trains_too(tmp_path):
    out = run(tmp_path, "--ruleset", "omg", "--total-steps", "256", "--pool", "greedy")
    assert out["counters"]["update"] == 2


@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_reward_shaping_adds_up_to_the_first_potential_whatever_is_played(gamma):
    """Potential-based shaping: along each seat's trajectory the discounted shaping terms add up to minus the
    potential of its first decision (the terminal potential is 0), so no policy's return moves but by a
    constant."""
    rng = np.random.default_rng(0)
    t_len, b, n = 9, 3, 2
    rew = np.zeros((t_len, b), np.float32)
    last_t = np.full((b, n), -1, np.int64)
    seat_of = np.zeros((t_len, b), np.int64)
    first = np.zeros((b, n))
    for t in range(t_len):
        rows = np.arange(b)
        seats = np.full(b, t % n)
        phi = -rng.integers(1, 30, size=b).astype(np.float64)
        first[rows[last_t[rows, seats] < 0], seats[0]] = phi[last_t[rows, seats] < 0]
        P.add_shaping(rew, last_t, t, rows, seats, phi, gamma)
        last_t[rows, seats] = t
        seat_of[t] = seats
    for g in range(b):
        for s in range(n):
            ts = np.flatnonzero(seat_of[:, g] == s)
            total = sum(gamma**k * rew[t, g] for k, t in enumerate(ts))
            assert total == pytest.approx(-first[g, s], rel=1e-5)


def test_omg_trains_with_shaping_and_bad_shaping_is_refused(tmp_path):
    out = run(tmp_path, "--ruleset", "omg", "--total-steps", "256", "--pool", "greedy", "--shaping", "0.05")
    assert out["counters"]["update"] == 2
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert all(np.isfinite(float(r["loss"])) for r in rows)
    with pytest.raises(SystemExit):
        P.main([*TINY, "--out", str(tmp_path), "--name", "bad", "--ruleset", "omg", "--shaping", "-1"])
    assert not (tmp_path / "bad").exists()


def test_a_squashing_policy_is_the_plain_one_on_squashed_observations():
    torch.manual_seed(0)
    plain, squashing = Policy(40, 50, 16), Policy(40, 50, 16, squash=True)
    squashing.load_state_dict(plain.state_dict())  # the same weights: squashing adds no parameter
    x = torch.randint(-1, 90, (8, 40)).float()
    logits, value = squashing(x)
    want_logits, want_value = plain(torch.sign(x) * torch.log1p(x.abs()))
    assert torch.allclose(logits, want_logits) and torch.allclose(value, want_value)
    assert not torch.allclose(logits, plain(x)[0])


def test_squash_obs_is_saved_with_the_checkpoint_and_a_mismatch_is_refused(tmp_path):
    run(tmp_path, "--ruleset", "omg", "--total-steps", "256", "--pool", "greedy", "--squash-obs")
    path = tmp_path / "tiny" / "checkpoint.pt"
    ck = torch.load(path, weights_only=True)
    assert ck["config"]["squash_obs"] is True
    agent = agents.make("ppo", "omg", 4, checkpoint=str(path))
    assert agent.model.squash
    slim = agents.ppo.export(str(path), str(tmp_path / "slim.pt"))
    assert agents.make("ppo", "omg", 4, checkpoint=str(slim)).model.squash
    vg = shedders.VectorGame("omg", 16, 4, seed=1)
    vg.reset()
    with torch.no_grad():
        want = agent.model(torch.from_numpy(vg.observation).float())[0]
    assert torch.equal(agents.make("ppo", "omg", 4, checkpoint=str(slim)).model(
        torch.from_numpy(vg.observation).float())[0], want)
    # the flag differs from the checkpoint's
    for extra in (["--resume"], ["--name", "other", "--init", str(path)]):
        with pytest.raises(SystemExit):
            run(tmp_path, "--ruleset", "omg", "--total-steps", "512", "--pool", "greedy", "--no-squash-obs",
                *extra)


def test_masking_never_samples_an_illegal_action():
    rng = np.random.default_rng(0)
    model = Policy(40, 50, 16)
    for layer in model.modules():  # large random weights: the raw logits strongly prefer arbitrary actions
        if isinstance(layer, torch.nn.Linear):
            torch.nn.init.normal_(layer.weight, std=3.0)
    obs = torch.from_numpy(rng.normal(size=(4000, 40)).astype(np.float32))
    mask = torch.from_numpy(rng.random((4000, 50)) < 0.05)
    mask[torch.arange(4000), torch.from_numpy(rng.integers(0, 50, 4000))] = True
    logits, _ = model(obs)
    for _ in range(5):  # the sampler the training loop uses
        a, logp = sample_masked(logits, mask)
        assert mask[torch.arange(4000), a].all() and torch.isfinite(logp).all()
    assert (masked_logits(logits, mask).softmax(dim=1)[~mask] == 0).all()  # illegal: probability exactly 0
    assert not mask[torch.arange(4000), logits.argmax(dim=1)].all()  # unmasked, illegal actions would be chosen


def test_packed_legal_log_probs_equal_the_full_masked_softmax():
    """The update's softmax over each row's legal ids only is the masked softmax over every id, and the sampler
    draws each legal action at its probability."""
    rng = np.random.default_rng(1)
    logits = torch.from_numpy(rng.normal(size=(3000, 60)).astype(np.float32)) * 3
    mask = torch.from_numpy(rng.random((3000, 60)) < rng.random((3000, 1)) * 0.3)
    mask[torch.arange(3000), torch.from_numpy(rng.integers(0, 60, 3000))] = True
    idx, valid = legal_index(mask)
    assert idx.shape[1] == int(mask.sum(1).max()) and (valid.sum(1) == mask.sum(1)).all()
    assert mask.gather(1, idx)[valid].all() and (idx[:, 1:][valid[:, 1:]] > idx[:, :-1][valid[:, 1:]]).all()
    full = torch.log_softmax(masked_logits(logits, mask), dim=1)
    packed = legal_log_probs(logits, idx, valid)
    assert torch.allclose(packed[valid], full.gather(1, idx)[valid], atol=1e-5)
    assert (packed.exp()[~valid] == 0).all()
    row = torch.zeros((20000, 60), dtype=torch.bool)  # one row, sampled many times: frequencies match
    row[:, [3, 17, 42]] = True
    lg = torch.tensor([0.0, 1.0, 2.0]).repeat(20000, 1)
    full_lg = torch.zeros((20000, 60))
    full_lg[:, [3, 17, 42]] = lg
    a, logp = sample_masked(full_lg, row)
    want = torch.softmax(torch.tensor([0.0, 1.0, 2.0]), 0)
    got = torch.stack([(a == k).float().mean() for k in (3, 17, 42)])
    assert torch.allclose(got, want, atol=0.015)
    assert torch.allclose(logp, torch.log(want)[torch.bucketize(a, torch.tensor([3, 17, 42]))], atol=1e-5)


@pytest.mark.parametrize("ruleset", ["core", "og", "omg"])
def test_the_engines_legal_lists_pack_as_the_mask_does(ruleset):
    """packed_legal (the training rollout's, from VectorGame.legal_ids) equals legal_index of the mask, row for
    row,
    along random games (the engine lists ids in its own order; padding must not wrap to a negative id)."""
    vg = shedders.VectorGame(ruleset, 64, 4, seed=3)
    vg.reset()
    for _ in range(150):
        idx, valid = packed_legal(vg.legal_ids, vg.num_legal)
        want_idx, want_valid = legal_index(torch.from_numpy(vg.action_mask))
        assert torch.equal(idx, want_idx) and torch.equal(valid, want_valid)
        vg.step(vg.sample_legal())


def test_the_policy_head_over_the_batchs_legal_ids_equals_the_full_head():
    """Policy.legal computes the head only for the ids some row may take: its log-probabilities, value and
    gradients equal those of the full head with legal_log_probs."""
    torch.manual_seed(0)
    rng = np.random.default_rng(2)
    model = Policy(40, 300, 32)
    obs = torch.from_numpy(rng.integers(-1, 3, (500, 40)).astype(np.float32))
    mask = torch.from_numpy(rng.random((500, 300)) < 0.02)
    mask[torch.arange(500), torch.from_numpy(rng.integers(0, 150, 500))] = True  # ids >= 150: rarely legal
    idx, valid = legal_index(mask)
    grads = []
    for fn in (lambda: model.legal(obs, idx, valid),
               lambda: (legal_log_probs(model(obs)[0], idx, valid), model(obs)[1])):
        model.zero_grad()
        logp, value = fn()
        assert torch.isfinite(logp[valid]).all()
        (logp.masked_fill(~valid, 0).sum() + value.sum()).backward()
        grads.append((logp.detach(), value.detach(), [p.grad.clone() for p in model.parameters()]))
    (lp_a, v_a, g_a), (lp_b, v_b, g_b) = grads
    assert torch.allclose(lp_a[valid], lp_b[valid], atol=1e-5) and torch.allclose(v_a, v_b, atol=1e-6)
    assert all(torch.allclose(x, y, atol=1e-5) for x, y in zip(g_a, g_b))
    assert torch.allclose(model.value(obs), v_b, atol=1e-6)


def test_the_ppo_agent_only_chooses_legal_actions(tmp_path):
    run(tmp_path, "--ruleset", "og", "--total-steps", "128")
    for sample in (False, True):
        agent = agents.make("ppo", "og", 4, seed=1, checkpoint=str(tmp_path / "tiny" / "checkpoint.pt"),
                            sample=sample)
        vg = shedders.VectorGame("og", 64, 4, seed=2)
        vg.reset()
        for _ in range(100):
            vg.step(agent.act(vg.observation, vg.action_mask))  # step() refuses an illegal action


def test_bad_device_and_missing_checkpoint_are_refused(tmp_path):
    if not torch.cuda.is_available():
        with pytest.raises(SystemExit):
            run(tmp_path, "--device", "cuda", "--total-steps", "128")
    with pytest.raises(ValueError, match="no ppo checkpoint"):
        agents.make("ppo", "core", 4, checkpoint=str(tmp_path / "nope.pt"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_training_on_cuda_resumes_reproduces_and_plays_on_cpu(tmp_path):
    run(tmp_path, "--ruleset", "core", "--device", "cuda", "--total-steps", "256")
    ck = torch.load(tmp_path / "tiny" / "checkpoint.pt", map_location="cpu", weights_only=True)
    assert set(ck["rng"]) == {"torch", "torch_cuda", "numpy", "python"}
    out = run(tmp_path, "--ruleset", "core", "--device", "cuda", "--total-steps", "512", "--resume")
    assert out["counters"]["update"] == 4 and out["counters"]["global_step"] == 512
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert [int(r["update"]) for r in rows] == [1, 2, 3, 4]
    assert all(np.isfinite(float(r[k])) for r in rows for k in ("loss", "entropy", "approx_kl"))
    # the same seed gives the same run on the GPU too
    P.main([*TINY, "--out", str(tmp_path / "again"), "--name", "tiny", "--ruleset", "core", "--device", "cuda",
            "--total-steps", "256"])
    a = torch.load(tmp_path / "again" / "tiny" / "checkpoint.pt", map_location="cpu", weights_only=True)
    for k, v in a["model"].items():
        torch.testing.assert_close(v, ck["model"][k])
    # a GPU-trained checkpoint is a CPU agent
    agent = load(str(tmp_path / "tiny" / "checkpoint.pt"))
    vg = shedders.VectorGame("core", 64, 4, seed=2)
    vg.reset()
    for _ in range(50):
        vg.step(agent.act(vg.observation, vg.action_mask))


def test_an_exported_checkpoint_is_the_same_agent(tmp_path):
    from agents.ppo import export

    run(tmp_path, "--ruleset", "core", "--total-steps", "128")
    src = tmp_path / "tiny" / "checkpoint.pt"
    dst = export(str(src), str(tmp_path / "slim.pt"))
    assert dst.stat().st_size < src.stat().st_size
    a, b = load(str(src), sample=False), load(str(dst), sample=False)
    vg = shedders.VectorGame("core", 32, 4, seed=5)
    vg.reset()
    np.testing.assert_array_equal(a.act(vg.observation, vg.action_mask), b.act(vg.observation, vg.action_mask))


def test_temperature_sharpens_the_sampled_policy_toward_its_most_likely_action():
    vg = shedders.VectorGame("core", 256, 4, seed=4)
    vg.reset()
    for _ in range(40):  # past the swap phase, into positions with several legal actions
        vg.step(vg.sample_legal())
    several = vg.action_mask.sum(axis=1) > 1
    greedy = agents.make("ppo", "core", 4, sample=False).act(vg.observation, vg.action_mask)
    agree = {}
    for t in (1.0, 0.05):
        agent = agents.make_spec(f"ppo:temperature={t}", "core", 4, seed=3)
        picks = np.stack([agent.act(vg.observation, vg.action_mask) for _ in range(20)])
        assert vg.action_mask[np.arange(256), picks].all()
        agree[t] = float((picks == greedy)[:, several].mean())
    assert agree[0.05] > 0.97 and agree[1.0] < agree[0.05] - 0.05
    with pytest.raises(ValueError, match="temperature"):
        agents.make("ppo", "core", 4, temperature=0)


def test_the_committed_core_checkpoint_is_an_agent():
    agent = agents.make("ppo", "core", 4, seed=0)  # agents/checkpoints/core-4p.pt
    assert agent.counters["global_step"] > 1_000_000
    vg = shedders.VectorGame("core", 128, 4, seed=9)
    vg.reset()
    for _ in range(200):
        vg.step(agent.act(vg.observation, vg.action_mask))
    with pytest.raises(ValueError, match="no ppo checkpoint"):
        agents.make("ppo", "og", 5)  # none committed at 5 players


def test_house_without_toggles_uses_the_core_checkpoint_and_toggles_need_their_own():
    vg = shedders.VectorGame("house", 16, 4, seed=2)
    vg.reset()
    house = agents.make("ppo", "house", 4, seed=1, sample=False)
    core = agents.make("ppo", "core", 4, seed=1, sample=False)
    assert house.path == core.path
    assert np.array_equal(house.act(vg.observation, vg.action_mask), core.act(vg.observation, vg.action_mask))
    with pytest.raises(ValueError, match="house-4p.pt"):
        agents.make("ppo", "house", 4, rules={"skip_8": True})  # eights skip in this house: not core's game
    with pytest.raises(ValueError, match="trained for core"):
        agents.make("ppo", "og", 4, checkpoint=core.path)


@pytest.mark.parametrize("ruleset", ["og", "fatality", "south_african", "house", "omg"])
def test_every_committed_checkpoint_is_a_legal_agent(ruleset):
    """agents.make("ppo", ruleset) loads the committed checkpoint (house: core's) and plays legal moves only."""
    vg = shedders.VectorGame(ruleset, 32, 4, seed=5)
    vg.reset()
    agent = agents.make("ppo", ruleset, 4, seed=0)
    for _ in range(150):
        a = agent.act(vg.observation, vg.action_mask)
        assert np.all(vg.action_mask[np.arange(32), a] == 1)
        vg.step(a)


def test_ready_floor_raises_ready_to_the_floor_and_keeps_the_rest_in_proportion():
    from agents.ppo import floor_action

    p = np.array([[0.6, 0.39, 0.01, 0.0], [0.2, 0.3, 0.5, 0.0], [0.5, 0.5, 0.0, 0.0]])
    mask = np.array([[1, 1, 1, 0], [1, 1, 1, 0], [1, 1, 0, 0]], np.int8)
    q = floor_action(p, mask, 2, 0.1)
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    assert q[0, 2] == pytest.approx(0.1) and q[0, 0] / q[0, 1] == pytest.approx(0.6 / 0.39)
    np.testing.assert_array_equal(q[1:], p[1:])  # already above the floor; not legal


def test_the_packed_floor_is_the_agents_floor_and_keeps_its_gradients_finite():
    """``floor_log_probs`` (training's ``--ready-floor``) gives what ``floor_action`` gives the playing agent, on
    packed rows, and backpropagates without a NaN where ready already has all the mass."""
    from agents.ppo import floor_action, floor_log_probs

    rng = np.random.default_rng(2)
    logits = torch.from_numpy(rng.normal(size=(500, 40)).astype(np.float32)) * 4
    mask = torch.from_numpy(rng.random((500, 40)) < 0.2)
    mask[:, 7] = torch.from_numpy(rng.random(500) < 0.7)  # action 7 legal in about 70% of the rows
    mask[0] = False
    mask[0, 7] = True  # a row where 7 is the only legal action (probability 1)
    mask[1, 2] = True  # and every row has a legal action
    mask[torch.arange(500), torch.from_numpy(rng.integers(0, 40, 500))] = True
    logits.requires_grad_(True)
    idx, valid = legal_index(mask)
    packed = floor_log_probs(legal_log_probs(logits, idx, valid), idx, 7, 0.2)
    full = torch.softmax(masked_logits(logits, mask), dim=1).detach().numpy()
    want = floor_action(full, mask.numpy().astype(np.int8), 7, 0.2)
    got = np.zeros_like(want)
    v = valid.numpy()
    got[np.nonzero(v)[0], idx.numpy()[v]] = packed.exp().detach().numpy()[v]  # padding points at id 0: left out
    np.testing.assert_allclose(got, want, atol=1e-5)
    raised = mask[:, 7].numpy() & (full[:, 7] < 0.2)
    assert raised.sum() > 50 and np.allclose(got[raised, 7], 0.2, atol=1e-6)
    packed[valid].sum().backward()
    assert torch.isfinite(logits.grad).all()


def test_training_with_a_ready_floor_runs_and_bad_floors_are_refused(tmp_path, capsys):
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "256", "--ready-floor", "0.05")
    assert out["counters"]["update"] == 2
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert all(np.isfinite(float(r[k])) for r in rows for k in ("loss", "pg_loss", "entropy", "approx_kl"))
    for bad in (["--ruleset", "core", "--ready-floor", "1.0"], ["--ruleset", "omg", "--ready-floor", "0.05"]):
        with pytest.raises(SystemExit):
            P.main([*TINY, "--out", str(tmp_path), "--name", "bad", *bad])
        assert "ready_floor" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def test_training_at_a_temperature_trains_the_policy_the_agent_plays_at_it(tmp_path):
    """``--temperature T`` with a ready floor: the packed log-probabilities the update trains are the distribution
    the ``ppo`` agent samples at ``temperature=T`` with the same floor, over real core observations."""
    from agents.ppo import floor_action
    from experiments.train_ppo import Config, played_log_probs

    agent = agents.make("ppo", "core", 4, seed=0, temperature=0.25, ready_floor=0.05)
    vg = shedders.VectorGame("core", 256, 4, seed=5)
    vg.reset()
    for _ in range(12):
        vg.step(agent.act(vg.observation, vg.action_mask))
    obs, mask = vg.observation.copy(), vg.action_mask.copy()
    assert 20 < (mask[:, P.READY] == 1).sum() < 236  # games in setup (ready legal) and in play
    want = agent.probabilities(obs, mask)
    want = floor_action(want, mask, P.READY, 0.05)
    cfg = Config(ruleset="core", temperature=0.25, ready_floor=0.05)
    idx, valid = packed_legal(vg.legal_ids, vg.num_legal)
    with torch.no_grad():
        logp, _ = agent.model.legal(torch.from_numpy(obs).float(), idx, valid)
        got_packed = played_log_probs(cfg, logp, idx).exp().numpy()
    got = np.zeros_like(want)
    v = valid.numpy()
    got[np.nonzero(v)[0], idx.numpy()[v]] = got_packed[v]
    np.testing.assert_allclose(got, want, atol=1e-5)
    cold = played_log_probs(Config(ruleset="core", temperature=1.0), logp, idx).exp().numpy()
    assert np.abs(cold - got_packed)[v].max() > 0.05  # the temperature changes what is trained


def test_training_at_a_temperature_runs_and_bad_temperatures_are_refused(tmp_path, capsys, monkeypatch):
    seen = []
    real = P.T.run
    monkeypatch.setattr(P.T, "run", lambda tc, **kw: seen.append(list(tc.agents)) or real(tc, **kw))
    out = run(tmp_path, "--ruleset", "core", "--total-steps", "256", "--temperature", "0.1",
              "--ready-floor", "0.05")
    assert out["counters"]["update"] == 2
    rows = read_rows(tmp_path / "tiny" / "progress.csv")
    assert all(np.isfinite(float(r[k])) for r in rows for k in ("loss", "pg_loss", "entropy", "approx_kl"))
    assert seen and seen[-1][0].endswith("checkpoint.pt+temperature=0.1+ready_floor=0.05")  # evaluated as trained
    for bad in ("0", "-1", "inf"):
        with pytest.raises(SystemExit):
            P.main([*TINY, "--out", str(tmp_path), "--name", "bad", "--temperature", bad])
        assert "temperature" in capsys.readouterr().err and not (tmp_path / "bad").exists()


def test_the_ppo_agent_says_ready_at_least_at_its_floor_in_setup():
    from shedders.envs.palace_env import ACTION_IDS

    vg = shedders.VectorGame("core", 1, 4, seed=3)
    vg.reset()
    ready = ACTION_IDS["ready"]
    assert vg.action_mask[0, ready] and vg.action_mask[0].sum() > 1  # a setup decision with swaps to make
    obs, mask = np.repeat(vg.observation, 4000, axis=0), np.repeat(vg.action_mask, 4000, axis=0)
    for floor in (0.3, 0.9):
        agent = agents.make("ppo", "core", 4, seed=1, ready_floor=floor)
        assert (agent.act(obs, mask) == ready).mean() >= floor - 0.03
    with pytest.raises(ValueError, match="ready_floor"):
        agents.make("ppo", "core", 4, ready_floor=1.5)


@pytest.mark.parametrize("cap_rule", ["truncate", "most_cards"])
def test_the_truncation_penalty_charges_the_seats_still_in_under_either_cap_rule(cap_rule):
    """A 30-decision cap ends every core game before anyone can go out: each rule charges every seat (under
    most_cards the env places every seat, so who is still in is read before the capping step)."""
    import shedders
    from experiments.train_ppo import capped_seats

    vg = shedders.VectorGame("core", 8, 4, seed=0, autoreset=False, ply_cap=30, cap_rule=cap_rule)
    vg.reset()
    rnd = agents.make("random", "core", 4, seed=0)
    charged = []
    while (vg.num_legal > 0).any():
        live = np.flatnonzero(vg.num_legal > 0)
        still_in = vg.state.finished == 0
        acts = np.full(8, -1, np.int64)
        acts[live] = rnd.act(vg.observation[live], vg.action_mask[live])
        vg.step(acts)
        charged += capped_seats(vg, still_in, cap_rule)
    assert vg.truncated.all()
    assert sorted(charged) == [(g, s) for g in range(8) for s in range(4)]
    if cap_rule == "most_cards":
        assert (vg.final_placing >= 0).all()  # every seat placed by cards, and still charged
    else:
        assert (vg.final_placing < 0).all()  # nobody placed


def test_training_sets_both_thread_pools_itself(tmp_path, monkeypatch):
    """train_ppo sets numba's threads (engine_threads, default 1: no OpenMP region whose spinning workers starve
    torch's threads on a busy machine) and torch's (threads), whatever the environment says."""
    import numba

    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    before = torch.get_num_threads()
    run(tmp_path, "--ruleset", "core", "--total-steps", "128", "--threads", "1")
    assert numba.get_num_threads() == 1 and torch.get_num_threads() == 1
    for bad in (["--engine-threads", "0"], ["--threads", "-1"]):
        with pytest.raises(SystemExit):
            run(tmp_path / "bad", "--ruleset", "core", "--total-steps", "128", *bad)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    torch.set_num_threads(before)


def test_the_training_log_sums_each_games_rewards():
    """A rigged game: in core a seat that goes out is paid +1/3 at once, and the Shithead's -1 comes with the last
    step. The logged result is the seat's whole game (as a tournament sums it), not the last step's reward: an
    equal player reads par, not -1/6 (the log read par as a loss before)."""
    import types

    cfg = P.Config(ruleset="core", players=4, self_play=0.0, pool=["greedy"], learner_seats=1)
    opp = P.Opponents(cfg, np.random.default_rng(0), 1)
    opp.deal(np.arange(1))
    me = int(np.flatnonzero(opp.controller[0] < 0)[0])
    buf = P.Rollout.allocate(4, 1, 4, 8)
    results: dict = {}
    steps = [np.zeros(4), np.zeros(4), np.zeros(4)]
    steps[0][me] = 1 / 3  # the learner goes out first: paid at once
    steps[1][(me + 1) % 4] = 1 / 3
    steps[2][(me + 2) % 4], steps[2][(me + 3) % 4] = 1 / 3, -1.0  # the last step: the learner's reward there is 0
    for t, rew in enumerate(steps):
        done = t == len(steps) - 1
        vg = types.SimpleNamespace(rewards=rew[None], terminated=np.array([done]), truncated=np.array([False]))
        P.credit(cfg, vg, buf, None, opp, results)
    assert results == {"greedy": [pytest.approx(1 / 3)]}
    assert opp.totals[0].tolist() == [0.0] * 4  # a new deal starts a new sum


@pytest.mark.parametrize("temperature, floor", [(1.0, 0.3), (0.5, 0.0)])
def test_snapshots_play_as_the_learner_plays_with_snapshot_play_learner(temperature, floor):
    """--snapshot-play learner: a snapshot samples the policy the ppo agent plays at the run's temperature and
    ready floor (the floor's effect shows in setup, where ready is legal); the default plays its argmax."""
    from agents.ppo import floor_action

    vg = shedders.VectorGame("core", 64, 4, seed=6)
    vg.reset()  # setup: swaps and ready are legal
    agent = agents.make_spec(f"ppo:temperature={temperature}+ready_floor={floor}", "core", 4, seed=0)
    raw = agent.probabilities(vg.observation, vg.action_mask)
    want = floor_action(raw, vg.action_mask, P.READY, floor) if floor else raw
    rows = np.arange(64)
    cfg = P.Config(ruleset="core", players=4, self_play=0.0, pool=[], temperature=temperature, ready_floor=floor,
                   snapshot_play="learner")
    opp = P.Opponents(cfg, np.random.default_rng(0), 64)
    opp.add_snapshot(agent.model)
    torch.manual_seed(0)
    draws = 400
    picks = np.stack([opp.act(0, vg, rows, "cpu") for _ in range(draws)])
    assert vg.action_mask[rows, picks].all()
    freq = np.stack([np.bincount(picks[:, r], minlength=want.shape[1]) for r in rows]) / draws
    assert np.abs(freq - want).max() < 5 * np.sqrt(0.25 / draws)
    if floor:
        assert (freq[:, P.READY] >= floor - 5 * np.sqrt(0.25 / draws)).all()
    cfg.snapshot_play = "argmax"
    argmax = opp.act(0, vg, rows, "cpu")
    np.testing.assert_array_equal(argmax, raw.argmax(axis=1))  # no floor: at its temperature or not, the same
    cfg.snapshot_play = "softly"
    with pytest.raises(ValueError, match="snapshot_play"):
        P.check_config(cfg)
