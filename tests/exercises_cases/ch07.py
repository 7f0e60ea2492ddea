"""Chapter 7: Shaw et al.'s clipped relative indices and T5's buckets.

The correct answers are written from the formulas with Python loops (scalar ``math.log``), not
with the library.
"""

import math

import numpy as np


def shaw_ids(seq_len, k):
    return np.array([[min(max(j - i, -k), k) + k for j in range(seq_len)]
                     for i in range(seq_len)], dtype=int)


def _rel(seq_len):
    idx = np.arange(seq_len)
    return idx[None, :] - idx[:, None]


def t5_bucket(relative_position, num_buckets=32, max_distance=128, *, rounding=math.floor,
              flip=False, zero_up=False, cap=True, log_of_max=False, causal=False,
              exact_is_half=False):
    rel = np.asarray(relative_position)
    out = np.empty(rel.shape, dtype=int)
    for idx, r in np.ndenumerate(rel):
        r = int(r)
        if causal:
            half, n, up = num_buckets, max(-r, 0), False
        else:
            half, n = num_buckets // 2, abs(r)
            up = (r < 0) if flip else ((r >= 0) if zero_up else (r > 0))
        m = half if exact_is_half else half // 2
        if n < m:
            b = n
        else:
            denom = math.log(max_distance) if log_of_max else math.log(max_distance / m)
            b = m + int(rounding(math.log(n / m) / denom * (half - m)))
            if cap:
                b = min(b, half - 1)
        out[idx] = b + (half if up else 0)
    return out


def _t5_no_exact_branch(relative_position, num_buckets=32, max_distance=128):
    r = np.asarray(relative_position)
    half = num_buckets // 2
    m = half // 2
    with np.errstate(divide="ignore"):
        large = m + np.floor(np.log(np.abs(r) / m) / np.log(max_distance / m) * (half - m))
    return np.minimum(large, half - 1) + np.where(r > 0, half, 0)


def _t5_only_zero_exact(relative_position, num_buckets=32, max_distance=128):
    # the exact branch for n = 0 only: distances 1 .. m-1 go through the logarithm
    r = np.asarray(relative_position)
    half = num_buckets // 2
    m = half // 2
    n = np.abs(r)
    with np.errstate(divide="ignore"):
        large = m + np.floor(np.log(np.maximum(n, 1) / m) / np.log(max_distance / m)
                             * (half - m)).astype(int)
    bucket = np.where(n == 0, 0, np.minimum(large, half - 1))
    return bucket + np.where(r > 0, half, 0)


def _t5_causal_half(relative_position, num_buckets=32, max_distance=128):
    # the decoder's rule (keys after the query count as distance 0) with B = num_buckets // 2
    out = np.empty(np.shape(relative_position), dtype=int)
    half = num_buckets // 2
    m = half // 2
    for idx, r in np.ndenumerate(np.asarray(relative_position)):
        n = max(-int(r), 0)
        out[idx] = n if n < m else min(half - 1, m + math.floor(
            math.log(n / m) / math.log(max_distance / m) * (half - m)))
    return out


def _t5_mutates_input(relative_position, num_buckets=32, max_distance=128):
    r = relative_position
    r *= -1  # flips the sign in place: a wrong answer that also changes its argument
    return t5_bucket(r, num_buckets, max_distance)


CASES = {
    "check_shaw_ids": {
        "correct": shaw_ids,
        "wrong": [
            (lambda L, k: shaw_ids(L, k).T, "use j - i, not i - j"),
            (lambda L, k: shaw_ids(L, k) - k, "add k after clipping"),
            (lambda L, k: _rel(L) + k, "clip the offset to [-k, k] before adding k"),
            (lambda L, k: np.clip(np.abs(_rel(L)), -k, k) + k, "keep the sign of j - i"),
            (lambda L, k: np.clip(_rel(L), -k + 1, k - 1) + k, "not [-(k-1), k-1]"),
            (lambda L, k: np.clip(_rel(L), -k, k - 1) + k, "clip symmetrically"),
            (lambda L, k: np.clip(_rel(L), -k - 1, k + 1) + k, "not [-(k+1), k+1]"),
            (lambda L, k: np.clip(_rel(L), -k - 1, k + 1) + k + 1, "not [-(k+1), k+1]"),
            (lambda L, k: np.minimum(_rel(L), k) + k, "not np.minimum"),
            (lambda L, k: np.maximum(_rel(L), -k) + k, "not np.maximum"),
            (lambda L, k: tuple(tuple(int(v) for v in row) for row in shaw_ids(L, k)),
             "returns a tuple"),
            (lambda L, k: shaw_ids(L, k).tolist(), "wrap the result in np.array"),
            (lambda L, k: shaw_ids(L, k) + k, "add k, not 2k"),
            (lambda L, k: shaw_ids(L, k).astype(float), "only integers can"),
            (lambda L, k: shaw_ids(L, k).astype(str), "dtype <U"),
        ],
    },
    "check_t5_bucket": {
        "correct": t5_bucket,
        "wrong": [
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, flip=True), "keys AFTER the query"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, zero_up=True),
             "offset 0 (the query itself) stays in bucket 0"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, cap=False), "cap the log-spaced"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, rounding=round), "do not round it"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, rounding=math.ceil), "not ceil"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, log_of_max=True),
             "not log(max_distance)"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, causal=True),
             "the causal (decoder) variant"),
            (lambda r, nb=32, md=128: t5_bucket(r, 2 * nb, md),  # B = num_buckets on each side
             "each side has num_buckets // 2 buckets"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md, exact_is_half=True),
             "the exact buckets are half of one side"),
            (_t5_no_exact_branch, "only n >= max_exact go through the logarithm"),
            (lambda r, nb=32, md=128: _t5_no_exact_branch(r, nb, md).astype(np.int64),
             "only n >= max_exact go through the logarithm"),
            (_t5_mutates_input, "keys AFTER the query"),
            (_t5_only_zero_exact, "not only n = 0"),
            (_t5_causal_half, "the causal (decoder) variant"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md).tolist(), "returns a list"),
            (lambda r, nb=32, md=128: t5_bucket(r, nb, md).astype(float), "astype(int)"),
        ],
    },
}
