"""Exercise checkers for chapter 4 (sine and cosine together).

Close-but-valid answers: float32 arithmetic and plain Python lists are *accepted* without a note
(float32 rounding is below 1e-6 on these small cases, inside the checker's tolerance). Another
real convention is *rejected* with a hint that names it: the cosine first, the concatenated
layout (all sines, then all cosines), or the textbook rotation matrix written for (cos, sin)
order — the exercises ask for the chapter's layout, sine first and interleaved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...maths import encodings as _enc
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_alternating", "check_pair_shift"]


# -- exercise 1: the alternating encoding ------------------------------------------------------
def _alternating(L: int, d: int, angle: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 even: Callable[[np.ndarray], np.ndarray] = np.sin,
                 odd: Callable[[np.ndarray], np.ndarray] = np.cos) -> np.ndarray:
    """A table with ``even(angle)`` at even dimensions and ``odd(angle)`` at odd ones, where
    ``angle(pos, dim)`` gives the argument of row ``pos`` and column ``dim``."""
    pos = np.arange(L, dtype=float)[:, None]
    dim = np.arange(d)[None, :]
    a = np.broadcast_to(angle(pos, dim), (L, d))
    return np.where(dim % 2 == 0, even(a), odd(a))


def _position(pos: np.ndarray, dim: np.ndarray) -> np.ndarray:
    return pos + 0 * dim


def check_alternating(student: Callable[[int, int], Any]) -> Report:
    """Exercise: ``alternating(seq_len, d)``: sin(pos) at even dimensions, cos(pos) at odd ones.

    Positions start at 0 and ω = 1. float32 results and lists pass; the cosine first or the
    concatenated layout are rejected with a hint naming them.
    """
    # no square case: a transposed table then fails on its shape, with a message that says so
    cases = [("L = 4, d = 3", (4, 3)), ("L = 5, d = 4", (5, 4)), ("L = 20, d = 6", (20, 6))]

    def concat(L: int, d: int) -> np.ndarray:
        pos = np.arange(L, dtype=float)[:, None]
        half = (d + 1) // 2
        return np.hstack([np.repeat(np.sin(pos), half, 1), np.repeat(np.cos(pos), d - half, 1)])

    def pair_frequency(scale: Callable[[np.ndarray], np.ndarray]) -> Callable[[int, int],
                                                                                np.ndarray]:
        return lambda L, d: _alternating(L, d, lambda p, j: p * scale(j // 2))

    diagnoses = [
        Diagnosis(lambda L, d: _alternating(L, d, _position, np.cos, np.sin),
                  "sine goes to the even dimensions (0, 2, ...), cosine to the odd ones; you put "
                  "the cosine first."),
        Diagnosis(lambda L, d: _alternating(L, d, lambda p, j: j + 0 * p),
                  "the argument of sin and cos is the position, not the dimension index: every "
                  "dimension of a row uses the same angle."),
        Diagnosis(lambda L, d: _alternating(L, d, lambda p, j: p + j),
                  "use the same angle (the position) in every dimension; do not add the "
                  "dimension index."),
        Diagnosis(lambda L, d: _alternating(L, d, lambda p, j: p + 1 + 0 * j),
                  "positions start at 0: the first row is (sin 0, cos 0, ...) = (0, 1, ...). "
                  "You counted positions from 1."),
        Diagnosis(lambda L, d: _alternating(L, d, lambda p, j: np.deg2rad(p) + 0 * j),
                  "np.sin and np.cos take radians, and the angle is the position itself "
                  "(1 radian per position): do not convert it with np.radians or np.deg2rad."),
        Diagnosis(lambda L, d: _alternating(L, d, lambda p, j: np.rad2deg(p) + 0 * j),
                  "the angle is the position itself, in radians: do not convert it to degrees."),
        Diagnosis(lambda L, d: _alternating(L, d, _position, np.sin, np.zeros_like),
                  "the odd dimensions are still zero: put cos(position) there (you forgot the "
                  "cosine)."),
        Diagnosis(lambda L, d: _alternating(L, d, _position, np.sin, np.sin),
                  "the odd dimensions hold cos(position), not sin(position)."),
        Diagnosis(lambda L, d: _alternating(L, d, _position, np.sin, lambda a: -np.cos(a)),
                  "the cosine has the wrong sign: the odd dimensions hold +cos(position)."),
        Diagnosis(lambda L, d: _alternating(L, d, _position, np.sin,
                                            lambda a: np.sqrt(1 - np.sin(a) ** 2)),
                  "cos(position) is not sqrt(1 - sin²): the square root loses the sign of the "
                  "cosine. Use np.cos."),
        Diagnosis(concat,
                  "that is the concatenated layout (all sines, then all cosines). This exercise "
                  "asks for the interleaved one: sine at dimensions 0, 2, 4, ..., cosine at "
                  "1, 3, 5, ..."),
        Diagnosis(pair_frequency(lambda i: 1.0 / (i + 1)),
                  "one frequency only (ω = 1) in this chapter: every pair uses the angle pos. "
                  "Giving pair i the angle pos/(i + 1) is chapter 5's idea."),
        Diagnosis(pair_frequency(lambda i: i + 1.0),
                  "one frequency only (ω = 1) in this chapter: every pair uses the angle pos, "
                  "not pos * (i + 1)."),
        Diagnosis(lambda L, d: _alternating(L, d, lambda p, j: p / 10000.0 ** (2 * (j // 2) / d)),
                  "that is the Transformer's schedule pos/10000^(2i/d) (chapter 6). This "
                  "chapter has one frequency only (ω = 1): every pair uses the angle pos."),
        Diagnosis(pair_frequency(lambda i: i * 1.0),
                  "one frequency only (ω = 1) in this chapter: every pair uses the angle pos, "
                  "not pos * i (pair 0 would then never move)."),
        Diagnosis(lambda L, d: np.round(_enc.alternating(L, d), 3),
                  "do not round the values: rounding to 3 decimals is only for counting "
                  "collisions."),
    ]
    return run_checks("alternating", student, lambda L, d: _enc.alternating(L, d), cases,
                      diagnoses)


# -- exercise 2: the shift matrix of one pair --------------------------------------------------
def _rotation(a: float, signs: tuple[int, int] = (1, -1)) -> np.ndarray:
    """[[cos a, s0 sin a], [s1 sin a, cos a]]: with the default signs, the chapter's R."""
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, signs[0] * s], [signs[1] * s, c]])


def check_pair_shift(student: Callable[[float, float], Any]) -> Report:
    """Exercise: ``pair_shift(k, omega)``: the 2×2 matrix with
    ``R @ [sin(ω p), cos(ω p)] == [sin(ω (p + k)), cos(ω (p + k))]`` for every p.

    float32 results and lists pass. [[cos, −sin], [sin, cos]] is R(−k) here: it is the textbook
    rotation (written for (cos, sin) order) and also the matrix for row vectors (``v @ M``), and
    it is rejected with a hint that covers every reading. Whole offsets arrive as Python ints
    (so ``np.linalg.matrix_power`` works there) and one offset is a fraction, 2.5 (as the exercise
    says): ``int(k)`` and ``matrix_power`` are told why they fail only there.
    """
    # k = 2.5: the offset need not be a whole number (int(k) would pass every other case)
    cases = [("k = 1, ω = 1", (1, 1.0)), ("k = 3, ω = 0.5", (3, 0.5)),
             ("k = -2, ω = 1", (-2, 1.0)), ("k = 10, ω = 0.01", (10, 0.01)),
             ("k = 2.5, ω = 0.3", (2.5, 0.3))]

    def ref(k: float, w: float) -> np.ndarray:
        return _enc.shift_matrix(k, [w])

    diagnoses = [
        # [[c, -s], [s, c]] is the textbook rotation, R(-k) and the transpose of R(k) (the matrix
        # for row vectors): one hint true for every reading
        Diagnosis(lambda k, w: _rotation(k * w, (-1, 1)),
                  "this matrix is the transpose of the one asked for, and equals R(-k): "
                  "multiplied onto the column (sin ωp, cos ωp) it moves k positions *back*. "
                  "Two usual routes lead to it: the familiar rotation [[cos, -sin], [sin, cos]], "
                  "which is written for (cos, sin) order, or a matrix written for a row vector, "
                  "`v @ M`. Here R multiplies the column (sin, cos) from the left, R @ v: expand "
                  "sin(a + b) = sin a cos b + cos a sin b and "
                  "cos(a + b) = cos a cos b - sin a sin b, and read off the rows."),
        Diagnosis(lambda k, w: _rotation(k),
                  "the angle is k * omega, not k."),
        Diagnosis(lambda k, w: _rotation(k / w),
                  "the angle is k * omega, not k / omega."),
        Diagnosis(lambda k, w: _rotation(w),
                  "the angle is k * omega, not omega: that is one step, and you need k steps."),
        Diagnosis(lambda k, w: _rotation(np.deg2rad(k * w)),
                  "np.sin and np.cos take radians, and k * omega already is an angle in radians: "
                  "do not convert it with np.radians or np.deg2rad."),
        Diagnosis(lambda k, w: _rotation(k * w)[::-1],
                  "the rows are swapped: the first row must give the new sine "
                  "sin(a + b) = sin a cos b + cos a sin b, the second the new cosine."),
        Diagnosis(lambda k, w: _rotation(k * w)[:, ::-1],
                  "the columns are swapped: the first column multiplies sin(ωp), the first "
                  "entry of the vector (sine first)."),
        Diagnosis(lambda k, w: _rotation(k * w, (1, 1)),
                  "check the sign of the lower-left entry: cos(a + b) = cos a cos b - sin a sin b "
                  "has a minus."),
        Diagnosis(lambda k, w: np.diag([np.cos(k * w)] * 2),
                  "the off-diagonal entries are missing: the new sine also depends on the old "
                  "cosine (sin(a + b) = sin a cos b + cos a sin b)."),
        # silent on whole offsets (where the answer is right): only k = 2.5 shows it
        Diagnosis(lambda k, w: None if k == int(k) else _rotation(int(k) * w),
                  "k may be a fraction (here 2.5): you cut it to a whole number (int, round or "
                  "floor give 2). Use k itself: the angle is k * omega."),
        Diagnosis(lambda k, w: np.eye(2) if k < 0 else None,
                  "for k = -2 you returned the identity (a loop over range(k), for example, "
                  "makes no step when k is negative). A negative k turns the point backwards, by "
                  "the angle k * omega: build the matrix from that angle directly."),
        Diagnosis(lambda k, w: None if k == int(k) else _rotation(np.ceil(k) * w),
                  "k may be a fraction (here 2.5): you rounded it up to 3. Use k itself: the "
                  "angle is k * omega."),
    ]
    report = run_checks("pair_shift", student, ref, cases, diagnoses)
    # np.linalg.matrix_power(R(1), k) or a loop over range(k): right for whole k, but the
    # fractional case raises (TypeError: exponent must be an integer, or a float in range)
    fractional = [j for j, m in enumerate(report.messages)
                  if m.startswith("k = 2.5") and "raised TypeError" in m and "integer" in m]
    if fractional:
        report.messages[fractional[0]] += (
            ". Hint: k may be a fraction (here 2.5), so a whole number of steps, "
            "np.linalg.matrix_power(R, k) or a loop over range(k), cannot reach it. Build the "
            "matrix from the angle k * omega directly.")
    # Right for every k >= 0 and wrong only for k = -2: the signs of the matrix are right and
    # the sign of k got lost (abs(k)), even though R(2) also reads as the textbook rotation there.
    negative = [m for m in report.messages if m.startswith("k = -2")]
    if report.passed == len(cases) - 1 and negative and "wrong values" in negative[0]:
        report.messages = ["k = -2, ω = 1: wrong values. Hint: every case with k >= 0 passes, "
                           "but k = -2 gives R(+2): did you take abs(k)? A negative k turns the "
                           "point backwards, and the same formula with the signed k does that."]
    return report
