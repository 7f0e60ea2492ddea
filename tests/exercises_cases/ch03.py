"""Chapter 3: the single-sine encoding and counting collisions."""

import math

import numpy as np


def sine_encoding(seq_len, d, omega):
    """Row by row with Python's math.sin."""
    return np.array([[math.sin(omega * pos)] * d for pos in range(seq_len)])


def count_collisions(values, decimals):
    """A plain double loop over the rounded values (Python's round, -0.0 == 0.0 anyway)."""
    r = [round(float(v), decimals) for v in values]
    return sum(1 for p in range(len(r)) for q in range(p + 1, len(r)) if r[p] == r[q])


def _count_fast(values, decimals):
    _, c = np.unique(np.round(values, decimals), return_counts=True)
    return int(np.sum(c * (c - 1) // 2))


def _string_keys(values, decimals):
    """Group by formatted strings: "-0.000" and "0.000" stay apart."""
    from collections import Counter
    counts = Counter(f"{float(v):.{decimals}f}" for v in values)
    return sum(n * (n - 1) // 2 for n in counts.values())


def _tolerance(values, decimals):
    v = np.asarray(values, dtype=float)
    close = np.abs(v[:, None] - v[None, :]) <= 0.5 * 10.0 ** -decimals
    return int(np.triu(close, k=1).sum())


def _truncate(values, decimals):
    s = 10 ** decimals
    return _count_fast(np.array([int(v * s) / s for v in values]), decimals)


def _floor(values, decimals):
    s = 10 ** decimals
    return _count_fast(np.floor(np.asarray(values) * s) / s, decimals)


def _repeats(values, decimals):
    return len(values) - len(np.unique(np.round(values, decimals)))


def _involved(values, decimals):
    _, c = np.unique(np.round(values, decimals), return_counts=True)
    return int(c[c > 1].sum())


CASES = {
    "check_sine_encoding": {
        "correct": sine_encoding,
        "wrong": [
            (lambda L, d, w: sine_encoding(L + 1, d, w)[1:], "positions start at 0"),
            # an integer array filled in a loop: every value cut to 0 (not "a factor 2π")
            (lambda L, d, w: sine_encoding(L, d, w).astype(int), "integer dtype"),
            (lambda L, d, w: np.tile(np.sin(np.radians(w * np.arange(L)))[:, None], (1, d)),
             "radians"),
            (lambda L, d, w: np.tile(np.cos(w * np.arange(L))[:, None], (1, d)), "not the cosine"),
            (lambda L, d, w: sine_encoding(L, d, 1.0), "multiply the position by omega"),
            (lambda L, d, w: sine_encoding(L, d, 1.0 / w), "do not divide"),
            (lambda L, d, w: sine_encoding(L, d, 2 * math.pi * w), "no factor 2π"),
            (lambda L, d, w: sine_encoding(L, d, 2 * w), "you doubled the angle"),
            # the chapter's own warning: the angle taken as the dimension index
            (lambda L, d, w: np.array([[math.sin(w * j) for j in range(d)] for _ in range(L)]),
             "not the dimension index"),
            (lambda L, d, w: np.array([[math.sin(w * (p + j)) for j in range(d)]
                                       for p in range(L)]), "do not add the dimension index"),
            (lambda L, d, w: sine_encoding(L, d, w).T, "you returned the transpose"),
            (lambda L, d, w: np.sin(w * np.arange(L)), "one row per position"),
            # strings must not pass, even when they spell the right numbers
            (lambda L, d, w: sine_encoding(L, d, w).astype(str), "expected numbers"),
        ],
        # float32 arithmetic is within the checker's 1e-6 tolerance: it passes without a note
    },
    "check_count_collisions": {
        "correct": count_collisions,
        "wrong": [
            (lambda v, dec: 2 * count_collisions(v, dec), "counted twice"),
            (lambda v, dec: count_collisions(v, dec) + len(v), "does not collide with itself"),
            (lambda v, dec: int((np.round(v, dec)[:, None] == np.round(v, dec)[None, :]).sum()),
             "whole equality matrix"),
            (_tolerance, "you compared with a tolerance"),
            (_repeats, "you counted values that repeat"),
            (_involved, "positions that have a double"),
            (_truncate, "you truncated"),
            (_floor, "you rounded down"),
            (lambda v, dec: count_collisions(v, 3), "use the decimals argument"),
            (_string_keys, "kept -0.000 and 0.000 apart"),
            (lambda v, dec: count_collisions(np.ceil(np.asarray(v) * 10.0 ** dec) / 10.0 ** dec, dec),
             "you rounded up"),
            (lambda v, dec: int(np.triu(np.abs(np.subtract.outer(v, v)) <= 10.0 ** -dec, 1).sum()),
             "one unit of the last decimal"),
            (lambda v, dec: count_collisions(v, dec - 1), "one decimal fewer"),
            # strings must not pass, even when they spell the right count
            (lambda v, dec: str(count_collisions(v, dec)), "expected numbers"),
            (lambda v, dec: [(p, q) for p in range(len(v)) for q in range(p + 1, len(v))
                             if round(v[p], dec) == round(v[q], dec)], "return how many there are"),
            # the right count, wrapped in a list or a one-element array
            (lambda v, dec: [count_collisions(v, dec)], "the number inside is right"),
            (lambda v, dec: np.array([2 * count_collisions(v, dec)]), "return the number itself"),
        ],
    },
}
