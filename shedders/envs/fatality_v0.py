"""The fatality ruleset, version 0. The module docstring below is generated from its record:
see `help(fatality_v0)`."""

from shedders.envs import _docs

env, raw_env, __doc__ = _docs.palace_module("fatality")
