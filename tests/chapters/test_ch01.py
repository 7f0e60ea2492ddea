"""Chapter 1 (why position): its exercise checkers, attention weights and the permutation
matrix, name only the mistake that was made."""

import numpy as np
import pytest

from posenc_lib.course import exercises
from posenc_lib.maths import attention


# -- exercise checkers -----------------------------------------------------------------------
def good_weights(q, k):
    s = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("student, expect", [
    (good_weights, "all 4 checks passed"),
    (lambda q, k: attention.softmax(q @ k.T), "divide the scores by sqrt(`d_k`)"),
    (lambda q, k: attention.softmax(q @ k.T / q.shape[-1]), "the scale is sqrt(`d_k`), not `d_k`"),
    (lambda q, k: attention.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=0), "axis=-1"),
    (lambda q, k: q @ k.T / np.sqrt(q.shape[-1]), "apply the softmax"),
    (lambda q, k: None, "returned None"),
    (lambda q, k: 1 / 0, "ZeroDivisionError"),
    (lambda q, k: np.zeros(3), "expected shape"),
])
def test_attention_weights_checker(student, expect):
    report = exercises.check_attention_weights(student)
    assert expect in report.text()
    assert report.ok == (student is good_weights)


def test_attention_checker_accepts_float32_without_a_note():
    from exercises_cases.ch01 import _float32

    report = exercises.check_attention_weights(_float32)
    assert report.ok and not report.notes, report.text()


def test_overflow_hint():
    def naive(q, k):
        e = np.exp(q @ k.T / np.sqrt(q.shape[-1]))
        return e / e.sum(-1, keepdims=True)

    report = exercises.check_attention_weights(naive)
    assert report.passed == 2 and "subtract each row's maximum" in report.text()


def _scaled(q, k):
    return q @ k.T / np.sqrt(q.shape[-1])


def _rows(s, shift):
    e = np.exp(s - shift)
    return e / e.sum(-1, keepdims=True)


# Each typical mistake of exercise 1 and the hint(s) it may get; a hint that names another
# mistake must never appear (the cases are chosen so that these mistakes give different numbers).
_ATTENTION_HINTS = {
    "no_scale": "before the softmax", "d_k": "not `d_k`", "L_k": "sqrt(`L_k`)",
    "L_q": "sqrt(`L_q`)", "L": "number of queries or keys", "times": "you multiplied",
    "axis0": "normalise over keys", "transpose": "you returned the transpose",
    "k_q": "not `k @ q.T`", "no_softmax": "apply the softmax", "log": "log-softmax",
    "sum_keepdims": "keep the row sums", "max_keepdims": "keepdims=True on the maximum",
    "both_keepdims": "on both the maximum and the sum", "column_max": "each column's maximum",
    "row_min": "not its minimum", "whole_sum": "not by the sum of the whole matrix",
    "overflow": "exp() of a large score overflows", "global_max": "maximum of the whole matrix",
    "recipe": "A stable softmax never gives", "exp_only": "you returned the exponentials",
}


_ATTENTION_MISTAKES = [
    ("no_scale", lambda q, k: attention.softmax(q @ k.T), {"no_scale"}),
    ("d_k", lambda q, k: attention.softmax(q @ k.T / q.shape[-1]), {"d_k"}),
    ("L_k", lambda q, k: attention.softmax(q @ k.T / np.sqrt(k.shape[0])), {"L_k", "L"}),
    ("L_q", lambda q, k: attention.softmax(q @ k.T / np.sqrt(len(q))), {"L_q", "L"}),
    ("times", lambda q, k: attention.softmax(q @ k.T * np.sqrt(q.shape[-1])), {"times"}),
    ("axis0", lambda q, k: attention.softmax(_scaled(q, k), axis=0), {"axis0"}),
    ("transpose", lambda q, k: good_weights(q, k).T, {"transpose"}),
    ("k_q", lambda q, k: attention.softmax(_scaled(k, q)), {"k_q"}),
    ("no_softmax", _scaled, {"no_softmax"}),
    ("log", lambda q, k: np.log(good_weights(q, k)), {"log"}),
    ("sum_keepdims", lambda q, k: (lambda e: e / e.sum(-1))(
        np.exp(_scaled(q, k) - _scaled(q, k).max(-1, keepdims=True))), {"sum_keepdims"}),
    ("max_keepdims", lambda q, k: _rows(_scaled(q, k), _scaled(q, k).max(-1)), {"max_keepdims"}),
    ("both_keepdims", lambda q, k: (lambda e: e / e.sum(-1))(
        np.exp(_scaled(q, k) - _scaled(q, k).max(-1))), {"both_keepdims"}),
    ("column_max", lambda q, k: _rows(_scaled(q, k), _scaled(q, k).max(0, keepdims=True)),
     {"column_max"}),
    ("row_min", lambda q, k: _rows(_scaled(q, k), _scaled(q, k).min(-1, keepdims=True)),
     {"row_min"}),
    ("whole_sum", lambda q, k: (lambda e: e / e.sum())(
        np.exp(_scaled(q, k) - _scaled(q, k).max(-1, keepdims=True))), {"whole_sum"}),
    ("overflow", lambda q, k: _rows(_scaled(q, k), 0.0), {"overflow"}),
    ("overflow", lambda q, k: _rows(_scaled(q, k).astype(np.float32), 0.0),
     {"overflow", "recipe"}),   # float32: NaN everywhere in the overflow case
    ("global_max", lambda q, k: _rows(_scaled(q, k), _scaled(q, k).max()), {"global_max"}),
    ("exp_only", lambda q, k: np.exp(_scaled(q, k) - _scaled(q, k).max(-1, keepdims=True)),
     {"exp_only"}),
    ("exp_only", lambda q, k: np.exp(_scaled(q, k)), {"exp_only", "recipe"}),  # inf: overflow
    ("recipe", lambda q, k: (lambda e: e / (e.sum(-1, keepdims=True) - e.sum(-1, keepdims=True)))(
        np.exp(_scaled(q, k))), {"recipe"}),   # 0 in the denominator: no diagnosis matches
]


@pytest.mark.parametrize("name, student, allowed", _ATTENTION_MISTAKES,
                         ids=[f"{k}-{m[0]}" for k, m in enumerate(_ATTENTION_MISTAKES)])
def test_attention_hints_name_only_the_mistake_made(name, student, allowed):
    with np.errstate(all="ignore"):
        text = exercises.check_attention_weights(student).text()
    given = {key for key, phrase in _ATTENTION_HINTS.items() if phrase in text}
    assert _ATTENTION_HINTS[name] in text, text
    assert given <= allowed, (given - allowed, text)


def test_unrecognised_non_finite_results_get_the_recipe_not_a_guess():
    def zero_rows(q, k):  # 0/0 with no overflow
        e = np.zeros((q.shape[0], k.shape[0]))
        return e / e.sum(-1, keepdims=True)

    text = exercises.check_attention_weights(zero_rows).text()
    assert "invalid operation" in text and "reported an overflow" not in text
    assert "A stable softmax never gives" in text
    assert "whole matrix" not in text and "overflows to inf" not in text


def test_attention_checker_cases_test_what_they_claim():
    from posenc_lib.course.exercises import ch01

    q, k = ch01._overflow_test_case()
    s = q @ k.T / 2
    assert len({q.shape[0], k.shape[0], q.shape[1], q.shape[1] + 1}) == 4  # L_q, L_k, d_k differ
    assert np.all(s.max(axis=1) > np.log(np.finfo(float).max))      # exp overflows in every row
    assert np.all(s.min(axis=1) < np.log(np.finfo(float).max))      # but not for every key
    assert 705 < s.min() and s.max() < 714                            # as the docstring says
    assert np.all(s == (q.astype(np.float32) @ k.T.astype(np.float32)) / 2)   # exact in float32
    assert not ch01._saturated(q, k)
    q, k = ch01._different_scales_case()
    raw = np.sort(q @ k.T, axis=1)
    assert np.all((raw[:, -1] - raw[:, -2]) / q.shape[1] > 70)      # one-hot whatever the scale
    assert ch01._saturated(q, k)
    assert np.ptp(raw[:, -1] / 4) > 3000                              # row maxima far apart


def _plausible_wrong_permutations():
    """Wrong answers that are not typical enough for a hint: they must get none."""
    def eye(o):
        return np.eye(len(o))
    return [
        lambda o: eye(o)[[(x + 1) % len(o) for x in o]],       # shifted the other way
        lambda o: eye(o)[[(x + 1) % len(o) for x in o]].T,
        lambda o: eye(o)[list(o)[::-1]],                        # rows reversed
        lambda o: eye(o)[list(o)][:, ::-1],                     # columns reversed
        lambda o: eye(o)[::-1],                                 # the anti-identity
        lambda o: np.roll(eye(o)[list(o)], 1, axis=0),
    ]


def test_permutation_checker():
    assert exercises.check_permutation_matrix(lambda o: np.eye(len(o))[o]).ok
    report = exercises.check_permutation_matrix(lambda o: np.eye(len(o))[o].T)
    assert report.passed == 0 and "you built the transpose" in report.text()   # no involutions
    report = exercises.check_permutation_matrix(lambda o: np.eye(len(o))[np.asarray(o) - 1])
    assert report.passed == 0 and report.text().count("Hint:") == 1            # one clear hint
    report = exercises.check_permutation_matrix(lambda o: np.eye(len(o))[np.asarray(o) - 1].T)
    assert report.passed == 0 and report.text().count("Hint:") == 1
    assert "and built the transpose" in report.text()
    for wrong in _plausible_wrong_permutations():   # no hint by coincidence (a rotation, say)
        report = exercises.check_permutation_matrix(wrong)
        assert not report.ok and "Hint:" not in report.text(), report.text()
    with pytest.raises(TypeError, match="pass your function itself"):
        exercises.check_permutation_matrix(np.eye(3))
