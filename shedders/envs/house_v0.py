"""house, as first released: kept importable for old scripts, and the same env as ``house_v1`` (v0's who-starts
rule with ``reset_2`` off contradicted seed 003, so it was fixed rather than kept; see ``help(house_v1)``)."""

from shedders.envs.house_v1 import __doc__ as _doc
from shedders.envs.house_v1 import env, raw_env

__doc__ = __doc__ + "\n\n" + _doc
__all__ = ["env", "raw_env"]
