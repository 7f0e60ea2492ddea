"""Exercise checkers for chapter 2 (adding the integer position)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _enc
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_norm_ratio", "check_normalized_positions"]


def _normalized_ref(seq_len: int) -> np.ndarray:
    return _enc.normalized_integer(seq_len, 1)[:, 0]


def check_normalized_positions(student: Callable[[int], Any]) -> Report:
    """Exercise: ``normalized_positions(seq_len)`` = ``[0, 1/(L-1), ..., 1]`` (``[0.]`` for L = 1)."""
    cases = [("L = 5", (5,)), ("L = 2", (2,)), ("L = 500", (500,)), ("L = 1 (one token)", (1,))]
    diagnoses = [
        Diagnosis(lambda L: np.arange(L) / L,
                  "divide by L - 1, not L: the last position L - 1 must map to exactly 1."),
        Diagnosis(lambda L: np.arange(1, L + 1) / L,
                  "positions start at 0 in this book, so the first token gets 0."),
        Diagnosis(lambda L: np.arange(L, dtype=float),
                  "you returned the raw positions; divide them by L - 1."),
    ]
    report = run_checks("normalized_positions", student, _normalized_ref, cases, diagnoses)
    if any(m.startswith("L = 1") for m in report.messages):
        report.messages.append("Hint: a one-token sentence has L - 1 = 0; return [0.0] instead "
                               "of dividing by zero.")
    return report


def _ratio_ref(words: np.ndarray, pe: np.ndarray) -> np.ndarray:
    return np.linalg.norm(pe, axis=1) / np.linalg.norm(words, axis=1)


def check_norm_ratio(student: Callable[[np.ndarray, np.ndarray], Any]) -> Report:
    """Exercise: ``norm_ratio(words, pe)`` = ‖pe[t]‖ / ‖words[t]‖ for every token ``t``."""
    rng = np.random.default_rng(2)
    cases = [
        ("5 tokens, d = 3, integer encoding", (rng.standard_normal((5, 3)) / 2,
                                               _enc.integer(5, 3))),
        ("7 tokens, d = 16, integer encoding", (rng.standard_normal((7, 16)) / 4,
                                                _enc.integer(7, 16))),
        ("4 tokens, d = 6, random encoding", (rng.standard_normal((4, 6)),
                                              rng.standard_normal((4, 6)))),
    ]
    diagnoses = [
        Diagnosis(lambda w, p: np.linalg.norm(w, axis=1) / np.linalg.norm(p, axis=1),
                  "the ratio is upside down: position part on top, word on the bottom."),
        Diagnosis(lambda w, p: np.sum(p ** 2, axis=1) / np.sum(w ** 2, axis=1),
                  "take square roots: the norm is sqrt(sum of squares)."),
        Diagnosis(lambda w, p: np.sum(np.abs(p), axis=1) / np.sum(np.abs(w), axis=1),
                  "use the Euclidean norm (np.linalg.norm(..., axis=1)), not the sum of "
                  "absolute values."),
    ]
    with np.errstate(divide="ignore", invalid="ignore"):
        return run_checks("norm_ratio", student, _ratio_ref, cases, diagnoses)
