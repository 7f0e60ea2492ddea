"""posenc_lib — the numpy library behind *Positional Encoding, Interactively*.

Four layers, one subpackage each; imports only point down (``tests/test_structure.py``):

* :mod:`posenc_lib.maths` — the encodings' maths: ``encodings`` (integer and sinusoidal),
  ``attention``, ``rope``, ``rope_scaling``, ``alibi``, ``relative`` (learned, Shaw, T5),
  ``periodicity`` and ``similarity``;
* :mod:`posenc_lib.display` — the book's machinery, beside the maths: ``explorer`` (the one
  slider helper), ``plotting`` (the figure style), ``quiz``, ``numbers`` (glued numbers) and
  ``source`` (listings);
* :mod:`posenc_lib.lab` — a tiny numpy transformer you can train on a CPU, on top of the maths:
  ``model``, ``tasks``, ``training``, ``schemes`` (the registry of position schemes and what
  each does), ``storage`` (stored models and results), ``extrapolation`` and ``textlm`` (the
  experiments);
* :mod:`posenc_lib.course` — course content on top of everything: ``catalogue``, ``toy``,
  ``figures``, ``exercises`` and ``quizzes``.

Below them all, :mod:`posenc_lib.checks` holds the argument checks every layer uses.

Every module is also reachable by its short name, loaded on first use:
``from posenc_lib import rope`` is :mod:`posenc_lib.maths.rope`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Short name -> the module it stands for (``from posenc_lib import rope`` works).
MODULES: dict[str, str] = {
    **{name: f"maths.{name}" for name in ("alibi", "attention", "encodings", "periodicity",
                                           "relative", "rope", "rope_scaling", "similarity")},
    **{name: f"display.{name}" for name in ("explorer", "numbers", "plotting", "quiz", "source")},
    **{name: f"lab.{name}" for name in ("extrapolation", "model", "schemes", "storage", "tasks",
                                         "textlm", "training")},
    **{name: f"course.{name}" for name in ("catalogue", "exercises", "figures", "quizzes",
                                            "toy")},
    "checks": "checks", "course": "course", "display": "display", "lab": "lab", "maths": "maths",
}

__all__ = sorted(MODULES)
__version__ = "0.1.0"


def __getattr__(name: str) -> ModuleType:
    if name in MODULES:
        module = importlib.import_module(f"{__name__}.{MODULES[name]}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *MODULES})
