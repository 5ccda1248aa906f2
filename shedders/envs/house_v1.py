"""The house ruleset, version 1. The module docstring below is generated: see `help(house_v1)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module(
    "house",
    "# house: every special card a toggle, plus prison rules (seed 003, House Rules)",
    _docs.SEED_003_HOUSE,
    _docs.SPECS_HOUSE,
    "2-5 (base core) or 2-6 (base south_african)",
)
