"""posenc_lib.maths.similarity: cosine similarity and nearest neighbours, the offset closed
forms, the window census, shift and derivative matrices, the float32 recipe, initial embeddings
and tensor2tensor's layout.

Expected values come from closed forms (angle addition, chord lengths), from worked examples
computed by hand, or from a second, brute-force computation — never from the function under test.
"""

import math

import numpy as np
import pytest
from helpers import pe_loop
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import encodings, similarity

dims = st.integers(1, 32).map(lambda k: 2 * k)
bases = st.floats(1.5, 1e5)
layouts = st.sampled_from(encodings.LAYOUTS)


# -- cosine similarity, nearest neighbours -----------------------------------------------------------
def test_cosine_similarity_matrix_known_values():
    v = np.array([[1.0, 0.0], [0.0, 2.0], [-3.0, 0.0], [1.0, 1.0]])
    s = similarity.cosine_similarity_matrix(v)
    assert s[0, 1] == pytest.approx(0.0)
    assert s[0, 2] == pytest.approx(-1.0)
    assert s[0, 3] == pytest.approx(1 / math.sqrt(2))
    np.testing.assert_allclose(np.diag(s), 1.0)


@given(st.integers(0, 2**31 - 1))
def test_cosine_similarity_matrix_matches_a_loop(seed):
    v = np.random.default_rng(seed).standard_normal((5, 7)) + 0.1
    s = similarity.cosine_similarity_matrix(v)
    for a in range(5):
        for b in range(5):
            expected = float(np.dot(v[a], v[b]) / math.sqrt(np.dot(v[a], v[a]) * np.dot(v[b], v[b])))
            assert s[a, b] == pytest.approx(expected, abs=1e-12)


def test_nearest_neighbours_matches_brute_force():
    v = np.random.default_rng(3).standard_normal((12, 4))
    idx, dist = similarity.nearest_neighbours(v)
    for a in range(12):
        dists = [np.linalg.norm(v[a] - v[b]) if b != a else np.inf for b in range(12)]
        assert idx[a] == int(np.argmin(dists))
        assert dist[a] == pytest.approx(min(dists), abs=1e-12)


def test_nearest_neighbour_of_every_position_is_an_adjacent_one():
    pe = encodings.sinusoidal(200, 64)
    idx, dist = similarity.nearest_neighbours(pe)
    assert np.all(np.abs(idx - np.arange(200)) == 1)
    np.testing.assert_allclose(dist, np.linalg.norm(pe[1] - pe[0]), rtol=1e-9)


# -- closed forms in the offset ---------------------------------------------------------------------
def test_worked_example_dot_products():
    # d=2: PE(3)·PE(7) = PE(10)·PE(14) = cos 4 ≈ -0.6536
    assert similarity.offset_dot(4, 2) == pytest.approx(math.cos(4), abs=1e-15)
    assert np.dot(pe_loop(3, 2), pe_loop(7, 2)) == pytest.approx(math.cos(4), abs=1e-12)
    assert np.dot(pe_loop(10, 2), pe_loop(14, 2)) == pytest.approx(math.cos(4), abs=1e-12)
    assert round(math.cos(4), 4) == -0.6536


@given(dims, bases, st.integers(0, 3000), st.integers(-3000, 3000))
def test_offset_closed_forms_match_the_vectors(d, base, p, k):
    a, b = pe_loop(p, d, base), pe_loop(p + k, d, base)
    assert similarity.offset_dot(k, d, base) == pytest.approx(np.dot(a, b), abs=1e-9)
    assert similarity.offset_similarity(k, d, base) == pytest.approx(
        np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)), abs=1e-9)
    assert similarity.offset_distance(k, d, base) == pytest.approx(np.linalg.norm(a - b), abs=1e-9)


def test_offset_functions_at_zero_and_shapes():
    assert similarity.offset_dot(0, 10) == 5.0
    assert similarity.offset_similarity(0, 10) == 1.0
    assert similarity.offset_distance(0, 10) == 0.0
    k = np.arange(6).reshape(2, 3)
    assert similarity.offset_dot(k, 8).shape == (2, 3)


def test_similarity_matrix_is_constant_along_diagonals():
    s = similarity.cosine_similarity_matrix(encodings.sinusoidal(40, 32))
    for k in range(40):
        np.testing.assert_allclose(np.diag(s, k), similarity.offset_similarity(k, 32), atol=1e-12)


def test_first_offset_below_known_values():
    # d=2: similarity is cos k; cos 1 = 0.54 > 0 and cos 2 = -0.42 <= 0
    assert similarity.first_offset_below(0.0, 2) == 2
    assert similarity.first_offset_below(0.6, 2) == 1
    # cos k > -1 for every integer k >= 1 (pi is irrational)
    assert similarity.first_offset_below(-1.0, 2, max_offset=100) is None


# -- what pairs do inside a window ------------------------------------------------------------------
def test_pair_travel_closed_form_and_brute_force():
    # d=8, n=10000: omega = 1, 0.1, 0.01, 0.001; window 512 -> largest offset 511
    travel = similarity.pair_travel(512, 8)
    assert travel[0] == pytest.approx(2.0)
    assert travel[2] == pytest.approx(2.0)  # 5.11 rad > pi: it reaches the opposite side
    assert travel[3] == pytest.approx(2 * math.sin(0.511 / 2), rel=1e-12)
    pe = encodings.sinusoidal(512, 8)
    for i in range(4):
        pair = pe[:, 2 * i:2 * i + 2]
        brute = max(np.linalg.norm(pair[:, None, :] - pair[None, :, :], axis=-1).ravel())
        assert travel[i] == pytest.approx(brute, abs=1e-3)  # integer offsets only approach the max


def test_window_census_known_values():
    # 511 * omega = 511, 51.1 (wrap: >= 2 pi), 5.11, 0.511 (do not wrap)
    assert similarity.window_census(512, 8) == {"wrapping": 2, "frozen": 0, "ruler": 2}
    # pair 3 moves 2 sin(0.2555) = 0.505 < 0.6
    assert similarity.window_census(512, 8, threshold=0.6) == {"wrapping": 2, "frozen": 1,
                                                               "ruler": 1}


@given(dims, bases, st.integers(2, 5000))
def test_window_census_adds_up(d, base, window):
    c = similarity.window_census(window, d, base)
    assert sum(c.values()) == d // 2


def test_small_base_wraps_everything_large_base_freezes():
    assert similarity.window_census(512, 512, 10.0)["wrapping"] == 256
    assert similarity.window_census(512, 512, 100000.0)["frozen"] > \
        similarity.window_census(512, 512, 10000.0)["frozen"] > 0


# -- shift and derivative ---------------------------------------------------------------------------
def test_shift_block_for_one_pair():
    k = 0.7
    m = similarity.shift_matrix(k, 2)
    np.testing.assert_allclose(m, [[math.cos(k), math.sin(k)], [-math.sin(k), math.cos(k)]])


@given(dims, bases, layouts, st.integers(0, 2000), st.integers(-2000, 2000))
def test_shift_matrix_moves_the_encoding(d, base, layout, p, k):
    m = similarity.shift_matrix(k, d, base, layout=layout)
    np.testing.assert_allclose(m @ encodings.sinusoidal_at(p, d, base, layout=layout),
                               encodings.sinusoidal_at(p + k, d, base, layout=layout), atol=1e-9)


@given(dims, bases, st.floats(-100, 100), st.floats(-100, 100))
def test_shift_matrices_compose_and_are_orthogonal(d, base, a, b):
    ma, mb = similarity.shift_matrix(a, d, base), similarity.shift_matrix(b, d, base)
    np.testing.assert_allclose(ma @ mb, similarity.shift_matrix(a + b, d, base), atol=1e-9)
    np.testing.assert_allclose(ma.T @ ma, np.eye(d), atol=1e-12)
    np.testing.assert_allclose(ma.T, similarity.shift_matrix(-a, d, base), atol=1e-12)


def test_shift_by_zero_is_identity():
    np.testing.assert_array_equal(similarity.shift_matrix(0, 12), np.eye(12))


@pytest.mark.parametrize("layout", encodings.LAYOUTS)
def test_derivative_matrix_matches_finite_differences(layout):
    d, p, h = 16, 37.3, 1e-5
    num = (encodings.sinusoidal_at(p + h, d, layout=layout)
           - encodings.sinusoidal_at(p - h, d, layout=layout)) / (2 * h)
    dmat = similarity.derivative_matrix(d, layout=layout)
    np.testing.assert_allclose(dmat @ encodings.sinusoidal_at(p, d, layout=layout), num, atol=1e-8)
    # and it is the slope of the shift matrix at k = 0
    np.testing.assert_allclose((similarity.shift_matrix(h, d, layout=layout)
                                - similarity.shift_matrix(-h, d, layout=layout)) / (2 * h),
                               dmat, atol=1e-8)


def test_permutation_matrix_maps_interleaved_to_concat():
    s = similarity.permutation_matrix(10)
    pe_i = encodings.sinusoidal(7, 10, layout="interleaved")
    pe_c = encodings.sinusoidal(7, 10, layout="concat")
    np.testing.assert_array_equal(pe_i @ s.T, pe_c)
    np.testing.assert_array_equal(s @ s.T, np.eye(10))


# -- precision and scale ----------------------------------------------------------------------------
def test_float32_recipe_small_and_large_positions():
    pe = similarity.sinusoidal_float32([0, 1, 100], 512)
    assert pe.dtype == np.float32
    np.testing.assert_array_equal(pe[0], np.tile([0.0, 1.0], 256))
    assert np.max(np.abs(pe.astype(float) - encodings.sinusoidal_at([0, 1, 100], 512))) < 1e-4
    # float32 has no odd integers above 2**24: p and p+1 get the same encoding
    big = similarity.sinusoidal_float32([2**24, 2**24 + 1], 64)
    np.testing.assert_array_equal(big[0], big[1])


def test_float32_recipe_rounds_each_step_correctly():
    # every step is the float32 nearest to the exact result, so the table is the same on every CPU
    d, p = 16, 1_234_567
    c = np.float32(-math.log(10000.0) / d)
    out = similarity.sinusoidal_float32([p], d)[0]
    for i in range(d // 2):
        w = np.float32(math.exp(float(np.float32(2 * i) * c)))     # float32 product, then exp
        a = float(np.float32(p) * w)                                # float32 product
        assert out[2 * i] == np.float32(math.sin(a)) and out[2 * i + 1] == np.float32(math.cos(a))


def test_float32_error_grows_with_position():
    exact = encodings.sinusoidal_at([1e3, 1e6], 512)
    err = np.abs(similarity.sinusoidal_float32([1e3, 1e6], 512) - exact).max(axis=1)
    assert err[0] < 1e-3 < err[1]


def test_init_embeddings_scale():
    e = similarity.init_embeddings(2000, 512, seed=0)
    np.testing.assert_array_equal(e, similarity.init_embeddings(2000, 512, seed=0))
    assert e.std() == pytest.approx(512 ** -0.5, rel=0.01)
    # E|e|^2 = d * (1/d) = 1
    assert np.mean(np.sum(e * e, axis=1)) == pytest.approx(1.0, rel=0.01)
    assert similarity.init_embeddings(3, 4, std=2.0).shape == (3, 4)


# -- validation -------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, msg", [
    (lambda: similarity.cosine_similarity_matrix([1.0, 2.0]), ValueError, "vectors must be a 2-D"),
    (lambda: similarity.cosine_similarity_matrix([[0.0, 0.0], [1.0, 0.0]]), ValueError,
     "vectors must not contain zero rows"),
    (lambda: similarity.cosine_similarity_matrix([["a"]]), TypeError, "vectors must be a numeric"),
    (lambda: similarity.nearest_neighbours([[1.0, 2.0]]), ValueError, "at least 2 rows"),
    (lambda: similarity.offset_dot([np.nan], 4), ValueError, "offsets must contain only finite"),
    (lambda: similarity.offset_similarity(1, 5), ValueError, "d must be a positive even integer, got 5"),
    (lambda: similarity.offset_distance(1, 4, 0.5), ValueError, "base must be >= 1"),
    (lambda: similarity.first_offset_below(1.5, 4), ValueError, "level must lie in"),
    (lambda: similarity.first_offset_below(0.0, 4, max_offset=0), ValueError, "max_offset"),
    (lambda: similarity.pair_travel(0, 4), ValueError, "window must be a positive integer, got 0"),
    (lambda: similarity.pair_travel(2.5, 4), TypeError, "window must be a positive integer"),
    (lambda: similarity.window_census(10, 4, threshold=0.0), ValueError, "threshold must be > 0"),
    (lambda: similarity.window_census(10, 4, threshold=3.0), ValueError, "threshold must be at most 2"),
    (lambda: similarity.shift_matrix("1", 4), TypeError, "offset must be a real number"),
    (lambda: similarity.shift_matrix(1, 4, layout="split"), ValueError, "layout must be one of"),
    (lambda: similarity.derivative_matrix(3), ValueError, "d must be a positive even integer, got 3"),
    (lambda: similarity.permutation_matrix(0), ValueError, "d must be a positive even integer, got 0"),
    (lambda: similarity.sinusoidal_float32([-1], 4), ValueError, "positions must be non-negative"),
    (lambda: similarity.sinusoidal_float32([1], 4, base=0.1), ValueError, "base must be >= 1"),
    (lambda: similarity.init_embeddings(0, 4), ValueError, "vocab_size must be a positive integer"),
    (lambda: similarity.init_embeddings(3, 4, seed=-1), ValueError, "seed must be a non-negative"),
    (lambda: similarity.init_embeddings(3, 4, std=0.0), ValueError, "std must be > 0"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


# -- tensor2tensor's variant -------------------------------------------------------------------
def t2t_loop(pos, d, base=10000.0):
    """tensor2tensor's get_timing_signal_1d, from its definition: d/2 timescales in a geometric
    sequence from 1 to ``base``, sin(pos/timescale) for all of them, then cos(pos/timescale)."""
    half = d // 2
    timescales = [base ** (i / max(half - 1, 1)) for i in range(half)]
    return np.array([math.sin(pos / t) for t in timescales] + [math.cos(pos / t) for t in timescales])


@given(dims, bases, st.integers(0, 5000))
def test_tensor2tensor_matches_its_definition(d, base, pos):
    np.testing.assert_allclose(similarity.sinusoidal_tensor2tensor(pos, d, base),
                               t2t_loop(pos, d, base), atol=1e-9)


def test_tensor2tensor_known_values():
    # d = 4: timescales 1 and 10000, so omega = [1, 1e-4] (the paper has [1, 1e-2])
    np.testing.assert_allclose(similarity.tensor2tensor_frequencies(4), [1.0, 1e-4], rtol=1e-12)
    np.testing.assert_allclose(similarity.sinusoidal_tensor2tensor(1, 4),
                               [math.sin(1), math.sin(1e-4), math.cos(1), math.cos(1e-4)])
    # its slowest wavelength is exactly 2π·n; the paper's stops at 2π·n^((d-2)/d)
    assert 2 * math.pi / similarity.tensor2tensor_frequencies(512)[-1] == pytest.approx(
        2 * math.pi * 10000, rel=1e-12)
    assert similarity.tensor2tensor_frequencies(2).tolist() == [1.0]
    assert similarity.sinusoidal_tensor2tensor(np.zeros((3, 2)), 8).shape == (3, 2, 8)


def test_tensor2tensor_is_not_a_permutation_of_the_paper():
    t2t = similarity.sinusoidal_tensor2tensor(np.arange(512), 512)
    paper = encodings.sinusoidal(512, 512, layout="concat")
    np.testing.assert_array_equal(t2t[:, 0], paper[:, 0])        # pair 0 agrees ...
    assert np.max(np.abs(t2t - paper)) > 0.5                     # ... the others do not
    # no frequency of t2t beyond pair 0 is one of the paper's, so no column order can match
    w_t2t, w_paper = similarity.tensor2tensor_frequencies(512), encodings.frequencies(512)
    assert np.abs(w_t2t[1:, None] / w_paper[None, :] - 1).min() > 5e-5
