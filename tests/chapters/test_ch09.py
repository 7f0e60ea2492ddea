"""Chapter 9 (ALiBi): its exercise checkers, and the solutions in the notebook pass them."""

import math

import numpy as np
import pytest
from exercises_cases import ch09 as cases
from helpers import ROOT

from posenc_lib.course import exercises
from posenc_lib.maths import alibi


# -- checkers (typical mistakes and their hints: tests/exercises_cases/ch09.py) ----------------
def test_checkers_pass_the_reference_and_report_none():
    assert exercises.check_alibi_slopes(alibi.slopes).ok
    assert exercises.check_alibi_bias(alibi.bias).ok
    assert exercises.check_last_row_weights(lambda L, m: alibi.weights(L, m)[-1]).ok
    for check, stub in [(exercises.check_alibi_slopes, lambda h: None),
                        (exercises.check_alibi_bias, lambda L, m, c: None),
                        (exercises.check_last_row_weights, lambda L, m: None)]:
        r = check(stub)
        assert not r.ok and "returned None" in r.text()


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_other_right_answers_pass_without_a_note(name):
    # positions from 1, float32, lists, a -1e9 or finfo.min mask, MPT's gen_slopes route
    for answer in cases.CASES[name]["also_correct"]:
        r = getattr(exercises, name)(answer)
        assert r.ok and not r.notes, r.text()


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_one_hint_per_failing_case(name):
    # where two mistakes give identical output, one hint names both: never two hints glued
    for wrong, _ in cases.CASES[name]["wrong"]:
        for line in getattr(exercises, name)(wrong).messages:
            assert line.count("Hint:") <= 1, line
            assert "max error" not in line or "1e+06" not in line, line


def test_bias_checker_shows_minus_inf_not_its_internal_value():
    # masked entries are compared as -1e6 inside the checker; messages must say -inf
    def masks_everything(L, m, c):   # no hint matches: the generic "wrong values" message
        return np.where(np.ones((L, L), bool), -np.inf, -m / 3 * np.abs(
            np.arange(L)[:, None] - np.arange(L)[None, :]))

    for student, needle in [
        (lambda L, m, c: -m / 2 * np.abs(np.arange(L)[:, None] - np.arange(L)[None, :]),
         "expected -inf (a masked key"),
        (masks_everything, "got -inf (or another value at or below -1e6)"),
    ]:
        text = exercises.check_alibi_bias(student).text()
        assert needle in text and "1e+06" not in text, text


def test_slope_checker_catches_a_fixed_number_of_extra_heads():
    # 6, 12 and 24 heads have H - P = P/2; 7 and 112 do not, so "always P/2 extras" fails
    def half_p(H):
        p = 1 << (H.bit_length() - 1)
        s = [2.0 ** (-8.0 * h / p) for h in range(1, p + 1)]
        return np.array(s + [2.0 ** (-4.0 * k / p) for k in range(1, p, 2)][: p // 2]
                        if p != H else s)

    r = exercises.check_alibi_slopes(half_p)
    assert r.passed == r.total - 2 and "7 heads" in r.text() and "112 heads" in r.text()


def test_bias_checker_does_not_blame_the_learner_for_its_own_conversion():
    r = exercises.check_alibi_bias(lambda L, m, c: [[0.0], [1.0, 2.0]])
    assert not r.ok and "raised" not in r.text() and "returned a" in r.text()
    with pytest.raises(TypeError, match="pass your function itself"):
        exercises.check_alibi_bias(np.zeros((4, 4)))
    with pytest.raises(TypeError, match="pass your function itself"):
        exercises.check_alibi_slopes(np.ones(8))


def test_solutions_in_the_notebook_pass():
    import json

    nb = json.loads((ROOT / "notebooks/09_alibi.ipynb")
                    .read_text())
    solutions = ["".join(c["source"]) for c in nb["cells"]
                 if "hide-cell" in c.get("metadata", {}).get("tags", [])]
    assert len(solutions) == 3
    for src in solutions:
        ns = {"np": np, "math": math, "exercises": exercises}
        exec(src.replace("exercises.check_", "_ = exercises.check_"), ns)
        assert ns["_"].ok, ns["_"].text()
