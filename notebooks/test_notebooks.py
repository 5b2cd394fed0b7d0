"""Executes every notebook of notebooks/ end to end with nbclient; any cell error fails.

    cd <checkout> && MLTWIN_DATA=/path/to/data PYTHONPATH=<build>/bindings/python \
        /usr/bin/python3 -m pytest -q notebooks/test_notebooks.py

The kernel is "python3", i.e. the Python running pytest (ipykernel's own kernel spec), started
in notebooks/ with this process's environment (PYTHONPATH, MLTWIN_DATA, MLTWIN_SOURCE_DIR).
MLTWIN_NOTEBOOK_CELL_TIMEOUT (seconds, default 600) bounds each cell. The executed notebooks
are not written back (`make notebooks` does that, notebooks/execute.py); set
MLTWIN_NOTEBOOK_OUT=<folder> to keep the executed copies.
"""
from __future__ import annotations

import os
import pathlib
import sys
import time

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # execute.py: what make notebooks keeps of a run
NOTEBOOKS = sorted(p.name for p in HERE.glob("*.ipynb"))
CELL_TIMEOUT = int(os.environ.get("MLTWIN_NOTEBOOK_CELL_TIMEOUT", "600"))

os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")   # ipykernel's debugger warning on frozen modules

# The kernel starts in notebooks/: paths given relative to where pytest runs (as in
# PYTHONPATH=build/bindings/python) are made absolute first, so the kernel resolves them alike.
for _var in ("PYTHONPATH", "MLTWIN_DATA", "MLTWIN_SOURCE_DIR"):
    if os.environ.get(_var):
        os.environ[_var] = os.pathsep.join(os.path.abspath(p) for p in os.environ[_var].split(os.pathsep) if p)


def test_notebooks_are_committed_with_their_outputs():
    """The committed notebooks show their results (`make notebooks` saves them): every code cell
    ran, in order, without an error, and nothing that differs from run to run was kept."""
    import execute

    for name in NOTEBOOKS:
        nb = nbformat.read(str(HERE / name), as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        counts = [c.get("execution_count") for c in code]
        assert counts == list(range(1, len(code) + 1)), f"{name}: not run top to bottom: run make notebooks"
        outputs = [o for c in code for o in c.get("outputs", [])]
        assert not [o for o in outputs if o.get("output_type") == "error"], f"{name}: saved with an error"
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{name}: no plot saved: run make notebooks"
        before = nbformat.writes(nb)
        execute.stable(nb)
        assert nbformat.writes(nb) == before, f"{name}: run-to-run details saved (wall times, addresses): run make notebooks"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs(name):
    nb = nbformat.read(str(HERE / name), as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT,
                                     resources={"metadata": {"path": str(HERE)}})
    started = time.perf_counter()
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        pytest.fail(f"{name}: a cell raised:\n{e}", pytrace=False)
    finally:
        out = os.environ.get("MLTWIN_NOTEBOOK_OUT")
        if out:
            os.makedirs(out, exist_ok=True)
            nbformat.write(nb, os.path.join(out, name))
    elapsed = time.perf_counter() - started
    print(f"{name}: {elapsed:.0f} s")
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
