"""The notebook executor writes stable widget ids, so re-running a chapter gives no diff."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import nbformat
import pytest
from helpers import ROOT
from tool_loader import load_tool

CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]*_*.ipynb"))
tool = load_tool("execute_notebooks")
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"


def explorer_notebook(prose: str = "Some prose.") -> nbformat.NotebookNode:
    """A chapter with one displayed box (slider + stack of two frames) and a jslink, random ids."""
    ids = {k: uuid.uuid4().hex for k in ("box", "slider", "stack", "f1", "f2", "link", "lay")}
    ref = {k: f"IPY_MODEL_{v}" for k, v in ids.items()}

    def model(name: str, **state: object) -> dict:
        return {"model_name": name, "model_module": "@jupyter-widgets/controls",
                "model_module_version": "2.0.0", "state": state}

    state = {
        ids["link"]: model("LinkModel", source=[ref["slider"], "index"],
                           target=[ref["stack"], "selected_index"]),
        ids["f2"]: model("HTMLModel", value="<img alt='two'>", layout=ref["lay"]),
        ids["box"]: model("VBoxModel", children=[ref["slider"], ref["stack"]]),
        ids["stack"]: model("StackModel", children=[ref["f1"], ref["f2"]], selected_index=0),
        ids["f1"]: model("HTMLModel", value="<img alt='one'>", layout=ref["lay"]),
        ids["slider"]: model("SelectionSliderModel", index=0),
        ids["lay"]: {"model_name": "LayoutModel", "model_module": "@jupyter-widgets/base",
                     "model_module_version": "2.0.0", "state": {}},
    }
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("explorer", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/plain": "<Explorer>",
                              VIEW: {"version_major": 2, "version_minor": 0,
                                     "model_id": ids["box"]}})])
    nb.cells = [nbformat.v4.new_markdown_cell(prose), code]
    nb.metadata["widgets"] = {STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    return nb


def test_ids_do_not_depend_on_the_kernel_or_the_prose():
    a = tool.stable_widget_ids(explorer_notebook())
    b = tool.stable_widget_ids(explorer_notebook("Other prose, one sentence changed."))
    assert a.metadata == b.metadata
    assert a.cells[1].outputs == b.cells[1].outputs


def test_every_reference_is_renamed_consistently():
    nb = tool.stable_widget_ids(explorer_notebook())
    state = nb.metadata["widgets"][STATE]["state"]
    assert len(state) == 7
    text = nbformat.writes(nb)
    refs = set(re.findall(r"IPY_MODEL_([0-9a-f]{32})", text))
    assert refs <= set(state)                         # nothing points at a missing model
    assert nb.cells[1].outputs[0].data[VIEW]["model_id"] in state
    linked = [m for m in state.values() if m["model_name"] == "LinkModel"][0]["state"]
    assert {linked["source"][0][10:], linked["target"][0][10:]} <= set(state)


def test_a_changed_frame_renames_only_its_own_branch():
    nb = explorer_notebook()
    state = nb.metadata["widgets"][STATE]["state"]
    f2 = [k for k, m in state.items() if m["state"].get("value") == "<img alt='two'>"][0]
    before = set(tool.stable_widget_ids(nb).metadata["widgets"][STATE]["state"])
    state[f2]["state"]["value"] = "<img alt='two, redrawn'>"
    after = set(tool.stable_widget_ids(nb).metadata["widgets"][STATE]["state"])
    assert before == after          # ids come from positions, not contents


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_stored_chapters_carry_stable_ids(path: Path):
    nb = nbformat.read(path, as_version=4)
    assert tool.stable_widget_ids(nb) == nb, (
        f"{path.name}: widget ids are not the executor's; run `make notebooks`")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_solutions_start_collapsed_in_jupyterlab(path: Path):
    nb = nbformat.read(path, as_version=4)
    solutions = [c for c in nb.cells if "hide-cell" in c.metadata.get("tags", [])]
    for cell in solutions:
        assert cell.metadata.get("jupyter") == {"source_hidden": True, "outputs_hidden": True}, \
            f"{path.name}: a solution cell is not collapsed in JupyterLab:\n{cell.source[:200]}"
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if not any(t in tool.COLLAPSED for t in tags):
            assert "jupyter" not in cell.metadata, f"{path.name}: a visible cell is collapsed"


def test_split_printouts_are_joined():
    cell = nbformat.v4.new_code_cell("print(1); print(2)", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="a\n"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
        nbformat.v4.new_output("stream", name="stderr", text="w\n"),
        nbformat.v4.new_output("stream", name="stdout", text="c\n")])
    tool.merge_streams(cell)
    assert [(o.name, o.text) for o in cell.outputs] == [
        ("stdout", "a\nb\n"), ("stderr", "w\n"), ("stdout", "c\n")]


def _timing_cell(source: str, text: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["nbval-ignore-output"]})
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    return cell


def test_an_unchanged_timing_keeps_its_stored_text_but_new_words_do_not():
    src = 'print(f"trained in {t:.0f} s")'
    before = nbformat.v4.new_notebook(cells=[_timing_cell(src, "trained in 80 s\n")])
    after = nbformat.v4.new_notebook(cells=[_timing_cell(src, "trained in 83 s\n")])
    tool.keep_unchanged_timings(after, before)
    assert after.cells[0].outputs[0].text == "trained in 80 s\n"     # only the number moved
    # the source was edited on disk before the run: the stored text has other words
    before = nbformat.v4.new_notebook(cells=[_timing_cell(src, "36 training runs: 80 s\n")])
    after = nbformat.v4.new_notebook(cells=[_timing_cell(src, "36 models, loaded: 80 s\n")])
    tool.keep_unchanged_timings(after, before)
    assert after.cells[0].outputs[0].text == "36 models, loaded: 80 s\n"


def test_prune_deletes_only_unread_files_made_under_other_numerics(tmp_path, monkeypatch):
    """After a run over every chapter, a stored model or result goes only if no chapter read it
    *and* today's code can never read it (another training-numerics version): the models behind
    chapter 10b's stored numbers (which the chapter does not load) and the models only tests
    load stay. A pruned model's manifest line goes with it."""
    import json
    import shutil

    from posenc_lib.lab import storage

    monkeypatch.setattr(tool, "TRAINED", tmp_path)
    entries = storage.manifest(storage.DEFAULT_DIR)
    current, old, old_read = sorted(entries)[:3]
    for name in (current, old, old_read):
        shutil.copy(storage.DEFAULT_DIR / name, tmp_path / name)
    kept = {current: entries[current]}
    for name in (old, old_read):
        kept[name] = {**entries[name], "spec": {**entries[name]["spec"], "numerics": 0}}
    (tmp_path / storage.MANIFEST).write_text(storage.manifest_text(kept))
    result = sorted(storage.DEFAULT_DIR.glob("*.json"))[0]
    shutil.copy(result, tmp_path / result.name)
    stale = json.loads(result.read_text(encoding="utf-8"))
    stale["spec"]["numerics"] = 0
    (tmp_path / "accuracy-stale.json").write_text(json.dumps(stale), encoding="utf-8")
    (tmp_path / "stale-read.json").write_text(json.dumps(stale), encoding="utf-8")
    log = tmp_path / "used.txt"
    log.write_text(f"stale-read.json\n{old_read}\n")          # read by a chapter this run
    assert tool.prune(log) == sorted(["accuracy-stale.json", old])
    assert sorted(p.name for p in tmp_path.glob("*.*") if p != log) == sorted(
        [current, old_read, result.name, "stale-read.json", storage.MANIFEST])
    assert sorted(storage.manifest(tmp_path)) == sorted([current, old_read])
    assert storage.check_folder(tmp_path) == []

