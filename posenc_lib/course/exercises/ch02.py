"""Exercise checkers for chapter 2 (adding the integer position).

Close-but-valid answers: ``np.linspace(0, 1, L)``, Python lists and float32 arrays agree with the
reference to within the checkers' tolerance (1e-6) and simply pass; so does the RMS ratio
(both norms divided by √d) in :func:`check_norm_ratio`, which is the same number. float16 results
(about 3 significant digits) are too coarse: they fail, with a hint that names float16.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...maths import encodings as _enc
from ._core import Diagnosis, Report, run_checks

_FLOAT16 = ("your result is float16, which keeps only about 3 significant digits: compute in "
            "float64 (numpy's default) or float32.")


def _checked(title: str, student: Callable[..., Any], *args: Any, **kwargs: Any) -> Report:
    """:func:`run_checks`, plus a float16 hint when the learner's results were float16."""
    if not callable(student):
        return run_checks(title, student, *args, **kwargs)     # its friendly TypeError
    dtypes: set[str] = set()

    def recording(*call_args: Any) -> Any:
        out = student(*call_args)
        try:
            dtypes.add(np.dtype(out.dtype).name)
        except Exception:  # no dtype, or an odd one: nothing to record
            pass
        return out

    report = run_checks(title, recording, *args, **kwargs)
    if not report.ok and "float16" in dtypes:
        report.messages.append("Hint: " + _FLOAT16)
    return report

__all__ = ["check_norm_ratio", "check_normalized_positions"]


def _normalized_ref(seq_len: int) -> np.ndarray:
    return _enc.normalized_integer(seq_len, 1)[:, 0]


def _unless_one(seq_len: int, wrong_for_one: Any) -> Any:
    """The right answer except for a one-token sentence, where ``wrong_for_one`` is returned."""
    return wrong_for_one if seq_len == 1 else _normalized_ref(seq_len)


_ONE_TOKEN_DIV0 = ("a one-token sentence has L - 1 = 0: treat L = 1 on its own and return "
                   "[0.0] instead of dividing by zero.")


def check_normalized_positions(student: Callable[[int], Any]) -> Report:
    """Exercise: ``normalized_positions(seq_len)`` = ``[0, 1/(L-1), ..., 1]`` (``[0.]`` for L = 1).

    Cases L = 5, 2, 500 and 1. Raw positions agree with the answer for L = 2 and L = 1, so L = 5
    and L = 500 are there to catch them; L = 1 catches a missing guard against 0/0 (its hint is
    given whenever only the one-token case divides by zero or holds inf/NaN); L = 500 catches
    float16 results.
    """
    cases = [("L = 5", (5,)), ("L = 2", (2,)), ("L = 500", (500,)), ("L = 1 (one token)", (1,))]
    diagnoses = [
        Diagnosis(lambda L: np.arange(L) / L,
                  "divide by L - 1, not L: the last position L - 1 must map to exactly 1."),
        Diagnosis(lambda L: np.arange(1, L + 1) / L if L > 1 else None,   # L = 1: see below
                  "positions start at 0 in this book (np.arange(L)), so the first token gets 0 "
                  "and the last, L - 1, gets 1."),
        Diagnosis(lambda L: np.arange(1, L + 1) / (L - 1) if L > 1 else None,  # L = 1: 0/0 hint
                  "your positions run from 1 to L: start at 0 (np.arange(L)), so the first "
                  "token gets 0 and the last, L - 1, gets exactly 1."),
        Diagnosis(lambda L: np.arange(L, dtype=float),
                  "you returned the raw positions; divide them by L - 1."),
        Diagnosis(lambda L: np.arange(L)[::-1] / max(L - 1, 1),
                  "the values are reversed: the first token (position 0) gets 0, the last gets 1."),
        Diagnosis(lambda L: np.arange(L) // max(L - 1, 1),
                  "every value but the last came out 0: integers, not fractions. Use true "
                  "division `/`, not integer division `//`, and keep the result as floats (no "
                  ".astype(int), no int array filled in a loop)."),
        Diagnosis(lambda L: _unless_one(L, np.ones(1)),
                  "the only token of a one-token sentence is at position 0, so it gets 0: "
                  "return [0.0]."),
        Diagnosis(lambda L: _unless_one(L, 0.0),
                  "for L = 1 return an array holding one number, [0.0], not a bare number."),
    ]
    report = _checked("normalized_positions", student, _normalized_ref, cases, diagnoses)
    one = [m for m in report.messages if m.startswith("L = 1")]
    others = [m for m in report.messages if not m.startswith("L = 1")]

    def broken(m: str) -> bool:  # a division by zero, or a result holding inf or NaN
        return "ZeroDivisionError" in m or "inf or NaN" in m

    # only the one-token case divides by zero (or gives inf/NaN): the guard for L = 1 is missing
    if any(broken(m) for m in one) and not any(broken(m) for m in others):
        report.messages.append("Hint: " + _ONE_TOKEN_DIV0)
    return report


def _ratio_ref(emb: np.ndarray, pe: np.ndarray) -> np.ndarray:
    return np.linalg.norm(pe, axis=1) / np.linalg.norm(emb, axis=1)


_PER_TOKEN = ("compute one ratio per token: the norm of each row (np.linalg.norm(..., axis=1)), "
              "not one number for the whole matrix.")


def check_norm_ratio(student: Callable[[np.ndarray, np.ndarray], Any]) -> Report:
    """Exercise: ``norm_ratio(emb, pe)`` = ‖pe[t]‖ / ‖emb[t]‖ for every token ``t``.

    The random case comes first: its position parts are never zero, so an upside-down ratio gives
    finite numbers there and gets its hint before the integer cases (row 0 is all zeros).
    """
    rng = np.random.default_rng(2)
    w1, w2, w3 = (rng.standard_normal((5, 3)) / 2, rng.standard_normal((7, 16)) / 4,
                  rng.standard_normal((4, 6)))
    p3 = rng.standard_normal((4, 6))
    cases = [
        ("4 tokens, d = 6, random encoding", (w3, p3)),
        ("5 tokens, d = 3, integer encoding", (w1, _enc.integer(5, 3))),
        ("7 tokens, d = 16, integer encoding", (w2, _enc.integer(7, 16))),
    ]
    diagnoses = [
        Diagnosis(lambda w, p: np.linalg.norm(w, axis=1) / np.linalg.norm(p, axis=1),
                  "the ratio is upside down: position part on top, word on the bottom."),
        Diagnosis(lambda w, p: np.sum(p ** 2, axis=1) / np.sum(w ** 2, axis=1),
                  "take square roots: the norm is sqrt(sum of squares)."),
        Diagnosis(lambda w, p: np.sum(np.abs(p), axis=1) / np.sum(np.abs(w), axis=1),
                  "use the Euclidean norm (np.linalg.norm(..., axis=1)), not the sum of "
                  "absolute values."),
        Diagnosis(lambda w, p: np.linalg.norm(p, axis=0) / np.linalg.norm(w, axis=0),
                  "you took the norm of each column (axis=0, one per dimension); each token is "
                  "a row, so use axis=1."),
        Diagnosis(lambda w, p: np.linalg.norm(p) / np.linalg.norm(w), _PER_TOKEN),
        Diagnosis(lambda w, p: np.full(len(w), np.linalg.norm(p) / np.linalg.norm(w)),
                  _PER_TOKEN),
        Diagnosis(lambda w, p: np.linalg.norm(w + p, axis=1) / np.linalg.norm(w, axis=1),
                  "compare the position part alone with the word: ‖pe[t]‖, not the norm of "
                  "the sum ‖emb[t] + pe[t]‖."),
        Diagnosis(lambda w, p: np.linalg.norm(p / w, axis=1),
                  "divide the two norms, not the coordinates: ‖pe[t]‖ / ‖emb[t]‖."),
        Diagnosis(lambda w, p: np.linalg.norm(p, axis=1) / np.linalg.norm(w, axis=1).mean(),
                  "you divided by the average word norm (one number for all tokens); divide "
                  "each token's position norm by that same token's word norm, "
                  "‖pe[t]‖ / ‖emb[t]‖."),
        Diagnosis(lambda w, p: p[:, 0] * np.sqrt(p.shape[1]) / np.linalg.norm(w, axis=1),
                  "pe[t, 0] * sqrt(d) is the norm only when every coordinate of the row is the "
                  "same (the integer encoding); compute the norm itself, "
                  "np.linalg.norm(pe, axis=1)."),
        Diagnosis(lambda w, p: (np.linalg.norm(p, axis=1) / np.linalg.norm(w, axis=1))[:, None],
                  "return a 1-D array of L ratios (shape (L,)), not a column of shape (L, 1)."),
    ]
    return _checked("norm_ratio", student, _ratio_ref, cases, diagnoses)
