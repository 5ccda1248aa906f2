"""The numba cache guard (shedders/engine/cache.py): a kernel that calls a helper in another engine file is
recompiled when only the helper's file changes, never loaded stale from numba's disk cache."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import shedders

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out

PACKAGE = Path(shedders.__file__).resolve().parent
M64 = (1 << 64) - 1

# batch.sample_legal_nb (in palace/batch.py) draws through rng.rand_below_nb and rng.splitmix64_nb (in rng.py)
SCRIPT = """
import numpy as np
from shedders.engine.palace import batch, layout
s = layout.alloc_state(1, 2, 52)
s.rng[0] = np.uint64(12345)
ids = np.arange(1000, dtype=np.int16)
print(int(batch.sample_legal_nb(s, 0, ids, np.int64(1000))))
"""


def splitmix_draw(seed: int, n: int, last_shift: int) -> int:
    """rand_below_nb in plain Python, with the last shift of splitmix64 as a parameter."""
    x = (seed + 0x9E3779B97F4A7C15) & M64
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    z = z ^ (z >> last_shift)
    return (z >> 11) % n


def run(root: Path, cache_dir: Path | None = None) -> tuple[int, str]:
    """The draw, and whether numba loaded sample_legal_nb from its disk cache ("loaded") or compiled and saved it
    ("compiled"), as numba's cache log (NUMBA_DEBUG_CACHE) says."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env.update(PYTHONPATH=str(root), NUMBA_DEBUG_CACHE="1")
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root, capture_output=True, text=True,
                         timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    log = [line for line in (out.stdout + out.stderr).splitlines() if "batch.sample_legal_nb" in line]
    loaded = any("data loaded" in line for line in log)
    saved = any("data saved" in line for line in log)
    assert loaded != saved, log
    value = [line for line in out.stdout.splitlines() if not line.startswith("[cache]")][-1]
    return int(value), "loaded" if loaded else "compiled"


@pytest.mark.parametrize("where", ["beside the sources", "NUMBA_CACHE_DIR"])
def test_cache_guard_recompiles_a_kernel_when_only_a_helper_in_another_file_changed(tmp_path, where):
    cache = tmp_path / "numba-cache" if where == "NUMBA_CACHE_DIR" else None
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "shedders", ignore=shutil.ignore_patterns("__pycache__"))
    before = splitmix_draw(12345, 1000, 31)
    after = splitmix_draw(12345, 1000, 29)
    assert before != after  # the edit below changes the draw

    assert run(root, cache) == (before, "compiled")  # and cached
    assert run(root, cache) == (before, "loaded")  # the disk cache is in use

    rng = root / "shedders" / "engine" / "rng.py"
    text = rng.read_text()
    assert text.count("return z ^ (z >> np.uint64(31))") == 1
    rng.write_text(text.replace("return z ^ (z >> np.uint64(31))", "return z ^ (z >> np.uint64(29))"))
    # batch.py is unchanged, so numba alone would load its stale machine code (and print `before`)
    assert run(root, cache) == (after, "compiled")
    assert run(root, cache) == (after, "loaded")  # and the new code is cached in its turn
    if cache is not None:  # the kernels were cached there, not beside the sources
        assert list(cache.rglob("batch.sample_legal_nb-*.nbi"))
        assert not list((root / "shedders").rglob("batch.sample_legal_nb-*.nbi"))


def test_a_first_run_says_that_the_kernels_compile_and_later_runs_do_not(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "shedders", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    env["PYTHONPATH"] = str(root)
    said = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root, capture_output=True, text=True,
                             timeout=600, check=False)
        assert out.returncode == 0, out.stderr
        said.append("no numba kernel is cached yet" in out.stderr)
    assert said == [True, False]


def test_no_kernel_reads_a_file_the_stamp_leaves_out():
    """The stamp skips ``cache.NOT_COMPILED`` (the ruleset records): no engine or rules module a kernel is built
    from imports them (``shedders.rules``' own ``__init__``, which builds configs in Python, aside), so an edit
    there
    can never be compiled into a kernel."""
    import ast

    from shedders.engine import cache

    skipped = {f"shedders.rules.{Path(n).stem}" for n in cache.NOT_COMPILED}
    names = {"REGISTRY", "Ruleset", "lookup", "accepting", "player_range"}
    for path in cache.sources():
        if path == cache.RULES_DIR / "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module not in skipped, f"{path.name} imports {node.module}"
                if node.module == "shedders.rules":
                    assert not names & {a.name for a in node.names}, f"{path.name} imports a registry name"
            elif isinstance(node, ast.Import):
                assert not skipped & {a.name for a in node.names}, f"{path.name} imports the registry"
    assert not {p.name for p in cache.sources()} & set(cache.NOT_COMPILED)


def test_precompile_has_a_group_for_every_family_and_reports_a_group_that_fails():
    """``agents.precompile``: every family of the registry is compiled by some group (a new family without one
    would compile in each test worker again), and a group whose process fails is named on the stream and left out
    of the timings, the run going on."""
    import io

    from agents import precompile
    from shedders.rules import lookup
    from shedders.rules.registry import REGISTRY

    covered = {lookup(r).family for plays in precompile.groups().values() for r, _, _ in plays}
    assert covered == {rec.family for rec in REGISTRY.values()}
    stream = io.StringIO()
    assert precompile.run_groups(["no-such-group"], 1, stream=stream) == {}
    assert "precompiling no-such-group failed" in stream.getvalue()
