"""Chapter 8 additions to posenc_lib.maths.rope: 2-D rotation, dense form, pairings, values, decay."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import attention, rope

dims = st.integers(1, 24).map(lambda k: 2 * k)
pairings = st.sampled_from(["interleaved", "half"])
seeds = st.integers(0, 2**32 - 1)


# -- rotate_2d ---------------------------------------------------------------------------------
def test_rotate_2d_known_values():
    theta = math.radians(25)
    # (1, 0) at position 4 turns by 100 degrees
    got = rope.rotate_2d([1.0, 0.0], 4, theta)
    np.testing.assert_allclose(got, [math.cos(math.radians(100)), math.sin(math.radians(100))],
                               atol=1e-15)
    # (0, 2) at position 2 turns by 50 degrees: (-2 sin 50, 2 cos 50)
    got = rope.rotate_2d([0.0, 2.0], 2, theta)
    np.testing.assert_allclose(got, [-2 * math.sin(math.radians(50)),
                                     2 * math.cos(math.radians(50))], atol=1e-15)
    # a quarter turn per position: (1, 0) -> (0, 1) -> (-1, 0)
    np.testing.assert_allclose(rope.rotate_2d([[1.0, 0.0], [1.0, 0.0]], [1, 2], math.pi / 2),
                               [[0.0, 1.0], [-1.0, 0.0]], atol=1e-15)


@given(st.floats(-50, 50), st.floats(-3, 3), seeds)
def test_rotate_2d_is_rope_with_one_pair(pos, theta, seed):
    v = np.random.default_rng(seed).standard_normal(2)
    want = rope.rotation_matrix(pos * theta, 2) @ v  # theta_0 = 1 for d = 2
    np.testing.assert_allclose(rope.rotate_2d(v, pos, theta), want, atol=1e-12)


@given(st.integers(0, 20), st.integers(0, 20), st.integers(0, 30), seeds)
def test_rotate_2d_angle_between_depends_on_offset_only(m, n, shift, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((2, 2))
    theta = math.radians(25)
    dot = rope.rotate_2d(a, m, theta) @ rope.rotate_2d(b, n, theta)
    dot_shifted = rope.rotate_2d(a, m + shift, theta) @ rope.rotate_2d(b, n + shift, theta)
    assert dot == pytest.approx(dot_shifted, abs=1e-12)
    # norms kept
    assert np.linalg.norm(rope.rotate_2d(a, m, theta)) == pytest.approx(np.linalg.norm(a))


def test_rotate_2d_validation():
    with pytest.raises(ValueError, match=r"vectors must have shape \(\.\.\., 2\), got shape \(3,\)"):
        rope.rotate_2d([1.0, 2.0, 3.0], 1, 0.1)
    with pytest.raises(ValueError, match="theta must be finite"):
        rope.rotate_2d([1.0, 2.0], 1, float("inf"))
    with pytest.raises(ValueError, match="positions .* must broadcast"):
        rope.rotate_2d(np.zeros((3, 2)), [1, 2], 0.1)
    with pytest.raises(TypeError, match="theta must be a real number"):
        rope.rotate_2d([1.0, 2.0], 1, "25")


# -- dense form ----------------------------------------------------------------------------------
@pytest.mark.parametrize("pairing", ["interleaved", "half"])
def test_dense_matrices_match_rotation_matrix(pairing):
    pos = np.array([0.0, 1.0, 7.0, 123.5])
    r = rope.dense_matrices(pos, 8, 100.0, pairing)
    for k, p in enumerate(pos):
        np.testing.assert_allclose(r[k], rope.rotation_matrix(p, 8, 100.0, pairing), atol=1e-15)
        np.testing.assert_allclose(r[k] @ r[k].T, np.eye(8), atol=1e-12)  # orthogonal


def test_dense_matrix_d4_by_hand():
    # d = 4, base 10000: theta = (1, 1/100); position 1, interleaved pairs (0,1), (2,3)
    c0, s0, c1, s1 = math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)
    want = np.array([[c0, -s0, 0, 0], [s0, c0, 0, 0], [0, 0, c1, -s1], [0, 0, s1, c1]])
    np.testing.assert_allclose(rope.dense_matrices([1.0], 4)[0], want, atol=1e-15)
    half = np.array([[c0, 0, -s0, 0], [0, c1, 0, -s1], [s0, 0, c0, 0], [0, s1, 0, c1]])
    np.testing.assert_allclose(rope.dense_matrices([1.0], 4, pairing="half")[0], half,
                               atol=1e-15)


@given(dims, st.integers(1, 9), pairings, seeds)
def test_apply_dense_equals_apply(d, seq, pairing, seed):
    x = np.random.default_rng(seed).standard_normal((3, seq, d))
    np.testing.assert_allclose(rope.apply_dense(x, pairing=pairing),
                               rope.apply(x, pairing=pairing), atol=1e-12)


def test_dense_validation():
    with pytest.raises(ValueError, match="positions must be 1-D"):
        rope.dense_matrices(np.zeros((2, 2)), 4)
    with pytest.raises(ValueError, match="d must be a positive even integer, got 5"):
        rope.dense_matrices([0.0], 5)
    with pytest.raises(ValueError, match=r"d \(the last dimension of x\) must be a positive even"):
        rope.apply_dense(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="pairing must be one of"):
        rope.apply_dense(np.zeros((2, 4)), pairing="neox")


# -- pairing conversion --------------------------------------------------------------------------
def test_pairing_permutation_known_values():
    np.testing.assert_array_equal(rope.pairing_permutation(6), [0, 2, 4, 1, 3, 5])
    np.testing.assert_array_equal(rope.pairing_permutation(6, "half", "interleaved"),
                                  [0, 3, 1, 4, 2, 5])
    np.testing.assert_array_equal(rope.pairing_permutation(4, "half", "half"), [0, 1, 2, 3])


@given(dims, st.integers(1, 8), seeds)
def test_pairing_permutation_converts_between_conventions(d, seq, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((seq, d))
    perm = rope.pairing_permutation(d)
    back = rope.pairing_permutation(d, "half", "interleaved")
    np.testing.assert_array_equal(perm[back], np.arange(d))  # inverse permutations
    # rotating then permuting == permuting then rotating with the other convention
    np.testing.assert_allclose(rope.apply(x, pairing="interleaved")[:, perm],
                               rope.apply(x[:, perm], pairing="half"), atol=1e-12)
    # converting W_Q and W_K columns keeps every score
    w_q, w_k = rng.standard_normal((2, d, d))
    s_inter = rope.apply(x @ w_q) @ rope.apply(x @ w_k).T
    s_half = (rope.apply(x @ w_q[:, perm], pairing="half")
              @ rope.apply(x @ w_k[:, perm], pairing="half").T)
    np.testing.assert_allclose(s_half, s_inter, atol=1e-9)


def test_wrong_pairing_changes_scores():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((10, 16))
    s_right = rope.apply(x) @ rope.apply(x).T
    s_wrong = rope.apply(x, pairing="half") @ rope.apply(x, pairing="half").T
    assert np.max(np.abs(s_right - s_wrong)) > 1.0
    np.testing.assert_allclose(np.diag(s_right), np.diag(s_wrong))  # same position: no rotation


def test_pairing_permutation_validation():
    with pytest.raises(ValueError, match="source must be one of 'interleaved', 'half', got 'x'"):
        rope.pairing_permutation(4, "x")
    with pytest.raises(ValueError, match="d must be a positive even integer, got 3"):
        rope.pairing_permutation(3)


# -- values are not rotated ----------------------------------------------------------------------
def _head(seed, L=6, d=8):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((L, d)), *rng.standard_normal((3, d, d))


@given(seeds, st.integers(1, 500), pairings)
def test_rope_attention_is_shift_invariant(seed, shift, pairing):
    x, wq, wk, wv = _head(seed)
    pos = np.arange(6.0)
    out0, w0 = rope.rope_attention(x, wq, wk, wv, pos, pairing=pairing)
    out1, w1 = rope.rope_attention(x, wq, wk, wv, pos + shift, pairing=pairing)
    np.testing.assert_allclose(w1, w0, atol=1e-9)
    np.testing.assert_allclose(out1, out0, atol=1e-9)


def test_rope_attention_matches_manual_and_rotating_values_breaks_shifts():
    x, wq, wk, wv = _head(3)
    pos = np.arange(6.0)
    q, k, v = rope.apply(x @ wq), rope.apply(x @ wk), x @ wv
    want = attention.softmax(q @ k.T / math.sqrt(8)) @ v
    np.testing.assert_allclose(rope.rope_attention(x, wq, wk, wv)[0], want, atol=1e-12)
    a = rope.rope_attention(x, wq, wk, wv, pos, rotate_values=True)[0]
    b = rope.rope_attention(x, wq, wk, wv, pos + 5, rotate_values=True)[0]
    assert np.max(np.abs(a - b)) > 0.1
    # the weights are the same; only the mixed vectors rotated: b = R(5) a per row
    np.testing.assert_allclose(b, rope.apply(a, positions=np.full(6, 5.0)), atol=1e-9)


def test_rope_attention_validation():
    x, wq, wk, wv = _head(0)
    with pytest.raises(ValueError, match=r"w_k must have shape \(d_model, ·\) with d_model=8"):
        rope.rope_attention(x, wq, wk[:4], wv)
    with pytest.raises(TypeError, match="rotate_values must be a bool, got 1"):
        rope.rope_attention(x, wq, wk, wv, rotate_values=1)
    with pytest.raises(ValueError, match="x must be 2-D"):
        rope.rope_attention(x[None], wq, wk, wv)
    with pytest.raises(ValueError, match="w_q and w_k must have the same shape"):
        rope.rope_attention(x, wq, wk[:, :4], wv)


# -- long-term decay -----------------------------------------------------------------------------
def _bound_loop(r, d, base):
    theta = [base ** (-2 * k / d) for k in range(d // 2)]
    total = 0.0
    for j in range(1, d // 2 + 1):
        s = sum(complex(math.cos(r * theta[k]), math.sin(r * theta[k])) for k in range(j))
        total += abs(s)
    return total / (d // 2)


@pytest.mark.parametrize("d,base", [(8, 10000.0), (64, 10000.0), (32, 100.0)])
def test_decay_bound_matches_loop(d, base):
    r = np.array([0, 1, 3, 17, 250, -17])
    want = [_bound_loop(x, d, base) for x in r]
    np.testing.assert_allclose(rope.decay_bound(r, d, base), want, rtol=1e-12)


def test_decay_bound_closed_forms():
    # r = 0: |S_j| = j, mean (d/2 + 1)/2
    assert rope.decay_bound(0, 128) == pytest.approx(32.5)
    # d = 2: a single unit phasor
    np.testing.assert_allclose(rope.decay_bound([0, 5, 100], 2), 1.0)
    # d = 4, base 1: both thetas 1 -> |S_2| = |2 e^{ir}| = 2 -> mean (1 + 2)/2
    np.testing.assert_allclose(rope.decay_bound([3.0], 4, base=1.0), [1.5])
    # symmetric in r, and decays: the value at 200 is well below the value at 0
    r = np.arange(0, 300)
    b = rope.decay_bound(r, 128)
    np.testing.assert_allclose(rope.decay_bound(-r, 128), b)
    assert b[200] < 0.4 * b[0]


def test_decay_bound_bounds_actual_scores():
    # |q^T R(r) k| <= max_j |h_{j+1} - h_j| * sum_j |S_j|, with h_j = conj(q_j) k_j (h_{d/2} = 0)
    rng = np.random.default_rng(7)
    d = 16
    q, k = rng.standard_normal((2, d))
    qc, kc = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
    h = np.append(np.conj(qc) * kc, 0.0)
    step = np.max(np.abs(np.diff(h)))
    for r in [0, 1, 5, 40, 300]:
        rotated = rope.apply(np.stack([q, k]), [0.0, float(r)])  # q at 0, k at r
        score = rotated[0] @ rotated[1]
        assert abs(score) <= step * rope.decay_bound(r, d) * (d // 2) + 1e-9


def test_decay_bound_needs_the_convention_h_last_zero():
    # all-ones q, k: every h_j = 2, so max |h_{j+1} - h_j| is 0 without h_{d/2} = 0 ...
    d = 16
    ones = np.ones(d)
    h = np.conj(ones[0::2] + 1j * ones[1::2]) * (ones[0::2] + 1j * ones[1::2])
    assert np.max(np.abs(np.diff(h))) == 0.0
    rotated = rope.apply(np.stack([ones, ones]), [0.0, 3.0])
    score = rotated[0] @ rotated[1]
    assert abs(score) > 1.0  # ... but the score is not 0: the bound needs the convention
    step = np.max(np.abs(np.diff(np.append(h, 0.0))))
    assert abs(score) <= step * rope.decay_bound(3.0, d) * (d // 2)


@given(dims, st.floats(-1000, 1000), st.floats(0, 1000))
def test_all_ones_score_is_a_rope_score(d, r, m):
    ones = np.ones((2, d))
    q = rope.apply(ones, positions=[m, m])[0]
    k = rope.apply(ones, positions=[m + r, m + r])[0]
    assert rope.all_ones_score(r, d) == pytest.approx(q @ k / d, abs=1e-9)


def test_all_ones_score_closed_forms():
    assert rope.all_ones_score(0, 64) == pytest.approx(1.0)
    np.testing.assert_allclose(rope.all_ones_score([1.0, 2.0], 2), np.cos([1.0, 2.0]))
    # d = 4, base 10000: (cos r + cos(r/100)) / 2
    assert rope.all_ones_score(3.0, 4) == pytest.approx((math.cos(3) + math.cos(0.03)) / 2)


def test_decay_validation():
    with pytest.raises(ValueError, match="d must be a positive even integer, got 7"):
        rope.decay_bound([1], 7)
    with pytest.raises(ValueError, match="base must be >= 1"):
        rope.all_ones_score([1], 8, base=0.5)
    with pytest.raises(ValueError, match="distances must contain only finite values"):
        rope.decay_bound([np.nan], 8)


# -- exercise checkers (typical mistakes: tests/exercises_cases/ch08.py) ----------------------
from exercises_cases import ch08 as _cases  # noqa: E402

from posenc_lib.course import exercises  # noqa: E402


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
