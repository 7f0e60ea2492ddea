"""Chapter 5: the linear encoding sin(pos/(i+1)), cos(pos/(i+1)) and octave counts."""

import math

import numpy as np


def linear_encoding(L, d):
    """Row by row with Python floats: pair i = j // 2, divisor i + 1."""
    return np.array([[math.sin(p / (j // 2 + 1)) if j % 2 == 0 else math.cos(p / (j // 2 + 1))
                      for j in range(d)] for p in range(L)])


def _table(L, d, angle, even=math.sin, odd=math.cos, start=0):
    """``even(angle(p, i))`` at dimension 2i, ``odd(angle(p, i))`` at 2i + 1, positions from
    ``start``; an angle that raises ZeroDivisionError gives NaN (as numpy would)."""
    def value(f, p, i):
        try:
            return f(angle(p, i))
        except (ZeroDivisionError, ValueError):
            return math.nan
    return np.array([[value(even if j % 2 == 0 else odd, p, j // 2) for j in range(d)]
                     for p in range(start, start + L)])


def _float32_encoding(L, d):
    pos = np.arange(L, dtype=np.float32)[:, None]
    ang = pos / np.arange(1, d // 2 + 1, dtype=np.float32)
    out = np.empty((L, d), dtype=np.float32)
    out[:, 0::2], out[:, 1::2] = np.sin(ang), np.cos(ang)
    return out


def octave_counts(lam):
    """A plain loop: the octave of each ratio, then a tally with room for empty octaves."""
    lam = [float(x) for x in lam]
    low = min(lam)
    octaves = [int(math.floor(math.log2(x / low) + 1e-9)) for x in lam]
    counts = [0] * (max(octaves) + 1)
    for b in octaves:
        counts[b] += 1
    return counts


def _octave_list(lam, ratio=None, log=math.log2, rounding=math.floor, eps=1e-9):
    lam = [float(x) for x in lam]
    r = [x / min(lam) for x in lam] if ratio is None else ratio(lam)
    return [int(rounding(log(x) + eps)) for x in r]


def _tally(octaves):
    return np.bincount(np.asarray(octaves))


CASES = {
    "check_linear_encoding": {
        "correct": linear_encoding,
        "wrong": [
            (lambda L, d: np.array([[math.sin(p / (j + 1)) if j % 2 == 0 else math.cos(p / (j + 1))
                                     for j in range(d)] for p in range(L)]),
             "each dimension by its own index"),
            (lambda L, d: _table(L, d, lambda p, i: p / i), "pair 0 divides by i = 0"),
            (lambda L, d: _table(L, d, lambda p, i: p / (2 * i)), "the divisor 2i is 0"),
            (lambda L, d: _table(L, d, lambda p, i: p / (2 * i + 2)), "not 2(i + 1)"),
            (lambda L, d: _table(L, d, lambda p, i: p / (i + 1), math.cos, math.sin),
             "you put the cosine first"),
            (lambda L, d: _table(L, d, lambda p, i: p / (i + 1), start=1),
             "counted positions from 1"),
            (lambda L, d: np.array([[math.sin(p / (i + 1)) for i in range(d // 2)] +
                                    [math.cos(p / (i + 1)) for i in range(d // 2)]
                                    for p in range(L)]), "interleave the pairs"),
            (lambda L, d: _table(L, d, lambda p, i: math.radians(p / (i + 1))), "take radians"),
            (lambda L, d: _table(L, d, lambda p, i: p * (i + 1)), "you multiplied"),
            (lambda L, d: _table(L, d, lambda p, i: p / 10000 ** (2 * i / d)),
             "geometric schedule"),
            (lambda L, d: linear_encoding(L, d).T, "you returned the transpose"),
            # no hint for these, but they must not pass
            (lambda L, d: _table(L, d, lambda p, i: p / (i + 1), odd=lambda a: -math.cos(a)),
             "wrong values"),
            (lambda L, d: np.round(linear_encoding(L, d), 2), "wrong values"),
        ],
        # float32 arithmetic passes without a note (inside the 1e-6 tolerance); see below
    },
    "check_octave_counts": {
        "correct": octave_counts,
        "wrong": [
            (lambda lam: np.bincount(np.maximum(np.ceil(np.log2(np.asarray(lam, float) / np.min(lam))
                                                        - 1e-9) - 1, 0).astype(int)),
             "closed on the right"),
            (lambda lam: _tally(_octave_list(lam, log=math.log10)), "not log10"),
            (lambda lam: _tally(_octave_list(lam, log=math.log)), "not the natural log"),
            (lambda lam: _tally(_octave_list(lam, ratio=lambda x: [v / x[0] for v in x])),
             "not the first entry"),
            (lambda lam: _tally(_octave_list(lam, ratio=lambda x: [v / (2 * math.pi) for v in x])),
             "not 2π"),
            (lambda lam: _tally(_octave_list(lam, rounding=math.ceil, eps=0.0)),
             "round down (floor)"),
            (lambda lam: _tally(_octave_list(lam, rounding=round, eps=0.0)),
             "not to the nearest whole number"),
            (lambda lam: _tally(_octave_list(lam, eps=0.0)), "add 1e-9"),
            (lambda lam: np.unique(_octave_list(lam), return_counts=True)[1],
             "empty octaves count too"),
            (lambda lam: _octave_list(lam), "octave number of each wavelength"),
            (lambda lam: np.cumsum(octave_counts(lam)), "no cumulative sum"),
            (lambda lam: np.asarray(octave_counts(lam)) / len(lam), "not shares"),
            (lambda lam: _tally(_octave_list(lam, ratio=lambda x: [max(x) / v for v in x])),
             "counts from the wrong end"),
            (lambda lam: _tally(_octave_list([2 * math.pi / v for v in lam])),   # frequencies
             "counts from the wrong end"),
            (lambda lam: _tally(_octave_list(lam, ratio=lambda x: x)), "not at λ = 1"),
            (lambda lam: np.histogram(np.log2(np.asarray(lam) / np.min(lam)),
                                      bins=int(math.floor(math.log2(max(lam) / min(lam)) + 1e-9))
                                      + 1)[0], "not at equal widths"),
        ],
    },
}

# the all-float32 computation is accurate enough: it passes without a note (tested in
# tests/chapters/test_ch05.py, so the claim in the exercise text stays true)
FLOAT32_PASSES = {"check_linear_encoding": _float32_encoding}
