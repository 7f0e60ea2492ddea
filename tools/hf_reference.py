"""Golden numbers for posenc_lib.maths.released from Hugging Face transformers' own code.

    .venv/bin/python tools/hf_reference.py            # every case
    .venv/bin/python tools/hf_reference.py NAME ...   # some cases

Creates (once) its own virtual environment ``.venv-hf/`` at the repository root with the pinned
torch (CPU) and transformers below, then runs ``tools/hf_reference_worker.py`` inside it on each
shipped configuration (``posenc_lib/maths/released_configs/``) and on the variants in
:data:`VARIANTS`, and writes ``tests/golden/released/<name>.json``. ``tests/maths/test_released.py``
compares the library with those files without torch: torch never becomes a dependency of the book
or its tests.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv-hf"
GOLDEN = ROOT / "tests" / "golden" / "released"
WORKER = Path(__file__).resolve().parent / "hf_reference_worker.py"

#: The reference's versions: the newest transformers release when the goldens were made (it has
#: Gemma 4's "proportional" RoPE), and the CPU torch wheel this machine provides for Python 3.11.
TRANSFORMERS_VERSION = "5.25.0"
TORCH_VERSION = "2.13.0"

#: Configurations that are not shipped but exercise a reference path no shipped model uses:
#: name -> (shipped configuration, fields replaced).
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    # dynamic NTK: no covered release uses it; Llama 2's file with the reference's dynamic scaling
    "llama-2-7b+dynamic": ("llama-2-7b", {"rope_scaling": {"type": "dynamic", "factor": 2.0}}),
}


def cases() -> dict[str, dict[str, Any]]:
    """Every case the tool covers: the shipped configurations, then the variants."""
    sys.path.insert(0, str(ROOT))
    from posenc_lib.maths import released

    out = {name: released.load(name) for name in released.MODELS}
    for name, (base, changes) in VARIANTS.items():
        cfg = copy.deepcopy(out[base])
        cfg.update(copy.deepcopy(changes))
        out[name] = cfg
    return out


def golden_path(name: str) -> Path:
    return GOLDEN / f"{name}.json"


def venv_python() -> Path:
    """The reference environment's Python, created and filled on first use."""
    python = VENV / "bin" / "python"
    stamp = VENV / f".installed-torch{TORCH_VERSION}-transformers{TRANSFORMERS_VERSION}"
    if not stamp.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", f"torch=={TORCH_VERSION}",
                        f"transformers=={TRANSFORMERS_VERSION}"], check=True)
        stamp.touch()
    return python


def main(argv: list[str]) -> int:
    todo = cases()
    names = argv or list(todo)
    unknown = [n for n in names if n not in todo]
    if unknown:
        print(f"unknown case(s) {unknown}; known: {', '.join(todo)}", file=sys.stderr)
        return 2
    python = venv_python()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TRANSFORMERS_VERBOSITY": "error"}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            cfg_file = Path(tmp) / f"{name}.json"
            cfg_file.write_text(json.dumps(todo[name]), encoding="utf-8")
            subprocess.run([str(python), str(WORKER), str(cfg_file), str(golden_path(name)), name],
                           check=True, env=env)
            print(f"{golden_path(name).relative_to(ROOT)}: {golden_path(name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
