"""Chapter 10: masked accuracy, the chance band, and the bias a reversed sequence sees."""

import math

import numpy as np


def masked_accuracy(logits, targets, mask):
    """A loop over every position: count the masked-in ones and the hits among them."""
    logits, targets, mask = np.asarray(logits), np.asarray(targets), np.asarray(mask)
    hits = counted = 0
    for idx in np.ndindex(mask.shape):
        if mask[idx]:
            counted += 1
            hits += int(np.argmax(logits[idx]) == targets[idx])
    return hits / counted


def _hits(z, y, m):
    return (np.argmax(z, axis=-1) == y) & m


def chance_band(n, p, z):
    half = z * math.sqrt(p * (1 - p) / n)
    return (max(0.0, p - half), min(1.0, p + half))


def _band(n, p, z, half, low=True, high=True):
    lo, hi = p - half, p + half
    return (max(0.0, lo) if low else lo, min(1.0, hi) if high else hi)


def reverse_positions(bias):
    """Entry (i, j) of the result is entry (L-1-i, L-1-j) of the bias, for every head."""
    b = np.asarray(bias, dtype=float)
    L = b.shape[-1]
    out = np.empty_like(b)
    for i in range(L):
        for j in range(L):
            out[..., i, j] = b[..., L - 1 - i, L - 1 - j]
    return out


def _permutation(bias):
    b = np.asarray(bias, dtype=float)
    r = np.eye(b.shape[-1])[::-1]
    return r @ b @ r.T


CASES = {
    "check_masked_accuracy": {
        "correct": masked_accuracy,
        "wrong": [
            (lambda z, y, m: np.mean(np.argmax(z, -1) == y), "you averaged over every position"),
            (lambda z, y, m: _hits(z, y, m).sum() / m.size,
             "you divided by the number of all positions"),
            (lambda z, y, m: np.mean(_hits(z, y, m).sum(-1) / m.sum(-1)),
             "you averaged per sequence"),
            (lambda z, y, m: _hits(z, y, m).sum(), "that is the number of hits"),
            (lambda z, y, m: np.mean((np.argmin(z, -1) == y)[m]), "`argmax`, not `argmin`"),
            (lambda z, y, m: np.mean((np.argmax(z, -1) == y)[~m]) if (~m).any() else 1.0,
             "you counted the positions where mask is false"),
            (lambda z, y, m: 100 * masked_accuracy(z, y, m), "that is a percentage"),
            (lambda z, y, m: 1 - masked_accuracy(z, y, m), "that is the error rate"),
            (lambda z, y, m: int(_hits(z, y, m).sum()) // int(m.sum()), "integer division"),
            (lambda z, y, m: _hits(z, y, m), "expected shape ()"),
            (lambda z, y, m: np.sum(np.argmax(z, -1) == y) / np.sum(m),
             "the mask belongs in the count too"),
            (lambda z, y, m: np.mean((np.argmax(z, -1) == y) | ~np.asarray(m)),
             "the positions without a target counted as right"),
            (lambda z, y, m: _hits(z, y, m).sum() / len(m), "`len(mask)` is the number of"),
            (lambda z, y, m: np.mean((np.argmax(z) == y)[m]),
             "without `axis=-1`"),
        ],
        "also_correct": [lambda z, y, m: np.float32(np.mean((np.argmax(z, -1) == y)[m]))],
    },
    "check_chance_band": {
        "correct": chance_band,
        "wrong": [
            (lambda n, p, z: _band(n, p, z, z * p * (1 - p) / n), "is the variance"),
            (lambda n, p, z: _band(n, p, z, z * math.sqrt(p * (1 - p))),
             "divide p(1-p) by n inside the square root"),
            (lambda n, p, z: _band(n, p, z, z * math.sqrt(n * p * (1 - p))),
             "spread of the number of right answers"),
            (lambda n, p, z: _band(n, p, z, z * math.sqrt(p * (1 - p)) / n),
             "n belongs inside the square root"),
            (lambda n, p, z: _band(n, p, z, z * math.sqrt(p * (1 - p) / (n - 1))),
             "divide by n, not n - 1"),
            (lambda n, p, z: _band(n, p, z, z * math.sqrt(p * (1 - p) / n), low=False,
                                   high=False), "clip it with"),
            (lambda n, p, z: _band(n, p, z, z * math.sqrt(p * (1 - p) / n), high=False),
             "the upper end is above 1"),
            (lambda n, p, z: _band(n, p, z, z * math.sqrt(p * (1 - p) / n), low=False),
             "the lower end is below 0"),
            (lambda n, p, z: (min(0.0, p - z * math.sqrt(p * (1 - p) / n)),
                              max(1.0, p + z * math.sqrt(p * (1 - p) / n))),
             "min and max are swapped"),
            (lambda n, p, z: chance_band(n, p, z)[::-1], "return (low, high) in this order"),
            (lambda n, p, z: chance_band(n, p, 1.96), "use the z you are given"),
            (lambda n, p, z: z * math.sqrt(p * (1 - p) / n), "expected shape (2,)"),
            (lambda n, p, z: _band(n, p, z, z * 0.5 / math.sqrt(n)),
             "use the p you are given"),
            (lambda n, p, z: [100 * e for e in chance_band(n, p, z)], "percentages"),
            (lambda n, p, z: [n * e for e in chance_band(n, p, z)], "numbers of right answers"),
        ],
        "also_correct": [lambda n, p, z: list(chance_band(n, p, z)),
                         lambda n, p, z: np.clip(p + np.array([-1, 1]) * z
                                                 * np.sqrt(p * (1 - p) / n), 0, 1)],
    },
    "check_reverse_positions": {
        "correct": reverse_positions,
        "wrong": [
            (lambda b: np.asarray(b)[..., ::-1, :], "you reversed the queries (rows) only"),
            (lambda b: np.asarray(b)[..., :, ::-1], "you reversed the keys (columns) only"),
            (lambda b: np.swapaxes(b, -1, -2), "reversal is not transposition"),
            (lambda b: np.asarray(b)[::-1, ::-1], "flip the last two axes"),
            (lambda b: np.flip(b), "without `axis` flips every axis"),
            (lambda b: np.rot90(b, 1, axes=(-2, -1)), "quarter turn"),
            (lambda b: np.swapaxes(np.asarray(b)[..., ::-1, ::-1], -1, -2),
             "drop the transposition"),
            (lambda b: -reverse_positions(b), "wrong values"),
            (lambda b: np.array(b, dtype=float), "you returned the bias unchanged"),
        ],
        "also_correct": [_permutation, lambda b: np.flip(b, axis=(-2, -1)),
                         lambda b: reverse_positions(b).astype(np.float32),
                         lambda b: reverse_positions(b).tolist()],
    },
}
