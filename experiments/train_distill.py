"""Distilling the search into a network (DAgger): a network that plays like the champion, from its observation
alone.

    python -m experiments.train_distill --ruleset core --rounds 4 --games 1024 --workers 2
    python -m experiments.train_distill --ruleset core --name distill-core --resume      # continue a killed run

Each round:

1. **Play and label.** ``--games`` games to their end, in chunks of ``--chunk``. A share ``--self-play`` of the
   games seats the learner everywhere; the others seat it once, against ``--pool`` in the other seats (one pool
   agent a game, drawn). In round 0 the learner's seats are played by the teacher (``--teacher``, a search agent
   spec: ``champion:time_budget=0.005`` by default), so the first data is the teacher's own play; from round 1 on
   they are played by the current network, sampled from its policy at ``--play-temperature``. The teacher labels
   every decision of the learner's seats with a real choice (more than one legal action), and a share
   ``--pool-label-share`` of the pool seats' (states the learner meets against that field): its choice and the
   mean rollout value of each legal action (``SearchAgent.evaluate``). A ``guided`` teacher (south_african's
   champion at every budget) values its ``top_k`` candidates only (``GuidedSearchAgent.evaluate``), and no action
   of a decision it plays by its policy (setup): the target is then its choice, a sample of that policy. This is
   DAgger (Ross, Gordon and Bagnell, AISTATS 2011): the network learns the teacher's decisions in the states its
   own play reaches, not only in the teacher's.
2. **Learn.** ``--epochs`` passes over every labelled decision so far (DAgger's aggregate), the network carried
   over from the round before (round 0: a fresh one, ``--hidden`` wide, or ``--init``'s): cross-entropy to the
   teacher's values made a policy, ``softmax(value / --temperature)`` over the actions it valued (``--temperature
   0``: the teacher's choice alone), and the value head towards each decision's return (``--vf-coef``). Every
   20th chunk of a round is held out of the training, for the held-out columns of ``progress.csv``.

Before a round's learning, the network is measured on the round's new labels (states it has not trained on):
``agree`` (its most likely action is the teacher's choice), ``regret`` (the teacher's value of its own choice minus
that of the network's most likely action: what the network gives away, as the teacher sees it; over the decisions
where the teacher valued both) and ``ce`` (the cross-entropy to the targets).

Where it runs: a round's chunks play here, on ``--workers`` spawned processes or on ``--workers`` Ray actors
(``--backend ray``), through ``experiments.train_exit.Players``. Every draw of a chunk (deals, seats, the teacher's
and the learner's) comes from the seed, the round and the chunk's index, so a round's labels are the same on any
backend and any number of workers. The search labels are the cost (a champion decision is milliseconds), so they
are what the workers spread.

Writes ``runs/<name>/``: ``data/r<round>-c<chunk>.npz`` (one chunk's labels, written atomically as it arrives: a
killed run keeps its finished chunks and ``--resume`` replays only the others, with the same network, to the same
labels), ``checkpoint.pt`` after each round's learning (atomic; a ``ppo`` checkpoint, so the network plays as
``ppo:checkpoint=runs/<name>/checkpoint.pt``), ``progress.csv`` (a row per round) and ``config.json``.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

import agents as agents_pkg
import shedders
from agents.base import act_in
from agents.ppo import load_file, policy_from, same_game, save_file
from experiments import ray_backend
from experiments.runlog import as_tuples, log_row, run_command, trim_log
from experiments.train_exit import Players
from experiments.train_ppo import set_threads
from shedders.commandline import build_parser, config_from
from shedders.vector import game_seeds

#: every ``HOLDOUT``-th chunk of a round (the last of each group) is held out of the training
HOLDOUT = 20


@dataclass
class Config:
    """Every field is a command-line flag (``--games 256``)."""

    ruleset: str = "core"
    players: int = 4  # seats at the table
    rounds: int = 4  # play-label-learn rounds in all (a resumed run goes on to this many)
    games: int = 512  # games a round plays to their end
    # the search that labels (and plays round 0): an agent spec whose agent has ``evaluate`` (search, oracle,
    # guided, or a champion whose table picks one of them); a refit (--labels-from) asks no teacher and ignores it
    teacher: str = "champion:time_budget=0.005"
    pool_label_share: float = 0.25  # share of the pool seats' real decisions the teacher labels too
    self_play: float = 0.5  # share of games where the learner holds every seat
    pool: list[str] = field(default_factory=lambda: ["expert"])  # the other games' opponents, one drawn per game
    # the learner's play from round 1: its policy sampled at this temperature (1: as trained; the distilled
    # policy at 1 spreads over near-equal actions and plays far below its most likely action)
    play_temperature: float = 0.1
    # the learner's ``ready`` raised to at least this share where it is legal (the palace setup's swaps: a network
    # sampled at a low temperature can swap until the cap; 0: off), after the temperature, as ``ppo:ready_floor``
    play_ready_floor: float = 0.0
    hidden: int = 512  # width of a fresh network's two hidden layers
    squash_obs: bool = True  # a fresh network reads sign(x) log(1 + |x|) of the observation
    init: str = ""  # a checkpoint to start from ("": a fresh network)
    epochs: int = 4  # passes over every label so far, each round
    batch: int = 512  # minibatch size
    lr: float = 1e-3  # Adam's step size
    temperature: float = 0.02  # the target policy: softmax(teacher's value / temperature); 0: its choice alone
    vf_coef: float = 0.25  # weight of the value head's loss (towards the returns)
    seed: int = 0  # seeds the deals, torch, numpy and every agent
    threads: int = 0  # torch threads for the learning (0: torch's default, one per core)
    engine_threads: int = 1  # numba threads of the labelling search when it runs here
    ply_cap: int = 1000  # decisions after which a game is capped
    cap_rule: str = "most_cards"  # how a capped game ends (every seat is placed, so every decision has a return)
    chunk: int = 16  # games per chunk: the unit of work spread over the workers, and of seeding and saving
    workers: int = 1  # processes (local backend) or Ray actors that play a round's chunks, one CPU each
    backend: str = "local"  # local (here, or --workers spawned processes) or ray
    out: str = "runs"  # the folder that holds the run directory
    name: str | None = None  # the run directory's name (none: distill-<ruleset>-<players>p-seed<seed>)
    # refit: learn from the labels another run saved (its run directory) instead of playing; --rounds counts
    # passes of --epochs each over all of them, the step size falling as a cosine to zero over the whole fit
    labels_from: str = ""

    def run_name(self) -> str:
        return self.name or f"distill-{self.ruleset}-{self.players}p-seed{self.seed}"


def teacher_search(agent):
    """The search inside a teacher agent (a champion holds one as ``inner``), or ``ValueError`` where there is
    none to ask for its values."""
    inner = getattr(agent, "inner", agent)
    if not hasattr(inner, "evaluate"):
        raise ValueError(f"the teacher must be a search that values its actions (search, oracle, guided, or a "
                         f"champion that searches at this table), got {agent!r}")
    return inner


def check(cfg: Config) -> None:
    """``ValueError`` for a config that cannot run, before anything is written."""
    shedders.make_rules(cfg.ruleset, cfg.players)
    if cfg.backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {cfg.backend!r}; allowed: local, ray")
    if cfg.backend == "ray":
        ray_backend.require_ray()
    for key in ("rounds", "games", "hidden", "epochs", "batch", "ply_cap", "chunk", "workers"):
        if getattr(cfg, key) < 1:
            raise ValueError(f"{key} must be at least 1, got {getattr(cfg, key)}")
    for key in ("pool_label_share", "self_play", "play_ready_floor"):
        if not 0.0 <= getattr(cfg, key) <= 1.0:
            raise ValueError(f"{key} must be in [0, 1], got {getattr(cfg, key)}")
    if cfg.lr <= 0 or cfg.temperature < 0 or cfg.vf_coef < 0 or cfg.play_temperature <= 0:
        raise ValueError("lr and play_temperature must be positive, temperature and vf_coef at least 0")
    for spec in cfg.pool:
        if agents_pkg.parse_agent(spec)[0] not in agents_pkg.offered_agents(cfg.ruleset):
            raise ValueError(f"unknown pool agent {spec!r} for {cfg.ruleset}")
    if cfg.labels_from and not load_labels(Path(cfg.labels_from), rounds=range(1), held_out=None, count=True):
        raise ValueError(f"--labels-from {cfg.labels_from}: no labels there (a train_distill run directory holds "
                         f"them in data/)")
    if cfg.self_play < 1.0 and not cfg.pool:
        raise ValueError("--pool is empty, so every game must be self-play (--self-play 1)")
    if not cfg.labels_from:  # a refit learns from labels already made: it never asks the teacher
        teacher_search(agents_pkg.make_spec(cfg.teacher, cfg.ruleset, cfg.players, seed=0))
    if cfg.init:
        ck = load_file(cfg.init)
        if ck["config"]["players"] != cfg.players or not same_game(ck["config"]["ruleset"], cfg.ruleset,
                                                                      cfg.players):
            raise ValueError(f"{cfg.init} was trained for {ck['config']['ruleset']} at {ck['config']['players']} "
                             f"players")


# ----------------------------------------------------------------------------------------------------------------
# One chunk of play, labelled
# ----------------------------------------------------------------------------------------------------------------
def network_payload(policy) -> dict | None:
    """What a worker needs to rebuild the learner (None in round 0, where the teacher plays its seats)."""
    if policy is None:
        return None
    return {"model": policy.state_dict(), "config": {"hidden": policy.hidden, "squash_obs": policy.squash},
            "obs_size": policy.obs_size, "num_actions": policy.num_actions}


def label_chunk(payload: dict, round_no: int, chunk: int, games: int) -> dict:
    """Games ``chunk * cfg.chunk`` onwards of round ``round_no`` (``games`` of them), played to their end and
    labelled by the teacher; every draw comes from the seed, the round and the chunk."""
    cfg = Config(**payload["config"])
    policy = policy_from(payload["policy"]).eval() if payload["policy"] is not None else None
    n, b = cfg.players, games
    seed = cfg.seed + 7919 * round_no
    rng = np.random.default_rng([cfg.seed, round_no, chunk])
    vg = shedders.VectorGame(cfg.ruleset, b, n, seed=seed, ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule,
                             autoreset=False)
    vg.reset(seeds=game_seeds(seed, b, start=chunk * cfg.chunk))
    agent_seed = int(np.random.default_rng([cfg.seed, round_no, chunk, 1]).integers(2**31))
    teacher = teacher_search(agents_pkg.make_spec(cfg.teacher, cfg.ruleset, n, seed=agent_seed))
    pool = [agents_pkg.make_spec(s, cfg.ruleset, n, seed=agent_seed + 3 + i) for i, s in enumerate(cfg.pool)]
    ctrl = np.full((b, n), -1, np.int64)  # who holds each seat: -1 the learner, k >= 0 pool member k
    for g in range(b):
        if pool and rng.random() >= cfg.self_play:
            ctrl[g] = int(rng.integers(len(pool)))
            ctrl[g, rng.integers(n)] = -1
    collected = np.zeros((b, n))
    rec: dict[str, list] = {k: [] for k in ("obs", "ids", "values", "choice", "game", "seat", "before", "learner")}
    decisions = 0
    while True:
        live = np.flatnonzero(vg.current_player >= 0)  # a finished game's player is -1
        if not len(live):
            break
        decisions += len(live)
        cur = vg.current_player[live].astype(np.int64)
        mine = ctrl[live, cur] < 0
        real = vg.num_legal[live] > 1
        labelled = real & (mine | (rng.random(len(live)) < cfg.pool_label_share))
        actions = np.full(b, -1, np.int64)
        rows = live[labelled]
        if len(rows):
            chosen, ids, values = teacher.evaluate(vg.state, rows)
            _record(rec, vg, rows, chosen, ids, values, collected, ctrl)
            if policy is None:  # round 0: the teacher's choices are played in the learner's seats
                own = ctrl[rows, vg.current_player[rows].astype(np.int64)] < 0
                actions[rows[own]] = chosen[own]
        todo = live[mine & (actions[live] < 0)]
        if len(todo):
            if policy is None:
                actions[todo] = act_in(teacher, vg, todo)  # a single legal action: nothing to search
            else:
                actions[todo] = sample_policy(policy, vg.observation[todo], vg.action_mask[todo], rng,
                                              cfg.play_temperature, ready_floor(cfg))
        for k in np.unique(ctrl[live, cur][~mine]):
            at = live[~mine & (ctrl[live, cur] == k)]
            actions[at] = act_in(pool[k], vg, at)
        vg.step(actions, check=False)
        collected += vg.rewards
    game, seat = _cat(rec["game"], np.int64), _cat(rec["seat"], np.int64)
    width = max([x.shape[1] for x in rec["ids"]], default=1)
    return {
        "round": round_no, "chunk": chunk, "games": b, "decisions": decisions,
        "obs": _cat(rec["obs"], np.int8).reshape(len(game), vg.observation_size),
        "ids": _pad([x.astype(np.int16) for x in rec["ids"]], width, -1, np.int16),
        "values": _pad([x.astype(np.float32) for x in rec["values"]], width, np.nan, np.float32),
        "choice": _cat(rec["choice"], np.int8),
        "returns": (collected[game, seat] - _cat(rec["before"], np.float64)).astype(np.float32),
        "learner": _cat(rec["learner"], bool),
        "capped": int(vg.truncated.sum()),
    }


def _record(rec: dict, vg, rows, chosen, ids, values, collected, ctrl) -> None:
    """The labelled decisions ``rows``: each row's legal ids in increasing order (as ``agents.ppo.legal_index``
    packs them) with the teacher's values in the same order, and the teacher's choice as a column of them."""
    key = np.where(ids >= 0, ids, np.iinfo(np.int64).max)
    order = np.argsort(key, axis=1, kind="stable")
    ids = np.take_along_axis(ids, order, axis=1)
    values = np.take_along_axis(values, order, axis=1)
    choice = np.argmax(ids == chosen[:, None], axis=1)
    assert (ids[np.arange(len(rows)), choice] == chosen).all(), "the teacher chose an action it did not value"
    seats = vg.current_player[rows].astype(np.int64)
    rec["obs"].append(vg.observation[rows].copy())
    rec["ids"].append(ids)
    rec["values"].append(values)
    rec["choice"].append(choice)
    rec["game"].append(rows.copy())
    rec["seat"].append(seats)
    rec["before"].append(collected[rows, seats].copy())
    rec["learner"].append(ctrl[rows, seats] < 0)


def _cat(parts: list, dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)


def _pad(parts: list, width: int, fill, dtype) -> np.ndarray:
    if not parts:
        return np.zeros((0, width), dtype)
    return np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=fill) for p in parts])


def ready_floor(cfg: Config) -> tuple[int, float] | None:
    """(the ``ready`` action's id, ``cfg.play_ready_floor``) where the floor is on and the table has a setup."""
    from shedders.envs.actions import ACTION_IDS
    from shedders.envs.family import family_of

    if cfg.play_ready_floor <= 0 or not family_of(cfg.ruleset).setup_phase:
        return None
    return ACTION_IDS["ready"], cfg.play_ready_floor


def sample_policy(policy, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
                  temperature: float = 1.0, floor: tuple[int, float] | None = None) -> np.ndarray:
    """One action per row, sampled with ``rng`` from the network's policy over the legal actions at
    ``temperature`` (probabilities raised to ``1 / temperature``, renormalised); ``floor`` = (action, share):
    that action's probability then raised to at least ``share`` where it is legal (``agents.ppo.floor_action``)."""
    from agents.ppo import floor_action, legal_index

    with torch.inference_mode():
        idx, valid = legal_index(torch.from_numpy(np.ascontiguousarray(mask)).bool())
        logp, _ = policy.legal(torch.from_numpy(np.ascontiguousarray(obs)).float(), idx, valid)
    logp = logp / temperature
    p = (logp - logp.max(dim=1, keepdim=True).values).exp().masked_fill(~valid, 0.0).numpy().astype(np.float64)
    if floor is not None:  # floor_action works over every id: scattered out, floored, gathered back
        ids, ok = idx.numpy(), valid.numpy()
        rows = np.broadcast_to(np.arange(len(p))[:, None], ids.shape)
        full = np.zeros(mask.shape)
        full[rows[ok], ids[ok]] = (p / p.sum(axis=1, keepdims=True))[ok]
        p = np.where(ok, floor_action(full, mask, *floor)[rows, ids], 0.0)
    j = (p.cumsum(axis=1) < rng.random((len(p), 1)) * p.sum(axis=1, keepdims=True)).sum(axis=1)
    j = np.minimum(j, valid.numpy().sum(axis=1) - 1)
    return idx.numpy()[np.arange(len(p)), j]


# ----------------------------------------------------------------------------------------------------------------
# The labels on disk
# ----------------------------------------------------------------------------------------------------------------
def shard_path(run_dir: Path, round_no: int, chunk: int) -> Path:
    return run_dir / "data" / f"r{round_no:03d}-c{chunk:05d}.npz"


def save_shard(path: Path, part: dict) -> None:
    """One chunk's labels, atomically (a temp file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, **{k: np.asarray(v) for k, v in part.items()})
    os.replace(tmp, path)


def load_shard(path: Path) -> dict:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def load_labels(run_dir: Path, rounds: range | None = None, held_out: bool | None = False, count: bool = False):
    """Every saved label of the rounds ``rounds`` (default all), in (round, chunk) order: the held-out chunks
    only (``held_out=True``), the others only (``False``) or all (``None``). ``count``: only how many chunk files
    there are."""
    paths = sorted((run_dir / "data").glob("r*-c*.npz"))
    keep = []
    for p in paths:
        if p.name.endswith(".tmp.npz"):
            continue
        r, c = int(p.stem[1:4]), int(p.stem[6:])
        if (rounds is None or r in rounds) and (held_out is None or is_held_out(c) == held_out):
            keep.append(p)
    if count:
        return len(keep)
    parts = [load_shard(p) for p in keep]
    if not parts:
        return {}
    width = max(p["ids"].shape[1] for p in parts)
    return {
        "obs": np.concatenate([p["obs"] for p in parts]),
        "ids": _pad([p["ids"] for p in parts], width, -1, np.int16),
        "values": _pad([p["values"] for p in parts], width, np.nan, np.float32),
        "choice": np.concatenate([p["choice"] for p in parts]),
        "returns": np.concatenate([p["returns"] for p in parts]),
    }


def is_held_out(chunk: int) -> bool:
    return chunk % HOLDOUT == HOLDOUT - 1


# ----------------------------------------------------------------------------------------------------------------
# Learning
# ----------------------------------------------------------------------------------------------------------------
def targets(values: torch.Tensor, valued: torch.Tensor, choice: torch.Tensor, temperature: float) -> torch.Tensor:
    """The policy the network learns: ``softmax(values / temperature)`` over the actions the teacher valued
    (``valued``: a search values every legal action, ``guided`` its candidates only), or the teacher's choice alone
    (``temperature`` 0, and a decision the teacher valued no action of: ``guided``'s setup, played by its policy,
    sampled, so that its choices are samples of that policy)."""
    onehot = torch.nn.functional.one_hot(choice.long(), values.shape[1]).float()
    if temperature == 0:
        return onehot
    soft = torch.softmax((values / temperature).masked_fill(~valued, -torch.inf), dim=1)
    return torch.where(valued.any(1, keepdim=True), soft, onehot)


def tensors(data: dict) -> dict:
    ids = torch.from_numpy(data["ids"].astype(np.int64))
    valid = ids >= 0
    return {"obs": torch.from_numpy(data["obs"]), "idx": ids.clamp(min=0), "valid": valid,
            "valued": valid & torch.from_numpy(~np.isnan(data["values"])),
            "values": torch.from_numpy(np.nan_to_num(data["values"], nan=0.0)),
            "choice": torch.from_numpy(data["choice"].astype(np.int64)),
            "returns": torch.from_numpy(data["returns"]).float()}


def measure(policy, data: dict, temperature: float, batch: int = 8192) -> dict:
    """The network on labels: agreement with the teacher's choice, regret by the teacher's values (over the
    decisions where the teacher valued both its choice and the network's), cross-entropy to the targets (nan on no
    labels)."""
    if not data or not len(data["choice"]):
        return {"agree": float("nan"), "regret": float("nan"), "ce": float("nan")}
    t = tensors(data)
    agree, regret, ce = [], [], []
    policy.eval()
    with torch.inference_mode():
        for s in range(0, len(t["choice"]), batch):
            sl = slice(s, s + batch)
            valid, values, choice = t["valid"][sl], t["values"][sl], t["choice"][sl]
            valued = t["valued"][sl]
            logp, _ = policy.legal(t["obs"][sl].float(), t["idx"][sl], valid)
            top = logp.masked_fill(~valid, -torch.inf).argmax(1)
            agree.append((top == choice).float())
            both = valued.gather(1, choice[:, None])[:, 0] & valued.gather(1, top[:, None])[:, 0]
            regret.append((values.gather(1, choice[:, None])[:, 0] - values.gather(1, top[:, None])[:, 0])[both])
            tgt = targets(values, valued, choice, temperature)
            ce.append(-(tgt * logp.masked_fill(~valid, 0.0)).sum(1))
    return {"agree": float(torch.cat(agree).mean()), "regret": float(torch.cat(regret).mean()),
            "ce": float(torch.cat(ce).mean())}


def learn(cfg: Config, policy, optimizer, data: dict, rng: np.random.Generator, schedule=None) -> dict:
    """``cfg.epochs`` passes over ``data``: the policy towards the targets, the value head towards the returns.
    ``schedule(fraction)``, if given, sets the step size at each minibatch from the fraction of the passes done."""
    t = tensors(data)
    n = len(t["choice"])
    losses = {"policy_loss": [], "value_loss": []}
    policy.train()
    steps, step = cfg.epochs * -(-n // cfg.batch), 0
    for _ in range(cfg.epochs):
        order = torch.from_numpy(rng.permutation(n))
        for s in range(0, n, cfg.batch):
            if schedule is not None:
                for group in optimizer.param_groups:
                    group["lr"] = float(schedule(step / steps))
            step += 1
            mb = order[s:s + cfg.batch]
            valid = t["valid"][mb]
            logp, value = policy.legal(t["obs"][mb].float(), t["idx"][mb], valid)
            tgt = targets(t["values"][mb], t["valued"][mb], t["choice"][mb], cfg.temperature)
            pl = -(tgt * logp.masked_fill(~valid, 0.0)).sum(1).mean()
            vl = 0.5 * ((value - t["returns"][mb]) ** 2).mean()
            loss = pl + cfg.vf_coef * vl
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            losses["policy_loss"].append(pl.item())
            losses["value_loss"].append(vl.item())
    policy.eval()
    return {k: float(np.mean(v)) if v else float("nan") for k, v in losses.items()}


# ----------------------------------------------------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------------------------------------------------
def fresh_policy(cfg: Config):
    """A new network of ``cfg.hidden`` units, sized for the table."""
    from agents.ppo import Policy

    vg = shedders.VectorGame(cfg.ruleset, 1, cfg.players, seed=0)
    return Policy(vg.observation_size, vg.num_actions, cfg.hidden, cfg.squash_obs)


def save_checkpoint(path: Path, cfg: Config, policy, optimizer, counters: dict, rng) -> None:
    save_file({"model": policy.state_dict(), "optimizer": optimizer.state_dict(),
               "config": {**asdict(cfg), "hidden": policy.hidden, "squash_obs": policy.squash},
               "counters": dict(counters), "obs_size": policy.obs_size, "num_actions": policy.num_actions,
               "rng": {"torch": torch.get_rng_state(), "numpy": json.dumps(rng.bit_generator.state),
                       "python": json.dumps(random.getstate())}}, path)


def play_round(cfg: Config, run_dir: Path, policy, round_no: int, players: Players, bar=None) -> dict:
    """Round ``round_no``'s labels on disk: its chunks already saved are kept, the others played and saved as they
    arrive. Returns the round's statistics."""
    todo = [(round_no, c, min(cfg.chunk, cfg.games - c * cfg.chunk)) for c in range(-(-cfg.games // cfg.chunk))]
    todo = [t for t in todo if not shard_path(run_dir, round_no, t[1]).exists()]
    payload = {"config": asdict(cfg), "policy": network_payload(policy)}

    def done(part: dict) -> None:
        save_shard(shard_path(run_dir, round_no, part["chunk"]), part)
        if bar is not None:
            bar.update(part["games"])

    if bar is not None:
        bar.reset(total=cfg.games)
        bar.update(cfg.games - sum(t[2] for t in todo))
    fresh = {c for _, c, _ in todo}
    players.run(label_chunk, payload, todo, done)
    parts = [load_shard(p) for p in sorted((run_dir / "data").glob(f"r{round_no:03d}-c*.npz"))
             if not p.name.endswith(".tmp.npz")]
    return {"games": sum(int(p["games"]) for p in parts), "decisions": sum(int(p["decisions"]) for p in parts),
            "labels": sum(len(p["choice"]) for p in parts),
            "labels_played": sum(len(p["choice"]) for p in parts if int(p["chunk"]) in fresh),
            "capped": sum(int(p["capped"]) for p in parts) / max(1, sum(int(p["games"]) for p in parts))}


def train(cfg: Config, resume: bool = False, progress: bool = True) -> dict:
    check(cfg)
    set_threads(cfg.threads, cfg.engine_threads)
    run_dir = Path(cfg.out) / cfg.run_name()
    ckpt_path = run_dir / "checkpoint.pt"
    if not resume and run_dir.is_dir() and any(run_dir.iterdir()):
        raise ValueError(f"{run_dir} already holds a run: add --resume to continue it, or choose another --name")
    if resume and not (run_dir / "config.json").exists():
        raise ValueError(f"--resume: {run_dir} holds no run to continue; drop --resume to start one")
    torch.manual_seed(cfg.seed)
    random.seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    counters = {"round": 0, "games": 0, "decisions": 0, "labels": 0, "seconds": 0.0}
    policy = policy_from(load_file(cfg.init)) if cfg.init else fresh_policy(cfg)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.lr, eps=1e-5)
    started = bool(cfg.init)  # round 0 is the teacher's play unless the run starts from a network
    if resume and ckpt_path.exists():
        ck = load_file(ckpt_path)
        policy = policy_from(ck)
        optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.lr, eps=1e-5)
        optimizer.load_state_dict(ck["optimizer"])
        for group in optimizer.param_groups:  # the command line's step size wins, as in train_ppo
            group["lr"] = cfg.lr
        counters = dict(ck["counters"])
        torch.set_rng_state(ck["rng"]["torch"])
        rng.bit_generator.state = json.loads(ck["rng"]["numpy"])
        random.setstate(as_tuples(json.loads(ck["rng"]["python"])))
        started = True
    if resume:
        trim_log(run_dir / "progress.csv", counters["round"])
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(asdict(cfg), indent=1))
    bar = tqdm(total=cfg.games, desc=f"distill {cfg.ruleset}", unit="game", disable=not progress)
    last: dict = {}
    if cfg.labels_from:
        last = refit(cfg, run_dir, ckpt_path, policy, optimizer, counters, rng, bar)
        bar.close()
        return {"run_dir": str(run_dir), "counters": counters, "last": last}
    with Players(cfg) as players:
        while counters["round"] < cfg.rounds:
            r = counters["round"]
            t0 = time.perf_counter()
            bar.set_description(f"distill {cfg.ruleset} round {r + 1}/{cfg.rounds}")
            stats = play_round(cfg, run_dir, policy if (started or r > 0) else None, r, players, bar)
            t_play = time.perf_counter() - t0
            new = load_labels(run_dir, range(r, r + 1), held_out=None)
            before = measure(policy, new, cfg.temperature) if (started or r > 0) else measure(None, {}, 0)
            train_data = load_labels(run_dir, range(r + 1), held_out=False)
            losses = learn(cfg, policy, optimizer, train_data, rng)
            after = measure(policy, load_labels(run_dir, range(r + 1), held_out=True), cfg.temperature)
            elapsed = time.perf_counter() - t0
            counters["round"] += 1
            counters["games"] += stats["games"]
            counters["decisions"] += stats["decisions"]
            counters["labels"] += stats["labels"]
            counters["seconds"] += elapsed
            save_checkpoint(ckpt_path, cfg, policy, optimizer, counters, rng)
            row = {"round": counters["round"], "update": counters["round"], "labels": stats["labels"],
                   "labels_total": counters["labels"], "trained_on": len(train_data.get("choice", ())),
                   "capped": stats["capped"], **{f"{k}_before": v for k, v in before.items()}, **losses,
                   **{f"{k}_held_out": v for k, v in after.items()},
                   # labelled decisions a second of this session's play (chunks saved before a resume aside)
                   "labels_per_s": stats["labels_played"] / t_play if stats["labels_played"] else float("nan"),
                   "play_share": t_play / elapsed, "seconds": elapsed}
            log_row(run_dir / "progress.csv", row, None)
            last = row
            bar.write(f"round {counters['round']}: {stats['labels']:,} labels ({counters['labels']:,} in all), "
                      f"agree before {before['agree']:.3f}, held out after {after['agree']:.3f} "
                      f"(regret {after['regret']:.4f}), {elapsed:.0f} s")
    bar.close()
    return {"run_dir": str(run_dir), "counters": counters, "last": last}


def refit(cfg: Config, run_dir: Path, ckpt_path: Path, policy, optimizer, counters: dict, rng, bar) -> dict:
    """``--labels-from``: ``cfg.rounds`` passes of ``cfg.epochs`` over another run's labels (its held-out chunks
    held out here too), the step size a cosine from ``cfg.lr`` to 0 over all of them; a checkpoint and a progress
    row after each."""
    source = Path(cfg.labels_from)
    data, held = load_labels(source, held_out=False), load_labels(source, held_out=True)
    total = cfg.rounds

    last: dict = {}
    bar.reset(total=total)
    bar.update(counters["round"])
    while counters["round"] < total:
        t0 = time.perf_counter()
        done = counters["round"]
        losses = learn(cfg, policy, optimizer, data, rng,
                       schedule=lambda f, done=done: 0.5 * cfg.lr * (1 + np.cos(np.pi * (done + f) / total)))
        after = measure(policy, held, cfg.temperature)
        counters["round"] += 1
        counters["labels"] = len(data["choice"])
        counters["seconds"] += time.perf_counter() - t0
        save_checkpoint(ckpt_path, cfg, policy, optimizer, counters, rng)
        last = {"round": counters["round"], "update": counters["round"], "trained_on": len(data["choice"]),
                **losses, **{f"{k}_held_out": v for k, v in after.items()},
                "seconds": time.perf_counter() - t0}
        log_row(run_dir / "progress.csv", last, None)
        bar.update(1)
        bar.write(f"pass {counters['round']}: held out agree {after['agree']:.3f}, regret {after['regret']:.4f}")
    return last


def parse_args(argv=None) -> tuple[Config, bool, bool]:
    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--resume", action="store_true", help="continue the run in runs/<name>/")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    return config_from(Config, args), args.resume, args.quiet


def main(argv=None) -> dict:
    cfg, resume, quiet = parse_args(argv)
    return run_command(train, cfg, resume, quiet, files="checkpoint.pt, progress.csv, data/",
                       interrupted=f"the finished chunks and rounds are kept in {Path(cfg.out) / cfg.run_name()}; "
                                   "the same command with --resume continues")


if __name__ == "__main__":
    main()
