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

import numpy as np

from shedders.engine import omg as O
from shedders.engine import palace as K
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
    - The batched engine (``VectorGame``): ``engine``, the family's kernels (every batch entry point takes the same
      arguments in both families, the family's ``tables(rules)`` right after ``params``: none for the palace
      family, the deck's ``OmgTables`` for omg); ``alloc_state(num_envs, rules)``; ``cards_held(state)``, the cards
      each seat still has to get rid of, and ``seats_out(state)``, which seats have gone out, both (B, P).
    """

    name: str
    env_class: type
    state: ModuleType
    action_names: Callable
    sizes: Callable
    setup_phase: bool
    engine: ModuleType
    alloc_state: Callable
    tables: Callable
    cards_held: Callable
    seats_out: Callable


def _palace_sizes(rules) -> tuple[int, int]:
    return K.N_ACTIONS, K.observation_size(rules.num_players)


def _omg_sizes(rules) -> tuple[int, int]:
    t = rules.deck.num_types
    return int(O.action_layout(t)["n_actions"]), O.observation_size(rules.num_players, t)


def _palace_held(s) -> np.ndarray:
    held = s.hand.sum(axis=2, dtype=np.int64) + s.face_up.sum(axis=2, dtype=np.int64)
    return held + (s.face_down >= 0).sum(axis=2)


def _omg_out(s) -> np.ndarray:
    return np.arange(s.hand.shape[1])[None, :] == s.winner[:, None]


FAMILIES: dict[str, Family] = {
    "palace": Family("palace", PalaceEnv, palace_state, lambda rules: ACTION_NAMES, _palace_sizes,
                     setup_phase=True, engine=K,
                     alloc_state=lambda b, rules: K.alloc_state(b, rules.num_players, rules.num_cards),
                     tables=lambda rules: (), cards_held=_palace_held, seats_out=lambda s: s.finished != 0),
    "omg": Family("omg", OmgEnv, omg_state, omg_action_names, _omg_sizes, setup_phase=False, engine=O,
                  alloc_state=lambda b, rules: O.alloc_state(b, rules.num_players, rules.deck.num_types,
                                                             rules.deck.num_cards),
                  tables=lambda rules: (O.make_tables(rules.deck),),
                  cards_held=lambda s: s.hand.sum(axis=2, dtype=np.int64), seats_out=_omg_out),
}


def family_of(ruleset) -> Family:
    """The family of ``ruleset`` (a name, or a config with ``.name``); ``ValueError`` for an unknown ruleset."""
    return FAMILIES[lookup(getattr(ruleset, "name", ruleset)).family]
