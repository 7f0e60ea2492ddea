"""Exercise checkers for chapter 4 (sine and cosine together)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _enc
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_alternating", "check_pair_shift"]


def check_alternating(student: Callable[[int, int], Any]) -> Report:
    """Exercise: ``alternating(seq_len, d)``: sin(pos) at even dimensions, cos(pos) at odd ones."""
    cases = [("L = 3, d = 3", (3, 3)), ("L = 5, d = 4", (5, 4)), ("L = 20, d = 6", (20, 6))]

    def swapped(L: int, d: int) -> np.ndarray:
        out = np.empty((L, d))
        out[:, 0::2] = np.cos(np.arange(L))[:, None]
        out[:, 1::2] = np.sin(np.arange(L))[:, None]
        return out

    def by_dimension(L: int, d: int) -> np.ndarray:
        j = np.arange(d)
        row = np.where(j % 2 == 0, np.sin(j), np.cos(j))
        return np.repeat(row[None, :], L, axis=0)

    def pos_plus_dim(L: int, d: int) -> np.ndarray:
        arg = np.arange(L)[:, None] + np.arange(d)[None, :]
        return np.where(np.arange(d) % 2 == 0, np.sin(arg), np.cos(arg))

    diagnoses = [
        Diagnosis(swapped, "sine goes to the even dimensions (0, 2, ...), cosine to the odd ones."),
        Diagnosis(by_dimension, "the argument of sin and cos is the position, not the dimension "
                                "index: every dimension of a row uses the same angle."),
        Diagnosis(pos_plus_dim, "use the same angle (the position) in every dimension; do not add "
                                "the dimension index."),
    ]
    return run_checks("alternating", student, lambda L, d: _enc.alternating(L, d), cases,
                      diagnoses)


def check_pair_shift(student: Callable[[float, float], Any]) -> Report:
    """Exercise: ``pair_shift(k, omega)``: the 2×2 matrix with
    ``R @ [sin(ω p), cos(ω p)] == [sin(ω (p + k)), cos(ω (p + k))]`` for every p."""
    cases = [("k = 1, ω = 1", (1.0, 1.0)), ("k = 3, ω = 0.5", (3.0, 0.5)),
             ("k = -2, ω = 1", (-2.0, 1.0)), ("k = 10, ω = 0.01", (10.0, 0.01))]

    def ref(k: float, w: float) -> np.ndarray:
        return _enc.shift_matrix(k, [w])

    def textbook_rotation(k: float, w: float) -> np.ndarray:
        c, s = np.cos(k * w), np.sin(k * w)
        return np.array([[c, -s], [s, c]])

    diagnoses = [
        Diagnosis(textbook_rotation,
                  "close, but that is the rotation for (cos, sin) order. Here the vector is "
                  "(sin, cos): expand sin(a + b) = sin a cos b + cos a sin b and "
                  "cos(a + b) = cos a cos b - sin a sin b, and read off the matrix."),
        Diagnosis(lambda k, w: _enc.shift_matrix(k, [1.0]),
                  "the angle is k * omega, not k."),
        Diagnosis(lambda k, w: _enc.shift_matrix(-k, [w]),
                  "this moves k positions back; check the sign of the sine terms."),
    ]
    return run_checks("pair_shift", student, ref, cases, diagnoses)
