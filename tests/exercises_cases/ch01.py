"""Chapter 1: attention weights and permutation matrices."""

import math

import numpy as np


def attention_weights(q, k):
    """Row by row with Python floats: scores, minus the row's maximum, exp, normalise."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    d_k = q.shape[1]
    rows = []
    for qi in q:
        scores = [sum(a * b for a, b in zip(qi, kj)) / math.sqrt(d_k) for kj in k]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        rows.append([x / sum(e) for x in e])
    return np.array(rows)


def _softmax_rows(s):
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _scaled(q, k):
    return q @ k.T / np.sqrt(q.shape[-1])


def _naive(q, k):
    e = np.exp(_scaled(q, k))
    return e / e.sum(1, keepdims=True)


def _global_max(q, k):
    s = _scaled(q, k)
    e = np.exp(s - s.max())
    return e / e.sum(1, keepdims=True)


def _naive_float32(q, k):
    s = (q.astype(np.float32) @ k.T.astype(np.float32)) / np.float32(np.sqrt(q.shape[-1]))
    e = np.exp(s)
    return e / e.sum(1, keepdims=True)


def _no_keepdims(q, k):
    s = _scaled(q, k)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1)


def _max_no_keepdims(q, k):
    s = _scaled(q, k)
    e = np.exp(s - s.max(axis=1))           # row j's maximum comes off column j
    return e / e.sum(axis=1, keepdims=True)


def _column_max(q, k):
    s = _scaled(q, k)
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _row_min(q, k):
    s = _scaled(q, k)
    e = np.exp(s - s.min(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _whole_sum(q, k):
    s = _scaled(q, k)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum()


def _float32(q, k):
    s = (q.astype(np.float32) @ k.T.astype(np.float32)) / np.float32(np.sqrt(q.shape[-1]))
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def permutation_matrix(order):
    n = len(order)
    return np.array([[1.0 if c == order[r] else 0.0 for c in range(n)] for r in range(n)])


CASES = {
    "check_attention_weights": {
        "correct": attention_weights,
        "wrong": [
            (lambda q, k: _softmax_rows(q @ k.T), "divide the scores by sqrt(`d_k`)"),
            (lambda q, k: _softmax_rows(q @ k.T / q.shape[-1]), "not `d_k`"),
            (lambda q, k: _softmax_rows(q @ k.T / (q.shape[-1] ** 1 / 2)), "`d_k**1/2` means"),
            (lambda q, k: _softmax_rows(-(q @ k.T) / np.sqrt(q.shape[-1])), "wrong sign"),
            (lambda q, k: _softmax_rows(q @ k.T / np.sqrt(k.shape[0])), "sqrt(`L_k`)"),
            (lambda q, k: _softmax_rows(q @ k.T / np.sqrt(len(q))), "sqrt(`L_q`)"),
            (lambda q, k: _softmax_rows(q @ k.T * np.sqrt(q.shape[-1])), "you multiplied"),
            (lambda q, k: _softmax_rows(_scaled(q, k).T).T, "normalise over keys"),
            (lambda q, k: _softmax_rows(_scaled(k, q)), "not `k @ q.T`"),
            (lambda q, k: attention_weights(q, k).T, "you returned the transpose"),
            (_naive, "subtract each row's maximum"),
            (_global_max, "not the maximum of the whole matrix"),
            (_naive_float32, "exp() of a large score overflows"),
            (_scaled, "apply the softmax"),
            (lambda q, k: np.log(_softmax_rows(_scaled(q, k))), "log-softmax"),
            (_no_keepdims, "keep the row sums as a column"),
            (_max_no_keepdims, "keepdims=True on the maximum"),
            (_column_max, "each column's maximum"),
            (_row_min, "not its minimum"),
            (_whole_sum, "not by the sum of the whole matrix"),
            (lambda q, k: np.exp(_scaled(q, k) - _scaled(q, k).max(axis=1, keepdims=True)),
             "you returned the exponentials"),
            # the chapter's attention_core returns two things; copying its last line:
            (lambda q, k: (attention_weights(q, k), None), "its first item is the right weight"),
            (lambda q, k: (attention_weights(q, k), _scaled(q, k)), "its first item is the right"),
            (lambda q, k: (_scaled(q, k), attention_weights(q, k)), "its second item is the right"),
            (lambda q, k: (_scaled(q, k), None), "none of its items is the expected"),
        ],
        # float32 arithmetic is within the checker's 1e-6 tolerance: it passes without a note
    },
    "check_permutation_matrix": {
        "correct": permutation_matrix,
        "wrong": [
            (lambda order: permutation_matrix(order).T, "you built the transpose"),
            (lambda order: np.eye(len(order))[:, list(order)], "you built the transpose"),
            (lambda order: np.eye(len(order))[np.argsort(order)], "inverse reordering"),
            (lambda order: np.eye(len(order)), "you returned the identity"),
            (lambda order: np.eye(len(order))[[o - 1 for o in order]], "shifted the positions"),
            (lambda order: np.asarray(order), "expected shape"),
        ],
    },
}
