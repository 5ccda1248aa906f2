"""Importing shedders shortens libgomp's busy wait (``GOMP_SPINCOUNT``, shedders/__init__.py) before numba loads
libgomp, and keeps a value the user set."""

import os
import subprocess
import sys

import pytest

SCRIPT = """
import os, numpy as np, shedders
vg = shedders.VectorGame("core", 2, 4, seed=0)  # a parallel kernel: numba has loaded libgomp by now
vg.reset()
print(os.environ.get("GOMP_SPINCOUNT"))
"""


@pytest.mark.parametrize("given, expected", [(None, "1000"), ("250", "250")])
def test_importing_shedders_shortens_the_openmp_spin_unless_the_user_set_it(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "GOMP_SPINCOUNT"}
    if given is not None:
        env["GOMP_SPINCOUNT"] = given
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == expected
