"""posenc_lib.maths.encodings: the transformer's sinusoids and the naive encodings of Part I
(integer, normalised, single sine, alternating, linear) and the shift matrix: known values worked
by hand, properties, validation.

Expected values come from closed forms, hand computations or brute-force loops written here,
never from the code under test.
"""

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


# -- the naive encodings of Part I: known values ---------------------------------------------
def test_normalized_integer_values():
    pe = encodings.normalized_integer(5, 3)
    assert pe[:, 0].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert np.all(pe == pe[:, :1])
    assert encodings.normalized_integer(1, 4).tolist() == [[0.0] * 4]   # no division by zero
    assert encodings.normalized_integer(0, 2).shape == (0, 2)
    # adjacent tokens: 1/(L-1) apart
    assert encodings.normalized_integer(500, 1)[1, 0] == pytest.approx(1 / 499)


def test_single_sine_values():
    pe = encodings.single_sine(4, 3)
    for p in range(4):
        assert pe[p].tolist() == pytest.approx([math.sin(p)] * 3, abs=1e-15)
    pe = encodings.single_sine(3, 1, omega=0.5)
    assert pe[:, 0] == pytest.approx([0.0, math.sin(0.5), math.sin(1.0)], abs=1e-15)


def test_alternating_matches_the_seed_layout():
    pe = encodings.alternating(3, 3)
    # dimension 0: sin, 1: cos, 2: sin — all at the same frequency
    for p in range(3):
        assert pe[p].tolist() == pytest.approx([math.sin(p), math.cos(p), math.sin(p)], abs=1e-15)
    pe = encodings.alternating(2, 4, omega=2.0)
    assert pe[1].tolist() == pytest.approx([math.sin(2), math.cos(2)] * 2, abs=1e-15)


def test_alternating_is_sinusoidal_with_d2_repeated():
    # d = 2 with omega = 1 is exactly the Transformer's encoding with a single pair
    np.testing.assert_allclose(encodings.alternating(50, 2), encodings.sinusoidal(50, 2), atol=1e-15)


def test_linear_pair_convention_values():
    np.testing.assert_allclose(encodings.linear_frequencies(8), [1, 1 / 2, 1 / 3, 1 / 4])
    pe = encodings.linear(3, 4)
    expected = [[math.sin(p), math.cos(p), math.sin(p / 2), math.cos(p / 2)] for p in range(3)]
    np.testing.assert_allclose(pe, expected, atol=1e-15)


def test_linear_dimension_convention_is_the_seed_example():
    # [sin(pos/1), cos(pos/2), sin(pos/3), cos(pos/4)]
    pe = encodings.linear(3, 4, convention="dimension")
    for p in range(3):
        np.testing.assert_allclose(
            pe[p], [math.sin(p), math.cos(p / 2), math.sin(p / 3), math.cos(p / 4)], atol=1e-15)
    assert encodings.linear(2, 3, convention="dimension").shape == (2, 3)   # odd d allowed


def test_linear_wavelengths_grow_in_equal_steps():
    lam = 2 * np.pi / encodings.linear_frequencies(16)
    np.testing.assert_allclose(np.diff(lam), 2 * np.pi)


def test_shift_matrix_small_case_by_hand():
    r = encodings.shift_matrix(1.0, [1.0])
    c, s = math.cos(1), math.sin(1)
    np.testing.assert_allclose(r, [[c, s], [-s, c]], atol=1e-15)
    # moves (sin 2, cos 2) to (sin 3, cos 3)
    np.testing.assert_allclose(r @ [math.sin(2), math.cos(2)], [math.sin(3), math.cos(3)],
                               atol=1e-15)


# -- the naive encodings of Part I: properties -----------------------------------------------
@given(st.integers(1, 32).map(lambda k: 2 * k), st.floats(1.0, 1e5),
       st.floats(-1e3, 1e3), st.floats(-1e3, 1e3))
def test_shift_matrix_moves_the_transformer_encoding(d, base, p, k):
    pe = encodings.sinusoidal_at(np.array([p, p + k]), d, base)
    r = encodings.shift_matrix(k, encodings.frequencies(d, base))
    np.testing.assert_allclose(r @ pe[0], pe[1], atol=1e-9)


@given(st.integers(1, 20), st.floats(-50, 50), st.floats(-50, 50))
def test_shift_matrix_is_a_rotation_and_composes(m, a, b):
    w = np.linspace(0.1, 2.0, m)
    ra, rb = encodings.shift_matrix(a, w), encodings.shift_matrix(b, w)
    np.testing.assert_allclose(ra.T @ ra, np.eye(2 * m), atol=1e-12)
    assert np.linalg.det(ra) == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(ra @ rb, encodings.shift_matrix(a + b, w), atol=1e-9)


@given(st.integers(1, 30), st.integers(1, 40))
def test_naive_encodings_are_bounded(seq, d):
    for pe in (encodings.single_sine(seq, d, 0.7), encodings.alternating(seq, d),
               encodings.linear(seq, d, "dimension"), encodings.normalized_integer(seq, d)):
        assert pe.shape == (seq, d)
        assert np.all(np.abs(pe) <= 1.0)


@given(st.integers(1, 32).map(lambda k: 2 * k), st.integers(0, 3000))
def test_linear_pairs_lie_on_the_unit_circle(d, pos):
    pe = encodings.linear(pos + 1, d)[pos]
    np.testing.assert_allclose(pe[0::2] ** 2 + pe[1::2] ** 2, 1.0, atol=1e-12)


def test_lone_sine_cannot_be_shifted_but_the_pair_can():
    # sin(2) == sin(pi - 2) exactly, but one step later the sines differ
    p, q = 2.0, math.pi - 2.0
    assert math.sin(p) == pytest.approx(math.sin(q), abs=1e-15)
    assert abs(math.sin(p + 1) - math.sin(q + 1)) > 0.5
    # with the cosine the two positions are different points, and R(1) moves each correctly
    r = encodings.shift_matrix(1.0, [1.0])
    for x in (p, q):
        np.testing.assert_allclose(r @ [math.sin(x), math.cos(x)],
                                   [math.sin(x + 1), math.cos(x + 1)], atol=1e-14)


# -- the naive encodings of Part I: validation -----------------------------------------------
@pytest.mark.parametrize("call, exc, msg", [
    (lambda: encodings.single_sine(4, 3, omega=0.0), ValueError, "omega must be > 0, got 0.0"),
    (lambda: encodings.single_sine(4, 0), ValueError, "d must be a positive integer, got 0"),
    (lambda: encodings.alternating(4, 2, omega=float("nan")), ValueError, "omega must be finite"),
    (lambda: encodings.alternating(-1, 2), ValueError, "seq_len must be a non-negative integer"),
    (lambda: encodings.normalized_integer(3.0, 2), TypeError, "seq_len must be a non-negative"),
    (lambda: encodings.linear(4, 5), ValueError, "d must be a positive even integer, got 5"),
    (lambda: encodings.linear(4, 4, convention="i"), ValueError,
     "convention must be one of 'pair', 'dimension', got 'i'"),
    (lambda: encodings.linear_frequencies(0), ValueError, "d must be a positive even integer"),
    (lambda: encodings.shift_matrix(1.0, []), ValueError, "omegas must be a non-empty 1-D"),
    (lambda: encodings.shift_matrix("1", [1.0]), TypeError, "offset must be a real number"),
    (lambda: encodings.shift_matrix(1.0, [[1.0]]), ValueError, "omegas must be a non-empty 1-D"),
])
def test_naive_encoding_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
