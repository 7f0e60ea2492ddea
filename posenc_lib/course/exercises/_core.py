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

import copy
import html
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["TODO_MESSAGE", "Diagnosis", "Report", "call_student", "close", "non_finite_message",
           "run_checks", "unambiguous"]


@dataclass(frozen=True)
class Diagnosis:
    """A known mistake: a function producing the wrong answer, and the hint to give.

    ``accept=True`` marks a *close but valid* answer (float32 arithmetic, say): a learner whose
    result matches it passes that case, and the hint is shown as a note instead of an error.
    """

    wrong: Callable[..., Any]
    hint: str
    accept: bool = False


@dataclass
class Report:
    """Outcome of a checker: which cases passed, what to try next, and notes on passed cases."""

    title: str
    passed: int
    total: int
    messages: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.passed == self.total

    def text(self) -> str:
        head = (f"✔ {self.title}: all {self.total} checks passed." if self.ok else
                f"✘ {self.title}: {self.passed} of {self.total} checks passed.")
        return "\n".join([head, *("  " + m for m in self.messages),
                          *("  Note: " + n for n in self.notes)])

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        cls = "posenc-right" if self.ok else "posenc-wrong"
        lines = self.text().split("\n")
        body = "".join(f"<div>{_code_html(line.strip())}</div>" for line in lines[1:])
        return {
            "text/plain": self.text(),
            "text/html": (f'<div class="posenc-feedback {cls}" role="status"><strong>'
                          f"{html.escape(lines[0])}</strong>{body}</div>"),
        }


def _code_html(line: str) -> str:
    """Escape a report line for HTML, rendering ```code``` spans (the only markup in reports)."""
    parts = line.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: show the text as it is
        return html.escape(line)
    return "".join(html.escape(p) if i % 2 == 0 else f"<code>{html.escape(p)}</code>"
                   for i, p in enumerate(parts))


def _float_array(a: Any) -> np.ndarray | None:
    """``a`` as a float array, or None if it is not numeric (a string, a ragged list, …)."""
    if isinstance(a, (str, bytes, dict, set)) or a is None:
        return None
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = np.asarray(a)
            if raw.dtype.kind not in "biuf":  # complex, strings, objects, …: not real numbers
                if raw.dtype.kind != "O" or any(x is None for x in raw.flat):
                    return None
            out = np.asarray(a, dtype=float)
    except Exception:  # whatever the learner's object does when converted: not numbers
        return None
    return out


def close(a: Any, b: Any, atol: float = 1e-6, rtol: float = 1e-6) -> bool:
    """Same shape and equal within tolerances (NaN matches NaN, so a mistake can be recognised)."""
    a, b = _float_array(a), _float_array(b)
    if a is None or b is None or a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True))


TODO_MESSAGE = "Not implemented yet: replace `...` with code."

_FP_EVENTS = {
    "divide by zero": "a division by zero (or the log of 0)",
    "overflow": "an overflow (a number too large for its float type, such as exp of a large "
                "score)",
    "invalid value": "an invalid operation (0/0, 0 × inf, inf − inf, or the square root or "
                     "log of a negative number)",
}


def _call(student: Callable[..., Any], args: Sequence[Any]) -> tuple[str, Any, list[str]]:
    """Run the learner's function; also record which floating-point events numpy reported."""
    events: list[str] = []

    def record(kind: str, flag: int) -> None:
        for key in _FP_EVENTS:
            if kind.startswith(key) and key not in events:
                events.append(key)

    try:
        with np.errstate(all="call", under="ignore", call=record):
            return "ok", student(*args), events
    except NotImplementedError:
        return "todo", None, events
    except Exception as exc:  # the learner's bug, reported as feedback
        return "raised", traceback.format_exception_only(type(exc), exc)[-1].strip(), events


def call_student(student: Callable[..., Any], args: Sequence[Any]) -> tuple[str, Any]:
    """Call the learner's function on ``args`` without letting its bugs escape.

    Returns ``("ok", result)``, ``("todo", None)`` when it raises ``NotImplementedError``, or
    ``("raised", "ValueError: ...")`` with the last line of any other exception.
    """
    status, result, _ = _call(student, args)
    return status, result


def non_finite_message(events: Sequence[str]) -> str:
    """What to say about a result holding inf or NaN, given the numpy events recorded."""
    if not events:
        return "your result contains inf or NaN."
    what = " and ".join(_FP_EVENTS[e] for e in events)
    return f"your result contains inf or NaN: numpy reported {what} while your function ran."


def _safe(wrong: Callable[..., Any], args: Sequence[Any]) -> Any:
    """A diagnosis's wrong answer, or None if computing it fails (the diagnosis is skipped)."""
    try:
        with np.errstate(all="ignore"):
            return wrong(*args)
    except Exception:  # a diagnosis that cannot be evaluated here simply does not apply
        return None


def _describe(got: Any) -> str:
    if isinstance(got, (list, tuple, np.ndarray)):
        try:
            if any(x is None for x in np.asarray(got, dtype=object).flat):
                return "a result containing None (a missing `return` somewhere?)"
        except Exception:  # a ragged list or an odd object: described below
            pass
    if isinstance(got, np.ndarray):
        return f"an array of dtype {got.dtype} and shape {got.shape}"
    try:
        if isinstance(got, complex) or np.iscomplexobj(got):
            return "complex numbers"
    except Exception:  # a ragged list, or an object numpy cannot read
        if isinstance(got, tuple):
            return (f"a tuple of {len(got)} items of different shapes (return one array, "
                    "not a tuple)")
        return (f"a ragged {type(got).__name__} (rows of different lengths)"
                if isinstance(got, list)
                else _a(type(got).__name__))
    if isinstance(got, (list, tuple)) and got and all(isinstance(x, str) for x in got):
        return f"a {type(got).__name__} of strings"
    if isinstance(got, int) and not isinstance(got, bool) and abs(got) > 1e308:
        return "an int too large for a float"
    return _a(type(got).__name__)


def _a(noun: str) -> str:
    """``noun`` with its indefinite article ("an int", "a tuple")."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _whole_numbers(a: Any) -> bool:
    """True if ``a`` holds only whole numbers (a diagnosis about rounding or counting)."""
    try:
        arr = np.asarray(a, dtype=float)
    except Exception:  # not numeric
        return False
    return bool(np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))


def _integer_message(got: Any, expected: Any) -> str:
    """Say so when the learner's result holds whole numbers only because of an integer dtype."""
    try:
        arr = np.asarray(got)
        exp = np.asarray(expected, dtype=float)
    except Exception:  # not array-like: described elsewhere
        return ""
    if arr.dtype.kind not in "iub" or arr.ndim == 0 or arr.shape != exp.shape or exp.size == 0:
        return ""
    if not np.all(np.isfinite(exp)) or np.all(exp == np.round(exp)):
        return ""  # whole numbers are the expected answer here
    if arr.dtype.kind == "b":
        return ("your result holds True/False values: did you return a comparison (such as "
                "`r < 1`) instead of the numbers themselves?")
    return (f"your result has an integer dtype ({arr.dtype}), so every value was cut to a whole "
            "number. Build it with a float dtype: np.zeros(shape) instead of "
            "np.zeros(shape, dtype=int) or np.zeros_like(an integer array).")


def _joined_hints(hints: list[str]) -> str:
    """One hint as it is; several (mistakes that coincide on this case) as alternatives, so no
    learner reads a mistake they did not make as the diagnosis."""
    unique = list(dict.fromkeys(hints))
    if len(unique) == 1:
        return unique[0]
    return ("more than one usual mistake gives exactly this result here; the other cases tell "
            "them apart. " + " ".join(f"({k}) {h}" for k, h in enumerate(unique, 1)))


def run_checks(title: str, student: Callable[..., Any], reference: Callable[..., Any],
               cases: Sequence[tuple[str, tuple[Any, ...]]],
               diagnoses: Sequence[Diagnosis] = (), *, atol: float = 1e-6) -> Report:
    """Compare ``student(*args)`` with ``reference(*args)`` on every case.

    For each failing case, every :class:`Diagnosis` whose wrong function reproduces the learner's
    output contributes its hint (a diagnosis that raises is skipped). A diagnosis with
    ``accept=True`` that matches passes the case with a note. Exceptions in the learner's code
    are reported, never raised; a result holding inf or NaN is reported with what numpy saw
    (division by zero, overflow, invalid operation).
    """
    if not callable(student):
        raise TypeError(f"pass your function itself (without calling it), got {student!r}")
    passed = 0
    messages: list[str] = []
    notes: list[str] = []
    hints_given: set[str] = set()
    returned_none = 0
    todo = 0  # cases that raised NotImplementedError (the stub raises it on every case)

    def hint(name: str, text: str) -> None:
        if text in hints_given:
            messages.append(f"{name}: wrong values (the same mistake as above).")
        else:
            hints_given.add(text)
            messages.append(f"{name}: wrong values. Hint: {text}")

    for name, args in cases:
        expected = reference(*args)
        # a copy: a function that changes its input in place must not change the case itself
        status, got, events = _call(student, copy.deepcopy(args))
        if status == "todo":
            todo += 1
            messages.append(f"{name}: your function raised NotImplementedError here (a case "
                            "your code does not handle yet).")
            continue
        if status == "raised":
            messages.append(f"{name}: your function raised {got}")
            continue
        if got is None:
            returned_none += 1
            messages.append(f"{name}: your function returned None here (a path through it "
                            "without a `return`?).")
            continue
        if close(got, expected, atol=atol, rtol=atol):
            passed += 1
            continue
        matched = [d for d in diagnoses if close(got, _safe(d.wrong, args), atol=atol, rtol=atol)]
        truncated = _integer_message(got, expected)
        if truncated:
            # an integer result matches a float diagnosis only by accident (all zeros, say)
            matched = [d for d in matched if _whole_numbers(_safe(d.wrong, args))]
            if not matched:
                messages.append(f"{name}: {truncated}")
                continue
        accepted = [d for d in matched if d.accept]
        if accepted:
            passed += 1
            for d in accepted:
                if d.hint not in notes:
                    notes.append(d.hint)
            continue
        if matched:
            hint(name, _joined_hints([d.hint for d in matched]))
            continue
        arr = _float_array(got)
        exp = np.asarray(expected, dtype=float)
        if arr is None:
            messages.append(f"{name}: your function returned {_describe(got)}; expected numbers "
                            f"of shape {exp.shape}.")
            continue
        if arr.shape != exp.shape:
            swapped = (arr.ndim >= 2 and arr.shape[-2:] == exp.shape[-2:][::-1]
                       and arr.shape[:-2] == exp.shape[:-2])
            messages.append(f"{name}: expected shape {exp.shape}, got {arr.shape}"
                            + (" (the last two axes are swapped: is the result transposed?)."
                               if swapped else "."))
            continue
        if not np.all(np.isfinite(arr)):
            messages.append(f"{name}: {non_finite_message(events)}")
            continue
        err = np.abs(arr - exp)
        where = np.unravel_index(int(np.argmax(err)), err.shape) if err.ndim else ()
        at = f" at index {tuple(int(i) for i in where)}" if where else ""
        messages.append(f"{name}: wrong values (max error {float(np.max(err)):.3g}{at}: "
                        f"expected {float(exp[where]):.6g}, got {float(arr[where]):.6g}).")
    if todo == len(cases):
        return Report(title, 0, len(cases), [TODO_MESSAGE])
    if returned_none == len(cases):  # None everywhere: most likely the stub itself
        return Report(title, 0, len(cases),
                      ["Your function returned None: replace `...` with code that returns the "
                       "result (did you forget `return`?)."])
    return Report(title, passed, len(cases), messages, notes)


def unambiguous(diagnoses: Sequence[Diagnosis],
                 general: Sequence[Diagnosis] = ()) -> list[Diagnosis]:
    """The diagnoses, each applying only where it is the *only* explanation.

    On some cases two different mistakes give the same answer (a band saturated to [0, 1], a
    symmetric bias whose rows and columns flip alike). A hint there could name a mistake the
    learner did not make; so a diagnosis whose wrong answer coincides with another one's (with a
    different hint) is skipped on that case, and another case names the mistake. ``general``
    diagnoses describe such a shared answer in terms true for every mistake that produces it:
    they always apply, and a specific diagnosis that coincides with one of them is skipped.
    """
    def only(d: Diagnosis) -> Diagnosis:
        others = [o for o in (*diagnoses, *general) if o.hint != d.hint]

        def wrong(*args: Any) -> Any:
            mine = d.wrong(*args)
            for o in others:
                try:
                    with np.errstate(all="ignore"):
                        theirs = o.wrong(*args)
                except Exception:  # a diagnosis that cannot be evaluated here does not compete
                    continue
                if close(mine, theirs):
                    return None
            return mine

        return Diagnosis(wrong, d.hint, d.accept)

    return [only(d) for d in diagnoses] + list(general)


# --------------------------------------------------------------------------------------------
# Exercise 1: masked accuracy
# --------------------------------------------------------------------------------------------
