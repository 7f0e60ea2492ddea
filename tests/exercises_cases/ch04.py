"""Chapter 4: the alternating (sin, cos) encoding and the shift matrix of one pair."""

import math

import numpy as np


def alternating(L, d):
    """Row by row with Python floats: sin(p) at even dimensions, cos(p) at odd ones."""
    return np.array([[math.sin(p) if j % 2 == 0 else math.cos(p) for j in range(d)]
                     for p in range(L)])


def _table(L, d, even, odd, angle=lambda p, j: p):
    return np.array([[even(angle(p, j)) if j % 2 == 0 else odd(angle(p, j)) for j in range(d)]
                     for p in range(L)])


def pair_shift(k, omega):
    """From the angle-addition formulas, entry by entry (a = k * omega)."""
    a = k * omega
    return np.array([[math.cos(a), math.sin(a)],
                     [-math.sin(a), math.cos(a)]])


def _rot(a, top, bottom):
    return np.array([[math.cos(a), top * math.sin(a)], [bottom * math.sin(a), math.cos(a)]])


def _stepwise(k, omega):
    """k single steps, one after another: no step at all for a negative k, a TypeError for 2.5."""
    m = np.eye(2)
    for _ in range(k):
        m = pair_shift(1, omega) @ m
    return m


CASES = {
    "check_alternating": {
        "correct": alternating,
        "wrong": [
            (lambda L, d: _table(L, d, math.cos, math.sin), "you put the cosine first"),
            (lambda L, d: (_table(L, d, math.sin, math.cos), d), "not a tuple"),
            (lambda L, d: _table(L, d, math.sin, math.cos,
                                 lambda p, j: p / 10000 ** (2 * (j // 2) / d)), "Transformer's schedule"),
            (lambda L, d: _table(L, d, math.sin, math.cos, lambda p, j: p * (j // 2)), "not pos * i"),
            (lambda L, d: _table(L, d, math.sin, math.cos).astype(int), "integer dtype"),
            (lambda L, d: _table(L + 1, d, math.sin, math.cos)[1:], "counted positions from 1"),
            (lambda L, d: _table(L, d, math.sin, lambda a: 0.0), "you forgot the cosine"),
            (lambda L, d: _table(L, d, math.sin, math.cos, lambda p, j: math.radians(p)),
             "take radians"),
            (lambda L, d: _table(L, d, math.sin, math.cos, lambda p, j: j),
             "not the dimension index"),
            (lambda L, d: _table(L, d, math.sin, math.cos, lambda p, j: p + j),
             "do not add the dimension index"),
            (lambda L, d: _table(L, d, math.sin, math.sin), "not sin(position)"),
            (lambda L, d: _table(L, d, math.sin, lambda a: -math.cos(a)), "wrong sign"),
            (lambda L, d: _table(L, d, math.sin, lambda a: math.sqrt(1 - math.sin(a) ** 2)),
             "loses the sign"),
            (lambda L, d: _table(L, d, math.sin, math.cos, lambda p, j: p / (j // 2 + 1)),
             "chapter 5's idea"),
            (lambda L, d: np.array([[math.sin(p)] * ((d + 1) // 2) + [math.cos(p)] * (d // 2)
                                    for p in range(L)]), "concatenated layout"),
            (lambda L, d: np.round(alternating(L, d), 3), "do not round"),
            (lambda L, d: alternating(L, d).T, "expected shape"),
        ],
        # float32 and lists pass without a note (rounding below the 1e-6 tolerance)
    },
    "check_pair_shift": {
        "correct": pair_shift,
        "wrong": [
            (lambda k, w: _rot(k * w, -1, 1), "(cos, sin) order"),      # the textbook matrix
            (lambda k, w: pair_shift(-k, w), "equals R(-k)"),           # the same matrix
            (lambda k, w: _rot(k, 1, -1), "k * omega, not k."),
            (lambda k, w: _rot(k / w, 1, -1), "not k / omega"),
            (lambda k, w: _rot(w, 1, -1), "not omega"),
            (lambda k, w: _rot(math.radians(k * w), 1, -1), "take radians"),
            (lambda k, w: pair_shift(k, w)[::-1], "rows are swapped"),
            (lambda k, w: pair_shift(k, w)[:, ::-1], "columns are swapped"),
            (lambda k, w: _rot(k * w, 1, 1), "has a minus"),
            (lambda k, w: np.diag([math.cos(k * w)] * 2), "off-diagonal entries are missing"),
            (lambda k, w: pair_shift(k, w).ravel(), "expected shape"),
            (lambda k, w: pair_shift(abs(k), w), "did you take abs(k)?"),
            (lambda k, w: pair_shift(int(k), w), "you cut it to a whole number"),   # k = 2.5
            (lambda k, w: pair_shift(round(k), w), "you cut it to a whole number"),
            (lambda k, w: pair_shift(math.ceil(k), w), "you rounded it up"),
            # written for a row vector: v @ M = v(p + k), so M is the transpose of R
            (lambda k, w: pair_shift(k, w).T, "a matrix written for a row vector"),
            # one step raised to the power k: right for whole k, TypeError for k = 2.5
            (lambda k, w: np.linalg.matrix_power(pair_shift(1, w), k), "k may be a fraction"),
            (_stepwise, "a loop over range(k)"),
        ],
    },
}
