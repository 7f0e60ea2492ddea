r"""Stretching RoPE to longer contexts: linear interpolation, "NTK-aware" scaling and YaRN.

A model trained with RoPE on contexts of length :math:`L` (``original_max_len``) has only seen
angles :math:`pos\,\omega_i` with :math:`pos < L`, where :math:`\omega_i = n^{-2i/d}`. To run it
at :math:`s L` (``factor`` :math:`= s \ge 1`) one changes the frequencies:

* ``"linear"`` — Position Interpolation (Chen et al. 2023; kaiokendev):
  :math:`\omega'_i = \omega_i / s`. Every angle at :math:`s L` is one the model saw at :math:`L`,
  but neighbouring positions become :math:`s` times harder to tell apart.
* ``"ntk"`` — "NTK-aware" scaling (bloc97, 2023): raise the base,
  :math:`n' = n\, s^{d/(d-2)}`, :math:`\omega'_i = n'^{-2i/d}`. The fastest pair is untouched
  (:math:`\omega'_0 = 1`), the slowest is divided by exactly :math:`s`, and the ones between by
  :math:`s^{2i/(d-2)}`.
* ``"yarn"`` — YaRN, "NTK-by-parts" (Peng et al. 2023): keep pairs that turn many times over
  :math:`L` as they are, interpolate pairs that turn less than once, ramp linearly in between,
  and sharpen the softmax with :math:`\sqrt{1/t} = 0.1 \ln s + 1`. Two ramps exist, named by
  ``ramp`` (see :data:`YARN_RAMPS`): ``"index"`` (the default) is linear in the pair index
  between rounded boundaries, as in the authors' reference code, Hugging Face and llama.cpp;
  ``"turns"`` is linear in the number of turns :math:`r`, as the paper's equation defines it.
  As long as some pair makes at least 32 turns (so that ``low`` is not clamped at 0) and some
  pair fewer, both keep the same pairs and fully interpolate the same pairs; they differ on the
  ramp. (Llama 3.1's scaling is the ``"turns"`` form with thresholds 1 and 4 turns:
  :func:`yarn_paper_frequencies` with ``alpha=1, beta=4``.)

:func:`scaled_frequencies` returns the new frequencies and that attention scale; feed the
frequencies to RoPE in place of :func:`posenc_lib.maths.encodings.frequencies`.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import (
    as_array,
    check_base,
    check_bool,
    check_choice,
    check_even_dim,
    check_finite_real,
    check_positive_int,
)
from .encodings import frequencies, pair_frequencies

__all__ = ["SCALING_METHODS", "YARN_RAMPS", "scaled_frequencies", "yarn_correction_bounds",
           "yarn_correction_range", "yarn_frequencies", "yarn_paper_frequencies", "yarn_ramp",
           "yarn_turns_ramp"]

Method = Literal["linear", "ntk", "yarn", "llama3", "dynamic"]
#: The stretching methods :func:`scaled_frequencies` knows.
SCALING_METHODS: tuple[Method, ...] = ("linear", "ntk", "yarn", "llama3", "dynamic")
#: The two ramps YaRN can use. ``"index"`` is linear in the pair index between ``yarn_correction_range``'s
#: rounded boundaries (the authors' reference code, Hugging Face, llama.cpp; :func:`yarn_ramp`);
#: ``"turns"`` is linear in the number of turns :math:`r` (the paper's equation;
#: :func:`yarn_turns_ramp`).
YARN_RAMPS: tuple[str, ...] = ("index", "turns")


def _yarn_correction_dim(beta: float, d: int, base: float, original_max_len: int) -> float:
    # Pair index (fractional) that makes exactly beta full turns over original_max_len:
    # L / (2 pi n^{2i/d}) = beta  <=>  i = d ln(L / (2 pi beta)) / (2 ln n)
    return d * math.log(original_max_len / (beta * 2.0 * math.pi)) / (2.0 * math.log(base))


def yarn_correction_range(d: int, base: float = 10000.0, original_max_len: int = 2048,
                          beta_fast: float = 32.0, beta_slow: float = 1.0) -> tuple[int, int]:
    r"""YaRN's ramp boundaries ``(low, high)`` in pair indices, as Hugging Face computes them.

    Pair :math:`i` makes :math:`r_i = L / \lambda_i = L\,/\,(2\pi n^{2i/d})` full turns over the
    original context :math:`L`. Solving :math:`r_i = \beta` gives the fractional index

    .. math:: i(\beta) = \frac{d \,\ln\!\big(L / (2\pi\beta)\big)}{2 \ln n},

    and ``low`` :math:`= \max(\lfloor i(\beta_{fast}) \rfloor, 0)`,
    ``high`` :math:`= \min(\lceil i(\beta_{slow}) \rceil, d - 1)` (rounded outward, and clamped to
    :math:`d - 1` — not :math:`d/2 - 1` — exactly as in ``_compute_yarn_parameters``). Pairs
    :math:`i \le` ``low`` keep their frequency, pairs :math:`i \ge` ``high`` are divided by
    :math:`s`.
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    beta_fast = check_finite_real("beta_fast", beta_fast, minimum=0.0, strict=True)
    beta_slow = check_finite_real("beta_slow", beta_slow, minimum=0.0, strict=True)
    if not beta_fast > beta_slow:
        raise ValueError(
            f"beta_fast must be > beta_slow, got beta_fast={beta_fast:g}, beta_slow={beta_slow:g}"
        )
    if base == 1.0:
        raise ValueError(
            "base must be > 1 for YaRN (with base 1 every pair has the same frequency, so no "
            f"pair index makes a given number of turns), got {base:g}"
        )
    low, high = yarn_correction_bounds(d, base, original_max_len, beta_fast, beta_slow, truncate=True)
    return int(low), int(high)


def yarn_correction_bounds(d: int, base: float = 10000.0, original_max_len: int = 2048,
                           beta_fast: float = 32.0, beta_slow: float = 1.0,
                           truncate: bool = True) -> tuple[float, float]:
    r"""YaRN's ramp boundaries in pair indices, with Hugging Face's ``truncate`` switch.

    ``truncate=True`` (the default, and every released configuration we ship) rounds outward exactly
    as :func:`yarn_correction_range` does: ``low`` :math:`= \max(\lfloor i(\beta_{fast})\rfloor, 0)`,
    ``high`` :math:`= \min(\lceil i(\beta_{slow})\rceil, d - 1)`. ``truncate=False`` keeps the
    fractional indices :math:`i(\beta)` (still clamped to :math:`[0, d - 1]`), as
    ``_compute_yarn_parameters`` does when a configuration sets ``"truncate": false``.
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    beta_fast = check_finite_real("beta_fast", beta_fast, minimum=0.0, strict=True)
    beta_slow = check_finite_real("beta_slow", beta_slow, minimum=0.0, strict=True)
    truncate = check_bool("truncate", truncate)
    if base == 1.0:
        raise ValueError(
            "base must be > 1 for YaRN (with base 1 every pair has the same frequency, so no "
            f"pair index makes a given number of turns), got {base:g}"
        )
    low = _yarn_correction_dim(beta_fast, d, base, original_max_len)
    high = _yarn_correction_dim(beta_slow, d, base, original_max_len)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, d - 1)


def scaled_frequencies(d: int, factor: float, method: Method, base: float = 10000.0,
                       original_max_len: int = 2048, beta_fast: float = 32.0,
                       beta_slow: float = 1.0, ramp: str = "index",
                       low_freq_factor: float = 1.0, high_freq_factor: float = 4.0,
                       seq_len: int | None = None,
                       truncate: bool = True) -> tuple[NDArray[np.float64], float]:
    r"""RoPE frequencies for a context ``factor`` times longer, and the attention scale to use.

    Returns ``(omega, attention_scale)`` with ``omega`` of shape ``(d // 2,)``. With
    :math:`\omega_i = n^{-2i/d}` and :math:`s` = ``factor``:

    * ``"linear"``: :math:`\omega'_i = \omega_i / s`, scale 1. Matches Hugging Face
      ``_compute_linear_scaling_rope_parameters`` (``inv_freq /= factor``).
    * ``"ntk"``: :math:`n' = n\,s^{d/(d-2)}`, :math:`\omega'_i = n'^{-2i/d}
      = \omega_i\, s^{-2i/(d-2)}`, scale 1. This is bloc97's "NTK-aware" rule and Hugging Face's
      fixed-factor NTK formula ``base * factor ** (dim / (dim - 2))``; HF's *dynamic* variant
      (``_compute_dynamic_ntk_parameters``) uses the same formula with the running factor
      :math:`s\,\ell/L - (s - 1)` at sequence length :math:`\ell > L`. For ``d == 2`` the only
      pair has :math:`\omega_0 = 1` whatever the base, so nothing changes.
    * ``"yarn"``: with ``low, high`` from :func:`yarn_correction_range` and the ramp
      :math:`\rho_i = \mathrm{clip}\big((i - low)/(high - low), 0, 1\big)`, the share of pair
      :math:`i` that is interpolated (``high`` is bumped by 0.001 if it equals ``low``),

      .. math::
          \omega'_i = \frac{\omega_i}{s}\,\rho_i + \omega_i\,(1 - \rho_i), \qquad
          \text{attention\_scale} = 0.1 \ln s + 1 \;\;(1 \text{ if } s = 1).

      This follows Hugging Face ``_compute_yarn_parameters`` step by step (its
      ``inv_freq_interpolation * (1 - inv_freq_extrapolation_factor) + inv_freq_extrapolation *
      inv_freq_extrapolation_factor`` with ``inv_freq_extrapolation_factor`` :math:`= 1 - \rho`,
      the share kept, which plays the role of the paper's :math:`\gamma`;
      default ``truncate=True``, no ``mscale``/``mscale_all_dim``), computed in float64 where HF
      uses float32. HF multiplies both cos and sin by ``attention_scale``, so queries and keys
      both carry it and the logits grow by its square — the paper's :math:`1/t`.

      ``ramp="turns"`` replaces this ramp, linear in the pair index, by the paper's, linear in
      the number of turns :math:`r_i` (:func:`yarn_paper_frequencies` with
      :math:`\alpha` = ``beta_slow``, :math:`\beta` = ``beta_fast``); same attention scale.

    * ``"llama3"`` (Llama 3.1): by wavelength :math:`\lambda_i = 2\pi/\omega_i` against the
      original context :math:`L`. Pairs with :math:`\lambda_i < L/` ``high_freq_factor`` keep
      their frequency, pairs with :math:`\lambda_i > L/` ``low_freq_factor`` are divided by
      :math:`s`, and in between the frequency is blended with the share
      :math:`\sigma_i = (L/\lambda_i - \text{low}) / (\text{high} - \text{low})` kept:
      :math:`\omega'_i = (1 - \sigma_i)\,\omega_i/s + \sigma_i\,\omega_i`; scale 1. Matches
      Hugging Face ``_compute_llama3_parameters`` (Llama 3.1: ``factor=8``,
      ``original_max_len=8192``, ``base=500000``).
    * ``"dynamic"`` (dynamic NTK): the NTK-aware base recomputed for the current length
      ``seq_len`` :math:`\ell`: :math:`n' = n\,(s\,\ell/L - (s - 1))^{d/(d-2)}` for
      :math:`\ell > L`, and the original frequencies for :math:`\ell \le L` (``seq_len=None``
      means :math:`L`); scale 1. Matches Hugging Face ``_compute_dynamic_ntk_parameters``.

    ``truncate`` (``"yarn"`` with ``ramp="index"`` only) is Hugging Face's switch of the same name:
    ``False`` keeps the ramp boundaries fractional (:func:`yarn_correction_bounds`).

    ``original_max_len``, ``beta_fast``, ``beta_slow``, ``ramp``, ``low_freq_factor``,
    ``high_freq_factor`` and ``seq_len`` are used only by the methods that name them but are
    validated for every method. ``factor == 1`` returns the unscaled frequencies for every
    method except ``"dynamic"`` on an input longer than :math:`L`: there the running factor
    is :math:`\ell/L` (the formula above with :math:`s = 1`).
    """
    d = check_even_dim("d", d)
    factor = check_finite_real("factor", factor, minimum=1.0)
    method = check_choice("method", method, SCALING_METHODS)
    base = check_base("base", base)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    beta_fast = check_finite_real("beta_fast", beta_fast, minimum=0.0, strict=True)
    beta_slow = check_finite_real("beta_slow", beta_slow, minimum=0.0, strict=True)
    if not beta_fast > beta_slow:
        raise ValueError(
            f"beta_fast must be > beta_slow, got beta_fast={beta_fast:g}, beta_slow={beta_slow:g}"
        )
    ramp = check_choice("ramp", ramp, YARN_RAMPS)
    low_freq_factor = check_finite_real("low_freq_factor", low_freq_factor, minimum=0.0,
                                        strict=True)
    high_freq_factor = check_finite_real("high_freq_factor", high_freq_factor, minimum=0.0,
                                         strict=True)
    if not high_freq_factor > low_freq_factor:
        raise ValueError("high_freq_factor must be > low_freq_factor, got "
                         f"high_freq_factor={high_freq_factor:g}, low_freq_factor={low_freq_factor:g}")
    seq_len = original_max_len if seq_len is None else check_positive_int("seq_len", seq_len)
    truncate = check_bool("truncate", truncate)
    omega = frequencies(d, base)  # (d/2,)  original frequencies

    if method == "llama3":
        wavelength = 2.0 * math.pi / omega
        kept = (original_max_len / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
        kept = np.clip(kept, 0.0, 1.0)  # 1 below L/high, 0 above L/low, linear in L/lambda between
        return (1.0 - kept) * omega / factor + kept * omega, 1.0

    if method == "dynamic":
        if d == 2 or seq_len <= original_max_len:
            return omega, 1.0
        running = factor * seq_len / original_max_len - (factor - 1.0)
        return frequencies(d, base * running ** (d / (d - 2))), 1.0

    if method == "linear":
        return omega / factor, 1.0

    if method == "ntk":
        if d == 2:
            return omega, 1.0
        new_base = base * factor ** (d / (d - 2))
        return frequencies(d, new_base), 1.0

    # yarn
    attention_scale = 0.1 * math.log(factor) + 1.0 if factor > 1.0 else 1.0
    if ramp == "turns":  # the paper's ramp, linear in the number of turns
        return (yarn_paper_frequencies(d, factor, base, original_max_len, alpha=beta_slow,
                                       beta=beta_fast), attention_scale)
    low, high = yarn_correction_bounds(d, base, original_max_len, beta_fast, beta_slow, truncate)
    return yarn_frequencies(d, factor, low, high, base), attention_scale


def yarn_ramp(d: int, low: float, high: float) -> NDArray[np.float64]:
    r"""YaRN's ramp as the reference code defines it, linear in the pair index:
    :math:`\rho_i = \mathrm{clip}\big((i - low)/(high - low), 0, 1\big)` for the pairs
    :math:`i = 0 \dots d/2 - 1`: the share of the pair that is interpolated, 0 = keep the pair,
    1 = interpolate it fully. (The paper's :math:`\gamma` runs the other way, 1 = keep, and is
    linear in the number of turns: :func:`yarn_turns_ramp`.)

    ``high`` is bumped by 0.001 when it equals ``low`` (Hugging Face's guard against a 0/0
    ramp). ``low`` and ``high`` are pair indices, usually from :func:`yarn_correction_range`;
    like Hugging Face, no order is enforced (with a tiny ``d`` the clamp ``high <= d - 1`` can
    put ``high`` below ``low``, and the formula is then applied as it stands).
    """
    d = check_even_dim("d", d)
    low = check_finite_real("low", low)
    high = check_finite_real("high", high)
    hi = high + 0.001 if low == high else high  # HF's guard against a zero-width ramp
    i = np.arange(d // 2, dtype=np.float64)
    return np.clip((i - low) / (hi - low), 0.0, 1.0)  # rho_i: 0 keep ... 1 interpolate


def yarn_frequencies(d: int, factor: float, low: float, high: float,
                     base: float = 10000.0) -> NDArray[np.float64]:
    r"""YaRN's "NTK-by-parts" frequencies for given ramp boundaries ``low``, ``high``:

    .. math:: \omega'_i = \frac{\omega_i}{s}\,\rho_i + \omega_i\,(1 - \rho_i),
        \qquad \rho_i = \texttt{yarn\_ramp}(d, low, high)_i,

    a linear blend of the *frequencies* (not of the wavelengths), written as Hugging Face
    writes it. :func:`scaled_frequencies` with ``method="yarn"`` calls this with the boundaries
    of :func:`yarn_correction_range`.
    """
    d = check_even_dim("d", d)
    factor = check_finite_real("factor", factor, minimum=1.0)
    base = check_base("base", base)
    ramp = yarn_ramp(d, low, high)
    omega = frequencies(d, base)
    # Hugging Face (HF) calls 1 - ramp the inv_freq_extrapolation_factor (the share kept);
    # the result is ramp * omega / s + (1 - ramp) * omega
    extrapolation_factor = 1.0 - ramp
    omega_interp = omega / factor
    return omega_interp * (1.0 - extrapolation_factor) + omega * extrapolation_factor


def yarn_turns_ramp(r: ArrayLike, alpha: float = 1.0, beta: float = 32.0) -> NDArray[np.float64]:
    r"""YaRN's ramp as the paper defines it (Peng et al. 2023, "NTK-by-parts"), linear in the
    number of turns :math:`r` a pair makes over the trained context (:func:`turns`):

    .. math:: \gamma(r) = 0 \;(r < \alpha),\qquad 1 \;(r > \beta),\qquad
        \frac{r - \alpha}{\beta - \alpha} \text{ otherwise},

    with :math:`\alpha = 1`, :math:`\beta = 32` for the LLaMA family. Here **1 means keep** the
    pair and 0 means interpolate it fully — the opposite of :func:`yarn_ramp`, whose
    :math:`\rho_i` is the share interpolated.
    """
    r = as_array("r", r).astype(np.float64)
    alpha = check_finite_real("alpha", alpha, minimum=0.0)
    beta = check_finite_real("beta", beta)
    if not beta > alpha:
        raise ValueError(f"beta must be > alpha, got alpha={alpha:g}, beta={beta:g}")
    return np.clip((r - alpha) / (beta - alpha), 0.0, 1.0)  # gamma: 0 interpolate ... 1 keep


def yarn_paper_frequencies(d: int, factor: float, base: float = 10000.0,
                           original_max_len: int = 2048, alpha: float = 1.0,
                           beta: float = 32.0) -> NDArray[np.float64]:
    r"""YaRN's frequencies with the paper's ramp :math:`\gamma` (:func:`yarn_turns_ramp`):

    .. math:: \omega'_i = \big(1 - \gamma(r_i)\big)\,\frac{\omega_i}{s} + \gamma(r_i)\,\omega_i,
        \qquad r_i = \frac{L\,\omega_i}{2\pi}.

    Pairs with :math:`r_i \ge \beta` are kept and pairs with :math:`r_i \le \alpha` are divided
    by :math:`s`, exactly the pairs :func:`yarn_frequencies` keeps and divides with the boundaries
    of :func:`yarn_correction_range` (``beta_fast`` :math:`= \beta`, ``beta_slow``
    :math:`= \alpha`), as long as some pair makes at least :math:`\beta` turns and some pair
    fewer (otherwise that function's clamps change its boundaries). In between, this ramp is
    linear in :math:`r`, the reference code's in the pair index :math:`i` (that is, in
    :math:`\ln r`). With ``alpha=1, beta=4`` (and :math:`s = 8`, base 500000, :math:`L = 8192`)
    this is the frequency scaling that Llama 3.1's released code applies (Hugging Face's
    ``rope_type="llama3"``, which adds no attention scale).
    """
    d = check_even_dim("d", d)
    factor = check_finite_real("factor", factor, minimum=1.0)
    base = check_base("base", base)
    gamma = yarn_turns_ramp(turns(d, base, original_max_len), alpha, beta)
    omega = frequencies(d, base)
    return (1.0 - gamma) * omega / factor + gamma * omega


# --------------------------------------------------------------------------------------------
# Chapter 11: turns per pair, and Position Interpolation's argument (Chen et al. 2023, sec. 2)
# --------------------------------------------------------------------------------------------

__all__ += ["fit_score_curve", "interpolation_bound", "turns"]


def turns(d: int, base: float = 10000.0, original_max_len: int = 2048) -> NDArray[np.float64]:
    r"""Full turns :math:`r_i = L/\lambda_i = L\,\omega_i / (2\pi)` each pair makes over the
    trained context :math:`L` (``original_max_len``), shape ``(d // 2,)``.

    :math:`r_i \ge 1`: during training the pair went all the way round, so every angle it can
    meet later has been seen. :math:`r_i < 1`: positions beyond :math:`L` produce angles the model
    never saw. YaRN's ramp is defined on the same numbers (``beta_fast``/``beta_slow`` turns).
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    return original_max_len * frequencies(d, base) / (2.0 * math.pi)


def _pair_norms(name: str, v: ArrayLike) -> NDArray[np.float64]:
    arr = as_array(name, v, min_ndim=1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {arr.shape}")
    check_even_dim(f"d (the length of {name})", arr.shape[0])
    return np.hypot(arr[0::2], arr[1::2])  # |(v_2i, v_2i+1)| per pair


def fit_score_curve(distances: ArrayLike, targets: ArrayLike, d: int, base: float = 10000.0,
                    ridge: float = 1e-4, frequencies: ArrayLike | None = None
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""A query and a key whose RoPE score curve fits ``targets`` at ``distances`` (least squares).

    The score at offset :math:`\Delta` is :math:`a(\Delta) = \mathrm{Re}\sum_i h_i
    e^{\mathrm{i}\Delta\theta_i}` (see :func:`posenc_lib.maths.rope.score_curve`). Writing
    :math:`h_i = c_i + \mathrm{i}\,e_i`, this is linear in :math:`(c, e)`:
    :math:`a(\Delta) = \sum_i c_i\cos\Delta\theta_i - e_i\sin\Delta\theta_i`. The fit minimises

    .. math:: \sum_s \big(a(\Delta_s) - y_s\big)^2 + \texttt{ridge}\,\sum_i |h_i|^2

    (normal equations; the small ``ridge`` > 0 keeps it well posed: sampled on :math:`[0, L]`, the
    columns of the slow and medium pairs — those with few turns in :math:`L` — are nearly linearly
    dependent *together*, so many combinations of them are almost zero there, and plain least
    squares would give those combinations arbitrarily large :math:`h_i`). This is the experiment
    of Chen et al. (2023, fig. 2): a score curve that behaves on the training range, like a
    trained head's. Returns ``(q, k)`` in the interleaved
    layout, with every query pair :math:`(1, 0)` and key pair :math:`(c_i, e_i)`, so that
    ``rope.score_curve(q, k, distances)`` is the fitted curve. ``frequencies`` replaces
    :math:`\theta_i = n^{-2i/d}` when given.
    """

    dist = as_array("distances", distances).astype(np.float64)
    y = as_array("targets", targets).astype(np.float64)
    if dist.ndim != 1 or dist.shape != y.shape:
        raise ValueError(f"distances and targets must be 1-D arrays of the same length, got "
                         f"shapes {dist.shape} and {y.shape}")
    d = check_even_dim("d", d)
    base = check_base("base", base)
    ridge = check_finite_real("ridge", ridge, minimum=0.0, strict=True)
    theta = pair_frequencies(d, base, frequencies)  # (d/2,)
    ang = dist[:, None] * theta  # (S, d/2)
    design = np.concatenate([np.cos(ang), -np.sin(ang)], axis=1)  # columns for c, then e
    gram = design.T @ design + ridge * np.eye(d)
    coef = np.linalg.solve(gram, design.T @ y)  # (d,) = (c_0..c_{d/2-1}, e_0..e_{d/2-1})
    q = np.zeros(d)
    q[0::2] = 1.0
    k = np.empty(d)
    k[0::2], k[1::2] = coef[: d // 2], coef[d // 2:]
    return q, k


def interpolation_bound(q: ArrayLike, k: ArrayLike, distances: ArrayLike, base: float = 10000.0,
                        frequencies: ArrayLike | None = None) -> NDArray[np.float64]:
    r"""How far the RoPE score can stray, between two integer offsets, from the straight line
    joining its values there (the idea of Chen et al. 2023, theorem 2.1).

    For :math:`\Delta` between the integers :math:`k = \lfloor\Delta\rfloor` and :math:`k + 1`
    (Chen et al. call them :math:`s_1, s_2`), the error of linear interpolation is
    :math:`|a''(\xi)|/2\,(\Delta - k)(k + 1 - \Delta)` for some :math:`\xi`, and
    :math:`a'' = -\mathrm{Re}\sum_i h_i\theta_i^2 e^{\mathrm{i}\xi\theta_i}`, so

    .. math:: |a(\Delta) - a_{\mathrm{lin}}(\Delta)| \le
        \frac{(\Delta - k)(k + 1 - \Delta)}{2}\sum_i |h_i|\,\theta_i^2,
        \qquad |h_i| = |q_i|\,|k_i| \text{ (norms of pair } i).

    At most :math:`\frac18\sum_i|h_i|\theta_i^2` (mid-way), and 0 at integers. Chen et al. bound
    :math:`\sum_i\theta_i^2` further by a closed form in :math:`d` and :math:`n`; this is the
    sharper sum itself. ``q``, ``k``: interleaved vectors of length :math:`d`; result: shape of
    ``distances``. ``frequencies`` replaces :math:`\theta_i` when given.
    """

    qn, kn = _pair_norms("q", q), _pair_norms("k", k)
    if qn.shape != kn.shape:
        raise ValueError(f"q and k must have the same length, got {2 * qn.size} and {2 * kn.size}")
    d = 2 * qn.size
    theta = pair_frequencies(d, check_base("base", base), frequencies)
    dist = as_array("distances", distances).astype(np.float64)
    frac = dist - np.floor(dist)  # (Delta - k); (k + 1 - Delta) = 1 - frac
    curvature = float(np.sum(qn * kn * theta**2))  # bound on |a''|
    return 0.5 * frac * (1.0 - frac) * curvature


# --------------------------------------------------------------------------------------------
# Released models' variants: YaRN's mscale (DeepSeek), LongRoPE (Phi-3), proportional RoPE (Gemma 4)
# --------------------------------------------------------------------------------------------

__all__ += ["longrope_attention_factor", "longrope_frequencies", "proportional_frequencies",
            "yarn_attention_factor", "yarn_mscale"]


def yarn_mscale(factor: float, mscale: float = 1.0) -> float:
    r"""YaRN's magnitude scale :math:`0.1\,m\ln s + 1` (1 when :math:`s \le 1`), with
    :math:`s` = ``factor`` and :math:`m` = ``mscale`` (Peng et al. 2023, eq. 21 with DeepSeek's
    multiplier; Hugging Face ``yarn_get_mscale``)."""
    factor = check_finite_real("factor", factor, minimum=0.0, strict=True)
    mscale = check_finite_real("mscale", mscale)
    if factor <= 1.0:
        return 1.0
    return 0.1 * mscale * math.log(factor) + 1.0


def yarn_attention_factor(factor: float, mscale: float | None = None,
                          mscale_all_dim: float | None = None,
                          attention_factor: float | None = None) -> float:
    r"""The factor YaRN multiplies cos and sin by (so every logit grows by its square).

    As Hugging Face ``_compute_yarn_parameters`` chooses it:

    * ``attention_factor`` when the configuration gives one;
    * else, when both ``mscale`` and ``mscale_all_dim`` are given and non-zero (DeepSeek-V2/V3),
      :math:`\mathrm{mscale}(s, m) / \mathrm{mscale}(s, m_{all})` (:func:`yarn_mscale`) — 1 when the
      two are equal, as in DeepSeek's released configurations;
    * else :math:`0.1 \ln s + 1` (``mscale`` alone is ignored, as in the reference).

    DeepSeek then multiplies the *softmax scale* by :math:`\mathrm{mscale}(s, m_{all})^2`
    (``yarn_apply_mscale``; ``PositionPlan.softmax_scale_factor`` in :mod:`posenc_lib.maths.released`), so
    that the rotated and the unrotated dimensions of its queries and keys both get the temperature.
    """
    factor = check_finite_real("factor", factor, minimum=0.0, strict=True)
    if attention_factor is not None:
        return check_finite_real("attention_factor", attention_factor, minimum=0.0)
    if mscale and mscale_all_dim:
        return yarn_mscale(factor, mscale) / yarn_mscale(factor, mscale_all_dim)
    return yarn_mscale(factor)


def longrope_frequencies(d: int, base: float, short_factor: ArrayLike, long_factor: ArrayLike,
                         original_max_len: int, seq_len: int | None = None) -> NDArray[np.float64]:
    r"""LongRoPE's frequencies (Ding et al. 2024; Phi-3): one rescale factor per pair,

    .. math:: \omega'_i = \frac{1}{\lambda_i\, n^{2i/d}},

    with :math:`\lambda` = ``long_factor`` when the sequence is longer than the original context
    (``seq_len`` :math:`> L` = ``original_max_len``) and ``short_factor`` otherwise (also for
    ``seq_len=None``). The choice is made for the whole sequence, by its length, as in Hugging Face
    (``longrope_frequency_update`` picks the long set when ``max(position_ids) + 1 > L``).
    """
    d = check_even_dim("d", d)
    base = check_base("base", base)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    factors = {}
    for name, value in (("short_factor", short_factor), ("long_factor", long_factor)):
        arr = as_array(name, value).astype(np.float64)
        if arr.shape != (d // 2,):
            raise ValueError(f"{name} must have d/2 = {d // 2} entries (one per pair), got shape {arr.shape}")
        if not np.all(arr > 0):
            raise ValueError(f"{name} must hold only positive numbers")
        factors[name] = arr
    long = seq_len is not None and check_positive_int("seq_len", seq_len) > original_max_len
    ext = factors["long_factor"] if long else factors["short_factor"]
    return frequencies(d, base) / ext


def longrope_attention_factor(factor: float, original_max_len: int) -> float:
    r"""LongRoPE's cos/sin scale :math:`\sqrt{1 + \ln s / \ln L}` (1 when :math:`s \le 1`), with
    :math:`s` = ``factor`` (for Phi-3, ``max_position_embeddings / original_max_position_embeddings``)
    and :math:`L` = ``original_max_len``; Hugging Face ``_compute_longrope_parameters``."""
    factor = check_finite_real("factor", factor, minimum=0.0, strict=True)
    original_max_len = check_positive_int("original_max_len", original_max_len)
    if original_max_len < 2:
        raise ValueError(f"original_max_len must be >= 2 (ln L divides), got {original_max_len}")
    if factor <= 1.0:
        return 1.0
    return math.sqrt(1.0 + math.log(factor) / math.log(original_max_len))


def proportional_frequencies(d: int, rotary_dim: int, base: float = 10000.0,
                             factor: float = 1.0) -> NDArray[np.float64]:
    r"""Proportional ("p-RoPE") frequencies of a ``d``-dimensional head that rotates ``rotary_dim``
    features: the first :math:`r/2` frequencies *of the full head*, then zeros,

    .. math:: \omega_i = \frac{n^{-2i/d}}{s} \;(i < r/2), \qquad \omega_i = 0 \;(r/2 \le i < d/2),

    shape ``(d // 2,)``. This is Hugging Face's ``rope_type="proportional"`` (Gemma 4's global layers,
    ``partial_rotary_factor`` :math:`= r/d`): ``rope_angles = int(partial_rotary_factor * d // 2)``
    frequencies :math:`n^{-2i/d}`, zero-padded to :math:`d/2`, divided by ``factor`` :math:`s`. A pair
    with frequency 0 never turns, so those :math:`d/2 - r/2` pairs carry no position. Compare GPT-NeoX's
    partial rotary (``rope.apply(..., rotary_dim=r)``, convention ``"leading"``), whose :math:`r/2`
    frequencies are :math:`n^{-2i/r}`: a complete :math:`r`-dimensional RoPE, from 1 down to
    :math:`\approx 1/n`; here they stop at :math:`n^{-(r-2)/d}`, far above :math:`1/n`.
    """
    d = check_even_dim("d", d)
    rotary_dim = check_even_dim("rotary_dim", rotary_dim)
    if rotary_dim > d:
        raise ValueError(f"rotary_dim must be <= d = {d}, got {rotary_dim}")
    base = check_base("base", base)
    factor = check_finite_real("factor", factor, minimum=0.0, strict=True)
    omega = np.zeros(d // 2)
    omega[: rotary_dim // 2] = frequencies(d, base)[: rotary_dim // 2]
    return omega / factor
