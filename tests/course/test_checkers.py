"""Every exercise checker: accepts a correct answer, names at least three typical mistakes, and
never crashes whatever the learner's function does.

The cases live beside each chapter's other tests, in ``tests/exercises_cases/chNN.py``: a dict
``CASES`` mapping each checker's name to ``{"correct": f, "wrong": [(g, hint_substring), ...],
"notes": [(h, note_substring), ...]}``. Correct answers there are written independently (plain
numpy or Python loops), never taken from the library. The checkers of chapters 2–5 also have a
table of their own at the end: a correct answer passes, each usual mistake gets its hint.
"""

from __future__ import annotations

import importlib
import math
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


# -- independent correct answers (written here, not taken from the library) -------------------
def normalized_positions(L):
    return np.zeros(1) if L == 1 else np.arange(L) / (L - 1)


def norm_ratio(w, p):
    return np.sqrt((p ** 2).sum(1)) / np.sqrt((w ** 2).sum(1))


def sine_encoding(L, d, w):
    return np.tile(np.sin(w * np.arange(L))[:, None], (1, d))


def count_collisions(values, decimals):
    r = np.round(values, decimals) + 0.0
    return sum(1 for p in range(len(r)) for q in range(p + 1, len(r)) if r[p] == r[q])


def alternating(L, d):
    return np.array([[math.sin(p) if j % 2 == 0 else math.cos(p) for j in range(d)]
                     for p in range(L)])


def shift_matrix(k, w):
    a = k * w
    return np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])


def linear_encoding(L, d):
    return np.array([[math.sin(p / (j // 2 + 1)) if j % 2 == 0 else math.cos(p / (j // 2 + 1))
                      for j in range(d)] for p in range(L)])


def octave_counts(lam):
    lam = np.asarray(lam, float)
    bins = [int(math.floor(math.log2(x / lam.min()) + 1e-9)) for x in lam]
    return np.bincount(bins)


@pytest.mark.parametrize("checker, answer", [
    (exercises.check_normalized_positions, normalized_positions),
    (exercises.check_norm_ratio, norm_ratio),
    (exercises.check_sine_encoding, sine_encoding),
    (exercises.check_count_collisions, count_collisions),
    (exercises.check_alternating, alternating),
    (exercises.check_pair_shift, shift_matrix),
    (exercises.check_linear_encoding, linear_encoding),
    (exercises.check_octave_counts, octave_counts),
])
def test_correct_answers_pass_and_stubs_return_none(checker, answer):
    report = checker(answer)
    assert report.ok, report.text()
    stub = checker(lambda *args: None)
    assert not stub.ok and "returned None" in stub.text()


@pytest.mark.parametrize("checker, wrong, hint", [
    (exercises.check_normalized_positions, lambda L: np.arange(L) / L, "divide by L - 1, not L"),
    (exercises.check_normalized_positions, lambda L: np.arange(L) / (L - 1),
     "a one-token sentence has L - 1 = 0"),
    (exercises.check_norm_ratio, lambda w, p: norm_ratio(p, w), "upside down"),
    (exercises.check_norm_ratio, lambda w, p: (p ** 2).sum(1) / (w ** 2).sum(1), "square roots"),
    (exercises.check_sine_encoding, lambda L, d, w: sine_encoding(L + 1, d, w)[1:],
     "positions start at 0"),
    (exercises.check_sine_encoding,
     lambda L, d, w: np.tile(np.sin(np.radians(w * np.arange(L)))[:, None], (1, d)), "radians"),
    (exercises.check_sine_encoding, lambda L, d, w: sine_encoding(L, d, 1.0),
     "multiply the position by omega"),
    (exercises.check_count_collisions, lambda v, dec: 2 * count_collisions(v, dec),
     "counted twice"),
    (exercises.check_count_collisions, lambda v, dec: count_collisions(v, dec) + len(v),
     "does not collide with itself"),
    (exercises.check_alternating,
     lambda L, d: np.array([[math.cos(p) if j % 2 == 0 else math.sin(p) for j in range(d)]
                            for p in range(L)]), "sine goes to the even dimensions"),
    (exercises.check_alternating,
     lambda L, d: np.tile([math.sin(j) if j % 2 == 0 else math.cos(j) for j in range(d)], (L, 1)),
     "not the dimension index"),
    (exercises.check_pair_shift, lambda k, w: shift_matrix(k, w).T, "(cos, sin) order"),
    (exercises.check_pair_shift, lambda k, w: shift_matrix(k, 1.0), "k * omega, not k"),
    (exercises.check_linear_encoding,
     lambda L, d: np.array([[math.sin(p / (j + 1)) if j % 2 == 0 else math.cos(p / (j + 1))
                             for j in range(d)] for p in range(L)]),
     "each dimension by its own index"),
    (exercises.check_linear_encoding,
     lambda L, d: np.array([[math.sin(p / (2 * (j // 2) + 2)) if j % 2 == 0
                             else math.cos(p / (2 * (j // 2) + 2)) for j in range(d)]
                            for p in range(L)]), "not 2(i + 1)"),
    (exercises.check_linear_encoding,      # divides by i: 0/0 at position 0, pair 0
     lambda L, d: np.array([[np.sin(np.float64(p) / (j // 2)) if j % 2 == 0
                             else np.cos(np.float64(p) / (j // 2)) for j in range(d)]
                            for p in range(L)]), "count pairs from 1"),
    (exercises.check_octave_counts,
     lambda lam: np.bincount(np.floor(np.log10(np.asarray(lam) / min(lam)) + 1e-9).astype(int)),
     "use log2, not log10"),
    (exercises.check_octave_counts,
     lambda lam: np.bincount(np.floor(np.log2(np.asarray(lam) / lam[0]) + 1e-9).astype(int)),
     "not the first entry"),
])
def test_usual_mistakes_get_their_hint(checker, wrong, hint):
    with np.errstate(all="ignore"):
        report = checker(wrong)
    assert not report.ok
    assert hint in report.text(), report.text()
