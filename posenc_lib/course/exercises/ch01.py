"""Exercise checkers for chapter 1 (attention and permutations)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...maths import attention as _attention
from ._core import Diagnosis, Report, call_student, close, run_checks

__all__ = ["check_attention_weights", "check_permutation_matrix"]


def _weights_ref(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    return _attention.attention(q, k, np.eye(k.shape[-2]))[1]


def _saturated(q: np.ndarray, k: np.ndarray) -> bool:
    """True when every row of the reference weights is one-hot to float64 precision.

    On such a case any positive rescaling of the scores gives the same weights, so a wrong
    scale cannot be recognised there and the scale diagnoses stay silent.
    """
    return bool(np.all(_weights_ref(q, k).max(axis=-1) > 1 - 1e-12))


Student = Callable[[np.ndarray, np.ndarray], Any]


def _scale_mistake(f: Student) -> Student:
    def wrong(q: np.ndarray, k: np.ndarray) -> Any:
        return None if _saturated(q, k) else f(q, k)   # None: this diagnosis does not apply

    return wrong


def _when(condition: Callable[[np.ndarray, np.ndarray], bool], f: Student) -> Student:
    """``f`` on the cases where ``condition(q, k)`` holds; elsewhere the diagnosis is silent."""
    def wrong(q: np.ndarray, k: np.ndarray) -> Any:
        return f(q, k) if condition(q, k) else None

    return wrong


def _square(q: np.ndarray, k: np.ndarray) -> bool:
    return q.shape[0] == k.shape[0]


def _finite_only(f: Student) -> Student:
    """``f``, but silent where its result holds inf or NaN: a NaN pattern is shared by several
    mistakes, so it cannot tell them apart."""
    def wrong(q: np.ndarray, k: np.ndarray) -> Any:
        out = f(q, k)
        return out if np.all(np.isfinite(out)) else None

    return wrong


def _overflow_test_case() -> tuple[np.ndarray, np.ndarray]:
    """3 queries, 6 keys, d_k = 4; scaled scores between 705 and 714: exp() overflows above
    709.78, for some keys only.

    The entries are multiples of 1/2, so the scores are exact even in float32 (float32
    arithmetic passes); every row has a score that overflows and one that does not, so a
    naive softmax returns NaN and 0, not NaN everywhere; the weights are not one-hot, so a
    wrong scale is recognised here too; and L_q, L_k and d_k all differ.
    """
    rng = np.random.default_rng(6)
    q = np.hstack([np.full((3, 1), 40.0), rng.integers(-5, 6, (3, 3)) / 2])
    k = np.hstack([np.full((6, 1), 35.5), rng.integers(-5, 6, (6, 3)) / 2])
    return q, k      # q_i . k_j / sqrt(4) = 710 + (a_i . b_j) / 2


def _different_scales_case() -> tuple[np.ndarray, np.ndarray]:
    """Row maxima from below −600 to above 2700: subtracting the global maximum underflows.

    In every row the best score leads the second by more than 70 even after dividing by d_k
    (not sqrt(d_k)), so the weights are one-hot whatever the scale: scale mistakes pass here.
    """
    rng = np.random.default_rng(3)
    return 40 * rng.standard_normal((4, 16)), 40 * rng.standard_normal((4, 16))


_OVERFLOW_HINT = ("exp() of a large score overflows to inf (above about 709.78 in float64, "
                  "88.72 in float32), and inf/inf is NaN: subtract each row's maximum, "
                  "`s.max(axis=-1, keepdims=True)`, before exponentiating (the softmax does not "
                  "change).")
_UNNORMALISED_HINT = ("you returned the exponentials: divide each row by its sum, "
                      "`e.sum(axis=-1, keepdims=True)`, so that every row sums to 1.")
_STABLE_RECIPE = ("a stable softmax never gives inf or NaN: subtract each row's own maximum, "
                  "`s - s.max(axis=-1, keepdims=True)`, so that the largest exponential of "
                  "every row is exp(0) = 1 and no row sum is 0 or inf; then divide by "
                  "`e.sum(axis=-1, keepdims=True)`.")


def _scaled(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    return q @ k.T / np.sqrt(q.shape[-1])


def _shifted_softmax(shift: Callable[[np.ndarray], Any]) -> Student:
    """exp(s − shift(s)), each row divided by its sum: the stable softmax with another shift."""
    def wrong(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        s = _scaled(q, k)
        e = np.exp(s - shift(s))
        return e / e.sum(axis=-1, keepdims=True)

    return wrong


def _naive(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    e = np.exp(_scaled(q, k))
    return e / e.sum(axis=-1, keepdims=True)


def _naive_float32(q: np.ndarray, k: np.ndarray) -> Any:
    s = _scaled(q, k).astype(np.float32)
    e = np.exp(s)
    out = e / e.sum(axis=-1, keepdims=True)
    same = np.allclose(out, _naive(q, k), atol=1e-6, rtol=1e-6, equal_nan=True)
    # silent where float32 changes nothing (the float64 diagnosis speaks) and where the result
    # is NaN everywhere (many mistakes give that; the fallback below says what numpy saw)
    return None if same or np.all(np.isnan(out)) else out


def _no_keepdims_sum(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    s = _scaled(q, k)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)              # divides column j by the sum of row j


def _both_no_keepdims(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    s = _scaled(q, k)
    e = np.exp(s - s.max(axis=-1))
    return e / e.sum(axis=-1)


def _global_sum(shift: Callable[[np.ndarray], Any]) -> Student:
    def wrong(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        s = _scaled(q, k)
        e = np.exp(s - shift(s))
        return e / e.sum()

    return wrong


def check_attention_weights(student: Callable[[np.ndarray, np.ndarray], Any]) -> Report:
    r"""Exercise: ``attention_weights(q, k)`` = softmax over keys of :math:`QK^\top/\sqrt{d_k}`.

    Four cases, chosen so that the usual mistakes give different numbers: a rectangular one
    (3 queries, 5 keys, d_k = 6: dividing by the number of queries, of keys or by d_k are all
    different), a square one (4 queries and 4 keys, d_k = 8: a forgotten ``keepdims`` does not
    raise there, it gives wrong values), scores near 710 (a naive ``exp`` overflows; 3 queries,
    6 keys, d_k = 4) and rows on very different scales (subtracting the *global* maximum
    underflows). Results within 1e-6 of the reference pass, so float32 arithmetic is accepted.
    """
    rng = np.random.default_rng(1)
    cases = [
        ("3 queries, 5 keys, `d_k` = 6",
         (rng.standard_normal((3, 6)), rng.standard_normal((5, 6)))),
        ("4 queries, 4 keys, `d_k` = 8",
         (rng.standard_normal((4, 8)), rng.standard_normal((4, 8)))),
        ("scores near 710 (overflow test)", _overflow_test_case()),
        ("rows on very different scales", _different_scales_case()),
    ]

    def rectangular(q: np.ndarray, k: np.ndarray) -> bool:
        return not _square(q, k)

    diagnoses = [
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T)),
                  "divide the scores by sqrt(`d_k`) before the softmax."),
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T / q.shape[-1])),
                  "the scale is sqrt(`d_k`), not `d_k`."),
        Diagnosis(_scale_mistake(_when(rectangular, lambda q, k: _attention.softmax(
                      q @ k.T / np.sqrt(k.shape[0])))),
                  "you divided by sqrt(`L_k`), the number of keys (`k.shape[0]`); `d_k` is the "
                  "length of each query and key vector, `q.shape[-1]`."),
        Diagnosis(_scale_mistake(_when(rectangular, lambda q, k: _attention.softmax(
                      q @ k.T / np.sqrt(q.shape[0])))),
                  "you divided by sqrt(`L_q`), the number of queries (`q.shape[0]` or "
                  "`len(q)`); `d_k` is the length of each query and key vector, `q.shape[-1]`."),
        Diagnosis(_scale_mistake(_when(_square, lambda q, k: _attention.softmax(
                      q @ k.T / np.sqrt(q.shape[0])))),
                  "you divided by the square root of the number of queries or keys (equal in "
                  "this case); `d_k` is the length of each query and key vector, `q.shape[-1]`."),
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T * np.sqrt(q.shape[-1]))),
                  "divide the scores by sqrt(`d_k`); you multiplied by it."),
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T / (q.shape[-1] / 2))),
                  "you divided by `d_k / 2`: in Python `d_k**1/2` means (d_k**1)/2. Write "
                  "`d_k**0.5` or `np.sqrt(d_k)`."),
        Diagnosis(lambda q, k: _attention.softmax(-_scaled(q, k)),
                  "the scores have the wrong sign: the weights grow with q·k, so the softmax "
                  "takes +q @ k.T / sqrt(`d_k`)."),
        Diagnosis(lambda q, k: _attention.softmax(_scaled(q, k), axis=0),
                  "normalise over keys (`axis=-1`): each row must sum to 1."),
        Diagnosis(lambda q, k: _weights_ref(q, k).T,
                  "you returned the transpose (keys × queries). In this book row i is query i "
                  "and column j is key j: the result has shape (`L_q`, `L_k`)."),
        Diagnosis(lambda q, k: _attention.softmax(k @ q.T / np.sqrt(q.shape[-1])),
                  "the scores are `q @ k.T` (rows: queries), not `k @ q.T`."),
        Diagnosis(_scaled, "apply the softmax to the scaled scores."),
        Diagnosis(lambda q, k: np.log(_weights_ref(q, k)),
                  "you returned the logarithm of the weights (a log-softmax); return the "
                  "weights themselves."),
        Diagnosis(_when(_square, _no_keepdims_sum),
                  "keep the row sums as a column, `e.sum(axis=-1, keepdims=True)`: without "
                  "keepdims numpy divides column j by the sum of row j."),
        Diagnosis(_when(_square, _shifted_softmax(lambda s: s.max(axis=-1))),
                  "use keepdims=True on the maximum as well, `s.max(axis=-1, keepdims=True)`: "
                  "without it numpy subtracts row j's maximum from column j."),
        Diagnosis(_when(_square, _both_no_keepdims),
                  "use keepdims=True on both the maximum and the sum, "
                  "`s.max(axis=-1, keepdims=True)` and `e.sum(axis=-1, keepdims=True)`: without "
                  "it numpy subtracts row j's maximum from column j and divides column j by the "
                  "sum of row j."),
        Diagnosis(_shifted_softmax(lambda s: s.max(axis=0, keepdims=True)),
                  "you subtracted each column's maximum (`axis=0`); subtract each row's "
                  "maximum, `s.max(axis=-1, keepdims=True)`: the softmax of a row may be "
                  "shifted only by a number that is the same across that row."),
        Diagnosis(_shifted_softmax(lambda s: s.min(axis=-1, keepdims=True)),
                  "subtract each row's maximum, not its minimum: after subtracting the "
                  "minimum the largest score of a row can still be huge, and exp() overflows."),
        Diagnosis(_finite_only(_global_sum(lambda s: s.max(axis=-1, keepdims=True))),
                  "divide each row by its own sum, `e.sum(axis=-1, keepdims=True)`, not by the "
                  "sum of the whole matrix."),
        Diagnosis(_finite_only(_global_sum(lambda s: 0.0)),
                  "divide each row by its own sum, `e.sum(axis=-1, keepdims=True)`, not by the "
                  "sum of the whole matrix."),
        Diagnosis(_finite_only(lambda q, k: np.exp(_scaled(q, k))), _UNNORMALISED_HINT),
        Diagnosis(lambda q, k: np.exp(_scaled(q, k) - _scaled(q, k).max(axis=-1, keepdims=True)),
                  _UNNORMALISED_HINT),
        Diagnosis(_naive, _OVERFLOW_HINT),
        Diagnosis(_naive_float32, _OVERFLOW_HINT),
        Diagnosis(_shifted_softmax(lambda s: s.max()),
                  "subtract each row's own maximum (`axis=-1, keepdims=True`), not the maximum "
                  "of the whole matrix: in a row far below the global maximum every "
                  "exponential underflows to 0, and 0/0 is NaN."),
    ]
    report = run_checks("attention_weights", student, _weights_ref, cases, diagnoses)
    tuple_message = _tuple_message(student, cases)
    if tuple_message:
        # (weights, None) or (output, weights), like the chapter's attention_core: one message
        # that says so replaces the per-case ones ("a result containing None", a 3-D shape)
        report.messages = [tuple_message]
        return report
    # A non-finite result that no diagnosis recognised: do not guess the mistake; say what an
    # overflow that numpy reported means in a softmax, and give the recipe.
    unexplained = [m for m in report.messages if "contains inf or NaN" in m]
    if any("an overflow (" in m for m in unexplained):
        report.messages.append("Hint: numpy reported an overflow: exp() of a number above about "
                               "709.78 (88.72 in float32) is inf, and inf/inf is NaN. "
                               + _STABLE_RECIPE[0].upper() + _STABLE_RECIPE[1:])
    elif unexplained:
        report.messages.append("Hint: " + _STABLE_RECIPE[0].upper() + _STABLE_RECIPE[1:])
    return report


def _tuple_message(student: Student,
                   cases: Sequence[tuple[str, tuple[np.ndarray, np.ndarray]]]) -> str:
    """What to say when ``student`` returns a tuple (or list) of several items instead of one
    array, on every case where it returns anything; "" otherwise. Says which item, if any, is
    the right weight matrix on every case."""
    results = []
    for _, args in cases:
        status, got = call_student(student, copy.deepcopy(args))
        if status != "ok":
            continue
        if not (isinstance(got, (tuple, list)) and len(got) >= 2
                and isinstance(got[0], np.ndarray) and got[0].ndim == 2):
            return ""  # not a tuple here (or a plain nested list of numbers): the usual checks
        results.append((got, _weights_ref(*args)))
    if not results:
        return ""
    n_items = {len(got) for got, _ in results}
    if len(n_items) != 1:
        return ""
    n = n_items.pop()
    right = [j for j in range(n) if all(close(got[j], ref) for got, ref in results)]
    kind = type(results[0][0]).__name__
    head = (f"your function returned a {kind} of {n} items, not one array (`return weights, "
            "something` builds a tuple; the chapter's `attention_core` returns two things, this "
            "exercise asks for the weights only).")
    if right:
        which = ("first", "second", "third")[right[0]] if right[0] < 3 else f"item {right[0]}"
        return (f"{head} Its {which} item is the right weight matrix on every case: return just "
                "that, `return weights`.")
    return f"{head} None of its items is the expected ({cases[0][1][0].shape[0]} × "\
           f"{cases[0][1][1].shape[0]}) weight matrix yet: return one array of shape (`L_q`, `L_k`)."


def _perm_ref(order: Sequence[int]) -> np.ndarray:
    n = len(order)
    p = np.zeros((n, n))
    p[np.arange(n), np.asarray(order)] = 1.0
    return p


def check_permutation_matrix(student: Callable[[Sequence[int]], Any]) -> Report:
    """Exercise: ``permutation_matrix(order)`` with ``(P @ X)[r] == X[order[r]]``.

    No case is its own inverse, so the transpose (the matrix of the inverse reordering) fails
    every case; no case is a rotation or has a reversal or shift equal to its inverse, so other
    wrong answers are not mistaken for the transpose; one case passes ``order`` as a numpy
    array, as the chapter does.
    """
    cases = [
        ("4 tokens", ([2, 3, 1, 0],)),
        ("5 tokens: a swap and a 3-cycle", ([1, 0, 4, 2, 3],)),
        ("a 5-cycle", ([3, 0, 4, 2, 1],)),
        ("6 tokens, order as a numpy array", (np.array([3, 0, 4, 1, 5, 2]),)),
    ]
    diagnoses = [
        Diagnosis(lambda order: _perm_ref(order).T,
                  "you built the transpose, which is the matrix of the inverse reordering: "
                  "row r of P must pick token order[r], i.e. `P[r, order[r]] = 1`."),
        Diagnosis(lambda order: np.eye(len(order))[np.asarray(order) - 1],
                  "you shifted the positions by one: order counts from 0 like Python, so "
                  "row r has its 1 in column order[r], not order[r] - 1."),
        Diagnosis(lambda order: np.eye(len(order))[np.asarray(order) - 1].T,
                  "you shifted the positions by one and built the transpose: use "
                  "`P[r, order[r]] = 1` with order as given (it counts from 0)."),
        Diagnosis(lambda order: np.eye(len(order)),
                  "you returned the identity, which leaves X unchanged: row r must pick "
                  "token order[r]."),
    ]
    return run_checks("permutation_matrix", student, _perm_ref, cases, diagnoses)
