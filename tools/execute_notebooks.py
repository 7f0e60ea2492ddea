"""Execute chapter notebooks and store their outputs — what the book and nbval both use.

Runs each notebook top to bottom in a fresh kernel with ``POSENC_WIDGETS=static`` (so explorers
store pre-rendered frames that work on the website without a kernel) and saves the widget state
in the notebook metadata. Lab models come from ``posenc_lib/lab/trained/`` (``storage``): a model
missing there is trained and stored. After a run over *every* chapter, stored models and results
that no chapter used and that today's code cannot read (made under another training-numerics
version) are deleted. Usage::

    python tools/execute_notebooks.py                 # every notebook in notebooks/
    python tools/execute_notebooks.py notebooks/01_why_position.ipynb
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
TRAINED = ROOT / "posenc_lib" / "lab" / "trained"
#: Tests that read stored models (besides the chapters); run to record what they use.
MODEL_TESTS = ["tests/lab/test_storage.py::test_a_stored_model_is_reproduced_from_scratch"]


_REF = re.compile(r"IPY_MODEL_([0-9a-f]{32})")
_VIEW = "application/vnd.jupyter.widget-view+json"
_STATE = "application/vnd.jupyter.widget-state+json"


def _digest(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:32]


def _refs(value: object, path: str = "") -> list[tuple[str, str]]:
    """(path, model id) of every widget reference in a state value, in a fixed order."""
    if isinstance(value, str):
        m = _REF.fullmatch(value)
        return [(path, m.group(1))] if m else []
    if isinstance(value, dict):
        return [r for k in sorted(value) for r in _refs(value[k], f"{path}/{k}")]
    if isinstance(value, list):
        return [r for i, v in enumerate(value) for r in _refs(v, f"{path}/{i}")]
    return []


def stable_widget_ids(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Replace the kernel's random widget ids by ids that depend only on where a widget sits.

    A displayed widget's id comes from its cell's source (and the output's place in the cell);
    a child's id from its parent's id and the attribute that holds it; a widget that nothing
    displays (a ``jslink``) from its own state. Re-running a chapter then reproduces the same
    ids, and changing one explorer changes only that explorer's widgets, so diffs stay small.
    """
    state = nb.metadata.get("widgets", {}).get(_STATE, {}).get("state")
    if not state:
        return nb
    new: dict[str, str] = {}
    seen: dict[str, int] = {}

    def visit(model: str, new_id: str) -> None:
        if model in new or model not in state:
            return
        new[model] = new_id
        for path, child in _refs(state[model].get("state", {})):
            visit(child, _digest(new_id, path))

    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        source = _digest(cell.source)
        count = seen[source] = seen.get(source, -1) + 1
        for k, out in enumerate(cell.get("outputs", [])):
            model = out.get("data", {}).get(_VIEW, {}).get("model_id")
            if model:
                visit(model, _digest(source, str(count), str(k)))
    rest = [m for m in state if m not in new]
    while rest:  # not displayed: named by content once everything it refers to is named
        ready = [m for m in rest if all(c in new for _, c in _refs(state[m]))] or rest[:1]
        for m in ready:
            content = _REF.sub(lambda r: "IPY_MODEL_" + new.get(r.group(1), r.group(1)),
                               json.dumps(state[m], sort_keys=True))
            taken = set(new.values())
            candidate, n = _digest(content), 0
            while candidate in taken:
                n += 1
                candidate = _digest(content, str(n))
            new[m] = candidate
        rest = [m for m in rest if m not in new]
    text = re.sub(r"[0-9a-f]{32}", lambda r: new.get(r.group(0), r.group(0)),
                  nbformat.writes(nb))
    return nbformat.reads(text, as_version=4)


def keep_unchanged_timings(nb: nbformat.NotebookNode,
                           previous: nbformat.NotebookNode | None) -> None:
    """Keep the stored printout of a timing cell whose source did not change.

    Cells tagged ``nbval-ignore-output`` print timings, which differ on every run. Their text
    is kept from the last run in which the cell changed, so re-running an unchanged chapter
    gives no diff. ``POSENC_RETIME=1`` measures again.
    """
    if previous is None or os.environ.get("POSENC_RETIME") == "1":
        return
    old = {c.source: c for c in previous.cells if c.cell_type == "code"}
    for cell in nb.cells:
        if "nbval-ignore-output" not in cell.metadata.get("tags", []) or cell.source not in old:
            continue
        before = [o for o in old[cell.source].get("outputs", []) if o.output_type == "stream"]
        after = [o for o in cell.get("outputs", []) if o.output_type == "stream"]
        # only the numbers may differ: a printout whose words changed (a cell edited on disk
        # and not yet run) is new text, not a timing
        if len(before) == len(after) and all(_words(o.text) == _words(b.text)
                                             for o, b in zip(after, before)):
            for o, b in zip(after, before):
                o.text = b.text


def _words(text: str) -> str:
    """``text`` with every number replaced by ``#``."""
    return re.sub(r"\d+(?:[.,]\d+)*", "#", text)


#: What the website hides (Jupyter Book tags) -> what JupyterLab collapses (``metadata.jupyter``).
COLLAPSED = {
    "hide-cell": {"source_hidden": True, "outputs_hidden": True},    # solutions
    "remove-cell": {"source_hidden": True, "outputs_hidden": True},  # the author's checks
    "hide-input": {"source_hidden": True},
    "hide-output": {"outputs_hidden": True},
}


def collapse_hidden_cells(nb: nbformat.NotebookNode) -> None:
    """Collapse in JupyterLab what the website hides, so a solution stays hidden there too."""
    for cell in nb.cells:
        wanted: dict[str, bool] = {}
        for tag in cell.metadata.get("tags", []):
            wanted.update(COLLAPSED.get(tag, {}))
        if wanted:
            cell.metadata["jupyter"] = wanted
        else:
            cell.metadata.pop("jupyter", None)


def install_source() -> str:
    """The first cell of every chapter: installs the library where it is missing (Colab).

    Its URL comes from ``repository`` in ``_config.yml``, the one setting that also drives the
    website's launch buttons.
    """
    import yaml

    repo = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    requirement = f"posenc-lib @ git+{repo['url']}@{repo.get('branch', 'main')}"
    return (
        "# Colab, or any Python without the book's library: install it from the book's\n"
        "# repository. In the book's own environment (make lab, Binder) this does nothing.\n"
        "import importlib.util\n"
        "import subprocess\n"
        "import sys\n"
        "\n"
        'if importlib.util.find_spec("posenc_lib") is None:\n'
        '    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",\n'
        f'                    "{requirement}"], check=True)'
    )


INSTALL_CELL_ID = "install-posenc-lib"


def ensure_install_cell(nb: nbformat.NotebookNode) -> None:
    """Put the install cell first (hidden on the website, collapsed in JupyterLab)."""
    nb.cells = [c for c in nb.cells if c.get("id") != INSTALL_CELL_ID]
    cell = nbformat.v4.new_code_cell(install_source())
    cell.id = INSTALL_CELL_ID
    cell.metadata["tags"] = ["remove-cell"]
    nb.cells.insert(1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0, cell)


def merge_streams(cell: nbformat.NotebookNode) -> None:
    """Join consecutive outputs of the same stream: how a printout is split into chunks depends
    on when the kernel flushed, which differs between runs."""
    merged: list[nbformat.NotebookNode] = []
    for out in cell.get("outputs", []):
        if (out.output_type == "stream" and merged and merged[-1].output_type == "stream"
                and merged[-1].name == out.name):
            merged[-1].text += out.text
        else:
            merged.append(out)
    if "outputs" in cell:
        cell.outputs = merged


def execute(path: Path, timeout: int = 900) -> float:
    nb = nbformat.read(path, as_version=4)
    previous = nbformat.read(path, as_version=4)
    ensure_install_cell(nb)
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
        merge_streams(cell)
    nb = stable_widget_ids(nb)
    keep_unchanged_timings(nb, previous)
    collapse_hidden_cells(nb)
    nb.metadata.pop("papermill", None)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python",
                                 "name": "python3"}
    nbformat.write(nb, path)
    return time.perf_counter() - start


def prune(log: Path) -> list[str]:
    """Delete stored models and results that no chapter read (``log``) *and* that today's code
    can never read (trained or computed under another :data:`~posenc_lib.lab.storage.NUMERICS`
    version), with their manifest lines; return their names.

    A model that only stands behind stored results (chapter 10b reads its numbers, not its
    models) or that only tests load is kept: it is what those results are recomputed from.
    """
    from posenc_lib.lab import storage

    used = set(log.read_text().split()) if log.exists() else set()
    entries = storage.manifest(TRAINED)
    stale = [name for name, e in entries.items()
             if name not in used and e["spec"]["numerics"] != storage.NUMERICS]
    for path in TRAINED.glob("*.json"):
        numerics = json.loads(path.read_text(encoding="utf-8"))["spec"].get("numerics")
        if path.name not in used and numerics != storage.NUMERICS:
            stale.append(path.name)
    for name in stale:
        (TRAINED / name).unlink(missing_ok=True)
    if any(name in entries for name in stale):
        kept = {n: e for n, e in entries.items() if n not in stale}
        (TRAINED / storage.MANIFEST).write_text(storage.manifest_text(kept),
                                                    encoding="utf-8")
    return sorted(stale)


def main(argv: list[str]) -> int:
    everything = not argv
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
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
                print(f"deleted {name}: made under other training numerics, and no chapter uses it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
