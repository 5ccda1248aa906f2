"""Every notebook runs top to bottom (on the tiny budgets its cells use), in a kernel on this interpreter."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")


def _execute():
    spec = importlib.util.spec_from_file_location("make_tour", ROOT / "notebooks" / "make_tour.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # builds the tour in memory; writes nothing (not __main__)
    return mod.execute


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    _execute()(nb, ROOT)  # raises CellExecutionError, with the cell and its traceback, if any cell fails
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert not errors
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")


def test_the_committed_tour_is_the_generated_one():
    """notebooks/tour.ipynb is written by notebooks/make_tour.py: their code cells agree."""
    spec = importlib.util.spec_from_file_location("make_tour", ROOT / "notebooks" / "make_tour.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    committed = nbformat.read(ROOT / "notebooks" / "tour.ipynb", as_version=4)
    assert [c.source for c in committed.cells] == [c.source for c in mod.nb.cells]
