"""The south_african ruleset, version 0. The module docstring below is generated: see `help(south_african_v0)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module(
    "south_african",
    "# south_african: eight special cards (seed 003, variant South African)",
    _docs.SEED_003_SA,
    _docs.SPECS_SA,
    "2-6",
)
