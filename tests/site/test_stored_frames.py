"""The website's explorer frames are what today's code draws.

The static site shows frames that ``make notebooks`` rendered and stored in each chapter's widget
state; nbval compares only an explorer's one-line text form, so a change to a figure function
(a label, a colour, a bug fix) would otherwise leave stale pictures on the website. For every
explorer in every chapter this test rebuilds the explorer from its cell (the chapter's imports
and literal constants, then the cell's factory call), redraws three of its stored frames — the
default, the last grid value of every parameter, and one seeded random combination — and
compares them with the stored PNGs pixel by pixel.

Another CPU may round a float differently and move an anti-aliased edge by one level, so a few
pixels may differ slightly; a changed label, line or colour changes far more.
"""

from __future__ import annotations

import ast
import base64
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import ROOT
from PIL import Image

from posenc_lib.display.explorer import Explorer

CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]*_*.ipynb"))
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
LEVELS = 24          # a pixel "differs" when a channel moves by more than this (of 255)
MAX_CHANGED = 0.0005  # and at most this share may (0.05 %; one changed axis-label word: 0.27 %)


def _namespace(nb: dict) -> dict[str, Any]:
    """The chapter's imports and its top-level literal constants (``L = 2048``, ``d, L = 64, 32``)."""
    ns: dict[str, Any] = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                exec(compile(ast.Module([node], []), "<imports>", "exec"), ns)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    continue
                if isinstance(target, ast.Name):
                    ns[target.id] = value
                elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name)
                                                           for t in target.elts):
                    ns.update(zip((t.id for t in target.elts), value))
    return ns


def _factory_call(source: str) -> ast.expr | None:
    """The call that makes the cell's explorer: ``f(...)`` or ``x = f(...)`` then ``x``."""
    body = ast.parse(source).body
    if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Call):
        return body[0].value
    if (len(body) == 2 and isinstance(body[0], ast.Assign) and isinstance(body[0].value, ast.Call)
            and isinstance(body[1], ast.Expr) and isinstance(body[1].value, ast.Name)):
        return body[0].value
    return None


def _explorer_cells(nb: dict) -> list[tuple[int, str, str]]:
    found = []
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if VIEW in data and "Explorer" in "".join(data.get("text/plain", "")):
                found.append((i, "".join(cell["source"]), data[VIEW]["model_id"]))
    return found


def _stored_frame(state: dict, box_id: str, explorer: Explorer, indices: list[int]) -> bytes:
    children = state[box_id]["state"]["children"]
    assert len(children) == 2 + len(explorer.params), "stored explorer has another layout"
    node = children[-1].removeprefix("IPY_MODEL_")
    for i in indices:
        node = state[node]["state"]["children"][i].removeprefix("IPY_MODEL_")
    return base64.b64decode(PNG.search(state[node]["state"]["value"]).group(1))


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def _cases():
    for path in CHAPTERS:
        nb = json.loads(path.read_text())
        for i, source, model_id in _explorer_cells(nb):
            yield pytest.param(path, i, source, model_id, id=f"{path.stem.split('_')[0]}-cell{i}")


def test_every_explorer_cell_is_found():
    """The chapters' explorer cells are all recognised (a new form would be skipped silently)."""
    cells = list(_cases())
    assert len(cells) >= 18
    for case in cells:
        assert _factory_call(case.values[2]) is not None, case.id


@pytest.mark.parametrize("path, index, source, model_id", list(_cases()))
def test_stored_frames_match_current_code(path: Path, index: int, source: str, model_id: str):
    nb = json.loads(path.read_text())
    state = nb["metadata"]["widgets"][STATE]["state"]
    explorer = eval(compile(ast.Expression(_factory_call(source)), "<cell>", "eval"),
                    _namespace(nb))
    assert isinstance(explorer, Explorer)
    grids = [p.grid for p in explorer.params]
    combos = [[g.index(p.default) for p, g in zip(explorer.params, grids)],
              [len(g) - 1 for g in grids],
              [random.Random(f"{path.stem}:{index}").randrange(len(g)) for g in grids]]
    for indices in combos:
        values = {p.name: g[i] for p, g, i in zip(explorer.params, grids, indices)}
        stored = _pixels(_stored_frame(state, model_id, explorer, indices))
        html = explorer.frame_html(compact=True, **values)
        drawn = _pixels(base64.b64decode(PNG.search(html).group(1)))
        assert stored.shape == drawn.shape, (
            f"{path.name} cell {index} {values}: stored frame {stored.shape}, code draws "
            f"{drawn.shape} — run `make notebooks`")
        changed = float(np.mean(np.abs(stored - drawn).max(axis=-1) > LEVELS))
        assert changed <= MAX_CHANGED, (
            f"{path.name} cell {index} ({explorer.title!r}) at {values}: {changed:.2%} of the "
            f"pixels differ from what the current code draws — run `make notebooks`")
