"""What a ruleset is, at a glance: ``ruleset_info("core")`` -> players, action and observation sizes, the ply
cap, reward bounds and the env's version. Built from the rules and the layout modules, so it cannot drift from
them; ``tests/test_info.py`` checks each field against a real env."""

from __future__ import annotations

from dataclasses import dataclass

from shedders.engine.omg import layout as O
from shedders.engine.palace import layout as K
from shedders.envs.palace_env import VERSIONS
from shedders.rules import DEFAULT_PLY_CAP, OMG_PLAYER_RANGE, PLAYER_RANGE, RULESETS, make_rules

#: the rewards a seat can get in one game, by family (R-003-REWARD, R-OG-WIN, R-FAT-REWARD, R-OMG-WIN)
REWARD_BOUNDS = {"core": (-1.0, 1.0), "south_african": (-1.0, 1.0), "house": (-1.0, 1.0), "og": (-1.0, 1.0),
                 "fatality": (-1.0, 1.0), "omg": (-1.0, 1.0)}


@dataclass(frozen=True)
class RulesetInfo:
    name: str
    family: str  # "palace" or "omg"
    players: tuple[int, int]  # the player counts the ruleset takes (house: its base's)
    num_actions: int  # the size of the Discrete action space (omg: with the default deck)
    observation_size: int  # the observation vector's length at ``num_players`` (omg: the default deck)
    num_players: int
    ply_cap: int  # the default cap on decisions per game
    reward_bounds: tuple[float, float]  # the least and most a seat gets in one game
    version: int  # the env module is ``shedders.envs.<name>_v<version>``


def ruleset_info(name: str, num_players: int = 4) -> RulesetInfo:
    """The facts of ruleset ``name`` at ``num_players`` (``ValueError`` for an unknown ruleset or player count)."""
    rules = make_rules(name, num_players)
    if name == "omg":
        t = rules.deck.num_types
        return RulesetInfo(name, "omg", OMG_PLAYER_RANGE, int(O.action_layout(t)["n_actions"]),
                           O.observation_size(num_players, t), num_players, DEFAULT_PLY_CAP, REWARD_BOUNDS[name],
                           VERSIONS.get(name, 0))
    base = "core" if name == "house" else name
    return RulesetInfo(name, "palace", PLAYER_RANGE[base], K.N_ACTIONS, K.observation_size(num_players), num_players,
                       DEFAULT_PLY_CAP, REWARD_BOUNDS[name], VERSIONS.get(name, 0))
