r"""Absolute position encodings: the integer baseline and the Transformer's sinusoids.

Notation (used in every chapter): ``pos`` is a token position, ``d`` the model dimension
(even), ``i`` the index of a *pair* of dimensions, :math:`0 \le i < d/2`, and ``n`` (``base``) the
constant 10000 of the Transformer paper.

.. math::

    \omega_i = n^{-2i/d}, \qquad
    \mathrm{PE}(pos, 2i) = \sin(pos\,\omega_i), \qquad
    \mathrm{PE}(pos, 2i+1) = \cos(pos\,\omega_i).

Two memory layouts of the same numbers:

* ``"interleaved"`` — sin at even dimensions, cos at odd ones (the paper, Vaswani et al. 2017);
* ``"concat"`` — all ``d/2`` sines first, then all ``d/2`` cosines, with the *same* frequencies.

They differ by the fixed permutation :func:`split_permutation`. Beware: tensor2tensor and fairseq
also concatenate, but space their frequencies as :math:`n^{-i/(d/2-1)}` instead of
:math:`n^{-2i/d}`, so their table is not a permutation of the paper's; it is
:func:`posenc_lib.maths.similarity.sinusoidal_tensor2tensor`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from ..checks import (
    as_array,
    check_base,
    check_choice,
    check_even_dim,
    check_finite_real,
    check_nonneg_int,
    check_positive_int,
)

__all__ = [
    "LAYOUTS",
    "LINEAR_CONVENTIONS",
    "alternating",
    "frequencies",
    "integer",
    "linear",
    "linear_frequencies",
    "normalized_integer",
    "pair_frequencies",
    "shift_matrix",
    "single_sine",
    "sinusoidal",
    "sinusoidal_at",
    "split_permutation",
    "wavelengths",
]

Layout = Literal["interleaved", "concat"]
LAYOUTS: tuple[Layout, ...] = ("interleaved", "concat")


def integer(seq_len: int, d: int) -> NDArray[np.float64]:
    r"""The naive encoding: add the position itself to every dimension.

    .. math:: \mathrm{PE}(pos, j) = pos \quad\text{for every } j.

    Returns an array of shape ``(seq_len, d)``; row ``pos`` is filled with ``pos``.
    ``d`` may be any positive integer here (nothing is paired).
    """
    seq_len = check_nonneg_int("seq_len", seq_len)
    d = check_positive_int("d", d)
    return np.repeat(np.arange(seq_len, dtype=np.float64)[:, None], d, axis=1)


def frequencies(d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Angular frequencies :math:`\omega_i = n^{-2i/d}` for :math:`i = 0, \dots, d/2-1`.

    ``omega[0] == 1`` (a full turn every :math:`2\pi` positions); the last one is
    :math:`n^{-(d-2)/d}`, just above :math:`1/n`. Shape ``(d // 2,)``.
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    i = np.arange(d // 2, dtype=np.float64)
    # omega_i = base ** (-2 i / d)
    return base ** (-2.0 * i / d)


def pair_frequencies(d: int, base: float = 10000.0,
                     given: ArrayLike | None = None) -> NDArray[np.float64]:
    r""":func:`frequencies` ``(d, base)``, or the ``given`` ones instead, checked: one finite value
    per pair, shape ``(d // 2,)`` (e.g. the stretched frequencies of
    :func:`posenc_lib.maths.rope_scaling.scaled_frequencies`)."""
    if given is None:
        return frequencies(d, base)
    d = check_even_dim("d", d)
    check_finite_real("base", base, minimum=1.0)
    f = as_array("frequencies", given)
    if f.ndim != 1 or f.shape[0] != d // 2:
        raise ValueError(
            f"frequencies must be a 1-D array with one value per pair (d // 2 = {d // 2}), "
            f"got shape {f.shape}"
        )
    return f.astype(np.float64)


def wavelengths(d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Wavelengths :math:`\lambda_i = 2\pi/\omega_i = 2\pi\, n^{2i/d}` in positions, shape ``(d//2,)``."""
    return 2.0 * np.pi / frequencies(d, base)


def split_permutation(d: int) -> NDArray[np.intp]:
    """Indices ``[0, 2, 4, ..., d-2, 1, 3, ..., d-1]``.

    ``v[..., split_permutation(d)]`` turns an interleaved vector (pairs ``(2i, 2i+1)``) into the
    split one (pair ``i`` at ``(i, i + d/2)``): interleaved → concat for sinusoidal encodings,
    adjacent → rotate-half for RoPE. ``np.argsort`` of it goes back.
    """
    d = check_even_dim("d", d)
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])


def sinusoidal_at(positions: ArrayLike, d: int, base: float = 10000.0,
                  layout: Layout = "interleaved",
                  dtype: DTypeLike = np.float64) -> NDArray[np.floating]:
    r"""Sinusoidal encoding of arbitrary (possibly non-integer) positions.

    ``positions`` has any shape ``S``; the result has shape ``S + (d,)``. Angles
    :math:`pos\,\omega_i` are computed in float64 and only the result is cast to ``dtype``.
    """
    d = check_even_dim("d", d)
    layout = check_choice("layout", layout, LAYOUTS)
    dtype = np.dtype(dtype)
    if not np.issubdtype(dtype, np.floating):
        raise TypeError(f"dtype must be a floating dtype, got {dtype}")
    pos = as_array("positions", positions).astype(np.float64)
    angles = pos[..., None] * frequencies(d, base)  # (..., d/2)
    out = np.empty(pos.shape + (d,), dtype=np.float64)
    if layout == "interleaved":
        out[..., 0::2] = np.sin(angles)
        out[..., 1::2] = np.cos(angles)
    else:
        out[..., : d // 2] = np.sin(angles)
        out[..., d // 2:] = np.cos(angles)
    return out.astype(dtype, copy=False)


def sinusoidal(seq_len: int, d: int, base: float = 10000.0, layout: Layout = "interleaved",
               dtype: DTypeLike = np.float64) -> NDArray[np.floating]:
    r"""The Transformer's encoding for positions ``0 .. seq_len-1``, shape ``(seq_len, d)``.

    .. math::
        \mathrm{PE}(pos, 2i) = \sin\!\big(pos / n^{2i/d}\big),\quad
        \mathrm{PE}(pos, 2i+1) = \cos\!\big(pos / n^{2i/d}\big)

    for ``layout="interleaved"``; ``layout="concat"`` stores the same numbers as
    ``[sin(pos ω_0) … sin(pos ω_{d/2-1}), cos(pos ω_0) … cos(pos ω_{d/2-1})]``.
    """
    seq_len = check_nonneg_int("seq_len", seq_len)
    return sinusoidal_at(np.arange(seq_len), d, base, layout, dtype)


# -- the naive encodings of chapters 2-5 ------------------------------------------------------
# Each one fixes something the previous one broke; chapters 2-5 measure what is left.
LINEAR_CONVENTIONS: tuple[str, ...] = ("pair", "dimension")


def _positions(seq_len: int) -> NDArray[np.float64]:
    return np.arange(check_nonneg_int("seq_len", seq_len), dtype=np.float64)


def normalized_integer(seq_len: int, d: int) -> NDArray[np.float64]:
    r"""The integer encoding rescaled to :math:`[0, 1]`: every dimension of row ``pos`` holds
    :math:`pos / (L - 1)`, with :math:`L` = ``seq_len``.

    A one-token sequence (``seq_len == 1``) gets 0 (there is nothing to divide by). The value of a
    position depends on the length of its sentence, which is what chapter 2 criticises.
    Shape ``(seq_len, d)``.
    """
    pos = _positions(seq_len)
    d = check_positive_int("d", d)
    denom = max(len(pos) - 1, 1)
    return np.repeat((pos / denom)[:, None], d, axis=1)


def single_sine(seq_len: int, d: int, omega: float = 1.0) -> NDArray[np.float64]:
    r"""One sine wave, the same in every dimension: :math:`\mathrm{PE}(pos, j) = \sin(\omega\,pos)`.

    ``omega`` is the angular frequency in radians per position (``1.0``: the plain
    :math:`\sin(pos)` of chapter 3; wavelength :math:`2\pi/\omega`). Any ``d >= 1``.
    Shape ``(seq_len, d)``.
    """
    pos = _positions(seq_len)
    d = check_positive_int("d", d)
    omega = check_finite_real("omega", omega, minimum=0.0, strict=True)
    return np.repeat(np.sin(omega * pos)[:, None], d, axis=1)


def alternating(seq_len: int, d: int, omega: float = 1.0) -> NDArray[np.float64]:
    r"""Sine at even dimensions, cosine at odd ones, all at the *same* frequency ``omega``:

    .. math:: \mathrm{PE}(pos, 2i) = \sin(\omega\,pos), \qquad \mathrm{PE}(pos, 2i+1) = \cos(\omega\,pos).

    Dimensions are counted from 0, so dimension 0 is a sine. Any ``d >= 1`` (an odd ``d`` ends
    with a sine). Every row is ``d/2`` copies of the point :math:`(\sin\omega pos, \cos\omega pos)`
    on the unit circle (chapter 4). Shape ``(seq_len, d)``.
    """
    pos = _positions(seq_len)
    d = check_positive_int("d", d)
    omega = check_finite_real("omega", omega, minimum=0.0, strict=True)
    out = np.empty((len(pos), d))
    out[:, 0::2] = np.sin(omega * pos)[:, None]
    out[:, 1::2] = np.cos(omega * pos)[:, None]
    return out


def linear_frequencies(d: int) -> NDArray[np.float64]:
    r"""The linear schedule of chapter 5: :math:`\omega_i = 1/(i+1)` for pairs :math:`i = 0 \dots d/2-1`.

    The divisor is the pair number counted *from 1*: the formula :math:`\sin(pos/2i)` that some
    explanations write divides by zero at :math:`i = 0`. Wavelengths :math:`2\pi(i+1)` grow in
    equal steps of :math:`2\pi` (compare :func:`frequencies`, which shrinks geometrically).
    Shape ``(d // 2,)``.
    """
    d = check_even_dim("d", d)
    return 1.0 / np.arange(1, d // 2 + 1, dtype=np.float64)


def linear(seq_len: int, d: int, convention: str = "pair") -> NDArray[np.float64]:
    r"""The ":math:`\sin(pos/i)`" family: frequencies falling like one over an index.

    ``convention="pair"`` (the book's choice) keeps the Transformer's pairing, so each pair is a
    point on a circle:

    .. math::
        \mathrm{PE}(pos, 2i) = \sin\!\Big(\frac{pos}{i+1}\Big), \qquad
        \mathrm{PE}(pos, 2i+1) = \cos\!\Big(\frac{pos}{i+1}\Big), \qquad i = 0, \dots, d/2-1.

    ``convention="dimension"`` divides by the (1-based) index of each *dimension* instead:
    :math:`\mathrm{PE}(pos, j) = \sin(pos/(j+1))` for even ``j`` and :math:`\cos(pos/(j+1))` for
    odd ``j`` — e.g. ``[sin(pos/1), cos(pos/2), sin(pos/3), cos(pos/4)]`` for ``d = 4``. Its sine
    and cosine never share a frequency, so it loses the rotation property of chapter 4; any
    ``d >= 1`` works for it, while ``"pair"`` needs an even ``d``. Shape ``(seq_len, d)``.
    """
    pos = _positions(seq_len)
    convention = check_choice("convention", convention, LINEAR_CONVENTIONS)
    if convention == "pair":
        omega = linear_frequencies(d)                        # (d/2,)
        out = np.empty((len(pos), d))
        out[:, 0::2] = np.sin(pos[:, None] * omega)
        out[:, 1::2] = np.cos(pos[:, None] * omega)
        return out
    d = check_positive_int("d", d)
    omega = 1.0 / np.arange(1, d + 1, dtype=np.float64)      # one frequency per dimension
    angles = pos[:, None] * omega
    even = (np.arange(d) % 2 == 0)
    return np.where(even, np.sin(angles), np.cos(angles))


def shift_matrix(offset: float, omegas: ArrayLike) -> NDArray[np.float64]:
    r"""The matrix :math:`R(k)` that moves a (sin, cos)-paired encoding ``offset`` positions on.

    For frequencies :math:`\omega_0, \dots, \omega_{m-1}` (``omegas``) it is block diagonal with

    .. math::
        \begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\ -\sin k\omega_i & \cos k\omega_i \end{pmatrix},
        \quad\text{so}\quad
        \begin{pmatrix}\sin\omega_i(p+k) \\ \cos\omega_i(p+k)\end{pmatrix} =
        R_i(k) \begin{pmatrix}\sin\omega_i p \\ \cos\omega_i p\end{pmatrix}

    for every position :math:`p` (the angle-addition formulas). With the interleaved layout,
    ``shift_matrix(k, frequencies(d, n)) @ sinusoidal_at(p, d, n) == sinusoidal_at(p + k, d, n)``.
    Each block is a rotation by :math:`k\omega_i`: clockwise if the pair (sin, cos) is read as
    (x, y), counter-clockwise as the book draws a pair (cosine across, sine up); it does not
    depend on :math:`p`. Shape ``(2m, 2m)``.
    """
    k = check_finite_real("offset", offset)
    w = as_array("omegas", omegas, min_ndim=1)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"omegas must be a non-empty 1-D array, got shape {w.shape}")
    out = np.zeros((2 * w.size, 2 * w.size))
    c, s = np.cos(k * w), np.sin(k * w)
    idx = 2 * np.arange(w.size)
    out[idx, idx], out[idx, idx + 1] = c, s
    out[idx + 1, idx], out[idx + 1, idx + 1] = -s, c
    return out
