r"""How distinguishable are positions? Similarity, distance and precision of sinusoidal encodings.

Everything here measures the Transformer's sinusoidal encoding
:math:`\mathrm{PE}(pos)` of :mod:`posenc_lib.maths.encodings` (frequencies :math:`\omega_i = n^{-2i/d}`,
``d/2`` pairs :math:`(\sin pos\,\omega_i, \cos pos\,\omega_i)`).

Because every pair is a point on the unit circle, three quantities depend on the *offset*
:math:`k = m - p` only, never on the positions themselves:

.. math::

    \mathrm{PE}(m)\cdot\mathrm{PE}(p) = \sum_{i} \cos(k\,\omega_i), \qquad
    \cos\angle\big(\mathrm{PE}(m), \mathrm{PE}(p)\big) = \tfrac{2}{d}\sum_i \cos(k\,\omega_i),
    \qquad
    \lVert \mathrm{PE}(m) - \mathrm{PE}(p) \rVert^2 = 2\sum_i \big(1 - \cos(k\,\omega_i)\big).

:func:`offset_dot`, :func:`offset_similarity` and :func:`offset_distance` compute these closed
forms; :func:`cosine_similarity_matrix` and :func:`nearest_neighbours` compute the same things
from the vectors, by brute force, for any set of vectors.

The module also holds the linear maps that move an encoding along the sequence
(:func:`shift_matrix`, :func:`derivative_matrix`), a census of which pairs wrap around or stay
frozen inside a window (:func:`pair_travel`, :func:`window_census`), the float32 arithmetic of a
typical implementation (:func:`sinusoidal_float32`), tensor2tensor's variant of the encoding
with its own frequency spacing (:func:`sinusoidal_tensor2tensor`), and the random embedding table
used to compare sizes (:func:`init_embeddings`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import (
    as_array,
    check_base,
    check_choice,
    check_even_dim,
    check_finite_real,
    check_nonneg_int,
    check_positive_int,
)
from . import encodings

__all__ = [
    "cosine_similarity_matrix",
    "derivative_matrix",
    "first_offset_below",
    "init_embeddings",
    "nearest_neighbours",
    "offset_distance",
    "offset_dot",
    "offset_similarity",
    "pair_travel",
    "permutation_matrix",
    "shift_matrix",
    "sinusoidal_float32",
    "sinusoidal_tensor2tensor",
    "tensor2tensor_frequencies",
    "window_census",
]

Layout = encodings.Layout


# -- brute force: any set of vectors ----------------------------------------------------------
def _matrix(name: str, x: ArrayLike) -> NDArray[np.float64]:
    arr = as_array(name, x).astype(np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (one vector per row), got shape {arr.shape}")
    return arr


def cosine_similarity_matrix(vectors: ArrayLike) -> NDArray[np.float64]:
    r"""Cosine similarity of every pair of rows.

    :math:`S_{ab} = v_a\cdot v_b/(\lVert v_a\rVert\lVert v_b\rVert)`.

    ``vectors`` has shape ``(L, d)``; the result has shape ``(L, L)``, ones on the diagonal.
    A zero row has no direction, so it is rejected.
    """
    v = _matrix("vectors", vectors)
    norms = np.linalg.norm(v, axis=1)
    if np.any(norms == 0):
        raise ValueError(f"vectors must not contain zero rows, got one at row {int(np.argmin(norms))}")
    u = v / norms[:, None]
    return np.clip(u @ u.T, -1.0, 1.0)


def nearest_neighbours(vectors: ArrayLike) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """For every row, the index of the closest *other* row and the Euclidean distance to it.

    Ties go to the lower index. Needs at least two rows.
    """
    v = _matrix("vectors", vectors)
    if v.shape[0] < 2:
        raise ValueError(f"vectors must have at least 2 rows, got shape {v.shape}")
    sq = np.sum(v * v, axis=1)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * v @ v.T, 0.0)
    np.fill_diagonal(d2, np.inf)
    idx = np.argmin(d2, axis=1)
    return idx, np.sqrt(d2[np.arange(v.shape[0]), idx])


# -- closed forms: functions of the offset only -------------------------------------------------
def _offsets(offsets: ArrayLike) -> NDArray[np.float64]:
    return as_array("offsets", offsets).astype(np.float64)


def offset_dot(offsets: ArrayLike, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""The dot product of encodings ``k`` apart, for each offset ``k``.

    :math:`\mathrm{PE}(p+k)\cdot\mathrm{PE}(p) = \sum_{i=0}^{d/2-1}\cos(k\,\omega_i)`.

    Same shape as ``offsets``. Equals ``d/2`` at ``k = 0``.
    """
    k = _offsets(offsets)
    omega = encodings.frequencies(d, base)
    return np.cos(k[..., None] * omega).sum(axis=-1)


def offset_similarity(offsets: ArrayLike, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Cosine similarity of :math:`\mathrm{PE}(p+k)` and :math:`\mathrm{PE}(p)`.

    :math:`\tfrac{2}{d}\sum_i\cos(k\,\omega_i)`.

    Every encoding has norm :math:`\sqrt{d/2}`, so this is :func:`offset_dot` divided by ``d/2``.
    """
    d = check_even_dim("d", d)
    return offset_dot(offsets, d, base) / (d / 2)


def offset_distance(offsets: ArrayLike, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Euclidean distance between encodings ``k`` apart.

    :math:`\lVert\mathrm{PE}(p+k)-\mathrm{PE}(p)\rVert = \sqrt{2\sum_i(1-\cos k\omega_i)}`.

    Computed as :math:`\sqrt{\sum_i 4\sin^2(k\omega_i/2)}`, which has no cancellation for small ``k``.
    """
    k = _offsets(offsets)
    omega = encodings.frequencies(d, base)
    return np.sqrt((4.0 * np.sin(k[..., None] * omega / 2.0) ** 2).sum(axis=-1))


def first_offset_below(level: float, d: int, base: float = 10000.0,
                       max_offset: int = 512) -> int | None:
    """The smallest offset ``k`` in ``1 .. max_offset`` with :func:`offset_similarity` ``<= level``.

    ``None`` if the similarity stays above ``level`` for every offset up to ``max_offset``.
    """
    level = check_finite_real("level", level)
    if not -1.0 <= level <= 1.0:
        raise ValueError(f"level must lie in [-1, 1], got {level!r}")
    max_offset = check_positive_int("max_offset", max_offset)
    k = np.arange(1, max_offset + 1)
    below = np.nonzero(offset_similarity(k, d, base) <= level)[0]
    return int(k[below[0]]) if below.size else None


# -- which pairs move inside a window ---------------------------------------------------------
def pair_travel(window: int, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""How far each pair can move within ``window`` consecutive positions, shape ``(d/2,)``.

    Pair ``i`` at positions ``p`` and ``p+k`` are two points on the unit circle, an angle
    :math:`k\omega_i` apart, at distance :math:`2|\sin(k\omega_i/2)|`. The largest value over the
    offsets :math:`0 \le k \le` ``window - 1`` is
    :math:`2\sin\big(\min((\text{window}-1)\,\omega_i/2,\ \pi/2)\big)`, between 0 (the pair never
    moves) and 2 (it reaches the opposite side of the circle). It does not depend on where the
    window starts.
    """
    window = check_positive_int("window", window)
    omega = encodings.frequencies(d, base)
    half_angle = np.minimum((window - 1) * omega / 2.0, np.pi / 2)
    return 2.0 * np.sin(half_angle)


def window_census(window: int, d: int, base: float = 10000.0,
                  threshold: float = 0.1) -> dict[str, int]:
    r"""Sort the ``d/2`` pairs by what they do inside a window of ``window`` positions.

    * ``"wrapping"``: the pair turns a full circle or more, :math:`(\text{window}-1)\,\omega_i \ge
      2\pi`, so its angle repeats inside the window (it cannot tell far positions apart alone);
    * ``"frozen"``: the pair moves by less than ``threshold`` (see :func:`pair_travel`): its
      values are nearly constant over the window;
    * ``"ruler"``: the rest — a pair that never repeats and visibly moves, so on its own it orders
      the positions of the window.

    The three counts add up to ``d/2``.
    """
    threshold = check_finite_real("threshold", threshold, minimum=0.0, strict=True)
    if threshold > 2.0:
        raise ValueError(f"threshold must be at most 2 (the circle's diameter), got {threshold!r}")
    travel = pair_travel(window, d, base)
    omega = encodings.frequencies(d, base)
    wrapping = (window - 1) * omega >= 2.0 * np.pi
    frozen = ~wrapping & (travel < threshold)
    return {
        "wrapping": int(wrapping.sum()),
        "frozen": int(frozen.sum()),
        "ruler": int((~wrapping & ~frozen).sum()),
    }


# -- linear maps along the sequence -----------------------------------------------------------
def permutation_matrix(d: int) -> NDArray[np.float64]:
    """The ``d x d`` matrix ``S`` with ``S @ pe_interleaved == pe_concat``.

    Row ``r`` has its 1 in column ``encodings.split_permutation(d)[r]``; ``S.T`` goes back.
    """
    perm = encodings.split_permutation(d)
    s = np.zeros((d, d))
    s[np.arange(d), perm] = 1.0
    return s


def shift_matrix(offset: float, d: int, base: float = 10000.0,
                 layout: Layout = "interleaved") -> NDArray[np.float64]:
    r"""The matrix :math:`M(k)` with :math:`\mathrm{PE}(p + k) = M(k)\,\mathrm{PE}(p)` for every ``p``.

    In the interleaved layout it is block diagonal, one :math:`2\times2` block per pair:

    .. math::
        \begin{pmatrix}\sin((p+k)\omega)\\ \cos((p+k)\omega)\end{pmatrix} =
        \begin{pmatrix}\cos k\omega & \sin k\omega\\ -\sin k\omega & \cos k\omega\end{pmatrix}
        \begin{pmatrix}\sin p\omega\\ \cos p\omega\end{pmatrix}

    (the angle-addition formulas). It is orthogonal and does not depend on ``p``. In the concat
    layout the same blocks sit at rows and columns ``(i, i + d/2)``.
    """
    d = check_even_dim("d", d)
    layout = check_choice("layout", layout, encodings.LAYOUTS)
    m = encodings.shift_matrix(offset, encodings.frequencies(d, base))
    if layout == "concat":
        p = permutation_matrix(d)
        m = p @ m @ p.T
    return m


def derivative_matrix(d: int, base: float = 10000.0,
                      layout: Layout = "interleaved") -> NDArray[np.float64]:
    r"""The matrix :math:`D` with :math:`\tfrac{d}{dp}\mathrm{PE}(p) = D\,\mathrm{PE}(p)`.

    Per pair, :math:`\tfrac{d}{dp}(\sin p\omega, \cos p\omega) = \omega(\cos p\omega, -\sin p\omega)`,
    so each block is :math:`\begin{pmatrix}0&\omega\\-\omega&0\end{pmatrix}`: the derivative of
    :func:`shift_matrix` at offset 0.
    """
    d = check_even_dim("d", d)
    layout = check_choice("layout", layout, encodings.LAYOUTS)
    omega = encodings.frequencies(d, base)
    m = np.zeros((d, d))
    idx = np.arange(0, d, 2)
    m[idx, idx + 1] = omega
    m[idx + 1, idx] = -omega
    if layout == "concat":
        p = permutation_matrix(d)
        m = p @ m @ p.T
    return m


# -- precision and scale ----------------------------------------------------------------------
def sinusoidal_float32(positions: ArrayLike, d: int, base: float = 10000.0) -> NDArray[np.float32]:
    r"""The encoding as a typical float32 implementation computes it (interleaved layout).

    Every step is float32, as in the usual PyTorch recipe: positions as float32, the frequencies
    as ``exp(2i * (-ln(n)/d))``, the angles as their product, then ``sin``/``cos``. Compare with
    :func:`posenc_lib.maths.encodings.sinusoidal_at` (angles in float64) to see the rounding error, which
    grows with the position. Positions must be non-negative.

    Each step is rounded to the nearest float32: ``exp``, ``sin`` and ``cos`` are evaluated in
    float64 and rounded, so the result is the same on every machine. (numpy's own float32 ``exp``
    is off by an ulp or two for some inputs, depending on the CPU's vector instructions; one ulp
    of a frequency near 1, times a position of 10⁷, moves an angle by about half a radian. Such
    an implementation has errors of the same order, but not the same numbers.)
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    pos = as_array("positions", positions).astype(np.float64)
    if np.any(pos < 0):
        raise ValueError("positions must be non-negative")
    p32 = pos.astype(np.float32)[..., None]
    two_i = np.arange(0, d, 2, dtype=np.float32)
    exponent = two_i * np.float32(-np.log(base) / d)                  # float32 product
    omega32 = np.exp(exponent.astype(np.float64)).astype(np.float32)  # correctly rounded exp
    angles = (p32 * omega32).astype(np.float64)                       # float32 product
    out = np.empty(pos.shape + (d,), dtype=np.float32)
    out[..., 0::2] = np.sin(angles).astype(np.float32)                # correctly rounded sin
    out[..., 1::2] = np.cos(angles).astype(np.float32)
    return out


def tensor2tensor_frequencies(d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""The frequencies of tensor2tensor's ``get_timing_signal_1d`` (also fairseq's), shape ``(d/2,)``.

    :math:`\omega_i = n^{-i/(d/2-1)}` for :math:`i = 0, \dots, d/2-1`: a geometric ladder from 1
    down to *exactly* :math:`1/n`, spaced by :math:`\ln n/(d/2-1)` in log-frequency. The paper's
    :func:`posenc_lib.maths.encodings.frequencies` are :math:`n^{-2i/d} = n^{-i/(d/2)}`, spaced by
    :math:`\ln n/(d/2)`, and stop at :math:`n^{-(d-2)/d}`: the two ladders agree only at
    :math:`i = 0`. For ``d == 2`` (one pair) the single frequency is 1, as in tensor2tensor.
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    half = d // 2
    step = np.log(base) / max(half - 1, 1)
    return np.exp(-step * np.arange(half, dtype=np.float64))


def sinusoidal_tensor2tensor(positions: ArrayLike, d: int,
                             base: float = 10000.0) -> NDArray[np.float64]:
    r"""The encoding as tensor2tensor (and fairseq) compute it, in float64, shape ``S + (d,)``.

    Two differences from the paper's :func:`posenc_lib.maths.encodings.sinusoidal_at`: the layout is
    concatenated (all ``d/2`` sines, then all ``d/2`` cosines), *and* the frequencies are
    :func:`tensor2tensor_frequencies`, so the table is **not** a permutation of the paper's. A
    checkpoint trained with one cannot be run with the other by permuting dimensions.
    """
    d = check_even_dim("d", d)
    pos = as_array("positions", positions).astype(np.float64)
    angles = pos[..., None] * tensor2tensor_frequencies(d, base)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)


def init_embeddings(vocab_size: int, d: int, seed: int = 0,
                    std: float | None = None) -> NDArray[np.float64]:
    r"""A random embedding table, shape ``(vocab_size, d)``, entries :math:`\mathcal N(0, \text{std}^2)`.

    ``std=None`` means :math:`1/\sqrt d`, the usual initialisation (for example fairseq's
    Transformer), which gives rows of norm close to 1.
    """
    vocab_size = check_positive_int("vocab_size", vocab_size)
    d = check_positive_int("d", d)
    seed = check_nonneg_int("seed", seed)
    sigma = d ** -0.5 if std is None else check_finite_real("std", std, minimum=0.0, strict=True)
    return np.random.default_rng(seed).normal(0.0, sigma, size=(vocab_size, d))
