"""The fatality ruleset, version 0. The module docstring below is generated: see `help(fatality_v0)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module(
    "fatality",
    "# fatality: forced play, named Jokers, 8 skips and finishing-position scoring (seed 002)",
    _docs.SEED_002_FAT,
    _docs.SPECS_FAT,
    "2-6",
)
