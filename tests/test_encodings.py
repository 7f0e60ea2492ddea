"""posenc_lib.maths.encodings: known values (worked by hand), properties, validation."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import encodings


# -- worked examples -------------------------------------------------------------------------
def test_example_1_d4_positions_0_and_1():
    pe = encodings.sinusoidal(2, 4)
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    # omega_0 = 1, omega_1 = 10000^(-2/4) = 1/100
    expected = [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]
    np.testing.assert_allclose(pe[1], expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(pe[1], [0.8415, 0.5403, 0.0100, 0.99995], atol=5e-5)


def test_problem_1_d8_position_100_and_wavelengths():
    pe = encodings.sinusoidal(101, 8)[100]
    # the textbook's rounded answer
    np.testing.assert_allclose(
        pe, [-0.5064, 0.8623, -0.5440, -0.8391, 0.8415, 0.5403, 0.0998, 0.9950], atol=5e-5)
    np.testing.assert_allclose(encodings.frequencies(8), [1, 0.1, 0.01, 0.001], rtol=1e-12)
    np.testing.assert_allclose(encodings.wavelengths(8),
                               [2 * math.pi, 20 * math.pi, 200 * math.pi, 2000 * math.pi],
                               rtol=1e-12)


def test_example_2_dot_product_depends_on_offset_only():
    pe = encodings.sinusoidal(15, 2)
    assert pe[3] @ pe[7] == pytest.approx(math.cos(4), abs=1e-12)
    assert pe[10] @ pe[14] == pytest.approx(math.cos(4), abs=1e-12)
    assert math.cos(4) == pytest.approx(-0.6536, abs=1e-4)


def test_problem_4_frequency_ratio_d512():
    w = encodings.frequencies(512)
    assert w[0] == 1.0
    assert w[0] / w[255] == pytest.approx(10000 ** (510 / 512), rel=1e-12)
    assert round(w[0] / w[255]) == 9647


def test_wavelength_range_is_2pi_to_nearly_2pi_n():
    lam = encodings.wavelengths(512, base=10000.0)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert 2 * math.pi * 9000 < lam[-1] < 2 * math.pi * 10000


def test_integer_encoding_values():
    pe = encodings.integer(5, 3)
    assert pe.tolist() == [[p, p, p] for p in range(5)]
    assert encodings.integer(0, 4).shape == (0, 4)


# -- properties ------------------------------------------------------------------------------
dims = st.integers(1, 64).map(lambda k: 2 * k)
bases = st.floats(1.0, 1e6)


@given(dims, bases, st.integers(0, 5000))
def test_bounded_and_constant_norm(d, base, pos):
    pe = encodings.sinusoidal_at(np.array([pos]), d, base)[0]
    assert np.all(np.abs(pe) <= 1.0)
    # each (sin, cos) pair has norm 1, so |PE|^2 = d/2 for every position
    assert pe @ pe == pytest.approx(d / 2, rel=1e-12)


@given(dims, bases, st.integers(0, 2000), st.integers(0, 2000))
def test_dot_product_is_sum_of_cosines_of_offset(d, base, m, n):
    pe = encodings.sinusoidal_at(np.array([m, n]), d, base)
    omega = encodings.frequencies(d, base)
    assert pe[0] @ pe[1] == pytest.approx(np.sum(np.cos((m - n) * omega)), abs=1e-9)


@given(dims, st.integers(0, 1000), st.integers(-500, 500))
def test_shift_is_a_linear_map(d, p, k):
    """PE(p + k) = R(k) PE(p) with R(k) block-diagonal [[cos, sin], [-sin, cos]] (problem 2)."""
    pe = encodings.sinusoidal_at(np.array([p, p + k]), d)
    omega = encodings.frequencies(d)
    r = np.zeros((d, d))
    for i, w in enumerate(omega):
        c, s = math.cos(k * w), math.sin(k * w)
        r[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, s], [-s, c]]
    np.testing.assert_allclose(r @ pe[0], pe[1], atol=1e-9)


@given(dims, st.integers(1, 50))
def test_concat_is_a_fixed_permutation_of_interleaved(d, seq):
    inter = encodings.sinusoidal(seq, d, layout="interleaved")
    concat = encodings.sinusoidal(seq, d, layout="concat")
    perm = encodings.split_permutation(d)
    np.testing.assert_array_equal(inter[:, perm], concat)
    np.testing.assert_array_equal(concat[:, np.argsort(perm)], inter)
    # concat: first half sines, second half cosines of the same angles
    np.testing.assert_allclose(concat[:, : d // 2] ** 2 + concat[:, d // 2:] ** 2, 1.0, atol=1e-12)


def test_split_permutation_small():
    assert encodings.split_permutation(6).tolist() == [0, 2, 4, 1, 3, 5]


def test_float32_output_is_rounded_float64_angles():
    pos = np.array([123456789.3])
    pe32 = encodings.sinusoidal_at(pos, 16, dtype=np.float32)
    pe64 = encodings.sinusoidal_at(pos, 16)
    assert pe32.dtype == np.float32
    # angles were formed in float64, so the float32 result is the float64 one rounded
    np.testing.assert_allclose(pe32, pe64, atol=1e-7)
    # forming the angle in float32 instead would be far off at this position
    bad = np.sin(np.float32(123456789.3) * np.float32(1.0))  # float32 rounds pos to ...792
    assert abs(bad - pe64[0, 0]) > 1e-3


def test_non_integer_positions_are_allowed():
    pe = encodings.sinusoidal_at([0.5], 2)
    np.testing.assert_allclose(pe, [[math.sin(0.5), math.cos(0.5)]])


# -- validation ------------------------------------------------------------------------------
@pytest.mark.parametrize("d, exc, msg", [
    (7, ValueError, "d must be a positive even integer, got 7"),
    (0, ValueError, "d must be a positive even integer, got 0"),
    (-4, ValueError, "got -4"),
    (8.0, TypeError, "d must be a positive even integer, got 8.0"),
    (True, TypeError, "got True"),
    ("8", TypeError, "got '8'"),
])
def test_bad_d(d, exc, msg):
    with pytest.raises(exc, match=msg):
        encodings.sinusoidal(4, d)
    with pytest.raises(exc):
        encodings.frequencies(d)


@pytest.mark.parametrize("seq_len, exc", [(-1, ValueError), (2.5, TypeError), (None, TypeError)])
def test_bad_seq_len(seq_len, exc):
    with pytest.raises(exc, match="seq_len must be a non-negative integer"):
        encodings.sinusoidal(seq_len, 4)
    with pytest.raises(exc, match="seq_len"):
        encodings.integer(seq_len, 4)


@pytest.mark.parametrize("base, exc, msg", [
    (0.5, ValueError, "base must be >= 1, got 0.5"),
    (float("nan"), ValueError, "base must be finite"),
    (float("inf"), ValueError, "base must be finite"),
    ("10000", TypeError, "base must be a real number"),
])
def test_bad_base(base, exc, msg):
    with pytest.raises(exc, match=msg):
        encodings.frequencies(8, base)


def test_bad_layout_and_dtype_and_positions():
    with pytest.raises(ValueError, match="layout must be one of 'interleaved', 'concat', got 'sincos'"):
        encodings.sinusoidal(4, 8, layout="sincos")
    with pytest.raises(TypeError, match="dtype must be a floating dtype"):
        encodings.sinusoidal(4, 8, dtype=np.int32)
    with pytest.raises(ValueError, match="positions must contain only finite values"):
        encodings.sinusoidal_at([0.0, np.inf], 8)
    with pytest.raises(TypeError, match="positions must be a numeric array"):
        encodings.sinusoidal_at(["a"], 8)
