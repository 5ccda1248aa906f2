"""The numba engine: struct-of-arrays kernels over a batch of games, one package per family.

- ``rng``: splitmix64, one random stream per game, shared by both families.
- ``palace``: the palace family (og, fatality, core, south_african, house), one module per rule area.
- ``omg``: omg (seed 001).
- ``search``: copying a game, resampling what a seat cannot see, the rollout policies (the one implementation of
  the greedy and expert strategies) and the determinized search kernels.

Importing this package runs the cache guard (``shedders.engine.cache``) before any kernel compiles, and says on
stderr when nothing is cached yet, so that a first run that compiles for minutes does not look like a hang.
"""

import sys

from shedders.engine.cache import guard, notice_if_cold

guard()
notice_if_cold(sys.stderr)
