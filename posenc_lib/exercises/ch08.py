"""Exercise checkers for chapter 8 (RoPE)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _encodings
from .. import rope as _rope
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_rope_half", "check_to_rotate_half"]


def _half_with_angles(x: np.ndarray, ang: np.ndarray) -> np.ndarray:
    """Rotate-half RoPE for given angles ``(seq, d/2)``: ``x * cos + rotate_half(x) * sin``."""
    h = x.shape[-1] // 2
    cos = np.concatenate([np.cos(ang), np.cos(ang)], axis=-1)
    sin = np.concatenate([np.sin(ang), np.sin(ang)], axis=-1)
    rotated = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    return x * cos + rotated * sin


def check_rope_half(student: Callable[..., Any]) -> Report:
    """Exercise: ``rope_half(x, positions, base)``, RoPE with the rotate-half pairing."""
    rng = np.random.default_rng(8)
    cases = [
        ("d=4, positions 0..4", (rng.standard_normal((5, 4)), np.arange(5.0), 10000.0)),
        ("d=8, positions 0..9, base 100", (rng.standard_normal((10, 8)), np.arange(10.0), 100.0)),
        ("d=16, positions 3, 17, 40", (rng.standard_normal((3, 16)), np.array([3.0, 17.0, 40.0]),
                                       10000.0)),
    ]

    def ref(x: np.ndarray, pos: np.ndarray, base: float) -> np.ndarray:
        return _rope.apply(x, pos, base, pairing="half")

    def two_i_to_i(x: np.ndarray, pos: np.ndarray, base: float) -> np.ndarray:
        d = x.shape[-1]
        theta = base ** (-np.arange(d // 2) / d)  # i instead of 2i
        return _half_with_angles(x, np.outer(pos, theta))

    def degrees(x: np.ndarray, pos: np.ndarray, base: float) -> np.ndarray:
        return _half_with_angles(x, np.deg2rad(_rope.angles(pos, x.shape[-1], base)))

    diagnoses = [
        Diagnosis(lambda x, p, b: _rope.apply(x, p, b, pairing="interleaved"),
                  "you paired adjacent coordinates (2i, 2i+1); rotate-half pairs i with i + d/2."),
        Diagnosis(lambda x, p, b: _rope.apply(x, -p, b, pairing="half"),
                  "wrong sign of the sin term: the first half gets -x2*sin, the second +x1*sin."),
        Diagnosis(degrees, "the angles pos*theta are radians: do not convert from degrees."),
        Diagnosis(two_i_to_i, "theta_i = base ** (-2i/d): the exponent uses 2i, not i."),
        Diagnosis(lambda x, p, b: _rope.apply(x, p + 1, b, pairing="half"),
                  "rotate the token at position pos by pos*theta, not (pos+1)*theta: the first "
                  "token (pos 0) is not rotated."),
        Diagnosis(lambda x, p, b: _rope.apply(x, p, b, pairing="interleaved")[
                      ..., _encodings.split_permutation(x.shape[-1])],
                  "you rotated with adjacent pairs and then permuted: rotate the half-pairs "
                  "of x itself."),
    ]
    return run_checks("rope_half", student, ref, cases, diagnoses)


def check_to_rotate_half(student: Callable[[np.ndarray], Any]) -> Report:
    """Exercise: ``to_rotate_half(x)`` reorders adjacent-pair vectors into the rotate-half layout."""
    rng = np.random.default_rng(9)
    cases = [
        ("d=4, one vector [a0, b0, a1, b1]", (np.array([10.0, 11.0, 20.0, 21.0]),)),
        ("d=8, 3 vectors", (rng.standard_normal((3, 8)),)),
        ("d=6, batch of (2, 4, 6)", (rng.standard_normal((2, 4, 6)),)),
    ]

    def ref(x: np.ndarray) -> np.ndarray:
        return x[..., _rope.pairing_permutation(x.shape[-1], "interleaved", "half")]

    diagnoses = [
        Diagnosis(lambda x: x[..., _rope.pairing_permutation(x.shape[-1], "half", "interleaved")],
                  "that is the inverse permutation (rotate-half -> adjacent). The first half of "
                  "the result must hold the first coordinates a_i = x[2i] of every pair."),
        Diagnosis(lambda x: np.concatenate([x[..., 1::2], x[..., 0::2]], axis=-1),
                  "the halves are swapped: first all a_i = x[0::2], then all b_i = x[1::2]."),
    ]
    return run_checks("to_rotate_half", student, ref, cases, diagnoses)
