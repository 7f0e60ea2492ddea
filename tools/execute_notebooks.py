"""Execute chapter notebooks and store their outputs — what the book and nbval both use.

Runs each notebook top to bottom in a fresh kernel with ``POSENC_WIDGETS=static`` (so explorers
store pre-rendered frames that work on the website without a kernel) and saves the widget state
in the notebook metadata. Lab models come from ``posenc_lib/trained/`` (``train_cache``): a model
missing there is trained and stored. After a run over *every* chapter, stored models that no
chapter (and no test) used are deleted, so the folder holds exactly what the book needs. Usage::

    python tools/execute_notebooks.py                 # every notebook in notebooks/
    python tools/execute_notebooks.py notebooks/01_why_position.ipynb
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
TRAINED = ROOT / "posenc_lib" / "trained"
#: Tests that read stored models (besides the chapters); run to record what they use.
MODEL_TESTS = ["tests/test_train_cache.py::test_a_stored_model_is_reproduced_from_scratch"]


def execute(path: Path, timeout: int = 900) -> float:
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


def prune(log: Path) -> list[str]:
    """Delete stored models not named in ``log``; return their names."""
    used = set(log.read_text().split()) if log.exists() else set()
    stale = [p for p in TRAINED.glob("*.npz") if p.name not in used]
    for p in stale:
        p.unlink()
    return sorted(p.name for p in stale)


def main(argv: list[str]) -> int:
    everything = not argv
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "used.txt"
        os.environ["POSENC_TRAIN_CACHE_LOG"] = str(log)
        for p in paths:
            seconds = execute(p.resolve())
            size = p.stat().st_size / 1e6
            print(f"{p.name}: executed in {seconds:.1f} s, {size:.2f} MB stored")
        if everything:
            subprocess.run([sys.executable, "-m", "pytest", "-q", *MODEL_TESTS], cwd=ROOT,
                           check=True)
            for name in prune(log):
                print(f"deleted the stored model {name} (no chapter uses it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
