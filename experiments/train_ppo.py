"""PPO self-play with action masking on the batched engine, in one file (CleanRL style).

    python -m experiments.train_ppo --ruleset core --total-steps 20000000
    python -m experiments.train_ppo --ruleset core --name core-ppo --resume      # continue a killed run
    tensorboard --logdir runs                                                     # watch it

One network plays every seat it controls. Each game (a row of ``VectorGame``) draws its table when it is dealt:
with probability ``self_play`` every seat is the current network (all seats learn); otherwise the network holds
one random seat against an opponent drawn from the pool: a past snapshot of itself or one of the heuristic agents
(``--pool greedy,expert``). Invalid actions are masked out of the logits both when acting and in the update.

A seat's trajectory is its own decisions; the reward of every step is added to the seat's last decision, and a
trajectory ends with its game. Advantages by GAE per (game, seat); open trajectories are bootstrapped from the
value of the seat's current observation. With ``--critic full`` the values come from a perfect-information critic
that reads every seat's observation (training only; the policy acts on its own observation).

Writes ``runs/<name>/``: ``progress.csv`` (one row per update), TensorBoard events (when ``tensorboard`` is
installed), ``learning_curve.png``, ``checkpoint.pt`` (atomic: a temp file, then a rename; loaded with
``torch.load(weights_only=True)``) and ``eval/`` (tournaments against ``greedy`` and ``expert``). A checkpoint is
an
agent: ``agents.ppo.load(path)``, ``agents.make("ppo", ruleset, checkpoint=path)``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

import agents as agents_pkg
import shedders
from agents.base import act_in
from agents.guided import Critic
from agents.ppo import (
    Policy,
    cool_log_probs,
    floor_log_probs,
    legal_index,
    load_file,
    masked_logits,
    packed_legal,
    sample_packed,
    save_file,
)
from experiments import tournament as T
from experiments.runlog import as_tuples, forget_after, log_row, read_rows, run_command, tensorboard_writer
from shedders.commandline import build_parser, config_from
from shedders.envs.actions import ACTION_IDS
from shedders.envs.family import family_of

READY = ACTION_IDS["ready"]  # the palace rulesets' setup action that ends a seat's swaps (--ready-floor)
CRITICS = ("shared", "full")  # --critic
SNAPSHOT_PLAYS = ("argmax", "learner")  # --snapshot-play
VIEWS = ("own", "full")  # --view


@dataclass
class Config:
    """Every field is a command-line flag (``--num-envs 512``); defaults suit a 4-player palace ruleset on CPU. The
    command line starts from ``Config.for_ruleset(ruleset)``: these defaults with ``RULESET_DEFAULTS`` on top."""

    ruleset: str = "core"  # any ruleset (omg too)
    players: int = 4  # seats at the table
    num_envs: int = 512  # games stepped together
    num_steps: int = 64  # engine steps per game per rollout
    total_steps: int = 2_000_000  # engine steps in all (every seat's decisions count)
    # seconds of training in this run after which it stops at the end of an update (0: none)
    time_budget: float = 0.0
    lr: float = 3e-4  # Adam's step size; on --resume the command line's value is used, not the saved one
    anneal_lr: bool = False  # decay the step size linearly to 0 at total_steps (as in CleanRL)
    gamma: float = 0.995  # rewards come at the end of long games
    gae_lambda: float = 0.95  # GAE's lambda: the bias-variance trade-off of the advantages
    update_epochs: int = 2  # passes over each rollout per update
    num_minibatches: int = 4  # minibatches per pass
    clip_coef: float = 0.2  # PPO's clip range of the probability ratio (and of the value)
    ent_coef: float = 0.01  # weight of the entropy bonus
    vf_coef: float = 0.5  # weight of the value loss
    max_grad_norm: float = 0.5  # gradients are clipped to this global norm
    hidden: int = 128  # width of the two hidden layers
    # the network reads sign(x) * log(1 + |x|) of each observation entry (agents.ppo.Policy)
    squash_obs: bool = False
    # training only: a seat still in when its game reaches the ply cap is charged this much on top of what the env
    # pays it (0 under cap_rule="truncate"; its placing by cards under "most_cards"), so that stalling (in core,
    # picking the pile up for ever; in south_african, countering the last Joker for ever) does not pay better than
    # losing. With most_cards and gamma 1, the player about to lose is charged -1 - penalty for a stall, -1 for
    # losing: it gains by ending the game.
    truncation_penalty: float = 1.0
    # training only: potential-based reward shaping (Ng, Harada and Russell, ICML 1999) with the potential
    # -shaping x the cards the seat still holds (VectorGame.cards_held) at each of its decisions, 0 once its game
    # is
    # over: a decision's reward gains gamma * potential(its seat's next decision) - potential(this one). It leaves
    # the best policy unchanged and gives a dense signal where an untrained policy's games hardly end (omg: a
    # penalty's cards count at once). Open trajectories take the potential of the seat's cards when the rollout
    # ends.
    shaping: float = 0.0
    # the palace rulesets: the learner's policy says ``ready`` with probability at least ready_floor wherever it is
    # legal in setup, the other actions scaled down in proportion (agents.ppo.floor_log_probs), in its rollouts and
    # in the update alike, so what is trained is what played (0: off). Setup allows any number of swaps, and a run
    # from scratch can learn to swap for ever: the truncation penalty lies ~1,000 decisions past the first swap
    # (experiments/RESULTS.md, core's learning curves). ``ppo`` plays with a floor of 0.001.
    ready_floor: float = 0.0
    # the temperature the learner's policy plays at: it samples softmax(logits / temperature) (before the ready
    # floor), in its rollouts and in the update alike, so what is trained is what played; a checkpoint trained at T
    # plays as ``ppo:temperature=T``. A network distilled from the search plays best cold (temperature 0.1) and far
    # worse sampled at 1 (experiments/RESULTS.md, issue 44): fine-tuning it at 1 optimises the weaker player.
    temperature: float = 1.0
    self_play: float = 0.5  # share of games where the network holds every seat
    # in a game against the pool, the network holds 1..learner_seats seats (drawn uniformly)
    learner_seats: int = 1
    pool: list[str] = field(default_factory=lambda: ["greedy", "expert"])  # heuristics; one listed twice: drawn 2x
    # kickstarting (Schmitt et al., 2018): a teacher agent (``search:budget=32``) labels a share of the learner's
    # decisions with its own choice, and the loss adds bc_coef times the cross-entropy of the network's policy to
    # it
    teacher: str = ""  # an agent spec ("" for none); agents that need the engine state (search) are given it
    teacher_share: float = 0.1  # share of the learner's decisions with 2+ legal actions the teacher labels
    bc_coef: float = 1.0  # weight of the imitation loss (the mean over the labelled decisions of a minibatch)
    snapshot_every: int = 20  # updates between snapshots of the network into the pool
    pool_snapshots: int = 5  # most recent snapshots kept
    # how a snapshot plays its seats: "argmax", its likeliest legal action (no ready floor); "learner", sampled as
    # the learner plays (--temperature, then --ready-floor), the way the shipped network plays. Argmax snapshots of
    # a network trained cold with a ready floor are not that player (core, 2026-12-07: the learner lost about 0.04
    # a game against three of its own argmax snapshots)
    snapshot_play: str = "argmax"
    eval_every: int = 50  # updates between evaluation tournaments (0: only at the end)
    eval_deals: int = 32  # deals per evaluation tournament (each in every seat rotation)
    checkpoint_every: int = 10  # updates between checkpoints
    seed: int = 0  # seeds the deals, torch, numpy and every opponent
    device: str = "cpu"  # "cuda" where a GPU exists
    threads: int = 0  # torch threads (0: torch's default, one per core)
    engine_threads: int = 1  # numba threads for the batched engine (1: no OpenMP region, see set_threads)
    out: str = "runs"  # the folder that holds the run directory
    name: str | None = None  # the run directory's name (none: ppo-<ruleset>-<players>p-seed<seed>)
    ply_cap: int = 5000  # decisions after which a game is capped (training and evaluation)
    cap_rule: str = "truncate"  # how a game at the cap ends (shedders.rules.CAP_RULES); evaluation uses the same
    # fine-tuning: start the network from this checkpoint's weights (a run's checkpoint.pt or an exported one, same
    # ruleset, players and hidden); the optimizer, counters and pool start fresh. Ignored when --resume finds a run
    init: str = ""
    # the critic that gives the advantages: "shared", the policy's own value head; "full", a perfect-information
    # critic (PerfectDou: Yang et al., NeurIPS 2022) that reads every seat's observation, the decider's first, so
    # it sees every hand. Training only: the policy acts on its own observation, its own value head still learns
    # the same returns, and the checkpoint plays as a ppo agent (and as a guided one, with this critic).
    critic: str = "shared"
    critic_hidden: int = 256  # width of the full critic's two hidden layers
    # what the policy reads: "own", its seat's observation (a real player); "full", every seat's observation, its
    # own first (full_view: every hand, not the face-down cards), which makes it a fictive player that knows the
    # other hands, for skill versus luck. Palace rulesets, against a fixed pool only (no self-play, no snapshots,
    # no teacher); it plays as the ``fictive`` agent, which needs the engine state.
    view: str = "own"

    def run_name(self) -> str:
        return self.name or f"ppo-{self.ruleset}-{self.players}p-seed{self.seed}"

    @classmethod
    def for_ruleset(cls, ruleset: str = "core", **fields) -> Config:
        """The config the command line starts from: the field defaults, then ``RULESET_DEFAULTS[ruleset]``, then
        ``fields``."""
        own = {k: list(v) if isinstance(v, list) else v for k, v in RULESET_DEFAULTS.get(ruleset, {}).items()}
        return cls(**{"ruleset": ruleset, **own, **fields})


# What the command line changes per ruleset (the dataclass's own defaults stay the generic ones). The palace games
# train with a ply cap of 1,000 decisions, as every committed checkpoint did: tables of heuristic agents average
# 115
# (og) to 203 (core) decisions (experiments/RESULTS.md), so a game past 1,000 is mostly a stall, and capping it
# keeps stalls (the truncation penalty charges them) from filling the buffers. Random play runs longer (core's
# median is 936 decisions, benchmarks/GAME_LENGTHS.md), which matters only early in a run.
# core and south_african (house without toggles is core) take the recipe that made their committed checkpoints beat
# expert: a quarter of the games in self-play, expert drawn three times as often as greedy, the network holding one
# or two seats against the pool and the last three snapshots. fatality keeps the generic recipe (its checkpoint
# beats expert with it); og too, for a run from scratch: its checkpoint is such a run fine-tuned against expert
# alone
# (--init with --self-play 0 --pool expert --pool-snapshots 0; experiments/RESULTS.md).
# omg reads squashed observations and trains with shaping: without both a network learned nothing in millions of
# steps (it chose a matching card no more often than chance); its committed checkpoint added a kickstart by expert
# first
# (--teacher expert --teacher-share 0.5; experiments/RESULTS.md has both commands).
_AGAINST_EXPERT = {"self_play": 0.25, "pool": ["greedy", "expert", "expert", "expert"], "learner_seats": 2,
                   "pool_snapshots": 3, "ply_cap": 1000}
RULESET_DEFAULTS: dict[str, dict] = {
    "core": _AGAINST_EXPERT,
    "house": _AGAINST_EXPERT,
    "south_african": _AGAINST_EXPERT,
    "fatality": {"ply_cap": 1000},
    "og": {"ply_cap": 1000},
    "omg": {"squash_obs": True, "shaping": 0.05},
}


# ----------------------------------------------------------------------------------------------------------------
# Checkpoints
# ----------------------------------------------------------------------------------------------------------------
def save_checkpoint(path: Path, model, optimizer, cfg: Config, counters: dict, pool_states: list, np_rng,
                    critic=None) -> None:
    """Everything to continue the run, written atomically (temp file, then rename)."""
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "config": asdict(cfg),
        "counters": dict(counters),
        "pool": pool_states,
        "obs_size": model.obs_size,
        "num_actions": model.num_actions,
        "rng": {"torch": torch.get_rng_state(), "numpy": json.dumps(np_rng.bit_generator.state),
                "python": json.dumps(random.getstate())},
    }
    if critic is not None:  # agents.guided.load_networks reads the same keys
        state.update(critic=critic.state_dict(), critic_hidden=critic.hidden, critic_squash=critic.squash)
    where = next(model.parameters()).device
    if where.type == "cuda":  # sampling on the GPU draws from the GPU's own generator
        state["rng"]["torch_cuda"] = torch.cuda.get_rng_state(where)
    save_file(state, path)  # atomic, with a content checksum


def load_checkpoint(path: Path) -> dict:
    """A checkpoint, checked against its stored checksum (``ValueError`` for a damaged or unreadable file)."""
    return load_file(path)


def matching_checkpoint(path: Path, cfg: Config, resume_of: bool = False) -> dict:
    """The checkpoint at ``path``, refused unless it was trained for ``cfg``'s game and network width (and, for
    ``resume_of`` a run, with its critic)."""
    ck = load_checkpoint(path)
    saved = ck.get("config", {})
    got = (saved.get("ruleset"), saved.get("players"), saved.get("hidden"), saved.get("squash_obs", False))
    if got != (cfg.ruleset, cfg.players, cfg.hidden, cfg.squash_obs):
        raise ValueError(f"{path} was trained for {got[0]}, {got[1]} players, hidden {got[2]}, squash_obs "
                         f"{got[3]}; "
                         f"this run asks for {cfg.ruleset}, {cfg.players}, {cfg.hidden}, {cfg.squash_obs}")
    if saved.get("view", "own") != cfg.view:
        raise ValueError(f"{path} was trained with --view {saved.get('view', 'own')}; this run asks for --view "
                         f"{cfg.view}")
    if resume_of and (saved.get("critic", "shared"), saved.get("critic_hidden", cfg.critic_hidden)) != (
            cfg.critic, cfg.critic_hidden):
        raise ValueError(f"{path} was trained with --critic {saved.get('critic', 'shared')} (hidden "
                         f"{saved.get('critic_hidden')}); --resume must keep it: this run asks for --critic "
                         f"{cfg.critic} (hidden {cfg.critic_hidden})")
    return ck


# ----------------------------------------------------------------------------------------------------------------
# Training
# ----------------------------------------------------------------------------------------------------------------
def _newest(items: list, keep: int) -> list:
    """The last ``keep`` items (none for 0; ``items[-0:]`` would be all of them)."""
    return items[-keep:] if keep else []


class Opponents:
    """Who holds the seats of each game: -1 the learner, k >= 0 member k of the pool.

    Members are numbered once and never renumbered: the heuristics first, then each snapshot as it is taken. The
    pool a new game draws from is the heuristics and the newest ``pool_snapshots`` snapshots; a snapshot dropped
    from it still finishes the games it was dealt into (and is then freed), and each game's result is credited to
    the name its opponent had when the game was dealt (``snapshot-0`` the oldest in the pool then)."""

    def __init__(self, cfg: Config, rng: np.random.Generator, num_envs: int):
        self.cfg = cfg
        self.rng = rng
        self.heuristics = [agents_pkg.make_spec(spec, cfg.ruleset, cfg.players, seed=cfg.seed + i)
                           for i, spec in enumerate(cfg.pool)]
        self.members: list = list(self.heuristics)  # member k; a freed snapshot is None
        self.pool_snapshots: list[int] = []  # the members that are snapshots new games may draw, oldest first
        self.controller = np.full((num_envs, cfg.players), -1, np.int64)
        self.dealt_as = [""] * num_envs  # each game's opponent by the name it had at the deal
        self.totals = np.zeros((num_envs, cfg.players))  # each game's rewards so far, per seat (the logged result)

    @property
    def snapshots(self) -> list:
        """The snapshots in the pool, oldest first."""
        return [self.members[k] for k in self.pool_snapshots]

    @property
    def names(self) -> list[str]:
        return list(self.cfg.pool) + [f"snapshot-{i}" for i in range(len(self.pool_snapshots))]

    def add_snapshot(self, net) -> None:
        """``net`` joins the pool; the oldest beyond ``pool_snapshots`` leaves it (its games play on)."""
        self.members.append(net)
        self.pool_snapshots = _newest(self.pool_snapshots + [len(self.members) - 1], self.cfg.pool_snapshots)
        self._free()

    def _free(self) -> None:
        playing = set(np.unique(self.controller[self.controller >= 0]).tolist())
        for k in range(len(self.heuristics), len(self.members)):
            if k not in playing and k not in self.pool_snapshots:
                self.members[k] = None

    def deal(self, rows: np.ndarray) -> None:
        """Draw the table of each game in ``rows`` (games that were just dealt)."""
        n = self.cfg.players
        pool = list(range(len(self.heuristics))) + self.pool_snapshots
        names = self.names
        self.totals[rows] = 0.0
        for g in rows:
            self.controller[g] = -1
            self.dealt_as[g] = ""
            if not pool or self.rng.random() < self.cfg.self_play:
                continue
            i = int(self.rng.integers(len(pool)))
            self.controller[g] = pool[i]
            self.dealt_as[g] = names[i]
            if self.cfg.learner_seats == 1:  # the original draw (kept so that older runs resume the same way)
                self.controller[g, int(self.rng.integers(n))] = -1
            else:
                mine = int(self.rng.integers(1, min(self.cfg.learner_seats, n - 1) + 1))
                self.controller[g, self.rng.choice(n, mine, replace=False)] = -1
        self._free()

    def act(self, k: int, vg, rows: np.ndarray, device) -> np.ndarray:
        """Pool member k's actions in the games ``rows`` of ``vg``."""
        if k < len(self.heuristics):
            return act_in(self.heuristics[k], vg, rows)
        net = self.members[k]
        obs = torch.from_numpy(vg.observation[rows]).to(device).float()
        with torch.no_grad():
            if self.cfg.snapshot_play == "learner":
                idx, ok = packed_legal(vg.legal_ids[rows], vg.num_legal[rows])
                on = idx.to(device)
                logp, _ = net.legal(obs, on, ok.to(device))
                return sample_packed(played_log_probs(self.cfg, logp, on), on)[0].cpu().numpy()
            logits, _ = net(obs)
            mask = torch.from_numpy(vg.action_mask[rows]).to(device)
            return masked_logits(logits, mask).argmax(dim=1).cpu().numpy()


def set_threads(torch_threads: int, engine_threads: int) -> None:
    """Set both thread pools of a training run, so a user gets the benchmark's speed without any environment
    variable. On one thread the engine runs its serial kernels and opens no OpenMP region: numba's OpenMP workers
    spin after each region, and on a busy 2-core machine they starved torch's threads (core, 2 busy processes
    beside: 3.4k engine steps/s with 2 engine threads, 33k with 1; idle, 99k and 101k: the engine is a small
    share of a PPO update)."""
    import numba

    if isinstance(engine_threads, bool) or not isinstance(engine_threads, int) or engine_threads < 1:
        raise ValueError(f"engine_threads must be a positive integer, got {engine_threads!r}")
    if isinstance(torch_threads, bool) or not isinstance(torch_threads, int) or torch_threads < 0:
        raise ValueError(f"threads must be a non-negative integer (0: one per core), got {torch_threads!r}")
    numba.set_num_threads(min(engine_threads, numba.config.NUMBA_NUM_THREADS))
    if torch_threads:
        torch.set_num_threads(torch_threads)


def check_config(cfg: Config) -> None:
    """``ValueError`` for a config that cannot run, before anything is written."""
    if cfg.device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError("--device cuda asked for, but torch sees no GPU; use --device cpu")
    if cfg.num_envs < 1 or cfg.num_steps < 1 or cfg.total_steps < 1:
        raise ValueError("num_envs, num_steps and total_steps must be positive")
    if cfg.learner_seats < 1:
        raise ValueError("learner_seats must be at least 1")
    if not 0.0 <= cfg.teacher_share <= 1.0 or cfg.bc_coef < 0:
        raise ValueError("teacher_share must be in [0, 1] and bc_coef non-negative")
    if not cfg.shaping >= 0:
        raise ValueError(f"shaping must be a non-negative number (reward a card), got {cfg.shaping}")
    if not 0.0 <= cfg.ready_floor < 1.0:
        raise ValueError(f"ready_floor must be in [0, 1), got {cfg.ready_floor}")
    if cfg.ready_floor > 0 and not family_of(cfg.ruleset).setup_phase:
        raise ValueError(f"ready_floor: {cfg.ruleset} has no setup and no ready action")
    if isinstance(cfg.temperature, bool) or not 0.0 < cfg.temperature < math.inf:
        raise ValueError(f"temperature must be a positive finite number, got {cfg.temperature}")
    if cfg.snapshot_play not in SNAPSHOT_PLAYS:
        raise ValueError(f"snapshot_play must be one of {', '.join(SNAPSHOT_PLAYS)}, got {cfg.snapshot_play!r}")
    if cfg.critic not in CRITICS:
        raise ValueError(f"critic must be one of {', '.join(CRITICS)}, got {cfg.critic!r}")
    if cfg.critic_hidden < 1:
        raise ValueError(f"critic_hidden must be positive, got {cfg.critic_hidden}")
    if cfg.view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {cfg.view!r}")
    if cfg.view == "full":
        if "fictive" not in agents_pkg.offered_agents(cfg.ruleset):
            raise ValueError(f"--view full: the fictive agent plays the palace rulesets, not {cfg.ruleset}")
        if cfg.self_play > 0 or cfg.pool_snapshots or cfg.teacher or cfg.critic != "shared":
            raise ValueError("--view full trains a fictive player against a fixed pool: it needs --self-play 0, "
                             "--pool-snapshots 0, no --teacher and --critic shared (the policy sees every hand)")


@dataclass
class Run:
    """A run's state between updates: its directory, the network and optimizer, the counters, the snapshots in the
    pool (their weights, as checkpointed) and the numpy generator every draw of the run comes from."""

    cfg: Config
    run_dir: Path
    device: torch.device
    model: Policy
    optimizer: torch.optim.Optimizer
    counters: dict
    pool_states: list
    np_rng: np.random.Generator
    critic: nn.Module | None = None  # the full critic (--critic full), else None

    @property
    def checkpoint(self) -> Path:
        return self.run_dir / "checkpoint.pt"

    def new_policy(self, obs_size: int, num_actions: int) -> Policy:
        cfg = self.cfg
        size = obs_size * (cfg.players if cfg.view == "full" else 1)  # a fictive policy reads every seat's
        return Policy(size, num_actions, cfg.hidden, cfg.squash_obs).to(self.device)

    def save(self) -> None:
        save_checkpoint(self.checkpoint, self.model, self.optimizer, self.cfg, self.counters, self.pool_states,
                        self.np_rng, self.critic)


def open_run(cfg: Config, resume: bool) -> Run:
    """The run directory, claimed (refused when it holds another run and ``resume`` is off), and the run's network,
    optimizer, counters and generators: from its checkpoint with ``resume`` (what a killed run logged after it is
    dropped), else fresh from ``cfg.seed`` (``cfg.init``: the network's weights from that checkpoint)."""
    run_dir = Path(cfg.out) / cfg.run_name()
    ckpt_path = run_dir / "checkpoint.pt"
    holds_run = run_dir.is_dir() and any(run_dir.iterdir())
    if not resume and holds_run:
        raise ValueError(f"{run_dir} already holds a run: add --resume to continue it, or choose another --name")
    if resume and not ckpt_path.exists():
        raise ValueError(f"--resume: {run_dir} holds no checkpoint to continue from (a run writes its first at "
                         f"update --checkpoint-every); drop --resume to start a run, with a new --name if "
                         f"{run_dir} exists")
    run_dir.mkdir(parents=True, exist_ok=True)
    device = torch.device(cfg.device)
    sizes = family_of(cfg.ruleset).sizes(shedders.make_rules(cfg.ruleset, cfg.players))
    torch.manual_seed(cfg.seed)  # before the network's initialisation: the same seed gives the same run
    random.seed(cfg.seed)
    model = Policy(sizes[1] * (cfg.players if cfg.view == "full" else 1), sizes[0], cfg.hidden,
                   cfg.squash_obs).to(device)
    critic = (Critic(sizes[1], cfg.players, cfg.critic_hidden, cfg.squash_obs).to(device) if cfg.critic == "full"
              else None)
    params = [*model.parameters(), *(critic.parameters() if critic is not None else ())]
    run = Run(cfg, run_dir, device, model, torch.optim.Adam(params, lr=cfg.lr, eps=1e-5),
              {"update": 0, "global_step": 0, "episodes": 0, "seconds": 0.0}, [], np.random.default_rng(cfg.seed),
              critic)
    if resume:
        ck = matching_checkpoint(ckpt_path, cfg, resume_of=True)
        model.load_state_dict(ck["model"])
        if critic is not None:
            critic.load_state_dict(ck["critic"])
        run.optimizer.load_state_dict(ck["optimizer"])
        run.counters = dict(ck["counters"])
        run.pool_states = _newest(list(ck["pool"]), cfg.pool_snapshots)
        torch.set_rng_state(ck["rng"]["torch"])
        if device.type == "cuda" and "torch_cuda" in ck["rng"]:
            torch.cuda.set_rng_state(ck["rng"]["torch_cuda"], device)
        run.np_rng.bit_generator.state = json.loads(ck["rng"]["numpy"])
        random.setstate(as_tuples(json.loads(ck["rng"]["python"])))
        forget_after(run_dir, run.counters["update"])
    elif cfg.init:  # fine-tuning: only the network's weights
        if not Path(cfg.init).is_file():
            raise ValueError(f"--init {cfg.init}: no such checkpoint")
        model.load_state_dict(matching_checkpoint(Path(cfg.init), cfg)["model"])
    (run_dir / "config.json").write_text(json.dumps(asdict(cfg), indent=1))
    return run


@dataclass
class Rollout:
    """The rollout buffers, one slot per (step, game), valid where the learner decided; ``last_t`` is the last
    decision of each (game, seat) in this rollout (-1: none), where that seat's rewards go."""

    obs: torch.Tensor
    legal: torch.Tensor  # the packed legal ids (legal_index), widened as a decision needs
    nlegal: torch.Tensor
    act: torch.Tensor
    logp: torch.Tensor
    val: torch.Tensor
    teach: torch.Tensor  # the teacher's choice where it labelled, else -1
    rew: np.ndarray
    done: np.ndarray
    valid: np.ndarray
    seat: np.ndarray
    last_t: np.ndarray
    full: torch.Tensor | None = None  # the full critic's input of each decision (--critic full), else None

    @classmethod
    def allocate(cls, steps: int, games: int, seats: int, obs_size: int, full_critic: bool = False) -> Rollout:
        t, b = steps, games
        return cls(torch.zeros((t, b, obs_size), dtype=torch.int8), torch.zeros((t, b, 32), dtype=torch.long),
                   torch.zeros((t, b), dtype=torch.long), torch.zeros((t, b), dtype=torch.long),
                   torch.zeros((t, b)), torch.zeros((t, b)), torch.full((t, b), -1, dtype=torch.long),
                   np.zeros((t, b), np.float32),
                   np.zeros((t, b), np.bool_), np.zeros((t, b), np.bool_), np.zeros((t, b), np.int64),
                   np.full((b, seats), -1, np.int64),
                   torch.zeros((t, b, seats * obs_size), dtype=torch.int8) if full_critic else None)

    def clear(self) -> None:
        self.valid[:] = False
        self.teach[:] = -1
        self.rew[:] = 0
        self.done[:] = False
        self.last_t[:] = -1


@contextmanager
def timed(timing: dict, key: str):
    """Add the seconds the block takes to ``timing[key]``."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timing[key] += time.perf_counter() - start


def full_view(vg, seats: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The full critic's input in the games ``rows`` for the seats ``seats`` (one per row): the observations of
    every seat, the given one's first, then the others in turn order, side by side (int8). Each seat's own
    observation shows its hand, so the critic sees every hand (not the face-down cards, which nobody sees)."""
    n = vg.num_players
    at = np.zeros(vg.num_envs, np.int64)
    parts = []
    for k in range(n):
        at[rows] = (seats + k) % n
        parts.append(vg.observe(at)[rows])
    return np.concatenate(parts, axis=1)


def played_log_probs(cfg: Config, logp, idx):
    """The policy the learner plays, from the network's packed log-probabilities over the legal ids ``idx``: at
    ``cfg.temperature`` (agents.ppo.cool_log_probs), then with the ready floor, as the ``ppo`` agent plays it."""
    if cfg.temperature != 1.0:
        logp = cool_log_probs(logp, cfg.temperature)
    if cfg.ready_floor > 0:
        logp = floor_log_probs(logp, idx, READY, cfg.ready_floor)
    return logp


def learner_acts(cfg: Config, vg, model, buf: Rollout, t: int, mine: np.ndarray, seats: np.ndarray, device,
                 critic=None):
    """The network's actions in the games ``mine`` (where a learner seat decides at step ``t``), recorded in
    ``buf`` with what the update needs (and the shaping potential of each seat's cards). With a full ``critic``
    the recorded value is the critic's, from every seat's observation; the action is the policy's alone."""
    obs_t = torch.from_numpy(full_view(vg, seats, mine) if cfg.view == "full" else vg.observation[mine])
    idx, ok = packed_legal(vg.legal_ids[mine], vg.num_legal[mine])
    with torch.inference_mode():
        on = idx.to(device)
        logp, value = model.legal(obs_t.to(device).float(), on, ok.to(device))
        logp = played_log_probs(cfg, logp, on)
        a, logp = sample_packed(logp, on)
        if critic is not None:
            full = torch.from_numpy(full_view(vg, seats, mine))
            value = critic(full.to(device).float())
            buf.full[t, mine] = full
    buf.obs[t, mine] = obs_t
    if idx.shape[1] > buf.legal.shape[2]:
        buf.legal = torch.cat([buf.legal, buf.legal.new_zeros((*buf.legal.shape[:2], idx.shape[1]))], dim=2)
    buf.legal[t, mine, :idx.shape[1]] = idx
    buf.nlegal[t, mine] = torch.from_numpy(vg.num_legal[mine].astype(np.int64))
    buf.act[t, mine] = a.cpu()
    buf.logp[t, mine] = logp.cpu()
    buf.val[t, mine] = value.cpu()
    buf.valid[t, mine] = True
    buf.seat[t, mine] = seats
    if cfg.shaping:
        add_shaping(buf.rew, buf.last_t, t, mine, seats, -cfg.shaping * vg.cards_held()[mine, seats], cfg.gamma)
    buf.last_t[mine, seats] = t
    return a.cpu().numpy()


def credit(cfg: Config, vg, buf: Rollout, still_in: np.ndarray | None, opp: Opponents,
           results: dict) -> np.ndarray:
    """After an engine step: each seat's rewards go to its last decision, a capped seat is charged the truncation
    penalty, a finished game closes every trajectory in it and is dealt a new table. Returns the finished games."""
    r = vg.rewards
    opp.totals += r
    for s in range(cfg.players):
        idx = np.flatnonzero((buf.last_t[:, s] >= 0) & (r[:, s] != 0))
        buf.rew[buf.last_t[idx, s], idx] += r[idx, s]
    ended = np.flatnonzero(vg.terminated | vg.truncated)
    if cfg.truncation_penalty:
        for g, s in capped_seats(vg, still_in, cfg.cap_rule):
            if buf.last_t[g, s] >= 0:
                buf.rew[buf.last_t[g, s], g] -= cfg.truncation_penalty
    if len(ended):
        for s in range(cfg.players):
            idx = ended[buf.last_t[ended, s] >= 0]
            buf.done[buf.last_t[idx, s], idx] = True
            buf.last_t[ended, s] = -1
        for g in ended:
            if opp.dealt_as[g]:  # the learner's result against the game's opponent: its seats' mean reward,
                seats = np.flatnonzero(opp.controller[g] < 0)  # summed over the game as tournaments sum it
                results.setdefault(opp.dealt_as[g], []).append(float(opp.totals[g, seats].mean()))
        opp.deal(ended)
    return ended


def collect(cfg: Config, vg, run: Run, opp: Opponents, teacher, buf: Rollout, timing: dict) -> dict:
    """One rollout of ``num_steps`` engine steps: the learner's seats sample from the network, the teacher labels a
    share of their real choices, the pool plays the other seats. Returns the learner's game results against each
    opponent."""
    b = cfg.num_envs
    results = {name: [] for name in opp.names}
    rows = np.arange(b)
    for t in range(cfg.num_steps):
        cur = vg.current_player.astype(np.int64)
        ctrl = opp.controller[rows, cur]
        actions = np.zeros(b, np.int64)
        mine = np.flatnonzero(ctrl < 0)
        with timed(timing, "forward"):
            if len(mine):
                actions[mine] = learner_acts(cfg, vg, run.model, buf, t, mine, cur[mine], run.device, run.critic)
        if teacher is not None and len(mine) and cfg.teacher_share > 0:
            with timed(timing, "teacher"):  # only real choices: a decision with one legal action teaches nothing
                lab = mine[(vg.num_legal[mine] > 1) & (run.np_rng.random(len(mine)) < cfg.teacher_share)]
                if len(lab):
                    buf.teach[t, lab] = torch.from_numpy(act_in(teacher, vg, lab))
        with timed(timing, "opponents"):
            for k in np.unique(ctrl[ctrl >= 0]):
                sel = np.flatnonzero(ctrl == k)
                actions[sel] = opp.act(int(k), vg, sel, run.device)
        with timed(timing, "engine"):
            still_in = ~vg.seats_out() if cfg.truncation_penalty else None  # who is in before this step
            vg.step(actions)
        run.counters["episodes"] += len(credit(cfg, vg, buf, still_in, opp, results))
    return results


def bootstrap(cfg: Config, vg, run: Run, buf: Rollout) -> np.ndarray:
    """(games, seats): the value of each open trajectory's seat where it stands now (0 for closed ones); with
    shaping, the open trajectories' last decisions also gain the potential of the seat's cards now."""
    b, n = cfg.num_envs, cfg.players
    boot = np.zeros((b, n), np.float32)
    if cfg.shaping:
        held = vg.cards_held()
        for s in range(n):
            g = np.flatnonzero(buf.last_t[:, s] >= 0)
            buf.rew[buf.last_t[g, s], g] += cfg.gamma * -cfg.shaping * held[g, s]
    with torch.inference_mode():
        for s in range(n):
            open_rows = np.flatnonzero(buf.last_t[:, s] >= 0)
            if len(open_rows):
                if run.critic is not None:
                    view = full_view(vg, np.full(len(open_rows), s), open_rows)
                    value = run.critic
                elif cfg.view == "full":
                    view, value = full_view(vg, np.full(len(open_rows), s), open_rows), run.model.value
                else:
                    view, value = vg.observe(np.full(b, s))[open_rows], run.model.value
                boot[open_rows, s] = value(torch.from_numpy(view).to(run.device).float()).cpu().numpy()
    return boot


def advantages(cfg: Config, buf: Rollout, boot: np.ndarray) -> np.ndarray:
    """GAE per (game, seat) over each seat's own decisions, backwards from the bootstrap values."""
    adv = np.zeros(buf.rew.shape, np.float32)
    next_value = boot.copy()
    next_adv = np.zeros_like(boot)
    values = buf.val.numpy()
    for t in range(cfg.num_steps - 1, -1, -1):
        g = np.flatnonzero(buf.valid[t])
        s = buf.seat[t, g]
        nonterminal = 1.0 - buf.done[t, g]
        delta = buf.rew[t, g] + cfg.gamma * next_value[g, s] * nonterminal - values[t, g]
        a_ = delta + cfg.gamma * cfg.gae_lambda * nonterminal * next_adv[g, s]
        adv[t, g] = a_
        next_value[g, s] = values[t, g]
        next_adv[g, s] = a_
    return adv


def update(cfg: Config, run: Run, buf: Rollout, adv: np.ndarray) -> dict:
    """The PPO update on the learner's decisions of the rollout (``ppo_update``'s statistics)."""
    flat = torch.from_numpy(buf.valid.reshape(-1))
    b_nlegal = buf.nlegal.reshape(-1)[flat]
    width = max(int(b_nlegal.max()) if len(b_nlegal) else 1, 1)
    b_legal = (buf.legal[:, :, :width].reshape(-1, width)[flat],
               torch.arange(width)[None, :] < b_nlegal[:, None])  # legal_index's (idx, valid) of each decision
    b_val = buf.val.reshape(-1)[flat]
    b_adv = torch.from_numpy(adv.reshape(-1))[flat]
    full = None if run.critic is None else (run.critic, buf.full.reshape(-1, buf.full.shape[2])[flat])
    return ppo_update(run.model, run.optimizer, cfg, buf.obs.reshape(-1, buf.obs.shape[2])[flat], b_legal,
                      buf.act.reshape(-1)[flat], buf.logp.reshape(-1)[flat], b_val, b_adv, b_adv + b_val,
                      run.device, run.np_rng, buf.teach.reshape(-1)[flat], full)


def progress_row(cfg: Config, run: Run, buf: Rollout, stats: dict, timing: dict, results: dict, lr: float,
                 elapsed: float) -> dict:
    """The update's row of ``progress.csv`` (experiments/README.md explains each column)."""
    steps = cfg.num_envs * cfg.num_steps
    c = run.counters
    row = {"update": c["update"], "global_step": c["global_step"], "episodes": c["episodes"],
           "learner_decisions": int(buf.valid.sum()), "sps": steps / elapsed, "lr": lr, **stats,
           **{f"share_{k}": v / elapsed for k, v in timing.items()}}
    for name, vals in results.items():
        if vals:
            row[f"reward_vs_{name}"] = float(np.mean(vals))
            row[f"win_vs_{name}"] = float(np.mean(np.asarray(vals) > 0))
    return row


def after_update(cfg: Config, run: Run, opp: Opponents, vg, writer, final: bool) -> None:
    """A snapshot into the pool every ``snapshot_every`` updates, a checkpoint every ``checkpoint_every`` (and at
    the end), an evaluation tournament every ``eval_every`` (and at the end) with its curve."""
    update_no = run.counters["update"]
    if cfg.snapshot_every and update_no % cfg.snapshot_every == 0:
        snap = run.new_policy(vg.observation_size, vg.num_actions)
        snap.load_state_dict(run.model.state_dict())
        opp.add_snapshot(snap)
        run.pool_states = [{k: v.cpu().clone() for k, v in m.state_dict().items()} for m in opp.snapshots]
    if final or update_no % cfg.checkpoint_every == 0:
        run.save()
    if cfg.eval_deals and (final or (cfg.eval_every and update_no % cfg.eval_every == 0)):
        run.save()
        ev = evaluate(cfg, run.checkpoint, run.run_dir, update_no)
        log_row(run.run_dir / "eval.csv", {"update": update_no, "global_step": run.counters["global_step"], **ev},
                writer, prefix="eval/")
        plot_curve(run.run_dir)  # kept current, so a killed run has its curve up to its last evaluation


def train(cfg: Config, resume: bool = False, progress: bool = True) -> dict:
    """Train (or, with ``resume``, continue) the run ``cfg`` describes; returns its directory, counters and last
    progress row. Each update: collect a rollout, bootstrap and compute advantages, update the network, then
    snapshot, log, checkpoint and evaluate as the config says."""
    check_config(cfg)
    set_threads(cfg.threads, cfg.engine_threads)
    run = open_run(cfg, resume)
    counters = run.counters
    # a fresh deal per update counter: a resumed run deals new games, from the seed and where it stopped
    vg = shedders.VectorGame(cfg.ruleset, cfg.num_envs, cfg.players, seed=cfg.seed + 7919 * counters["update"],
                             ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule)
    vg.reset()
    opp = Opponents(cfg, run.np_rng, cfg.num_envs)
    for st in run.pool_states:
        net = run.new_policy(vg.observation_size, vg.num_actions)
        net.load_state_dict(st)
        opp.add_snapshot(net)
    opp.deal(np.arange(cfg.num_envs))
    teacher_seed = cfg.seed + 104729 + counters["update"]
    teacher = (agents_pkg.make_spec(cfg.teacher, cfg.ruleset, cfg.players, seed=teacher_seed) if cfg.teacher
               else None)
    writer = tensorboard_writer(run.run_dir, counters["global_step"] if resume else None)
    steps_per_update = cfg.num_envs * cfg.num_steps
    # counted from the steps still to go, so that a run resumed with another --num-envs ends at --total-steps too
    steps_left = max(0, cfg.total_steps - counters["global_step"])
    num_updates = counters["update"] + math.ceil(steps_left / steps_per_update)
    bar = tqdm(total=num_updates, initial=counters["update"], desc=f"ppo {cfg.ruleset}", unit="update",
               disable=not progress)
    seen = vg.observation_size * (cfg.players if cfg.view == "full" else 1)  # what the policy reads
    buf = Rollout.allocate(cfg.num_steps, cfg.num_envs, cfg.players, seen, run.critic is not None)
    last = {}
    started = time.perf_counter()
    while counters["update"] < num_updates:
        t0 = time.perf_counter()
        lr = cfg.lr * (1.0 - counters["update"] / num_updates if cfg.anneal_lr else 1.0)
        for group in run.optimizer.param_groups:
            group["lr"] = lr
        timing = {"engine": 0.0, "forward": 0.0, "opponents": 0.0, "teacher": 0.0, "update": 0.0}
        buf.clear()
        results = collect(cfg, vg, run, opp, teacher, buf, timing)
        with timed(timing, "forward"):
            boot = bootstrap(cfg, vg, run, buf)
        with timed(timing, "update"):
            stats = update(cfg, run, buf, advantages(cfg, buf, boot))
        counters["update"] += 1
        counters["global_step"] += steps_per_update
        elapsed = time.perf_counter() - t0
        counters["seconds"] += elapsed
        last = progress_row(cfg, run, buf, stats, timing, results, lr, elapsed)
        out_of_time = cfg.time_budget > 0 and time.perf_counter() - started >= cfg.time_budget
        final = counters["update"] == num_updates or out_of_time
        log_row(run.run_dir / "progress.csv", last, writer)
        bar.update(1)
        bar.set_postfix(sps=f"{last['sps']:,.0f}", kl=f"{stats['approx_kl']:.3f}")
        after_update(cfg, run, opp, vg, writer, final)
        if out_of_time:  # checkpointed (and evaluated) above as a final update: --resume goes on from here
            break
    bar.close()
    if writer is not None:
        writer.close()
    plot_curve(run.run_dir)
    return {"run_dir": str(run.run_dir), "counters": counters, "last": last}


def add_shaping(rew_buf: np.ndarray, last_t: np.ndarray, t: int, rows: np.ndarray, seats: np.ndarray,
                phi: np.ndarray, gamma: float) -> None:
    """Potential-based shaping at decision ``t`` of the seats ``seats`` of games ``rows``, whose potentials are
    ``phi``: the seat's previous decision in this rollout (``last_t``, -1 for none) gains ``gamma * phi`` and this
    one ``-phi``. Along a trajectory that ends in the rollout the terms add up to ``-phi`` of its first decision
    (with gamma 1), whatever was played: the shaping moves no policy's return by more than a constant."""
    prev = last_t[rows, seats]
    has = prev >= 0
    rew_buf[prev[has], rows[has]] += gamma * phi[has]
    rew_buf[t, rows] -= phi


def capped_seats(vg, still_in: np.ndarray, cap_rule: str) -> list[tuple[int, int]]:
    """(game, seat) of every seat still in a game the last step capped: the ones the truncation penalty charges.
    ``still_in`` is who was still in before that step. Under ``truncate`` those the env left unplaced; under
    ``most_cards``, which places every seat, those still in before the capping step (one going out on that very
    step
    counts as still in)."""
    out = []
    for g in np.flatnonzero(vg.truncated):
        placed = {int(p) for p in vg.final_placing[g] if p >= 0} if cap_rule == "truncate" else set()
        out += [(int(g), s) for s in range(still_in.shape[1]) if still_in[g, s] and s not in placed]
    return out


def ppo_update(model, optimizer, cfg, b_obs, b_mask, b_act, b_logp, b_val, b_adv, b_ret, device, rng,
               b_teach=None, full=None) -> dict:
    """Clipped PPO on the learner's decisions of one rollout; invalid actions masked in the logits. ``b_mask`` is
    each decision's action mask, or its legal ids already packed as ``legal_index`` gives them (``(idx, valid)``).
    Where ``b_teach`` holds a teacher's choice (>= 0), ``cfg.bc_coef`` times its cross-entropy joins the loss.
    ``full`` is ``(critic, its inputs)`` of a perfect-information critic (``b_val`` its values): ``v_loss`` is
    then the critic's, and the policy's own value head learns the same returns beside it (``own_v_loss``); the
    two networks' gradients are clipped each to ``max_grad_norm``."""
    n = len(b_act)
    out = {"loss": 0.0, "pg_loss": 0.0, "v_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clipfrac": 0.0,
           "explained_variance": float("nan")}
    if n < 2:
        return out
    mb = max(1, n // cfg.num_minibatches)
    clipfracs = []
    # the softmax runs over each row's legal actions only
    b_idx, b_valid = b_mask if isinstance(b_mask, tuple) else legal_index(b_mask)
    b_pos = (b_idx == b_act[:, None]).to(torch.uint8).argmax(dim=1)  # where the action taken sits in its row
    taught = b_teach is not None and bool((b_teach >= 0).any())
    if taught:
        b_has = b_teach >= 0
        hit = (b_idx == b_teach[:, None]) & b_valid
        if not bool(hit.any(dim=1)[b_has].all()):
            raise RuntimeError("the teacher chose an illegal action")
        b_tpos = hit.to(torch.uint8).argmax(dim=1)
        agree = []
    for _ in range(cfg.update_epochs):
        order = rng.permutation(n)
        for start in range(0, n, mb):
            idx = torch.from_numpy(order[start:start + mb])
            obs = b_obs[idx].to(device).float()
            legal = b_valid[idx].to(device)
            logp_all, value = model.legal(obs, b_idx[idx].to(device), legal)
            logp_all = played_log_probs(cfg, logp_all, b_idx[idx].to(device))
            logp = logp_all.gather(1, b_pos[idx].to(device)[:, None]).squeeze(1)
            ratio = (logp - b_logp[idx].to(device)).exp()
            adv = b_adv[idx].to(device)
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            ret = b_ret[idx].to(device)
            v_loss = 0.5 * ((value - ret) ** 2).mean()
            if full is not None:  # the critic's loss; the policy's own head learns the same returns
                own_v_loss = v_loss
                v_loss = 0.5 * ((full[0](full[1][idx].to(device).float()) - ret) ** 2).mean()
                out["own_v_loss"] = own_v_loss.item()
            entropy = -(logp_all.exp() * logp_all.masked_fill(~legal, 0.0)).sum(dim=1).mean()
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            if full is not None:
                loss = loss + cfg.vf_coef * own_v_loss
            if taught:
                has = b_has[idx].to(device)
                if bool(has.any()):
                    tpos = b_tpos[idx].to(device)[has]
                    bc_loss = -logp_all[has].gather(1, tpos[:, None]).mean()
                    loss = loss + cfg.bc_coef * bc_loss
                    out["bc_loss"] = bc_loss.item()
                    agree.append(float((logp_all[has].argmax(dim=1) == tpos).float().mean()))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            if full is not None:
                nn.utils.clip_grad_norm_(full[0].parameters(), cfg.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                log_ratio = logp - b_logp[idx].to(device)
                out["approx_kl"] = float(((ratio - 1) - log_ratio).mean())
                clipfracs.append(float(((ratio - 1).abs() > cfg.clip_coef).float().mean()))
            out.update(loss=loss.item(), pg_loss=pg_loss.item(), v_loss=v_loss.item(), entropy=entropy.item())
    y, v = b_ret.numpy(), b_val.numpy()
    var = np.var(y)
    out["clipfrac"] = float(np.mean(clipfracs))
    if taught and agree:
        out["teacher_agree"] = float(np.mean(agree))  # the policy's most likely action is the teacher's choice
    out["explained_variance"] = float(1 - np.var(y - v) / var) if var > 0 else float("nan")
    return out


def evaluate(cfg: Config, ckpt: Path, run_dir: Path, update: int) -> dict:
    """A duplicate tournament of the checkpoint against greedy and expert (those the ruleset has)."""
    field = [a for a in ("greedy", "expert") if a in agents_pkg.offered_agents(cfg.ruleset)]
    me = "fictive" if cfg.view == "full" else "ppo"
    played = "".join(f"+{k}={v}" for k, v in (("temperature", cfg.temperature), ("ready_floor", cfg.ready_floor))
                     if v != Config.__dataclass_fields__[k].default)  # the policy as it trained
    tc = T.Config(ruleset=cfg.ruleset, players=cfg.players, agents=[f"{me}:checkpoint={ckpt}{played}", *field],
                  games=cfg.eval_deals, seed=cfg.seed + update, out=str(run_dir / "eval"),
                  name=f"update-{update:06d}",
                  ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule)
    s = T.run(tc, progress=False)
    out = {}
    for row in s["agents"]:
        label = "ppo" if row["agent"].startswith("ppo") else row["agent"]
        out[f"{label}_reward"] = row["mean_reward"]
        out[f"{label}_win"] = row["win_rate"]
        out[f"{label}_mu"] = row["mu"]
    return out


def plot_curve(run_dir: Path) -> None:
    """learning_curve.png: rewards against each opponent, and evaluation rewards, by engine steps."""
    from matplotlib.figure import Figure  # no pyplot: a library must not pick (or change) the user's backend

    path = run_dir / "progress.csv"
    if not path.exists():
        return
    rows = read_rows(path)
    fig = Figure(figsize=(11, 3.6))
    axes = fig.subplots(1, 2)
    x = [float(r["global_step"]) for r in rows]
    for key in rows[-1]:
        if key.startswith("reward_vs_") and not key.startswith("reward_vs_snapshot"):
            pts = [(xi, float(r[key])) for xi, r in zip(x, rows) if r.get(key) not in (None, "")]
            if pts:
                xs, ys = map(np.asarray, zip(*pts))
                k = max(1, min(20, len(ys) // 5))  # a moving average over k updates
                axes[0].plot(xs[k - 1:], np.convolve(ys, np.ones(k) / k, mode="valid"),
                             label=f"vs {key[len('reward_vs_'):]}", lw=1.2)
    axes[0].axhline(0, color="grey", lw=0.6)
    axes[0].set_xlabel("engine steps")
    axes[0].set_ylabel("reward per game (training, avg)")
    if axes[0].get_legend_handles_labels()[0]:  # the zero line has no label
        axes[0].legend(fontsize=7)
    ev = run_dir / "eval.csv"
    if ev.exists():
        erows = read_rows(ev)
        ex = [float(r["global_step"]) for r in erows]
        for key in erows[-1]:
            if key.endswith("_reward"):
                axes[1].plot(ex, [float(r[key]) for r in erows], marker="o", label=key[: -len("_reward")])
        axes[1].set_xlabel("engine steps")
        axes[1].set_ylabel("mean reward in evaluation tournaments")
        if axes[1].get_legend_handles_labels()[0]:
            axes[1].legend(fontsize=7)
    for ax in axes:  # millions of steps: one exponent per axis, so the tick labels do not run into each other
        ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    fig.tight_layout()
    fig.savefig(run_dir / "learning_curve.png", dpi=110)


def _shown(value) -> str:
    return ",".join(value) if isinstance(value, list) else str(value)


def parse_args(argv=None) -> tuple[Config, bool, bool]:
    """The config of a command line: ``--ruleset``'s defaults (``Config.for_ruleset``), then the flags given."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--ruleset", default=Config.ruleset)
    ruleset = first.parse_known_args(argv)[0].ruleset
    epilog = ("Defaults that differ per ruleset: " + "; ".join(
        f"{r}: " + ", ".join(f"--{k.replace('_', '-')} {_shown(v)}" for k, v in d.items())
        for r, d in RULESET_DEFAULTS.items()) + ". A flag given wins.")
    ap = build_parser(Config, description=__doc__, base=Config.for_ruleset(ruleset), epilog=epilog)
    ap.add_argument("--resume", action="store_true", help="continue the run in runs/<name>/ from its checkpoint")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    return config_from(Config, args), args.resume, args.quiet


def checked_train(cfg: Config, resume: bool = False, progress: bool = True) -> dict:
    """``train`` after the command line's checks of the rules and the agents it names."""
    shedders.make_rules(cfg.ruleset, cfg.players)
    for spec in cfg.pool:
        name = agents_pkg.parse_agent(spec)[0]
        if name not in agents_pkg.offered_agents(cfg.ruleset):
            raise ValueError(f"unknown pool agent {name!r} for {cfg.ruleset}")
    if cfg.teacher and agents_pkg.parse_agent(cfg.teacher)[0] not in agents_pkg.offered_agents(cfg.ruleset):
        raise ValueError(f"unknown teacher agent {cfg.teacher!r} for {cfg.ruleset}")
    return train(cfg, resume=resume, progress=progress)


def main(argv=None) -> dict:
    cfg, resume, quiet = parse_args(argv)
    return run_command(checked_train, cfg, resume, quiet, files="checkpoint.pt, progress.csv, learning_curve.png")


if __name__ == "__main__":
    main()
