"""Exercise checkers for chapter 10 (what extrapolates, measured)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import alibi as _alibi
from .. import extrapolation as _x
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_chance_band", "check_masked_accuracy", "check_reverse_positions"]


def _accuracy_cases() -> list[tuple[str, tuple[Any, ...]]]:
    rng = np.random.default_rng(10)
    # copy-back-like: 4 sequences of 12 tokens, 5 classes, no target at the first k = 3 positions
    # (their target is stored as 0, as in lab.CopyBackTask)
    logits = rng.standard_normal((4, 12, 5))
    targets = rng.integers(0, 5, size=(4, 12))
    logits[:, :, 0] += 0.8  # class 0 is a frequent guess, so masked positions look "right" often
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


def check_masked_accuracy(student: Callable[[np.ndarray, np.ndarray, np.ndarray], Any]
                          ) -> Report:
    """Exercise: ``masked_accuracy(logits, targets, mask)``, counting only masked-in positions."""

    def all_positions(z: np.ndarray, y: np.ndarray, m: np.ndarray) -> float:
        return float(np.mean(z.argmax(-1) == y))

    def masked_as_wrong(z: np.ndarray, y: np.ndarray, m: np.ndarray) -> float:
        return float(((z.argmax(-1) == y) & m).sum() / m.size)

    def per_sequence_mean(z: np.ndarray, y: np.ndarray, m: np.ndarray) -> float:
        if m.ndim < 2:
            return _x.masked_accuracy(z, y, m)
        hits = ((z.argmax(-1) == y) & m).sum(-1)
        return float(np.mean(hits / np.maximum(m.sum(-1), 1)))

    def count(z: np.ndarray, y: np.ndarray, m: np.ndarray) -> float:
        return float(((z.argmax(-1) == y) & m).sum())

    diagnoses = [
        Diagnosis(all_positions, "you averaged over every position. Positions outside the mask "
                  "have no target (their stored 0 is a placeholder): they must count neither as "
                  "right nor as wrong. Count hits only where mask is true, divide by mask.sum()."),
        Diagnosis(masked_as_wrong, "you divided by the number of all positions, so every "
                  "position without a target counts as a miss. Divide by mask.sum()."),
        Diagnosis(per_sequence_mean, "you averaged per sequence, then over sequences: a "
                  "sequence with 3 targets then weighs as much as one with 9. Pool all counted "
                  "positions first."),
        Diagnosis(count, "that is the number of hits; return the fraction (divide by mask.sum())."),
    ]
    return run_checks("masked_accuracy", student, _x.masked_accuracy, _accuracy_cases(),
                      diagnoses)


def check_chance_band(student: Callable[[int, float, float], Any]) -> Report:
    """Exercise: ``chance_band(n, p, z)`` = p ± z·sqrt(p(1-p)/n), clipped to [0, 1]."""
    cases = [
        ("order task: n = 256, p = 1/2, z = 3", (256, 0.5, 3.0)),
        ("copy-back guesser: n = 1000, p = 1/16, z = 2", (1000, 1 / 16, 2.0)),
        ("tiny test set: n = 20, p = 0.1, z = 3 (clip at 0)", (20, 0.1, 3.0)),
    ]

    def band(p: float, half: float) -> tuple[float, float]:
        return max(0.0, p - half), min(1.0, p + half)

    diagnoses = [
        Diagnosis(lambda n, p, z: band(p, z * p * (1 - p) / n),
                  "p(1-p)/n is the variance of the fraction; the band uses its square root, "
                  "the standard deviation."),
        Diagnosis(lambda n, p, z: band(p, z * math.sqrt(p * (1 - p))),
                  "the spread of a *fraction* shrinks with the number of predictions: divide "
                  "p(1-p) by n inside the square root."),
        Diagnosis(lambda n, p, z: band(p, z * math.sqrt(n * p * (1 - p))),
                  "sqrt(n p (1-p)) is the spread of the *number* right; divide it by n to get "
                  "the spread of the accuracy."),
        Diagnosis(lambda n, p, z: (p - z * math.sqrt(p * (1 - p) / n),
                                   p + z * math.sqrt(p * (1 - p) / n)),
                  "an accuracy lies in [0, 1]: clip the band there (max(0, ...), min(1, ...))."),
    ]
    return run_checks("chance_band", student, _x.chance_band, cases, diagnoses)


def check_reverse_positions(student: Callable[[np.ndarray], Any]) -> Report:
    """Exercise: ``reverse_positions(bias)`` = R B Rᵀ, the bias a reversed sequence sees."""
    rng = np.random.default_rng(11)
    cases = [
        ("a random 4x4 bias", (rng.standard_normal((4, 4)),)),
        ("a stack of 3 heads, 5x5 each", (rng.standard_normal((3, 5, 5)),)),
        ("an upper-triangular 6x6 bias", (np.triu(rng.standard_normal((6, 6))),)),
        ("bidirectional ALiBi, 2 heads", (_alibi.bias(6, _alibi.slopes(2), causal=False),)),
    ]
    diagnoses = [
        Diagnosis(lambda b: np.asarray(b)[..., ::-1, :],
                  "you reversed the queries only. Reversing the sequence moves every token, so "
                  "it reorders the keys as well: flip both of the last two axes."),
        Diagnosis(lambda b: np.asarray(b)[..., :, ::-1],
                  "you reversed the keys only; the queries move too: flip both axes."),
        Diagnosis(lambda b: np.swapaxes(np.asarray(b), -1, -2),
                  "reversal is not transposition: the entry for (i, j) comes from "
                  "(L-1-i, L-1-j), not from (j, i)."),
        Diagnosis(lambda b: np.asarray(b)[::-1, ::-1],
                  "for a stack of heads, flip the *last* two axes (b[..., ::-1, ::-1]); the "
                  "head axis must stay in order."),
    ]
    return run_checks("reverse_positions", student, _x.reverse_positions, cases, diagnoses)
