"""Chapter 8 additions: the derivation's numbers, chapter 6's shift matrix as R_k, the per-head
weight conversion (and its exercise's slow reference), partial rotary and axial 2-D RoPE, their
explorers, and the base written b (not n) in the chapter's figures."""

import itertools
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.course import exercises, quizzes
from posenc_lib.course.exercises import ch08 as ch08_checkers
from posenc_lib.course.figures import rope as rope_figures
from posenc_lib.maths import encodings, rope

seeds = st.integers(0, 2**32 - 1)
NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "08_rope.ipynb"


# -- the derivation: a linear angle keeps the whole complex product offset-only ------------------
@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-100, 100), st.floats(0.01, 3.0),
       seeds)
def test_complex_product_depends_on_offset_only(m, n, shift, theta, seed):
    q, k = np.random.default_rng(seed).standard_normal((2, 2))
    qc, kc = complex(*q), complex(*k)

    def product(m, n):
        return np.conj(qc * np.exp(1j * m * theta)) * (kc * np.exp(1j * n * theta))

    assert abs(product(m, n) - product(m + shift, n + shift)) < 1e-9
    # its real part is the score of the rotated 2-D vectors
    dot = rope.rotate_2d(q, m, theta) @ rope.rotate_2d(k, n, theta)
    assert abs(product(m, n).real - dot) < 1e-9


def test_an_angle_growing_like_m_squared_is_not_offset_only():
    q, k = complex(0.3, -1.2), complex(0.8, 0.5)
    theta = 0.3
    scores = [(np.conj(q * np.exp(1j * m**2 * theta)) * k * np.exp(1j * (m + 3)**2 * theta)).real
              for m in (2, 10, 40)]
    assert np.ptp(scores) > 0.5


# -- chapter 6's shift matrix M(k) is R_k ---------------------------------------------------------
@pytest.mark.parametrize("d", [2, 8, 16, 64])
@pytest.mark.parametrize("k", [1, 5, 37])
def test_sinusoidal_encoding_is_rope_of_a_constant_vector(d, k):
    n_pos = 80
    pe = encodings.sinusoidal(n_pos, d)                          # (sin, cos) in every pair
    pe_cs = pe.reshape(n_pos, d // 2, 2)[..., ::-1].reshape(n_pos, d)
    u = np.tile([1.0, 0.0], d // 2)
    np.testing.assert_allclose(rope.apply(np.tile(u, (n_pos, 1))), pe_cs, atol=1e-12)
    r_k = rope.rotation_matrix(k, d)
    np.testing.assert_allclose(pe_cs[k:], pe_cs[:-k] @ r_k.T, atol=1e-10)
    np.testing.assert_allclose(pe[k:], pe[:-k] @ rope.rotation_matrix(-k, d).T, atol=1e-10)


# -- the per-head conversion and the exercise's slow reference ------------------------------------
@settings(max_examples=60)
@given(st.integers(1, 6), st.integers(1, 8).map(lambda h: 2 * h), st.integers(1, 20), seeds)
def test_slow_loop_equals_library_conversion(n_heads, head_dim, d_model, seed):
    w = np.random.default_rng(seed).standard_normal((n_heads * head_dim, d_model))
    np.testing.assert_array_equal(ch08_checkers.convert_weight_loop(w, n_heads),
                                  rope.convert_qk_weight(w, n_heads))


@settings(max_examples=30)
@given(st.integers(1, 4), st.integers(1, 5).map(lambda h: 2 * h), seeds)
def test_converted_weights_keep_every_score(n_heads, head_dim, seed):
    rng = np.random.default_rng(seed)
    d_model, seq = 12, 7
    w_q, w_k = rng.standard_normal((2, n_heads * head_dim, d_model))
    x = rng.standard_normal((seq, d_model))

    def scores(wq, wk, pairing):
        q = (x @ wq.T).reshape(seq, n_heads, head_dim).swapaxes(0, 1)
        k = (x @ wk.T).reshape(seq, n_heads, head_dim).swapaxes(0, 1)
        return rope.apply(q, pairing=pairing) @ rope.apply(k, pairing=pairing).swapaxes(-1, -2)

    converted = scores(rope.convert_qk_weight(w_q, n_heads), rope.convert_qk_weight(w_k, n_heads),
                       "half")
    np.testing.assert_allclose(converted, scores(w_q, w_k, "interleaved"), atol=1e-10)


def test_one_permutation_over_all_rows_changes_scores():
    rng = np.random.default_rng(3)
    n_heads, head_dim, d_model, seq = 4, 8, 32, 10
    w_q, w_k = rng.standard_normal((2, n_heads * head_dim, d_model))
    x = rng.standard_normal((seq, d_model))
    perm = rope.pairing_permutation(n_heads * head_dim)

    def scores(wq, wk, pairing):
        q = (x @ wq.T).reshape(seq, n_heads, head_dim).swapaxes(0, 1)
        k = (x @ wk.T).reshape(seq, n_heads, head_dim).swapaxes(0, 1)
        return rope.apply(q, pairing=pairing) @ rope.apply(k, pairing=pairing).swapaxes(-1, -2)

    assert np.max(np.abs(scores(w_q[perm], w_k[perm], "half")
                         - scores(w_q, w_k, "interleaved"))) > 1.0


def test_weight_checker_accepts_the_library_and_the_reshape_form():
    def reshape_form(w, n_heads):
        hd = w.shape[0] // n_heads
        return w.reshape(n_heads, hd // 2, 2, -1).swapaxes(1, 2).reshape(w.shape)

    assert exercises.check_to_rotate_half_weight(rope.convert_qk_weight).ok
    assert exercises.check_to_rotate_half_weight(reshape_form).ok
    assert exercises.check_to_rotate_half_weight(lambda w, n: w.copy()).passed == 0


def test_weight_checker_cases_have_several_heads_and_head_dim_at_least_6():
    # head_dim = 4 would let the opposite direction pass; one head, the whole-matrix permutation
    seen = []

    def spy(w, n_heads):
        seen.append((w.shape, n_heads))
        return rope.convert_qk_weight(w, n_heads)

    assert exercises.check_to_rotate_half_weight(spy).ok
    assert all(n > 1 and shape[0] // n >= 6 for shape, n in seen)
    assert any(shape[0] != shape[1] for shape, _ in seen)


# -- partial rotary ---------------------------------------------------------------------------
@given(st.integers(1, 16).map(lambda h: 2 * h), st.integers(0, 40), st.integers(0, 40), seeds)
def test_partial_rotary_score_splits(d_half, m, n, seed):
    d = 2 * d_half
    r = 2 * int(np.random.default_rng(seed).integers(1, d_half + 1))
    q, k = np.random.default_rng(seed + 1).standard_normal((2, d))
    qm = rope.apply(q[None], positions=[float(m)], rotary_dim=r)[0]
    kn = rope.apply(k[None], positions=[float(n)], rotary_dim=r)[0]
    rotated = q[:r] @ rope.apply(k[None, :r], positions=[float(n - m)])[0]
    assert abs(qm @ kn - (rotated + q[r:] @ k[r:])) < 1e-9


@pytest.mark.parametrize("fraction", [0.125, 0.25, 0.5, 1.0])
def test_partial_rotary_expected_aligned_score(fraction):
    d, draws = 128, 3000
    r = int(d * fraction)
    q = np.random.default_rng(5).standard_normal((draws, d))
    for dist in (0.0, 100.0, 10000.0):
        got = np.mean(np.sum(q * rope.apply(q, positions=np.full(draws, dist), rotary_dim=r),
                             axis=1)) / d
        want = fraction * float(rope.all_ones_score(dist, r)) + (1 - fraction)
        assert abs(got - want) < 0.03, (fraction, dist, got, want)


def test_partial_rotary_figure_parts():
    ex = rope_figures.partial_rotary_explorer()
    rng = np.random.default_rng(0)
    q, k_other = rng.standard_normal((2, 128))
    for fraction, content in itertools.product((0.125, 0.25, 0.5, 1.0),
                                               rope_figures.PARTIAL_CONTENTS):
        fig = ex.draw(fraction=fraction, content=content)
        ax = fig.axes[0]
        total, rotated, free, _expected = ax.lines[:4]
        r = int(128 * fraction)
        k = q if content == rope_figures.PARTIAL_CONTENTS[0] else k_other
        np.testing.assert_allclose(free.get_ydata(), q[r:] @ k[r:] / 128, atol=1e-12)
        np.testing.assert_allclose(total.get_ydata(),
                                   np.asarray(rotated.get_ydata()) + free.get_ydata(), atol=1e-12)
        assert f"rotary_dim = {r} of d = 128" in ax.get_title()


# -- axial RoPE -------------------------------------------------------------------------------
@given(st.integers(0, 5), st.integers(0, 5), st.integers(0, 5), st.integers(0, 5),
       st.integers(-3, 3), st.integers(-3, 3), seeds)
def test_axial_score_depends_on_offset_only(r1, c1, r2, c2, dr, dc, seed):
    q, k = np.random.default_rng(seed).standard_normal((2, 16))

    def score(qr, qc, kr, kc):
        qs = rope.axial_apply(q[None], [float(qr)], [float(qc)], base=10.0)[0]
        ks = rope.axial_apply(k[None], [float(kr)], [float(kc)], base=10.0)[0]
        return qs @ ks

    assert abs(score(r1, c1, r2, c2) - score(r1 + dr, c1 + dc, r2 + dr, c2 + dc)) < 1e-9
    # a function of d_row plus a function of d_col
    s = score(0, 0, r2 - r1, c2 - c1)
    assert abs(s - score(0, 0, r2 - r1, 0) - score(0, 0, 0, c2 - c1) + score(0, 0, 0, 0)) < 1e-9


def test_axial_figure_offset_map_is_the_same_for_every_query():
    ex = rope_figures.axial_explorer()
    maps = []
    for row, col in itertools.product((0, 2, 4, 7), repeat=2):
        fig = ex.draw(query_row=row, query_col=col)
        grid_img, offset_img = fig.axes[0].images[0], fig.axes[1].images[0]
        scores = np.asarray(grid_img.get_array())
        assert np.unravel_index(np.argmax(scores), scores.shape) == (row, col)   # k = q
        maps.append(np.ma.filled(np.asarray(offset_img.get_array(), dtype=float), np.nan))
    stacked = np.stack(maps)
    spread = np.nanmax(stacked, axis=0) - np.nanmin(stacked, axis=0)
    assert np.nanmax(spread) < 1e-12


# -- the explorers: small static grids, fast updates, the base called b --------------------------
@pytest.mark.parametrize("make", [rope_figures.partial_rotary_explorer,
                                  rope_figures.axial_explorer, rope_figures.decay_explorer,
                                  rope_figures.rotation_2d_explorer])
def test_chapter_explorers_name_the_base_b(make):
    ex = make()
    text = " ".join([ex.title, *(p.label for p in ex.params),
                     *(p.description for p in ex.params)])
    assert "base n" not in text and " n = " not in text


@pytest.mark.parametrize("make", [rope_figures.partial_rotary_explorer,
                                  rope_figures.axial_explorer])
def test_new_explorers_are_small_and_fast(make):
    ex = make()
    grids = [p.grid for p in ex.params]
    assert np.prod([len(g) for g in grids]) <= 24
    fig = ex.draw(**ex.defaults)
    for combo in itertools.product(*grids):
        values = dict(zip([p.name for p in ex.params], combo))
        start = time.perf_counter()
        ex._update(ex._full(values))
        assert time.perf_counter() - start < 0.05, values
        assert "base n" not in ex.alt_text(**values)
    assert fig is not None


# -- the chapter: the new material is there, quizzed and exercised --------------------------------
def test_chapter_has_the_new_sections_exercise_and_quiz():
    nb = nbformat.read(NOTEBOOK, 4)
    text = "\n".join(c.source for c in nb.cells)
    for needle in ("### Where the rotation comes from", "### Chapter 6's shift matrix is",
                   "### Converting a real checkpoint: head by head", "### Partial rotary",
                   "### Axial RoPE for images", "exercises.check_to_rotate_half_weight",
                   "rope_figures.partial_rotary_explorer()", "rope_figures.axial_explorer()"):
        assert needle in text, needle
    stubs = [c for c in nb.cells if "def to_rotate_half_weight" in c.source]
    assert len(stubs) == 2 and "..." in stubs[0].source
    assert "hide-cell" in stubs[1].metadata.get("tags", [])
    prompts = " ".join(q.prompt for q in quizzes.chapter(8).questions)
    for needle in ("rotary_pct", "rotary_dim", "nn.Linear", "Axial", "φ(m)"):
        assert needle in prompts, needle


# -- review fixes: the attention terms, a shared mean, grouped-query keys, the reachable block ----
def test_sinusoid_position_term_needs_special_matrices_but_rope_score_does_not():
    d, n_pos, k = 16, 60, 5
    pe = encodings.sinusoidal(n_pos, d)
    rng = np.random.default_rng(51)
    w_q, w_k = rng.standard_normal((2, d, d))
    x_m, x_n = rng.standard_normal((2, d))
    a_rot = np.zeros((d, d))
    for i, (s, t) in enumerate(zip(rng.uniform(0.5, 2, d // 2), rng.uniform(-3, 3, d // 2))):
        a_rot[2 * i:2 * i + 2, 2 * i:2 * i + 2] = s * np.array([[np.cos(t), -np.sin(t)],
                                                                [np.sin(t), np.cos(t)]])
    starts = range(n_pos - k)
    assert np.ptp([pe[m] @ w_q.T @ w_k @ pe[m + k] for m in starts]) > 1.0
    assert np.ptp([pe[m] @ a_rot @ pe[m + k] for m in starts]) < 1e-10
    whole = [(rope.rotation_matrix(m, d) @ w_q @ x_m) @ (rope.rotation_matrix(m + k, d) @ w_k @ x_n)
             for m in starts]
    assert np.ptp(whole) < 1e-10


@pytest.mark.parametrize("dist", [0.0, 100.0, 1000.0, 10000.0])
def test_independent_queries_and_keys_with_a_shared_mean_decay(dist):
    d, draws = 128, 4000
    rng = np.random.default_rng(3)
    mu = rng.uniform(-1, 1, d)
    exact = mu @ rope.apply(mu[None], positions=[dist])[0]              # mu^T R_r mu
    weights = np.abs(mu[0::2] + 1j * mu[1::2]) ** 2
    assert abs(exact - np.sum(weights * np.cos(dist * rope.angles(1.0, d)))) < 1e-9
    q, k = mu + rng.standard_normal((2, draws, d))
    got = np.mean(np.sum(q * rope.apply(k, positions=np.full(draws, dist)), axis=1))
    assert abs(got - exact) < 0.05 * (mu @ mu)
    flat = np.full(d, 0.5)                                               # every coordinate equal
    assert abs(flat @ rope.apply(flat[None], positions=[dist])[0]
               - (flat @ flat) * float(rope.all_ones_score(dist, d))) < 1e-9


@pytest.mark.parametrize("n_heads,n_kv_heads", [(8, 2), (4, 1), (6, 3)])
def test_grouped_query_keys_are_converted_with_n_kv_heads(n_heads, n_kv_heads):
    head_dim, d_model, seq = 16, 48, 10
    rng = np.random.default_rng(n_heads)
    w_q = rng.standard_normal((n_heads * head_dim, d_model))
    w_k = rng.standard_normal((n_kv_heads * head_dim, d_model))
    x = rng.standard_normal((seq, d_model))

    def scores(wq, wk, pairing):
        q = (x @ wq.T).reshape(seq, n_heads, head_dim).swapaxes(0, 1)
        k = (x @ wk.T).reshape(seq, n_kv_heads, head_dim).swapaxes(0, 1)
        k = np.repeat(k, n_heads // n_kv_heads, axis=0)
        return rope.apply(q, pairing=pairing) @ rope.apply(k, pairing=pairing).swapaxes(-1, -2)

    right = scores(w_q, w_k, "interleaved")
    w_q_half = rope.convert_qk_weight(w_q, n_heads)
    np.testing.assert_allclose(scores(w_q_half, rope.convert_qk_weight(w_k, n_kv_heads), "half"),
                               right, atol=1e-10)
    wrong = scores(w_q_half, rope.convert_qk_weight(w_k, n_heads), "half")   # no error raised
    assert np.mean(np.abs(wrong - right)) > 0.3 * np.mean(np.abs(right))


def test_weight_checker_cases_are_two_square_one_taller_one_wider():
    shapes = [w.shape for _, (w, _n) in ch08_checkers._weight_cases()]
    assert len(shapes) == 4
    assert sum(r == c for r, c in shapes) == 2
    assert sum(r > c for r, c in shapes) == 1 and sum(r < c for r, c in shapes) == 1


def test_one_permutation_of_all_rows_gives_every_head_foreign_rows():
    n_heads, head_dim = 4, 16
    owner = rope.pairing_permutation(n_heads * head_dim) // head_dim
    for h in range(n_heads):
        assert np.sum(owner[h * head_dim:(h + 1) * head_dim] != h) >= head_dim // 2
    assert np.sum(owner != np.arange(n_heads * head_dim) // head_dim) == 48


def test_partial_rotate_half_pairs_inside_the_rotated_part():
    d, r = 32, 8
    for i in range(r // 2):
        e = np.zeros((1, d))
        e[0, i] = 1.0
        turned = rope.apply(e, positions=[1.0], pairing="half", rotary_dim=r)[0]
        assert np.flatnonzero(np.abs(turned) > 1e-12).tolist() == [i, i + r // 2]


def test_axial_query_reaches_one_block_of_offsets():
    ex = rope_figures.axial_explorer()
    for row, col in itertools.product((0, 2, 4, 7), repeat=2):
        fig = ex.draw(query_row=row, query_col=col)
        offsets = np.ma.filled(np.asarray(fig.axes[1].images[0].get_array(), dtype=float), np.nan)
        defined = np.argwhere(~np.isnan(offsets))
        assert len(defined) == 64
        assert np.ptp(defined[:, 0]) == 7 and np.ptp(defined[:, 1]) == 7   # one 8 x 8 block
        assert "blank border" not in ex.alt_text(query_row=row, query_col=col)


def test_quiz_distractors_are_coherent():
    questions = quizzes.chapter(8).questions
    q6 = next(q for q in questions if "rotary_pct" in q.prompt)
    texts = [o.text for o in q6.options]
    assert all(t.endswith("rad per position") and " coordinates at " in t for t in texts)
    assert f"48 coordinates at {10000.0 ** (-46 / 48):.5f} rad per position" in texts
    q9 = next(q for q in questions if q.prompt.startswith("Axial"))
    raster = next(o for o in q9.options if "raster" in o.text)
    nums = [float(s.strip("().,:")) for s in raster.feedback.split() if s[:1] in "+-"
            and s.strip("().,:").replace(".", "").lstrip("+-").isdigit()]
    assert len(nums) == 2 and abs(nums[0] - nums[1]) > 1.0
