"""posenc_lib.maths.periodicity: collisions, near-periods, the circle angle, octaves, and the
spectrum of an encoding's columns.

Expected values come from closed forms (a whole number of cycles, a counter's bits), hand
computations or brute-force loops written here, never from the code under test.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import encodings, periodicity


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


# -- periodicity.spectrum / peak_frequencies --------------------------------------------------
@pytest.mark.parametrize("cycles, length", [(5, 100), (1, 64), (37, 1000)])
def test_spectrum_of_a_whole_number_of_cycles_is_one_spike(cycles, length):
    pos = np.arange(length)
    for wave in (np.sin, np.cos):
        freqs, amps = periodicity.spectrum(wave(2 * math.pi * cycles * pos / length))
        assert freqs[cycles] == pytest.approx(cycles / length)
        assert amps[cycles, 0] == pytest.approx(1.0, abs=1e-12)
        assert np.delete(amps[:, 0], cycles).max() < 1e-12


def test_spectrum_constant_and_nyquist_and_shapes():
    freqs, amps = periodicity.spectrum(np.full(8, 0.25))
    assert amps[0, 0] == pytest.approx(0.25) and amps[1:, 0].max() < 1e-15
    _, amps = periodicity.spectrum((-1.0) ** np.arange(8))          # 0.5 cycles per position
    assert amps[-1, 0] == pytest.approx(1.0) and freqs[-1] == 0.5
    freqs, amps = periodicity.spectrum(np.zeros((10, 3)))
    assert freqs.shape == (6,) and amps.shape == (6, 3)


@pytest.mark.parametrize("bad", [[1.0], np.zeros((2, 2, 2)), [0.0, np.nan, 1.0], [0.0, np.inf]])
def test_spectrum_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        periodicity.spectrum(bad)


@pytest.mark.parametrize("d, length", [(4, 2**14), (8, 2**16), (16, 2**20)])
def test_peak_frequencies_of_the_sinusoidal_columns(d, length):
    pe = encodings.sinusoidal(length, d)
    peaks = periodicity.peak_frequencies(pe)
    for j in range(d):
        expected = 10000.0 ** (-2 * (j // 2) / d) / (2 * math.pi)  # by hand: ω_i / 2π
        assert abs(peaks[j] - expected) <= 0.5 / length, (j, peaks[j], expected)


def test_peak_frequencies_few_turns_may_be_a_step_off():
    # 6.5 turns of sin(0.01 pos) in 4096 positions: the peak is one grid step off, not half
    peak = periodicity.peak_frequencies(encodings.sinusoidal(4096, 4)[:, 2])[0]
    assert 0.5 / 4096 < abs(peak - 0.01 / (2 * math.pi)) <= 1.5 / 4096


def test_peak_frequencies_of_a_binary_counter():
    bits = (np.arange(1024)[:, None] >> np.arange(5)) & 1
    assert periodicity.peak_frequencies(bits).tolist() == [0.5, 0.25, 0.125, 0.0625, 0.03125]


def test_peak_frequencies_ignores_the_constant_part():
    x = 5.0 + 0.1 * np.sin(2 * math.pi * 3 * np.arange(50) / 50)
    assert periodicity.peak_frequencies(x).tolist() == [3 / 50]
