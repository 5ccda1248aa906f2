"""shedders: a research environment for shedding card games (the Shithead / Palace family, and OMG).

>>> import shedders
>>> env = shedders.env("core", num_players=4, render_mode="ansi")
"""

from __future__ import annotations

from shedders.envs.palace_env import PalaceEnv
from shedders.match import Match
from shedders.rules import RULESETS, make_rules
from shedders.vector import VectorGame, game_seeds

__version__ = "0.1.0"
__all__ = ["RULESETS", "env", "raw_env", "Match", "PalaceEnv", "VectorGame", "game_seeds", "make_rules"]


def raw_env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs):
    """The unwrapped AEC env of ``ruleset`` (see ``env``)."""
    from shedders.envs import palace_env

    if ruleset == "omg":
        from shedders.envs import omg_env

        return omg_env.raw_env(num_players, render_mode, **kwargs)

    return palace_env.raw_env(ruleset, num_players, render_mode, **kwargs)


def env(ruleset: str = "core", num_players: int = 4, render_mode: str | None = None, **kwargs):
    """A PettingZoo AEC env of ``ruleset`` (one of ``RULESETS``), wrapped as PettingZoo does.

    Keyword arguments: ``ply_cap`` (every ruleset), ``base`` (house), ``rules`` (house and fatality: a dict of
    toggles), ``deck`` (omg: a deck file). Unknown ruleset, bad player count or unknown rule: ``ValueError`` naming
    the bad value and the allowed ones.
    """
    from shedders.envs import palace_env

    if ruleset == "omg":
        from shedders.envs import omg_env

        return omg_env.env(num_players, render_mode, **kwargs)

    return palace_env.env(ruleset, num_players, render_mode, **kwargs)


def _register() -> None:
    """Register ``shedders/<ruleset>-v0`` where the installed PettingZoo has an environment registry (1.26+):
    ``pettingzoo.make("aec", "shedders/core-v0", num_players=4)``."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # an older PettingZoo without a registry
        return
    from shedders.envs.palace_env import VERSIONS

    for name in ("og", "fatality", "core", "south_african", "house", "omg"):
        for v in range(VERSIONS.get(name, 0) + 1):  # every version still importable (house_v0 is house_v1)
            env_id = f"shedders/{name}-v{v}"
            if env_id not in aec_registry:
                register("aec", env_id, entry_point=f"shedders.envs.{name}_v{v}:env")


_register()
