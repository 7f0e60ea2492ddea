"""Exercise checkers for chapter 3 (a single sine)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _enc
from .. import periodicity as _per
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_count_collisions", "check_sine_encoding"]


def check_sine_encoding(student: Callable[[int, int, float], Any]) -> Report:
    """Exercise: ``sine_encoding(seq_len, d, omega)`` with every entry of row ``pos`` = sin(ω·pos)."""
    cases = [("L = 4, d = 3, ω = 1", (4, 3, 1.0)), ("L = 10, d = 2, ω = 0.5", (10, 2, 0.5)),
             ("L = 50, d = 8, ω = 0.1", (50, 8, 0.1))]

    def rows(values: np.ndarray, d: int) -> np.ndarray:
        return np.repeat(values[:, None], d, axis=1)

    diagnoses = [
        Diagnosis(lambda L, d, w: rows(np.sin(w * np.arange(1, L + 1)), d),
                  "positions start at 0: the first row is sin(0) = 0."),
        Diagnosis(lambda L, d, w: rows(np.sin(np.deg2rad(w * np.arange(L))), d),
                  "np.sin works in radians; do not convert the angle from degrees."),
        Diagnosis(lambda L, d, w: rows(np.cos(w * np.arange(L)), d),
                  "this chapter's encoding is the sine, not the cosine."),
        Diagnosis(lambda L, d, w: rows(np.sin(np.arange(L, dtype=float)), d),
                  "multiply the position by omega before taking the sine."),
        Diagnosis(lambda L, d, w: rows(np.sin(np.arange(L) / w), d),
                  "omega is a frequency: multiply by it (sin(omega * pos)), do not divide."),
    ]
    return run_checks("sine_encoding", student, lambda L, d, w: _enc.single_sine(L, d, w),
                      cases, diagnoses)


def check_count_collisions(student: Callable[[np.ndarray, int], Any]) -> Report:
    """Exercise: ``count_collisions(values, decimals)`` = number of pairs p < q whose values
    are equal after rounding to ``decimals`` decimal places."""
    rng = np.random.default_rng(3)
    cases = [
        ("a hand example", (np.array([0.1234, 0.5, 0.1231, 0.49951, 0.1229]), 3)),
        ("sin(pos), pos = 0..1000, 3 decimals", (np.sin(np.arange(1001)), 3)),
        ("sin(pos), pos = 0..1000, 2 decimals", (np.sin(np.arange(1001)), 2)),
        ("200 random values, 1 decimal", (rng.uniform(-1, 1, 200), 1)),
    ]

    def ordered(values: np.ndarray, decimals: int) -> int:
        return 2 * _per.count_collisions(values, decimals)

    def with_self(values: np.ndarray, decimals: int) -> int:
        return _per.count_collisions(values, decimals) + len(values)

    def repeats(values: np.ndarray, decimals: int) -> int:
        return len(values) - len(np.unique(np.round(values, decimals)))

    diagnoses = [
        Diagnosis(ordered, "each pair is counted twice: count only p < q, not (p, q) and (q, p)."),
        Diagnosis(with_self, "a position does not collide with itself: skip p == q."),
        Diagnosis(repeats, "you counted values that repeat; count *pairs*: a value shared by m "
                           "positions gives m(m-1)/2 pairs."),
    ]
    return run_checks("count_collisions", student, _per.count_collisions, cases, diagnoses)
