"""``dmc``: a Q-network trained by Deep Monte Carlo (``experiments.train_dmc``), as an agent.

    agent = agents.make("dmc", ruleset="core", num_players=4, checkpoint="runs/dmc-core-4p-seed0/checkpoint.pt")

DouZero (Zha et al., ICML 2021) learns, for each state and each legal move, the return that move leads to, by
plain Monte Carlo regression on self-played games, and plays the move of highest value. Its network reads the move
itself as features, so moves that share cards share what is learned. Here a move's features are the tokens of its
name (``action_features``): its verb (play, pickup, swap, ...), its count and its rank as in ``play 3x7``, and the
extra words some moves carry (``+2up``, ``as K``), each at its place. The network embeds the observation and each
legal move's features and scores every pair; the agent plays the legal move of highest value (``epsilon`` > 0: a
uniformly random legal move with that probability, from the agent's own generator). It decides from the observation
alone.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from agents.base import Agent, check_batch
from agents.ppo import _torch, legal_index, load_file, same_game
from shedders.envs.family import family_of
from shedders.rules import make_rules

_COUNT_RANK = re.compile(r"^(\d+)x(\S+)$")


def action_tokens(name: str) -> list[str]:
    """The feature tokens of an action's name: ``"play 3x7"`` -> ``["verb:play", "count:3", "rank:7"]``; any other
    word is a token of its own at its place (``"swap 2 for 3"`` -> ``["verb:swap", "w1:2", "w2:for", "w3:3"]``, so
    that swapping 2 for 3 is not swapping 3 for 2)."""
    words = name.split()
    out = [f"verb:{words[0]}"] if words else []
    for i, w in enumerate(words[1:], 1):
        m = _COUNT_RANK.match(w)
        out += [f"count:{m.group(1)}", f"rank:{m.group(2)}"] if m else [f"w{i}:{w}"]
    return out


def action_features(ruleset: str, num_players: int, **options) -> np.ndarray:
    """(num_actions, tokens) float32: each action id's multi-hot feature tokens (``action_tokens``), the token
    vocabulary in order of first appearance over the ids, so the table is the same for the same rules."""
    rules = make_rules(ruleset, num_players, **options)
    names = family_of(ruleset).action_names(rules)
    tokens = [action_tokens(n) for n in names]
    vocab = {t: i for i, t in enumerate(dict.fromkeys(t for ts in tokens for t in ts))}
    table = np.zeros((len(names), len(vocab)), np.float32)
    for a, ts in enumerate(tokens):
        table[a, [vocab[t] for t in ts]] = 1.0
    return table


def _qnet_class():
    torch = _torch()
    nn = torch.nn

    class QNet(nn.Module):
        """(observation, a legal action's features) -> the return expected after that action. The observation
        (read as ``sign(x) log(1 + |x|)`` with ``squash``) and the action's features are embedded apart; the head's
        first layer reads both embeddings side by side, computed as the sum of its two halves (the state's once per
        row, the actions' once per action id: ``Wh h + Wa e`` is the same layer as ``W [h, e]``), so scoring every
        legal action of a row costs little more than scoring one. ``forward`` scores every packed legal action of
        each row at once."""

        def __init__(self, obs_size: int, features: np.ndarray, hidden: int = 512, action_hidden: int = 64,
                     squash: bool = True):
            super().__init__()
            self.obs_size, self.hidden, self.action_hidden, self.squash = obs_size, hidden, action_hidden, squash
            self.register_buffer("features", torch.as_tensor(np.asarray(features, np.float32)))
            self.state = nn.Sequential(nn.Linear(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                       nn.ReLU())
            self.action = nn.Sequential(nn.Linear(self.features.shape[1], action_hidden), nn.ReLU())
            self.head_state = nn.Linear(hidden, hidden)  # the head's first layer: its state half (with the bias)
            self.head_action = nn.Linear(action_hidden, hidden, bias=False)  # and its action half
            self.out = nn.Linear(hidden, 1)

        def embed(self, x):
            return self.state(torch.sign(x) * torch.log1p(x.abs()) if self.squash else x)

        def forward(self, x, idx, valid=None):
            """(rows, K) values of the packed actions ``idx`` (``legal_index``) of each row; -inf at padding."""
            hs = self.head_state(self.embed(x))  # (rows, hidden)
            ha = self.head_action(self.action(self.features))  # (actions, hidden): every action id once
            q = self.out(torch.relu(hs[:, None, :] + ha[idx])).squeeze(-1)
            return q if valid is None else q.masked_fill(~valid, -torch.inf)

        def chosen(self, x, actions):
            """(rows,) values of one action per row (training's regression)."""
            return self.forward(x, actions[:, None]).squeeze(1)

    return QNet


def __getattr__(name):  # ``from agents.dmc import QNet`` builds the class on first use (torch imported lazily)
    if name == "QNet":
        cls = _qnet_class()
        globals()["QNet"] = cls
        return cls
    raise AttributeError(name)


def qnet_from(ck: dict, device: str = "cpu"):
    """The ``QNet`` of a ``train_dmc`` checkpoint dict, weights loaded."""
    cfg = ck["config"]
    net = _qnet_class()(ck["obs_size"], ck["model"]["features"].cpu().numpy(), cfg["hidden"], cfg["action_hidden"],
                        cfg["squash_obs"])
    net.load_state_dict(ck["model"])
    return net.to(device)


class DMCAgent(Agent):
    name = "dmc"

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 checkpoint: str | None = None, epsilon: float = 0.0, device: str = "cpu", **options):
        super().__init__(ruleset, num_players, seed, **options)
        if not checkpoint:
            raise ValueError("dmc needs checkpoint=PATH: a network trained by python -m experiments.train_dmc")
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        path = Path(checkpoint)
        if not path.exists():
            raise ValueError(f"no dmc checkpoint at {path}")
        ck = load_file(path, map_location=device)
        cfg = ck.get("config", {})
        if cfg.get("algorithm") != "dmc":
            raise ValueError(f"{path} is not a train_dmc checkpoint")
        if cfg["players"] != num_players or not same_game(cfg["ruleset"], ruleset, num_players, **options):
            raise ValueError(f"{path} was trained for {cfg['ruleset']} at {cfg['players']} players, not "
                             f"{ruleset} at {num_players}")
        self.model = qnet_from(ck, device).eval()
        self.device, self.epsilon, self.path = device, float(epsilon), str(path)
        self.counters = dict(ck["counters"])

    def values(self, observation: np.ndarray, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(idx, q)``: each row's legal ids (packed, increasing; padding 0) and their values (-inf at
        padding)."""
        torch = _torch()
        obs, mask = check_batch(observation, action_mask)
        with torch.no_grad():
            idx, valid = legal_index(torch.from_numpy(np.ascontiguousarray(mask)))
            x = torch.from_numpy(np.ascontiguousarray(obs)).float().to(self.device)
            q = self.model(x, idx.to(self.device), valid.to(self.device))
        return idx.numpy(), q.cpu().numpy()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        idx, q = self.values(observation, action_mask)
        rows = np.arange(len(q))
        out = idx[rows, np.argmax(q, axis=1)]
        if self.epsilon > 0:
            explore = self.rng.random(len(q)) < self.epsilon
            n = np.isfinite(q).sum(axis=1)
            pick = (self.rng.random(len(q)) * n).astype(np.int64)
            out = np.where(explore, idx[rows, pick], out)
        return out.astype(np.int64)
