"""The core ruleset, version 0. The module docstring below is generated: see `help(core_v0)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module(
    "core",
    "# core: Shithead's foundation (seed 003, variant Core)",
    _docs.SEED_003_CORE,
    _docs.SPECS_CORE,
    "2-5",
)
