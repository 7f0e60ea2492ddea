r"""Scaled dot-product attention, the operation every position scheme feeds into.

.. math::
    \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\Big(\frac{QK^\top}{\sqrt{d_k}} + B\Big)\,V

with an optional additive bias :math:`B` (ALiBi, T5, Shaw et al.) and an optional causal mask
(:math:`B_{ij} = -\infty` for :math:`j > i`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import as_array, check_bool, check_nonneg_int, check_positive_int

__all__ = ["attention", "causal_mask", "softmax", "window_mask"]


def softmax(x: ArrayLike, axis: int = -1) -> NDArray[np.floating]:
    r"""Numerically stable softmax :math:`e^{x_j - \max x} / \sum_k e^{x_k - \max x}`.

    ``-inf`` entries get weight 0 (that is how masks work); a slice that is ``-inf`` everywhere
    has no valid distribution and raises ``ValueError``. ``+inf`` and NaN are rejected.
    """
    arr = np.asarray(x)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"x must be a numeric array, got dtype {arr.dtype}")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    if arr.ndim == 0:
        raise ValueError("x must have at least 1 dimension, got a scalar")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis must be in [{-arr.ndim}, {arr.ndim - 1}], got {axis}")
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError("x must not contain NaN or +inf")
    top = np.max(arr, axis=axis, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("x has a slice along axis that is -inf everywhere (fully masked row)")
    e = np.exp(arr - top)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(seq_len: int) -> NDArray[np.float64]:
    """``(L, L)`` additive mask: 0 on and below the diagonal, ``-inf`` above (key after query)."""
    seq_len = check_nonneg_int("seq_len", seq_len)
    mask = np.zeros((seq_len, seq_len))
    mask[np.triu_indices(seq_len, k=1)] = -np.inf
    return mask


def window_mask(seq_len: int, window: int) -> NDArray[np.float64]:
    r"""``(L, L)`` additive mask of sliding-window attention: 0 where :math:`|i - j| < w`, ``-inf``
    where query :math:`i` and key :math:`j` are ``window`` (:math:`w`) or more tokens apart. Added
    to :func:`causal_mask`, each query sees itself and the :math:`w - 1` keys before it (Mistral's
    and Gemma's local layers; transformers' ``sliding_window_overlay``)."""
    seq_len = check_nonneg_int("seq_len", seq_len)
    window = check_positive_int("window", window)
    idx = np.arange(seq_len)
    mask = np.zeros((seq_len, seq_len))
    mask[np.abs(idx[:, None] - idx[None, :]) >= window] = -np.inf
    return mask


def attention(q: ArrayLike, k: ArrayLike, v: ArrayLike, bias: ArrayLike | None = None,
              causal: bool = False) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    r"""Scaled dot-product attention, batched over any leading dimensions.

    Shapes: ``q`` ``(..., Lq, dk)``, ``k`` ``(..., Lk, dk)``, ``v`` ``(..., Lk, dv)``; ``bias``
    broadcastable to ``(..., Lq, Lk)``. ``causal=True`` needs ``Lq == Lk`` and hides keys after
    each query. Returns ``(output (..., Lq, dv), weights (..., Lq, Lk))``; rows of ``weights`` sum
    to 1.
    """
    q = as_array("q", q, min_ndim=2)
    k = as_array("k", k, min_ndim=2)
    v = as_array("v", v, min_ndim=2)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share their last dimension, got {q.shape} and {k.shape}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have the same length, got {k.shape} and {v.shape}")
    check_bool("causal", causal)
    # scores[..., i, j] = q_i . k_j / sqrt(d_k)            (..., Lq, Lk)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if bias is not None:
        b = np.asarray(bias)
        if b.dtype == object or not np.issubdtype(b.dtype, np.number):
            raise TypeError(f"bias must be a numeric array, got dtype {b.dtype}")
        try:
            scores = scores + b
        except ValueError:
            raise ValueError(
                f"bias of shape {b.shape} does not broadcast to scores of shape {scores.shape}"
            ) from None
    if causal:
        lq, lk = scores.shape[-2:]
        if lq != lk:
            raise ValueError(f"causal=True needs as many queries as keys, got {lq} and {lk}")
        scores = scores + causal_mask(lq)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
