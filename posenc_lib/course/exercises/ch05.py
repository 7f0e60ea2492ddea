"""Exercise checkers for chapter 5 (many frequencies: sin(pos/(i+1)), cos(pos/(i+1))).

Close-but-valid answers: float32 arithmetic and plain Python lists are *accepted* without a note
(float32 rounding, up to a few 1e-6 here, stays inside the encoding checker's 1e-5 tolerance).
Other conventions are *rejected* with a hint that names them: one frequency per dimension, the
divisor i or 2i, positions from 1, the concatenated layout (all sines, then all cosines). For the
octave counts, a result that loses a wavelength to rounding (a ratio 1e-12 below a power of two counted in the
octave below) is rejected with the hint to add 1e-9, as the exercise asks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...maths import encodings as _enc
from ...maths import periodicity as _per
from ._core import Diagnosis, Report, call_student, close, run_checks

__all__ = ["check_linear_encoding", "check_octave_counts"]


# -- exercise 1: the linear encoding -------------------------------------------------------------
def _pairs(L: int, d: int, divisors: np.ndarray, *, swap: bool = False, start: int = 0,
           concat: bool = False, scale: float = 1.0, multiply: bool = False) -> np.ndarray:
    """sin/cos of ``pos / divisor`` per pair, with the variations of the usual mistakes."""
    with np.errstate(all="ignore"):
        pos = np.arange(start, start + L, dtype=float)[:, None]
        ang = scale * (pos * divisors[None, :] if multiply else pos / divisors[None, :])
        even, odd = (np.cos(ang), np.sin(ang)) if swap else (np.sin(ang), np.cos(ang))
    if concat:
        return np.hstack([even, odd])
    out = np.empty((L, d))
    out[:, 0::2] = even
    out[:, 1::2] = odd
    return out


def check_linear_encoding(student: Callable[[int, int], Any]) -> Report:
    """Exercise: ``linear_encoding(seq_len, d)``: PE(pos, 2i) = sin(pos/(i+1)),
    PE(pos, 2i+1) = cos(pos/(i+1)), positions 0 … seq_len − 1.

    float32 results and lists pass; the mistakes below are rejected with a hint naming them.
    """
    # no square case: a transposed table then fails on its shape
    cases = [("L = 3, d = 4", (3, 4)), ("L = 10, d = 8", (10, 8)), ("L = 100, d = 32", (100, 32))]

    def pairs_plus_one(d: int) -> np.ndarray:
        return np.arange(1, d // 2 + 1, dtype=float)

    diagnoses = [
        Diagnosis(lambda L, d: _enc.linear(L, d, convention="dimension"),
                  "divide by the pair number i + 1, shared by the sine and the cosine of a pair; "
                  "you divided each dimension by its own index."),
        Diagnosis(lambda L, d: _pairs(L, d, np.arange(d // 2, dtype=float)),
                  "pair 0 divides by i = 0, and sin or cos of 0/0 or of pos/0 is NaN; count "
                  "pairs from 1: divide by i + 1."),
        Diagnosis(lambda L, d: _pairs(L, d, 2.0 * np.arange(d // 2)),
                  "the divisor 2i is 0 for pair 0, so that pair is NaN; count pairs from 1: "
                  "divide by i + 1."),
        Diagnosis(lambda L, d: _pairs(L, d, 2.0 * pairs_plus_one(d)),
                  "the divisor is i + 1, not 2(i + 1)."),
        Diagnosis(lambda L, d: _pairs(L, d, pairs_plus_one(d), swap=True),
                  "sine at even dimensions 2i, cosine at odd ones 2i + 1; you put the cosine "
                  "first."),
        Diagnosis(lambda L, d: _pairs(L, d, pairs_plus_one(d), start=1),
                  "positions start at 0: the first row is position 0, (0, 1, 0, 1, …); you "
                  "counted positions from 1."),
        Diagnosis(lambda L, d: _pairs(L, d, pairs_plus_one(d), concat=True),
                  "interleave the pairs: the sine of pair i goes to dimension 2i and its cosine "
                  "right after it, at 2i + 1 (not all sines first, then all cosines)."),
        Diagnosis(lambda L, d: _pairs(L, d, pairs_plus_one(d), scale=np.pi / 180),
                  "np.sin and np.cos take radians: use pos / (i + 1) as it is, without "
                  "converting from degrees."),
        Diagnosis(lambda L, d: _pairs(L, d, pairs_plus_one(d), multiply=True),
                  "divide the position by i + 1 (frequency 1/(i + 1), slower and slower); you "
                  "multiplied."),
        Diagnosis(lambda L, d: _enc.sinusoidal(L, d),
                  "that is the Transformer's geometric schedule (chapter 6); here the divisor "
                  "grows linearly: i + 1."),
        Diagnosis(lambda L, d: _enc.linear(L, d).T,
                  "rows are positions and columns are dimensions: you returned the transpose, "
                  "shape (d, seq_len)."),
    ]
    # float32 angles are off by up to a few 1e-6 at position 97 (pos * (1/(i + 1)) rounded):
    # inside 1e-5, far from every mistake above
    return run_checks("linear_encoding", student, lambda L, d: _enc.linear(L, d), cases,
                      diagnoses, atol=1e-5)


# -- exercise 2: octave counts -------------------------------------------------------------------
def _octaves(lam: np.ndarray, ratio: Callable[[np.ndarray], np.ndarray] | None = None,
             log: Callable[[np.ndarray], np.ndarray] = np.log2,
             rounding: Callable[[np.ndarray], np.ndarray] = np.floor,
             eps: float = 1e-9) -> np.ndarray:
    """The octave number of each wavelength, with the variations of the usual mistakes."""
    lam = np.asarray(lam, dtype=float)
    r = lam / lam.min() if ratio is None else ratio(lam)
    return rounding(log(r) + eps).astype(int)


def _bincount(octave: np.ndarray) -> np.ndarray:
    return np.bincount(octave)


def _equal_width(lam: np.ndarray) -> np.ndarray:
    """Equal-width bins between the smallest and the largest log2 ratio (not whole numbers)."""
    lam = np.asarray(lam, dtype=float)
    log = np.log2(lam / lam.min())
    return np.histogram(log, bins=int(np.floor(log.max() + 1e-9)) + 1)[0]


def check_octave_counts(student: Callable[[np.ndarray], Any]) -> Report:
    """Exercise: ``octave_counts(wavelengths)``: entry b counts the wavelengths with
    2**b <= λ/λ_min < 2**(b+1); empty octaves count 0.

    One case has ratios 1e-12 below powers of two (rounding): without the 1e-9 the exercise asks
    for, they drop an octave and the answer is rejected with a hint saying so. Octaves closed on
    the right give the same numbers there; that hint is given only to a learner who also fails
    the hand example, whose exact powers of two tell the two mistakes apart.
    """
    short = 2.0 ** np.arange(6) * (1.0 - 1e-12)   # 2, 4, … 32, each a hair short, as after rounding
    short[0] = 1.0
    hand = np.array([1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 9.0])      # exact powers of two: 1, 2, 4
    passed_hand: list[bool] = []

    def fails_hand_example() -> bool:
        """Whether the learner's function gets the hand example wrong (computed once)."""
        if not passed_hand:
            status, got = call_student(student, (hand.copy(),))
            passed_hand.append(status == "ok" and close(got, _per.octave_counts(hand)))
        return not passed_hand[0]

    def closed_on_the_right(lam: np.ndarray) -> np.ndarray | None:
        # a learner who passed the hand example put 2, 4 in the right octave: not this mistake
        if not fails_hand_example():
            return None
        return _bincount(np.maximum(_octaves(lam, rounding=np.ceil, eps=-1e-9) - 1, 0))

    cases = [
        ("a hand example", (hand.copy(),)),
        ("linear schedule, d = 64", (2 * np.pi / _enc.linear_frequencies(64),)),
        ("geometric schedule, d = 16", (_enc.wavelengths(16),)),
        ("unsorted input with empty octaves", (np.array([12.0, 3.0, 5.0, 3.5, 100.0]),)),
        ("ratios 1, 2, 4, …, 32, each 1e-12 short (rounding)", (2 * np.pi * short,)),
    ]
    diagnoses = [
        Diagnosis(lambda lam: _bincount(_octaves(lam, log=np.log10)),
                  "an octave is a factor of 2: use log2, not log10."),
        Diagnosis(lambda lam: _bincount(_octaves(lam, log=np.log)),
                  "an octave is a factor of 2: use log2, not the natural log."),
        Diagnosis(lambda lam: _bincount(_octaves(lam, ratio=lambda x: x / x[0])),
                  "measure from the shortest wavelength (lam.min()), not the first entry: a "
                  "ratio below 1 gives a negative octave."),
        Diagnosis(lambda lam: _bincount(_octaves(lam, rounding=np.ceil, eps=-1e-9)),
                  "round down (floor): octave b starts at 2**b."),
        Diagnosis(lambda lam: _bincount(_octaves(lam, rounding=np.rint)),
                  "round down with np.floor, not to the nearest whole number: octave b holds "
                  "every ratio from 2**b up to 2**(b+1)."),
        Diagnosis(closed_on_the_right,
                  "octave b is closed on the left, [2**b, 2**(b+1)): a ratio of exactly 2**b "
                  "starts octave b. Your octaves are closed on the right (2**b, 2**(b+1)], so "
                  "every exact power of two lands one octave too low: use "
                  "floor(log2(ratio) + 1e-9)."),
        # without the 1e-9, exact powers of two (the hand example) still land right
        Diagnosis(lambda lam: None if fails_hand_example() else _bincount(_octaves(lam, eps=0.0)),
                  "a ratio a hair below a power of two (3.9999999999 instead of 4, from "
                  "rounding) fell into the octave below: add 1e-9 to log2(ratio) before "
                  "np.floor."),
        Diagnosis(lambda lam: np.unique(_octaves(lam), return_counts=True)[1],
                  "empty octaves count too: entry b must be 0 when no wavelength falls in octave "
                  "b (np.unique skips those octaves, np.bincount keeps them)."),
        Diagnosis(lambda lam: _octaves(lam),
                  "you returned the octave number of each wavelength; now count how many fall "
                  "into each octave (np.bincount)."),
        Diagnosis(lambda lam: np.cumsum(_bincount(_octaves(lam))),
                  "entry b counts only the wavelengths in octave b, not all of octaves 0 to b "
                  "(no cumulative sum)."),
        Diagnosis(lambda lam: _bincount(_octaves(lam)) / len(lam),
                  "return counts (whole numbers), not shares: do not divide by the number of "
                  "wavelengths."),
        Diagnosis(lambda lam: _bincount(_octaves(lam, ratio=lambda x: x.max() / x)),
                  "count up from the shortest wavelength: the ratio is λ / λ_min. Measuring down "
                  "from the longest (λ_max / λ, or frequencies) counts from the wrong end."),
        Diagnosis(lambda lam: _bincount(_octaves(lam, ratio=lambda x: x)),
                  "divide by the shortest wavelength first: octave 0 starts at λ_min, not at "
                  "λ = 1."),
        Diagnosis(_equal_width,
                  "octave b is exactly 2**b <= ratio < 2**(b+1): the bin edges sit at whole "
                  "numbers of log2(ratio), not at equal widths between the smallest and the "
                  "largest value."),
    ]
    report = run_checks("octave_counts", student, _per.octave_counts, cases, diagnoses)
    # np.bincount refuses negative octave numbers: the learner's function raised
    if any("raised" in m and "negative" in m for m in report.messages):
        report.messages.append("Hint: a negative octave number means a ratio below 1: divide "
                               "by the shortest wavelength, lam.min(), not the first entry (and "
                               "not 2π).")
    return report
