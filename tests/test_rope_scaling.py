"""Tests for posenc_lib.maths.rope_scaling: linear (PI), NTK-aware and YaRN frequency scaling."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import rope
from posenc_lib.maths.rope_scaling import SCALING_METHODS, scaled_frequencies, yarn_correction_range


def _omega(d: int, base: float = 10000.0) -> np.ndarray:
    # plain RoPE frequencies, written out here rather than imported
    return np.array([base ** (-2.0 * i / d) for i in range(d // 2)])


CONFIGS = [  # (d, factor, base, original_max_len)
    (16, 4.0, 10000.0, 2048),
    (64, 2.0, 10000.0, 4096),
    (128, 8.0, 10000.0, 4096),
    (128, 16.0, 500000.0, 8192),
    (128, 32.0, 10000.0, 2048),
    (96, 3.5, 10000.0, 1024),
]


# ---------------------------------------------------------------------------------------------
# factor == 1 and the re-export
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", SCALING_METHODS)
@pytest.mark.parametrize("d,base", [(2, 10000.0), (16, 10000.0), (128, 500000.0)])
def test_factor_one_changes_nothing(method, d, base):
    omega, scale = scaled_frequencies(d, 1.0, method, base=base)
    np.testing.assert_allclose(omega, _omega(d, base), rtol=1e-14)
    assert scale == 1.0


def test_reexported_from_rope():
    assert rope.scaled_frequencies is scaled_frequencies
    assert "scaled_frequencies" in rope.__all__


# ---------------------------------------------------------------------------------------------
# linear (Position Interpolation)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d,factor,base,L", CONFIGS)
def test_linear_divides_every_frequency_by_the_factor(d, factor, base, L):
    omega, scale = scaled_frequencies(d, factor, "linear", base=base, original_max_len=L)
    np.testing.assert_allclose(omega * factor, _omega(d, base), rtol=1e-14)
    assert scale == 1.0
    # Position interpolation: the angle at position s*p equals the original angle at p
    p = np.array([0.0, 1.0, 17.0, L - 1.0])
    np.testing.assert_allclose((factor * p)[:, None] * omega, p[:, None] * _omega(d, base),
                               rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# NTK-aware
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d,factor,base,L", CONFIGS)
def test_ntk_keeps_fastest_pair_and_divides_slowest_by_factor(d, factor, base, L):
    # base' = base * s^(d/(d-2)); pair i: base'^(-2i/d) = omega_i * s^(-2i/(d-2)).
    # i = 0 -> 1;  i = d/2 - 1 -> omega_last * s^(-(d-2)/(d-2)) = omega_last / s.
    omega, scale = scaled_frequencies(d, factor, "ntk", base=base, original_max_len=L)
    orig = _omega(d, base)
    assert omega[0] == 1.0
    assert omega[-1] == pytest.approx(orig[-1] / factor, rel=1e-12)
    i = np.arange(d // 2)
    np.testing.assert_allclose(omega / orig, factor ** (-2.0 * i / (d - 2)), rtol=1e-12)
    # in between: divided by something between 1 and s
    assert np.all(omega <= orig) and np.all(omega >= orig / factor * (1 - 1e-12))
    assert scale == 1.0


def test_ntk_by_hand_small_case():
    # d = 4, base 100, s = 4: base' = 100 * 4^(4/2) = 1600, omega' = [1, 1600^(-1/2)] = [1, 1/40]
    # (the original pair 1 is 100^(-1/2) = 1/10, divided by s = 4).
    omega, _ = scaled_frequencies(4, 4, "ntk", base=100)
    np.testing.assert_allclose(omega, [1.0, 0.025], rtol=1e-14)


def test_ntk_d2_has_nothing_to_scale():
    omega, _ = scaled_frequencies(2, 8.0, "ntk")
    np.testing.assert_array_equal(omega, [1.0])


# ---------------------------------------------------------------------------------------------
# YaRN
# ---------------------------------------------------------------------------------------------

# d = 16, base = 10000, L = 2048, s = 4.
#   fractional index for beta turns: i(beta) = d ln(L / (2 pi beta)) / (2 ln base)
#                                            = 16 / (2 * 9.210340) * ln(...) = 0.868589 ln(...)
#   beta_fast = 32: L / (64 pi) = 10.18592, ln = 2.321024 -> i = 2.01602 -> low  = floor = 2
#   beta_slow = 1 : L / (2 pi)  = 325.9493, ln = 5.786741 -> i = 5.02630 -> high = ceil  = 6
#   turns r_i = 325.95 / 10^(i/2): 325.9, 103.1, 32.6, 10.3, 3.26, 1.03, 0.33, 0.10
#   ramp gamma_i = clip((i - 2) / 4, 0, 1) = 0, 0, 0, .25, .5, .75, 1, 1
#   omega'_i / omega_i = 1 - gamma_i (1 - 1/s) = 1, 1, 1, 0.8125, 0.625, 0.4375, 0.25, 0.25
#   -> pairs 0..2 pure extrapolation (unchanged), 6..7 pure interpolation (divided by 4).
#   attention scale = 0.1 ln 4 + 1 = 1.1386294361119891
YARN_16_MULTIPLIERS = [1.0, 1.0, 1.0, 0.8125, 0.625, 0.4375, 0.25, 0.25]


def test_yarn_hand_computed_small_case():
    assert yarn_correction_range(16, 10000.0, 2048) == (2, 6)
    omega, scale = scaled_frequencies(16, 4, "yarn", base=10000.0, original_max_len=2048)
    np.testing.assert_allclose(omega / _omega(16), YARN_16_MULTIPLIERS, rtol=1e-14)
    assert scale == pytest.approx(1.1386294361119891, rel=1e-15)


def test_yarn_high_beyond_last_pair_is_not_clamped_to_it():
    # d = 16, L = 65536: i(32) = 0.868589 ln(325.949) = 5.0263 -> low = 5;
    # i(1) = 0.868589 ln(10430.38) = 8.0366 -> high = 9 (> d/2 - 1 = 7; HF clamps at d - 1 = 15).
    # gamma = clip((i - 5) / 4): pair 6 -> .25, pair 7 -> .5 (never reaches 1), s = 4:
    # multipliers 1 - 0.75 gamma = 1 (i <= 5), 0.8125, 0.625.
    assert yarn_correction_range(16, 10000.0, 65536) == (5, 9)
    omega, _ = scaled_frequencies(16, 4, "yarn", original_max_len=65536)
    np.testing.assert_allclose(omega / _omega(16), [1, 1, 1, 1, 1, 1, 0.8125, 0.625], rtol=1e-14)


def test_yarn_zero_width_ramp_guard():
    # d = 16, L = 4: i(32) < 0 -> low = 0; i(1) = 0.868589 ln(4 / 2pi) = -0.392 -> ceil = 0 = high.
    # HF bumps high to 0.001: gamma_0 = 0, gamma_i = 1 for i >= 1 (no 0/0 NaN).
    assert yarn_correction_range(16, 10000.0, 4) == (0, 0)
    omega, _ = scaled_frequencies(16, 2, "yarn", original_max_len=4)
    expected = _omega(16) / 2
    expected[0] = 1.0
    np.testing.assert_allclose(omega, expected, rtol=1e-14)


def test_yarn_correction_range_d128():
    # d = 128, L = 4096: 128 / (2 ln 10000) = 6.948700
    #   i(32) = 6.9487 * ln(4096 / (64 pi)) = 6.9487 * 3.014157 = 20.944 -> 20
    #   i(1)  = 6.9487 * ln(4096 / (2 pi))  = 6.9487 * 6.479893 = 45.027 -> 46
    assert yarn_correction_range(128, 10000.0, 4096) == (20, 46)
    # beta_fast = 64 instead:
    #   i(64) = 6.9487 * ln(4096 / (128 pi)) = 6.9487 * 2.321010 = 16.128 -> 16
    assert yarn_correction_range(128, 10000.0, 4096, beta_fast=64.0) == (16, 46)


@pytest.mark.parametrize("d,factor,base,L", CONFIGS)
def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones(d, factor, base, L):
    omega, scale = scaled_frequencies(d, factor, "yarn", base=base, original_max_len=L)
    orig = _omega(d, base)
    turns = L * orig / (2 * math.pi)  # r_i = L / lambda_i
    fast = turns >= 32.0
    slow = turns <= 1.0
    assert fast.any() and slow.any()
    np.testing.assert_allclose(omega[fast], orig[fast], rtol=1e-15)
    np.testing.assert_allclose(omega[slow], orig[slow] / factor, rtol=1e-15)
    mid = ~fast & ~slow
    assert np.all(omega[mid] <= orig[mid]) and np.all(omega[mid] >= orig[mid] / factor)
    # strictly decreasing: the ramp multiplier never increases with i
    assert np.all(np.diff(omega) < 0)
    assert scale == pytest.approx(1.0 + 0.1 * math.log(factor), rel=1e-15)


@pytest.mark.parametrize("factor,expected", [(2.0, 1.0693147180559945), (8.0, 1.2079441541679836),
                                             (16.0, 1.2772588722239781)])
def test_yarn_attention_scale_values(factor, expected):
    # 0.1 ln s + 1 with ln 2 = 0.6931471805599453, ln 8 = 3 ln 2, ln 16 = 4 ln 2
    assert scaled_frequencies(64, factor, "yarn")[1] == pytest.approx(expected, rel=1e-15)


def _yarn_loops(d, factor, base, L, beta_fast, beta_slow):
    """Independent plain-Python YaRN from the definition, with different intermediate steps."""
    half = d // 2

    def index_for_turns(beta):
        # r_i = L / (2 pi base^(2i/d)) = beta  <=>  i = (d/2) log_base(L / (2 pi beta))
        return half * math.log(L / (2 * math.pi * beta), base)

    lo = max(0, math.floor(index_for_turns(beta_fast)))
    hi = min(d - 1, math.ceil(index_for_turns(beta_slow)))
    if hi == lo:
        hi = lo + 0.001
    out = []
    for i in range(half):
        w = 1.0 / base ** (i / half)
        t = (i - lo) / (hi - lo)
        if t <= 0:
            out.append(w)  # extrapolate: keep
        elif t >= 1:
            out.append(w / factor)  # interpolate
        else:
            out.append(w * (1 - t) + (w / factor) * t)
    return out


@pytest.mark.parametrize("d,factor,base,L", CONFIGS + [(16, 4.0, 10000.0, 65536),
                                                     (32, 6.0, 1000.0, 300)])
@pytest.mark.parametrize("beta_fast,beta_slow", [(32.0, 1.0), (16.0, 2.0), (64.0, 0.5)])
def test_yarn_matches_loop_implementation(d, factor, base, L, beta_fast, beta_slow):
    omega, _ = scaled_frequencies(d, factor, "yarn", base=base, original_max_len=L,
                                  beta_fast=beta_fast, beta_slow=beta_slow)
    want = _yarn_loops(d, factor, base, L, beta_fast, beta_slow)
    np.testing.assert_allclose(omega, want, rtol=1e-12)


@pytest.mark.parametrize("method", SCALING_METHODS)
def test_frequencies_decrease_for_every_method(method):
    for d, factor, base, L in CONFIGS:
        omega, _ = scaled_frequencies(d, factor, method, base=base, original_max_len=L)
        assert np.all(np.diff(omega) < 0)
        assert np.all(omega <= _omega(d, base) * (1 + 1e-15))


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


def test_argument_errors():
    with pytest.raises(ValueError, match=r"^factor must be >= 1, got 0.5$"):
        scaled_frequencies(16, 0.5, "linear")
    with pytest.raises(ValueError,
                       match=r"method must be one of 'linear', 'ntk', 'yarn', 'llama3', 'dynamic', "
                             r"got 'ntk-by-parts'"):
        scaled_frequencies(16, 2, "ntk-by-parts")
    with pytest.raises(ValueError, match="d must be a positive even integer, got 7"):
        scaled_frequencies(7, 2, "linear")
    with pytest.raises(ValueError, match="original_max_len must be a positive integer, got 0"):
        scaled_frequencies(16, 2, "yarn", original_max_len=0)
    with pytest.raises(TypeError, match="original_max_len must be a positive integer, got 2048.0"):
        scaled_frequencies(16, 2, "yarn", original_max_len=2048.0)
    with pytest.raises(ValueError,
                       match="beta_fast must be > beta_slow, got beta_fast=1, beta_slow=32"):
        scaled_frequencies(16, 2, "yarn", beta_fast=1.0, beta_slow=32.0)
    with pytest.raises(ValueError, match="beta_fast must be > beta_slow"):
        scaled_frequencies(16, 2, "yarn", beta_fast=4.0, beta_slow=4.0)
    with pytest.raises(ValueError, match="beta_slow must be > 0, got 0"):
        scaled_frequencies(16, 2, "yarn", beta_slow=0.0)
    with pytest.raises(ValueError, match="base must be > 1 for YaRN"):
        scaled_frequencies(16, 2, "yarn", base=1.0)
    with pytest.raises(ValueError, match="factor must be finite"):
        scaled_frequencies(16, float("inf"), "ntk")


def _llama3_reference(d, factor, base, original, low, high):
    """Llama 3.1's rule written pair by pair (as in Meta's reference `apply_scaling`)."""
    out = []
    for i in range(d // 2):
        freq = base ** (-2 * i / d)
        wavelen = 2 * math.pi / freq
        if wavelen < original / high:
            out.append(freq)
        elif wavelen > original / low:
            out.append(freq / factor)
        else:
            smooth = (original / wavelen - low) / (high - low)
            out.append((1 - smooth) * freq / factor + smooth * freq)
    return np.array(out)


@pytest.mark.parametrize("d, factor, base, original, low, high", [
    (128, 8.0, 500000.0, 8192, 1.0, 4.0),        # Llama 3.1
    (64, 4.0, 10000.0, 2048, 1.0, 4.0),
    (32, 16.0, 10000.0, 512, 2.0, 8.0),
])
def test_llama3_matches_a_pair_by_pair_reference(d, factor, base, original, low, high):
    got, scale = scaled_frequencies(d, factor, "llama3", base=base, original_max_len=original,
                                    low_freq_factor=low, high_freq_factor=high)
    assert scale == 1.0
    np.testing.assert_allclose(got, _llama3_reference(d, factor, base, original, low, high),
                               rtol=1e-12, atol=0)


def test_llama3_keeps_fast_pairs_and_divides_slow_ones():
    d, s = 128, 8.0
    omega = base_freqs = 500000.0 ** (-np.arange(0, d, 2) / d)
    got, _ = scaled_frequencies(d, s, "llama3", base=500000.0, original_max_len=8192)
    wavelength = 2 * np.pi / omega
    fast, slow = wavelength < 8192 / 4, wavelength > 8192
    assert fast.sum() > 0 and slow.sum() > 0 and (~fast & ~slow).sum() > 0
    np.testing.assert_array_equal(got[fast], base_freqs[fast])
    np.testing.assert_allclose(got[slow], base_freqs[slow] / s, rtol=1e-15)
    assert np.all(np.diff(got) < 0)                         # still one frequency per pair, falling


@given(d=st.integers(2, 64).map(lambda k: 2 * k), factor=st.floats(1.0, 64.0),
       seq=st.integers(1, 100000))
def test_dynamic_ntk_is_ntk_with_the_running_factor(d, factor, seq):
    original = 2048
    got, scale = scaled_frequencies(d, factor, "dynamic", original_max_len=original, seq_len=seq)
    assert scale == 1.0
    if seq <= original:
        np.testing.assert_array_equal(got, 10000.0 ** (-np.arange(0, d, 2) / d))
    else:
        running = factor * seq / original - (factor - 1)          # >= 1
        expected = (10000.0 * running ** (d / (d - 2))) ** (-np.arange(0, d, 2) / d)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        if seq == original * 2:
            ntk, _ = scaled_frequencies(d, factor + 1, "ntk", original_max_len=original)
            np.testing.assert_allclose(got, ntk, rtol=1e-12)


def test_llama3_and_dynamic_argument_errors():
    with pytest.raises(ValueError, match=r"high_freq_factor must be > low_freq_factor, got "
                                         r"high_freq_factor=1, low_freq_factor=4"):
        scaled_frequencies(64, 8.0, "llama3", low_freq_factor=4.0, high_freq_factor=1.0)
    with pytest.raises(ValueError, match=r"seq_len must be a positive integer"):
        scaled_frequencies(64, 8.0, "dynamic", seq_len=0)
