"""The south_african ruleset, version 0. The module docstring below is generated from its record:
see `help(south_african_v0)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module("south_african")
