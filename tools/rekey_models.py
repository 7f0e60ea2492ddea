"""Re-key the stored lab models after a refactor of the code that trains them.

Every stored model's file name carries a hash of the training code (``posenc_lib.train_cache``).
A change that moves or renames code without changing what it computes still changes that hash,
and retraining all models (``make notebooks``) would take many minutes for identical weights.
This tool gives each stored model the current code hash instead: same arrays, new ``spec`` and
file name.

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
    """Re-key every model in ``folder`` to the current code hash: (re-keyed, already current)."""
    current = train_cache.code_hash()
    done = kept = 0
    for path in sorted(folder.glob("*.npz")):
        with np.load(path) as data:
            arrays = {k: data[k] for k in data.files}
        spec = json.loads(str(arrays["spec"]))
        if spec["code"] == current:
            kept += 1
            continue
        spec["code"] = current
        prefix = path.stem.rsplit("-", 1)[0]
        target = path.with_name(f"{prefix}-{train_cache.key_of(spec)}.npz")
        arrays["spec"] = np.array(json.dumps(spec, sort_keys=True))
        tmp = target.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(target)
        if target != path:
            path.unlink()
        done += 1
    return done, kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=train_cache.DEFAULT_DIR)
    args = parser.parse_args(argv)
    done, kept = rekey(args.folder)
    print(f"re-keyed {done} models to code hash {train_cache.code_hash()} ({kept} already current)."
          " Now run: .venv/bin/python -m pytest tests/test_train_cache.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
