"""Exercise checkers for chapter 3 (a single sine)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from ...maths import encodings as _enc
from ...maths import periodicity as _per
from ._core import Diagnosis, Report, call_student, close, run_checks

__all__ = ["check_count_collisions", "check_sine_encoding"]


def check_sine_encoding(student: Callable[[int, int, float], Any]) -> Report:
    """Exercise: ``sine_encoding(seq_len, d, omega)`` with every entry of row ``pos`` = sin(ω·pos).

    Float32 results pass (they agree with float64 to well within the 1e-6 tolerance).
    """
    cases = [("seq_len = 4, d = 3, ω = 1", (4, 3, 1.0)),
             # ω = 0.3, not 0.5: 2ω = 1 would make sin(2ω·pos) look like a forgotten ω
             ("seq_len = 10, d = 2, ω = 0.3", (10, 2, 0.3)),
             ("seq_len = 50, d = 8, ω = 0.1", (50, 8, 0.1))]

    def rows(values: np.ndarray, d: int) -> np.ndarray:
        return np.repeat(values[:, None], d, axis=1)

    def dimension_angle(L: int, d: int, w: float) -> np.ndarray:
        return np.tile(np.sin(w * np.arange(d)), (L, 1))

    def position_plus_dimension(L: int, d: int, w: float) -> np.ndarray:
        return np.sin(w * (np.arange(L)[:, None] + np.arange(d)[None, :]))

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
        Diagnosis(lambda L, d, w: rows(np.sin(2 * w * np.arange(L)), d),
                  "you doubled the angle: this chapter's encoding is sin(omega * pos), with no "
                  "factor 2 (the 2i of chapter 5 is an index of dimensions, not part of the "
                  "angle)."),
        Diagnosis(lambda L, d, w: rows(np.sin(2 * np.pi * w * np.arange(L)), d),
                  "omega is already in radians per position: sin(omega * pos), no factor 2π."),
        Diagnosis(dimension_angle,
                  "the angle is the token's position, not the dimension index: every entry of "
                  "row pos is sin(omega * pos)."),
        Diagnosis(position_plus_dimension,
                  "use the position alone as the angle: all d dimensions of one token get the "
                  "same value sin(omega * pos); do not add the dimension index."),
        Diagnosis(lambda L, d, w: rows(np.sin(w * np.arange(L)), d).T,
                  "rows are positions and columns are dimensions: you returned the transpose, "
                  "shape (d, seq_len)."),
        Diagnosis(lambda L, d, w: np.sin(w * np.arange(L)),
                  "return one row per position with d columns: repeat sin(omega * pos) in "
                  "every dimension (np.repeat or np.tile)."),
    ]
    return run_checks("sine_encoding", student, lambda L, d, w: _enc.single_sine(L, d, w),
                      cases, diagnoses)


# The hand example separates the usual mistakes: a group of three equal rounded values (3 pairs),
# 0.5 / 0.49951 (equal after rounding), 0.7004 / 0.7006 (0.0002 apart but rounded to 0.700 and
# 0.701: a tolerance counts them, rounding does not), -0.0001 / 0.0001 / 0.0002 (all round to
# zero, one of them to -0.0) and three values near -0.65. Correct: 10 pairs; ordered pairs 20;
# with p == q 23; whole matrix 33; repeats 7; positions involved 11; tolerance 9; truncation 6;
# floor 4; -0.0 kept apart from 0.0 (string keys) 8.
_HAND = np.array([0.1234, 0.5, 0.7004, -0.6502, 0.1231, 0.0001, 0.49951, -0.6498, 0.7006,
                  0.1228, -0.0001, -0.6504, 0.0002])


def check_count_collisions(student: Callable[[np.ndarray, int], Any]) -> Report:
    """Exercise: ``count_collisions(values, decimals)`` = number of pairs p < q whose values
    are equal after rounding to ``decimals`` decimal places (``np.round``, not a tolerance)."""
    rng = np.random.default_rng(3)
    cases = [
        ("a hand example, 3 decimals", (_HAND.copy(), 3)),
        ("sin(pos), pos = 0..1000, 3 decimals", (np.sin(np.arange(1001)), 3)),
        ("sin(pos), pos = 0..1000, 2 decimals", (np.sin(np.arange(1001)), 2)),
        ("200 random values, 1 decimal", (rng.uniform(-1, 1, 200), 1)),
    ]

    def groups(values: np.ndarray, decimals: int) -> np.ndarray:
        _, counts = np.unique(np.round(values, decimals) + 0.0, return_counts=True)
        return counts

    def ordered(values: np.ndarray, decimals: int) -> int:
        return 2 * _per.count_collisions(values, decimals)

    def with_self(values: np.ndarray, decimals: int) -> int:
        return _per.count_collisions(values, decimals) + len(values)

    def whole_matrix(values: np.ndarray, decimals: int) -> int:
        return 2 * _per.count_collisions(values, decimals) + len(values)

    def repeats(values: np.ndarray, decimals: int) -> int:
        return len(values) - len(groups(values, decimals))

    def involved(values: np.ndarray, decimals: int) -> int:
        counts = groups(values, decimals)
        return int(counts[counts > 1].sum())

    def tolerance(values: np.ndarray, decimals: int) -> int:
        return len(_per.close_pairs(values, 0.5 * 10.0 ** -decimals))

    def truncated(values: np.ndarray, decimals: int) -> int:
        scale = 10.0 ** decimals
        return _per.count_collisions(np.trunc(values * scale) / scale, decimals)

    def floored(values: np.ndarray, decimals: int) -> int:
        scale = 10.0 ** decimals
        return _per.count_collisions(np.floor(values * scale) / scale, decimals)

    def signed_zero(values: np.ndarray, decimals: int) -> int:
        """Rounded values grouped with -0.0 apart from 0.0 (as string keys f"{x:.3f}" do)."""
        r = np.round(values, decimals)
        keys = list(zip(r.tolist(), np.signbit(r).tolist(), strict=True))
        counts = np.unique(np.array(keys, dtype=float), axis=0, return_counts=True)[1]
        return int((counts * (counts - 1) // 2).sum())

    def ceiled(values: np.ndarray, decimals: int) -> int:
        scale = 10.0 ** decimals
        return _per.count_collisions(np.ceil(values * scale) / scale, decimals)

    def full_unit(values: np.ndarray, decimals: int) -> int:
        return len(_per.close_pairs(values, 10.0 ** -decimals))

    def coarser(values: np.ndarray, decimals: int) -> int | None:
        return _per.count_collisions(values, decimals - 1) if decimals > 0 else None

    def fixed_three(values: np.ndarray, decimals: int) -> int:
        return _per.count_collisions(values, 3)

    group_rule = "a value shared by n positions gives n(n - 1)/2 pairs."
    diagnoses = [
        Diagnosis(ordered, "each pair is counted twice: count only p < q, not (p, q) and (q, p)."),
        Diagnosis(with_self, "a position does not collide with itself: skip p == q."),
        Diagnosis(whole_matrix, "you counted the whole equality matrix, every pair twice and "
                                "each position with itself: count only p < q."),
        Diagnosis(tolerance, "you compared with a tolerance (|a - b| <= half a unit of the last "
                             "decimal). This exercise asks for equality after "
                             "np.round(values, decimals), which has boundaries: 0.7004 and "
                             "0.7006 round to 0.700 and 0.701."),
        Diagnosis(repeats, "you counted values that repeat; count pairs instead: " + group_rule),
        Diagnosis(involved, "you counted the positions that have a double; count pairs "
                            "instead: " + group_rule),
        Diagnosis(truncated, "you truncated the values (int() or np.trunc); round them to the "
                             "nearest with np.round(values, decimals)."),
        Diagnosis(floored, "you rounded down (np.floor); round to the nearest with "
                           "np.round(values, decimals)."),
        Diagnosis(ceiled, "you rounded up (np.ceil); round to the nearest with "
                          "np.round(values, decimals)."),
        Diagnosis(full_unit, "you compared with a tolerance of one unit of the last decimal "
                             "(|a - b| <= 10**-decimals). This exercise asks for equality after "
                             "np.round(values, decimals)."),
        Diagnosis(coarser, "you rounded to one decimal fewer than asked: use "
                           "np.round(values, decimals) with the decimals argument itself."),
        Diagnosis(signed_zero, "you kept -0.000 and 0.000 apart (a string key such as "
                               "f'{x:.3f}' does, or np.signbit). They are the same value: "
                               "compare the rounded numbers themselves."),
        Diagnosis(fixed_three, "use the decimals argument instead of a fixed 3 decimals."),
        Diagnosis(lambda values, decimals: _per.collision_pairs(values, decimals),
                  "you returned the pairs themselves; return how many there are (a number)."),
    ]
    report = run_checks("count_collisions", student, _per.count_collisions, cases, diagnoses)
    # one number wrapped in a list or an array ([n], np.array([n])): say so, and whether the
    # number inside is right, instead of "expected shape (), got (1,)"
    for j, message in enumerate(report.messages):
        name = next((n for n, _ in cases if message.startswith(f"{n}: expected shape (), got")),
                    None)
        if name is None:
            continue
        args = dict(cases)[name]
        status, got = call_student(student, copy.deepcopy(args))
        if status != "ok" or np.size(got) != 1:
            continue
        right = close(np.asarray(got, dtype=float).ravel()[0], _per.count_collisions(*args))
        inside = " (the number inside is right)." if right else "."
        if any("one number inside a list" in m for m in report.messages[:j]):
            report.messages[j] = f"{name}: again one number inside a list or array" + inside
            continue
        report.messages[j] = (
            f"{name}: your function returned one number inside a list or array (shape "
            f"{np.shape(got)}); return the number itself, for example `return int(total)` "
            "instead of `return [total]`" + inside)
    return report
