"""Chapter 11 (stretching RoPE): the frequencies override of rope, score curves, turns per pair,
Position Interpolation's fit and bound, YaRN's two ramps (the paper's and the reference
code's) and the figures. The exercise checkers are tested in tests/test_checkers.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.course.figures import scaling as scaling_figures
from posenc_lib.display.plotting import new_figure
from posenc_lib.maths import encodings, rope, rope_scaling

dims = st.integers(1, 16).map(lambda k: 2 * k)
pairings = st.sampled_from(["interleaved", "half"])
seeds = st.integers(0, 2**32 - 1)
methods = st.sampled_from(rope_scaling.SCALING_METHODS)
factors = st.floats(1.0, 64.0)


# -- rope.apply & co. with a frequencies override ------------------------------------------------
@given(dims, pairings, seeds, methods, factors)
def test_apply_with_frequencies_matches_the_dense_matrices(d, pairing, seed, method, factor):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((6, d))
    pos = rng.uniform(-300, 3000, 6)
    theta, _ = rope_scaling.scaled_frequencies(d, factor, method, original_max_len=512)
    fast = rope.apply(x, pos, pairing=pairing, frequencies=theta)
    dense = rope.apply_dense(x, pos, pairing=pairing, frequencies=theta)
    one_by_one = np.stack([rope.rotation_matrix(p, d, pairing=pairing, frequencies=theta) @ row
                           for p, row in zip(pos, x)])
    np.testing.assert_allclose(fast, dense, atol=1e-10)
    np.testing.assert_allclose(fast, one_by_one, atol=1e-10)


@given(dims, pairings, seeds)
def test_default_frequencies_passed_explicitly_change_nothing(d, pairing, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 5, d)).astype(np.float32)
    pos = np.arange(5.0) * 7
    explicit = rope.apply(x, pos, 500.0, pairing, frequencies=encodings.frequencies(d, 500.0))
    assert explicit.dtype == np.float32
    np.testing.assert_array_equal(explicit, rope.apply(x, pos, 500.0, pairing))


@given(dims, pairings, seeds, factors)
def test_linear_frequencies_are_divided_positions(d, pairing, seed, factor):
    """Position Interpolation: theta / s at position p is theta at position p / s."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, d))
    pos = rng.uniform(0, 4096, 4)
    theta, _ = rope_scaling.scaled_frequencies(d, factor, "linear")
    np.testing.assert_allclose(rope.apply(x, pos, pairing=pairing, frequencies=theta),
                               rope.apply(x, pos / factor, pairing=pairing), atol=1e-9)


def test_frequencies_by_hand():
    # d = 2, theta = 0.5: position 2 turns (1, 0) by 1 radian
    got = rope.apply(np.array([[1.0, 0.0], [1.0, 0.0]]), [0.0, 2.0], frequencies=[0.5])
    np.testing.assert_allclose(got, [[1.0, 0.0], [math.cos(1.0), math.sin(1.0)]], atol=1e-15)
    np.testing.assert_allclose(rope.angles([2.0, 4.0], 4, frequencies=[0.5, 0.25]),
                               [[1.0, 0.5], [2.0, 1.0]])


@pytest.mark.parametrize("call", [
    lambda f: rope.apply(np.zeros((3, 8)), frequencies=f),
    lambda f: rope.apply_dense(np.zeros((3, 8)), frequencies=f),
    lambda f: rope.rotation_matrix(1.0, 8, frequencies=f),
    lambda f: rope.dense_matrices([1.0], 8, frequencies=f),
    lambda f: rope.angles([1.0], 8, frequencies=f),
    lambda f: rope.score_curve(np.ones(8), np.ones(8), [1.0], frequencies=f),
])
def test_frequencies_validation(call):
    with pytest.raises(ValueError, match=r"frequencies must be a 1-D array with one value per "
                                         r"pair \(d // 2 = 4\), got shape \(3,\)"):
        call([1.0, 0.5, 0.25])
    with pytest.raises(ValueError, match=r"got shape \(2, 4\)"):
        call(np.ones((2, 4)))
    with pytest.raises(ValueError, match="frequencies must contain only finite values"):
        call([1.0, np.nan, 0.1, 0.01])
    with pytest.raises(TypeError, match="frequencies must be a numeric array"):
        call(["a", "b", "c", "d"])


# -- rope.score_curve ------------------------------------------------------------------------
@given(dims, pairings, seeds, st.floats(-5000, 5000), st.floats(-100, 100))
def test_score_curve_is_the_rotated_dot_product(d, pairing, seed, delta, m):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, d))
    want = q @ rope.rotation_matrix(delta, d, pairing=pairing) @ k
    got = rope.score_curve(q, k, delta, pairing=pairing)
    assert got.shape == ()
    assert float(got) == pytest.approx(float(want), abs=1e-9)
    # ... and the score of a query at m and a key at m + delta, both rotated
    rq = rope.apply(q[None, :], [m], pairing=pairing)[0]
    rk = rope.apply(k[None, :], [m + delta], pairing=pairing)[0]
    assert float(got) == pytest.approx(float(rq @ rk), abs=1e-8)


def test_score_curve_by_hand_and_shapes():
    # one pair, q = (1, 0), k = (c, e): score = c cos(delta) - e sin(delta)
    d = np.array([0.0, math.pi / 2, math.pi])
    np.testing.assert_allclose(rope.score_curve([1.0, 0.0], [2.0, 3.0], d),
                               [2.0, -3.0, -2.0], atol=1e-15)
    out = rope.score_curve(np.ones(4), np.ones(4), np.zeros((2, 3)))
    np.testing.assert_allclose(out, np.full((2, 3), 4.0))
    with pytest.raises(ValueError, match=r"q and k must be 1-D vectors of the same length, got "
                                         r"shapes \(4,\) and \(6,\)"):
        rope.score_curve(np.ones(4), np.ones(6), [0.0])
    with pytest.raises(ValueError, match=r"d \(the length of q\) must be a positive even "
                                         r"integer, got 3"):
        rope.score_curve(np.ones(3), np.ones(3), [0.0])


# -- turns per pair ----------------------------------------------------------------------------
def test_turns_known_values():
    # d = 128, n = 10000, L = 2048: r_i = (2048 / 2 pi) 10^(-i/16) = 325.949 * 10^(-i/16);
    # r_i < 1 <=> i > 16 log10(325.949) = 40.21, so pairs 41 .. 63: 23 of them.
    r = rope_scaling.turns(128, 10000.0, 2048)
    assert r[0] == pytest.approx(2048 / (2 * math.pi), rel=1e-15)
    assert r[40] == pytest.approx(325.9493234522017 * 10 ** -2.5, rel=1e-12)
    assert int(np.sum(r < 1)) == 23
    assert int(np.sum(encodings.wavelengths(128) > 2048)) == 23


@given(dims, st.floats(1.0, 1e6), st.integers(1, 100_000))
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


@given(dims, factors, st.floats(1.5, 1e6), st.integers(2, 100_000))
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


# -- figures ------------------------------------------------------------------------------------
def test_pair_categories():
    cats = scaling_figures.pair_categories(np.array([1.0, 1.5, 3.9999, 4.0, 4.0]), 4.0)
    assert list(cats) == ["kept", "between", "between", "interpolated", "interpolated"]
    assert set(scaling_figures.pair_categories(np.ones(3), 1.0)) == {"kept"}
    # what the methods do, by category (d = 128, n = 10000, L = 2048, s = 8)
    counts = {}
    for method in rope_scaling.SCALING_METHODS:
        omega, _ = rope_scaling.scaled_frequencies(128, 8.0, method)
        cats = scaling_figures.pair_categories(encodings.frequencies(128) / omega, 8.0)
        counts[method] = tuple(int(np.sum(cats == c)) for c in ("kept", "between",
                                                                 "interpolated"))
    assert counts["linear"] == (0, 0, 64)
    assert counts["ntk"] == (1, 62, 1)
    low, high = rope_scaling.yarn_correction_range(128, 10000.0, 2048)  # (16, 41)
    assert (low, high) == (16, 41)
    assert counts["yarn"] == (low + 1, high - low - 1, 64 - high)


def _n_axes_with_data(fig) -> int:
    return sum(1 for ax in fig.axes if ax.lines or ax.collections or ax.patches)


def test_static_figures_draw():
    fig = new_figure(7.0, 5.0)
    scaling_figures.angle_coverage(fig, pairs=(0, 56), factor=2.0)
    assert len(fig.axes) == 4 and _n_axes_with_data(fig) == 4
    titles = [ax.get_title() for ax in fig.axes]
    assert "326 turns in training" in titles[0] and "0.103 turns" in titles[1]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["angles seen in training (offsets 0 … 2047)",
                      "angles of the offsets 2048 … 4095 at inference"]

    rng = np.random.default_rng(0)
    dist = np.arange(129.0)
    y = rng.uniform(-1, 1, dist.size)
    q, k = rope_scaling.fit_score_curve(dist, y, 16)
    fig = new_figure(8.0, 3.0)
    scaling_figures.score_extrapolation(fig, q, k, dist, y, 128, 2.0, zoom=(50, 53))
    assert len(fig.axes) == 3 and _n_axes_with_data(fig) == 3
    assert "extrapolated to 2L" in fig.axes[1].get_title()

    acc = {(m, n, t): 0.5 for m in (None, "linear", "ntk", "yarn") for n in (32, 64, 128)
           for t in (False, True)}
    fig = new_figure(7.5, 3.2)
    scaling_figures.lab_results(fig, acc, chance=1 / 16)
    assert len(fig.axes) == 2 and all(len(ax.lines) >= 4 for ax in fig.axes)


def test_explorer_titles_report_the_counts():
    ex = scaling_figures.scaling_explorer()
    fig = ex.draw(s=8.0, d=128, n=10000.0, method="ntk")
    left, right = fig.axes
    assert "23 of 64 pairs" in left.get_title()
    assert right.get_title() == "kept 1, in between 62,\ninterpolated 1"
    fig = ex.draw(s=8.0, d=128, n=10000.0, method="yarn")
    assert fig.axes[1].get_title() == "kept 17, in between 24,\ninterpolated 23"


# -- YaRN's two ramps: the paper's (linear in turns) and the reference code's (in the index) ----
# (the exercise checkers are tested with the other chapters' in tests/test_checkers.py, from the
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


@given(dims, factors, st.floats(1.5, 1e6), st.integers(2, 100_000))
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


def _llama31_loops(d, factor=8.0, base=500000.0, old_context_len=8192, low_freq_factor=1.0,
                   high_freq_factor=4.0):
    """Llama 3.1's frequency scaling, written as Meta's released ``apply_scaling`` writes it:
    keep wavelengths below L / 4, divide those above L by s, blend in between with
    smooth = (L / wavelength - 1) / (4 - 1)."""
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    out = []
    for i in range(d // 2):
        freq = base ** (-2.0 * i / d)
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            out.append(freq)
        elif wavelen > low_freq_wavelen:
            out.append(freq / factor)
        else:
            smooth = (old_context_len / wavelen - low_freq_factor) / (
                high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * freq / factor + smooth * freq)
    return np.array(out)


def test_llama31_scaling_is_the_turns_ramp_with_thresholds_1_and_4():
    """The chapter's claim: Llama 3.1's scaling is the paper's ramp form (linear in the turns)
    with alpha = 1, beta = 4; on d = 128 it keeps pairs 0..28, ramps 29..34, divides 35..63."""
    got = rope_scaling.yarn_paper_frequencies(128, 8.0, 500000.0, 8192, alpha=1.0, beta=4.0)
    np.testing.assert_allclose(got, _llama31_loops(128), rtol=1e-12)
    theta = encodings.frequencies(128, 500000.0)
    kept = np.flatnonzero(got == theta)
    divided = np.flatnonzero(np.isclose(got, theta / 8, rtol=1e-12, atol=0))
    assert (kept[0], kept[-1], divided[0], divided[-1]) == (0, 28, 35, 63)


def test_the_two_ramps_differ_on_the_chapter_head():
    """d = 128, n = 10000, L = 2048, s = 8: the share interpolated at pairs 20, 25, 30."""
    theta = encodings.frequencies(128)
    code, _ = rope_scaling.scaled_frequencies(128, 8.0, "yarn")
    paper, _ = rope_scaling.scaled_frequencies(128, 8.0, "yarn", ramp="turns")
    share = lambda x: (theta - x) / (theta - theta / 8)  # noqa: E731
    # code: (i - 16) / 25; paper: 1 - (r_i - 1) / 31
    r = rope_scaling.turns(128)
    for i in (20, 25, 30):
        assert share(code)[i] == pytest.approx((i - 16) / 25, rel=1e-12)
        assert share(paper)[i] == pytest.approx(1 - (r[i] - 1) / 31, rel=1e-12)
    assert round(float(share(code)[30]), 2) == 0.56 and round(float(share(paper)[30]), 2) == 0.89


def test_the_toy_head_shows_the_clamp():
    """d = 16, L = 32: no pair turns 32 times; the code keeps pair 0 (low clamped at 0), the
    paper interpolates it most of the way."""
    r = rope_scaling.turns(16, 10000.0, 32)
    assert r.max() < 32 and rope_scaling.yarn_correction_range(16, 10000.0, 32)[0] == 0
    code, _ = rope_scaling.scaled_frequencies(16, 2.0, "yarn", original_max_len=32)
    paper, _ = rope_scaling.scaled_frequencies(16, 2.0, "yarn", original_max_len=32, ramp="turns")
    assert code[0] == 1.0
    assert paper[0] == pytest.approx(1 - (1 - (r[0] - 1) / 31) / 2, rel=1e-12)


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


def test_yarn_ramps_figure_draws():
    fig = new_figure(8.0, 3.4)
    scaling_figures.yarn_ramps(fig)
    assert len(fig.axes) == 2 and all(len(ax.lines) >= 2 for ax in fig.axes)
    assert fig.axes[0].get_title() == "d = 128, n = 10000, L = 2048, s = 8"


def test_explorer_blitting_matches_a_fresh_drawing():
    """Updates that keep d blit only the changed artists; they must draw what a new figure draws."""
    import io

    from PIL import Image

    from posenc_lib.display.plotting import png_bytes

    def pixels(png: bytes) -> np.ndarray:
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)

    live = scaling_figures.scaling_explorer()
    live.render_png()
    for values in (dict(s=2.0), dict(s=32.0, method="yarn"), dict(n=500000.0, method="ntk"),
                   dict(s=1.0, method="yarn")):
        fast = pixels(live.render_png(**values))
        assert live._background is not None  # the blitting path was taken
        fresh = scaling_figures.scaling_explorer()
        full = pixels(png_bytes(fresh.draw(**values), dpi=fresh.dpi))
        assert fast.shape == full.shape
        assert np.abs(fast - full).max() <= 2, values
