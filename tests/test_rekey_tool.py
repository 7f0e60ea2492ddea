"""tools/rekey_models.py: a stale stored model gets the current code hash, with the same arrays."""

from __future__ import annotations

import json
import shutil

import numpy as np
from tool_loader import load_tool

from posenc_lib import train_cache


def test_rekey_renames_a_stale_model_and_keeps_its_arrays(tmp_path):
    tool = load_tool("rekey_models")
    source, other = sorted(train_cache.DEFAULT_DIR.glob("*.npz"))[:2]
    with np.load(source) as data:
        arrays = {k: data[k] for k in data.files}
    spec = json.loads(str(arrays["spec"]))
    spec["code"] = "0" * 16  # as if trained by older code
    stale = tmp_path / f"{source.stem.rsplit('-', 1)[0]}-{train_cache.key_of(spec)}.npz"
    np.savez_compressed(stale, **{**arrays, "spec": np.array(json.dumps(spec, sort_keys=True))})
    shutil.copy(other, tmp_path / other.name)  # a current one is left alone

    assert tool.rekey(tmp_path) == (1, 1)
    assert not stale.exists()
    files = sorted(tmp_path.glob("*.npz"))
    assert len(files) == 2
    assert (tmp_path / source.name).exists()  # the stale copy is now named like the original
    for path in files:
        with np.load(path) as data:
            new_spec = json.loads(str(data["spec"]))
            assert new_spec["code"] == train_cache.code_hash()
            assert path.stem.endswith(train_cache.key_of(new_spec))
    with np.load(tmp_path / source.name) as data:
        for k in arrays:
            if k != "spec":
                np.testing.assert_array_equal(data[k], arrays[k])
    assert tool.rekey(tmp_path) == (0, 2)  # nothing left to do


def test_rekey_gives_a_stale_result_its_current_name_and_bytes(tmp_path):
    """A stored result made by older code, re-keyed, is byte for byte the current file."""
    tool = load_tool("rekey_models")
    current = sorted(train_cache.DEFAULT_DIR.glob("accuracy-*.json"))[0]
    stored = json.loads(current.read_text(encoding="utf-8"))
    stored["spec"]["code"] = "0" * 16  # as if computed by older code
    (tmp_path / "accuracy-stale.json").write_text(json.dumps(stored), encoding="utf-8")
    assert tool.rekey(tmp_path) == (1, 0)
    assert [p.name for p in tmp_path.glob("*.json")] == [current.name]
    assert (tmp_path / current.name).read_bytes() == current.read_bytes()
