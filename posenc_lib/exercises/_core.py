"""The checker framework behind every exercise (see the package docstring).

Each ``check_*`` function runs the learner's function on a set of cases, compares it with the
library's reference implementation and, when they disagree, tests the answer against the
*typical* wrong answers (swapped sin and cos, ``i`` instead of ``2i``, the other RoPE pairing, …)
to say what probably went wrong. The result is a :class:`Report`: printed as plain text (checked by
nbval) and shown as a coloured box in notebooks and on the website.

The learner-facing pattern in a chapter::

    def my_answer(...):
        ...            # your code here

    exercises.check_xxx(my_answer)
"""

from __future__ import annotations

import html
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


__all__ = ["TODO_MESSAGE", "Diagnosis", "Report", "call_student", "close", "run_checks"]


@dataclass(frozen=True)
class Diagnosis:
    """A known mistake: a function producing the wrong answer, and the hint to give."""

    wrong: Callable[..., Any]
    hint: str


@dataclass
class Report:
    """Outcome of a checker: which cases passed and what to try next."""

    title: str
    passed: int
    total: int
    messages: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.passed == self.total

    def text(self) -> str:
        head = (f"✔ {self.title}: all {self.total} checks passed." if self.ok else
                f"✘ {self.title}: {self.passed} of {self.total} checks passed.")
        return "\n".join([head, *("  " + m for m in self.messages)])

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        cls = "posenc-right" if self.ok else "posenc-wrong"
        lines = self.text().split("\n")
        body = "".join(f"<div>{html.escape(line.strip())}</div>" for line in lines[1:])
        return {
            "text/plain": self.text(),
            "text/html": (f'<div class="posenc-feedback {cls}" role="status"><strong>'
                          f"{html.escape(lines[0])}</strong>{body}</div>"),
        }


def close(a: Any, b: Any, atol: float = 1e-6) -> bool:
    try:
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.shape == b.shape and bool(np.allclose(a, b, atol=atol, rtol=1e-6))


TODO_MESSAGE = "Not implemented yet: replace `...` with code."


def call_student(student: Callable[..., Any], args: Sequence[Any]) -> tuple[str, Any]:
    """Call the learner's function on ``args`` without letting its bugs escape.

    Returns ``("ok", result)``, ``("todo", None)`` when it raises ``NotImplementedError``, or
    ``("raised", "ValueError: ...")`` with the last line of any other exception.
    """
    try:
        with np.errstate(all="ignore"):
            return "ok", student(*args)
    except NotImplementedError:
        return "todo", None
    except Exception as exc:  # the learner's bug, reported as feedback
        return "raised", traceback.format_exception_only(type(exc), exc)[-1].strip()


def run_checks(title: str, student: Callable[..., Any], reference: Callable[..., Any],
               cases: Sequence[tuple[str, tuple[Any, ...]]],
               diagnoses: Sequence[Diagnosis] = ()) -> Report:
    """Compare ``student(*args)`` with ``reference(*args)`` on every case.

    For the first failing case, each :class:`Diagnosis` whose wrong function reproduces the
    learner's output contributes its hint. Exceptions in the learner's code are reported, not
    raised.
    """
    if not callable(student):
        raise TypeError(f"pass your function itself (without calling it), got {student!r}")
    passed = 0
    messages: list[str] = []
    hints_given: set[str] = set()
    for name, args in cases:
        expected = reference(*args)
        status, got = call_student(student, args)
        if status == "todo":
            return Report(title, 0, len(cases), [TODO_MESSAGE])
        if status == "raised":
            messages.append(f"{name}: your function raised {got}")
            continue
        if got is None:
            return Report(title, 0, len(cases),
                          ["Your function returned None: replace `...` with code that returns "
                           "the array."])
        if close(got, expected):
            passed += 1
            continue
        shape_got = np.shape(got)
        if shape_got != np.shape(expected):
            messages.append(f"{name}: expected shape {np.shape(expected)}, got {shape_got}.")
            continue
        if not np.all(np.isfinite(np.asarray(got, dtype=float))):
            messages.append(f"{name}: your result contains inf or NaN (an overflow?).")
            continue
        hints = [d.hint for d in diagnoses if close(got, d.wrong(*args))]
        if hints:
            new = [h for h in hints if h not in hints_given]
            hints_given.update(hints)
            messages.append(f"{name}: wrong values." + (" Hint: " + " ".join(new) if new else
                                                        " (same mistake as above)"))
        else:
            messages.append(f"{name}: wrong values (max error "
                            f"{np.max(np.abs(np.asarray(got, float) - expected)):.3g}).")
    return Report(title, passed, len(cases), messages)
