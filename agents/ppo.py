"""``ppo``: a policy trained by ``experiments.train_ppo``, as an agent.

    agent = agents.ppo.load("runs/ppo-core-4p-seed0/checkpoint.pt")
    agent = agents.make("ppo", ruleset="core", num_players=4)                 # the committed checkpoint
    agent = agents.make("ppo", ruleset="core", checkpoint="path/to/checkpoint.pt")

The network is a two-layer MLP over the observation (int8, as the env gives it) with a policy head over every
action id and a value head. Illegal actions are masked out of the logits. By default the agent samples from the
masked policy with its own generator (the policy PPO learned is stochastic, and its most likely action can loop:
in core, picking the pile up again and again); ``sample=False`` (``ppo:sample=0``) plays the most likely action,
and ``temperature`` (``ppo:temperature=0.5``) divides the logits before sampling (below 1: sharper).

Setup allows any number of swaps, and a network can walk through swaps for a long time before it says ``ready``:
in core head-to-head tables against ``expert``, 8.0% of the 260M-step checkpoint's games (2.4% of the 149M one's)
ran to the 5,000-decision cap with no player out (in the replays looked at, one seat swapping cards back and
forth in setup), so those games had no loser. So, when sampling, the agent says ``ready`` with probability at
least ``ready_floor`` wherever ``ready`` is legal (``ppo:ready_floor=0.001``, the default; 0 turns it off), the
other actions keeping their relative probabilities: at most 1 / ready_floor swaps are expected per setup. The
floor is low on purpose: head to head against ``expert`` the core checkpoint was ahead 0.521 with 0.001 (0.3% of
games capped), 0.509 with 0.01 and 0.495 with 0.1, which cut its setups short; fatality's table was unchanged by
0.001.

Once the draw pile is empty nothing random is left in a palace game, and a network sampled at a low temperature can
go round the same positions until the cap (four og networks passing three Queens round the table, each picking them
up and playing them again). ``cycle_break`` (``ppo:cycle_break=0.02``; default 0, palace family) is ``greedy``'s
rule 6 for a network: with that probability such a decision is a uniformly random legal action other than a pickup,
drawn from a stream of its own (seeded from ``seed``), so every other decision is the network's, unchanged.

``house`` with no toggles (on the core base) plays exactly core's games, so without a house checkpoint of its own
it loads core's; with toggles on it needs its own (``--ruleset house`` in training, or ``ppo:checkpoint=PATH``).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import sys
from pathlib import Path

import numpy as np

from agents.base import Agent, check_batch
from agents.greedy import break_cycles, check_cycle_break
from shedders.envs.actions import ACTION_IDS
from shedders.envs.family import family_of
from shedders.envs.palace_env import observation_slices
from shedders.rules import lookup, make_rules

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
#: mixed into ``seed`` for the stream of ``cycle_break``'s draws (apart from the network's sampling)
CYCLE_STREAM = 0xC1C1E


def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is in the install extras
        raise ImportError("the ppo agent needs torch: pip install 'shedders[agents]' (torch==2.13.0)") from None
    return torch


#: network calls on fewer rows than this run on one torch thread (``few_rows_threads``)
FEW_ROWS = 1024


@contextlib.contextmanager
def few_rows_threads(rows: int):
    """Run the block on one torch thread when it evaluates fewer than ``FEW_ROWS`` rows (a search's leaves at batch
    1 are 64), and on torch's threads as set otherwise. Two torch threads buy nothing on so few rows, and their
    OpenMP barrier busy-waits: with both cores busy with other work, a decision of the guided champion took 0.83 s
    on two torch threads and 19 to 27 ms on one (``experiments/RESULTS.md``, sixth session)."""
    torch = _torch()
    threads = torch.get_num_threads()
    if rows >= FEW_ROWS or threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def masked_logits(logits, mask):
    """Logits with every illegal action at a very low value (so it is never sampled and has ~0 probability)."""
    return logits.masked_fill(~mask.bool(), -1e9)


def legal_index(mask):
    """The legal action ids of each row, packed: ``(idx, valid)``, both ``(rows, K)`` with K the most legal actions
    of any row; ``idx[r, :n_r]`` are row r's legal ids in increasing order, the rest is padding (``valid`` False).

    A shedding game has a few legal actions out of hundreds of ids (core: 6 on average, at most 17 of 810), so the
    softmax, its exp and the entropy run over K columns instead of every id. That is most of PPO's update time:
    ``exp`` of a masked -1e9 logit takes a slow path in the CPU math library, about 8x a normal one."""
    torch = _torch()
    rows, cols = mask.bool().nonzero(as_tuple=True)  # row-major: each row's ids in increasing order
    counts = torch.bincount(rows, minlength=len(mask))  # (a bool sum over the rows converts the whole mask: slow)
    k = max(int(counts.max()) if len(counts) else 1, 1)
    pos = torch.arange(len(rows), device=mask.device) - (torch.cumsum(counts, 0) - counts)[rows]
    idx = torch.zeros((len(mask), k), dtype=torch.long, device=mask.device)
    valid = torch.zeros((len(mask), k), dtype=torch.bool, device=mask.device)
    idx[rows, pos] = cols
    valid[rows, pos] = True
    return idx, valid


def packed_legal(legal_ids, num_legal):
    """:func:`legal_index` from an engine's own legal lists (``VectorGame.legal_ids`` and ``num_legal`` rows,
    numpy)
    instead of its mask: the same ``(idx, valid)``, without a pass over every action id."""
    torch = _torch()
    counts = np.asarray(num_legal, np.int64)
    k = max(int(counts.max()) if len(counts) else 1, 1)
    valid = np.arange(k) < counts[:, None]
    idx = np.where(valid, legal_ids[:, :k].astype(np.int64), np.iinfo(np.int64).max)
    idx.sort(axis=1)  # the engine lists them in its own order; legal_index's are increasing
    idx[~valid] = 0
    return torch.from_numpy(idx), torch.from_numpy(valid)


def legal_log_probs(logits, idx, valid):
    """Log-probabilities of the masked policy over the packed legal actions of :func:`legal_index` (padding gets
    probability 0). Equal to ``log_softmax(masked_logits(logits, mask))`` at the legal ids."""
    torch = _torch()
    return torch.log_softmax(logits.gather(1, idx).masked_fill(~valid, -1e9), dim=1)


def sample_masked(logits, mask):
    """Sample one legal action per row from the masked policy; returns (actions, their log-probabilities)."""
    idx, valid = legal_index(mask)
    return sample_packed(legal_log_probs(logits, idx, valid), idx)


def sample_packed(logp, idx):
    """Sample one action per row from log-probabilities over packed legal ids (``legal_index``); returns (actions,
    their log-probabilities)."""
    torch = _torch()
    j = torch.multinomial(logp.exp(), 1)
    return idx.gather(1, j).squeeze(1), logp.gather(1, j).squeeze(1)


def _policy_class():
    torch = _torch()
    nn = torch.nn

    class Policy(nn.Module):
        """Observation -> (logits over every action id, value). With ``squash`` the network reads
        ``sign(x) * log(1 + |x|)`` of each observation entry instead of ``x``: the 0/1 entries keep their order and
        counts (omg's pile of up to 96 cards, its deck size) stay near the others' scale instead of saturating the
        first layer's tanh units."""

        def __init__(self, obs_size: int, num_actions: int, hidden: int = 256, squash: bool = False):
            super().__init__()
            self.obs_size, self.num_actions, self.hidden, self.squash = obs_size, num_actions, hidden, bool(squash)
            self.body = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
            self.pi = nn.Linear(hidden, num_actions)
            self.v = nn.Linear(hidden, 1)
            for layer in (*self.body[::2], self.pi, self.v):
                gain = 0.01 if layer is self.pi else (1.0 if layer is self.v else 2**0.5)
                nn.init.orthogonal_(layer.weight, gain)
                nn.init.zeros_(layer.bias)

        def embed(self, x):
            """The body's output for observations ``x`` (float)."""
            return self.body(torch.sign(x) * torch.log1p(x.abs()) if self.squash else x)

        def forward(self, x):
            h = self.embed(x)
            return self.pi(h), self.v(h).squeeze(-1)

        def value(self, x):
            """The value head alone (the policy head is not computed)."""
            return self.v(self.embed(x)).squeeze(-1)

        def legal(self, x, idx, valid):
            """``(log-probabilities over the packed legal actions of legal_index, value)``: equal to
            ``legal_log_probs(self(x)[0], idx, valid)`` and the value, but the policy head is computed only for the
            ids some row of the batch may take (core: about 210 of 810 in a batch of thousands). Its output, its
            bias gradient and the gathers' scatter were three quarters of PPO's update time on CPU."""
            h = self.embed(x)
            used = torch.zeros(self.num_actions, dtype=torch.bool, device=x.device)
            used[idx[valid]] = True
            cols = used.nonzero().squeeze(1)
            where = torch.zeros(self.num_actions, dtype=torch.long, device=x.device)
            where[cols] = torch.arange(len(cols), device=x.device)
            logits = nn.functional.linear(h, self.pi.weight[cols], self.pi.bias[cols])
            logp = torch.log_softmax(logits.gather(1, where[idx]).masked_fill(~valid, -1e9), dim=1)
            return logp, self.v(h).squeeze(-1)

    return Policy


def policy_from(ck: dict, device: str = "cpu"):
    """The ``Policy`` of a checkpoint dict (``train_ppo``'s, ``train_exit``'s or an exported one), weights loaded:
    its width and input squashing as its config says (checkpoints from before ``squash_obs`` read ``x``)."""
    cfg = ck["config"]
    model = _policy_class()(ck["obs_size"], ck["num_actions"], cfg["hidden"], cfg.get("squash_obs", False))
    model.load_state_dict(ck["model"])
    return model.to(device)


def __getattr__(name):  # ``from agents.ppo import Policy`` builds the class on first use (torch imported lazily)
    if name == "Policy":
        cls = _policy_class()
        globals()["Policy"] = cls
        return cls
    raise AttributeError(name)


def same_game(trained: str, ruleset: str, num_players: int, **options) -> bool:
    """Whether a network trained on ``trained`` plays ``ruleset`` (with ``options``): the same ruleset, or rules
    whose engine parameters are identical (``house`` with no toggles on the core base is ``core``)."""
    if trained == ruleset:
        return True
    try:
        if lookup(trained).family != lookup(ruleset).family:
            return False
        a = make_rules(trained, num_players).to_params()
        b = make_rules(ruleset, num_players, **options).to_params()
    except ValueError:
        return False
    return bool(np.array_equal(a, b))


def default_checkpoint(ruleset: str, num_players: int, **options) -> Path:
    """The committed checkpoint for a table: ``checkpoints/<ruleset>-<n>p.pt``, or, where there is none, that of a
    ruleset playing the very same game: a ruleset on bases uses its base's where it plays the base's game (house
    without toggles on core uses core's)."""
    own = CHECKPOINTS / f"{ruleset}-{num_players}p.pt"
    bases = lookup(ruleset).bases
    if own.exists() or not bases:
        return own
    base = options.get("base") or bases[0]
    theirs = CHECKPOINTS / f"{base}-{num_players}p.pt"
    return theirs if theirs.exists() and same_game(base, ruleset, num_players, **options) else own


def check_device(device) -> str:
    """``device`` if torch can run a network there (``cpu``, ``cuda``, ``cuda:1``, ``mps``), else ``ValueError``
    (``meta`` holds no data, and an unknown name is no device)."""
    torch = _torch()
    try:
        kind = torch.device(device).type if isinstance(device, str) else None
    except (RuntimeError, ValueError):
        kind = None
    if kind not in ("cpu", "cuda", "mps", "xpu"):
        raise ValueError("device must be a torch device that runs networks (cpu, cuda, cuda:N, mps), got "
                         f"{device!r}")
    return device


def check_flag(value, name: str) -> bool:
    """``value`` as True or False (a spec gives 1 or 0); ``ValueError`` for anything else."""
    if value in (True, False) and isinstance(value, (bool, int, np.integer, np.bool_)):
        return bool(value)
    if value in ("true", "false"):
        return value == "true"
    raise ValueError(f"{name} must be true or false (1 or 0), got {value!r}")


class PPOAgent(Agent):
    name = "ppo"
    view = "own"  # what its network reads (train_ppo --view): its seat's observation

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 checkpoint: str | None = None, sample: bool = True, temperature: float = 1.0, device: str = "cpu",
                 ready_floor: float = 0.001, cycle_break: float = 0.0, **options):
        super().__init__(ruleset, num_players, seed, **options)
        self.cycle_break = check_cycle_break(cycle_break)
        if self.cycle_break > 0 and not family_of(ruleset).setup_phase:
            raise ValueError(f"cycle_break is greedy's rule 6 of the palace family; {ruleset} has none")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not (
                0 < temperature < math.inf):
            raise ValueError(f"temperature must be a positive finite number, got {temperature!r}")
        sample, device = check_flag(sample, "sample"), check_device(device)
        path = Path(checkpoint) if checkpoint else default_checkpoint(ruleset, num_players, **options)
        if not path.exists():
            raise ValueError(f"no ppo checkpoint at {path}; train one with python -m experiments.train_ppo "
                             f"--ruleset {ruleset} --players {num_players}, or pass ppo:checkpoint=PATH")
        ck = load_file(path, map_location=device)
        cfg = ck["config"]
        if cfg["players"] != num_players or not same_game(cfg["ruleset"], ruleset, num_players, **options):
            raise ValueError(f"{path} was trained for {cfg['ruleset']} at {cfg['players']} players, not "
                             f"{ruleset} at {num_players}")
        if cfg.get("view", "own") != self.view:
            raise ValueError(f"{path} was trained with --view {cfg.get('view', 'own')}: it plays as "
                             f"{'fictive' if cfg.get('view') == 'full' else 'ppo'}, not {self.name}")
        self.model = policy_from(ck, device)
        self.model.eval()
        self.device = device
        self.sample = sample
        self.temperature = float(temperature)
        self.ready_floor = float(ready_floor)
        if not 0.0 <= self.ready_floor <= 1.0:
            raise ValueError(f"ready_floor must be in [0, 1], got {ready_floor}")
        self._ready = _palace_ready_id() if family_of(ruleset).setup_phase else None
        if self.cycle_break > 0:
            self._deck = observation_slices(num_players)["deck_size"].start
            self._cycle_rng = np.random.default_rng(None if seed is None else [CYCLE_STREAM, seed])
        self.path = str(path)
        self.counters = dict(ck["counters"])

    has_network = True

    def _logits(self, obs: np.ndarray, mask: np.ndarray):
        """The network's logits for checked rows, illegal actions masked out (call under ``torch.no_grad``)."""
        torch = _torch()
        logits, _ = self.model(torch.from_numpy(np.ascontiguousarray(obs)).to(self.device).float())
        return masked_logits(logits, torch.from_numpy(np.ascontiguousarray(mask)).to(self.device))

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """(rows, actions): the network's policy over each row's legal actions at ``temperature`` (0 elsewhere),
        the distribution ``act`` samples from before the ready floor; a search's prior (``search:prior=ppo``)."""
        torch = _torch()
        obs, mask = check_batch(observation, action_mask)
        with torch.no_grad():
            p = torch.softmax(self._logits(obs, mask) / self.temperature, dim=1)
        return p.cpu().numpy().astype(np.float64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs, mask = check_batch(observation, action_mask)
        out = self._sampled(obs, mask)
        if self.cycle_break > 0:
            break_cycles(obs, mask, out, self._cycle_rng, self.cycle_break, self._deck)
        return out

    def _sampled(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's actions for checked rows (its argmax with ``sample`` off), before rule 6."""
        torch = _torch()
        with torch.no_grad():
            logits = self._logits(obs, mask)
            if not self.sample:
                return logits.argmax(dim=1).cpu().numpy().astype(np.int64)
            p = torch.softmax(logits / self.temperature, dim=1).cpu().numpy().astype(np.float64)
        p /= p.sum(axis=1, keepdims=True)
        if self._ready is not None and self.ready_floor > 0:
            p = floor_action(p, mask, self._ready, self.ready_floor)
        u = self.rng.random((len(p), 1))
        out = (p.cumsum(axis=1) < u).sum(axis=1)
        out = np.minimum(out, p.shape[1] - 1)
        bad = mask[np.arange(len(out)), out] == 0  # a rounding edge: fall back to the most likely legal action
        if bad.any():
            out[bad] = logits[torch.from_numpy(np.flatnonzero(bad))].argmax(dim=1).cpu().numpy()
        return out.astype(np.int64)


def _palace_ready_id() -> int:
    return ACTION_IDS["ready"]


def floor_action(p: np.ndarray, mask: np.ndarray, action: int, floor: float) -> np.ndarray:
    """``p`` with ``action``'s probability raised to at least ``floor`` in the rows where it is legal, the other
    actions scaled down in proportion (rows stay distributions)."""
    rows = (mask[:, action] != 0) & (p[:, action] < floor)
    if rows.any():
        q = p[rows]
        rest = 1.0 - q[:, action]
        q *= ((1.0 - floor) / np.where(rest > 0, rest, 1.0))[:, None]
        q[:, action] = floor
        p = p.copy()
        p[rows] = q
    return p


def cool_log_probs(logp, temperature: float):
    """Packed log-probabilities (rows over :func:`legal_index`'s ids, as :func:`legal_log_probs` gives them) at
    ``temperature``: ``log_softmax(logits / temperature)`` over each row's legal actions, the distribution the
    agent samples at ``ppo:temperature=...`` (padding keeps probability 0). Differentiable; ``train_ppo
    --temperature`` trains the policy this makes of the network's."""
    torch = _torch()
    return torch.log_softmax(logp / temperature, dim=1)


def floor_log_probs(logp, idx, action: int, floor: float):
    """:func:`floor_action` on packed log-probabilities (rows over :func:`legal_index`'s ids, as
    :func:`legal_log_probs` gives them), in torch and differentiable: ``action``'s probability raised to at least
    ``floor`` (0 < floor < 1) in the rows where it is legal, the other actions scaled down in proportion; other
    rows
    unchanged. ``train_ppo --ready-floor`` trains the policy this makes of the network's."""
    torch = _torch()
    at = idx == action
    p = (logp.exp() * at).sum(dim=1, keepdim=True)
    low = at.any(dim=1, keepdim=True) & (p < floor)
    p = torch.where(low, p, torch.zeros_like(p))  # untouched rows: log1p(-p) may be -inf
    rest = logp + (math.log1p(-floor) - torch.log1p(-p))
    return torch.where(low, torch.where(at, torch.full_like(logp, math.log(floor)), rest), logp)


def content_digest(obj) -> str:
    """sha256 over a checkpoint's content (nested dicts, lists, tensors, numbers, strings), independent of how
    torch lays the file out: each tensor by dtype, shape and bytes, each dict in key order."""
    torch = _torch()
    h = hashlib.sha256()

    def feed(x):
        if isinstance(x, dict):
            h.update(b"{")
            for k in sorted(x, key=repr):
                feed(k)
                feed(x[k])
            h.update(b"}")
        elif isinstance(x, (list, tuple)):
            h.update(b"[" if isinstance(x, list) else b"(")
            for v in x:
                feed(v)
            h.update(b"]")
        elif isinstance(x, torch.Tensor):
            t = x.detach().cpu().contiguous()
            h.update(f"T{t.dtype}{tuple(t.shape)}".encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
        else:
            h.update(f"{type(x).__name__}:{x!r};".encode())

    feed(obj)
    return h.hexdigest()


def save_file(obj: dict, path) -> Path:
    """``torch.save`` of ``obj`` with its ``content_digest`` under ``"sha256"``, atomically (a temp file, then a
    rename), so that a killed write never leaves half a file and a changed file is caught on load."""
    torch = _torch()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {k: v for k, v in obj.items() if k != "sha256"}
    tmp = path.with_name(path.name + ".tmp")
    torch.save({**body, "sha256": content_digest(body)}, tmp)
    os.replace(tmp, path)
    return path


def load_file(path, map_location="cpu") -> dict:
    """A checkpoint written by ``save_file`` (or an older one without a digest), loaded with
    ``torch.load(weights_only=True)``; ``ValueError`` for a file that does not read as one, or whose content does
    not match its digest (a bit flipped on disk, an edited file)."""
    torch = _torch()
    try:
        ck = torch.load(path, map_location=map_location, weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"no checkpoint at {path}") from None
    except Exception as e:  # noqa: BLE001  (torch raises RuntimeError, UnpicklingError, zip errors... for a damaged file)
        raise ValueError(f"{path} is not a readable checkpoint ({type(e).__name__}: {str(e)[:120]})") from None
    if not isinstance(ck, dict):
        raise ValueError(f"{path} is not a shedders checkpoint")
    want = ck.pop("sha256", None)
    if want is not None and content_digest(ck) != want:
        raise ValueError(f"{path} is damaged: its content does not match the checksum stored with it")
    return ck


def load(path: str, sample: bool = True, seed: int | None = None, device: str = "cpu") -> PPOAgent:
    """The agent of a checkpoint written by ``experiments.train_ppo`` (ruleset and players read from it)."""
    cfg = load_file(path)["config"]
    return PPOAgent(cfg["ruleset"], cfg["players"], seed=seed, checkpoint=path, sample=sample, device=device)


def export(src: str, dst: str) -> Path:
    """Write the agent part of a training checkpoint (network, config, counters; no optimizer, snapshot pool or
    random states) to ``dst``, atomically: a few hundred KB, small enough to commit."""
    ck = load_file(src)
    slim = {k: ck[k] for k in ("model", "config", "counters", "obs_size", "num_actions")}
    return save_file(slim, dst)


# python -m agents.ppo export runs/ppo-core-4p/checkpoint.pt agents/checkpoints/core-4p.pt
if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "export":
        sys.exit("usage: python -m agents.ppo export SRC_CHECKPOINT DST")
    print(f"wrote {export(sys.argv[2], sys.argv[3])}")
