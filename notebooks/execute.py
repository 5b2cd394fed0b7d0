"""Runs the notebooks and saves them with their outputs, so that the plots show where the
repository is browsed (`make notebooks`). The notebooks are the source: edit the .ipynb files
directly (Jupyter, or any editor), then run this.

    MLTWIN_DATA=/path/to/data build/venv/bin/python notebooks/execute.py [NAME.ipynb ...]

Each notebook runs in notebooks/ with a "python3" kernel of the Python running this script.
What changes from run to run is left out of the saved outputs, so that a re-run with the same
code rewrites the same files: printed wall times (a notebook prints a duration on a line that
says "wall time"), Dask's addresses, the build's git SHA, the interpreter's path in the kernel's
name, and the execution timestamps nbclient records.
"""
from __future__ import annotations

import os
import pathlib
import re
import sys

import nbclient
import nbformat

HERE = pathlib.Path(__file__).resolve().parent
CELL_TIMEOUT = int(os.environ.get("MLTWIN_NOTEBOOK_CELL_TIMEOUT", "600"))

# Output lines that differ from run to run.
VOLATILE_LINES = [
    re.compile(r"wall time"),               # "notebook wall time: 40 s", "wall time per run: ..."
    re.compile(r"tcp://\d+\.\d+\.\d+\.\d+:\d+"),  # Dask's client and worker addresses
]
# Parts of lines that differ: the build's git SHA in the version line.
VOLATILE_PARTS = [(re.compile(r" \([0-9a-f]{40}(-dirty)?\)"), "")]


def stable(nb) -> None:
    """Leaves out of `nb`'s outputs what differs from run to run or machine to machine (in place)."""
    # The kernel's display name carries the interpreter's path ("Python 3 (/usr/bin/python3)").
    if "kernelspec" in nb.metadata:
        nb.metadata.kernelspec["display_name"] = "Python 3"
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        outputs = []
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                lines = [ln for ln in o["text"].split("\n") if not any(p.search(ln) for p in VOLATILE_LINES)]
                text = "\n".join(lines)
                for pattern, repl in VOLATILE_PARTS:
                    text = pattern.sub(repl, text)
                if not text.strip():
                    continue
                o["text"] = text
            # The kernel flushes a stream in chunks that vary from run to run: one output per
            # run of the same stream.
            if (o.get("output_type") == "stream" and outputs and outputs[-1].get("output_type") == "stream"
                    and outputs[-1].get("name") == o.get("name")):
                outputs[-1]["text"] += o["text"]
                continue
            outputs.append(o)
        cell["outputs"] = outputs


def run(path: pathlib.Path, out: pathlib.Path) -> None:
    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT,
                                     resources={"metadata": {"path": str(HERE)}})
    client.execute()
    stable(nb)
    nbformat.write(nb, str(out))


def main(argv: list[str]) -> int:
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    names = argv or sorted(p.name for p in HERE.glob("*.ipynb"))
    for name in names:
        path = HERE / name
        print(f"running {name} ...", flush=True)
        try:
            run(path, path)
        except nbclient.exceptions.CellExecutionError as e:
            print(f"{name}: a cell raised (the file is left as it was):\n{e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
