r"""Learned absolute positions and learned *relative* positions (Shaw et al. 2018, T5).

Three schemes that store position information in trained parameters instead of a formula.

**Learned absolute table** (BERT, GPT-2): one trainable vector per position, added to the token
embedding,

.. math:: x'_{pos} = x_{pos} + P_{pos}, \qquad P \in \mathbb{R}^{L_{max} \times d}.

Position :math:`L_{max}` has no row, so such a model cannot read a longer input at all.

**Shaw et al. (2018)**: a table of :math:`2k+1` learned vectors :math:`a^K_r` indexed by the
offset :math:`j - i` clipped to :math:`[-k, k]`, added to the key inside the score,

.. math::
    e_{ij} = \frac{q_i \cdot \big(k_j + a^K_{\mathrm{clip}(j - i,\,-k,\,k)}\big)}{\sqrt{d}}.

**T5 (Raffel et al. 2020)**: one learned *scalar* per head and per bucket of the offset
:math:`j - i` (memory position minus query position), added to the logits,

.. math:: e_{ij} = q_i \cdot k_j + b_{\mathrm{bucket}(j - i)}

(T5 does not divide by :math:`\sqrt{d}`; that is folded into its initialisation). Buckets are
exact for small distances and logarithmically wider beyond, see :func:`t5_bucket`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import as_array, check_bool, check_finite_real, check_nonneg_int, check_positive_int

__all__ = [
    "learned_table",
    "lookup",
    "shaw_relative_ids",
    "shaw_scores",
    "t5_bias",
    "t5_bucket",
]


def _as_int_array(name: str, value: ArrayLike, why: str) -> NDArray[np.int64]:
    arr = as_array(name, value, floating=False)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be integers ({why}), got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


# --------------------------------------------------------------------------------------------
# Learned absolute table (BERT / GPT-2)
# --------------------------------------------------------------------------------------------


def learned_table(max_len: int, d: int, seed: int = 0, scale: float = 0.02) -> NDArray[np.float64]:
    r"""A ``(max_len, d)`` table of position vectors :math:`P_{pos,j} \sim \mathcal{N}(0,\sigma^2)`.

    Stands in for trained values. Real models draw the initial table at random and then learn
    it: BERT from a normal distribution of standard deviation 0.02 truncated at two standard
    deviations, GPT-2 from a normal distribution of standard deviation 0.01; ``scale`` is
    :math:`\sigma` (default 0.02). The draw is reproducible (``numpy.random.default_rng(seed)``).
    ``d`` may be any positive integer.
    """
    max_len = check_positive_int("max_len", max_len)
    d = check_positive_int("d", d)
    seed = check_nonneg_int("seed", seed)
    scale = check_finite_real("scale", scale, minimum=0.0)
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, scale, size=(max_len, d))  # (max_len, d)


def lookup(table: ArrayLike, positions: ArrayLike) -> NDArray[np.floating]:
    r"""Rows of a learned table, ``table[positions]``, of shape ``positions.shape + (d,)``.

    Positions must be integers in :math:`0 \le pos < L_{max}`. Anything else raises
    ``ValueError`` naming the position, e.g. ``position 512 is out of range for a learned table
    with max_len=512 (valid positions 0..511)`` — the hard context limit of a model with a learned
    table. (Plain numpy indexing would silently wrap ``-1`` to the last row; this does not.)
    """
    tab = as_array("table", table, min_ndim=2)
    if tab.ndim != 2:
        raise ValueError(f"table must be 2-D (max_len, d), got shape {tab.shape}")
    max_len = tab.shape[0]
    pos = _as_int_array("positions", positions, "a learned table has no row between two positions")
    bad = (pos < 0) | (pos >= max_len)
    if bad.any():
        first = int(pos[bad].flat[0])
        raise ValueError(
            f"position {first} is out of range for a learned table with max_len={max_len} "
            f"(valid positions 0..{max_len - 1})"
        )
    return tab[pos]  # positions.shape + (d,)


# --------------------------------------------------------------------------------------------
# Shaw et al. (2018): clipped relative positions
# --------------------------------------------------------------------------------------------


def shaw_relative_ids(seq_len: int, max_distance: int) -> NDArray[np.int64]:
    r"""Index of the relative vector used by query ``i`` and key ``j``, shape ``(L, L)``.

    .. math:: \mathrm{id}_{ij} = \mathrm{clip}(j - i,\, -k,\, k) + k \in \{0, \dots, 2k\},

    an index into a table of :math:`2k+1` learned vectors (row :math:`k` is "same position").
    Every offset beyond :math:`\pm k` shares the edge row, so the model cannot tell a distance of
    :math:`k` from a distance of :math:`k + 100`. ``max_distance`` is :math:`k`.
    """
    seq_len = check_nonneg_int("seq_len", seq_len)
    kmax = check_nonneg_int("max_distance", max_distance)
    idx = np.arange(seq_len, dtype=np.int64)
    rel = idx[None, :] - idx[:, None]  # j - i                    (L, L)
    return np.clip(rel, -kmax, kmax) + kmax


def shaw_scores(q: ArrayLike, k: ArrayLike, rel_keys: ArrayLike,
                max_distance: int) -> NDArray[np.floating]:
    r"""Attention logits with Shaw et al.'s relative key vectors, shape ``(..., L, L)``.

    .. math::
        e_{ij} = \frac{q_i \cdot \big(k_j + a^K_{\mathrm{clip}(j-i,\,-k,\,k)}\big)}{\sqrt{d}}
               = \frac{q_i \cdot k_j + q_i \cdot a^K_{\mathrm{id}_{ij}}}{\sqrt{d}}

    ``q`` and ``k`` are ``(..., L, d)`` (leading dimensions broadcast), ``rel_keys`` holds the
    :math:`2k+1` vectors :math:`a^K` as a ``(2 * max_distance + 1, d)`` array, row
    :func:`shaw_relative_ids` ``[i, j]`` for the pair ``(i, j)``. The relative term is computed
    as in the paper's efficient form: first all :math:`q_i \cdot a^K_r` (an ``(L, 2k+1)`` product),
    then one gather, instead of building an ``(L, L, d)`` tensor. (The paper's value-side vectors
    :math:`a^V` are not included: these are the scores only.)
    """
    kmax = check_nonneg_int("max_distance", max_distance)
    qa_ = as_array("q", q, min_ndim=2)
    ka_ = as_array("k", k, min_ndim=2)
    rk = as_array("rel_keys", rel_keys, min_ndim=2)
    d = qa_.shape[-1]
    if ka_.shape[-1] != d:
        raise ValueError(
            f"q and k must share their last dimension, got {qa_.shape} and {ka_.shape}"
        )
    seq = qa_.shape[-2]
    if ka_.shape[-2] != seq:
        raise ValueError(
            f"q and k must have the same length (self-attention), got {qa_.shape} and {ka_.shape}"
        )
    if rk.shape != (2 * kmax + 1, d):
        raise ValueError(
            f"rel_keys must have shape (2 * max_distance + 1, d) = ({2 * kmax + 1}, {d}), "
            f"got {rk.shape}"
        )
    content = qa_ @ np.swapaxes(ka_, -1, -2)  # q_i . k_j                       (..., L, L)
    qa = qa_ @ rk.T  # q_i . a_r for every r                                  (..., L, 2k+1)
    ids = np.broadcast_to(shaw_relative_ids(seq, kmax), qa.shape[:-1] + (seq,))  # (..., L, L)
    position = np.take_along_axis(qa, ids, axis=-1)  # q_i . a_{id_ij}          (..., L, L)
    return (content + position) / np.sqrt(d)


# --------------------------------------------------------------------------------------------
# T5 relative position buckets
# --------------------------------------------------------------------------------------------


def _check_t5_config(bidirectional: object, num_buckets: object,
                     max_distance: object) -> tuple[bool, int, int]:
    bidirectional = check_bool("bidirectional", bidirectional)
    num_buckets = check_positive_int("num_buckets", num_buckets)
    max_distance = check_positive_int("max_distance", max_distance)
    if bidirectional and num_buckets < 4:
        raise ValueError(
            f"num_buckets must be >= 4 when bidirectional=True (each direction needs an exact "
            f"and a log-spaced bucket), got {num_buckets}"
        )
    if not bidirectional and num_buckets < 2:
        raise ValueError(
            f"num_buckets must be >= 2 when bidirectional=False (an exact and a log-spaced "
            f"bucket), got {num_buckets}"
        )
    half = num_buckets // 2 if bidirectional else num_buckets
    max_exact = half // 2
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance must be > max_exact = {max_exact} (the number of exact buckets per "
            f"direction), got {max_distance}"
        )
    return bidirectional, num_buckets, max_distance


def t5_bucket(relative_position: ArrayLike, bidirectional: bool = True, num_buckets: int = 32,
              max_distance: int = 128) -> NDArray[np.int64]:
    r"""T5's bucket index for each ``relative_position`` = memory (key) position − query position.

    Reproduces ``_relative_position_bucket`` of the Mesh TensorFlow T5 reference and of Hugging
    Face's ``T5Attention`` exactly, including its float32 logarithm and truncation to an integer.
    With :math:`B` buckets per direction (:math:`B = ` ``num_buckets // 2`` if ``bidirectional``,
    else ``num_buckets``), :math:`m = \lfloor B/2 \rfloor` exact buckets and
    :math:`D = ` ``max_distance``, a distance :math:`n \ge 0` goes to

    .. math::
        \mathrm{bucket}(n) = \begin{cases}
            n & n < m \\
            \min\!\Big(B - 1,\; m + \Big\lfloor \dfrac{\ln(n/m)}{\ln(D/m)}\,(B - m) \Big\rfloor\Big)
              & n \ge m
        \end{cases}

    * ``bidirectional=True`` (encoder): :math:`n = |r|`, and keys *after* the query
      (:math:`r > 0`) use the upper half, i.e. get :math:`+B`. With the defaults (32, 128):
      ``0 → 0``, ``-1 → 1``, ``+1 → 17``, ``-8 → 8``, ``-16 → 10``, ``±200 → 15 / 31``.
    * ``bidirectional=False`` (decoder): :math:`n = \max(-r, 0)`; every key after the query
      lands in bucket 0 together with :math:`r = 0` (the causal mask hides them anyway).

    The formula reaches the last bucket :math:`B - 1` before :math:`n = D` (at
    :math:`n \ge m (D/m)^{(B-m-1)/(B-m)}`, 91 for the defaults); ``max_distance`` is where it
    *would* reach bucket :math:`B`, hence the cap. An odd ``num_buckets`` with
    ``bidirectional=True`` leaves its last bucket unused, as in the reference.
    """
    bidirectional, num_buckets, max_distance = _check_t5_config(
        bidirectional, num_buckets, max_distance)
    rel = _as_int_array("relative_position", relative_position, "an offset between two positions")
    if bidirectional:
        half = num_buckets // 2
        offset = np.where(rel > 0, half, 0)  # keys after the query use the upper half
        n = np.abs(rel)
    else:
        half = num_buckets
        offset = np.zeros_like(rel)
        n = np.maximum(-rel, 0)  # keys after the query count as distance 0
    max_exact = half // 2
    # Log-spaced part, in float32 like the reference (n < max_exact is replaced so log stays >= 0)
    nf = np.maximum(n, max_exact).astype(np.float32)
    scaled = np.log(nf / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)
    large = np.minimum(max_exact + scaled.astype(np.int64), half - 1)  # truncate, cap at B-1
    return (offset + np.where(n < max_exact, n, large)).astype(np.int64)


def t5_bias(seq_len: int, bucket_values: ArrayLike, bidirectional: bool = True,
            num_buckets: int = 32, max_distance: int = 128) -> NDArray[np.floating]:
    r"""T5's additive attention bias :math:`B_{ij} = b_{\mathrm{bucket}(j - i)}`.

    ``bucket_values`` holds the learned scalars: shape ``(num_buckets,)`` gives an ``(L, L)``
    bias, shape ``(H, num_buckets)`` (one row per head) gives ``(H, L, L)``. Row ``i`` is the
    query, column ``j`` the key, and the bucket is that of :func:`t5_bucket` ``(j - i)``. No causal
    mask is added: for a decoder use ``bidirectional=False`` *and* mask the future separately.
    """
    seq_len = check_nonneg_int("seq_len", seq_len)
    bidirectional, num_buckets, max_distance = _check_t5_config(
        bidirectional, num_buckets, max_distance)
    values = as_array("bucket_values", bucket_values, min_ndim=1)
    if values.ndim > 2 or values.shape[-1] != num_buckets:
        raise ValueError(
            f"bucket_values must have shape (num_buckets,) or (num_heads, num_buckets) with "
            f"num_buckets={num_buckets}, got shape {values.shape}"
        )
    idx = np.arange(seq_len, dtype=np.int64)
    rel = idx[None, :] - idx[:, None]  # memory - query = j - i             (L, L)
    buckets = t5_bucket(rel, bidirectional, num_buckets, max_distance)  # (L, L)
    return values[..., buckets]  # (L, L) or (H, L, L)


# --------------------------------------------------------------------------------------------
# Chapter 7 helpers: bucket ranges, and scores with absolute encodings or relative biases
# --------------------------------------------------------------------------------------------

__all__ += ["logits", "t5_bucket_ranges"]


def t5_bucket_ranges(num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True,
                     max_offset: int = 256) -> list[tuple[int, int, int]]:
    r"""Which offsets :math:`j - i` share each T5 bucket, as ``(bucket, first, last)`` triples.

    Scans the offsets ``-max_offset .. max_offset`` with :func:`t5_bucket` and reports every
    bucket that occurs with its smallest and largest offset (sorted by bucket). Offsets of one
    bucket are contiguous, so ``first .. last`` is the whole range within the scan; a range that
    touches ``±max_offset`` goes on forever. For the defaults, bucket 8 (keys 8 to 11 positions
    *before* the query) is ``(8, -11, -8)`` and the catch-all of far keys after the query is
    ``(31, 91, 256)``.
    """
    max_offset = check_positive_int("max_offset", max_offset)
    offsets = np.arange(-max_offset, max_offset + 1)
    buckets = t5_bucket(offsets, bidirectional, num_buckets, max_distance)
    out = []
    for b in np.unique(buckets):
        members = offsets[buckets == b]
        out.append((int(b), int(members.min()), int(members.max())))
    return out


def logits(x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike, absolute: ArrayLike | None = None,
           bias: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""Attention logits of one head with an absolute encoding and/or a relative bias.

    .. math::
        e_{ij} = \frac{\big((x_i + p_i) W_Q\big)\cdot\big((x_j + p_j) W_K\big)}{\sqrt{d_k}}
                 + B_{ij}

    ``x`` is ``(L, d)``; ``absolute`` (the rows :math:`p_i`, shape ``(L, d)``) defaults to zero;
    ``bias`` (shape ``(L, L)``, e.g. :func:`t5_bias`) defaults to zero. The content part and the
    bias part never mix, which is why a relative bias gives a pair of words the same logit
    wherever the pair stands, while an absolute :math:`p_i` changes it.
    """
    xa = as_array("x", x, min_ndim=2)
    if xa.ndim != 2:
        raise ValueError(f"x must be 2-D (L, d), got shape {xa.shape}")
    seq, d = xa.shape
    wq = as_array("w_q", w_q, min_ndim=2)
    wk = as_array("w_k", w_k, min_ndim=2)
    if wq.ndim != 2 or wq.shape[0] != d or wk.shape != wq.shape:
        raise ValueError(
            f"w_q and w_k must both have shape (d, d_k) with d={d}, got {wq.shape} and {wk.shape}"
        )
    if absolute is not None:
        p = as_array("absolute", absolute, min_ndim=2)
        if p.shape != xa.shape:
            raise ValueError(f"absolute must have the shape of x {xa.shape}, got {p.shape}")
        xa = xa + p
    out = (xa @ wq) @ (xa @ wk).T / np.sqrt(wq.shape[1])  # (L, L)
    if bias is not None:
        b = as_array("bias", bias, min_ndim=2)
        if b.shape != (seq, seq):
            raise ValueError(f"bias must have shape (L, L) = ({seq}, {seq}), got {b.shape}")
        out = out + b
    return out
