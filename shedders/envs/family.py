"""One adapter per family: what the code above the rules needs of a family, in one record.

A ruleset's record (``shedders.rules.registry``) names its family; ``family_of(ruleset)`` gives the family's
``Family``: its AEC env class, its scenario reader and writer, its action names and sizes. Code above the env layer
looks a family up here (or in its own table keyed by family name) instead of comparing names, so a new palace
ruleset needs no branch anywhere (``tests/test_layering.py`` refuses one).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from shedders.engine.omg import layout as O
from shedders.engine.palace import layout as K
from shedders.envs import omg_state, palace_state
from shedders.envs.actions import ACTION_NAMES, omg_action_names
from shedders.envs.omg_env import OmgEnv
from shedders.envs.palace_env import PalaceEnv
from shedders.rules.registry import lookup


@dataclass(frozen=True)
class Family:
    """The env-layer adapter of a family.

    - ``env_class``: the AEC env, built from a config: ``env_class(rules, render_mode=...)``.
    - ``state``: the scenario module (``parse(rules, sc)``, ``to_dict(state, g, rules)``).
    - ``action_names(rules)``: every action's name by id; ``sizes(rules)``: (num_actions, observation_size).
    - ``setup_phase``: whether a game opens with a setup phase (swaps or covers) before play.
    """

    name: str
    env_class: type
    state: ModuleType
    action_names: Callable
    sizes: Callable
    setup_phase: bool


def _palace_sizes(rules) -> tuple[int, int]:
    return K.N_ACTIONS, K.observation_size(rules.num_players)


def _omg_sizes(rules) -> tuple[int, int]:
    t = rules.deck.num_types
    return int(O.action_layout(t)["n_actions"]), O.observation_size(rules.num_players, t)


FAMILIES: dict[str, Family] = {
    "palace": Family("palace", PalaceEnv, palace_state, lambda rules: ACTION_NAMES, _palace_sizes,
                     setup_phase=True),
    "omg": Family("omg", OmgEnv, omg_state, omg_action_names, _omg_sizes, setup_phase=False),
}


def family_of(ruleset) -> Family:
    """The family of ``ruleset`` (a name, or a config with ``.name``); ``ValueError`` for an unknown ruleset."""
    return FAMILIES[lookup(getattr(ruleset, "name", ruleset)).family]
