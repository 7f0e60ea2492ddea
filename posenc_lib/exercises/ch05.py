"""Exercise checkers for chapter 5 (many frequencies: sin(pos/i))."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _enc
from .. import periodicity as _per
from ._core import Diagnosis, Report, close, run_checks

__all__ = ["check_linear_encoding", "check_octave_counts"]


def _pairs(L: int, d: int, divisors: np.ndarray, swap: bool = False) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        ang = np.arange(L)[:, None] / divisors[None, :]
        out = np.empty((L, d))
        out[:, 0::2] = np.cos(ang) if swap else np.sin(ang)
        out[:, 1::2] = np.sin(ang) if swap else np.cos(ang)
    return out


def check_linear_encoding(student: Callable[[int, int], Any]) -> Report:
    """Exercise: ``linear_encoding(seq_len, d)``: PE(pos, 2i) = sin(pos/(i+1)),
    PE(pos, 2i+1) = cos(pos/(i+1))."""
    cases = [("L = 3, d = 4", (3, 4)), ("L = 10, d = 8", (10, 8)), ("L = 100, d = 32", (100, 32))]
    diagnoses = [
        Diagnosis(lambda L, d: _enc.linear(L, d, convention="dimension"),
                  "divide by the pair number i + 1, shared by the sine and the cosine of a pair; "
                  "you divided each dimension by its own index."),
        Diagnosis(lambda L, d: _pairs(L, d, 2.0 * np.arange(1, d // 2 + 1)),
                  "the divisor is i + 1, not 2(i + 1)."),
        Diagnosis(lambda L, d: _pairs(L, d, np.arange(1, d // 2 + 1), swap=True),
                  "sine at even dimensions 2i, cosine at odd ones 2i + 1."),
        Diagnosis(lambda L, d: _enc.sinusoidal(L, d),
                  "that is the Transformer's geometric schedule (chapter 6); here the divisor "
                  "grows linearly: i + 1."),
    ]
    report = run_checks("linear_encoding", student, lambda L, d: _enc.linear(L, d), cases,
                        diagnoses)
    if any("inf or NaN" in m for m in report.messages):
        report.messages.append("Hint: dividing by i with i = 0 gives 0/0 = NaN at position 0; "
                               "count pairs from 1: divide by i + 1.")
    return report


def check_octave_counts(student: Callable[[np.ndarray], Any]) -> Report:
    """Exercise: ``octave_counts(wavelengths)``: entry b counts the wavelengths with
    2**b <= λ/λ_min < 2**(b+1)."""
    cases = [
        ("a hand example", (np.array([1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 9.0]),)),
        ("linear schedule, d = 64", (2 * np.pi / _enc.linear_frequencies(64),)),
        ("geometric schedule, d = 16", (_enc.wavelengths(16),)),
        ("unsorted input", (np.array([12.0, 3.0, 5.0, 3.5, 100.0]),)),
    ]

    def binned(log: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
        return lambda lam: np.bincount(np.floor(log(lam / lam.min()) + 1e-9).astype(int))

    diagnoses = [
        Diagnosis(binned(np.log10), "an octave is a factor of 2: use log2, not log10."),
        Diagnosis(binned(np.log), "an octave is a factor of 2: use log2, not the natural log."),
        Diagnosis(lambda lam: np.bincount(np.floor(np.log2(lam / lam[0]) + 1e-9).astype(int)),
                  "measure from the shortest wavelength (lam.min()), not the first entry: a ratio below 1 gives a negative octave."),
        Diagnosis(lambda lam: np.bincount(np.ceil(np.log2(lam / lam.min()) - 1e-9).astype(int)),
                  "round down (floor): octave b starts at 2**b."),
    ]
    report = run_checks("octave_counts", student, _per.octave_counts, cases, diagnoses)
    if any("negative elements" in m for m in report.messages):
        report.messages.append("Hint: measure from the shortest wavelength (lam.min()), not the "
                               "first entry: a ratio below 1 gives a negative octave.")
    # a wrong log base changes the number of bins; run_checks then only reports the shape
    if not report.ok:
        for name, args in cases:
            try:
                got = student(*args)
            except Exception:  # already reported
                break
            if got is None or close(got, _per.octave_counts(*args)):
                continue
            for dg in diagnoses:
                hint = "Hint: " + dg.hint
                try:
                    wrong = dg.wrong(*args)
                except (ValueError, IndexError):
                    continue
                if np.shape(got) == np.shape(wrong) and close(got, wrong) and \
                        not any(dg.hint in m for m in report.messages):
                    report.messages.append(hint)
            break
    return report
