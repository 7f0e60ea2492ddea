"""Chapter 10b: perplexity from probabilities, and where sliding windows start."""

import math

import numpy as np


def perplexity(p):
    """A plain loop: add up the logarithms, average, exponentiate the negative."""
    total = 0.0
    for q in p:
        total += math.log(q)
    return math.exp(-total / len(p))


def window_starts(n_scored, length, stride, offset):
    """Walk the scored block stride by stride; each window ends where its block ends."""
    starts = []
    end = offset  # index of the last character scored so far
    for _ in range(n_scored // stride):
        end += stride  # this window's last target is character `end`
        starts.append(end - length)  # its `length` tokens are end-length .. end-1
    return starts


CASES = {
    "check_perplexity": {
        "correct": perplexity,
        "wrong": [
            (lambda p: 1 / np.mean(p), "arithmetic"),
            (lambda p: np.mean(1 / np.asarray(p)), "that is the mean of 1/p"),
            (lambda p: np.exp(np.mean(np.log(p))), "the sign"),
            (lambda p: -np.mean(np.log(p)), "that is the loss"),
            (lambda p: -np.mean(np.log2(p)), "bits per character"),
            (lambda p: np.exp(-np.sum(np.log(p))), "you summed the logarithms"),
            (lambda p: np.exp(-np.mean(np.log10(p))), "the base"),
            (lambda p: 2 ** (-np.mean(np.log(p))), "the base"),
        ],
        "also_correct": [lambda p: 2 ** (-np.mean(np.log2(p))),
                         lambda p: 1 / np.prod(np.asarray(p) ** (1 / len(p))),
                         lambda p: np.float32(np.exp(-np.mean(np.log(p))))],
    },
    "check_window_starts": {
        "correct": window_starts,
        "wrong": [
            (lambda n, L, s, o: [o + w * s for w in range(n // s)], "see no context"),
            (lambda n, L, s, o: [o + w * s - L for w in range(n // s)], "too early"),
            (lambda n, L, s, o: [x + 1 for x in window_starts(n, L, s, o)], "off by one"),
            (lambda n, L, s, o: [x - 1 for x in window_starts(n, L, s, o)], "off by one"),
            (lambda n, L, s, o: [o + (w + 1) * L - s for w in range(n // L)], "swapped"),
            (lambda n, L, s, o: window_starts(n + s, L, s, o), "one window too many"),
        ],
        "also_correct": [lambda n, L, s, o: np.asarray(window_starts(n, L, s, o)),
                         lambda n, L, s, o: tuple(window_starts(n, L, s, o))],
    },
}
CASES["check_window_starts"]["wrong"].append(
    (lambda n, L, s, o: [o + (w + 1) * s - L for w in range(n // L)], "expected shape (4,), got (1,)"))
CASES["check_window_starts"]["wrong"].append(
    (lambda n, L, s, o: window_starts(n, L, s, o)[::-1], "wrong values"))
