"""Part I (chapters 2–5): naive encodings, toy clusters, PCA, collisions, near-periods, octaves.

Expected values come from closed forms, hand computations or brute-force loops written here,
never from the code under test.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.course import toy
from posenc_lib.maths import encodings, periodicity


# -- encodings: known values -----------------------------------------------------------------
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


# -- encodings: properties -------------------------------------------------------------------
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


# -- encodings: validation -------------------------------------------------------------------
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


# -- toy clusters, PCA and cluster scores ----------------------------------------------------
def test_clustered_vocabulary_shape_and_determinism():
    words, labels, x = toy.clustered_vocabulary(d=16)
    assert len(words) == 18 and x.shape == (18, 16)
    assert labels.tolist() == [0] * 6 + [1] * 6 + [2] * 6
    words2, _, x2 = toy.clustered_vocabulary(d=16)
    np.testing.assert_array_equal(x, x2)
    assert words == words2
    assert not np.allclose(x, toy.clustered_vocabulary(d=16, seed=1)[2])


def test_clusters_are_visible_in_the_toy_vocabulary():
    _, labels, x = toy.clustered_vocabulary(d=16)
    within = [np.linalg.norm(x[i] - x[j]) for i, j in itertools.combinations(range(18), 2)
              if labels[i] == labels[j]]
    between = [np.linalg.norm(x[i] - x[j]) for i, j in itertools.combinations(range(18), 2)
               if labels[i] != labels[j]]
    assert max(within) < min(between)
    assert toy.nearest_neighbour_agreement(x, labels) == 1.0


def test_pca_agrees_with_covariance_eigenvectors():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 6)) @ np.diag([5, 3, 2, 1, 0.5, 0.1]) + 7.0
    res = toy.pca(x, 3)
    # independent computation: eigen-decomposition of the covariance matrix
    xc = x - x.mean(axis=0)
    evals, evecs = np.linalg.eigh(xc.T @ xc)
    order = np.argsort(evals)[::-1]
    for j in range(3):
        v = evecs[:, order[j]]
        assert abs(abs(v @ res.components[j]) - 1) < 1e-10        # same direction up to sign
        np.testing.assert_allclose(np.abs(res.scores[:, j]), np.abs(xc @ v), atol=1e-9)
    np.testing.assert_allclose(res.explained, evals[order[:3]] / evals.sum(), rtol=1e-10)
    np.testing.assert_allclose(res.components @ res.components.T, np.eye(3), atol=1e-12)
    # sign convention: the largest-magnitude loading of each direction is positive
    for c in res.components:
        assert c[np.argmax(np.abs(c))] > 0


def test_pca_of_points_on_a_line():
    t = np.arange(5.0)
    x = np.stack([t, 2 * t, -t], axis=1)            # all on the line through 0 along (1, 2, -1)
    res = toy.pca(x, 1)
    np.testing.assert_allclose(res.explained, [1.0])
    np.testing.assert_allclose(np.abs(res.components[0]), np.array([1, 2, 1]) / math.sqrt(6))
    np.testing.assert_allclose(np.abs(res.scores[:, 0]), np.abs(t - 2) * math.sqrt(6))


def test_nearest_neighbour_agreement_by_hand():
    x = np.array([[0.0], [0.1], [5.0], [5.2], [2.4]])
    labels = np.array([0, 0, 1, 1, 0])
    # neighbours: 0->1 (same), 1->0 (same), 2->3 (same), 3->2 (same), 4->1 at 2.3 vs 2 at 2.6 (same)
    assert toy.nearest_neighbour_agreement(x, labels) == 1.0
    labels = np.array([0, 1, 1, 0, 0])
    # 0->1 diff, 1->0 diff, 2->3 diff, 3->2 diff, 4->1 diff
    assert toy.nearest_neighbour_agreement(x, labels) == 0.0


def test_silhouette_matches_a_loop_over_the_definition():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((12, 3))
    labels = np.array([0, 1, 2] * 4)
    expected = []
    for i in range(12):
        dist = [math.dist(x[i], x[j]) for j in range(12)]
        a = np.mean([dist[j] for j in range(12) if labels[j] == labels[i] and j != i])
        b = min(np.mean([dist[j] for j in range(12) if labels[j] == c])
                for c in {0, 1, 2} - {labels[i]})
        expected.append((b - a) / max(a, b))
    assert toy.silhouette(x, labels) == pytest.approx(np.mean(expected), abs=1e-12)


def test_silhouette_two_tight_clusters_is_near_one():
    x = np.array([[0.0], [0.01], [10.0], [10.01]])
    assert toy.silhouette(x, np.array([0, 0, 1, 1])) == pytest.approx(1 - 0.01 / 10, abs=1e-3)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: toy.pca(np.zeros(5)), ValueError, "x must be a 2-D array with at least 2 rows"),
    (lambda: toy.pca(np.zeros((4, 3)), 4), ValueError, "k must be at most min"),
    (lambda: toy.pca(np.zeros((4, 3)), 0), ValueError, "k must be a positive integer, got 0"),
    (lambda: toy.silhouette(np.zeros((4, 2)), np.array([0, 0, 0, 1])), ValueError,
     "at least 2 clusters of at least 2 points"),
    (lambda: toy.nearest_neighbour_agreement(np.zeros((3, 2)), [0, 1]), ValueError,
     "labels must be 3 integers"),
    (lambda: toy.clustered_vocabulary(spread=-1.0), ValueError, "spread must be >= 0"),
    (lambda: toy.clustered_vocabulary(clusters={"a": ("x",), "b": ("x",)}), ValueError,
     "every word must appear in one cluster only"),
    (lambda: toy.clustered_vocabulary(clusters={"a": "dog"}), ValueError,
     "cluster 'a' must be a non-empty sequence"),
])
def test_toy_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


# -- collisions ------------------------------------------------------------------------------
def brute_rounded_pairs(values, decimals):
    vals = np.round(np.atleast_2d(np.asarray(values, float).T).T, decimals)
    return [(p, q) for p in range(len(vals)) for q in range(p + 1, len(vals))
            if np.array_equal(vals[p], vals[q])]


def test_the_seed_example_sin2_sin353():
    a, b = math.sin(2), math.sin(353)
    assert round(a, 3) == round(b, 3) == 0.909
    assert abs(a - b) < 2e-5
    pairs = periodicity.collision_pairs(np.sin(np.arange(400)), 3)
    assert [2, 353] in pairs.tolist()
    # cos tells them apart: cos(353) = -cos(2) up to 3e-5, since 2 + 353 = 355 ≈ 113 pi
    assert math.cos(353) == pytest.approx(-math.cos(2), abs=1e-4)


def test_collisions_small_hand_example():
    values = [0.1234, 0.5, 0.1231, 0.49951, -0.0001, 0.0001, 0.1229]
    # rounded: 0.123, 0.5, 0.123, 0.5, -0.0 -> 0.0, 0.0, 0.123
    expected = [(0, 2), (0, 6), (1, 3), (2, 6), (4, 5)]
    assert periodicity.collision_pairs(values, 3).tolist() == [list(p) for p in expected]
    assert periodicity.count_collisions(values, 3) == 5


@given(st.lists(st.floats(-1, 1), min_size=0, max_size=40), st.integers(0, 3))
def test_collision_pairs_match_brute_force(values, decimals):
    got = periodicity.collision_pairs(np.array(values, dtype=float), decimals).tolist()
    expected = brute_rounded_pairs(np.array(values, dtype=float), decimals) if values else []
    # -0.0 and 0.0 are the same value
    assert got == [list(p) for p in expected]
    assert periodicity.count_collisions(np.array(values, dtype=float), decimals) == len(expected)


@given(st.integers(2, 60), st.integers(1, 3), st.floats(0.0, 0.5))
def test_close_pairs_match_brute_force_on_vectors(n, d, tol):
    rng = np.random.default_rng(n * 10 + d)
    x = rng.uniform(-1, 1, size=(n, d)).round(1)
    expected = [[p, q] for p in range(n) for q in range(p + 1, n)
                if max(abs(x[p, j] - x[q, j]) for j in range(d)) <= tol]
    assert periodicity.close_pairs(x, tol).tolist() == expected


def test_sine_collisions_are_near_periods_and_mirrors():
    pos = np.arange(1001)
    pairs = periodicity.close_pairs(np.sin(pos), 5e-4)
    diff, total = pairs[:, 1] - pairs[:, 0], pairs.sum(axis=1)
    # every p <= 290 collides with p + 710 (710 = 113 turns + 6e-5 rad)
    assert np.sum(diff == 710) == 291
    # and every p + q = 355 (355 ≈ 113 pi: sin(355 - p) ≈ sin(p)) with p < q
    assert np.sum(total == 355) == 178


def test_pair_collisions_keep_only_the_near_period():
    pos = np.arange(1001)
    pairs = periodicity.close_pairs(np.stack([np.sin(pos), np.cos(pos)], 1), 5e-4)
    assert len(pairs) == 291
    assert np.all(pairs[:, 1] - pairs[:, 0] == 710)


def test_min_pair_distance_by_brute_force():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((30, 3))
    for gap in (1, 5):
        best = min((math.dist(x[p], x[q]), p, q) for p in range(30) for q in range(p + gap, 30))
        dist, p, q = periodicity.min_pair_distance(x, gap)
        assert (p, q) == best[1:] and dist == pytest.approx(best[0], abs=1e-12)
    with pytest.raises(ValueError, match="min_gap must be smaller than the number of positions"):
        periodicity.min_pair_distance(x, 30)


# -- near-periods ----------------------------------------------------------------------------
def test_wrap_error_known_values():
    assert periodicity.wrap_error([0], 1.0)[0] == 0.0
    assert periodicity.wrap_error([44], 1.0)[0] == pytest.approx(abs(44 - 14 * math.pi), abs=1e-12)
    assert periodicity.wrap_error([710], 1.0)[0] == pytest.approx(abs(710 - 226 * math.pi),
                                                                   abs=1e-12)
    # omega = 2 pi / 10: every 10th position is a whole turn
    assert periodicity.wrap_error([10, 20, 5], 2 * math.pi / 10) == pytest.approx([0, 0, math.pi],
                                                                                   abs=1e-12)


@given(st.floats(0.01, 10.0), st.integers(1, 500), st.floats(-1e3, 1e3))
def test_wrap_error_bounds_the_change_of_the_wave(omega, k, p):
    bound = periodicity.wrap_error([k], omega)[0]
    assert 0 <= bound <= math.pi + 1e-12
    assert abs(math.sin(omega * (p + k)) - math.sin(omega * p)) <= bound + 1e-9


def test_near_periods_of_sin_pos_are_the_best_approximations_of_2pi():
    ks = [k for k, _ in periodicity.near_periods(1.0, 1000)]
    # records of |k - 2 pi m|, found by a plain loop
    best, expected = math.inf, []
    for k in range(1, 1001):
        e = min(abs(k - 2 * math.pi * m) for m in (math.floor(k / (2 * math.pi)),
                                                   math.ceil(k / (2 * math.pi))))
        if e < best:
            best, expected = e, expected + [k]
    assert ks == expected
    assert ks[-2:] == [333, 710]          # 333/53 and 710/113 approximate 2 pi


# -- circle angle ----------------------------------------------------------------------------
@given(st.floats(-1e4, 1e4))
def test_circle_angle_recovers_the_angle_mod_2pi(theta):
    got = periodicity.circle_angle(math.sin(theta), math.cos(theta))
    assert 0 <= got < 2 * math.pi
    diff = (got - theta) / (2 * math.pi)
    assert abs(diff - round(diff)) < 1e-9


def test_circle_angle_validation():
    with pytest.raises(ValueError, match="must have the same shape"):
        periodicity.circle_angle([0.0, 1.0], [1.0])


# -- octaves ---------------------------------------------------------------------------------
def test_octaves_of_the_linear_schedule():
    lam = 2 * np.pi / encodings.linear_frequencies(64)     # 2 pi * (1 .. 32)
    assert periodicity.octave_span(lam) == pytest.approx(5.0)
    # ratios 1 | 2,3 | 4..7 | 8..15 | 16..31 | 32
    assert periodicity.octave_counts(lam).tolist() == [1, 2, 4, 8, 16, 1]
    shares = np.array([1, 2, 4, 8, 16, 1]) / 32
    assert periodicity.effective_octaves(lam) == pytest.approx(2 ** -np.sum(shares * np.log2(shares)))


def test_octaves_of_the_geometric_schedule():
    # d = 8, n = 10000: wavelengths 2 pi * 10^(0, 1, 2, 3): one per octave bin, 4 occupied
    lam = encodings.wavelengths(8)
    assert periodicity.octave_span(lam) == pytest.approx(3 * math.log2(10))
    counts = periodicity.octave_counts(lam)
    assert counts.sum() == 4 and counts.max() == 1 and len(counts) == 10
    assert periodicity.effective_octaves(lam) == pytest.approx(4.0)


def test_equal_counts_give_effective_octaves_equal_to_occupied_octaves():
    lam = [1, 1.5, 2, 3, 4, 6]        # two per octave, three octaves
    assert periodicity.octave_counts(lam).tolist() == [2, 2, 2]
    assert periodicity.effective_octaves(lam) == pytest.approx(3.0)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: periodicity.count_collisions(np.zeros((2, 2, 2))), ValueError, "must be 1-D"),
    (lambda: periodicity.count_collisions([0.1], decimals=-1), ValueError,
     "decimals must be a non-negative integer, got -1"),
    (lambda: periodicity.close_pairs([0.1, 0.2], tol=-1.0), ValueError, "tol must be >= 0"),
    (lambda: periodicity.wrap_error([1], omega=0.0), ValueError, "omega must be > 0"),
    (lambda: periodicity.near_periods(1.0, 0), ValueError, "max_offset must be a positive"),
    (lambda: periodicity.octave_span([]), ValueError, "wavelengths must be a non-empty 1-D"),
    (lambda: periodicity.octave_counts([1.0, -2.0]), ValueError, "wavelengths must be positive"),
    (lambda: periodicity.count_collisions(["a"]), TypeError, "encoding must be a numeric array"),
])
def test_periodicity_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
