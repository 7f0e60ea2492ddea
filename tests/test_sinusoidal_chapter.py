"""Chapter 6: posenc_lib.maths.similarity, the chapter's figures and its exercise checkers.

Expected values come from closed forms (angle addition, chord lengths), from worked examples
computed by hand, or from a second, brute-force computation — never from the function under test.
The checkers' typical right and wrong answers live in ``tests/exercises_cases/ch06.py``.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.course import exercises
from posenc_lib.course.figures import sinusoidal as figs
from posenc_lib.display.plotting import new_figure
from posenc_lib.maths import encodings, similarity

dims = st.integers(1, 32).map(lambda k: 2 * k)
bases = st.floats(1.5, 1e5)
layouts = st.sampled_from(encodings.LAYOUTS)


# -- brute-force helpers (independent of the library's closed forms) -------------------------------
def pe_loop(pos, d, base=10000.0):
    """PE(pos) straight from the paper's formula, one component at a time."""
    out = []
    for j in range(d):
        i = j // 2
        angle = pos / base ** (2 * i / d)
        out.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return np.array(out)


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


def test_small_base_and_small_d_make_a_distant_look_alike():
    # d=16, n=10: after p±1, the closest encoding in a 512 window is 101 positions away,
    # found here by brute force over the vectors themselves.
    pe = encodings.sinusoidal(512, 16, 10.0)
    dists = np.linalg.norm(pe[2:] - pe[0], axis=1)
    assert 2 + int(np.argmin(dists)) == 101
    assert np.linalg.norm(pe[101] - pe[0]) < np.linalg.norm(pe[2] - pe[0])


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


# -- figures ----------------------------------------------------------------------------------------
def test_static_figures_draw_titled_axes():
    cases = [
        (lambda f: figs.clock_faces(f, [0, 1, 7], d=8), 12),
        (lambda f: figs.wavelength_ladder(f), 1),
        (lambda f: figs.shift_matrix_heatmap(f, 3, 8), 3),
        (lambda f: figs.layout_heatmaps(f), 3),
        (lambda f: figs.norm_comparison(f, dims=(16, 64)), 1),
    ]
    for draw, n_axes in cases:
        fig = new_figure()
        draw(fig)
        assert len(fig.axes) == n_axes


def test_float32_figure_returns_the_measured_errors():
    fig = new_figure()
    out = figs.float32_error(fig, [10.0, 1e4, 1e7], d=64)
    exact = encodings.sinusoidal_at([10.0, 1e4, 1e7], 64)
    np.testing.assert_allclose(
        out["error"], np.linalg.norm(similarity.sinusoidal_float32([10.0, 1e4, 1e7], 64) - exact,
                                     axis=1), rtol=1e-6)
    assert np.all(out["error_cast"] < 1e-6)  # float64 angles: only the final rounding
    assert float(out["half_gap"]) == pytest.approx(np.linalg.norm(pe_loop(1, 64) - pe_loop(0, 64)) / 2)


def test_clock_faces_needs_positions():
    with pytest.raises(ValueError, match="positions must hold at least one"):
        figs.clock_faces(new_figure(), [])


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


# -- exercise checkers (the concat layout; the default layout is in exercises_cases) ------------
def _loop_encoding(layout, first=0):
    def f(seq_len, d, base):
        rows = np.array([pe_loop(p, d, base) for p in range(first, first + seq_len)])
        return rows[:, encodings.split_permutation(d)] if layout == "concat" else rows
    return f


@pytest.mark.parametrize("layout", encodings.LAYOUTS)
def test_check_sinusoidal_encoding_accepts_a_correct_answer(layout):
    report = exercises.check_sinusoidal_encoding(_loop_encoding(layout), layout=layout)
    assert report.ok and not report.notes, report.text()


@pytest.mark.parametrize("wrong, hint", [
    (_loop_encoding("interleaved"), "you built the interleaved layout"),
    (_loop_encoding("concat", first=1), "positions start at 0: row 0 is PE(0) = [0, …, 0, 1, …, 1]"),
    (lambda L, d, b: similarity.sinusoidal_tensor2tensor(np.arange(L), d, b), "tensor2tensor"),
    (lambda L, d, b: _loop_encoding("concat")(L, d, b)[:, np.r_[d // 2:d, 0:d // 2]],
     "sine and cosine are swapped: the sine goes to the first d/2 dimensions"),
])
def test_check_sinusoidal_encoding_concat_diagnoses(wrong, hint):
    report = exercises.check_sinusoidal_encoding(wrong, layout="concat")
    assert not report.ok
    assert hint in report.text(), report.text()


def test_check_sinusoidal_encoding_accepts_float32_with_a_note_in_both_layouts():
    for layout in encodings.LAYOUTS:
        def f32(L, d, b, layout=layout):
            return similarity.sinusoidal_float32(np.arange(L), d, b)[
                :, encodings.split_permutation(d) if layout == "concat" else slice(None)]
        report = exercises.check_sinusoidal_encoding(f32, layout=layout)
        assert report.ok and "float32" in " ".join(report.notes), report.text()


def test_check_shift_matrix_names_a_dropped_sign():
    report = exercises.check_shift_matrix(lambda k, d, b: similarity.shift_matrix(abs(k), d, b))
    assert report.passed == report.total - 1
    assert "drops the sign of k" in report.text()


def _one_step(d, base):
    """M(1) built block by block from its definition."""
    m = np.zeros((d, d))
    for i in range(d // 2):
        a = base ** (-2 * i / d)
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]
    return m


def test_check_shift_matrix_accepts_integer_only_solutions():
    # the offsets are integers: solutions that only work for ints must pass
    def by_power(k, d, base=10000.0):
        return np.linalg.matrix_power(_one_step(d, base), k)      # raises TypeError on a float k

    def by_loop(k, d, base=10000.0):
        step = _one_step(d, base) if k >= 0 else _one_step(d, base).T
        m = np.eye(d)
        for _ in range(abs(k)):                                      # raises TypeError on a float k
            m = step @ m
        return m

    for solution in (by_power, by_loop):
        report = exercises.check_shift_matrix(solution)
        assert report.ok and not report.notes, report.text()


# -- the checkers' cases tell the typical mistakes apart -------------------------------------------
def _collisions(mistakes, cases):
    """Pairs of distinct mistakes that give the same numbers on some case (a false hint)."""
    from posenc_lib.course.exercises._core import close
    found = []
    for name, args in cases:
        outs = [(label, f(*args)) for label, f in mistakes]
        for a, (la, oa) in enumerate(outs):
            for lb, ob in outs[a + 1:]:
                if oa is not None and ob is not None and close(oa, ob):
                    found.append((name, la, lb))
    return found


@pytest.mark.parametrize("layout", encodings.LAYOUTS)
def test_encoding_cases_separate_the_mistakes(layout):
    from posenc_lib.course.exercises import ch06
    mistakes = [(kind, f) for kind, f, _ in ch06._encoding_mistakes(layout)]
    assert not _collisions(mistakes, ch06.ENCODING_CASES)
    # and every mistake fails at least one case
    for kind, f in mistakes:
        assert any(not np.allclose(f(*args), encodings.sinusoidal(*args, layout=layout), atol=1e-5)
                   for _, args in ch06.ENCODING_CASES), kind


def test_wavelength_and_shift_cases_separate_the_mistakes():
    from posenc_lib.course.exercises import ch06
    wl = [(hint[:40], f) for f, hint in ch06._wavelength_mistakes()]
    assert not _collisions(wl, ch06.WAVELENGTH_CASES)
    sh = [(hint[:40], f) for f, hint in ch06._shift_mistakes()]
    assert not _collisions(sh, ch06.SHIFT_CASES)
    assert all(type(args[0]) is int for _, args in ch06.SHIFT_CASES)


def test_blog_loop_bug_gets_its_own_hint_and_no_other():
    # `for i in range(0, d, 2)` with 2*i/d in both columns: exponent 4i'/d for pair i'
    def blog(seq_len, d, base=10000.0):
        return np.array([[math.sin(p / base ** (2 * (j - j % 2) / d)) if j % 2 == 0
                          else math.cos(p / base ** (2 * (j - 1) / d)) for j in range(d)]
                         for p in range(seq_len)])
    report = exercises.check_sinusoidal_encoding(blog)
    assert report.passed == 0
    assert report.text().count("Hint:") == 1 and "your exponent is 4i/d" in report.text()
    for other in ("tensor2tensor", "ignores its base", "dimension index 2i or"):
        assert other not in report.text(), report.text()


def _float32_variants():
    """The usual ways of computing the table in float32 (all steps float32)."""
    def recipe(L, d, b):           # PyTorch tutorial: exp(2i * -ln(n)/d)
        pos = np.arange(L, dtype=np.float32)[:, None]
        w = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-math.log(b) / d))
        return pos * w

    def power(L, d, b):            # pos / n ** (2i/d)
        pos = np.arange(L, dtype=np.float32)[:, None]
        return pos / np.float32(b) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))

    def reciprocal(L, d, b):       # pos * (1 / n ** (2i/d))
        pos = np.arange(L, dtype=np.float32)[:, None]
        return pos * (np.float32(1) / np.float32(b) ** (np.arange(0, d, 2, dtype=np.float32)
                                                         / np.float32(d)))

    def half(L, d, b):             # exp(-ln(n) * arange(d/2) / (d/2))
        pos = np.arange(L, dtype=np.float32)[:, None]
        return pos * np.exp(-np.float32(math.log(b)) * np.arange(d // 2, dtype=np.float32)
                            / np.float32(d // 2))

    def table(angles):
        def f(L, d, b):
            a = angles(L, d, b)
            pe = np.empty((L, d), dtype=np.float32)
            pe[:, 0::2], pe[:, 1::2] = np.sin(a), np.cos(a)
            return pe
        return f

    return [table(a) for a in (recipe, power, reciprocal, half)]


def test_float32_tolerance_fits_real_float32_error():
    from posenc_lib.course.exercises import ch06
    worst = max(float(np.max(np.abs(f(*args).astype(float) - encodings.sinusoidal(*args))))
                for f in _float32_variants() for _, args in ch06.ENCODING_CASES)
    assert 1e-6 < worst < ch06.FLOAT32_TOL / 2          # accepted with a margin (about 3x)
    assert ch06.FLOAT32_TOL <= 5 * worst                 # but not much looser than float32 is
    for f in _float32_variants():
        report = exercises.check_sinusoidal_encoding(f)
        assert report.ok, report.text()
    # a constant error larger than float32 rounding is rejected, without the float32 note
    for err in (2 * ch06.FLOAT32_TOL, 9e-5):
        report = exercises.check_sinusoidal_encoding(
            lambda L, d, b, err=err: encodings.sinusoidal(L, d, b) + err)
        assert report.passed == 0 and not report.notes, report.text()
