"""shedders: a research environment for shedding card games (the Shithead / Palace family, and OMG).

>>> import shedders
>>> env = shedders.env("core", num_players=4, render_mode="ansi")
"""

from __future__ import annotations

import os as _os

# numba's parallel kernels run on libgomp's threads, which by default busy-wait 300,000 spins after every parallel
# region before they sleep. On a 2-core virtual machine with the other core busy, the spinning worker took the core
# that torch needed: a lone decision of the guided champion (torch calls between numba's) took 0.8 s instead of
# 25 ms. 1,000 spins keeps back-to-back regions of a batched run on their threads (PPO training was as
# fast, within the noise, on an idle machine) and frees the core soon after. libgomp reads the variable when it
# is loaded (numba loads it on its first parallel call), so this acts from here on; a value you set is kept.
_os.environ.setdefault("GOMP_SPINCOUNT", "1000")

from shedders.envs import env, raw_env, register
from shedders.envs.palace_env import PalaceEnv
from shedders.gym import register_gymnasium_ids
from shedders.match import Match
from shedders.rules import RULESETS, make_rules
from shedders.vector import VectorGame, game_seeds

__version__ = "0.1.0"
__all__ = ["RULESETS", "env", "raw_env", "Match", "PalaceEnv", "VectorGame", "game_seeds", "make_rules"]

register()
register_gymnasium_ids()
