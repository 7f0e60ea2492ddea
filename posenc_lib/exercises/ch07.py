"""Exercise checkers for chapter 7 (learned and relative position encodings)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import relative as _relative
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_shaw_ids", "check_t5_bucket"]


def check_shaw_ids(student: Callable[[int, int], Any]) -> Report:
    r"""Exercise: ``shaw_ids(seq_len, k)``, the ``(L, L)`` table index :math:`\mathrm{clip}(j-i,-k,k)+k`."""
    cases = [
        ("L=4, k=2", (4, 2)),
        ("L=7, k=3 (clipping in both corners)", (7, 3)),
        ("L=5, k=0 (one shared vector)", (5, 0)),
        ("L=3, k=6 (no clipping)", (3, 6)),
    ]

    def ref(seq_len: int, k: int) -> np.ndarray:
        return _relative.shaw_relative_ids(seq_len, k)

    def rel(seq_len: int) -> np.ndarray:
        idx = np.arange(seq_len)
        return idx[None, :] - idx[:, None]

    diagnoses = [
        Diagnosis(lambda L, k: ref(L, k).T,
                  "rows are queries i and columns keys j: use j - i, not i - j."),
        Diagnosis(lambda L, k: ref(L, k) - k,
                  "add k after clipping, so the indices run 0 .. 2k (row k = same position)."),
        Diagnosis(lambda L, k: rel(L) + k,
                  "clip the offset to [-k, k] before adding k: far offsets share the edge rows."),
        Diagnosis(lambda L, k: np.clip(rel(L), -k, k),
                  "clip, then add k: indices must be >= 0 to index the table of 2k+1 vectors."),
    ]
    return run_checks("shaw_ids", student, ref, cases, diagnoses)


def _bucket_variant(rel: np.ndarray, num_buckets: int, max_distance: int, *, flip: bool = False,
                    cap: bool = True, rounding: Callable[[np.ndarray], np.ndarray] = np.floor,
                    log_of_max: bool = False, no_offset: bool = False) -> np.ndarray:
    """T5's bidirectional bucket with one deliberate change (for the hints)."""
    rel = np.asarray(rel)
    half = num_buckets // 2
    sign_up = rel < 0 if flip else rel > 0
    offset = np.zeros_like(rel) if no_offset else np.where(sign_up, half, 0)
    n = np.abs(rel)
    m = half // 2
    nf = np.maximum(n, m).astype(np.float64)
    denom = math.log(max_distance) if log_of_max else math.log(max_distance / m)
    large = m + rounding(np.log(nf / m) / denom * (half - m)).astype(np.int64)
    if cap:
        large = np.minimum(large, half - 1)
    return offset + np.where(n < m, n, large)


def check_t5_bucket(student: Callable[..., Any]) -> Report:
    """Exercise: ``t5_bucket(relative_position, num_buckets, max_distance)``, bidirectional T5."""
    grid = np.arange(6)
    cases = [
        ("offsets -200..200, 32 buckets, max_distance 128", (np.arange(-200, 201), 32, 128)),
        ("offsets -100..100, 16 buckets, max_distance 64", (np.arange(-100, 101), 16, 64)),
        ("a 6x6 matrix of offsets j - i", (grid[None, :] - grid[:, None], 32, 128)),
        ("far offsets ±1000, 32 buckets, max_distance 128", (np.array([-1000, 1000]), 32, 128)),
    ]

    def ref(rel: np.ndarray, nb: int, md: int) -> np.ndarray:
        return _relative.t5_bucket(rel, True, nb, md)

    diagnoses = [
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, flip=True),
                  "the upper half of the buckets is for keys AFTER the query (j - i > 0)."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, no_offset=True),
                  "keys after the query must use the upper half: add num_buckets // 2 when "
                  "j - i > 0, otherwise left and right share buckets."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, cap=False),
                  "cap the log-spaced bucket at num_buckets // 2 - 1: far offsets share the "
                  "last bucket of their half."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, rounding=np.round),
                  "truncate the log-spaced position to an integer (floor), do not round it."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, log_of_max=True),
                  "divide by log(max_distance / max_exact), not log(max_distance)."),
    ]
    return run_checks("t5_bucket", student, ref, cases, diagnoses)
