"""Executes every notebook of notebooks/ end to end with nbclient; any cell error fails.

    cd <checkout> && MLTWIN_DATA=/path/to/data PYTHONPATH=<build>/bindings/python \
        /usr/bin/python3 -m pytest -q notebooks/test_notebooks.py

The kernel is "python3", i.e. the Python running pytest (ipykernel's own kernel spec), started
in notebooks/ with this process's environment (PYTHONPATH, MLTWIN_DATA, MLTWIN_SOURCE_DIR).
MLTWIN_NOTEBOOK_CELL_TIMEOUT (seconds, default 600) bounds each cell. The executed notebooks
are not written back (the committed ones carry no outputs); set MLTWIN_NOTEBOOK_OUT=<folder>
to keep executed copies with their outputs and plots.
"""
from __future__ import annotations

import os
import pathlib
import time

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

HERE = pathlib.Path(__file__).resolve().parent
NOTEBOOKS = sorted(p.name for p in HERE.glob("*.ipynb"))
CELL_TIMEOUT = int(os.environ.get("MLTWIN_NOTEBOOK_CELL_TIMEOUT", "600"))

os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")   # ipykernel's debugger warning on frozen modules

# The kernel starts in notebooks/: paths given relative to where pytest runs (as in
# PYTHONPATH=build/bindings/python) are made absolute first, so the kernel resolves them alike.
for _var in ("PYTHONPATH", "MLTWIN_DATA", "MLTWIN_SOURCE_DIR"):
    if os.environ.get(_var):
        os.environ[_var] = os.pathsep.join(os.path.abspath(p) for p in os.environ[_var].split(os.pathsep) if p)


def test_notebooks_are_generated_and_without_outputs():
    """The committed .ipynb files are what build_notebooks.py writes, with no outputs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_notebooks", HERE / "build_notebooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert sorted(mod.NOTEBOOKS) == NOTEBOOKS
    for name, cells in mod.NOTEBOOKS.items():
        committed = nbformat.read(str(HERE / name), as_version=4)
        assert all(not c.get("outputs") and c.get("execution_count") is None
                   for c in committed.cells if c.cell_type == "code"), f"{name} has outputs: clear them"
        assert [c.source for c in committed.cells] == [c.source for c in mod.build(name, cells).cells], \
            f"{name} differs from build_notebooks.py: run /usr/bin/python3 notebooks/build_notebooks.py"


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
