"""Chapter 11 (stretching RoPE): the frequencies override of rope, score curves, turns per pair,
Position Interpolation's fit and bound, YaRN's ramp, the figures and the exercise checkers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib import encodings, exercises, rope, rope_scaling
from posenc_lib.figures import scaling as scaling_figures
from posenc_lib.plotting import new_figure

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


# -- exercise checkers ------------------------------------------------------------------------
def turns_solution(d, base, L):
    omega = base ** (-2.0 * np.arange(d // 2) / d)
    return L * omega / (2 * np.pi)


def ntk_solution(d, base, factor):
    new_base = base * factor ** (d / (d - 2))
    return new_base ** (-2.0 * np.arange(d // 2) / d)


def yarn_solution(d, base, factor, low, high):
    omega = base ** (-2.0 * np.arange(d // 2) / d)
    gamma = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)
    return omega / factor * gamma + omega * (1.0 - gamma)


def _omega(d, base):
    return base ** (-2.0 * np.arange(d // 2) / d)


@pytest.mark.parametrize("student, hint", [
    (lambda d, b, L: L * _omega(d, b), "divide by 2*pi"),
    (lambda d, b, L: L * _omega(d, b) / 360, "not degrees"),
    (lambda d, b, L: 2 * np.pi / (_omega(d, b) * L), "the inverse"),
    (lambda d, b, L: L * b ** (-np.arange(d // 2) / d) / (2 * np.pi), "uses 2i, not i"),
    (lambda d, b, L: (L - 1) * _omega(d, b) / (2 * np.pi), "L positions"),
])
def test_turns_checker_hints(student, hint):
    report = exercises.check_turns_per_pair(student)
    assert not report.ok and hint in report.text()


@pytest.mark.parametrize("student, hint", [
    (lambda d, b, s: _omega(d, b * s), "not by s"),
    (lambda d, b, s: _omega(d, b * s ** ((d - 2) / d)), "the exponent is d / (d - 2)"),
    (lambda d, b, s: _omega(d, b) / s, "linear Position Interpolation"),
    (lambda d, b, s: _omega(d, b / s ** (d / (d - 2))), "do not speed them up"),
])
def test_ntk_checker_hints(student, hint):
    report = exercises.check_ntk_frequencies(student)
    assert not report.ok and hint in report.text()
    assert report.passed == 1  # only the s = 1 case, where every variant agrees


def _yarn_variant(ramp=None, *, up=False, waves=False):
    def f(d, base, factor, low, high):
        omega = _omega(d, base)
        i = np.arange(d // 2)
        g = ramp(i, low, high) if ramp else np.clip((i - low) / (high - low), 0, 1)
        if waves:
            return 1.0 / ((1.0 - g) / omega + factor * g / omega)
        return (omega * factor if up else omega / factor) * g + omega * (1 - g)
    return f


@pytest.mark.parametrize("student, hint", [
    (_yarn_variant(lambda i, lo, hi: (i - lo) / (hi - lo)), "clip the ramp"),
    (_yarn_variant(lambda i, lo, hi: 1 - np.clip((i - lo) / (hi - lo), 0, 1)), "wrong way round"),
    (_yarn_variant(up=True), "not multiplying"),
    (_yarn_variant(waves=True), "not the wavelengths"),
    (lambda d, b, s, lo, hi: _omega(d, b) / s, "plain Position Interpolation"),
])
def test_yarn_checker_hints(student, hint):
    report = exercises.check_yarn_frequencies(student)
    assert not report.ok and hint in report.text()


def test_checkers_accept_the_solutions_and_greet_the_stubs():
    assert exercises.check_turns_per_pair(turns_solution).ok
    assert exercises.check_ntk_frequencies(ntk_solution).ok
    assert exercises.check_yarn_frequencies(yarn_solution).ok

    def stub(*args):
        ...  # what the chapter's exercise cells start with

    for check in (exercises.check_turns_per_pair, exercises.check_ntk_frequencies,
                  exercises.check_yarn_frequencies):
        report = check(stub)
        assert not report.ok and report.passed == 0
        assert "replace `...` with code" in report.text()
        report = check(lambda *a: (_ for _ in ()).throw(NotImplementedError))
        assert "Not implemented yet" in report.text()


def test_explorer_blitting_matches_a_fresh_drawing():
    """Updates that keep d blit only the changed artists; they must draw what a new figure draws."""
    import io

    from PIL import Image

    from posenc_lib.plotting import png_bytes

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
