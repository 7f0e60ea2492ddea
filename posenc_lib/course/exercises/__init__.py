"""Automatic feedback for the exercises.

Each ``check_*`` function runs the learner's function on a set of cases, compares it with the
library's reference implementation and, when they disagree, tests the answer against the
*typical* wrong answers (swapped sin and cos, ``i`` instead of ``2i``, the other RoPE pairing, …)
to say what probably went wrong. The result is a :class:`Report`: plain text (checked by nbval)
and a coloured box in notebooks and on the website.

The learner-facing pattern in a chapter::

    def my_answer(...):
        ...            # your code here

    exercises.check_xxx(my_answer)

Checkers live in one module per chapter (``ch01.py``, ``ch02.py``, …) built on the framework in ``_core.py``;
every public name of those modules is re-exported here, so chapters simply call
``exercises.check_xxx``.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._core import Diagnosis, Report, close, run_checks

__all__ = ["Diagnosis", "Report", "close", "run_checks"]

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("_"):
        continue
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_module, "__all__", ()):
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)
