"""PettingZoo AEC environments, one versioned module per ruleset (``core_v0``, ``south_african_v0``, ...).

``raw_env`` and ``env`` build any ruleset's env (``shedders.env`` and ``shedders.raw_env`` are these).
"""

from __future__ import annotations

from shedders.envs.base import OrderEnforcing
from shedders.envs.family import family_of
from shedders.rules import REGISTRY, make_rules


def raw_env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The unwrapped AEC env of ``ruleset`` (see ``env``): its family's env class on its config."""
    rules = make_rules(ruleset, num_players, **kwargs)
    return family_of(rules).env_class(rules, render_mode=render_mode)


def env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs):
    """A PettingZoo AEC env of ``ruleset`` (one of ``RULESETS``), wrapped as PettingZoo does.

    Keyword arguments: ``ply_cap`` (every ruleset), ``base`` (house), ``rules`` (house and fatality: a dict of
    toggles), ``deck`` (omg: a deck file), ``cap_rule``. Unknown ruleset, bad player count or unknown rule:
    ``ValueError`` naming the bad value and the allowed ones.
    """
    return OrderEnforcing(raw_env(ruleset, num_players, render_mode, **kwargs))


def register() -> None:
    """Register ``shedders/<ruleset>-v<N>`` where the installed PettingZoo has an environment registry (1.26+):
    ``pettingzoo.make("aec", "shedders/core-v0", num_players=4)``."""
    try:
        from pettingzoo.env_registry.registration import aec_registry
        from pettingzoo.env_registry.registration import register as pz_register
    except ImportError:  # an older PettingZoo without a registry
        return
    for name, record in REGISTRY.items():
        for v in range(record.version + 1):  # every version still importable (house_v0 is house_v1)
            env_id = f"shedders/{name}-v{v}"
            if env_id not in aec_registry:
                pz_register("aec", env_id, entry_point=f"shedders.envs.{name}_v{v}:env")
