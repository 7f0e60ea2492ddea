"""Exercise checkers for chapter 10b (extrapolation on real text): perplexity, and the windows
of the sliding-window evaluation."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...lab import textlm as _t
from ._core import Diagnosis, Report, run_checks, unambiguous

__all__ = ["check_perplexity", "check_window_starts"]


# --------------------------------------------------------------------------------------------
# Exercise 1: perplexity from the probabilities of the right characters
# --------------------------------------------------------------------------------------------


def _ppl(p: np.ndarray) -> float:
    return _t.perplexity(-np.log(np.asarray(p, dtype=float)))


def check_perplexity(student: Callable[[np.ndarray], Any]) -> Report:
    """Exercise: ``perplexity(p)`` for the probabilities ``p`` a model gave the characters that
    really came next: :math:`\\exp(-\\frac1N\\sum\\log p_n)`. Any base of the logarithm is fine
    if the power uses the same base."""
    rng = np.random.default_rng(11)
    cases = [
        ("four characters, p = 1/2, 1/4, 1/8, 1/2", (np.array([0.5, 0.25, 0.125, 0.5]),)),
        ("a uniform guess over 96 characters", (np.full(7, 1 / 96),)),
        ("1000 characters of a good model", (rng.uniform(0.2, 0.95, size=1000),)),
        ("one character, p = 0.9", (np.array([0.9]),)),
    ]
    diagnoses = [
        Diagnosis(lambda p: float(1 / np.mean(p)),
                  "you took 1 over the *arithmetic* mean of the probabilities. Perplexity is 1 "
                  "over their *geometric* mean: average the logarithms, `exp(-mean(log p))`."),
        Diagnosis(lambda p: float(np.mean(1 / p)),
                  "that is the mean of 1/p. Average the logarithms first, then exponentiate: "
                  "`exp(-mean(log p))`."),
        Diagnosis(lambda p: float(np.exp(np.mean(np.log(p)))),
                  "the sign: exp(mean(log p)) is the geometric mean of p, at most 1. Perplexity "
                  "is its inverse, `exp(-mean(log p))` (at least 1)."),
        Diagnosis(lambda p: float(-np.mean(np.log(p))),
                  "that is the loss (cross-entropy in nats per character); perplexity is its "
                  "exponential."),
        Diagnosis(lambda p: float(-np.mean(np.log2(p))),
                  "that is the loss in bits per character; perplexity is `2 ** bits`."),
        Diagnosis(lambda p: float(np.exp(-np.sum(np.log(p)))),
                  "you summed the logarithms: that is 1 over the probability of the whole "
                  "text, which grows with its length. Take the mean, `exp(-mean(log p))`."),
        Diagnosis(lambda p: float(np.exp(-np.mean(np.log10(p)))),
                  "the base: log10 then exp mixes two bases. Use `np.log` with `np.exp` (or "
                  "log2 with `2 **`)."),
        Diagnosis(lambda p: float(2.0 ** (-np.mean(np.log(p)))),
                  "the base: natural log then `2 **` mixes two bases. Use `np.log` with `np.exp` "
                  "(or `np.log2` with `2 **`)."),
    ]
    return run_checks("perplexity", student, _ppl, cases, unambiguous(diagnoses), atol=1e-6)


# --------------------------------------------------------------------------------------------
# Exercise 2: where each sliding window starts
# --------------------------------------------------------------------------------------------


def _starts(n_scored: int, length: int, stride: int, offset: int) -> np.ndarray:
    return offset + (np.arange(n_scored // stride) + 1) * stride - length


def check_window_starts(student: Callable[[int, int, int, int], Any]) -> Report:
    """Exercise: ``window_starts(n_scored, length, stride, offset)``: the index of the first
    token of every window of the sliding-window evaluation (``posenc_lib.lab.textlm.sliding_nll``)
    that scores the ``n_scored`` characters after ``offset`` with windows of ``length`` and
    stride ``stride``. A list or an integer array is fine."""
    cases = [
        ("length 256, stride 64, 192 scored after offset 960", (192, 256, 64, 960)),
        ("length = stride = 64: non-overlapping, offset 0", (256, 64, 64, 0)),
        ("length 128, stride 32, 128 scored after offset 100", (128, 128, 32, 100)),
        ("one window: length 512, stride 64, 64 scored after offset 448", (64, 512, 64, 448)),
    ]
    diagnoses = [
        Diagnosis(lambda n, L, s, o: o + np.arange(n // s) * s,
                  "your windows start at the scored characters, so they see no context before "
                  "them. A window *ends* at its scored block: window w predicts characters "
                  "offset+1+w*stride … offset+(w+1)*stride with its last `stride` positions."),
        Diagnosis(lambda n, L, s, o: o + np.arange(n // s) * s - L,
                  "each window ends `stride` characters too early: its last `stride` "
                  "predictions must be the scored characters, so its last token is character "
                  "offset+(w+1)*stride-1 and it starts at offset+(w+1)*stride-length."),
        Diagnosis(lambda n, L, s, o: _starts(n, L, s, o) + 1,
                  "off by one: the window's tokens predict the characters one later, so a "
                  "window that scores up to character offset+(w+1)*stride starts at "
                  "offset+(w+1)*stride-length (not +1)."),
        Diagnosis(lambda n, L, s, o: _starts(n, L, s, o) - 1,
                  "off by one: a window's last token predicts the next character, so it starts "
                  "at offset+(w+1)*stride-length (not -1)."),
        Diagnosis(lambda n, L, s, o: o + (np.arange(n // L) + 1) * L - s,
                  "length and stride are swapped: windows advance by `stride` and are `length` "
                  "tokens long."),
        Diagnosis(lambda n, L, s, o: o + (np.arange(n // s + 1) + 1) * s - L,
                  "one window too many: `n_scored // stride` windows score `n_scored` "
                  "characters."),
        Diagnosis(lambda n, L, s, o: o + (np.arange(math.ceil(n / L)) + 1) * s - L,
                  "the number of windows is `n_scored // stride`: each window scores only "
                  "`stride` characters, however long it is."),
        Diagnosis(lambda n, L, s, o: o + (np.arange(n // L) + 1) * s - L,
                  "the number of windows is `n_scored // stride`, not `n_scored // length`: "
                  "each window scores only `stride` characters, however long it is."),
    ]
    return run_checks("window_starts", student, _starts, cases, unambiguous(diagnoses), atol=0)
