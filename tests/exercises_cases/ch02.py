"""Chapter 2: normalised positions and the ratio of position part to word."""

import math

import numpy as np


def normalized_positions(seq_len):
    """A loop over the positions with Python floats; one token sits at 0."""
    if seq_len == 1:
        return np.array([0.0])
    return np.array([p / (seq_len - 1) for p in range(seq_len)])


def norm_ratio(emb, pe):
    """Row by row with Python floats: sqrt(sum of squares) of each row, then the quotient."""
    out = []
    for e_row, p_row in zip(np.asarray(emb, float), np.asarray(pe, float)):
        out.append(math.sqrt(sum(x * x for x in p_row)) / math.sqrt(sum(x * x for x in e_row)))
    return np.array(out)


def _no_guard(seq_len):
    return np.arange(seq_len) / (seq_len - 1)          # 0/0 = nan for one token


def _python_no_guard(seq_len):
    return [p / (seq_len - 1) for p in range(seq_len)]    # ZeroDivisionError for one token


def _guarded(seq_len, body):
    return np.zeros(1) if seq_len == 1 else body(seq_len)


def _norms16(a):
    """Row norms computed in float16 throughout (too coarse for the checker)."""
    a = np.asarray(a, np.float16)
    return np.sqrt(np.sum(a * a, axis=1))


def _norms(a, axis=1):
    return np.sqrt((np.asarray(a, float) ** 2).sum(axis=axis))


CASES = {
    "check_normalized_positions": {
        "correct": normalized_positions,
        "wrong": [
            (lambda L: np.arange(L) / L, "divide by L - 1, not L"),
            (lambda L: np.arange(1, L + 1) / L, "positions start at 0"),
            (lambda L: _guarded(L, lambda n: np.arange(1, n + 1) / (n - 1)),
             "your positions run from 1 to L"),
            (lambda L: np.arange(L, dtype=float), "raw positions"),
            (_no_guard, "a one-token sentence has L - 1 = 0"),
            (_python_no_guard, "a one-token sentence has L - 1 = 0"),
            (lambda L: np.ones(1) if L == 1 else normalized_positions(L),
             "position 0, so it gets 0"),
            (lambda L: 0.0 if L == 1 else normalized_positions(L), "not a bare number"),
            (lambda L: normalized_positions(L)[::-1], "reversed"),
            (lambda L: np.arange(L) // max(L - 1, 1), "integer division"),
            (lambda L: (np.arange(L) / max(L - 1, 1)).astype(int), "no .astype(int)"),
            (lambda L: normalized_positions(L).astype(np.float16), "float16"),
            # NaN for one token without any numpy warning: still the missing guard
            (lambda L: np.array([math.nan]) if L == 1 else normalized_positions(L),
             "a one-token sentence has L - 1 = 0"),
        ],
        # np.linspace(0, 1, L) and float32 results agree to within 1e-6: they pass without a note
    },
    "check_norm_ratio": {
        "correct": norm_ratio,
        "wrong": [
            (lambda w, p: _norms(w) / _norms(p), "upside down"),
            (lambda w, p: (np.asarray(p) ** 2).sum(1) / (np.asarray(w) ** 2).sum(1),
             "take square roots"),
            (lambda w, p: np.abs(p).sum(1) / np.abs(w).sum(1), "not the sum of absolute values"),
            (lambda w, p: _norms(p, 0) / _norms(w, 0), "use axis=1"),
            (lambda w, p: math.sqrt((np.asarray(p) ** 2).sum() / (np.asarray(w) ** 2).sum()),
             "one ratio per token"),
            (lambda w, p: np.full(len(w), np.linalg.norm(p) / np.linalg.norm(w)),
             "one ratio per token"),
            (lambda w, p: _norms(np.asarray(w) + p) / _norms(w), "not the norm of the sum"),
            (lambda w, p: _norms(np.asarray(p) / w), "divide the two norms"),
            (lambda w, p: (_norms(p) / _norms(w))[:, None], "not a column"),
            (lambda w, p: _norms(p) / _norms(w).mean(), "average word norm"),
            (lambda w, p: np.asarray(p)[:, 0] * math.sqrt(np.shape(p)[1]) / _norms(w),
             "only when every coordinate of the row is the same"),
            (lambda w, p: norm_ratio(w, p).astype(np.float16), "float16"),
            (lambda w, p: _norms16(p) / _norms16(w), "float16"),
        ],
        # the RMS ratio (both norms divided by sqrt(d)) is the same number: it passes
    },
}
