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


def check_attention_weights(student: Callable[[np.ndarray, np.ndarray], Any]) -> Report:
    r"""Exercise: ``attention_weights(q, k)`` = softmax over keys of :math:`QK^\top/\sqrt{d_k}`."""
    rng = np.random.default_rng(1)
    cases = [
        ("3 tokens, d_k=4", (rng.standard_normal((3, 4)), rng.standard_normal((3, 4)))),
        ("5 queries, 2 keys, d_k=8", (rng.standard_normal((5, 8)), rng.standard_normal((2, 8)))),
        ("large scores (overflow test)", (40 * rng.standard_normal((4, 16)),
                                          40 * rng.standard_normal((4, 16)))),
    ]

    def no_scale(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        return _attention.softmax(q @ k.T)

    def wrong_axis(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        return _attention.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=0)

    def scale_by_d(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        return _attention.softmax(q @ k.T / q.shape[-1])

    def no_softmax(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        return q @ k.T / np.sqrt(q.shape[-1])

    diagnoses = [
        Diagnosis(no_scale, "divide the scores by sqrt(d_k) before the softmax."),
        Diagnosis(scale_by_d, "the scale is sqrt(d_k), not d_k."),
        Diagnosis(wrong_axis, "normalise over keys (axis=-1): each row must sum to 1."),
        Diagnosis(no_softmax, "apply the softmax to the scaled scores."),
    ]
    report = run_checks("attention_weights", student, _weights_ref, cases, diagnoses)
    if any(m.startswith("large scores") and "inf or NaN" in m for m in report.messages):
        report.messages.append("Hint: exp() of a large score overflows; subtract each row's "
                               "maximum before exponentiating (the result is unchanged).")
    return report


def _perm_ref(order: Sequence[int]) -> np.ndarray:
    n = len(order)
    p = np.zeros((n, n))
    p[np.arange(n), np.asarray(order)] = 1.0
    return p


def check_permutation_matrix(student: Callable[[Sequence[int]], Any]) -> Report:
    """Exercise: ``permutation_matrix(order)`` with ``(P @ X)[r] == X[order[r]]``."""
    cases = [
        ("swap two tokens", ([1, 0],)),
        ("'dog bites man' -> 'man bites dog'", ([2, 1, 0],)),
        ("a 5-cycle", ([1, 2, 3, 4, 0],)),
        ("identity", ([0, 1, 2, 3],)),
    ]
    diagnoses = [
        Diagnosis(lambda order: _perm_ref(order).T,
                  "you built the transpose: row r of P must pick token order[r], i.e. "
                  "P[r, order[r]] = 1."),
    ]
    return run_checks("permutation_matrix", student, _perm_ref, cases, diagnoses)
