"""``ruleset_info`` against real envs: every field is what the env does."""

import numpy as np
import pytest

import shedders
from shedders.envs.info import ruleset_info
from shedders.rules import RULESETS


@pytest.mark.parametrize("name", RULESETS)
def test_ruleset_info_matches_the_env(name):
    info = ruleset_info(name, 4)
    env = shedders.env(name, 4)
    space = env.action_space("player_0")
    assert space.n == info.num_actions
    assert env.observation_space("player_0")["observation"].shape == (info.observation_size,)
    assert env.unwrapped.rules.ply_cap == info.ply_cap
    assert env.unwrapped.metadata["name"] == f"shedders_{name}_v{info.version}"
    lo, hi = info.players
    shedders.env(name, lo), shedders.env(name, hi)
    for bad in (lo - 1, hi + 1):
        with pytest.raises(ValueError, match="num_players"):
            shedders.env(name, bad)
    rng = np.random.default_rng(0)
    totals = []
    for seed in range(4):  # whole random games: each seat's total within the bounds
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _, r, term, trunc, _ = env.last()
            total[agent] += r
            legal = env.unwrapped.legal_actions()
            env.step(None if term or trunc else int(rng.choice(legal)))
        totals += list(total.values())
    assert info.reward_bounds[0] - 1e-6 <= min(totals) and max(totals) <= info.reward_bounds[1] + 1e-6


def test_unknown_ruleset_is_refused():
    with pytest.raises(ValueError, match="ruleset"):
        ruleset_info("chess")
