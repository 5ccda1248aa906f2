"""Deep Monte Carlo with action features (DouZero: Zha et al., ICML 2021), in one file.

    python -m experiments.train_dmc --ruleset core --total-steps 20000000
    python -m experiments.train_dmc --ruleset core --name dmc-core --resume     # continue a killed run

A Q-network (``agents.dmc.QNet``) scores each legal action of a state from the observation and the action's own
features; the learner plays the action of highest value, a uniformly random legal one with probability
``--epsilon``. Every decision it made is a sample: when its game ends, the target is the return the deciding seat
collected from that decision on (every reward after it, undiscounted, as the game pays them; a game at
``--ply-cap`` ends by ``--cap-rule``), and the network regresses its value on it (mean squared error). No
bootstrapping, no policy gradient: Monte Carlo targets, which DouZero found to suit long-horizon card games with
sparse rewards. The tables come from ``train_ppo.Opponents`` (a share of games in self-play, the rest one or more
learner seats against a heuristic of ``--pool``), so the two trainers deal games alike.

Each finished sample is used once, in minibatches of ``--batch`` as they fill. The run directory holds
``checkpoint.pt`` (every ``--checkpoint-every`` updates and at the end; ``--resume`` continues from it, with the
same counters and generators), ``progress.csv`` and TensorBoard's ``train/`` scalars (one row per update: the loss,
the mean value and target, the learner's mean game reward against each pool member, engine steps per second) and,
at the end, ``eval.csv``: a duplicate
tournament of the network (``dmc:checkpoint=...``) against greedy and expert.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

import shedders
from agents.dmc import QNet, action_features
from agents.ppo import load_file, packed_legal, save_file
from experiments import tournament as T
from experiments.runlog import as_tuples, forget_after, log_row, run_command, tensorboard_writer
from experiments.train_ppo import Opponents, set_threads
from shedders.commandline import build_parser, config_from
from shedders.envs.family import family_of


@dataclass
class Config:
    """Every field is a command-line flag (``--num-envs 256``)."""

    ruleset: str = "core"
    players: int = 4
    num_envs: int = 256  # games played side by side
    total_steps: int = 20_000_000  # engine steps in all (every seat's decisions count)
    time_budget: float = 0.0  # stop after this many seconds of training (0: none); --resume goes on
    hidden: int = 512  # width of the state embedding and of the head
    action_hidden: int = 64  # width of the action features' embedding
    squash_obs: bool = True  # the network reads sign(x) log(1 + |x|) of the observation
    lr: float = 1e-4  # Adam's step size
    batch: int = 2048  # samples per gradient step; each finished sample is used once
    epsilon: float = 0.01  # the learner's share of uniformly random legal moves (DouZero's)
    self_play: float = 0.5  # share of games where the learner holds every seat
    pool: list[str] = field(default_factory=lambda: ["expert"])  # the other games' opponents, one drawn per game
    learner_seats: int = 1  # in a game against the pool, the network holds 1..learner_seats seats
    ply_cap: int = 1000  # decisions after which a game is capped
    cap_rule: str = "most_cards"  # how a capped game ends (every seat is placed, so every sample has a target)
    seed: int = 0  # seeds the deals, torch, numpy and every opponent
    threads: int = 0  # torch threads (0: one per core)
    engine_threads: int = 1  # numba threads of the engine
    checkpoint_every: int = 20  # updates between checkpoints
    eval_deals: int = 32  # deals of the final evaluation tournament (0: none)
    out: str = "runs"  # the folder that holds the run directory
    name: str | None = None  # the run directory's name (none: dmc-<ruleset>-<players>p-seed<seed>)
    pool_snapshots: int = 0  # (train_ppo.Opponents reads it: DMC's pool holds heuristics only)

    def run_name(self) -> str:
        return self.name or f"dmc-{self.ruleset}-{self.players}p-seed{self.seed}"


def check_config(cfg: Config) -> None:
    """``ValueError`` for a config that cannot run, before anything is written."""
    shedders.make_rules(cfg.ruleset, cfg.players)
    if min(cfg.num_envs, cfg.total_steps, cfg.hidden, cfg.action_hidden, cfg.batch, cfg.checkpoint_every) < 1:
        raise ValueError("num_envs, total_steps, hidden, action_hidden, batch and checkpoint_every must be "
                         "positive")
    if not (0.0 <= cfg.epsilon <= 1.0 and 0.0 <= cfg.self_play <= 1.0) or not cfg.lr > 0:
        raise ValueError("epsilon and self_play must be in [0, 1], lr positive")
    if cfg.pool_snapshots:
        raise ValueError("train_dmc's pool holds heuristics only (pool_snapshots 0)")
    if cfg.learner_seats < 1 or cfg.ply_cap < 1 or cfg.eval_deals < 0:
        raise ValueError("learner_seats and ply_cap must be positive, eval_deals non-negative")
    if not cfg.pool and cfg.self_play < 1.0:
        raise ValueError("an empty --pool needs --self-play 1")
    import agents as agents_pkg

    for spec in cfg.pool:
        if agents_pkg.parse_agent(spec)[0] not in agents_pkg.offered_agents(cfg.ruleset):
            raise ValueError(f"unknown pool agent {spec!r} for {cfg.ruleset}")


class Samples:
    """The learner's decisions: each game's open ones (their observation, action, seat and the seat's rewards so
    far), closed with their targets when the game ends, then handed out in minibatches, oldest first."""

    def __init__(self, num_envs: int):
        self.open = [[] for _ in range(num_envs)]  # per game: (observation, action, seat, rewards so far)
        self.obs, self.act, self.target = [], [], []  # finished samples waiting for an update

    def add(self, games, obs, actions, seats, totals) -> None:
        for g, o, a, s in zip(games.tolist(), obs, actions.tolist(), seats.tolist()):
            self.open[g].append((o, a, s, float(totals[g, s])))

    def close(self, g: int, final: np.ndarray) -> None:
        """Game g ended with each seat's summed rewards ``final``: its samples get their returns to go."""
        for o, a, s, before in self.open[g]:
            self.obs.append(o)
            self.act.append(a)
            self.target.append(float(final[s]) - before)
        self.open[g] = []

    def ready(self) -> int:
        return len(self.target)

    def take(self, n: int):
        obs, act, tgt = np.stack(self.obs[:n]), np.array(self.act[:n]), np.array(self.target[:n], np.float32)
        del self.obs[:n], self.act[:n], self.target[:n]
        return obs, act, tgt


def learner_acts(cfg: Config, vg, model, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Epsilon-greedy over the network's values of each row's legal actions (drawn from the run's generator)."""
    idx, valid = packed_legal(vg.legal_ids[rows], vg.num_legal[rows])
    with torch.inference_mode():
        q = model(torch.from_numpy(vg.observation[rows]).float(), idx, valid).numpy()
    out = idx.numpy()[np.arange(len(rows)), np.argmax(q, axis=1)]
    explore = rng.random(len(rows)) < cfg.epsilon
    pick = (rng.random(len(rows)) * vg.num_legal[rows]).astype(np.int64)
    return np.where(explore, idx.numpy()[np.arange(len(rows)), pick], out)


def update(model, optimizer, obs, act, tgt) -> dict:
    q = model.chosen(torch.from_numpy(obs).float(), torch.from_numpy(act.astype(np.int64)))
    loss = torch.nn.functional.mse_loss(q, torch.from_numpy(tgt))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 40.0)  # DouZero's clip
    optimizer.step()
    return {"loss": float(loss.detach()), "q_mean": float(q.detach().mean()), "target_mean": float(tgt.mean())}


def open_run(cfg: Config, resume: bool):
    """The run directory (refused when it holds another run and ``resume`` is off), the network, optimizer,
    counters and generator: from the checkpoint with ``resume``, else fresh from ``cfg.seed``."""
    run_dir = Path(cfg.out) / cfg.run_name()
    ckpt = run_dir / "checkpoint.pt"
    if not resume and run_dir.is_dir() and any(run_dir.iterdir()):
        raise ValueError(f"{run_dir} already holds a run: add --resume to continue it, or choose another --name")
    if resume and not ckpt.exists():
        raise ValueError(f"--resume: {run_dir} holds no checkpoint to continue from")
    torch.manual_seed(cfg.seed)
    random.seed(cfg.seed)
    obs_size = family_of(cfg.ruleset).sizes(shedders.make_rules(cfg.ruleset, cfg.players))[1]
    feats = action_features(cfg.ruleset, cfg.players)
    model = QNet(obs_size, feats, cfg.hidden, cfg.action_hidden, cfg.squash_obs)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    counters = {"update": 0, "global_step": 0, "episodes": 0, "samples": 0, "seconds": 0.0}
    rng = np.random.default_rng(cfg.seed)
    if resume:
        ck = load_file(ckpt)
        saved = ck["config"]
        keep = ("ruleset", "players", "hidden", "action_hidden", "squash_obs")
        if any(saved[k] != getattr(cfg, k) for k in keep):
            raise ValueError(f"{ckpt} was trained with " + ", ".join(f"{k} {saved[k]}" for k in keep)
                             + "; --resume must keep them")
        model.load_state_dict(ck["model"])
        optimizer.load_state_dict(ck["optimizer"])
        counters = dict(ck["counters"])
        torch.set_rng_state(ck["rng"]["torch"])
        rng.bit_generator.state = json.loads(ck["rng"]["numpy"])
        random.setstate(as_tuples(json.loads(ck["rng"]["python"])))
        forget_after(run_dir, counters["update"])
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(asdict(cfg), indent=1))
    return run_dir, model, optimizer, counters, rng


def save(run_dir: Path, model, optimizer, cfg: Config, counters: dict, rng) -> None:
    save_file({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
               "config": {**asdict(cfg), "algorithm": "dmc"}, "counters": dict(counters),
               "obs_size": model.obs_size,
               "rng": {"torch": torch.get_rng_state(), "numpy": json.dumps(rng.bit_generator.state),
                       "python": json.dumps(random.getstate())}}, run_dir / "checkpoint.pt")


def evaluate(cfg: Config, run_dir: Path, update_no: int) -> dict:
    """A duplicate tournament of the network against greedy and expert (those the ruleset has)."""
    import agents as agents_pkg

    fld = [a for a in ("greedy", "expert") if a in agents_pkg.offered_agents(cfg.ruleset)]
    tc = T.Config(ruleset=cfg.ruleset, players=cfg.players, agents=[f"dmc:checkpoint={run_dir / 'checkpoint.pt'}",
                                                                    *fld],
                  games=cfg.eval_deals, seed=cfg.seed + update_no, out=str(run_dir / "eval"),
                  name=f"update-{update_no:06d}", ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule)
    s = T.run(tc, progress=False)
    return {"mean_reward": s["agents"][0]["mean_reward"], "win_rate": s["agents"][0]["win_rate"]}


def train(cfg: Config, resume: bool = False, progress: bool = True) -> dict:
    """Train (or continue) the run ``cfg`` describes; returns its directory, counters and last progress row."""
    check_config(cfg)
    set_threads(cfg.threads, cfg.engine_threads)
    run_dir, model, optimizer, counters, rng = open_run(cfg, resume)
    vg = shedders.VectorGame(cfg.ruleset, cfg.num_envs, cfg.players, seed=cfg.seed + 7919 * counters["update"],
                             ply_cap=cfg.ply_cap, cap_rule=cfg.cap_rule)
    vg.reset()
    opp = Opponents(cfg, rng, cfg.num_envs)
    opp.deal(np.arange(cfg.num_envs))
    samples = Samples(cfg.num_envs)
    writer = tensorboard_writer(run_dir, counters["global_step"] if resume else None)
    rows = np.arange(cfg.num_envs)
    bar = tqdm(total=cfg.total_steps, initial=min(counters["global_step"], cfg.total_steps), unit="step",
               desc=f"dmc {cfg.ruleset}", disable=not progress)
    started, last = time.perf_counter(), {}
    results: dict[str, list] = {}
    t0, steps0 = time.perf_counter(), counters["global_step"]
    while counters["global_step"] < cfg.total_steps:
        cur = vg.current_player.astype(np.int64)
        ctrl = opp.controller[rows, cur]
        actions = np.zeros(cfg.num_envs, np.int64)
        mine = np.flatnonzero(ctrl < 0)
        if len(mine):
            actions[mine] = learner_acts(cfg, vg, model, mine, rng)
            samples.add(mine, vg.observation[mine].copy(), actions[mine], cur[mine], opp.totals)
        for k in np.unique(ctrl[ctrl >= 0]):
            sel = np.flatnonzero(ctrl == k)
            actions[sel] = opp.act(int(k), vg, sel, "cpu")
        vg.step(actions)
        opp.totals += vg.rewards
        counters["global_step"] += cfg.num_envs
        bar.update(cfg.num_envs)
        ended = np.flatnonzero(vg.terminated | vg.truncated)
        for g in ended:
            samples.close(int(g), opp.totals[g])
            if opp.dealt_as[g]:  # the learner seats' mean summed reward against this opponent
                seats = np.flatnonzero(opp.controller[g] < 0)
                results.setdefault(opp.dealt_as[g], []).append(float(opp.totals[g, seats].mean()))
        counters["episodes"] += len(ended)
        if len(ended):
            opp.deal(ended)
        while samples.ready() >= cfg.batch:
            stats = update(model, optimizer, *samples.take(cfg.batch))
            counters["update"] += 1
            counters["samples"] += cfg.batch
            now = time.perf_counter()
            counters["seconds"] += now - t0
            last = {"update": counters["update"], "global_step": counters["global_step"], **stats,
                    "sps": (counters["global_step"] - steps0) / max(now - t0, 1e-9),
                    **{f"vs_{k}": float(np.mean(v)) for k, v in results.items()}, "seconds": counters["seconds"]}
            log_row(run_dir / "progress.csv", last, writer)
            results, t0, steps0 = {}, now, counters["global_step"]
            if counters["update"] % cfg.checkpoint_every == 0:
                save(run_dir, model, optimizer, cfg, counters, rng)
            bar.set_postfix(loss=f"{stats['loss']:.3f}")
        if cfg.time_budget > 0 and time.perf_counter() - started >= cfg.time_budget:
            break
    bar.close()
    save(run_dir, model, optimizer, cfg, counters, rng)
    if writer is not None:
        writer.flush()
    if cfg.eval_deals:
        ev = evaluate(cfg, run_dir, counters["update"])
        log_row(run_dir / "eval.csv", {"update": counters["update"], "global_step": counters["global_step"], **ev},
                writer, prefix="eval/")
        last["eval"] = ev
    if writer is not None:
        writer.close()
    return {"run_dir": str(run_dir), "counters": counters, "last": last}


def main(argv=None) -> dict:
    ap = build_parser(Config, description=__doc__)
    ap.add_argument("--resume", action="store_true", help="continue the run in runs/<name>/ from its checkpoint")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    return run_command(train, config_from(Config, args), args.resume, args.quiet)


if __name__ == "__main__":
    main()
