"""Exercise checkers for chapter 9 (ALiBi: slopes, bias matrix, attention weights)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import alibi as _alibi
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_alibi_bias", "check_alibi_slopes", "check_last_row_weights"]


# -- exercise 1: slopes for any head count ----------------------------------------------------
def _pow2(n: int) -> list[float]:
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def _naive(num_heads: int) -> np.ndarray:
    return np.array(_pow2(num_heads))


def _off_by_one(num_heads: int) -> np.ndarray:
    # h = 0 .. H-1 instead of 1 .. H (the first head gets slope 1, the last misses 1/256)
    def rule(n: int) -> list[float]:
        return [2.0 ** (-8.0 * h / n) for h in range(n)]

    if num_heads & (num_heads - 1) == 0:
        return np.array(rule(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return np.array(rule(p) + rule(2 * p)[0::2][: num_heads - p])


def _no_interleave(num_heads: int) -> np.ndarray:
    # the extra heads take the *first* slopes of the 2P-head list, not every other one
    if num_heads & (num_heads - 1) == 0:
        return np.array(_pow2(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return np.array(_pow2(p) + _pow2(2 * p)[: num_heads - p])


def _odd_instead_of_between(num_heads: int) -> np.ndarray:
    # took slopes 2, 4, 6, ... of the 2P list: those repeat the P-head slopes
    if num_heads & (num_heads - 1) == 0:
        return np.array(_pow2(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return np.array(_pow2(p) + _pow2(2 * p)[1::2][: num_heads - p])


def _next_power_truncated(num_heads: int) -> np.ndarray:
    p = 2 ** math.ceil(math.log2(num_heads))
    return np.array(_pow2(p)[:num_heads])


def _sorted(num_heads: int) -> np.ndarray:
    return np.sort(_alibi.slopes(num_heads))[::-1]


def check_alibi_slopes(student: Callable[[int], Any]) -> Report:
    """Exercise: ``alibi_slopes(num_heads)`` by the reference rule, for any head count."""
    cases = [
        ("8 heads", (8,)),
        ("16 heads", (16,)),
        ("1 head", (1,)),
        ("12 heads", (12,)),
        ("6 heads", (6,)),
        ("24 heads", (24,)),
    ]
    diagnoses = [
        Diagnosis(_naive, "2^(-8h/H) is the rule for a power-of-two H only. For other H, take "
                          "the slopes of the largest power of two P below H, then add slopes of "
                          "the 2P-head rule."),
        Diagnosis(_off_by_one, "the exponent runs over h = 1..H, not 0..H-1: the first head's "
                               "slope is 2^(-8/H), never 1."),
        Diagnosis(_no_interleave, "the extra heads take every *other* slope of the 2P-head list "
                                  "(its entries 1, 3, 5, ... i.e. [0::2]), not its first ones."),
        Diagnosis(_odd_instead_of_between, "entries 2, 4, 6, ... of the 2P-head list ([1::2]) "
                                           "repeat the P-head slopes; take [0::2], the ones "
                                           "in between."),
        Diagnosis(_next_power_truncated, "do not cut the list of the next power of two: keep "
                                         "all P slopes of the power below, then add the "
                                         "in-between slopes."),
        Diagnosis(_sorted, "right slopes, wrong order: the P-head slopes come first, then the "
                           "extra ones (do not sort). Pretrained weights expect this order."),
    ]
    return run_checks("alibi_slopes", student, _alibi.slopes, cases, diagnoses)


# -- exercise 2: the bias matrix ----------------------------------------------------------------
_MASKED = -1e6  # any entry at or below this counts as masked (-inf, -1e9, finfo.min, ...)


def _canonical(x: Any) -> Any:
    if x is None:
        return None
    arr = np.array(x, dtype=float)
    arr[arr <= _MASKED] = _MASKED
    return arr


def _bias_ref(seq_len: int, slope: float, causal: bool) -> np.ndarray:
    return _canonical(_alibi.bias(seq_len, slope, causal=causal))


def _bias_from(dist: Callable[[np.ndarray, np.ndarray], np.ndarray], *, sign: float = -1.0,
               mask: str = "upper") -> Callable[[int, float, bool], np.ndarray]:
    def wrong(seq_len: int, slope: float, causal: bool) -> np.ndarray:
        i = np.arange(seq_len)[:, None]
        j = np.arange(seq_len)[None, :]
        out = sign * slope * dist(i, j).astype(float)
        if causal and mask == "upper":
            out = np.where(j > i, -np.inf, out)
        elif causal and mask == "lower":
            out = np.where(j < i, -np.inf, out)
        elif mask == "always":
            out = np.where(j > i, -np.inf, out)
        return _canonical(out)

    return wrong


def check_alibi_bias(student: Callable[[int, float, bool], Any]) -> Report:
    """Exercise: ``alibi_bias(seq_len, slope, causal)`` = -m|i-j|, keys after i masked if causal."""
    cases = [
        ("L=4, m=0.5, symmetric", (4, 0.5, False)),
        ("L=4, m=0.5, causal", (4, 0.5, True)),
        ("L=6, m=1/8, symmetric", (6, 0.125, False)),
        ("L=6, m=1/8, causal", (6, 0.125, True)),
        ("L=1, m=1, causal", (1, 1.0, True)),
    ]
    absd = lambda i, j: np.abs(i - j)  # noqa: E731
    diagnoses = [
        Diagnosis(_bias_from(absd, sign=+1.0), "wrong sign: the bias *subtracts* m|i-j| (far "
                                               "keys must lose score, not gain it)."),
        Diagnosis(_bias_from(lambda i, j: i - j), "use the absolute distance |i-j|: with (i-j), "
                                                  "keys after the query get a positive bias."),
        Diagnosis(_bias_from(lambda i, j: j - i), "use the absolute distance |i-j|: with (j-i), "
                                                  "keys before the query get a positive bias."),
        Diagnosis(_bias_from(absd, mask="none"), "with causal=True, set the entries of keys after "
                                                 "the query (j > i) to -inf."),
        Diagnosis(_bias_from(absd, mask="lower"), "the mask hides keys *after* the query "
                                                  "(j > i, above the diagonal), not before it."),
        Diagnosis(_bias_from(absd, mask="always"), "with causal=False nothing is masked: an "
                                                   "encoder sees keys on both sides."),
    ]

    def wrapped(seq_len: int, slope: float, causal: bool) -> Any:
        return _canonical(student(seq_len, slope, causal))

    return run_checks("alibi_bias", wrapped, _bias_ref, cases, diagnoses)


# -- exercise 3: worked example 3 ---------------------------------------------------------------
def _row_ref(seq_len: int, slope: float) -> np.ndarray:
    return _alibi.weights(seq_len, slope, causal=True)[-1]


def check_last_row_weights(student: Callable[[int, float], Any]) -> Report:
    """Exercise: weights of the last of ``seq_len`` tokens (causal, equal content scores)."""
    cases = [
        ("L=5, m=0.5 (worked example)", (5, 0.5)),
        ("L=5, m=0.1 (worked example)", (5, 0.1)),
        ("L=8, m=1/256", (8, 1 / 256)),
        ("L=3, m=2", (3, 2.0)),
    ]

    def unnormalised(seq_len: int, slope: float) -> np.ndarray:
        return np.exp(-slope * (seq_len - 1 - np.arange(seq_len)))

    def reversed_order(seq_len: int, slope: float) -> np.ndarray:
        return _row_ref(seq_len, slope)[::-1]

    def linear(seq_len: int, slope: float) -> np.ndarray:
        return _alibi.distance_profile(seq_len, slope, kind="linear")[::-1]

    def plus_sign(seq_len: int, slope: float) -> np.ndarray:
        return _alibi.weights(seq_len, -slope, causal=True)[-1]

    diagnoses = [
        Diagnosis(unnormalised, "divide by the sum: the weights of a row must add up to 1 "
                                "(that is the softmax's denominator)."),
        Diagnosis(reversed_order, "index the result by key position j = 0..L-1, not by distance: "
                                  "the last entry is the query's own position (distance 0)."),
        Diagnosis(linear, "the weights are not linear in the distance: the softmax turns the "
                          "bias -m*dist into the factor exp(-m*dist)."),
        Diagnosis(plus_sign, "the bias is -m*dist: subtract the penalty."),
    ]
    return run_checks("last_row_weights", student, _row_ref, cases, diagnoses)
