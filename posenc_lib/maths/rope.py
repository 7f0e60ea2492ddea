r"""Rotary position embedding (RoPE, Su et al. 2021).

Split a query or key vector of dimension ``d`` into ``d/2`` pairs and rotate pair ``i`` of the
token at position ``pos`` by the angle :math:`pos\,\theta_i`, with the same frequencies as the
sinusoidal encoding, :math:`\theta_i = n^{-2i/d}`:

.. math::
    \begin{pmatrix} x'_a \\ x'_b \end{pmatrix} =
    \begin{pmatrix} \cos pos\theta_i & -\sin pos\theta_i \\
                    \sin pos\theta_i & \cos pos\theta_i \end{pmatrix}
    \begin{pmatrix} x_a \\ x_b \end{pmatrix}.

Because :math:`R(m)^\top R(n) = R(n-m)`, the score :math:`(R(m)q)\cdot(R(n)k) = q^\top R(n-m) k`
depends on the positions only through the offset :math:`n - m`.

Which two coordinates form pair ``i`` is a convention, and both are in use:

* ``pairing="interleaved"`` — adjacent coordinates ``(2i, 2i+1)``: RoFormer, GPT-J, Meta's
  original LLaMA code (as complex numbers);
* ``pairing="half"`` — "rotate-half", ``(i, i + d/2)``: GPT-NeoX, Hugging Face Llama/Mistral.

The maths is identical; the two differ by the fixed permutation
:func:`posenc_lib.maths.encodings.split_permutation` of the coordinates.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import (
    as_array,
    check_bool,
    check_choice,
    check_even_dim,
    check_finite_real,
    check_positive_int,
)
from .encodings import frequencies, pair_frequencies, split_permutation
from .rope_scaling import proportional_frequencies, scaled_frequencies

__all__ = ["PAIRINGS", "PARTIAL_CONVENTIONS", "angles", "apply", "rotation_matrix",
           "scaled_frequencies", "split_permutation"]

Pairing = Literal["interleaved", "half"]
PAIRINGS: tuple[Pairing, ...] = ("interleaved", "half")

Partial = Literal["leading", "proportional"]
#: The two conventions for rotating only ``rotary_dim`` = :math:`r` of a head's :math:`d` features
#: (see :func:`apply`): ``"leading"`` — the first :math:`r` features form a complete
#: :math:`r`-dimensional RoPE with frequencies :math:`n^{-2i/r}` (GPT-NeoX's ``rotary_pct``, GPT-J's
#: ``rotary_dim``, Hugging Face's ``partial_rotary_factor`` for most models); ``"proportional"`` —
#: the whole head is paired as usual, its first :math:`r/2` pairs turn with the full head's
#: frequencies :math:`n^{-2i/d}` and the other :math:`(d - r)/2` pairs have frequency 0 (Gemma 4's
#: ``rope_type="proportional"``; :func:`posenc_lib.maths.rope_scaling.proportional_frequencies`).
PARTIAL_CONVENTIONS: tuple[Partial, ...] = ("leading", "proportional")


def angles(positions: ArrayLike, d: int, base: float = 10000.0,
           frequencies: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""Rotation angles :math:`pos\,\theta_i`, shape ``positions.shape + (d // 2,)``, in float64.

    ``frequencies`` (shape ``(d // 2,)``) replaces :math:`\theta_i = n^{-2i/d}` when given (then
    ``base`` is not used): this is how stretched RoPE (chapter 11) plugs in.
    """
    pos = as_array("positions", positions).astype(np.float64)
    return pos[..., None] * pair_frequencies(d, base, frequencies)


def _positions_for(x: np.ndarray, positions: ArrayLike | None) -> np.ndarray:
    seq = x.shape[-2]
    if positions is None:
        return np.arange(seq, dtype=np.float64)
    pos = as_array("positions", positions).astype(np.float64)
    if pos.ndim != 1 or pos.shape[0] != seq:
        raise ValueError(
            f"positions must be a 1-D array with one entry per row of x (length {seq}), "
            f"got shape {pos.shape}"
        )
    return pos


def apply(x: ArrayLike, positions: ArrayLike | None = None, base: float = 10000.0,
          pairing: Pairing = "interleaved",
          frequencies: ArrayLike | None = None,
          rotary_dim: int | None = None,
          partial: Partial = "leading") -> NDArray[np.floating]:
    r"""Rotate every pair of ``x`` (shape ``(..., seq, d)``) by :math:`pos\,\theta_i`.

    ``positions`` (length ``seq``) defaults to ``0 .. seq-1`` and may hold non-integers (position
    interpolation). The dtype of ``x`` is kept (float32 in, float32 out); angles are computed in
    float64 first so large positions do not lose precision before the cast.

    Fast path: adjacent pairs are read as complex numbers :math:`x_{2i} + \mathrm{i}\,x_{2i+1}`
    and multiplied by :math:`e^{\mathrm{i}\,pos\,\theta_i}` in one pass; rotate-half uses
    :math:`x' = x \odot \cos + \mathrm{rotate\_half}(x) \odot \sin`.

    ``frequencies`` (shape ``(d // 2,)``) replaces :math:`\theta_i` when given (``base`` is then
    not used), e.g. the output of :func:`posenc_lib.maths.rope_scaling.scaled_frequencies`.

    ``rotary_dim`` (partial rotary, GPT-NeoX's ``rotary_pct`` and GPT-J's ``rotary_dim``): only
    the first ``rotary_dim`` features rotate, with the frequencies of a ``rotary_dim``-dimensional
    RoPE (:math:`n^{-2i/r}`; ``frequencies`` then has ``rotary_dim // 2`` entries); the other
    features pass through unchanged. The default, ``None``, rotates all ``d``.

    ``partial`` names the convention for ``rotary_dim`` (:data:`PARTIAL_CONVENTIONS`):
    ``"leading"`` (the default) is the one just described; ``"proportional"`` (Gemma 4) pairs the
    whole head by ``pairing`` and turns pair :math:`i` by :math:`pos\,n^{-2i/d}` for
    :math:`i < r/2` and not at all for the others (``frequencies``, if given, then has ``d // 2``
    entries, zeros included). With ``pairing="half"`` the proportional convention rotates features
    :math:`0 \dots r/2 - 1` with :math:`d/2 \dots d/2 + r/2 - 1`, not the first :math:`r`.
    """
    # NaN/inf in x are not rejected here (they propagate to the same coordinates of the output):
    # scanning a large activation tensor for them would cost more than the rotation itself.
    arr = as_array("x", x, min_ndim=2, finite=False)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    d = check_even_dim("d (the last dimension of x)", arr.shape[-1])
    partial = check_choice("partial", partial, PARTIAL_CONVENTIONS)
    if rotary_dim is not None:
        r = _check_rotary_dim(rotary_dim, d)
        if partial == "proportional":
            if frequencies is None:
                frequencies = proportional_frequencies(d, r, base)
        elif r < d:
            rotated = apply(arr[..., :r], positions, base, pairing, frequencies)
            return np.concatenate([rotated, arr[..., r:]], axis=-1)
    pos = _positions_for(arr, positions)
    ang = angles(pos, d, base, frequencies)  # (seq, d/2), float64
    out_dtype = arr.dtype
    if arr.dtype == np.float16:  # numpy has no complex32: compute in float32
        arr = arr.astype(np.float32)
    if pairing == "interleaved":
        ctype = np.complex64 if arr.dtype == np.float32 else np.complex128
        xc = np.ascontiguousarray(arr).view(ctype)  # (..., seq, d/2): x_{2i} + i x_{2i+1}
        rot = np.exp(1j * ang).astype(ctype)  # e^{i pos theta_i}        (seq, d/2)
        out = np.multiply(xc, rot).view(arr.dtype)
    else:
        out = _rotate_half(np.ascontiguousarray(arr), ang)
    return out.astype(out_dtype, copy=False)


def _check_rotary_dim(rotary_dim: object, d: int) -> int:
    if isinstance(rotary_dim, bool) or not isinstance(rotary_dim, (int, np.integer)):
        raise TypeError(f"rotary_dim must be an even integer between 2 and d = {d}, "
                        f"got {rotary_dim!r}")
    if not (2 <= rotary_dim <= d and rotary_dim % 2 == 0):
        raise ValueError(f"rotary_dim must be an even integer between 2 and d = {d}, "
                         f"got {rotary_dim!r}")
    return int(rotary_dim)


def _rotate_half(x: np.ndarray, ang: np.ndarray) -> np.ndarray:
    r"""``x * [cos, cos] + [-x2, x1] * [sin, sin]`` for pairs ``(i, i + d/2)``.

    Written as one full-width multiply plus two half-width ones per block of rows, so each block
    stays in cache; blocks run over the flattened leading dimensions.
    """
    seq, d = x.shape[-2:]
    h = d // 2
    cos = np.cos(ang).astype(x.dtype)
    sin = np.sin(ang).astype(x.dtype)
    cos2 = np.concatenate([cos, cos], axis=-1)  # (seq, d)
    flat = x.reshape(-1, seq, d)  # (N, seq, d)
    out = np.empty_like(flat)
    block = max(1, (1 << 18) // max(1, seq * d))  # ~1 MiB of float32 per block
    tmp = np.empty((min(block, flat.shape[0]), seq, d), dtype=x.dtype)
    for start in range(0, flat.shape[0], block):
        xb = flat[start:start + block]
        ob = out[start:start + block]
        tb = tmp[: xb.shape[0]]
        np.multiply(xb, cos2, out=ob)  # x * cos
        np.multiply(xb[..., h:], sin, out=tb[..., :h])  # first half:  - x2 sin
        np.negative(tb[..., :h], out=tb[..., :h])
        np.multiply(xb[..., :h], sin, out=tb[..., h:])  # second half: + x1 sin
        ob += tb
    return out.reshape(x.shape)


def rotation_matrix(position: float, d: int, base: float = 10000.0,
                    pairing: Pairing = "interleaved",
                    frequencies: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""The dense ``(d, d)`` matrix :math:`R(pos)` with ``apply(x)[pos] == R(pos) @ x[pos]``.

    For ``pairing="interleaved"`` it is block diagonal with 2×2 blocks
    :math:`\begin{pmatrix}\cos pos\theta_i & -\sin pos\theta_i\\
    \sin pos\theta_i & \cos pos\theta_i\end{pmatrix}`;
    for ``"half"`` the same entries sit at rows/columns ``i`` and ``i + d/2``. Built entry by entry
    (no shared code with :func:`apply`), so the two can check each other. For teaching and
    testing: it costs :math:`O(d^2)` memory where :func:`apply` needs :math:`O(d)`.
    ``frequencies`` replaces :math:`\theta_i` as in :func:`apply`.
    """
    d = check_even_dim("d", d)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    pos = check_finite_real("position", position)
    theta = pair_frequencies(d, base, frequencies)
    r = np.zeros((d, d))
    for i in range(d // 2):
        a, b = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + d // 2)
        c, s = np.cos(pos * theta[i]), np.sin(pos * theta[i])
        r[a, a], r[a, b] = c, -s
        r[b, a], r[b, b] = s, c
    return r



# --------------------------------------------------------------------------------------------
# Chapter 8: the 2-D picture, the dense form, pairing conversion, values, long-term decay
# --------------------------------------------------------------------------------------------

__all__ += ["all_ones_score", "apply_dense", "axial_apply", "convert_qk_weight", "decay_bound",
            "dense_matrices", "grid_positions", "pairing_permutation", "rope_attention", "rotate_2d"]


def rotate_2d(vectors: ArrayLike, positions: ArrayLike, theta: float) -> NDArray[np.float64]:
    r"""Rotate 2-D vectors counter-clockwise by :math:`pos\cdot\theta` (``theta`` in radians).

    ``vectors`` has shape ``(..., 2)`` and ``positions`` broadcasts against ``vectors[..., 0]``.
    This is RoPE with one pair (``d = 2``) and a free angle per step, the picture of chapter 8:

    .. math:: \begin{pmatrix}x'\\y'\end{pmatrix} =
        \begin{pmatrix}\cos pos\theta & -\sin pos\theta\\ \sin pos\theta & \cos pos\theta\end{pmatrix}
        \begin{pmatrix}x\\y\end{pmatrix}.

    Use ``np.deg2rad(25)`` for an angle of 25° per position.
    """
    v = as_array("vectors", vectors, min_ndim=1)
    if v.shape[-1] != 2:
        raise ValueError(f"vectors must have shape (..., 2), got shape {v.shape}")
    theta = check_finite_real("theta", theta)
    pos = as_array("positions", positions).astype(np.float64)
    try:
        ang = np.broadcast_to(pos, v.shape[:-1]) * theta  # (...)
    except ValueError as exc:
        raise ValueError(
            f"positions (shape {pos.shape}) must broadcast against vectors[..., 0] "
            f"(shape {v.shape[:-1]})"
        ) from exc
    c, s = np.cos(ang), np.sin(ang)
    x, y = v[..., 0], v[..., 1]
    return np.stack([c * x - s * y, s * x + c * y], axis=-1)


def dense_matrices(positions: ArrayLike, d: int, base: float = 10000.0,
                   pairing: Pairing = "interleaved",
                   frequencies: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""The rotation matrices :math:`R(pos)` of every position, stacked: shape ``(L, d, d)``.

    Same matrices as :func:`rotation_matrix`, built for all positions at once with fancy
    indexing (no Python loop), so the dense form can be timed fairly against :func:`apply`.
    Memory: :math:`L d^2` numbers, against :math:`L d` for the angles :func:`apply` needs.
    ``frequencies`` replaces :math:`\theta_i` as in :func:`apply`.
    """
    d = check_even_dim("d", d)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    pos = as_array("positions", positions).astype(np.float64)
    if pos.ndim != 1:
        raise ValueError(f"positions must be 1-D, got shape {pos.shape}")
    ang = angles(pos, d, base, frequencies)  # (L, d/2)
    c, s = np.cos(ang), np.sin(ang)
    i = np.arange(d // 2)
    a, b = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + d // 2)
    r = np.zeros((pos.shape[0], d, d))
    r[:, a, a], r[:, a, b] = c, -s
    r[:, b, a], r[:, b, b] = s, c
    return r


def apply_dense(x: ArrayLike, positions: ArrayLike | None = None, base: float = 10000.0,
                pairing: Pairing = "interleaved",
                frequencies: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""RoPE the slow, literal way: build :math:`R(pos)` for each row and multiply, ``R(pos) @ x``.

    Same result as :func:`apply` (shape ``(..., seq, d)``) at :math:`O(d^2)` work per row instead
    of :math:`O(d)`: the matrix is almost all zeros. Kept for teaching and for the benchmark.
    ``frequencies`` replaces :math:`\theta_i` as in :func:`apply`.
    """
    arr = as_array("x", x, min_ndim=2)
    pairing = check_choice("pairing", pairing, PAIRINGS)
    d = check_even_dim("d (the last dimension of x)", arr.shape[-1])
    pos = _positions_for(arr, positions)
    r = dense_matrices(pos, d, base, pairing, frequencies)  # (seq, d, d)
    return np.einsum("lij,...lj->...li", r, arr)


def pairing_permutation(d: int, source: Pairing = "interleaved",
                        target: Pairing = "half") -> NDArray[np.intp]:
    r"""Indices ``perm`` with ``x_target = x_source[..., perm]`` for vectors of dimension ``d``.

    Interleaved → half is :func:`~posenc_lib.maths.encodings.split_permutation`
    ``[0, 2, …, d-2, 1, 3, …, d-1]`` (pair ``i`` moves from ``(2i, 2i+1)`` to ``(i, i+d/2)``);
    half → interleaved is its inverse ``[0, d/2, 1, d/2+1, …]``. Permuting the *columns* of
    trained :math:`W_Q` and :math:`W_K` (the output features) this way converts a checkpoint from
    one convention to the other: ``apply(x @ W[:, perm], pairing=target)`` equals
    ``apply(x @ W, pairing=source)[..., perm]``.
    """
    d = check_even_dim("d", d)
    source = check_choice("source", source, PAIRINGS)
    target = check_choice("target", target, PAIRINGS)
    if source == target:
        return np.arange(d)
    perm = split_permutation(d)
    return perm if source == "interleaved" else np.argsort(perm)


def axial_apply(x: ArrayLike, rows: ArrayLike, cols: ArrayLike, base: float = 10000.0,
                pairing: Pairing = "interleaved") -> NDArray[np.floating]:
    r"""Axial (2-D) RoPE for image patches: the first half of each vector's features rotates
    with the patch's row, the second half with its column.

    ``x`` has shape ``(..., n_patches, d)`` with ``d`` divisible by 4; ``rows`` and ``cols``
    (length ``n_patches``) are each patch's grid coordinates (:func:`grid_positions` gives them
    for a row-major grid). Each half is a ``d/2``-dimensional RoPE (:func:`apply`) with
    frequencies :math:`n^{-2i/(d/2)}`, so a query–key score depends on the patches' offset
    :math:`(\Delta\text{row}, \Delta\text{col})` only (the axial scheme of Heo et al., 2024).
    """
    arr = as_array("x", x, min_ndim=2, finite=False)
    d = arr.shape[-1]
    if d % 4:
        raise ValueError(f"d (the last dimension of x) must be divisible by 4 for axial RoPE "
                         f"(two halves of pairs), got {d}")
    h = d // 2
    return np.concatenate([apply(arr[..., :h], rows, base, pairing),
                           apply(arr[..., h:], cols, base, pairing)], axis=-1)


def grid_positions(height: int, width: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Row and column of each patch of a ``height`` × ``width`` grid, in row-major order."""
    height = check_positive_int("height", height)
    width = check_positive_int("width", width)
    rows, cols = np.divmod(np.arange(height * width), width)
    return rows.astype(np.float64), cols.astype(np.float64)


def convert_qk_weight(w: ArrayLike, n_heads: int, source: Pairing = "interleaved",
                      target: Pairing = "half") -> NDArray[np.floating]:
    r"""A query or key projection converted between the RoPE pairings, head by head.

    ``w`` is laid out as ``torch.nn.Linear.weight``: shape ``(n_heads * head_dim, in_features)``,
    the rows of head ``h`` at ``h * head_dim … (h + 1) * head_dim - 1``. Each head's rows are
    permuted with :func:`pairing_permutation` ``(head_dim, source, target)``; the rows of one
    head never move to another. (One permutation over all ``n_heads * head_dim`` rows would mix
    the heads: wrong as soon as ``n_heads > 1``.) For Meta's Llama checkpoints (interleaved) →
    Hugging Face (rotate-half) this is the ``permute`` of ``convert_llama_weights_to_hf.py``.
    Then ``apply(head_h(x @ w_target.T), pairing=target)`` equals
    ``apply(head_h(x @ w.T), pairing=source)`` with the same permutation of its features, so
    every attention score is unchanged.
    """
    arr = as_array("w", w)
    if arr.ndim != 2:
        raise ValueError(f"w must be a 2-D weight (out_features, in_features), got shape {arr.shape}")
    n_heads = check_positive_int("n_heads", n_heads)
    if arr.shape[0] % n_heads:
        raise ValueError(f"w has {arr.shape[0]} rows, not a multiple of n_heads = {n_heads}")
    head_dim = check_even_dim("head_dim (rows of w / n_heads)", arr.shape[0] // n_heads)
    perm = pairing_permutation(head_dim, source, target)
    return arr.reshape(n_heads, head_dim, -1)[:, perm, :].reshape(arr.shape)


def rope_attention(x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike, w_v: ArrayLike,
                   positions: ArrayLike | None = None, base: float = 10000.0,
                   pairing: Pairing = "interleaved", rotate_values: bool = False,
                   causal: bool = False) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    r"""One attention head with RoPE: :math:`\mathrm{softmax}\big((R_iq_i)\cdot(R_jk_j)/\sqrt{d}\big)\,v_j`.

    ``x`` is ``(L, d_model)``; ``w_q``, ``w_k`` map to an even ``d`` and ``w_v`` to any width.
    ``rotate_values=True`` also rotates the values (what RoPE does *not* do): then each output is
    a mix of vectors rotated by their *absolute* positions, so shifting the whole sentence changes
    the outputs. Returns ``(output, weights)`` as :func:`posenc_lib.maths.attention.attention`.
    """
    from .attention import attention

    arr = as_array("x", x, min_ndim=2)
    if arr.ndim != 2:
        raise ValueError(f"x must be 2-D (L, d_model), got shape {arr.shape}")
    mats = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        m = as_array(name, w, min_ndim=2)
        if m.ndim != 2 or m.shape[0] != arr.shape[1]:
            raise ValueError(
                f"{name} must have shape (d_model, ·) with d_model={arr.shape[1]}, got {m.shape}"
            )
        mats[name] = m
    check_bool("rotate_values", rotate_values)
    if mats["w_q"].shape != mats["w_k"].shape:
        raise ValueError(
            f"w_q and w_k must have the same shape, got {mats['w_q'].shape} and {mats['w_k'].shape}"
        )
    q = apply(arr @ mats["w_q"], positions, base, pairing)
    k = apply(arr @ mats["w_k"], positions, base, pairing)
    v = arr @ mats["w_v"]
    if rotate_values:
        v = apply(v, positions, base, pairing)
    return attention(q, k, v, causal=causal)


def _distances(distances: ArrayLike) -> NDArray[np.float64]:
    return as_array("distances", distances).astype(np.float64)


def decay_bound(distances: ArrayLike, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""RoFormer's long-term decay curve :math:`\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|`.

    With :math:`r` the relative distance (key position minus query position),
    :math:`S_0 = 0` and :math:`S_j = \sum_{k=0}^{j-1} e^{\mathrm{i}\,r\theta_k}`, Abel summation
    bounds the RoPE score by
    :math:`|q^\top R(r) k| \le \big(\max_{0 \le j < d/2} |h_{j+1}-h_j|\big)\sum_{j=1}^{d/2}|S_j|`,
    where :math:`h_j = \overline{q_{(j)}}\,k_{(j)}` is the product of the query's pair ``j``
    (conjugated) and the key's, read as complex numbers, with the convention :math:`h_{d/2} = 0`
    (without it, equal :math:`h_j` would give a bound of 0). This function returns the second
    factor divided by :math:`d/2`, which depends only on :math:`r`; the bound is about fixed
    content at different distances, not about random or trained vectors. At :math:`r = 0` every
    :math:`|S_j| = j`, so the curve starts at its maximum :math:`(d/2+1)/2`; it decays, with
    ripples, as :math:`|r|` grows. Shape of ``distances``; ``d`` even, ``base`` >= 1.
    """
    r = _distances(distances)
    theta = frequencies(d, base)  # (d/2,)
    phases = np.exp(1j * r[..., None] * theta)  # (..., d/2)
    partial = np.cumsum(phases, axis=-1)  # S_1 .. S_{d/2}
    return np.abs(partial).mean(axis=-1)


def all_ones_score(distances: ArrayLike, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Score :math:`q^\top R(r)\,k / d` for all-ones :math:`q` and :math:`k` at distance :math:`r`.

    Each pair contributes :math:`(1,1)\,R(r\theta_i)\,(1,1)^\top = 2\cos(r\theta_i)`, so the
    result is :math:`\frac{2}{d}\sum_i \cos(r\theta_i)`, the average cosine: 1 at :math:`r=0`,
    shrinking (and wobbling) as the pairs drift out of phase. Shape of ``distances``.
    """
    r = _distances(distances)
    theta = frequencies(d, base)
    return np.cos(r[..., None] * theta).mean(axis=-1)


# --------------------------------------------------------------------------------------------
# Chapter 11: the score as a function of the (possibly fractional) relative position
# --------------------------------------------------------------------------------------------

__all__ += ["score_curve"]


def score_curve(q: ArrayLike, k: ArrayLike, distances: ArrayLike, base: float = 10000.0,
                pairing: Pairing = "interleaved",
                frequencies: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""The RoPE score :math:`q^\top R(\Delta)\,k` for one query and one key, at every offset
    :math:`\Delta` in ``distances`` (key position minus query position; any real number).

    Pair :math:`i` of ``q`` is :math:`(a_i, b_i)`, of ``k`` :math:`(c_i, e_i)` (coordinates
    ``(2i, 2i+1)`` or ``(i, i + d/2)`` by ``pairing``). Rotating the key's pair by
    :math:`\Delta\theta_i` and taking the dot product gives

    .. math::
        q^\top R(\Delta)\,k = \sum_{i=0}^{d/2-1}
            (a_i c_i + b_i e_i)\cos\Delta\theta_i + (b_i c_i - a_i e_i)\sin\Delta\theta_i
          = \mathrm{Re}\sum_i h_i\, e^{\mathrm{i}\,\Delta\theta_i},
        \qquad h_i = \overline{(a_i + \mathrm{i} b_i)}\,(c_i + \mathrm{i} e_i),

    which equals :math:`(R(m)q)\cdot(R(m+\Delta)k)` for every :math:`m`. ``q`` and ``k`` have
    shape ``(d,)``; the result has the shape of ``distances``. ``frequencies`` replaces
    :math:`\theta_i` as in :func:`apply`.
    """
    qv = as_array("q", q, min_ndim=1)
    kv = as_array("k", k, min_ndim=1)
    if qv.ndim != 1 or kv.ndim != 1 or qv.shape != kv.shape:
        raise ValueError(f"q and k must be 1-D vectors of the same length, got shapes "
                         f"{qv.shape} and {kv.shape}")
    d = check_even_dim("d (the length of q)", qv.shape[0])
    pairing = check_choice("pairing", pairing, PAIRINGS)
    ang = angles(_distances(distances), d, base, frequencies)  # (..., d/2)
    if pairing == "interleaved":
        a, b, c, e = qv[0::2], qv[1::2], kv[0::2], kv[1::2]
    else:
        a, b, c, e = qv[: d // 2], qv[d // 2:], kv[: d // 2], kv[d // 2:]
    return np.cos(ang) @ (a * c + b * e) + np.sin(ang) @ (b * c - a * e)
