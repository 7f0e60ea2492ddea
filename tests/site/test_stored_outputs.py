"""Cheap checks on the stored notebooks: what nbval compares must not depend on the machine.

Another CPU or BLAS kernel rounds floats differently in the last bits, so a stored output that
shows 15–17 significant digits fails nbval elsewhere. Glued values go through
``posenc_lib.display.numbers.glue`` (rounded to 6 significant digits) and printed values are formatted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import ROOT

CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]*_*.ipynb"))
NUMBER = re.compile(r"(?<![\w.])-?(\d+\.\d+|\.\d+)(?:[eE][-+]?\d+)?")
MAX_SIGNIFICANT = 7


def significant_digits(literal: str) -> int:
    mantissa = re.split(r"[eE]", literal.lstrip("-"))[0].replace(".", "").lstrip("0")
    return len(mantissa.rstrip("0")) if mantissa else 0


def compared_texts(nb: dict) -> list[tuple[int, str]]:
    """The text outputs nbval compares, per cell (widget views and images are not compared)."""
    out = []
    for i, cell in enumerate(nb["cells"]):
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append((i, "".join(o["text"])))
            for mime, value in o.get("data", {}).items():
                if mime.endswith("text/plain") or mime == "text/html":
                    text = "".join(value)
                    text = re.sub(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+", "", text)
                    out.append((i, text))
    return out


def test_significant_digits():
    assert significant_digits("0.25048770466803655") == 17
    assert significant_digits("0.250488") == 6
    assert significant_digits("1.254406415918119e-05") == 16
    assert significant_digits("-3.0") == 1


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_unrounded_float_in_stored_outputs(path: Path):
    nb = json.loads(path.read_text())
    long = [(i, m.group(0)) for i, text in compared_texts(nb) for m in NUMBER.finditer(text)
            if significant_digits(m.group(0)) > MAX_SIGNIFICANT]
    assert not long, (f"{path.name}: stored outputs with more than {MAX_SIGNIFICANT} significant "
                      f"digits (cell, value): {long[:5]} — glue through posenc_lib.display.numbers.glue "
                      "or format the print")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_glue_roles_are_well_formed_and_defined(path: Path):
    nb = json.loads(path.read_text())
    glued = {o["metadata"]["scrapbook"]["name"] for c in nb["cells"] for o in c.get("outputs", [])
             if "scrapbook" in o.get("metadata", {})}
    prose = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    for role in re.findall(r"\{glue(?::\w+)?\}`([^`]*)`", prose):
        name, _, spec = role.partition(":")
        assert re.fullmatch(r"[A-Za-z_]\w*", name), f"malformed glue role `{role}`"
        assert name in glued, f"glue role `{role}` refers to nothing glued"
        assert "{" not in spec and "}" not in spec, f"malformed format in `{role}`"
    assert "{glue" not in re.sub(r"\{glue(?::\w+)?\}`[^`]*`", "", prose), "a broken glue role"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_cites_only_what_a_reader_can_see(path: Path):
    text = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])
    assert not re.search(r"\bseeds?\b[ /]*0\d\d", text, re.IGNORECASE)
    assert "from myst_nb import glue" not in text, "glue through posenc_lib.display.numbers.glue"
