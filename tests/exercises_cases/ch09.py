"""Chapter 9: ALiBi's attention row, bias matrix and per-head slopes.

The correct answers are written from the formulas with Python loops and ``math``, not with the
library.
"""

import math

import numpy as np


# -- exercise 1: the last row of weights ---------------------------------------------------------
def last_row_weights(seq_len, slope):
    """softmax_j(-m (L-1-j)) with Python floats, largest score (the query's own, 0) first."""
    scores = [-slope * (seq_len - 1 - j) for j in range(seq_len)]
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    return np.array([x / sum(e) for x in e])


def _normalise(w):
    w = np.asarray(w, dtype=float)
    return w / w.sum()


def _row_positions_from_one(seq_len, slope):
    # positions 1..L, query at L: distances L - j for j = 1..L, the same numbers (shift-invariant)
    return last_row_weights(seq_len, slope)


def _row_float32(seq_len, slope):
    d = np.arange(seq_len - 1, -1, -1, dtype=np.float32)
    e = np.exp(np.float32(-slope) * d)
    return e / e.sum()


# -- exercise 2: the bias matrix -----------------------------------------------------------------
def alibi_bias(seq_len, slope, causal):
    rows = []
    for i in range(seq_len):
        row = []
        for j in range(seq_len):
            row.append(-math.inf if causal and j > i else -slope * abs(i - j))
        rows.append(row)
    return np.array(rows, dtype=float).reshape(seq_len, seq_len)


def _bias(seq_len, slope, causal, *, dist=lambda i, j: abs(i - j), sign=-1.0,
          masked=lambda i, j: j > i, fill=-math.inf, mask_when=None):
    mask_on = causal if mask_when is None else mask_when(causal)
    return np.array([[fill if mask_on and masked(i, j) else sign * slope * dist(i, j)
                      for j in range(seq_len)] for i in range(seq_len)],
                    dtype=float).reshape(seq_len, seq_len)


def _mask_times_inf(seq_len, slope, causal):
    # a common way to build the mask: bias + triu(ones, 1) * -inf; 0 * -inf is NaN
    b = np.array([[-slope * abs(i - j) for j in range(seq_len)] for i in range(seq_len)],
                 dtype=float).reshape(seq_len, seq_len)
    if causal:
        with np.errstate(invalid="ignore"):
            b = b + np.triu(np.ones((seq_len, seq_len)), 1) * -np.inf
    return b


def _halved_slope_no_mask(seq_len, slope, causal):
    # two mistakes at once (no diagnosis): the message must show -inf, not the internal -1e6
    return _bias(seq_len, slope / 2, causal, mask_when=lambda c: False)


def _shortcut(seq_len, slope, causal):
    return np.array([[-math.inf if causal and j > i else slope * j for j in range(seq_len)]
                     for i in range(seq_len)], dtype=float).reshape(seq_len, seq_len)


# -- exercise 3: slopes for any head count -------------------------------------------------------
def alibi_slopes(num_heads):
    """The reference rule, written out with a loop (no recursion, no library)."""
    p = 1
    while 2 * p <= num_heads:
        p *= 2
    out = [2.0 ** (-8.0 * h / p) for h in range(1, p + 1)]
    # the in-between slopes: odd powers of 2^(-4/P), i.e. the 1st, 3rd, ... of the 2P-head list
    out += [2.0 ** (-4.0 * k / p) for k in range(1, 2 * (num_heads - p), 2)]
    return np.array(out)


def _mpt_slopes(num_heads):
    # MosaicML's gen_slopes: the next power of two, then [1::2] + [::2], truncated (also correct)
    big = 1
    while big < num_heads:
        big *= 2
    s = [2.0 ** (-8.0 * h / big) for h in range(1, big + 1)]
    if big != num_heads:
        s = (s[1::2] + s[::2])[:num_heads]
    return np.array(s)


def _naive_slopes(num_heads):
    return np.array([2.0 ** (-8.0 * h / num_heads) for h in range(1, num_heads + 1)])


def _split(num_heads):
    p = 1
    while 2 * p <= num_heads:
        p *= 2
    return p, list(_naive_slopes(p)), list(_naive_slopes(2 * p))


def _no_interleave(num_heads):
    p, base, double = _split(num_heads)
    return np.array(base + (double[: num_heads - p] if p != num_heads else []))


def _odd_entries(num_heads):
    p, base, double = _split(num_heads)
    return np.array(base + (double[1::2][: num_heads - p] if p != num_heads else []))


def _half_p_extras(num_heads):
    # always P/2 in-between slopes: right for 6, 12, 24 heads, wrong for 7 (3 extras) or 112 (48)
    p, base, double = _split(num_heads)
    return np.array(base + (double[0::2][: p // 2] if p != num_heads else []))


def _means_of_neighbours(num_heads):
    # "between" read literally: geometric means of neighbouring P-head slopes
    p, base, _ = _split(num_heads)
    means = [math.sqrt(a * b) for a, b in zip(base, base[1:])]
    return np.array(base + (means[: num_heads - p] if p != num_heads else []))


def _first_two_swapped(num_heads):
    s = list(alibi_slopes(num_heads))
    if len(s) > 1:
        s[0], s[1] = s[1], s[0]
    return np.array(s)


def _extra_first(num_heads):
    p, base, double = _split(num_heads)
    return np.array((double[0::2][: num_heads - p] if p != num_heads else []) + base)


CASES = {
    "check_last_row_weights": {
        "correct": last_row_weights,
        "wrong": [
            (lambda L, m: np.array([-m * (L - 1 - j) for j in range(L)]), "these are the scores"),
            (lambda L, m: np.log(last_row_weights(L, m)), "log-weights"),
            (lambda L, m: np.exp(-m * (L - 1 - np.arange(L))), "divide by the sum"),
            # indexed by distance / penalty added: the same numbers, one hint naming both
            (lambda L, m: _normalise(np.exp(-m * np.arange(L))), "indexed the result by distance"),
            (lambda L, m: _normalise(np.exp(m * (L - 1 - np.arange(L)))), "added the penalty"),
            (lambda L, m: _normalise(np.maximum(0.0, 1 - m * (L - 1 - np.arange(L)))),
             "not linear in the distance"),
            (lambda L, m: np.ones(L) / L, "the bias -m*dist is missing"),
            (lambda L, m: _normalise(2.0 ** (-m * (L - 1 - np.arange(L)))),
             "natural exponential"),
            (lambda L, m: _normalise(np.exp(-m * (L - 1 - np.arange(L - 1)))),
             "the query also attends to itself"),
        ],
        # positions counted from 1 and float32 arithmetic are right answers: they pass
        "also_correct": [_row_positions_from_one, _row_float32],
    },
    "check_alibi_bias": {
        "correct": alibi_bias,
        "wrong": [
            (lambda L, m, c: _bias(L, m, c, sign=+1.0), "wrong sign"),
            (lambda L, m, c: _bias(L, m, c, sign=+1.0), "or you used (j-i)"),
            (lambda L, m, c: _bias(L, m, c, dist=lambda i, j: i - j),
             "with (i-j), keys after the query get a positive bias"),
            (lambda L, m, c: _bias(L, m, c, dist=lambda i, j: j - i),
             "with (j-i), keys before the query get a positive bias"),
            (lambda L, m, c: _bias(L, m, c, mask_when=lambda causal: False),
             "set the entries of keys after the query (j > i) to -inf"),
            (lambda L, m, c: _bias(L, m, c, masked=lambda i, j: j < i), "not before it"),
            (lambda L, m, c: _bias(L, m, c, masked=lambda i, j: j >= i),
             "you masked the diagonal too"),
            (lambda L, m, c: _bias(L, m, c, masked=lambda i, j: j > i + 1),
             "one key too late"),
            (lambda L, m, c: _bias(L, m, c, mask_when=lambda causal: True), "nothing is masked"),
            (lambda L, m, c: _bias(L, m, c, fill=0.0), "the query still sees the future"),
            (lambda L, m, c: _bias(L, m, c, fill=-5.0), "weight factor e^v > 0"),
            (lambda L, m, c: _bias(L, m, c, fill=-1e4), "20000 tokens back is -1e4"),
            (lambda L, m, c: _bias(L, m, c, fill=-1e5), "accepted only at or below -1e6"),
            (lambda L, m, c: _bias(L, m, c, fill=math.nan), "whole softmax row into NaN"),
            (lambda L, m, c: _bias(L, m, c, fill=math.inf), "+inf: wrong sign"),
            (_mask_times_inf, "0 * (-inf) = NaN"),
            (_halved_slope_no_mask, "expected -inf (a masked key"),
            (_shortcut, "key-position shortcut"),
            (lambda L, m, c: alibi_bias(L, m, c).T, "not before it"),
            (lambda L, m, c: "not a matrix", "returned a str"),
        ],
        # a huge finite mask (-1e9, finfo.min) and float32 are right answers: they pass
        "also_correct": [lambda L, m, c: _bias(L, m, c, fill=-1e9),
                         lambda L, m, c: _bias(L, m, c, fill=np.finfo(float).min),
                         lambda L, m, c: alibi_bias(L, m, c).astype(np.float32),
                         lambda L, m, c: alibi_bias(L, m, c).tolist()],
    },
    "check_alibi_slopes": {
        "correct": alibi_slopes,
        "wrong": [
            (_naive_slopes, "power-of-two H only"),
            (lambda H: np.array([2.0 ** (-8.0 * h / H) for h in range(H)]),
             "h = 1..H, not 0..H-1"),
            (lambda H: np.array([2.0 ** (-8.0 * h / H) for h in range(H)]),
             "power-of-two H only"),
            (_no_interleave, "every other slope"),
            (_odd_entries, "repeat the P-head slopes"),
            (lambda H: _naive_slopes(1 << (H - 1).bit_length())[:H], "do not cut the list"),
            (lambda H: np.sort(alibi_slopes(H))[::-1], "right slopes, wrong order"),
            (lambda H: np.sort(alibi_slopes(H)), "right slopes, wrong order"),
            (lambda H: alibi_slopes(H)[::-1], "right slopes, wrong order"),
            (_extra_first, "right slopes, wrong order"),
            (_extra_first, "steepest slope belongs to head 9"),
            (_first_two_swapped, "head 1 has the steepest slope, 2^(-8/H)"),
            (_half_p_extras, "H - P, not P/2"),
            (_means_of_neighbours, "geometric means of neighbouring"),
        ],
        "also_correct": [_mpt_slopes, lambda H: list(alibi_slopes(H)),
                         lambda H: alibi_slopes(H).astype(np.float32)],
    },
}
