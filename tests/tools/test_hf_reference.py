"""tools/hf_reference.py: it covers every shipped configuration and its variants, and the golden
files it wrote (tests/golden/released) record the versions they come from and stay small."""

from __future__ import annotations

import pytest
from helpers import GOLDEN, golden
from tool_loader import load_tool

from posenc_lib.maths import released

tool = load_tool("hf_reference")
CASES = tool.cases()


# ----------------------------------------------------------------------------------------------
# The tool and the golden files
# ----------------------------------------------------------------------------------------------

def test_tool_covers_every_shipped_model_and_its_variants():
    assert list(CASES)[: len(released.MODELS)] == list(released.MODELS)
    assert set(CASES) == set(released.MODELS) | set(tool.VARIANTS)
    for name in CASES:
        assert tool.golden_path(name).exists(), name


@pytest.mark.parametrize("name", list(CASES))
def test_golden_records_versions_and_stays_small(name):
    g = golden(name)
    assert g["transformers"] == tool.TRANSFORMERS_VERSION
    assert g["torch"].split("+")[0] == tool.TORCH_VERSION
    assert (GOLDEN / f"{name}.json").stat().st_size < 40_000
