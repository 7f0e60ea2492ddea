r"""ALiBi: attention with linear biases (Press, Smith & Lewis, ICLR 2022).

No vector is added to the input. Instead each head subtracts a penalty proportional to the
distance between query ``i`` and key ``j`` from the attention score:

.. math::
    \mathrm{score}_{ij} = \frac{q_i \cdot k_j}{\sqrt{d_k}} - m\,|i - j|.

After the softmax, that linear penalty becomes a *multiplicative* factor :math:`e^{-m|i-j|}`:
attention decays exponentially with distance, not linearly.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import (
    as_array,
    check_bool,
    check_choice,
    check_finite_real,
    check_nonneg_int,
    check_positive_int,
)

__all__ = ["bias", "distance_profile", "geometric_slopes", "key_position_bias", "mass_beyond",
           "slopes", "span", "weights"]


def _power_of_two_slopes(n: int) -> list[float]:
    # For n a power of two the slopes are 2^(-8/n), 2^(-16/n), ..., 2^(-8)
    start = 2.0 ** (-8.0 / n)
    return [start ** (h + 1) for h in range(n)]


def slopes(num_heads: int) -> NDArray[np.float64]:
    r"""Per-head slopes by the rule of the ALiBi paper and its reference code.

    For :math:`H` a power of two: :math:`m_h = 2^{-8h/H}`, :math:`h = 1..H` (8 heads:
    1/2, 1/4, …, 1/256). Otherwise, with :math:`P` the largest power of two below :math:`H`, take
    the :math:`P` slopes for :math:`P` heads, then every other slope of the :math:`2P`-head list
    (the ones *between* them) until there are :math:`H`. This is what BLOOM uses.
    """
    num_heads = check_positive_int("num_heads", num_heads)
    if num_heads & (num_heads - 1) == 0:
        return np.array(_power_of_two_slopes(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    extra = _power_of_two_slopes(2 * p)[0::2][: num_heads - p]
    return np.array(_power_of_two_slopes(p) + extra)


def geometric_slopes(num_heads: int) -> NDArray[np.float64]:
    r"""The "naive" rule :math:`m_h = 2^{-8h/H}` applied to any head count (not the reference rule).

    For powers of two it equals :func:`slopes`; for other counts it does not (chapter 09).
    """
    num_heads = check_positive_int("num_heads", num_heads)
    h = np.arange(1, num_heads + 1, dtype=np.float64)
    return 2.0 ** (-8.0 * h / num_heads)


def bias(seq_len: int, slopes: ArrayLike | float, causal: bool = True) -> NDArray[np.float64]:
    r"""The ALiBi bias :math:`B_{ij} = -m\,|i-j|`.

    ``slopes`` is a scalar (result ``(L, L)``) or a 1-D array of per-head slopes (result
    ``(H, L, L)``). With ``causal=True`` (decoders) keys after the query are masked with
    :math:`-\infty`, so the result is ready to add to scores; ``causal=False`` gives the symmetric
    encoder form. A negative slope *rewards* distance (used only to show why that is wrong).
    """
    seq_len = check_nonneg_int("seq_len", seq_len)
    causal = check_bool("causal", causal)
    m = as_array("slopes", slopes)
    if m.ndim > 1:
        raise ValueError(f"slopes must be a scalar or a 1-D array, got shape {m.shape}")
    idx = np.arange(seq_len)
    dist = np.abs(idx[:, None] - idx[None, :]).astype(np.float64)  # |i - j|   (L, L)
    out = -m[..., None, None] * dist + 0.0  # (L, L) or (H, L, L); + 0.0 turns -0.0 into 0.0
    if causal:
        out = np.where(idx[None, :] > idx[:, None], -np.inf, out)
    return out


# -- chapter 09: what the bias does to the attention weights ---------------------------------
def weights(seq_len: int, slopes: ArrayLike | float, causal: bool = True,
            scores: ArrayLike | None = None) -> NDArray[np.floating]:
    r"""Attention weights :math:`\operatorname{softmax}_j(s_{ij} - m|i-j|)` of an ALiBi head.

    ``scores`` are the content scores :math:`s_{ij} = q_i\cdot k_j/\sqrt{d_k}`, shape ``(L, L)``
    (or broadcastable to the bias); ``None`` means all equal, which isolates what the bias alone
    does. With one slope the result is ``(L, L)``, with a 1-D array of slopes ``(H, L, L)``.
    """
    from .attention import softmax

    b = bias(seq_len, slopes, causal=causal)
    if seq_len == 0:
        raise ValueError("seq_len must be >= 1 to have attention weights, got 0")
    if scores is not None:
        s = as_array("scores", scores, min_ndim=2)
        try:
            b = s + b
        except ValueError:
            raise ValueError(f"scores of shape {s.shape} do not broadcast to the bias of shape "
                             f"{b.shape}") from None
    return softmax(b, axis=-1)


_PROFILE_KINDS = ("exponential", "linear")


def distance_profile(seq_len: int, slope: float, kind: str = "exponential"
                     ) -> NDArray[np.floating]:
    r"""Weights of the *last* query of a causal sequence, indexed by distance :math:`0..L-1`.

    ``kind="exponential"`` is what ALiBi really gives (equal content scores): the softmax of
    :math:`-m\,k`, i.e. :math:`w_k \propto e^{-mk}`. ``kind="linear"`` is the common misreading,
    weights that fall on a straight line, :math:`w_k \propto \max(0, 1 - mk)`; it is here only to
    be compared with the real thing.
    """
    seq_len = check_positive_int("seq_len", seq_len)
    slope = check_finite_real("slope", slope)
    kind = check_choice("kind", kind, _PROFILE_KINDS)
    if kind == "exponential":
        return weights(seq_len, slope, causal=True)[-1, ::-1].copy()
    k = np.arange(seq_len, dtype=np.float64)
    raw = np.maximum(0.0, 1.0 - slope * k)  # raw[0] = 1, so the sum is never 0
    return raw / raw.sum()


def span(slopes: ArrayLike | float, ratio: float = math.exp(-1.0)) -> NDArray[np.float64] | float:
    r"""Distance at which ALiBi's factor :math:`e^{-m\,\mathrm{dist}}` falls to ``ratio``.

    :math:`\mathrm{dist} = \ln(1/\mathrm{ratio})/m`: for equal content scores, a key this far
    away gets ``ratio`` times the weight of the query's own position. ``ratio=1/e`` (default)
    gives :math:`1/m`; ``ratio=0.01`` gives :math:`\ln 100/m \approx 4.6/m`. A slope of 0 never
    decays (``inf``). Returns a float for a scalar slope, else an array.
    """
    m = as_array("slopes", slopes)
    if m.ndim > 1:
        raise ValueError(f"slopes must be a scalar or a 1-D array, got shape {m.shape}")
    if np.any(m < 0):
        raise ValueError(f"slopes must be >= 0, got {slopes!r}")
    ratio = check_finite_real("ratio", ratio, minimum=0.0, strict=True)
    if not ratio < 1.0:
        raise ValueError(f"ratio must be < 1, got {ratio!r}")
    with np.errstate(divide="ignore"):
        out = np.log(1.0 / ratio) / m.astype(np.float64)
    return float(out) if out.ndim == 0 else out


def mass_beyond(slope: float, distance: int, seq_len: int) -> float:
    r"""Share of attention a causal query puts on keys at least ``distance`` tokens back.

    The query is the last of ``seq_len`` visible tokens and content scores are equal, so the
    weights form a truncated geometric series in :math:`r = e^{-m}`:

    .. math:: \frac{\sum_{k=D}^{L-1} r^k}{\sum_{k=0}^{L-1} r^k} = \frac{r^D - r^L}{1 - r^L},

    and :math:`(L-D)/L` for :math:`m = 0`. Computed with ``expm1`` so tiny slopes stay accurate.
    """
    slope = check_finite_real("slope", slope, minimum=0.0)
    seq_len = check_positive_int("seq_len", seq_len)
    distance = check_nonneg_int("distance", distance)
    if distance > seq_len:
        raise ValueError(f"distance must be <= seq_len ({seq_len}), got {distance}")
    if slope == 0.0:
        return (seq_len - distance) / seq_len
    # r^D - r^L = e^{-mD} (1 - e^{-m(L-D)});  1 - r^L = -expm1(-mL)
    num = math.exp(-slope * distance) * -math.expm1(-slope * (seq_len - distance))
    return num / -math.expm1(-slope * seq_len)


def key_position_bias(seq_len: int, slopes: ArrayLike | float) -> NDArray[np.float64]:
    r"""The causal bias as many implementations store it: :math:`m\,j` for key :math:`j \le i`.

    Row :math:`i` differs from :math:`-m(i-j)` by the constant :math:`m\,i`, and a softmax ignores
    a constant added to a whole row, so the weights are *identical* to :func:`bias` with
    ``causal=True``. The payoff: the bias no longer depends on :math:`i`, so one row
    ``(H, 1, L)`` serves every query (BLOOM's implementation in Hugging Face ``transformers``
    works this way). It does *not* work for the symmetric (encoder) bias.
    """
    seq_len = check_nonneg_int("seq_len", seq_len)
    m = as_array("slopes", slopes)
    if m.ndim > 1:
        raise ValueError(f"slopes must be a scalar or a 1-D array, got shape {m.shape}")
    idx = np.arange(seq_len)
    out = m[..., None, None] * idx[None, :].astype(np.float64) + 0.0 * idx[:, None]
    return np.where(idx[None, :] > idx[:, None], -np.inf, out)
