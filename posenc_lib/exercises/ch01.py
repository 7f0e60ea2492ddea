"""Exercise checkers for chapter 1 (attention and permutations)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import attention as _attention
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_attention_weights", "check_permutation_matrix"]


def _weights_ref(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    return _attention.attention(q, k, np.eye(k.shape[-2]))[1]


def _saturated(q: np.ndarray, k: np.ndarray) -> bool:
    """True when every row of the reference weights is one-hot to float64 precision.

    On such a case any positive rescaling of the scores gives the same weights, so a wrong
    scale cannot be recognised there and the scale diagnoses stay silent.
    """
    return bool(np.all(_weights_ref(q, k).max(axis=-1) > 1 - 1e-12))


def _scale_mistake(f: Callable[[np.ndarray, np.ndarray], Any]
                   ) -> Callable[[np.ndarray, np.ndarray], Any]:
    def wrong(q: np.ndarray, k: np.ndarray) -> Any:
        return None if _saturated(q, k) else f(q, k)   # None: this diagnosis does not apply

    return wrong


def _overflow_test_case() -> tuple[np.ndarray, np.ndarray]:
    """Scaled scores between 706 and 714: exp() overflows above 709.78, for some keys only.

    The entries are multiples of 1/2, so the scores are exact even in float32 (float32
    arithmetic passes); every row has a score that overflows and one that does not, so a
    naive softmax returns NaN and 0, not NaN everywhere; and the weights are not one-hot, so a
    wrong scale is recognised here too.
    """
    rng = np.random.default_rng(2)
    q = np.hstack([np.full((4, 1), 40.0), rng.integers(-8, 9, (4, 3)) / 2])
    k = np.hstack([np.full((3, 1), 35.5), rng.integers(-8, 9, (3, 3)) / 2])
    return q, k      # q_i . k_j / sqrt(4) = 710 + (a_i . b_j) / 2


def _different_scales_case() -> tuple[np.ndarray, np.ndarray]:
    """Row maxima from below −600 to above 2700: subtracting the global maximum underflows.

    In every row the best score leads the second by more than 70 even after dividing by d_k
    (not sqrt(d_k)), so the weights are one-hot whatever the scale: scale mistakes pass here.
    """
    rng = np.random.default_rng(3)
    return 40 * rng.standard_normal((4, 16)), 40 * rng.standard_normal((4, 16))


_OVERFLOW_HINT = ("exp() of a large score overflows to inf, and inf/inf is NaN: subtract each "
                  "row's maximum before exponentiating (the softmax does not change).")
_UNDERFLOW_HINT = ("subtract each row's own maximum (axis=-1, keepdims=True), not the maximum "
                   "of the whole matrix: in a row far below the global maximum every exponential "
                   "underflows to 0, and 0/0 is NaN.")


def check_attention_weights(student: Callable[[np.ndarray, np.ndarray], Any]) -> Report:
    r"""Exercise: ``attention_weights(q, k)`` = softmax over keys of :math:`QK^\top/\sqrt{d_k}`.

    Four cases: a square one (3 queries and 3 keys of length d_k = 4), a rectangular one
    (5 queries, 2 keys, d_k = 8), scores near 710 (a naive ``exp`` overflows) and rows on
    very different scales (subtracting the *global* maximum underflows). Results within 1e-6 of
    the reference pass, so float32 arithmetic is accepted.
    """
    rng = np.random.default_rng(1)
    cases = [
        ("3 queries, 3 keys, d_k=4", (rng.standard_normal((3, 4)), rng.standard_normal((3, 4)))),
        ("5 queries, 2 keys, d_k=8", (rng.standard_normal((5, 8)), rng.standard_normal((2, 8)))),
        ("scores near 710 (overflow test)", _overflow_test_case()),
        ("rows on very different scales", _different_scales_case()),
    ]

    def scaled(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        return q @ k.T / np.sqrt(q.shape[-1])

    def naive(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        e = np.exp(scaled(q, k))
        return e / e.sum(axis=-1, keepdims=True)

    def global_max(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        s = scaled(q, k)
        e = np.exp(s - s.max())
        return e / e.sum(axis=-1, keepdims=True)

    def no_keepdims(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        s = scaled(q, k)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1)              # divides column j by the sum of row j

    diagnoses = [
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T)),
                  "divide the scores by sqrt(d_k) before the softmax."),
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T / q.shape[-1])),
                  "the scale is sqrt(d_k), not d_k."),
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T / np.sqrt(k.shape[0]))),
                  "you divided by sqrt(L_k), the number of keys; d_k is the length of each "
                  "query and key vector, q.shape[-1]."),
        Diagnosis(_scale_mistake(lambda q, k: _attention.softmax(q @ k.T * np.sqrt(q.shape[-1]))),
                  "divide the scores by sqrt(d_k); you multiplied by it."),
        Diagnosis(lambda q, k: _attention.softmax(scaled(q, k), axis=0),
                  "normalise over keys (axis=-1): each row must sum to 1."),
        Diagnosis(lambda q, k: _weights_ref(q, k).T,
                  "you returned the transpose (keys × queries). In this book row i is query i "
                  "and column j is key j: the result has shape (L_q, L_k)."),
        Diagnosis(lambda q, k: _attention.softmax(k @ q.T / np.sqrt(q.shape[-1])),
                  "the scores are q @ k.T (rows: queries), not k @ q.T."),
        Diagnosis(scaled, "apply the softmax to the scaled scores."),
        Diagnosis(lambda q, k: np.log(_weights_ref(q, k)),
                  "you returned the logarithm of the weights (a log-softmax); return the "
                  "weights themselves."),
        Diagnosis(no_keepdims,
                  "keep the row sums as a column, e.sum(axis=-1, keepdims=True): without "
                  "keepdims numpy divides column j by the sum of row j."),
        Diagnosis(naive, _OVERFLOW_HINT),
        Diagnosis(global_max, _UNDERFLOW_HINT),
    ]
    report = run_checks("attention_weights", student, _weights_ref, cases, diagnoses)
    # A non-finite result that no diagnosis recognised: say what numpy's report suggests.
    text = report.text()
    unexplained = [m for m in report.messages if "contains inf or NaN" in m]
    if any("an overflow (" in m for m in unexplained) and _OVERFLOW_HINT not in text:
        report.messages.append("Hint: " + _OVERFLOW_HINT)
    elif any("an invalid operation (" in m for m in unexplained) and _UNDERFLOW_HINT not in text:
        report.messages.append("Hint: if a row's exponentials all became 0, " + _UNDERFLOW_HINT)
    return report


def _perm_ref(order: Sequence[int]) -> np.ndarray:
    n = len(order)
    p = np.zeros((n, n))
    p[np.arange(n), np.asarray(order)] = 1.0
    return p


def check_permutation_matrix(student: Callable[[Sequence[int]], Any]) -> Report:
    """Exercise: ``permutation_matrix(order)`` with ``(P @ X)[r] == X[order[r]]``.

    No case is its own inverse, so the transpose (the matrix of the inverse reordering) fails
    every case; one case passes ``order`` as a numpy array, as the chapter does.
    """
    cases = [
        ("4 tokens", ([2, 0, 3, 1],)),
        ("5 tokens: a swap and a 3-cycle", ([1, 0, 4, 2, 3],)),
        ("a 5-cycle", ([2, 3, 4, 0, 1],)),
        ("6 tokens, order as a numpy array", (np.array([3, 0, 4, 1, 5, 2]),)),
    ]
    diagnoses = [
        Diagnosis(lambda order: _perm_ref(order).T,
                  "you built the transpose, which is the matrix of the inverse reordering: "
                  "row r of P must pick token order[r], i.e. P[r, order[r]] = 1."),
        Diagnosis(lambda order: np.eye(len(order))[np.asarray(order) - 1],
                  "you shifted the positions by one: order counts from 0 like Python, so "
                  "row r has its 1 in column order[r], not order[r] - 1."),
        Diagnosis(lambda order: np.eye(len(order))[np.asarray(order) - 1].T,
                  "you shifted the positions by one and built the transpose: use "
                  "P[r, order[r]] = 1 with order as given (it counts from 0)."),
        Diagnosis(lambda order: np.eye(len(order)),
                  "you returned the identity, which leaves X unchanged: row r must pick "
                  "token order[r]."),
    ]
    return run_checks("permutation_matrix", student, _perm_ref, cases, diagnoses)
