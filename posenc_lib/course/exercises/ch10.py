"""Exercise checkers for chapter 10 (what extrapolates, measured)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...lab import extrapolation as _x
from ...maths import alibi as _alibi
from ._core import Diagnosis, Report, run_checks, unambiguous

__all__ = ["check_chance_band", "check_masked_accuracy", "check_reverse_positions"]


def _accuracy_cases() -> list[tuple[str, tuple[Any, ...]]]:
    rng = np.random.default_rng(10)
    # copy-back-like: 4 sequences of 12 tokens, 5 classes, no target at the first k = 3 positions
    # (their target is stored as 0, as in lab.CopyBackTask)
    logits = rng.standard_normal((4, 12, 5))
    targets = rng.integers(0, 5, size=(4, 12))
    logits[:, :, 0] += 0.7  # class 0 is a frequent guess, so masked positions look "right" often
    targets[:, :3] = 0
    mask = np.ones((4, 12), dtype=bool)
    mask[:, :3] = False
    # a mask with a different number of targets per sequence
    logits2 = rng.standard_normal((3, 10, 4))
    targets2 = rng.integers(0, 4, size=(3, 10))
    mask2 = np.zeros((3, 10), dtype=bool)
    mask2[0, :9] = True
    mask2[1, 7:] = True
    mask2[2, ::2] = True
    targets2[~mask2] = 0
    # one label per sequence (the order task): every prediction counts
    logits3 = rng.standard_normal((16, 2))
    targets3 = rng.integers(0, 2, size=16)
    return [
        ("copy-back batch, first 3 positions without a target",
         (logits, targets, mask)),
        ("different numbers of targets per sequence", (logits2, targets2, mask2)),
        ("one label per sequence, all counted",
         (logits3, targets3, np.ones(16, dtype=bool))),
    ]


def _hits(z: np.ndarray, y: np.ndarray, m: np.ndarray) -> np.ndarray:
    return (np.argmax(z, axis=-1) == y) & m


def check_masked_accuracy(student: Callable[[np.ndarray, np.ndarray, np.ndarray], Any]
                          ) -> Report:
    """Exercise: ``masked_accuracy(logits, targets, mask)``, counting only masked-in positions.

    A float32 or numpy scalar result is fine; a percentage, an error rate or a count is not.
    """

    def per_sequence_mean(z: np.ndarray, y: np.ndarray, m: np.ndarray) -> float:
        if m.ndim < 2:
            return _x.masked_accuracy(z, y, m)
        return float(np.mean(_hits(z, y, m).sum(-1) / np.maximum(m.sum(-1), 1)))

    def unmasked(z: np.ndarray, y: np.ndarray, m: np.ndarray) -> float | None:
        if not (~m).any():
            return None  # nothing outside the mask: this mistake cannot show
        return float(((np.argmax(z, -1) == y) & ~m).sum() / (~m).sum())

    diagnoses = [
        Diagnosis(lambda z, y, m: float(np.mean(np.argmax(z, -1) == y)),
                  "you averaged over every position. Positions outside the mask have no target "
                  "(their stored 0 is a placeholder): they must count neither as right nor as "
                  "wrong. Count hits only where mask is true, divide by `mask.sum()`."),
        Diagnosis(lambda z, y, m: float(_hits(z, y, m).sum() / m.size),
                  "you divided by the number of all positions, so every position without a "
                  "target counts as a miss. Divide by `mask.sum()`."),
        Diagnosis(per_sequence_mean,
                  "you averaged per sequence, then over sequences: a sequence with 3 targets then "
                  "weighs as much as one with 9. Pool all counted positions first."),
        Diagnosis(lambda z, y, m: float(_hits(z, y, m).sum()),
                  "that is the number of hits; return the fraction (divide by `mask.sum()`)."),
        Diagnosis(lambda z, y, m: float(((np.argmin(z, -1) == y) & m).sum() / m.sum()),
                  "the prediction is the class with the largest logit: `argmax`, not `argmin`."),
        Diagnosis(unmasked,
                  "you counted the positions where mask is false: those are exactly the ones "
                  "without a target. Keep the positions where mask is true."),
        Diagnosis(lambda z, y, m: 100.0 * _x.masked_accuracy(z, y, m),
                  "that is a percentage; return a fraction between 0 and 1."),
        Diagnosis(lambda z, y, m: 1.0 - _x.masked_accuracy(z, y, m),
                  "that is the error rate (the share of wrong predictions); return the share of "
                  "right ones."),
        Diagnosis(lambda z, y, m: float((np.argmax(z, -1) == y).sum() / m.sum()),
                  "you counted the hits at every position but divided by the number of targets: "
                  "the mask belongs in the count too. Count only the hits where mask is true, "
                  "`((argmax == targets) & mask).sum()`."),
        Diagnosis(lambda z, y, m: float(((np.argmax(z, -1) == y) | ~m).mean()),
                  "the positions without a target counted as right. They must count neither as "
                  "right nor as wrong: leave them out of both the count and the division."),
        Diagnosis(lambda z, y, m: (float(_hits(z, y, m).sum() / len(m)) if m.ndim > 1
                                   else None),
                  "`len(mask)` is the number of sequences (the first axis), not the number of "
                  "targets: divide by `mask.sum()`."),
    ]
    # a 0 has several causes: name them all rather than guess one
    zero = Diagnosis(lambda z, y, m: 0.0,
                     "you returned 0, but some predictions are right. Two usual causes: integer "
                     "division (`//` rounds the fraction down to 0; divide with `/`), or an "
                     "`argmax` without `axis=-1`, which returns one index for the whole array "
                     "instead of one predicted class per position.")
    return run_checks("masked_accuracy", student, _x.masked_accuracy, _accuracy_cases(),
                      unambiguous(diagnoses, general=[zero]))


# --------------------------------------------------------------------------------------------
# Exercise 2: the chance band
# --------------------------------------------------------------------------------------------


def _band(p: float, half: float, low: bool = True, high: bool = True) -> tuple[float, float]:
    return (max(0.0, p - half) if low else p - half), (min(1.0, p + half) if high else p + half)


def _sigma(n: int, p: float) -> float:
    return math.sqrt(p * (1 - p) / n)


def check_chance_band(student: Callable[[int, float, float], Any]) -> Report:
    """Exercise: ``chance_band(n, p, z)`` = p ± z·sqrt(p(1-p)/n), clipped to [0, 1].

    A tuple, a list or a numpy array of the two numbers is fine.
    """
    cases = [
        ("order task: n = 256, p = 1/2, z = 3", (256, 0.5, 3.0)),
        ("copy-back guesser: n = 1000, p = 1/16, z = 2", (1000, 1 / 16, 2.0)),
        ("tiny test set: n = 20, p = 0.1, z = 3 (clip at 0)", (20, 0.1, 3.0)),
        ("tiny test set: n = 20, p = 0.9, z = 3 (clip at 1)", (20, 0.9, 3.0)),
    ]
    diagnoses = [
        Diagnosis(lambda n, p, z: _band(p, z * p * (1 - p) / n),
                  "p(1-p)/n is the variance of the fraction; the band uses its square root, "
                  "the standard deviation."),
        Diagnosis(lambda n, p, z: _band(p, z * math.sqrt(p * (1 - p))),
                  "the spread of a fraction shrinks with the number of predictions: divide "
                  "p(1-p) by n inside the square root."),
        Diagnosis(lambda n, p, z: _band(p, z * math.sqrt(n * p * (1 - p))),
                  "sqrt(n p (1-p)) is the spread of the number of right answers; the spread of "
                  "the accuracy (a fraction) is `sqrt(p(1-p)/n)`."),
        Diagnosis(lambda n, p, z: _band(p, z * math.sqrt(p * (1 - p)) / n),
                  "n belongs inside the square root: `sqrt(p(1-p)/n)`, not `sqrt(p(1-p))/n`."),
        Diagnosis(lambda n, p, z: _band(p, z * math.sqrt(p * (1 - p) / (n - 1))),
                  "divide by n, not n - 1: the guesser's p is known, nothing is estimated from "
                  "the sample."),
        Diagnosis(lambda n, p, z: _band(p, z * _sigma(n, p), high=False),
                  "the upper end is above 1, and an accuracy cannot exceed 1: clip it with "
                  "`min(1, p + z*sigma)`."),
        Diagnosis(lambda n, p, z: _band(p, z * _sigma(n, p), low=False),
                  "the lower end is below 0, and an accuracy cannot be negative: clip it with "
                  "`max(0, p - z*sigma)`."),
        Diagnosis(lambda n, p, z: (min(0.0, p - z * _sigma(n, p)), max(1.0, p + z * _sigma(n, p))),
                  "min and max are swapped in the clipping: the lower end is "
                  "`max(0, p - z*sigma)`, the upper end `min(1, p + z*sigma)`."),
        Diagnosis(lambda n, p, z: _band(p, z * _sigma(n, p))[::-1],
                  "return (low, high) in this order."),
        Diagnosis(lambda n, p, z: _band(p, 3.0 * _sigma(n, p)),
                  "use the z you are given; a fixed z (3, 1.96, ...) is right only by chance."),
        Diagnosis(lambda n, p, z: _band(p, 1.96 * _sigma(n, p)),
                  "use the z you are given; a fixed z (3, 1.96, ...) is right only by chance."),
        Diagnosis(lambda n, p, z: _band(p, z * _sigma(n, 0.5)) if p != 0.5 else None,
                  "use the p you are given: sqrt(0.5·0.5/n) is the spread of a coin flip only. "
                  "A guesser with p = 1/16 has a narrower band, sqrt(p(1-p)/n)."),
        Diagnosis(lambda n, p, z: tuple(100 * e for e in _band(p, z * _sigma(n, p))),
                  "those are percentages; return fractions between 0 and 1."),
        Diagnosis(lambda n, p, z: tuple(n * e for e in _band(p, z * _sigma(n, p))),
                  "those are numbers of right answers out of n; return the accuracy band, "
                  "fractions between 0 and 1 (divide by n)."),
    ]
    whole = Diagnosis(lambda n, p, z: (0.0, 1.0),
                      "your band is the whole range [0, 1], far too wide: the spread of the "
                      "accuracy is `sqrt(p(1-p)/n)` (not `sqrt(p(1-p))`, and not "
                      "`sqrt(n p (1-p))`, the spread of the number of right answers); or min and "
                      "max are swapped in the clipping.")
    return run_checks("chance_band", student, _x.chance_band, cases,
                      unambiguous(diagnoses, general=[whole]))


# --------------------------------------------------------------------------------------------
# Exercise 3: the bias a reversed sequence sees
# --------------------------------------------------------------------------------------------


def _last_two(b: Any) -> np.ndarray:
    a = np.asarray(b)
    if a.ndim < 2:
        raise ValueError("not a matrix")
    return a


def check_reverse_positions(student: Callable[[np.ndarray], Any]) -> Report:
    """Exercise: ``reverse_positions(bias)`` = R B Rᵀ, the bias a reversed sequence sees.

    A float32 result or a nested list is fine.
    """
    rng = np.random.default_rng(11)
    cases = [
        ("a random 4x4 bias", (rng.standard_normal((4, 4)),)),
        ("a stack of 3 heads, 5x5 each", (rng.standard_normal((3, 5, 5)),)),
        ("an upper-triangular 6x6 bias", (np.triu(rng.standard_normal((6, 6))),)),
        ("bidirectional ALiBi, 2 heads", (_alibi.bias(6, _alibi.slopes(2), causal=False),)),
    ]
    diagnoses = [
        Diagnosis(lambda b: _last_two(b)[..., ::-1, :],
                  "you reversed the queries (rows) only. Reversing the sequence moves every "
                  "token, so it reorders the keys (columns) as well: flip both of the last two "
                  "axes."),
        Diagnosis(lambda b: _last_two(b)[..., :, ::-1],
                  "you reversed the keys (columns) only; the queries (rows) move too: flip both "
                  "of the last two axes."),
        Diagnosis(lambda b: np.swapaxes(_last_two(b), -1, -2),
                  "reversal is not transposition: the entry for (i, j) comes from "
                  "(L-1-i, L-1-j), not from (j, i). The two agree only for a bias that depends "
                  "on i - j alone; the test cases include a general matrix."),
        Diagnosis(lambda b: np.swapaxes(_last_two(b)[..., ::-1, ::-1], -1, -2),
                  "you flipped both axes and then also transposed: drop the transposition."),
        Diagnosis(lambda b: np.rot90(_last_two(b), 1, axes=(-2, -1)),
                  "`np.rot90(b, 1, ...)` turns the matrix by a quarter turn; reversing both axes "
                  "is a half turn."),
        Diagnosis(lambda b: _last_two(b)[::-1, ::-1],
                  "for a stack of heads, flip the last two axes (`b[..., ::-1, ::-1]`); "
                  "`b[::-1, ::-1]` flips the head axis and the query axis."),
        Diagnosis(lambda b: np.flip(_last_two(b)) if np.ndim(b) > 2 else None,
                  "`np.flip(b)` without `axis` flips every axis, including the head axis of a "
                  "stack: use `np.flip(b, axis=(-2, -1))`."),
        Diagnosis(lambda b: _last_two(b)[::-1] if np.ndim(b) > 2 else None,
                  "you flipped the head axis (the first axis of a stack): the heads keep their "
                  "order; flip the last two axes instead."),
        Diagnosis(lambda b: _last_two(b),
                  "you returned the bias unchanged. A relative bias depends on i - j, and "
                  "reversal turns i - j into j - i: it is unchanged only when the bias is "
                  "symmetric, like bidirectional ALiBi. In general entry (i, j) of the result is "
                  "entry (L-1-i, L-1-j) of the bias."),
    ]

    def one_axis(b: Any) -> np.ndarray | None:
        rows, cols = _last_two(b)[..., ::-1, :], _last_two(b)[..., :, ::-1]
        return rows if np.allclose(rows, cols) else None  # a symmetric bias: which one is moot

    general = [Diagnosis(one_axis, "you reversed only one of the two axes (or turned the matrix "
                         "by a quarter turn): reversing the sequence moves the queries (rows) and "
                         "the keys (columns), so flip both of the last two axes.")]
    return run_checks("reverse_positions", student, _x.reverse_positions, cases,
                      unambiguous(diagnoses, general))
