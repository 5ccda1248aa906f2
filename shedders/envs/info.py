"""What a ruleset is, at a glance: ``ruleset_info("core")`` -> players, action and observation sizes, the ply
cap, reward bounds and the env's version. Built from the rules and the layout modules, so it cannot drift from
them; ``tests/test_info.py`` checks each field against a real env."""

from __future__ import annotations

from dataclasses import dataclass

from shedders.envs.family import family_of
from shedders.rules import DEFAULT_PLY_CAP, REGISTRY, lookup, make_rules
from shedders.rules.registry import player_range

#: the rewards a seat can get in one game (R-003-REWARD, R-OG-WIN, R-FAT-REWARD, R-OMG-WIN), from the registry
REWARD_BOUNDS = {r.name: r.reward_bounds for r in REGISTRY.values()}


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
    record = lookup(name)
    sizes = family_of(rules).sizes(rules)
    return RulesetInfo(name, record.family, player_range(record), *sizes, num_players, DEFAULT_PLY_CAP,
                       record.reward_bounds, record.version)
