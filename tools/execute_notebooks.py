"""Execute chapter notebooks and store their outputs — what the book and nbval both use.

Runs each notebook top to bottom in a fresh kernel with ``POSENC_WIDGETS=static`` (so explorers
store pre-rendered frames that work on the website without a kernel) and saves the widget state
in the notebook metadata. Usage::

    python tools/execute_notebooks.py                 # every notebook in notebooks/
    python tools/execute_notebooks.py notebooks/01_why_position.ipynb
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def execute(path: Path, timeout: int = 600) -> float:
    nb = nbformat.read(path, as_version=4)
    os.environ["POSENC_WIDGETS"] = "static"
    os.environ.setdefault("PYTHONHASHSEED", "0")
    start = time.perf_counter()
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    for cell in nb.cells:  # keep diffs quiet: no per-run timing metadata
        cell.metadata.pop("execution", None)
    nb.metadata.pop("papermill", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for p in paths:
        seconds = execute(p.resolve())
        size = p.stat().st_size / 1e6
        print(f"{p.name}: executed in {seconds:.1f} s, {size:.2f} MB stored")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
