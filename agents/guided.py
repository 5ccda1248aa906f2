"""``guided``: determinized search guided by a trained network (the palace rulesets).

    agent = agents.make("guided", ruleset="core", num_players=4, seed=0)                 # the committed network
    agent = agents.make("guided", ruleset="core", checkpoint="runs/exit-core/checkpoint.pt", worlds=16)
    actions = agent.act(vg.observation, vg.action_mask, state=vg.state)

For each decision with more than one legal action:

1. **Prior.** The network's policy over the legal actions; the ``top_k`` most likely are the candidates (a policy
   trained on these games puts most of its mass on a few; the search spends nothing on the rest).
2. **Worlds.** ``worlds`` samples of what the deciding seat cannot see (the others' unknown cards, the face-down
   cards, the deck's order), drawn as ``search`` draws them; every candidate is tried in the same worlds.
3. **Rollouts, cut short.** After the candidate, every seat plays the network's policy (sampled) for ``depth`` more
   decisions, all leaves of the batch stepped together in numba, the network evaluated on all of them at once in
   torch.
4. **Leaf values.** A leaf still in play is valued by the checkpoint's perfect-information critic, when it has one
   (``experiments/train_exit.py`` trains it; its input is every seat's observation of the leaf, which in a sampled
   world is the search's own sample, never the true deal), else by the policy's own value head on the deciding
   seat's observation. The rewards collected on the way are added.
5. **Choice.** The candidate of highest mean value over the worlds, plus ``prior`` times its log-probability (a
   tie-breaker towards the policy, and a guard against the noise of few worlds).

Setup (swapping hand and face-up cards before play) is not searched: it is played by the policy alone, sampled,
with ``ready`` at least ``ready_floor`` likely (default 0.05: at most 20 swaps expected per setup). Searched, the
values of one more swap and of ``ready`` differ by less than their noise, so a search that takes the best of noisy
values keeps swapping: the first test game of this agent sat in setup until the 5,000-decision cap. ``ppo``'s floor
(0.001) is too low for self-play: with 4 of the committed core network at one table (sampled), 4 of 32 games
reached the 1,000-decision cap and setup took 322 decisions a game; with 0.05, none and 34.

A game past ``patience`` decisions (default 500; tables of heuristic agents average 115-203) is played on by the
policy alone too. The search is deterministic given its worlds' values, and in south_african's two-player endings
it held Joker stand-offs: 4 of 32 games against ``expert`` reached a 2,000-decision cap (``expert`` alone: 0.3% at
5,000). The sampled policy leaves such a cycle.

``checkpoint`` is a checkpoint of ``train_exit`` or of ``train_ppo`` (default: the committed one of the table, as
``ppo`` finds it). ``oracle=1`` skips the resampling (a fictive player that sees every card; never fair).
Like ``search``, it needs the engine state: ``act(obs, mask, state=vg.state, games=rows)``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.base import Agent, check_batch
from agents.ppo import (
    _torch,
    check_device,
    default_checkpoint,
    few_rows_threads,
    floor_action,
    legal_index,
    load_file,
    packed_legal,
    policy_from,
    same_game,
)
from agents.search import SearchAgent
from shedders.engine.palace import layout as K
from shedders.engine.search import palace_guided as G
from shedders.engine.search import palace_search as KS
from shedders.envs.actions import ACTION_IDS
from shedders.rules import lookup

FAMILIES = ("palace",)  # the families guided search plays (its kernels are the palace engine's)
MAX_WORLDS = 4096  # sampled worlds per decision: at about a millisecond each, over four seconds a decision


def _critic_class():
    torch = _torch()
    nn = torch.nn

    class Critic(nn.Module):
        """Every seat's observation (the viewer's first) -> the viewer's value: a critic with perfect information,
        for training and for valuing the sampled worlds of a search (PerfectDou's idea)."""

        def __init__(self, obs_size: int, num_players: int, hidden: int = 256, squash: bool = False):
            super().__init__()
            self.obs_size, self.num_players, self.hidden = obs_size, num_players, hidden
            self.squash = bool(squash)  # reads sign(x) * log(1 + |x|), as a Policy with squash does
            self.net = nn.Sequential(nn.Linear(obs_size * num_players, hidden), nn.Tanh(),
                                     nn.Linear(hidden, hidden),
                                     nn.Tanh(), nn.Linear(hidden, 1))

        def forward(self, x):
            return self.net(torch.sign(x) * torch.log1p(x.abs()) if self.squash else x).squeeze(-1)

    return Critic


def __getattr__(name):  # ``from agents.guided import Critic``: the class is built on first use (torch lazily)
    if name == "Critic":
        cls = _critic_class()
        globals()["Critic"] = cls
        return cls
    raise AttributeError(name)


def load_networks(path, ruleset: str, num_players: int, device: str = "cpu", **options):
    """(policy, critic or None, checkpoint dict) of a ``train_exit`` or ``train_ppo`` checkpoint, checked against
    the table it is asked to play."""
    ck = load_file(path, map_location=device)
    cfg = ck["config"]
    if cfg["players"] != num_players or not same_game(cfg["ruleset"], ruleset, num_players, **options):
        raise ValueError(f"{path} was trained for {cfg['ruleset']} at {cfg['players']} players, not {ruleset} at "
                         f"{num_players}")
    policy = policy_from(ck, device)
    policy.eval()
    critic = None
    if "critic" in ck:
        critic = _critic_class()(ck["obs_size"], num_players, ck["critic_hidden"],
                                 ck.get("critic_squash", False)).to(device)
        critic.load_state_dict(ck["critic"])
        critic.eval()
    return policy, critic, ck


class GuidedSearchAgent(Agent):
    name = "guided"
    needs_state = True
    oracle = False
    state_type = K.PalaceState
    _over_phase = K.PH_OVER
    checked_games = SearchAgent.checked_games

    def __init__(self, ruleset: str = "core", num_players: int = 4, seed: int | None = None,
                 checkpoint: str | None = None, worlds: int = 8, depth: int = 16, top_k: int = 4,
                 prior: float = 0.05,
                 use_critic: bool = True, oracle: bool = False, ready_floor: float = 0.05, patience: int = 500,
                 device: str = "cpu", **options):
        super().__init__(ruleset, num_players, seed, **options)
        self.configure(worlds, depth, top_k, prior, oracle, ready_floor, patience, device)
        path = Path(checkpoint) if checkpoint else default_checkpoint(ruleset, num_players, **options)
        if not path.exists():
            raise ValueError(f"no checkpoint at {path}; train one with python -m experiments.train_exit --ruleset "
                             f"{ruleset}, or pass guided:checkpoint=PATH")
        policy, critic, ck = load_networks(path, ruleset, num_players, device, **options)
        self.use_networks(policy, critic if use_critic else None)
        self.path = str(path)
        self.counters = dict(ck["counters"])

    @classmethod
    def with_networks(cls, policy, critic, ruleset: str, num_players: int = 4, seed: int | None = None,
                      worlds: int = 8, depth: int = 16, top_k: int = 4, prior: float = 0.05, oracle: bool = False,
                      ready_floor: float = 0.05, patience: int = 500, device: str = "cpu",
                      **options) -> GuidedSearchAgent:
        """The search over networks in memory (``train_exit``'s current ones) instead of a checkpoint's."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, ruleset, num_players, seed, **options)
        agent.configure(worlds, depth, top_k, prior, oracle, ready_floor, patience, device)
        agent.use_networks(policy, critic)
        agent.path, agent.counters = None, {}
        return agent

    def configure(self, worlds, depth, top_k, prior, oracle, ready_floor, patience, device) -> None:
        """Check and set the search's options (``__init__``'s, which ``with_networks`` shares)."""
        if lookup(self.ruleset).family not in FAMILIES:
            raise ValueError(f"guided search plays the palace rulesets; {self.ruleset}'s strongest agent is its "
                             f"search")
        for key, v, lo, hi in (("worlds", worlds, 1, MAX_WORLDS), ("depth", depth, 0, 400),
                               ("top_k", top_k, 1, 810),
                               ("patience", patience, 0, 10**6)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise ValueError(f"{key} must be an integer in {lo}..{hi}, got {v!r}")
        device = check_device(device)
        if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not np.isfinite(prior) or prior < 0:
            raise ValueError(f"prior must be a non-negative number, got {prior!r}")
        if not 0.0 <= ready_floor <= 1.0:
            raise ValueError(f"ready_floor must be in [0, 1], got {ready_floor}")
        self.worlds, self.depth, self.top_k, self.prior = int(worlds), int(depth), int(top_k), float(prior)
        self.oracle, self.ready_floor, self.device = bool(oracle), float(ready_floor), device
        self.patience = int(patience)
        self._ready = ACTION_IDS["ready"]
        self.params = self.rules.to_params()
        self.obs_size = K.observation_size(self.num_players)
        self._cap = self._dcap = 0
        self.last = None  # the last call's search: candidates, their values and the prior (train_exit reads it)

    def use_networks(self, policy, critic=None) -> None:
        """Search with ``policy`` (rollouts, prior) and ``critic`` (leaf values; None: the policy's value head)."""
        self.policy, self.critic = policy, critic

    def _scratch(self, rows: int, decisions: int):
        if rows > self._cap or decisions > self._dcap:
            self._cap = c = max(rows, 2 * self._cap)
            self._dcap = max(decisions, 2 * self._dcap)
            n = self.num_players
            self._work = K.alloc_state(c, n, self.rules.num_cards)
            self._viewer = np.zeros(c, np.int64)
            self._acc = np.zeros(c, np.float64)
            self._open = np.zeros(c, np.int64)
            self._mask = np.zeros((c, K.N_ACTIONS), np.int8)
            self._ids = np.zeros((c, K.N_ACTIONS), np.int16)
            self._nl = np.zeros(c, np.int64)
            self._obs = np.zeros((c, self.obs_size), np.int8)
            self._cobs = np.zeros((c, self.obs_size * n), np.int8)
            self._pool = np.zeros((self._dcap, KS.pool_width(self.rules.num_cards)), np.int8)

    def act(self, observation, action_mask, state=None, games=None) -> np.ndarray:
        """Actions for the games ``games`` (rows of ``state``; default: all rows, one per observation)."""
        obs, mask = check_batch(observation, action_mask)
        if state is None:
            raise ValueError(f"{self.name} needs the engine state: act(observation, action_mask, state=vg.state)")
        games = self.checked_games(state, games, len(mask))
        return self.search(state, games, obs, mask)[0]

    def evaluate(self, state, games=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the search makes of the decisions of the games ``games`` (rows of ``state``; default all), in the
        form ``SearchAgent.evaluate`` gives: ``(actions, ids, values)``. ``actions`` are ``act``'s, from the same
        draws of the agent's seed. ``ids[j, :n]`` are game j's ``n`` legal ids, increasing (-1 after them).
        ``values[j]`` holds the searched mean value of each of its ``top_k`` candidates, and nan for every other
        legal action (the search neither values nor plays them). A decision it does not search (setup, a game past
        ``patience``, a single candidate) has no value at all: its action is the policy's sample, as ``act``
        plays it. The observations and masks are the engine's own, for the player to act in each game. For
        distilling the search into a network (``experiments.train_distill``)."""
        games = self.checked_games(state, games, state.phase.shape[0] if games is None else len(games))
        b = len(games)
        mask = np.zeros((b, K.N_ACTIONS), np.int8)
        ids = np.zeros((b, K.N_ACTIONS), np.int16)
        nl = np.zeros(b, np.int64)
        obs = np.zeros((b, self.obs_size), np.int8)
        G.run(G.views_nb, G.views_range_nb, b, state, games, self.params, mask, ids, nl, obs)
        mask[:] = 0  # (the kernel's scratch) rebuilt from the legal ids
        listed = np.arange(K.N_ACTIONS)[None, :] < nl[:, None]
        mask[np.nonzero(listed)[0], ids[listed]] = 1
        out = self.search(state, games, obs, mask)[0]
        last = self.last
        valid = last["valid"]
        legal = np.where(valid, last["legal"], -1).astype(np.int64)
        values = np.full(legal.shape, np.nan)
        for j, k, cols in self._searched():
            values[j, cols] = last["value"][j, :k]
        return out, legal, values

    def _searched(self):
        """For each decision the last call searched: its row, its number of candidates, and their columns among
        its packed legal ids."""
        last = self.last
        for j in np.flatnonzero(np.isfinite(last["value"][:, 0])):
            k = last["num"][j]
            yield j, k, np.searchsorted(last["legal"][j, :last["valid"][j].sum()], last["candidates"][j, :k])

    def policy_act(self, observation, action_mask) -> np.ndarray:
        """The network's policy alone, sampled (with the ``ready`` floor): what the search would play without
        searching. ``train_exit`` plays the decisions it does not search with it."""
        torch = _torch()
        obs, mask = check_batch(observation, action_mask)
        with torch.inference_mode():
            idx, valid = legal_index(torch.from_numpy(np.ascontiguousarray(mask)).bool())
            logp, _ = self.policy.legal(torch.from_numpy(np.ascontiguousarray(obs)).to(self.device).float(),
                                        idx.to(self.device), valid.to(self.device))
        return self._sample(idx.numpy(), valid.numpy(), logp.cpu().numpy(), mask)

    def improved_policy(self, temperature: float) -> np.ndarray:
        """The last call's policy improved by its search, over each decision's packed legal ids (``legal_index``
        order): the candidates' share of probability is spread again in proportion to
        ``prior * exp(value / temperature)``; the actions the search did not try keep their prior. A decision
        without search keeps its prior. ``train_exit``'s target."""
        last = self.last
        p = np.where(last["valid"], np.exp(last["logp"].astype(np.float64)), 0.0)
        for j, k, cols in self._searched():
            mass = p[j, cols].sum()
            z = last["prior"][j, :k] + last["value"][j, :k] / temperature
            w = np.exp(z - z.max())
            p[j, cols] = mass * w / w.sum()
        return p / p.sum(axis=1, keepdims=True)

    def _sample(self, idx, valid, logp, mask) -> np.ndarray:
        """One action per row from packed log-probabilities, ``ready`` raised to ``ready_floor`` where legal."""
        p = np.where(valid, np.exp(logp.astype(np.float64)), 0.0)
        p /= p.sum(axis=1, keepdims=True)
        if self.ready_floor > 0:  # ppo's floor, over every id: scattered out, floored, gathered back
            full = np.zeros((len(p), K.N_ACTIONS))
            rows = np.broadcast_to(np.arange(len(p))[:, None], idx.shape)
            full[rows[valid], idx[valid]] = p[valid]  # (the padding repeats id 0: it must not overwrite it)
            p = np.where(valid, floor_action(full, mask, self._ready, self.ready_floor)[rows, idx], 0.0)
        u = self.rng.random((len(p), 1)) * p.sum(axis=1, keepdims=True)
        pick = np.minimum((np.cumsum(p, axis=1) < u).sum(axis=1), valid.sum(axis=1) - 1)
        return idx[np.arange(len(pick)), pick].astype(np.int64)

    # ------------------------------------------------------------------------------------------------------------
    def _policy_step(self, obs, ids, nl):
        """Sampled actions of the network's policy (Gumbel-max, from the agent's generator) for rows of views."""
        torch = _torch()
        idx, valid = packed_legal(ids, nl)
        logp, _ = self.policy.legal(torch.from_numpy(obs).to(self.device).float(), idx.to(self.device),
                                    valid.to(self.device))
        g = self.rng.gumbel(size=idx.shape)
        pick = np.argmax(logp.cpu().numpy() + np.where(valid.numpy(), g, -np.inf), axis=1)
        return idx.numpy()[np.arange(len(pick)), pick]

    def _leaf_values(self, rows):
        """Values of the leaves ``rows`` that are still open, for their viewers."""
        torch = _torch()
        m = len(rows)
        if self.critic is not None:
            G.run(G.critic_obs_nb, G.critic_obs_range_nb, m, self._work, rows, self._viewer, self.params,
                  self.obs_size, self._cobs)
            x = torch.from_numpy(self._cobs[:m]).to(self.device).float()
            return self.critic(x).cpu().numpy()
        G.run(G.viewer_obs_nb, G.viewer_obs_range_nb, m, self._work, rows, self._viewer, self.params, self._obs)
        return self.policy.value(torch.from_numpy(self._obs[:m]).to(self.device).float()).cpu().numpy()

    def search(self, state, games, obs, mask):
        """(actions, per decision: candidate ids, their values, their prior log-probabilities). Decisions with one
        legal action are answered without search (their candidates are that action, value nan)."""
        torch = _torch()
        with torch.inference_mode(), few_rows_threads(len(games) * self.worlds * self.top_k):
            legal = torch.from_numpy(np.ascontiguousarray(mask)).bool()
            idx, valid = legal_index(legal)
            logp, _ = self.policy.legal(torch.from_numpy(np.ascontiguousarray(obs)).to(self.device).float(),
                                        idx.to(self.device), valid.to(self.device))
            logp = logp.cpu().numpy()
            idx, valid = idx.numpy(), valid.numpy()
            nlegal = valid.sum(axis=1)
            k = min(self.top_k, idx.shape[1])
            order = np.argsort(-np.where(valid, logp, -np.inf), axis=1, kind="stable")[:, :k]
            cand = np.take_along_axis(idx, order, axis=1)
            cand_logp = np.take_along_axis(logp, order, axis=1)
            nacts = np.minimum(nlegal, k).astype(np.int64)
            out = cand[:, 0].astype(np.int64)  # one legal action: that one
            q = np.full(cand.shape, np.nan)
            # setup, and games past ``patience`` decisions: the policy alone, sampled, as ``ppo`` plays it
            setup = ((np.asarray(state.phase)[games] == K.PH_SETUP)
                     | (np.asarray(state.plies)[games] >= self.patience))
            rows = np.flatnonzero(setup & (nlegal > 1))
            if len(rows):
                out[rows] = self._sample(idx[rows], valid[rows], logp[rows], mask[rows])
            todo = np.flatnonzero(~setup & (nacts > 1))
            if len(todo):
                na = nacts[todo]
                sizes = self.worlds * na
                start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
                total = int(sizes.sum())
                self._scratch(total, len(todo))
                seeds = self.rng.integers(0, 2**63 - 1, size=len(todo), dtype=np.int64).astype(np.uint64)
                acts = np.ascontiguousarray(cand[todo].astype(np.int16))
                ex = G.Expansion(np.ascontiguousarray(games[todo], dtype=np.int64), acts, na.astype(np.int64),
                                 start, seeds, int(self.worlds), bool(self.oracle))
                G.run(G.expand_nb, G.expand_range_nb, len(todo), state, ex, self.params, self._work, self._pool,
                      self._viewer, self._acc, rows=total)
                rows = np.arange(total, dtype=np.int64)
                for _ in range(self.depth):
                    m = G.open_rows_nb(self._work, rows, self._viewer, self._open)
                    if m == 0:
                        break
                    rows = self._open[:m].copy()
                    G.run(G.views_nb, G.views_range_nb, m, self._work, rows, self.params, self._mask, self._ids,
                          self._nl, self._obs)
                    a = self._policy_step(self._obs[:m], self._ids[:m], self._nl[:m])
                    G.run(G.step_nb, G.step_range_nb, m, self._work, rows, a, self.params, self._viewer, self._acc)
                m = G.open_rows_nb(self._work, rows, self._viewer, self._open)
                value = self._acc[:total].copy()
                if m:
                    leaf = self._open[:m].copy()
                    value[leaf] += self._leaf_values(leaf)
                for j, d in enumerate(todo):
                    v = value[start[j]:start[j] + sizes[j]].reshape(self.worlds, na[j]).mean(axis=0)
                    q[d, :na[j]] = v
                    score = v + self.prior * cand_logp[d, :na[j]]
                    out[d] = cand[d, int(np.argmax(score))]
        self.last = {"candidates": cand, "num": nacts, "value": q, "prior": cand_logp, "legal": idx,
                     "valid": valid, "logp": logp}
        return out, cand, q, cand_logp

