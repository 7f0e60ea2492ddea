r"""When do two positions look the same? Collisions, near-periods and octaves (chapters 3–5).

A position encoding is useless for two positions whose vectors agree to the precision a model can
resolve. This module measures that, with two definitions of "agree":

* :func:`collision_pairs` / :func:`count_collisions` — the rows are equal after rounding every
  entry to ``decimals`` decimal places (how "sin(2) and sin(353) are the same to 3 decimals" is
  usually meant);
* :func:`close_pairs` — every entry differs by at most ``tol`` (no rounding boundaries).

It explains the collisions of a wave :math:`\sin(\omega\,pos)` by *near-periods*: offsets
:math:`k` for which :math:`\omega k` lands close to a whole number of turns (:func:`wrap_error`,
:func:`near_periods`). And it measures how a set of wavelengths covers the scales of a sequence
in *octaves* (factors of two): :func:`octave_span`, :func:`octave_counts`,
:func:`effective_octaves` — chapter 5 compares the linear schedule :math:`\lambda_i = 2\pi(i+1)`
with the Transformer's geometric one. Chapter 6 looks at the columns of an encoding as signals:
:func:`spectrum` and :func:`peak_frequencies` find the one frequency each column holds.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import as_array, check_finite_real, check_nonneg_int, check_positive_int

__all__ = [
    "circle_angle",
    "close_pairs",
    "collision_pairs",
    "count_collisions",
    "effective_octaves",
    "min_pair_distance",
    "near_periods",
    "octave_counts",
    "octave_span",
    "peak_frequencies",
    "spectrum",
    "wrap_error",
]

_TWO_PI = 2.0 * math.pi


def _as_rows(name: str, encoding: Any) -> NDArray[np.float64]:
    """An encoding as a 2-D ``(positions, dims)`` array; a 1-D array is one value per position."""
    arr = as_array(name, encoding, min_ndim=1).astype(np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D (one value per position) or 2-D "
                         f"(positions × dims), got shape {arr.shape}")
    return arr


def _rounded_groups(encoding: Any, decimals: Any) -> tuple[NDArray[np.intp], int]:
    arr = _as_rows("encoding", encoding)
    decimals = check_nonneg_int("decimals", decimals)
    # + 0.0 turns -0.0 into 0.0, so that round(-0.0001, 3) and round(0.0001, 3) group together
    rounded = np.round(arr, decimals) + 0.0
    if len(rounded) == 0:
        return np.zeros(0, dtype=np.intp), 0
    _, inverse = np.unique(rounded, axis=0, return_inverse=True)
    return inverse.reshape(-1), len(rounded)


def count_collisions(encoding: ArrayLike, decimals: int = 3) -> int:
    """Number of position pairs ``p < q`` whose encodings agree after rounding to ``decimals``.

    ``encoding`` is ``(positions, dims)`` (or 1-D: one value per position). Rows are grouped by
    their rounded values; a group of ``m`` equal rows holds ``m (m - 1) / 2`` pairs. Runs in
    :math:`O(L \\log L)`, so it works for long sequences.
    """
    inverse, _ = _rounded_groups(encoding, decimals)
    counts = np.bincount(inverse) if len(inverse) else np.zeros(0, dtype=np.int64)
    return int(np.sum(counts * (counts - 1) // 2))


def collision_pairs(encoding: ArrayLike, decimals: int = 3) -> NDArray[np.int64]:
    """The pairs counted by :func:`count_collisions`, as an ``(m, 2)`` array of ``(p, q)``, ``p < q``.

    Sorted by ``p``, then ``q``.
    """
    inverse, n = _rounded_groups(encoding, decimals)
    if n == 0:
        return np.zeros((0, 2), dtype=np.int64)
    order = np.argsort(inverse, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(inverse[order]) != 0])
    ends = np.r_[starts[1:], n]
    out = []
    for a, b in zip(starts, ends):
        if b - a > 1:
            members = np.sort(order[a:b])
            p, q = np.triu_indices(len(members), k=1)
            out.append(np.stack([members[p], members[q]], axis=1))
    if not out:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.concatenate(out).astype(np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def close_pairs(encoding: ArrayLike, tol: float) -> NDArray[np.int64]:
    r"""Pairs ``p < q`` with :math:`\max_j |\mathrm{PE}(p, j) - \mathrm{PE}(q, j)| \le` ``tol``.

    No rounding, so no boundary effects. Compares all pairs (:math:`O(L^2)`, in blocks), so keep
    the sequence to a few thousand positions. Returns an ``(m, 2)`` array sorted by ``p``, ``q``.
    """
    arr = _as_rows("encoding", encoding)
    tol = check_finite_real("tol", tol, minimum=0.0)
    n = len(arr)
    out = []
    block = max(1, 2_000_000 // max(1, n * arr.shape[1]))
    for start in range(0, n, block):
        rows = arr[start:start + block]
        diff = np.max(np.abs(rows[:, None, :] - arr[None, :, :]), axis=2)  # (block, n)
        p, q = np.nonzero(diff <= tol)
        p = p + start
        keep = q > p
        out.append(np.stack([p[keep], q[keep]], axis=1))
    if not out:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.concatenate(out).astype(np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def min_pair_distance(encoding: ArrayLike, min_gap: int = 1) -> tuple[float, int, int]:
    """The closest two positions at least ``min_gap`` apart: ``(distance, p, q)``, ``p < q``.

    Distance is Euclidean between rows. Ties go to the smallest ``p``, then ``q``. :math:`O(L^2)`.
    """
    arr = _as_rows("encoding", encoding)
    min_gap = check_positive_int("min_gap", min_gap)
    n = len(arr)
    if n <= min_gap:
        raise ValueError(f"min_gap must be smaller than the number of positions ({n}), "
                         f"got {min_gap}")
    best = (math.inf, -1, -1)
    for p in range(n - min_gap):
        rest = arr[p + min_gap:]
        dist = np.sqrt(np.sum((rest - arr[p]) ** 2, axis=1))
        j = int(np.argmin(dist))
        if dist[j] < best[0]:
            best = (float(dist[j]), p, p + min_gap + j)
    return best


def wrap_error(offsets: ArrayLike, omega: float = 1.0) -> NDArray[np.float64]:
    r"""How far :math:`\omega k` is from the nearest whole number of turns, in radians.

    :math:`\delta(k) = |\omega k - 2\pi\,\mathrm{round}(\omega k / 2\pi)| \in [0, \pi]` (one
    *turn* is :math:`2\pi` radians). Whole turns can be dropped,
    :math:`\sin\omega(p+k) = \sin(\omega p + \omega k - 2\pi m)`, and :math:`\sin` and :math:`\cos`
    change by at most the change of their argument, so
    :math:`|\sin\omega(p+k) - \sin\omega p| \le \delta(k)` for *every* position :math:`p`: an
    offset with a small :math:`\delta` is a near-period of the wave.

    Mirror pairs (:math:`\sin x = \sin(\pi - x)`) are measured with the same function: for
    :math:`\omega = 1`, ``wrap_error(p + q - math.pi)`` is the distance of :math:`p + q` from the
    nearest odd multiple of :math:`\pi`.
    """
    k = as_array("offsets", offsets)
    omega = check_finite_real("omega", omega, minimum=0.0, strict=True)
    turns = omega * k / _TWO_PI
    return np.abs(omega * k - _TWO_PI * np.round(turns))


def near_periods(omega: float = 1.0, max_offset: int = 1000) -> list[tuple[int, float]]:
    r"""Offsets ``k = 1..max_offset`` that are better near-periods than every smaller offset.

    Returns ``(k, wrap_error(k))`` for each ``k`` whose :func:`wrap_error` is smaller than that of
    all ``1 <= k' < k``. For :math:`\omega = 1` these are the best rational approximations of
    :math:`2\pi` (e.g. 44 ≈ 7 turns, 710 ≈ 113 turns): after ``k = 1``, the continued-fraction
    convergents 6/1, 19/3, 25/4, 44/7, 333/53, 710/113. For :math:`\omega = 10` the last record up
    to 1000 is 71, since 10 · 71 = 710.
    """
    max_offset = check_positive_int("max_offset", max_offset)
    k = np.arange(1, max_offset + 1)
    err = wrap_error(k, omega)
    out, best = [], math.inf
    for kk, e in zip(k.tolist(), err.tolist()):
        if e < best:
            out.append((kk, e))
            best = e
    return out


def circle_angle(sin_value: ArrayLike, cos_value: ArrayLike) -> NDArray[np.float64]:
    r"""The angle :math:`\theta \in [0, 2\pi)` with :math:`(\sin\theta, \cos\theta)` = the given pair.

    ``atan2(sin, cos)`` mapped to :math:`[0, 2\pi)`. For :math:`(\sin\omega p, \cos\omega p)` it
    returns :math:`\omega p \bmod 2\pi`: the pair pins the angle down up to whole turns, which a
    sine alone cannot (:math:`\sin\theta = \sin(\pi - \theta)`).
    """
    s = as_array("sin_value", sin_value)
    c = as_array("cos_value", cos_value)
    if s.shape != c.shape:
        raise ValueError(f"sin_value and cos_value must have the same shape, got {s.shape} "
                         f"and {c.shape}")
    angle = np.mod(np.arctan2(s, c), _TWO_PI)
    # a tiny negative angle maps to 2 pi - tiny, which rounds to exactly 2 pi: that is 0
    return np.where(angle >= _TWO_PI, 0.0, angle)


def _wavelength_ratios(wavelengths: ArrayLike) -> NDArray[np.float64]:
    lam = as_array("wavelengths", wavelengths, min_ndim=1)
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"wavelengths must be a non-empty 1-D array, got shape {lam.shape}")
    if np.any(lam <= 0):
        raise ValueError(f"wavelengths must be positive, got minimum {float(lam.min())!r}")
    return lam / lam.min()


def octave_span(wavelengths: ArrayLike) -> float:
    r"""How many octaves (doublings) separate the shortest and longest wavelength: :math:`\log_2(\lambda_{max}/\lambda_{min})`."""  # noqa: E501 (a formula)
    return float(np.log2(_wavelength_ratios(wavelengths).max()))


def octave_counts(wavelengths: ArrayLike) -> NDArray[np.int64]:
    r"""How many wavelengths fall in each octave above the shortest one.

    Entry ``b`` counts the :math:`\lambda` with :math:`2^b \le \lambda/\lambda_{min} < 2^{b+1}`
    (a ratio within :math:`10^{-9}` of a power of two counts as reaching it, so rounding in
    :math:`2\pi(i+1)` does not move a wavelength down an octave). Length
    :math:`\lfloor\log_2(\lambda_{max}/\lambda_{min})\rfloor + 1`.
    """
    ratio = _wavelength_ratios(wavelengths)
    octave = np.floor(np.log2(ratio) + 1e-9).astype(np.int64)
    return np.bincount(octave)


def effective_octaves(wavelengths: ArrayLike) -> float:
    r"""The number of octaves the wavelengths *effectively* use: :math:`2^{H}`, with :math:`H`
    the entropy in bits of the share of wavelengths per octave (:func:`octave_counts`).

    Equals the number of occupied octaves when they hold equally many wavelengths, and is smaller
    when a few octaves hold most of them. A schedule that piles its dimensions into its last
    octave wastes them on nearly the same scale.
    """
    counts = octave_counts(wavelengths)
    share = counts[counts > 0] / counts.sum()
    return float(2.0 ** (-np.sum(share * np.log2(share))))


def spectrum(values: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""The one-sided amplitude spectrum of each column of ``values`` (rows are positions).

    Returns ``(freqs, amps)``: ``freqs`` in cycles per position, :math:`0, 1/L, \dots, 1/2`
    (numpy's ``rfftfreq`` for :math:`L` positions), and ``amps`` of shape
    ``(len(freqs), columns)`` with :math:`|\mathrm{rfft}|\cdot 2/L` (the zero frequency
    :math:`|\mathrm{rfft}|/L`), so that :math:`\sin(2\pi f\,pos)` with a whole number of
    cycles in the window has amplitude 1 at :math:`f` and 0 elsewhere. A 1-D input is one column.
    """
    arr = _as_rows("values", values)
    n = len(arr)
    if n < 2:
        raise ValueError(f"values must hold at least 2 positions, got {n}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("values must be finite")
    amps = np.abs(np.fft.rfft(arr, axis=0)) * (2.0 / n)
    amps[0] /= 2.0
    if n % 2 == 0:
        amps[-1] /= 2.0          # the Nyquist bin, like the zero bin, has no mirror image
    return np.fft.rfftfreq(n).astype(np.float64), amps


def peak_frequencies(values: ArrayLike) -> NDArray[np.float64]:
    r"""For each column of ``values``, the frequency (cycles per position) of its largest
    spectral peak above zero frequency (:func:`spectrum`; the constant part is ignored).

    The answer lies on the grid :math:`k/L`. For a pure wave that turns many times in the window it
    is the grid point nearest the wave's frequency, within half a step, :math:`1/(2L)`; when the
    wave turns only a few times, leakage (from its mirror image at :math:`-f`, and for a cosine
    from its mean over the window) can move the peak a step further.
    """
    freqs, amps = spectrum(values)
    if len(freqs) < 2:
        raise ValueError("values must hold at least 2 positions")
    return freqs[1 + np.argmax(amps[1:], axis=0)]
