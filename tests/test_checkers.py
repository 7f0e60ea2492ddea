"""Every exercise checker: accepts a correct answer, names at least three typical mistakes, and
never crashes whatever the learner's function does.

The cases live beside each chapter's other tests, in ``tests/exercises_cases/chNN.py``: a dict
``CASES`` mapping each checker's name to ``{"correct": f, "wrong": [(g, hint_substring), ...],
"notes": [(h, note_substring), ...]}``. Correct answers there are written independently (plain
numpy or Python loops), never taken from the library.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

import exercises_cases
import numpy as np
import pytest

from posenc_lib.course import exercises
from posenc_lib.course.exercises import Report

CHECKERS = sorted(n for n in exercises.__all__ if n.startswith("check_"))
CASES: dict[str, dict[str, Any]] = {}
for _info in pkgutil.iter_modules(exercises_cases.__path__):
    _mod = importlib.import_module(f"exercises_cases.{_info.name}")
    for _name, _entry in _mod.CASES.items():
        assert _name not in CASES, f"{_name} has cases in two modules"
        CASES[_name] = _entry


def checker(name: str) -> Callable[[Callable[..., Any]], Report]:
    return getattr(exercises, name)


def test_every_checker_has_cases():
    missing = [n for n in CHECKERS if n not in CASES]
    assert not missing, f"checkers without cases in tests/exercises_cases: {missing}"
    unknown = [n for n in CASES if n not in CHECKERS]
    assert not unknown, f"cases for unknown checkers: {unknown}"
    few = {n: len(CASES[n]["wrong"]) for n in CHECKERS if len(CASES[n]["wrong"]) < 3}
    assert not few, f"fewer than three typical wrong solutions: {few}"


@pytest.mark.parametrize("name", CHECKERS)
def test_correct_answer_passes(name: str):
    report = checker(name)(CASES[name]["correct"])
    assert report.ok, report.text()
    assert not report.notes, report.text()


def _wrong_ids() -> list[tuple[str, int]]:
    return [(n, k) for n in CHECKERS if n in CASES for k in range(len(CASES[n]["wrong"]))]


@pytest.mark.parametrize("name, k", _wrong_ids(), ids=lambda v: str(v))
def test_typical_mistake_is_rejected_with_its_hint(name: str, k: int):
    wrong, hint = CASES[name]["wrong"][k]
    report = checker(name)(wrong)
    assert not report.ok, f"{name} accepted mistake #{k}: {report.text()}"
    assert hint.lower() in report.text().lower(), report.text()


@pytest.mark.parametrize("name, k", [(n, k) for n in CHECKERS if n in CASES
                                     for k in range(len(CASES[n].get("notes", [])))])
def test_close_valid_answer_is_accepted_with_a_note(name: str, k: int):
    answer, note = CASES[name]["notes"][k]
    report = checker(name)(answer)
    assert report.ok, report.text()
    assert note.lower() in " ".join(report.notes).lower(), report.text()


def _bad_students(correct: Callable[..., Any]) -> list[tuple[str, Callable[..., Any]]]:
    def raises(*args: Any) -> Any:
        raise ValueError("boom")

    def todo(*args: Any) -> Any:
        raise NotImplementedError

    def nan_like(*args: Any) -> Any:
        return np.asarray(correct(*args), dtype=float) * np.nan

    def as_list(*args: Any) -> Any:
        return np.asarray(correct(*args)).tolist()

    def float32(*args: Any) -> Any:
        return np.asarray(correct(*args), dtype=np.float32)

    def divides_by_zero(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.asarray(correct(*args), dtype=float) / 0.0

    return [("None", lambda *a: None), ("raises", raises), ("todo", todo),
            ("a string", lambda *a: "hello"), ("a ragged list", lambda *a: [[1.0, 2.0], [3.0]]),
            ("an int", lambda *a: 0), ("a dict", lambda *a: {"a": 1}), ("NaN", nan_like),
            ("a list", as_list), ("float32", float32), ("inf", divides_by_zero),
            ("wrong shape", lambda *a: np.zeros((7, 3, 2)))]


@pytest.mark.parametrize("name", CHECKERS)
def test_checker_never_crashes(name: str):
    for label, student in _bad_students(CASES[name]["correct"]):
        report = checker(name)(student)
        assert isinstance(report, Report), label
        assert report.text(), label
        if label in ("None", "raises", "todo", "a string", "a ragged list", "a dict", "NaN",
                     "inf", "wrong shape"):
            assert not report.ok, f"{name} accepted {label}: {report.text()}"


def test_integer_dtype_and_tuple_results_are_named():
    def reference(n):
        return np.sin(np.arange(n, dtype=float))

    def truncated(n):                    # np.zeros(n, dtype=int) filled in a loop
        out = np.zeros(n, dtype=int)
        for p in range(n):
            out[p] = np.sin(p)
        return out

    cases = [("n = 4", (4,)), ("n = 6", (6,))]
    report = exercises.run_checks("sine", truncated, reference, cases)
    assert not report.ok and "integer dtype (int64)" in report.text(), report.text()
    report = exercises.run_checks("sine", lambda n: (reference(n), 1), reference, cases)
    assert not report.ok and "a tuple of 2 items" in report.text(), report.text()

    def counts(n):                       # whole numbers expected: an integer result is right
        return np.arange(n)

    assert exercises.run_checks("counts", lambda n: list(range(n)), counts, cases).ok


def test_a_transposed_result_is_named():
    def reference(rows, cols):
        return np.arange(rows * cols, dtype=float).reshape(rows, cols)

    cases = [("3 x 5", (3, 5)), ("2 x 4", (2, 4))]
    report = exercises.run_checks("table", lambda r, c: reference(r, c).T, reference, cases)
    assert not report.ok and "transposed" in report.text(), report.text()
    report = exercises.run_checks("table", lambda r, c: reference(r, c + 1), reference, cases)
    assert not report.ok and "transposed" not in report.text(), report.text()


def test_a_boolean_result_is_named_as_a_comparison():
    def reference(n):
        return np.linspace(0.1, 0.9, n)

    cases = [("n = 4", (4,)), ("n = 6", (6,))]
    report = exercises.run_checks("ratios", lambda n: reference(n) < 0.5, reference, cases)
    assert not report.ok and "True/False values" in report.text(), report.text()
    assert "cut to a whole number" not in report.text()


def test_none_on_some_cases_is_not_called_a_stub():
    """A `return` inside `if causal:` returns None on the symmetric cases only: the learner is
    told where, not asked to replace `...` (the stub message is for None on every case)."""
    def only_causal(seq_len, slope, causal):
        if causal:
            return exercises_cases.ch09.alibi_bias(seq_len, slope, causal)

    text = exercises.check_alibi_bias(only_causal).text()
    assert "replace `...`" not in text and "returned None here" in text, text
    assert "replace `...`" in exercises.check_alibi_bias(lambda L, m, c: None).text()


def test_not_implemented_on_some_cases_is_not_called_a_stub():
    """Powers of two handled, the rest raising NotImplementedError: the cases that pass count."""
    right = exercises_cases.ch09.alibi_slopes

    def powers_of_two_only(num_heads):
        if num_heads & (num_heads - 1):
            raise NotImplementedError
        return right(num_heads)

    report = exercises.check_alibi_slopes(powers_of_two_only)
    assert 0 < report.passed < report.total and "NotImplementedError here" in report.text()

    def stub(num_heads):
        raise NotImplementedError

    assert "Not implemented yet" in exercises.check_alibi_slopes(stub).text()


def test_coinciding_mistakes_are_offered_as_alternatives():
    """On the hand example, rounding to one decimal fewer, a one-unit tolerance and counting the
    positions with a double all give 11: the hint lists them as alternatives, and a later case
    names the one actually made."""
    def coarser(values, decimals):
        return exercises_cases.ch03.count_collisions(values, decimals - 1)

    text = exercises.check_count_collisions(coarser).text()
    first, *rest = text.splitlines()[1:]
    assert "more than one usual mistake" in first and "(1)" in first and "(2)" in first, text
    assert any("one decimal fewer" in m and "more than one" not in m for m in rest), text
