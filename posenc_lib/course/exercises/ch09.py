"""Exercise checkers for chapter 9 (ALiBi: attention weights of one row, bias matrix, slopes).

Some mistakes cannot be told apart on every case: with equal content scores, a row indexed by
distance and a row with the penalty *added* are the same numbers, and in a causal matrix
``+m|i-j|`` equals ``-m(j-i)``. Where two diagnoses give identical output, the checker gives one
hint naming both possibilities instead of two hints that contradict each other.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ...maths import alibi as _alibi
from ._core import Diagnosis, Report, close, run_checks

__all__ = ["check_alibi_bias", "check_alibi_slopes", "check_last_row_weights"]


class _Recorder:
    """Calls the learner's function and remembers its last result, so that a diagnosis can ask
    "are these the right numbers in the wrong places?" about what the learner returned."""

    def __init__(self, student: Callable[..., Any]) -> None:
        self.student = student
        self.last: Any = None

    def __call__(self, *args: Any) -> Any:
        self.last = None
        self.last = self.student(*args)
        return self.last


def _as_floats(x: Any) -> np.ndarray | None:
    """``x`` as a float array, or None if it is not a numeric array."""
    if x is None or isinstance(x, (str, bytes, dict, set)):
        return None
    try:
        with np.errstate(all="ignore"):
            arr = np.asarray(x)
            if arr.dtype.kind not in "biuf":
                return None
            return np.asarray(arr, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return None


def _unless(wrong: Callable[..., Any], *others: Callable[..., Any]) -> Callable[..., Any]:
    """``wrong``, except on the cases where one of ``others`` gives the same output.

    Used when two mistakes coincide on some cases: there a separate diagnosis with a hint that
    names both takes over.
    """

    def diagnosis(*args: Any) -> Any:
        out = wrong(*args)
        for other in others:
            try:
                if close(out, other(*args)):
                    return None
            except Exception:  # the other diagnosis does not apply here
                continue
        return out

    return diagnosis


# -- exercise 1: the last row of weights (causal, equal content scores) ------------------------
def _row_ref(seq_len: int, slope: float) -> np.ndarray:
    return _alibi.weights(seq_len, slope, causal=True)[-1]


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x))
    return e / e.sum()


def _dist(seq_len: int) -> np.ndarray:
    return (seq_len - 1 - np.arange(seq_len)).astype(float)   # distance of key j from the query


def check_last_row_weights(student: Callable[[int, float], Any]) -> Report:
    """Exercise: weights of the last of ``seq_len`` tokens (causal, equal content scores)."""
    cases = [
        ("L=5, m=0.5", (5, 0.5)),
        ("L=5, m=0.1", (5, 0.1)),
        ("L=8, m=1/256", (8, 1 / 256)),
        ("L=3, m=2", (3, 2.0)),
    ]

    def unnormalised(seq_len: int, slope: float) -> np.ndarray:
        return np.exp(-slope * _dist(seq_len))

    def far_keys_win(seq_len: int, slope: float) -> np.ndarray:
        # indexing by distance (entry k = distance k) and adding the penalty (+m*dist) give the
        # same numbers when all content scores are equal: one hint names both
        return _row_ref(seq_len, slope)[::-1]

    def linear(seq_len: int, slope: float) -> np.ndarray:
        return _alibi.distance_profile(seq_len, slope, kind="linear")[::-1]

    def uniform(seq_len: int, slope: float) -> np.ndarray:
        return np.full(seq_len, 1.0 / seq_len)

    def base_two(seq_len: int, slope: float) -> np.ndarray:
        w = 2.0 ** (-slope * _dist(seq_len))
        return w / w.sum()

    def without_the_query(seq_len: int, slope: float) -> np.ndarray:
        return _softmax(-slope * _dist(seq_len)[:-1])

    def scores_only(seq_len: int, slope: float) -> np.ndarray:
        return -slope * _dist(seq_len) + 0.0

    def log_weights(seq_len: int, slope: float) -> np.ndarray:
        return np.log(_row_ref(seq_len, slope))

    diagnoses = [
        Diagnosis(scores_only, "these are the scores -m*dist, not weights (weights are never "
                               "negative): apply the softmax, exp(score) / sum of exp(score)."),
        Diagnosis(log_weights, "these are log-weights (log of the softmax, all negative): "
                               "return the weights themselves, exp of what you have."),
        Diagnosis(unnormalised, "divide by the sum: the weights of a row must add up to 1 "
                                "(that is the softmax's denominator)."),
        Diagnosis(far_keys_win, "your weights grow with distance instead of shrinking. Either "
                                "you indexed the result by distance (entry k = distance k), or "
                                "you added the penalty (+m*dist) instead of subtracting it; with "
                                "equal content scores both give these numbers. The result is "
                                "indexed by key position j = 0..L-1, so its last entry is the "
                                "query itself (distance 0, the largest weight), and the bias is "
                                "-m*dist."),
        Diagnosis(linear, "the weights are not linear in the distance: the softmax turns the "
                          "bias -m*dist into the factor exp(-m*dist)."),
        Diagnosis(uniform, "all weights are equal: the bias -m*dist is missing (that is slope "
                           "m = 0). Add -m*(L-1-j) to the equal content scores before the "
                           "softmax."),
        Diagnosis(base_two, "the softmax uses the natural exponential: the factor per step is "
                            "exp(-m), not 2**(-m)."),
        Diagnosis(without_the_query, "the query also attends to itself: the row has L weights, "
                                     "for keys j = 0..L-1 including j = L-1 (distance 0)."),
    ]
    return run_checks("last_row_weights", student, _row_ref, cases, diagnoses)


# -- exercise 2: the bias matrix ----------------------------------------------------------------
_MASKED = -1e6  # any entry at or below this counts as masked (-inf, -1e9, finfo.min, ...)


def _canonical(x: Any) -> Any:
    """``x`` with every entry <= -1e6 set to -1e6 (so -inf, -1e9 and finfo.min compare equal).

    Anything that is not a numeric array is returned unchanged, for the framework to report.
    """
    arr = _as_floats(x)
    if arr is None:
        return x
    arr = arr.copy()
    with np.errstate(invalid="ignore"):
        arr[arr <= _MASKED] = _MASKED
    return arr


def _bias_ref(seq_len: int, slope: float, causal: bool) -> np.ndarray:
    return _canonical(_alibi.bias(seq_len, slope, causal=causal))


def _grid(seq_len: int) -> tuple[np.ndarray, np.ndarray]:
    return np.arange(seq_len)[:, None], np.arange(seq_len)[None, :]


_MASKS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "upper": lambda i, j: j > i,          # the right one: keys after the query
    "lower": lambda i, j: j < i,          # keys before the query
    "diagonal": lambda i, j: j >= i,      # also the query itself
    "one_late": lambda i, j: j > i + 1,   # lets the next key through
}


def _bias_from(dist: Callable[[np.ndarray, np.ndarray], np.ndarray], *, sign: float = -1.0,
               mask: str = "upper", always: bool = False) -> Callable[[int, float, bool], Any]:
    def wrong(seq_len: int, slope: float, causal: bool) -> Any:
        i, j = _grid(seq_len)
        out = sign * slope * dist(i, j).astype(float)
        if (causal or always) and mask != "none":
            out = np.where(_MASKS[mask](i, j), -np.inf, out)
        return _canonical(out)

    return wrong


def _absd(i: np.ndarray, j: np.ndarray) -> np.ndarray:
    return np.abs(i - j)


def check_alibi_bias(student: Callable[[int, float, bool], Any]) -> Report:
    """Exercise: ``alibi_bias(seq_len, slope, causal)`` = -m|i-j|, keys after i masked if causal.

    Masked entries may be ``-inf`` or any number at or below -1e6 (-1e9, ``finfo.min``): such a
    number lies far below any score a visible key can have (ALiBi's bias reaches -1e6 only two
    million tokens back, even at m = 1/2). A fill such as -1e4 is rejected with that reason.
    """
    if not callable(student):
        return run_checks("alibi_bias", student, _bias_ref, [])  # raises the usual TypeError
    cases = [
        ("L=4, m=0.5, symmetric", (4, 0.5, False)),
        ("L=4, m=0.5, causal", (4, 0.5, True)),
        ("L=6, m=1/8, symmetric", (6, 0.125, False)),
        ("L=6, m=1/8, causal", (6, 0.125, True)),
        ("L=1, m=1, causal", (1, 1.0, True)),
    ]
    recorder = _Recorder(student)

    plus = _bias_from(_absd, sign=+1.0)
    j_minus_i = _bias_from(lambda i, j: j - i)

    def positive_behind(seq_len: int, slope: float, causal: bool) -> Any:
        # causal: +m|i-j| and -m(j-i) are the same matrix, so one hint names both
        return plus(seq_len, slope, causal) if causal else None

    def filled_with(kind: str) -> Callable[[int, float, bool], Any]:
        """The right bias, but the masked entries all hold one other value, of the given kind:
        "nan", "plus_inf", "leaks" (finite, exp(v) > 0: the softmax still gives those keys
        weight) or "finite" (so negative that exp(v) underflows to 0, but above -1e6)."""

        def wrong(seq_len: int, slope: float, causal: bool) -> Any:
            got = _as_floats(recorder.last)
            if not causal or got is None or got.shape != (seq_len, seq_len):
                return None
            i, j = _grid(seq_len)
            upper = j > i
            vals = got[upper]
            if vals.size == 0:
                return None
            v = vals[0]
            same = np.all(np.isnan(vals)) if np.isnan(v) else np.all(vals == v)
            if not same:
                return None
            with np.errstate(all="ignore"):
                found = ("nan" if np.isnan(v) else "plus_inf" if v == np.inf
                         else "leaks" if np.exp(v) > 0 else "finite" if v > _MASKED else None)
            if found != kind:
                return None
            out = _bias_ref(seq_len, slope, causal).copy()
            out[upper] = v
            return out

        return wrong

    def mask_times_inf(seq_len: int, slope: float, causal: bool) -> Any:
        # b + np.triu(np.ones((L, L)), 1) * -np.inf: 0 * (-inf) = NaN on every visible entry
        if not causal:
            return None
        i, j = _grid(seq_len)
        return _canonical(np.where(j > i, -np.inf, np.nan))

    def shortcut(seq_len: int, slope: float, causal: bool) -> Any:
        i, j = _grid(seq_len)
        out = slope * (j + 0 * i).astype(float)
        if causal:
            out = np.where(j > i, -np.inf, out)
        return _canonical(out)

    diagnoses = [
        Diagnosis(_unless(plus, j_minus_i),
                  "wrong sign: the bias subtracts m|i-j| (far keys must lose score, not gain "
                  "it)."),
        Diagnosis(positive_behind,
                  "keys before the query gain score instead of losing it. Either the sign is "
                  "wrong (the bias is -m|i-j|, not +m|i-j|) or you used (j-i) instead of the "
                  "absolute distance |i-j|; in a causal matrix both give these numbers."),
        Diagnosis(_bias_from(lambda i, j: i - j),
                  "use the absolute distance |i-j|: with (i-j), keys after the query get a "
                  "positive bias. A decoder's mask hides this bug; an encoder shows it."),
        Diagnosis(_unless(j_minus_i, plus),
                  "use the absolute distance |i-j|: with (j-i), keys before the query get a "
                  "positive bias."),
        Diagnosis(_bias_from(_absd, mask="none"),
                  "with causal=True, set the entries of keys after the query (j > i) to -inf."),
        Diagnosis(_bias_from(_absd, mask="lower"),
                  "the mask hides keys after the query (j > i, above the diagonal), not "
                  "before it."),
        Diagnosis(_bias_from(_absd, mask="diagonal"),
                  "you masked the diagonal too: a query always sees itself (distance 0, bias "
                  "0). Mask only j > i, not j >= i (np.triu(..., k=1), not k=0)."),
        Diagnosis(_bias_from(_absd, mask="one_late"),
                  "the mask starts one key too late: every key after the query (j > i) must be "
                  "-inf, including j = i + 1."),
        Diagnosis(_bias_from(_absd, always=True),
                  "with causal=False nothing is masked: an encoder sees keys on both sides."),
        Diagnosis(filled_with("leaks"),
                  "the masked entries (keys after the query, j > i) hold a finite value v, and "
                  "the softmax turns it into the weight factor e^v > 0: the query still sees "
                  "the future (with v = 0, each masked key gets as much weight as the query "
                  "itself). Use -np.inf."),
        Diagnosis(filled_with("finite"),
                  "the masked entries (keys after the query, j > i) hold a finite value such as "
                  "-1e4. Here it does give weight 0 (exp(-1e4) underflows to 0), but it is a "
                  "score a visible key can have too: with m = 1/2, the ALiBi bias of a key "
                  "20000 tokens back is -1e4, so the matrix no longer tells masked keys from far "
                  "visible ones. Use -np.inf (a finite fill is accepted only at or below -1e6, "
                  "such as -1e9 or np.finfo(float).min)."),
        Diagnosis(filled_with("nan"),
                  "the masked entries (keys after the query, j > i) are NaN: one NaN turns the "
                  "whole softmax row into NaN. Use -np.inf."),
        Diagnosis(filled_with("plus_inf"),
                  "the masked entries (keys after the query, j > i) are +inf: wrong sign. With "
                  "+inf the masked keys would take all the weight (and inf - inf in the softmax "
                  "gives NaN). Use -np.inf."),
        Diagnosis(mask_times_inf,
                  "the visible entries are NaN: multiplying a 0/1 mask by -np.inf gives "
                  "0 * (-inf) = NaN wherever the mask is 0 (numpy's 'invalid value'). Put -inf "
                  "only where j > i, e.g. np.where(j > i, -np.inf, bias)."),
        Diagnosis(shortcut,
                  "this is the key-position shortcut m*j. In a causal row it differs from "
                  "-m|i-j| by the constant m*i, which the softmax ignores, so the weights are "
                  "the same; but the exercise asks for the bias matrix itself, -m|i-j|, which "
                  "is 0 on the diagonal. (Without the mask the shortcut is not ALiBi at all.)"),
    ]

    def wrapped(seq_len: int, slope: float, causal: bool) -> Any:
        return _canonical(recorder(seq_len, slope, causal))

    report = run_checks("alibi_bias", wrapped, _bias_ref, cases, diagnoses)
    report.messages = [_masked_as_inf(m) for m in report.messages]
    return report


_MAX_ERROR = re.compile(r"wrong values \(max error \S+ at index (\([^)]*\)): "
                        r"expected (\S+), got (\S+)\)\.$")


def _masked_as_inf(message: str) -> str:
    """A "max error" message with -inf, not the internal -1e6, for masked entries: the checker
    compares every entry at or below -1e6 as -1e6, but the learner should read -inf."""
    m = _MAX_ERROR.search(message)
    canon = f"{_MASKED:.6g}"
    if m is None or canon not in (m.group(2), m.group(3)):
        return message
    where, expected, got = m.groups()
    expected = "-inf (a masked key, j > i)" if expected == canon else expected
    got = "-inf (or another value at or below -1e6)" if got == canon else got
    return (message[:m.start()] + f"wrong values (at index {where}: expected {expected}, "
            f"got {got}).")


# -- exercise 3: slopes for any head count ----------------------------------------------------
def _pow2(n: int) -> list[float]:
    return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]


def _naive(num_heads: int) -> np.ndarray:
    return np.array(_pow2(num_heads))


def _off_by_one(num_heads: int) -> np.ndarray:
    # h = 0 .. H-1 instead of 1 .. H (the first head gets slope 1, the last misses 1/256)
    def rule(n: int) -> list[float]:
        return [2.0 ** (-8.0 * h / n) for h in range(n)]

    if num_heads & (num_heads - 1) == 0:
        return np.array(rule(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return np.array(rule(p) + rule(2 * p)[0::2][: num_heads - p])


def _naive_off_by_one(num_heads: int) -> np.ndarray:
    return np.array([2.0 ** (-8.0 * h / num_heads) for h in range(num_heads)])


def _no_interleave(num_heads: int) -> np.ndarray:
    # the extra heads take the *first* slopes of the 2P-head list, not every other one
    if num_heads & (num_heads - 1) == 0:
        return np.array(_pow2(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return np.array(_pow2(p) + _pow2(2 * p)[: num_heads - p])


def _odd_instead_of_between(num_heads: int) -> np.ndarray:
    # took the 2nd, 4th, 6th, ... slopes of the 2P list ([1::2]): those repeat the P-head slopes
    if num_heads & (num_heads - 1) == 0:
        return np.array(_pow2(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return np.array(_pow2(p) + _pow2(2 * p)[1::2][: num_heads - p])


def _half_p_extras(num_heads: int) -> np.ndarray:
    # always P/2 in-between slopes, whatever H is (right only when H - P = P/2: 6, 12, 24, ...)
    if num_heads & (num_heads - 1) == 0:
        return np.array(_pow2(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return np.array(_pow2(p) + _pow2(2 * p)[0::2][: p // 2])


def _means_of_neighbours(num_heads: int) -> np.ndarray:
    # "between" read literally: geometric means of neighbouring P-head slopes (misses 2^(-4/P))
    if num_heads & (num_heads - 1) == 0:
        return np.array(_pow2(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    base = _pow2(p)
    means = [math.sqrt(a * b) for a, b in zip(base, base[1:])]
    return np.array(base + means[: num_heads - p])


def _next_power_truncated(num_heads: int) -> np.ndarray:
    p = 2 ** math.ceil(math.log2(num_heads))
    return np.array(_pow2(p)[:num_heads])


def check_alibi_slopes(student: Callable[[int], Any]) -> Report:
    """Exercise: ``alibi_slopes(num_heads)`` by the reference rule, for any head count."""
    if not callable(student):
        return run_checks("alibi_slopes", student, _alibi.slopes, [])  # the usual TypeError
    cases = [
        ("8 heads", (8,)),
        ("16 heads", (16,)),
        ("1 head", (1,)),
        ("12 heads", (12,)),
        ("6 heads", (6,)),
        ("24 heads", (24,)),
        # H - P differs from P/2 here (3 of 4, 48 of 64): "always add P/2" must fail
        ("7 heads", (7,)),
        ("112 heads (BLOOM)", (112,)),
    ]
    recorder = _Recorder(student)

    def reordered(power_of_two: bool) -> Callable[[int], Any]:
        """The learner's own answer, if it holds exactly the right slopes in another order
        (sorted either way, reversed, the extra heads first, ...), for H a power of two or not."""

        def wrong(num_heads: int) -> Any:
            if (num_heads & (num_heads - 1) == 0) != power_of_two:
                return None
            got = _as_floats(recorder.last)
            ref = _alibi.slopes(num_heads)
            if got is None or got.shape != ref.shape or close(got, ref):
                return None
            return got if close(np.sort(got), np.sort(ref)) else None

        return wrong

    diagnoses = [
        Diagnosis(_naive, "2^(-8h/H) is the rule for a power-of-two H only. For other H, take "
                          "the slopes of the largest power of two P below H, then add slopes of "
                          "the 2P-head rule."),
        Diagnosis(_off_by_one, "the exponent runs over h = 1..H, not 0..H-1: the first head's "
                               "slope is 2^(-8/H), never 1."),
        Diagnosis(_unless(_naive_off_by_one, _off_by_one),
                  "two things: the exponent runs over h = 1..H, not 0..H-1 (the first head's "
                  "slope is never 1), and 2^(-8h/H) is the rule for a power-of-two H only; for "
                  "other H, take the slopes of the largest power of two P below H, then add "
                  "slopes of the 2P-head rule."),
        Diagnosis(_no_interleave, "the extra heads take every other slope of the 2P-head list, "
                                  "starting with its first: the 1st, 3rd, 5th, ... slopes (in "
                                  "Python [0::2]), not its first H-P slopes."),
        Diagnosis(_odd_instead_of_between, "the 2nd, 4th, 6th, ... slopes of the 2P-head list "
                                           "(Python [1::2]) repeat the P-head slopes; take "
                                           "[0::2], the ones in between."),
        Diagnosis(_next_power_truncated, "do not cut the list of the next power of two: keep "
                                         "all P slopes of the power below, then add the "
                                         "in-between slopes."),
        Diagnosis(_half_p_extras, "the number of in-between slopes is H - P, not P/2: 7 heads "
                                  "are 4 + 3 slopes, BLOOM's 112 heads 64 + 48."),
        Diagnosis(_means_of_neighbours, "the in-between slopes are the slopes of the 2P-head "
                                        "list that are not in the P-head list (its 1st, 3rd, "
                                        "5th, ...: Python [0::2]). The first of them, "
                                        "2^(-4/P), lies above the steepest P-head slope, so "
                                        "geometric means of neighbouring P-head slopes miss "
                                        "it."),
        Diagnosis(reordered(True), "right slopes, wrong order: head 1 has the steepest slope, "
                                   "2^(-8/H), and the slopes fall from head to head down to "
                                   "1/256. Do not sort or reverse: pretrained weights expect "
                                   "this order."),
        Diagnosis(reordered(False), "right slopes, wrong order. Head order is not sorted order: "
                                    "heads 1..P get the P-head slopes, from 2^(-8/P) down to "
                                    "1/256; only then come the H - P in-between slopes, again "
                                    "from the largest, 2^(-4/P), downwards (so for 12 heads the "
                                    "steepest slope belongs to head 9). Do not sort or reverse: "
                                    "pretrained weights expect this order."),
    ]

    return run_checks("alibi_slopes", recorder, _alibi.slopes, cases, diagnoses)
