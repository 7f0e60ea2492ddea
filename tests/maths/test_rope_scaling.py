"""posenc_lib.maths.rope_scaling: linear (PI), NTK-aware, dynamic NTK, YaRN and Llama 3
frequency scaling; turns per pair, Position Interpolation's fit and bound, and YaRN's two ramps
(the paper's, linear in the turns, and the reference code's, in the index)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import dims_to_32, factors, methods, pairings, seeds
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import encodings, rope, rope_scaling
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


@given(dims_to_32, pairings, seeds, factors)
def test_linear_frequencies_are_divided_positions(d, pairing, seed, factor):
    """Position Interpolation: theta / s at position p is theta at position p / s."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, d))
    pos = rng.uniform(0, 4096, 4)
    theta, _ = rope_scaling.scaled_frequencies(d, factor, "linear")
    np.testing.assert_allclose(rope.apply(x, pos, pairing=pairing, frequencies=theta),
                               rope.apply(x, pos / factor, pairing=pairing), atol=1e-9)


# -- turns per pair ----------------------------------------------------------------------------
def test_turns_known_values():
    # d = 128, n = 10000, L = 2048: r_i = (2048 / 2 pi) 10^(-i/16) = 325.949 * 10^(-i/16);
    # r_i < 1 <=> i > 16 log10(325.949) = 40.21, so pairs 41 .. 63: 23 of them.
    r = rope_scaling.turns(128, 10000.0, 2048)
    assert r[0] == pytest.approx(2048 / (2 * math.pi), rel=1e-15)
    assert r[40] == pytest.approx(325.9493234522017 * 10 ** -2.5, rel=1e-12)
    assert int(np.sum(r < 1)) == 23
    assert int(np.sum(encodings.wavelengths(128) > 2048)) == 23


@given(dims_to_32, st.floats(1.0, 1e6), st.integers(1, 100_000))
def test_turns_times_wavelength_is_the_context(d, base, L):
    r = rope_scaling.turns(d, base, L)
    np.testing.assert_allclose(r * encodings.wavelengths(d, base), L, rtol=1e-12)


def test_turns_validation():
    with pytest.raises(ValueError, match="original_max_len must be a positive integer, got 0"):
        rope_scaling.turns(8, 10000.0, 0)
    with pytest.raises(ValueError, match="d must be a positive even integer, got 7"):
        rope_scaling.turns(7)


# -- Position Interpolation's fit and bound --------------------------------------------------------
def test_fit_recovers_a_curve_it_can_represent():
    rng = np.random.default_rng(3)
    d = 8
    q_true, k_true = rng.standard_normal((2, d))
    dist = np.arange(0.0, 200.0)
    y = rope.score_curve(q_true, k_true, dist)
    q, k = rope_scaling.fit_score_curve(dist, y, d, ridge=1e-10)
    np.testing.assert_array_equal(q[0::2], 1.0)
    np.testing.assert_array_equal(q[1::2], 0.0)
    np.testing.assert_allclose(rope.score_curve(q, k, dist), y, atol=1e-6)
    # the same curve everywhere, also outside the fitted range
    far = np.linspace(-500, 5000, 50)
    np.testing.assert_allclose(rope.score_curve(q, k, far), rope.score_curve(q_true, k_true, far),
                               atol=1e-5)


def test_fit_minimises_the_ridge_objective():
    """Normal equations: the gradient of the penalised least-squares objective vanishes."""
    rng = np.random.default_rng(4)
    d, ridge = 16, 1e-2
    dist = np.arange(0.0, 300.0)
    y = rng.uniform(-1, 1, dist.size)
    q, k = rope_scaling.fit_score_curve(dist, y, d, ridge=ridge)

    def objective(kk: np.ndarray) -> float:
        return float(np.sum((rope.score_curve(q, kk, dist) - y) ** 2) + ridge * np.sum(kk**2))

    base = objective(k)
    for j in range(d):
        for eps in (1e-4, -1e-4):
            kk = k.copy()
            kk[j] += eps
            assert objective(kk) >= base - 1e-12


def test_fit_extrapolates_badly_and_interpolates_well():
    """The chapter's claim, in numbers: tame on [0, L] and between integers, wild beyond L."""
    rng = np.random.default_rng(0)
    d, L = 128, 2048
    dist = np.arange(L + 1.0)
    y = rng.uniform(-1, 1, dist.size)
    q, k = rope_scaling.fit_score_curve(dist, y, d)
    inside = np.abs(rope.score_curve(q, k, np.linspace(0, L, 20001))).max()
    beyond = np.abs(rope.score_curve(q, k, np.linspace(L, 2 * L, 20001))).max()
    assert inside < 1.0
    assert beyond > 20 * inside


def test_fit_validation():
    with pytest.raises(ValueError, match=r"distances and targets must be 1-D arrays of the same "
                                         r"length, got shapes \(3,\) and \(4,\)"):
        rope_scaling.fit_score_curve(np.arange(3.0), np.zeros(4), 8)
    with pytest.raises(ValueError, match="ridge must be > 0, got 0"):
        rope_scaling.fit_score_curve(np.arange(3.0), np.zeros(3), 8, ridge=0)
    with pytest.raises(ValueError, match="targets must contain only finite values"):
        rope_scaling.fit_score_curve(np.arange(3.0), [0.0, np.inf, 1.0], 8)


def test_interpolation_bound_by_hand():
    # one pair, q = k = (1, 0): a(delta) = cos(delta), |a''| <= 1, bound = frac (1 - frac) / 2
    q = k = np.array([1.0, 0.0])
    b = rope_scaling.interpolation_bound(q, k, [0.0, 0.5, 3.25, 7.0])
    np.testing.assert_allclose(b, [0.0, 0.125, 0.25 * 0.75 / 2, 0.0], atol=1e-15)
    # the true error at 0.5: cos(0.5) - (cos 0 + cos 1) / 2 = 0.1074 <= 0.125
    err = math.cos(0.5) - (1.0 + math.cos(1.0)) / 2
    assert 0.1 < err <= b[1]
    # d = 4, base 100: theta = (1, 0.1); |h| = (|q0||k0|, |q1||k1|) = (2 * 1, 1 * 3)
    b = rope_scaling.interpolation_bound([2.0, 0.0, 0.0, 1.0], [1.0, 0.0, 3.0, 0.0], 0.5, 100.0)
    assert float(b) == pytest.approx((2.0 * 1.0 + 3.0 * 0.01) / 8, rel=1e-14)


@given(st.integers(1, 8).map(lambda k: 2 * k), seeds, st.floats(0, 3000), methods, factors)
def test_interpolation_bound_holds(d, seed, start, method, factor):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, d))
    theta, _ = rope_scaling.scaled_frequencies(d, factor, method, original_max_len=256)
    s1 = math.floor(start)
    fine = s1 + np.linspace(0.0, 1.0, 33)
    a = rope.score_curve(q, k, fine, frequencies=theta)
    line = a[0] + (a[-1] - a[0]) * (fine - s1)
    bound = rope_scaling.interpolation_bound(q, k, fine, frequencies=theta)
    assert np.all(np.abs(a - line) <= bound + 1e-9)


def test_interpolation_bound_validation():
    with pytest.raises(ValueError, match=r"q and k must have the same length, got 4 and 6"):
        rope_scaling.interpolation_bound(np.ones(4), np.ones(6), 0.5)
    with pytest.raises(ValueError, match=r"d \(the length of q\) must be a positive even integer"):
        rope_scaling.interpolation_bound(np.ones(5), np.ones(5), 0.5)
    with pytest.raises(ValueError, match=r"k must be a 1-D vector, got shape \(2, 2\)"):
        rope_scaling.interpolation_bound(np.ones(4), np.ones((2, 2)), 0.5)


# -- YaRN's ramp and blend --------------------------------------------------------------------
def test_yarn_ramp_and_frequencies_by_hand():
    # the hand-computed case of test_rope_scaling: d = 16, low 2, high 6, s = 4
    np.testing.assert_allclose(rope_scaling.yarn_ramp(16, 2, 6),
                               [0, 0, 0, 0.25, 0.5, 0.75, 1, 1], atol=1e-15)
    got = rope_scaling.yarn_frequencies(16, 4.0, 2, 6) / encodings.frequencies(16)
    np.testing.assert_allclose(got, [1, 1, 1, 0.8125, 0.625, 0.4375, 0.25, 0.25], rtol=1e-14)
    # zero-width ramp: high is bumped by 0.001, so pair 0 is kept and the rest interpolated
    np.testing.assert_allclose(rope_scaling.yarn_ramp(8, 0, 0), [0, 1, 1, 1])


@given(dims_to_32, factors, st.floats(1.5, 1e6), st.integers(2, 100_000))
def test_scaled_frequencies_yarn_is_yarn_frequencies(d, factor, base, L):
    low, high = rope_scaling.yarn_correction_range(d, base, L)
    omega, _ = rope_scaling.scaled_frequencies(d, factor, "yarn", base=base, original_max_len=L)
    np.testing.assert_array_equal(omega, rope_scaling.yarn_frequencies(d, factor, low, high, base))


def test_yarn_validation():
    with pytest.raises(ValueError, match="low must be finite"):
        rope_scaling.yarn_ramp(8, float("nan"), 3)
    with pytest.raises(TypeError, match="high must be a real number"):
        rope_scaling.yarn_ramp(8, 1, "3")
    with pytest.raises(ValueError, match="factor must be >= 1, got 0.5"):
        rope_scaling.yarn_frequencies(8, 0.5, 1, 3)


# -- YaRN's two ramps: the paper's (linear in turns) and the reference code's (in the index) ----
# (the exercise checkers are tested with the other chapters' in tests/course/test_checkers.py, from the
# correct and wrong solutions in tests/exercises_cases/ch11.py)
def test_yarn_turns_ramp_by_hand():
    # Peng et al.: gamma(r) = 0 for r < alpha, 1 for r > beta, (r - alpha) / (beta - alpha) between
    got = rope_scaling.yarn_turns_ramp([0.5, 1.0, 16.5, 32.0, 40.0])
    np.testing.assert_allclose(got, [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(rope_scaling.yarn_turns_ramp([2.0, 3.0], alpha=2, beta=4), [0, 0.5])


def _paper_loops(d, factor, base, L, alpha=1.0, beta=32.0):
    out = []
    for i in range(d // 2):
        theta = base ** (-2.0 * i / d)
        r = L * theta / (2 * math.pi)
        gamma = 0.0 if r < alpha else 1.0 if r > beta else (r - alpha) / (beta - alpha)
        out.append((1 - gamma) * theta / factor + gamma * theta)
    return np.array(out)


@given(dims_to_32, factors, st.floats(1.5, 1e6), st.integers(2, 100_000))
def test_paper_ramp_matches_the_paper_written_as_loops(d, factor, base, L):
    omega, scale = rope_scaling.scaled_frequencies(d, factor, "yarn", base=base,
                                                   original_max_len=L, ramp="turns")
    np.testing.assert_allclose(omega, _paper_loops(d, factor, base, L), rtol=1e-12)
    np.testing.assert_array_equal(omega, rope_scaling.yarn_paper_frequencies(d, factor, base, L))
    assert scale == rope_scaling.scaled_frequencies(d, factor, "yarn", base=base,
                                                    original_max_len=L)[1]


@given(st.integers(2, 128).map(lambda k: 2 * k), st.floats(1.01, 64.0), st.floats(2.0, 1e6),
       st.integers(64, 1_000_000))
def test_both_ramps_keep_and_divide_the_same_pairs(d, factor, base, L):
    """Unless a clamp of the reference code applies (no pair with 32 turns, or none under one)."""
    r = rope_scaling.turns(d, base, L)
    if not (r[0] >= 32 and r[-1] <= 1):
        return
    theta = encodings.frequencies(d, base)
    code, _ = rope_scaling.scaled_frequencies(d, factor, "yarn", base=base, original_max_len=L)
    paper, _ = rope_scaling.scaled_frequencies(d, factor, "yarn", base=base, original_max_len=L,
                                               ramp="turns")
    np.testing.assert_array_equal(code == theta, paper == theta)
    divided = [np.isclose(x, theta / factor, rtol=1e-12, atol=0) for x in (code, paper)]
    np.testing.assert_array_equal(*divided)


def test_ramp_validation():
    with pytest.raises(ValueError, match=r"ramp must be one of 'index', 'turns', got 'paper'"):
        rope_scaling.scaled_frequencies(16, 2.0, "yarn", ramp="paper")
    with pytest.raises(ValueError, match=r"ramp must be one of"):
        rope_scaling.scaled_frequencies(16, 2.0, "linear", ramp=None)
    with pytest.raises(ValueError, match=r"beta must be > alpha, got alpha=32, beta=1"):
        rope_scaling.yarn_turns_ramp([1.0], alpha=32.0, beta=1.0)
    with pytest.raises(ValueError, match="r must contain only finite values"):
        rope_scaling.yarn_turns_ramp([np.nan])
    # the default is the reference code's ramp, so existing callers are unchanged
    np.testing.assert_array_equal(
        rope_scaling.scaled_frequencies(64, 4.0, "yarn")[0],
        rope_scaling.scaled_frequencies(64, 4.0, "yarn", ramp="index")[0])


def test_dynamic_ntk_running_factor():
    base = encodings.frequencies(128, 10000.0)
    for ell, expected in ((4096, 1.0), (8192, 3.0), (16384, 7.0)):
        theta, _ = rope_scaling.scaled_frequencies(128, 2.0, "dynamic", 10000.0,
                                                   original_max_len=4096, seq_len=ell)
        assert base[-1] / theta[-1] == pytest.approx(expected, rel=1e-12)
        assert theta[0] == base[0]
        assert expected >= ell / 4096  # at or above the stretch
