"""Expert iteration (ExIt) on the batched engine, in one file: the guided search teaches the network that guides
it.

    python -m experiments.train_exit --ruleset core --rounds 20
    python -m experiments.train_exit --ruleset core --name exit-core --resume       # continue a killed run

Each round (Anthony, Tian and Barber, NeurIPS 2017; Silver et al.'s AlphaZero loop, on imperfect information
through determinization):

1. **Play.** ``--games`` games at once, to their end. In a share ``--self-play`` of them every seat is the learner;
   in the others the learner holds two seats against two of the pool (``--pool``). A share ``--search-share`` of
   the learner's decisions with a real choice is decided by ``agents.guided`` over the *current* networks; the
   rest by the policy itself (sampled, as ``ppo`` plays).
2. **Targets.** A searched decision's target is the policy improved by the search (``GuidedSearchAgent.
   improved_policy``): the candidates' probability spread again in proportion to ``prior * exp(value /
   --temperature)``, the rest kept (a small temperature is nearly the search's choice alone). Every decision of
   every seat, the pool's too, gives the perfect-information critic a target: the rewards that seat collected from
   there to the game's end. The critic's input is every seat's observation (the decider's first): it sees all
   hands, in training only; the search feeds it sampled worlds, never the true deal.
   ``--expert SPEC`` puts a fixed agent in the search's place (``search:budget=1024``, the plain determinized
   search that beats the network's own guided search in core): it decides the same share of decisions, and its
   choice alone is the target. The learner imitates it in the positions the learner's own play reaches (DAgger:
   Ross, Gordon and Bagnell, AISTATS 2011); the next round's network then guides ``guided`` as before.
3. **Learn.** ``--epochs`` passes over the round's data, Adam, minibatches of ``--batch``. For the first
   ``--critic-warmup`` rounds only the critic learns, and the search values its leaves with the policy's own value
   head; after that with the critic (``--leaf critic``), or with the value head throughout (``--leaf value``).

What its first runs taught (the search's choice or the improved policy as target, the critic, a fixed expert to
imitate, confident corrections only) is in ``experiments/RESULTS.md`` ("Expert iteration: what the first runs
taught"): so far every run made the network worse than the committed one.

The network and its checkpoints are ``train_ppo``'s (``agents.ppo.Policy``, ``save_file``), with the critic added,
so a checkpoint is a ``ppo`` agent and a ``guided`` one: ``guided:checkpoint=runs/exit-core/checkpoint.pt``.
``--init`` starts from a trained network (default: the committed ``ppo`` checkpoint of the table).

**Where the play runs.** A round's games are played in chunks of ``--chunk`` games, each seeded by the round and
its index (its deals, who sits where, which decisions the search takes), so the round's data is the same whether
the chunks play here, on ``--workers`` spawned processes (one numba and one torch thread each) or on ``--workers``
Ray actors (``--backend ray``: a cluster at ``$RAY_ADDRESS``, else a local one; ``experiments/ray_backend.py``).
The search that labels the decisions is what costs, so it is what the workers spread
(``tests/test_guided.py::test_train_exit_plays_the_same_round_on_any_backend`` checks the three give the same
round). The workers start once for the run (``Players``); the networks travel to them each round.

Writes ``runs/<name>/``: ``progress.csv`` (one row per round: losses, the policy's agreement with the search before
the round's training, the learner's reward against the pool, capped games, time), ``checkpoint.pt`` after every
round (atomic) and ``config.json``.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

import agents as agents_pkg
import shedders
from agents.base import act_in
from agents.guided import Critic, GuidedSearchAgent
from agents.ppo import default_checkpoint, legal_index, load_file, packed_legal, policy_from, same_game, save_file
from experiments import ray_backend
from experiments.runlog import as_tuples, log_row, run_command, trim_log
from experiments.train_ppo import set_threads
from shedders.commandline import build_parser, config_from
from shedders.engine.palace.layout import PH_OVER, PH_SETUP
from shedders.engine.search import palace_guided as G
from shedders.vector import game_seeds


@dataclass
class Config:
    """Every field is a command-line flag (``--games 256``)."""

    ruleset: str = "core"  # a palace ruleset (omg's search has no network to guide it)
    players: int = 4  # seats at the table
    rounds: int = 20  # play-then-learn rounds in all (a resumed run goes on to this many)
    games: int = 128  # games played at once in each round, to their end
    search_share: float = 0.5  # share of the learner's decisions with a real choice that the search decides
    self_play: float = 0.5  # share of games where the learner holds every seat
    # the other games' two opponent seats, drawn per game
    pool: list[str] = field(default_factory=lambda: ["expert"])
    worlds: int = 8  # the search's sampled worlds per decision
    depth: int = 16  # the search's rollout decisions before the critic values the leaf
    top_k: int = 4  # candidates the search tries (the policy's most likely)
    prior: float = 0.05  # weight of the policy's log-probability in the search's choice
    leaf: str = "critic"  # what values the search's leaves: "critic" (the perfect-information one) or "value" (the
    # policy's own head); the critic is used once it has trained for --critic-warmup rounds, the value head before
    critic_warmup: int = 5  # rounds in which the critic learns before the search trusts it (and the policy learns)
    # who decides (and labels) the searched decisions: "guided", the search over the current
    expert: str = "guided"
    # networks (expert iteration proper), or a fixed agent spec such as "search:budget=1024", whose choice the
    # policy learns on the learner's own games (imitation of a stronger, fixed expert: DAgger)
    epochs: int = 2  # passes over a round's data
    batch: int = 1024  # minibatch size
    lr: float = 1e-4  # Adam's step size (policy and critic)
    bc_coef: float = 1.0  # weight of the cross-entropy to the search's improved policy
    temperature: float = 0.05  # the improved policy: prior * exp(value / temperature) over the search's candidates
    min_gap: float = 0.0  # a searched decision teaches only where the search's choice is valued at least this much
    # above the policy's most likely action (0: every searched decision teaches; > 0: only confident corrections;
    # guided only: a fixed --expert gives no values, so it is refused with one)
    anchor_coef: float = 0.0  # weight of KL(start network || policy) on every learner decision: keeps the policy
    # where the search does not correct it (the start network: --init's, the committed one by default)
    vf_coef: float = 0.0  # weight of the policy's value head loss (it shares the policy's body: see the docstring)
    ent_coef: float = 0.0  # weight of an entropy bonus on the policy (0: none)
    critic_hidden: int = 256  # width of the critic's two hidden layers
    init: str = ""  # the network to start from ("": the committed ppo checkpoint of the table)
    seed: int = 0  # seeds the deals, torch, numpy and every agent
    threads: int = 0  # torch threads (0: torch's default, one per core)
    engine_threads: int = 1  # numba threads for the engine and the search (1: no OpenMP region to spin)
    ply_cap: int = 1000  # decisions after which a game is capped (as train_ppo's palace defaults)
    # how a capped game ends: every seat is placed by cards left, so each has a target
    cap_rule: str = "most_cards"
    out: str = "runs"  # the folder that holds the run directory
    name: str | None = None  # the run directory's name (none: exit-<ruleset>-<players>p-seed<seed>)
    # games per chunk of a round's play: the unit of work spread over the workers and of seeding, so a round's data
    # is the same whatever --workers and --backend
    chunk: int = 32
    workers: int = 1  # processes (local backend) or Ray actors that play a round's chunks, one CPU each
    backend: str = "local"  # where chunks play: local (this process, or --workers spawned processes) or ray

    def run_name(self) -> str:
        return self.name or f"exit-{self.ruleset}-{self.players}p-seed{self.seed}"


def check(cfg: Config) -> None:
    """``ValueError`` for a config that cannot run, before anything is written."""
    if "guided" not in agents_pkg.offered_agents(cfg.ruleset):
        raise ValueError(f"train_exit trains the rulesets a guided search plays; {cfg.ruleset} has none")
    shedders.make_rules(cfg.ruleset, cfg.players)
    if cfg.backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {cfg.backend!r}; allowed: local, ray")
    if cfg.backend == "ray":
        ray_backend.require_ray()
    for key in ("rounds", "games", "worlds", "top_k", "epochs", "batch", "critic_hidden", "ply_cap", "chunk",
                "workers"):
        if getattr(cfg, key) < 1:
            raise ValueError(f"{key} must be at least 1, got {getattr(cfg, key)}")
    for key in ("search_share", "self_play"):
        if not 0.0 <= getattr(cfg, key) <= 1.0:
            raise ValueError(f"{key} must be in [0, 1], got {getattr(cfg, key)}")
    if cfg.leaf not in ("critic", "value"):
        raise ValueError(f"leaf must be critic or value, got {cfg.leaf!r}")
    if cfg.depth < 0 or cfg.lr <= 0 or cfg.temperature <= 0 or cfg.critic_warmup < 0:
        raise ValueError("depth must be >= 0, lr and temperature positive")
    if cfg.min_gap < 0 or cfg.anchor_coef < 0:
        raise ValueError("min_gap and anchor_coef must be >= 0")
    for spec in cfg.pool:
        if agents_pkg.parse_agent(spec)[0] not in agents_pkg.offered_agents(cfg.ruleset):
            raise ValueError(f"unknown pool agent {spec!r} for {cfg.ruleset}")
    expert = agents_pkg.parse_agent(cfg.expert)[0]
    if cfg.expert != "guided" and expert not in agents_pkg.offered_agents(cfg.ruleset):
        raise ValueError(f"unknown expert {cfg.expert!r} for {cfg.ruleset}: guided, or an agent spec")
    if cfg.expert != "guided" and cfg.min_gap > 0:
        raise ValueError(f"--min-gap needs the guided search's values; the fixed expert {cfg.expert!r} gives only "
                         f"its choice")
    if cfg.self_play < 1.0 and not cfg.pool:
        raise ValueError("--pool is empty, so every game must be self-play (--self-play 1)")


# ----------------------------------------------------------------------------------------------------------------
# One round of play
# ----------------------------------------------------------------------------------------------------------------
class Players:
    """Where a run's chunks play, started once for the whole run: here (one worker), ``cfg.workers`` spawned
    processes (one numba and one torch thread each; spawn, not fork: numba's threads do not survive a fork) or
    ``cfg.workers`` Ray actors. A context manager: the workers stop on exit."""

    def __init__(self, cfg: Config):
        self.pool = self.executor = None
        if cfg.backend == "ray":
            self.pool = ray_backend.Pool(cfg.workers)
        elif cfg.workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.executor = ProcessPoolExecutor(cfg.workers, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=set_threads, initargs=(1, 1))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        if self.executor is not None:
            self.executor.shutdown(cancel_futures=True)

    def run(self, fn, payload: dict, todo: list, on_result) -> None:
        """``fn(payload, *args)`` for every ``args`` in ``todo``, here or on the workers; ``on_result`` gets each
        result here as it arrives (in ``todo``'s order, except on Ray: as they finish). ``fn`` must be a
        module-level function, for the workers to import it."""
        if self.pool is not None:
            self.pool.run(fn, payload, todo, on_result)
        elif self.executor is not None:
            for r in self.executor.map(fn, [payload] * len(todo), *zip(*todo)):
                on_result(r)
        else:
            for args in todo:
                on_result(fn(payload, *args))

    def play(self, cfg: Config, policy, critic, todo: list) -> dict[int, dict]:
        if self.pool is None and self.executor is None:
            return {args[1]: play_chunk_with(cfg, policy, critic, *args) for args in todo}
        payload = {"config": asdict(cfg), "networks": networks_state(policy, critic)}
        parts: dict[int, dict] = {}
        self.run(play_chunk, payload, todo, lambda r: parts.__setitem__(r["chunk"], r))
        return parts


def play_round(cfg: Config, policy, critic, round_no: int, players: Players | None = None) -> dict:
    """Play ``cfg.games`` games to their end, in chunks of ``cfg.chunk`` on ``players`` (default: workers started
    for this round alone); return the round's training data and its statistics, the same for a seed whatever the
    backend and the number of workers."""
    todo = [(round_no, c, min(cfg.chunk, cfg.games - c * cfg.chunk)) for c in range(-(-cfg.games // cfg.chunk))]
    if players is None:
        with Players(cfg) as own:
            parts = own.play(cfg, policy, critic, todo)
    else:
        parts = players.play(cfg, policy, critic, todo)
    return merge_chunks([parts[c] for c in sorted(parts)])


def networks_state(policy, critic) -> dict:
    """What a worker needs to rebuild the networks: the policy's checkpoint form and the critic's weights."""
    return {"policy": {"model": policy.state_dict(),
                       "config": {"hidden": policy.hidden, "squash_obs": policy.squash},
                       "obs_size": policy.obs_size, "num_actions": policy.num_actions},
            "critic": critic.state_dict(), "critic_hidden": critic.hidden, "players": critic.num_players}


def play_chunk(payload: dict, round_no: int, chunk: int, games: int) -> dict:
    """``play_chunk_with`` in a worker: the config and the networks rebuilt from ``payload``."""
    cfg = Config(**payload["config"])
    net = payload["networks"]
    policy = policy_from(net["policy"]).eval()
    critic = Critic(net["policy"]["obs_size"], net["players"], net["critic_hidden"])
    critic.load_state_dict(net["critic"])
    return play_chunk_with(cfg, policy, critic.eval(), round_no, chunk, games)


def play_chunk_with(cfg: Config, policy, critic, round_no: int, chunk: int, games: int) -> dict:
    """Games ``chunk * cfg.chunk`` onwards of round ``round_no`` (``games`` of them), to their end. Every draw
    comes from the round's seed and the chunk's index: the deals, who sits where, which decisions are searched."""
    n, b = cfg.players, games
    seed = cfg.seed + 7919 * round_no  # a fresh deal every round, the same on a resume
    rng = np.random.default_rng([cfg.seed, round_no, chunk])
    vg = shedders.VectorGame(cfg.ruleset, b, n, seed=seed, ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule,
                             autoreset=False)
    vg.reset(seeds=game_seeds(seed, b, start=chunk * cfg.chunk))
    warm = round_no >= cfg.critic_warmup
    leaf = critic if cfg.leaf == "critic" and warm else None  # None: the policy's value head
    agent_seed = int(np.random.default_rng([cfg.seed, round_no, chunk, 1]).integers(2**31))
    search = GuidedSearchAgent.with_networks(policy, leaf, cfg.ruleset, n, seed=agent_seed + 1, worlds=cfg.worlds,
                                             depth=cfg.depth, top_k=cfg.top_k, prior=cfg.prior)
    pool = [agents_pkg.make_spec(spec, cfg.ruleset, n, seed=agent_seed + 3 + i) for i, spec in enumerate(cfg.pool)]
    teacher = (None if cfg.expert == "guided"
               else agents_pkg.make_spec(cfg.expert, cfg.ruleset, n, seed=agent_seed + 2))
    # who holds each seat: -1 the learner, k >= 0 pool member k
    ctrl = np.full((b, n), -1, np.int64)
    for g in range(b):
        if pool and rng.random() >= cfg.self_play:
            ctrl[g] = int(rng.integers(len(pool)))
            ctrl[g, rng.choice(n, 2, replace=False)] = -1
    collected = np.zeros((b, n))  # rewards each seat collected so far
    rec = {"obs": [], "cobs": [], "idx": [], "target": [], "soft": [], "game": [], "seat": [], "before": []}
    obs_size = vg.observation_size
    cobs = np.zeros((b, obs_size * n), np.int8)
    stats = {"searched": 0, "agree": []}
    decisions = 0
    capped = np.zeros(b, bool)
    while True:
        live = np.flatnonzero(vg.state.phase != PH_OVER)  # (terminated is cleared on a game left untouched)
        if not len(live):
            break
        cur = vg.current_player[live].astype(np.int64)
        actions = np.full(b, -1, np.int64)  # -1: a game that is over stays as it is
        target = np.full(b, -1, np.int64)
        soft, soft_rows = None, np.zeros(0, np.int64)
        mine = live[ctrl[live, cur] < 0]
        if len(mine):
            soft, soft_rows = _learner_moves(cfg, vg, mine, search, teacher, policy, rng, actions, target, stats)
        for k in np.unique(ctrl[live, cur][ctrl[live, cur] >= 0]):
            rows = live[ctrl[live, cur] == k]
            actions[rows] = act_in(pool[k], vg, rows)
        _record(rec, vg, live, target, soft, soft_rows, collected, cobs)
        decisions += len(live)
        vg.step(actions, check=False)
        collected += vg.rewards
        capped |= vg.truncated
    game, seat = np.concatenate(rec["game"]), np.concatenate(rec["seat"])
    returns = collected[game, seat] - np.concatenate(rec["before"])
    learner = ctrl[game, seat] < 0
    vs_pool = [float(collected[g, ctrl[g] < 0].mean()) for g in range(b) if (ctrl[g] >= 0).any()]
    return {
        "chunk": chunk,
        "obs": np.concatenate(rec["obs"]), "cobs": np.concatenate(rec["cobs"]),
        "legal": _stack_padded(rec["idx"]), "soft": _stack_padded(rec["soft"], 0),
        "target": np.concatenate(rec["target"]), "returns": returns,
        "learner": learner, "decisions": decisions, "searched": stats["searched"],
        "agree": [bool(x) for x in stats["agree"]], "vs_pool": vs_pool, "capped": int(capped.sum()), "games": b,
    }


def merge_chunks(parts: list[dict]) -> dict:
    """A round's data from its chunks, in chunk order."""
    agree = [x for p in parts for x in p["agree"]]
    vs_pool = [x for p in parts for x in p["vs_pool"]]
    learner = np.concatenate([p["learner"] for p in parts])
    return {
        "obs": np.concatenate([p["obs"] for p in parts]), "cobs": np.concatenate([p["cobs"] for p in parts]),
        "legal": _stack_padded([p["legal"] for p in parts]), "soft": _stack_padded([p["soft"] for p in parts], 0),
        "target": np.concatenate([p["target"] for p in parts]),
        "returns": np.concatenate([p["returns"] for p in parts]), "learner": learner,
        "decisions": sum(p["decisions"] for p in parts), "searched": sum(p["searched"] for p in parts),
        "learner_decisions": int(learner.sum()),
        "agree": float(np.mean(agree)) if agree else float("nan"),
        "reward_vs_pool": float(np.mean(vs_pool)) if vs_pool else float("nan"),
        "capped": sum(p["capped"] for p in parts) / sum(p["games"] for p in parts),
    }


def _learner_moves(cfg: Config, vg, mine, search, teacher, policy, rng, actions, target, stats: dict):
    """The learner's decisions in the games ``mine``: a share of its real choices after setup decided by the search
    (or the fixed expert), which become training targets, the rest by the policy (setup too: agents/guided.py says
    why). Writes ``actions`` and ``target``, counts into ``stats``; returns the improved policy of the targets and
    their games (``soft``, ``soft_rows``)."""
    soft, soft_rows = None, np.zeros(0, np.int64)
    real = (vg.num_legal[mine] > 1) & (vg.state.phase[mine] != PH_SETUP)
    choice = mine[real & (rng.random(len(mine)) < cfg.search_share)]
    plain = np.setdiff1d(mine, choice)
    if len(choice):
        a = act_in(search if teacher is None else teacher, vg, choice)
        actions[choice] = a
        if teacher is not None:  # a fixed expert: its choice, one-hot over the packed ids
            soft, first = _one_hot(policy, vg.observation[choice], vg.action_mask[choice], a)
        else:
            first = search.last["candidates"][:, 0]  # the policy's most likely action
            soft = search.improved_policy(cfg.temperature)
        soft_rows = choice
        stats["agree"] += list(first == a)
        stats["searched"] += len(choice)
        if teacher is None and cfg.min_gap > 0:  # only the confident corrections teach
            q = search.last["value"]
            chosen = np.argmax(search.last["candidates"] == a[:, None], axis=1)
            gap = q[np.arange(len(a)), chosen] - q[:, 0]
            keep = gap >= cfg.min_gap  # (nan for a decision the search did not value: not kept)
            soft, soft_rows = soft[keep], choice[keep]
            a = a[keep]
        target[soft_rows] = a
    if len(plain):
        actions[plain] = search.policy_act(vg.observation[plain], vg.action_mask[plain])
    return soft, soft_rows


def _record(rec: dict, vg, live, target, soft, soft_rows, collected, cobs) -> None:
    """Every live decision's training row: the critic's input (its seat's return is known when the game ends),
    the observation, the packed legal ids, the target and the improved policy where the search gave one."""
    G.run(G.critic_obs_nb, G.critic_obs_range_nb, len(live), vg.state, live, vg.state.actor.astype(np.int64),
          vg.params, vg.observation_size, cobs)
    seats = vg.current_player[live].astype(np.int64)
    rec["cobs"].append(cobs[:len(live)].copy())
    rec["obs"].append(vg.observation[live].copy())
    rec["game"].append(live.copy())
    rec["seat"].append(seats)
    rec["before"].append(collected[live, seats].copy())
    rec["target"].append(target[live])
    idx, ok = packed_legal(vg.legal_ids[live], vg.num_legal[live])  # increasing ids, as Policy.legal wants
    rec["idx"].append(np.where(ok.numpy(), idx.numpy(), -1).astype(np.int16))
    dist = np.zeros(idx.shape, np.float32)  # the improved policy of the searched decisions, same columns
    if len(soft_rows):
        w = min(soft.shape[1], idx.shape[1])
        dist[np.searchsorted(live, soft_rows), :w] = soft[:, :w]
    rec["soft"].append(dist)


def _one_hot(policy, obs, mask, actions) -> tuple[np.ndarray, np.ndarray]:
    """``actions`` one-hot over each row's packed legal ids (``legal_index`` order), and the policy's most likely
    action of each row (for the agreement statistic)."""
    with torch.inference_mode():
        idx, valid = legal_index(torch.from_numpy(np.ascontiguousarray(mask)).bool())
        logp, _ = policy.legal(torch.from_numpy(np.ascontiguousarray(obs)).float(), idx, valid)
    idx, valid = idx.numpy(), valid.numpy()
    hit = (idx == np.asarray(actions)[:, None]) & valid
    assert hit.sum(1).min() == 1, "an expert chose an illegal action"
    first = idx[np.arange(len(idx)), logp.masked_fill(torch.from_numpy(~valid), -np.inf).argmax(1).numpy()]
    return hit.astype(np.float32), first


def _stack_padded(parts: list, fill=-1) -> np.ndarray:
    """Rows of different widths (packed legal ids, their probabilities), stacked with ``fill`` padding."""
    width = max(p.shape[1] for p in parts)
    return np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=fill) for p in parts])


# ----------------------------------------------------------------------------------------------------------------
# Learning
# ----------------------------------------------------------------------------------------------------------------
def learn(cfg: Config, policy, critic, optimizer, data: dict, rng: np.random.Generator, teach: bool = True,
          anchor=None) -> dict:
    """``cfg.epochs`` passes over one round's data: the policy towards the search's choices and its value head
    towards the returns of its own decisions, the critic towards every decision's return."""
    n = len(data["returns"])
    obs = torch.from_numpy(data["obs"])
    cobs = torch.from_numpy(data["cobs"])
    ret = torch.from_numpy(data["returns"]).float()
    target = torch.from_numpy(data["target"])
    learner = torch.from_numpy(data["learner"])
    raw = torch.from_numpy(data["legal"].astype(np.int64))  # each row's legal ids, increasing, -1 padded
    valid = raw >= 0
    idx = raw.clamp(min=0)
    soft = torch.from_numpy(data["soft"])
    stats = {"policy_loss": [], "value_loss": [], "critic_loss": [], "anchor_kl": []}
    for _ in range(cfg.epochs):
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, cfg.batch):
            mb = order[start:start + cfg.batch]
            v_c = critic(cobs[mb].float())
            critic_loss = 0.5 * ((v_c - ret[mb]) ** 2).mean()
            loss = critic_loss
            own = mb[learner[mb]]
            if len(own):
                logp, value = policy.legal(obs[own].float(), idx[own], valid[own])
                value_loss = 0.5 * ((value - ret[own]) ** 2).mean()
                loss = loss + cfg.vf_coef * value_loss
                stats["value_loss"].append(value_loss.item())
                taught = target[own] >= 0
                if teach and bool(taught.any()):
                    pl = -(soft[own][taught] * logp[taught].masked_fill(~valid[own][taught], 0.0)).sum(1).mean()
                    loss = loss + cfg.bc_coef * pl
                    stats["policy_loss"].append(pl.item())
                if anchor is not None and cfg.anchor_coef:
                    with torch.no_grad():
                        logp0, _ = anchor.legal(obs[own].float(), idx[own], valid[own])
                    kl = (logp0.exp() * (logp0 - logp).masked_fill(~valid[own], 0.0)).sum(1).mean()
                    loss = loss + cfg.anchor_coef * kl
                    stats["anchor_kl"].append(kl.item())
                if cfg.ent_coef:
                    ent = -(logp.exp() * logp.masked_fill(~valid[own], 0.0)).sum(dim=1).mean()
                    loss = loss - cfg.ent_coef * ent
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([*policy.parameters(), *critic.parameters()], 1.0)
            optimizer.step()
            stats["critic_loss"].append(critic_loss.item())
    return {k: float(np.mean(v)) if v else float("nan") for k, v in stats.items()}


# ----------------------------------------------------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------------------------------------------------
def save_checkpoint(path: Path, cfg: Config, policy, critic, optimizer, counters: dict, rng) -> None:
    save_file({"model": policy.state_dict(), "critic": critic.state_dict(), "critic_hidden": cfg.critic_hidden,
               "optimizer": optimizer.state_dict(), "config": {**asdict(cfg), "hidden": policy.hidden,
                                                              "squash_obs": policy.squash},
               "counters": dict(counters), "obs_size": policy.obs_size, "num_actions": policy.num_actions,
               "rng": {"torch": torch.get_rng_state(), "numpy": json.dumps(rng.bit_generator.state),
                       "python": json.dumps(random.getstate())}}, path)


def train(cfg: Config, resume: bool = False, progress: bool = True) -> dict:
    check(cfg)
    set_threads(cfg.threads, cfg.engine_threads)
    run_dir = Path(cfg.out) / cfg.run_name()
    ckpt_path = run_dir / "checkpoint.pt"
    if not resume and run_dir.is_dir() and any(run_dir.iterdir()):
        raise ValueError(f"{run_dir} already holds a run: add --resume to continue it, or choose another --name")
    if resume and not ckpt_path.exists():
        raise ValueError(f"--resume: {run_dir} holds no checkpoint to continue from; drop --resume to start a run")
    torch.manual_seed(cfg.seed)
    random.seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    init = Path(cfg.init) if cfg.init else default_checkpoint(cfg.ruleset, cfg.players)
    source = ckpt_path if resume else init
    if not source.exists():
        raise ValueError(f"no network to start from at {source}; train one with experiments.train_ppo or pass "
                         "--init")
    ck = load_file(source)
    saved = ck["config"]
    if saved["players"] != cfg.players or not same_game(saved["ruleset"], cfg.ruleset, cfg.players):
        raise ValueError(f"{source} was trained for {saved['ruleset']} at {saved['players']} players")
    policy = policy_from(ck)
    anchor = policy_from(load_file(init)).eval() if cfg.anchor_coef else None  # the start network, frozen
    critic = Critic(ck["obs_size"], cfg.players, cfg.critic_hidden)
    if "critic" in ck and ck["critic_hidden"] == cfg.critic_hidden:
        critic.load_state_dict(ck["critic"])
    optimizer = torch.optim.Adam([*policy.parameters(), *critic.parameters()], lr=cfg.lr, eps=1e-5)
    counters = {"round": 0, "games": 0, "decisions": 0, "searched": 0, "seconds": 0.0}
    if resume:
        optimizer.load_state_dict(ck["optimizer"])
        for group in optimizer.param_groups:  # the command line's step size wins, as in train_ppo
            group["lr"] = cfg.lr
        counters = dict(ck["counters"])
        torch.set_rng_state(ck["rng"]["torch"])
        rng.bit_generator.state = json.loads(ck["rng"]["numpy"])
        random.setstate(as_tuples(json.loads(ck["rng"]["python"])))
        trim_log(run_dir / "progress.csv", counters["round"])
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps({**asdict(cfg), "init": str(init)}, indent=1))
    bar = tqdm(total=cfg.rounds, initial=counters["round"], desc=f"exit {cfg.ruleset}", unit="round",
               disable=not progress)
    last = {}
    players = Players(cfg)  # started once for the run
    try:
        last = _rounds(cfg, run_dir, ckpt_path, policy, critic, optimizer, anchor, counters, rng, players, bar)
    finally:
        players.close()
    bar.close()
    return {"run_dir": str(run_dir), "counters": counters, "last": last}


def _rounds(cfg: Config, run_dir: Path, ckpt_path: Path, policy, critic, optimizer, anchor, counters: dict, rng,
            players: Players, bar) -> dict:
    """Rounds of play and learning until ``cfg.rounds``, a checkpoint after each; returns the last progress row."""
    last = {}
    while counters["round"] < cfg.rounds:
        t0 = time.perf_counter()
        policy.eval()
        critic.eval()
        data = play_round(cfg, policy, critic, counters["round"], players)
        t_play = time.perf_counter() - t0
        policy.train()
        critic.train()
        # the policy learns from the search only once the search's leaves are valued by a trained critic (or by
        # the policy's own value head from the start, --leaf value)
        teach = cfg.leaf == "value" or cfg.expert != "guided" or counters["round"] >= cfg.critic_warmup
        stats = learn(cfg, policy, critic, optimizer, data, rng, teach, anchor)
        elapsed = time.perf_counter() - t0
        counters["round"] += 1
        counters["games"] += cfg.games
        counters["decisions"] += data["decisions"]
        counters["searched"] += data["searched"]
        counters["seconds"] += elapsed
        save_checkpoint(ckpt_path, cfg, policy, critic, optimizer, counters, rng)
        row = {"round": counters["round"], "update": counters["round"], "games": counters["games"],
               "decisions": data["decisions"], "searched": data["searched"], "agree": data["agree"],
               "reward_vs_pool": data["reward_vs_pool"], "capped": data["capped"], **stats,
               "steps_per_s": data["decisions"] / elapsed, "play_share": t_play / elapsed, "seconds": elapsed}
        log_row(run_dir / "progress.csv", row, None)
        last = row
        bar.update(1)
        bar.set_postfix(agree=f"{data['agree']:.2f}", vs_pool=f"{data['reward_vs_pool']:+.3f}")
    return last


def parse_args(argv=None) -> tuple[Config, bool, bool]:
    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--resume", action="store_true", help="continue the run in runs/<name>/ from its checkpoint")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    return config_from(Config, args), args.resume, args.quiet


def main(argv=None) -> dict:
    cfg, resume, quiet = parse_args(argv)
    return run_command(train, cfg, resume, quiet, unit="round")


if __name__ == "__main__":
    main()
