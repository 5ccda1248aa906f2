"""Every notebook runs top to bottom (on the tiny budgets its cells use), in a kernel on this interpreter."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import ipykernel  # noqa: F401  (the kernel the notebooks run in: a missing one fails here, not skips)
import nbclient  # noqa: F401
import nbformat
import pytest

pytestmark = pytest.mark.slow  # the fast tier (pytest -m "not slow") leaves these out

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _build():
    spec = importlib.util.spec_from_file_location("build", ROOT / "notebooks" / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # defines the notebooks in memory; writes nothing (not __main__)
    return mod


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    _build().execute(nb, ROOT)  # raises CellExecutionError, with the cell and its traceback, if any cell fails
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert not errors
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")


def test_the_committed_notebooks_are_the_generated_ones():
    """Each notebook is written by notebooks/build.py: the committed cells are the generated ones."""
    mod = _build()
    assert sorted(mod.NOTEBOOKS) == sorted(p.stem for p in NOTEBOOKS)
    for name in mod.NOTEBOOKS:
        committed = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
        assert [c.source for c in committed.cells] == [c.source for c in mod.build(name).cells]
