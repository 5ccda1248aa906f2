"""The house ruleset, version 1. The module docstring below is generated from its record:
see `help(house_v1)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module("house")
