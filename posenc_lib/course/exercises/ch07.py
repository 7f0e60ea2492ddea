"""Exercise checkers for chapter 7 (learned and relative position encodings).

Both exercises return *indices* (a row of Shaw et al.'s table, a T5 bucket), so besides the
values each checker demands a numpy array of integers: a float array of the right numbers cannot
index the table of learned vectors (``table[ids]`` raises ``IndexError``), and a tuple would be
read as one index per axis. Lists and tuples are therefore rejected too, with a hint to wrap the
result in ``np.array``. The learner's function gets copies of the arguments, so an answer that
modifies its input in place cannot change the reference or the hints.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ...maths import relative as _relative
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_shaw_ids", "check_t5_bucket"]

# numpy >= 1.25 has numpy.exceptions; older versions keep the warning at the top level
_ComplexWarning = getattr(np, "exceptions", np).ComplexWarning


def _guarded(student: Callable[..., Any]) -> tuple[Callable[..., Any], list[Any]]:
    """``student`` called on deep copies of its arguments, recording every result it returns."""
    if not callable(student):
        raise TypeError(f"pass your function itself (without calling it), got {student!r}")
    results: list[Any] = []

    def call(*args: Any) -> Any:
        out = student(*copy.deepcopy(args))
        results.append(out)
        return out

    return call, results


def _dtype_of(result: Any) -> np.dtype | None:
    """The dtype of ``result`` as an array, or None if it is not a regular array of numbers."""
    if result is None or isinstance(result, (str, bytes, dict, set)):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arr = np.asarray(result)
    except Exception:  # whatever the learner's object does when converted: not numbers
        return None
    return arr.dtype if arr.dtype.kind in "biufcU" else None


def _run(title: str, student: Callable[..., Any], ref: Callable[..., Any], cases: list,
         diagnoses: list[Diagnosis], what: str) -> Report:
    """:func:`run_checks` on copies of the arguments, plus one check: the result is integers."""
    call, results = _guarded(student)
    with warnings.catch_warnings():
        # a complex answer makes numpy warn while comparing; the integer check reports it
        warnings.simplefilter("ignore", _ComplexWarning)
        report = run_checks(title, call, ref, cases, diagnoses)
    dtypes = [_dtype_of(r) for r in results]
    integer = report.ok and all(isinstance(r, np.ndarray) and dt is not None and dt.kind in "iu"
                                for r, dt in zip(results, dtypes))
    messages = list(report.messages)
    containers = [r for r in results if isinstance(r, (list, tuple))]
    wrong_kind = [dt for r, dt in zip(results, dtypes)
                  if isinstance(r, np.ndarray) and dt is not None and dt.kind not in "iu"]
    if containers:
        kind = type(containers[0]).__name__
        messages.append(
            f"integer check: your function returns a {kind}, but {what} must be a numpy array "
            f"of integers to index a table (table[ids]; a tuple would even be read as one index "
            f"per axis). Hint: wrap the result in np.array(..., dtype=int)."
        )
    elif wrong_kind:
        messages.append(
            f"integer check: your function returns an array of dtype {wrong_kind[0]}, but "
            f"{what} index a table, and only integers can (table[ids] needs an integer array). "
            f"Hint: convert at the end with .astype(int)."
        )
    return Report(title, report.passed + integer, report.total + 1, messages, list(report.notes))


# -- Exercise 1: Shaw et al.'s indices ---------------------------------------------------------
def check_shaw_ids(student: Callable[[int, int], Any]) -> Report:
    r"""Exercise: ``shaw_ids(seq_len, k)``, the ``(L, L)`` integer table index
    :math:`\mathrm{clip}(j-i,-k,k)+k` (row ``i`` the query, column ``j`` the key)."""
    cases = [
        ("L=6, k=2", (6, 2)),  # offsets up to ±5: clipping at ±3 differs from no clipping
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
                  "add k after clipping, so the indices run 0 .. 2k and can index the table of "
                  "2k+1 vectors (index k = same position)."),
        Diagnosis(lambda L, k: rel(L) + k,
                  "clip the offset to [-k, k] before adding k: far offsets share the edge rows."),
        Diagnosis(lambda L, k: np.clip(np.abs(rel(L)), 0, k) + k,
                  "keep the sign of j - i: a key 2 before the query and one 2 after it use "
                  "different vectors (indices k - 2 and k + 2)."),
        Diagnosis(lambda L, k: np.clip(rel(L), -(k - 1), k - 1) + k if k > 0 else None,
                  "clip to [-k, k], not [-(k-1), k-1]: offsets -k and +k have vectors of their "
                  "own."),
        Diagnosis(lambda L, k: np.clip(rel(L), -(k + 1), k + 1) + k,
                  "clip to [-k, k], not [-(k+1), k+1]: the table has 2k+1 vectors, for the "
                  "offsets -k .. k."),
        Diagnosis(lambda L, k: np.clip(rel(L), -(k + 1), k + 1) + k + 1,
                  "clip to [-k, k], not [-(k+1), k+1]: the table has 2k+1 vectors, for the "
                  "offsets -k .. k."),
        Diagnosis(lambda L, k: np.minimum(rel(L), k) + k,
                  "clip both sides: keys more than k positions BEFORE the query (j - i < -k) "
                  "must share the edge vector too (np.clip(j - i, -k, k), not np.minimum)."),
        Diagnosis(lambda L, k: np.maximum(rel(L), -k) + k,
                  "clip both sides: keys more than k positions AFTER the query (j - i > k) "
                  "must share the edge vector too (np.clip(j - i, -k, k), not np.maximum)."),
        Diagnosis(lambda L, k: np.clip(rel(L), -k, k - 1) + k if k > 0 else None,
                  "clip symmetrically, to [-k, k]: np.clip includes both ends."),
        Diagnosis(lambda L, k: ref(L, k) + k,
                  "add k, not 2k: the smallest offset -k must get index 0."),
        Diagnosis(lambda L, k: ref(L, k) + 1,
                  "indices start at 0 (numpy indexing): offset -k gets index 0, not 1."),
    ]
    return _run("shaw_ids", student, ref, cases, diagnoses, "the indices")


# -- Exercise 2: T5's buckets --------------------------------------------------------------------
def _bucket_variant(rel: np.ndarray, num_buckets: int, max_distance: int, *, flip: bool = False,
                    cap: bool = True, rounding: Callable[[np.ndarray], np.ndarray] = np.floor,
                    log_of_max: bool = False, no_offset: bool = False, zero_up: bool = False,
                    log_of_n: bool = False, exact_branch: bool = True, as_int: bool = True,
                    causal: bool = False, causal_half: bool = False, half_is_all: bool = False,
                    exact_is_half: bool = False, exact_only_zero: bool = False) -> np.ndarray:
    """T5's bucket with one deliberate change (for the hints); float64 arithmetic."""
    rel = np.asarray(rel)
    if causal:  # the decoder's variant: every bucket for keys before the query
        half = num_buckets // 2 if causal_half else num_buckets
        offset = np.zeros_like(rel)
        n = np.maximum(-rel, 0)
    else:
        half = num_buckets if half_is_all else num_buckets // 2
        sign_up = rel < 0 if flip else (rel >= 0 if zero_up else rel > 0)
        offset = np.zeros_like(rel) if no_offset else np.where(sign_up, half, 0)
        n = np.abs(rel)
    m = half if exact_is_half else half // 2
    if exact_only_zero:  # only n = 0 is exact; 1 .. m-1 go through the logarithm
        nf = np.maximum(n, 1).astype(np.float64)
    else:
        nf = (n if not exact_branch else np.maximum(n, m)).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(nf) / math.log(max_distance / m) if log_of_n else (
            np.log(nf / m) / (math.log(max_distance) if log_of_max else math.log(max_distance / m)))
        large = m + rounding(ratio * (half - m))
        if as_int:
            large = large.astype(np.int64)
    if cap:
        large = np.minimum(large, half - 1)
    if exact_only_zero:
        return offset + np.where(n == 0, 0, large)
    return offset + (np.where(n < m, n, large) if exact_branch else large)


def _unless_same(wrong: Callable[..., Any], other: Callable[..., Any]) -> Callable[..., Any]:
    """``wrong``, skipped (None) on the cases where it gives the same answer as ``other``: two
    diagnoses with the same hint then never print it twice."""

    def variant(*args: Any) -> Any:
        out = wrong(*args)
        return None if np.array_equal(out, other(*args)) else out

    return variant


def check_t5_bucket(student: Callable[..., Any]) -> Report:
    """Exercise: ``t5_bucket(relative_position, num_buckets, max_distance)``, bidirectional T5,
    returning an integer array of buckets."""
    grid = np.arange(6)
    cases = [
        ("offsets -200..200, 32 buckets, max_distance 128", (np.arange(-200, 201), 32, 128)),
        ("offsets -100..100, 16 buckets, max_distance 64", (np.arange(-100, 101), 16, 64)),
        ("a 6x6 matrix of offsets j - i", (grid[None, :] - grid[:, None], 32, 128)),
        ("far offsets ±1000, 32 buckets, max_distance 128", (np.array([-1000, 1000]), 32, 128)),
    ]

    def ref(rel: np.ndarray, nb: int, md: int) -> np.ndarray:
        return _relative.t5_bucket(rel, True, nb, md)

    exact_hint = ("distances below max_exact = num_buckets // 4 are their own bucket (n -> n); "
                  "only n >= max_exact go through the logarithm (log(0) is -inf).")
    only_zero_hint = ("every distance below max_exact = num_buckets // 4 is its own bucket "
                      "(n -> n), not only n = 0: the distances 1 .. max_exact - 1 must not go "
                      "through the logarithm.")
    diagnoses = [
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, flip=True),
                  "the upper half of the buckets is for keys AFTER the query (j - i > 0)."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, no_offset=True),
                  "keys after the query must use the upper half: add num_buckets // 2 when "
                  "j - i > 0, otherwise left and right share buckets."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, zero_up=True),
                  "offset 0 (the query itself) stays in bucket 0: add num_buckets // 2 only when "
                  "j - i > 0, not when j - i >= 0."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, cap=False),
                  "cap the log-spaced bucket at num_buckets // 2 - 1: far offsets share the "
                  "last bucket of their half."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, rounding=np.round),
                  "truncate the log-spaced position to an integer (floor), do not round it."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, rounding=np.ceil),
                  "truncate the log-spaced position to an integer (floor), not ceil."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, log_of_max=True),
                  "divide by log(max_distance / max_exact), not log(max_distance)."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, log_of_n=True),
                  "take the log of n / max_exact, not of n: the log-spaced buckets start at "
                  "n = max_exact."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, exact_branch=False),
                  exact_hint),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, exact_branch=False,
                                                    as_int=False), exact_hint),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, half_is_all=True),
                  "each side has num_buckets // 2 buckets (B), not num_buckets: keys after the "
                  "query add B = num_buckets // 2, and the cap is B - 1."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, exact_is_half=True),
                  "the exact buckets are half of one side: max_exact = (num_buckets // 2) // 2, "
                  "not num_buckets // 2."),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, exact_only_zero=True),
                  only_zero_hint),
        Diagnosis(_unless_same(
            lambda r, nb, md: _bucket_variant(r, nb, md, exact_only_zero=True, rounding=np.trunc),
            lambda r, nb, md: _bucket_variant(r, nb, md, exact_only_zero=True)), only_zero_hint),
        Diagnosis(lambda r, nb, md: _bucket_variant(r, nb, md, causal=True),
                  "that is the causal (decoder) variant; the exercise asks for the bidirectional "
                  "one: n = |j - i|, and keys after the query use the upper half."),
        Diagnosis(_unless_same(
            lambda r, nb, md: _bucket_variant(r, nb, md, causal=True, causal_half=True),
            lambda r, nb, md: _bucket_variant(r, nb, md, causal=True)),
                  "that is the causal (decoder) variant; the exercise asks for the bidirectional "
                  "one: n = |j - i|, and keys after the query use the upper half."),
    ]
    return _run("t5_bucket", student, ref, cases, diagnoses, "the buckets")
