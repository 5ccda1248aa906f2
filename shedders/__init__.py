"""shedders: a research environment for shedding card games (the Shithead / Palace family, and OMG).

>>> import shedders
>>> env = shedders.env("core", num_players=4, render_mode="ansi")
"""

from __future__ import annotations

from shedders.envs import env, raw_env, register
from shedders.envs.palace_env import PalaceEnv
from shedders.gym import register_gymnasium_ids
from shedders.match import Match
from shedders.rules import RULESETS, make_rules
from shedders.vector import VectorGame, game_seeds

__version__ = "0.1.0"
__all__ = ["RULESETS", "Match", "PalaceEnv", "VectorGame", "env", "game_seeds", "make_rules", "raw_env"]

register()
register_gymnasium_ids()
