"""Chapter 8 (RoPE): the derivation's numbers, the claims of the chapter (the attention terms, a
shared mean, the rows a whole-matrix permutation moves), its new sections, the base written b (not
n) in its explorers, its exercise checkers (and the weight exercise's slow reference) and its quiz."""

import nbformat
import numpy as np
import pytest
from exercises_cases import ch08 as _cases
from helpers import ROOT, seeds
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.course import exercises, quizzes
from posenc_lib.course.exercises import ch08 as ch08_checkers
from posenc_lib.course.figures import rope as rope_figures
from posenc_lib.maths import encodings, rope

NOTEBOOK = ROOT / "notebooks" / "08_rope.ipynb"


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


# -- the per-head conversion and the exercise's slow reference ------------------------------------
@settings(max_examples=60)
@given(st.integers(1, 6), st.integers(1, 8).map(lambda h: 2 * h), st.integers(1, 20), seeds)
def test_slow_loop_equals_library_conversion(n_heads, head_dim, d_model, seed):
    w = np.random.default_rng(seed).standard_normal((n_heads * head_dim, d_model))
    np.testing.assert_array_equal(ch08_checkers.convert_weight_loop(w, n_heads),
                                  rope.convert_qk_weight(w, n_heads))


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


# -- the explorers: small static grids, fast updates, the base called b --------------------------
@pytest.mark.parametrize("make", [rope_figures.partial_rotary_explorer,
                                  rope_figures.axial_explorer, rope_figures.decay_explorer,
                                  rope_figures.rotation_2d_explorer])
def test_chapter_explorers_name_the_base_b(make):
    ex = make()
    text = " ".join([ex.title, *(p.label for p in ex.params),
                     *(p.description for p in ex.params)])
    assert "base n" not in text and " n = " not in text


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


# -- exercise checkers (typical mistakes: tests/exercises_cases/ch08.py) ----------------------
def test_rope_half_checker_accepts_float32_and_in_place_answers():
    # float32 arithmetic is accepted, as the exercise text says (no note needed)
    assert exercises.check_rope_half(_cases._rope_float32).ok
    # overwriting x in place and returning it is a correct answer too
    assert exercises.check_rope_half(_cases._in_place).ok


def test_to_rotate_half_cases_tell_the_inverse_apart():
    # for d = 4 the reordering [0, 2, 1, 3] is its own inverse: no case may use d = 4
    np.testing.assert_array_equal(rope.pairing_permutation(4),
                                  rope.pairing_permutation(4, "half", "interleaved"))
    report = exercises.check_to_rotate_half(
        lambda x: x[..., rope.pairing_permutation(x.shape[-1], "half", "interleaved")])
    assert report.passed == 0, report.text()


def test_rope_half_checker_names_the_wrong_axis_not_d_over_2():
    # d taken from the rows: no case has as many rows as d/2, so it is never called "d/2"
    report = exercises.check_rope_half(_cases._d_from_rows)
    assert "x.shape[0]" in report.text() and "d/2" not in report.text(), report.text()
    # 4i/d (np.arange(0, d, 2) doubled again) is named as such
    report = exercises.check_rope_half(_cases._theta_from_arange_step_2)
    assert "4i/d" in report.text() and "np.arange(0, d, 2)" in report.text(), report.text()


def test_rope_half_linspace_exponents_get_one_consistent_hint():
    # np.linspace(0, 1, d // 2) matched "ignored base" (d = 8, base 1000) and "x.shape[0]"
    # (d = 6 with 4 = d - 2 rows) by coincidence; every case now names the real mistake
    report = exercises.check_rope_half(_cases._theta_from_linspace)
    text = report.text()
    assert not report.ok and "np.linspace(0, 1, d // 2)" in text, text
    assert "ignored the argument" not in text and "x.shape[0]" not in text, text


def test_to_rotate_half_sorting_is_not_called_unchanged():
    # the first case is not sorted, so an order-keeping answer is not mistaken for "unchanged"
    report = exercises.check_to_rotate_half(lambda x: np.sort(x, axis=-1))
    assert not report.ok and "unchanged" not in report.text(), report.text()


# -- quick check: understanding, not recall; the answer not given away by its length ------------
def test_chapter_quiz_asks_for_predictions_and_hides_the_answer_length():
    from posenc_lib.course import quizzes

    questions = quizzes.chapter(8).questions
    assert sum(q.kind in ("predict", "compute") for q in questions) >= 3
    longest = shortest = 0
    for q in questions:
        lengths = [len(o.text) for o in q.options]
        right = lengths[q.correct_indices[0]]
        longest += right == max(lengths)
        shortest += right == min(lengths)
    assert longest <= len(questions) / 3 and shortest <= len(questions) / 3, (longest, shortest)
