"""Re-key the stored lab models (and the results computed from them) after a refactor of the
code that trains them.

Every stored model's file name carries a hash of the training code (``posenc_lib.train_cache``).
A change that moves or renames code without changing what it computes still changes that hash,
and retraining all models (``make notebooks``) would take many minutes for identical weights.
This tool gives each stored model the current code hash instead: same arrays, new ``spec`` and
file name; each stored result (``train_cache.stored_result``) gets the new hash and, where its
spec names a model, that model's new key.

Use it only for refactors. The evidence that nothing changed is the reproduction test, which
trains one stored model again from scratch and compares:

    .venv/bin/python tools/rekey_models.py
    .venv/bin/python -m pytest tests/test_train_cache.py

If that test fails, the change was not a refactor: discard the re-keyed files
(``git checkout posenc_lib/trained``) and run ``make notebooks`` to retrain.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from posenc_lib import train_cache


def rekey(folder: Path) -> tuple[int, int]:
    """Re-key every model and stored result in ``folder`` to the current code hash: (re-keyed,
    already current). A result computed from a model (its spec names the model's key) follows
    the model's new key."""
    current = train_cache.code_hash()
    done = kept = 0
    renamed: dict[str, str] = {}  # old model key -> new
    for path in sorted(folder.glob("*.npz")):
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        spec = json.loads(str(arrays["spec"]))
        if spec["code"] == current:
            kept += 1
            continue
        spec["code"] = current
        prefix, old_key = path.stem.rsplit("-", 1)
        renamed[old_key] = train_cache.key_of(spec)
        target = path.with_name(f"{prefix}-{renamed[old_key]}.npz")
        arrays["spec"] = np.array(json.dumps(spec, sort_keys=True))
        tmp = target.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(target)
        if target != path:
            path.unlink()
        done += 1
    for path in sorted(folder.glob("*.json")):
        stored = json.loads(path.read_text(encoding="utf-8"))
        full = stored["spec"]
        if full["code"] == current:
            kept += 1
            continue
        full["code"] = current
        model = full["spec"].get("model") if isinstance(full["spec"], dict) else None
        if model is not None:
            full["spec"]["model"] = renamed.get(model, model)
        target = path.with_name(f"{full['name']}-{train_cache.key_of(full)}.json")
        train_cache._write_text(target, train_cache._result_text(full, stored["result"]))
        if target != path:
            path.unlink()
        done += 1
    return done, kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=train_cache.DEFAULT_DIR)
    args = parser.parse_args(argv)
    done, kept = rekey(args.folder)
    print(f"re-keyed {done} models and results to code hash {train_cache.code_hash()} ({kept} "
          "already current)."
          " Now run: .venv/bin/python -m pytest tests/test_train_cache.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
