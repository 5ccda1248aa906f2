"""The og ruleset, version 0. The module docstring below is generated: see `help(og_v0)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module(
    "og",
    "# og: the restaurant game with covers, blinds and sneaking (seed 000)",
    _docs.SEED_000_OG,
    _docs.SPECS_OG,
    "2-8",
)
