"""posenc_lib.maths.rope: the fast path against independent references, properties and
validation; the 2-D rotation, the dense form, the pairings and the weight conversion between them
(per head, grouped-query keys), partial rotary and axial RoPE, attention with RoPE, the decay
bound, and the frequencies override with its score curves."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import dims_to_32, factors, methods, pairings, seeds
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.maths import attention, encodings, rope, rope_scaling

dims = st.integers(1, 32).map(lambda k: 2 * k)


def reference_complex(x, positions, base=10000.0):
    """Adjacent pairs as complex numbers times e^{i pos theta} (RoFormer / Meta LLaMA style)."""
    d = x.shape[-1]
    theta = base ** (-np.arange(0, d, 2) / d)
    z = x[..., 0::2] + 1j * x[..., 1::2]
    z = z * np.exp(1j * np.outer(positions, theta))
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def reference_rotate_half(x, positions, base=10000.0):
    """Hugging Face Llama style: x * cos + rotate_half(x) * sin with duplicated angles."""
    d = x.shape[-1]
    inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
    freqs = np.outer(positions, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    rotated = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)


@given(dims, st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_matches_independent_references(d, seq, seed):
    x = np.random.default_rng(seed).standard_normal((2, seq, d))
    pos = np.arange(seq)
    np.testing.assert_allclose(rope.apply(x, pairing="interleaved"), reference_complex(x, pos),
                               atol=1e-12)
    np.testing.assert_allclose(rope.apply(x, pairing="half"), reference_rotate_half(x, pos),
                               atol=1e-12)


@given(dims, pairings, st.floats(-1e4, 1e4), st.integers(0, 2**32 - 1))
def test_dense_matrix_equals_fast_path(d, pairing, pos, seed):
    x = np.random.default_rng(seed).standard_normal((1, d))
    fast = rope.apply(x, positions=[pos], pairing=pairing)[0]
    dense = rope.rotation_matrix(pos, d, pairing=pairing) @ x[0]
    np.testing.assert_allclose(fast, dense, atol=1e-9)


@given(dims, pairings, st.integers(0, 2**32 - 1))
def test_rotation_keeps_norms(d, pairing, seed):
    x = np.random.default_rng(seed).standard_normal((5, d))
    y = rope.apply(x, positions=[0, 3, 70, 999, 12345], pairing=pairing)
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)


@given(dims, pairings, st.integers(0, 3000), st.integers(0, 3000), st.integers(-1000, 1000),
       st.integers(0, 2**32 - 1))
def test_score_depends_only_on_offset(d, pairing, m, n, shift, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, d))
    m2, n2 = m + shift, n + shift
    s1 = rope.apply(q[None], [m], pairing=pairing)[0] @ rope.apply(k[None], [n], pairing=pairing)[0]
    s2 = rope.apply(q[None], [m2], pairing=pairing)[0] @ rope.apply(k[None], [n2], pairing=pairing)[0]
    assert s1 == pytest.approx(s2, abs=1e-8)
    # and equals q^T R(n - m) k
    s3 = q @ rope.rotation_matrix(n - m, d, pairing=pairing) @ k
    assert s1 == pytest.approx(s3, abs=1e-8)


@given(dims, pairings, st.integers(-500, 500), st.integers(-500, 500))
def test_rotations_compose(d, pairing, m, n):
    rm = rope.rotation_matrix(m, d, pairing=pairing)
    rn = rope.rotation_matrix(n, d, pairing=pairing)
    np.testing.assert_allclose(rm.T @ rn, rope.rotation_matrix(n - m, d, pairing=pairing),
                               atol=1e-9)
    np.testing.assert_allclose(rm.T @ rm, np.eye(d), atol=1e-12)


@given(dims, st.integers(1, 10), st.integers(0, 2**32 - 1))
def test_pairings_differ_by_the_split_permutation(d, seq, seed):
    x = np.random.default_rng(seed).standard_normal((seq, d))
    perm = encodings.split_permutation(d)
    np.testing.assert_allclose(rope.apply(x, pairing="interleaved")[:, perm],
                               rope.apply(x[:, perm], pairing="half"), atol=1e-12)


def test_using_the_wrong_pairing_gives_different_results():
    x = np.random.default_rng(0).standard_normal((6, 8))
    assert not np.allclose(rope.apply(x, pairing="interleaved"), rope.apply(x, pairing="half"))


def test_known_values():
    # d = 2: one pair, theta_0 = 1; position 1 turns (1, 0) by one radian
    np.testing.assert_allclose(rope.apply(np.array([[0.0, 0.0], [1.0, 0.0]]))[1],
                               [math.cos(1), math.sin(1)], atol=1e-15)
    # d = 4: the second pair turns by 10000^(-1/2) = 0.01 rad per position
    y = rope.apply(np.array([[0, 0, 0, 0], [0, 0, 1.0, 0]]))
    np.testing.assert_allclose(y[1], [0, 0, math.cos(0.01), math.sin(0.01)], atol=1e-15)
    # position 0 is the identity
    x = np.arange(8.0)[None]
    np.testing.assert_array_equal(rope.apply(x, pairing="half"), x)


def test_dtype_preserved_and_batched():
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 16)).astype(np.float32)
    for pairing in ("interleaved", "half"):
        y = rope.apply(x, pairing=pairing)
        assert y.dtype == np.float32
        ref = (reference_complex if pairing == "interleaved" else reference_rotate_half)(
            x.astype(np.float64), np.arange(5))
        np.testing.assert_allclose(y, ref, atol=1e-5)
    y16 = rope.apply(x.astype(np.float16))
    assert y16.dtype == np.float16


def test_non_contiguous_input():
    x = np.random.default_rng(2).standard_normal((8, 6))[:, ::1].T.copy().T  # Fortran order
    assert not x.flags.c_contiguous
    np.testing.assert_allclose(rope.apply(x), reference_complex(x, np.arange(8)), atol=1e-12)


def test_nan_propagates_only_to_its_own_pair():
    x = np.ones((2, 8))
    x[1, 2] = np.nan
    for pairing, pair in (("interleaved", [2, 3]), ("half", [2, 6])):
        y = rope.apply(x, pairing=pairing)
        assert np.isnan(y).sum() == 2 and np.isnan(y[1, pair]).all()


def test_custom_positions():
    x = np.random.default_rng(3).standard_normal((3, 4))
    pos = np.array([10.0, 2.5, -4.0])
    np.testing.assert_allclose(rope.apply(x, positions=pos), reference_complex(x, pos), atol=1e-12)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: rope.apply(np.zeros((3, 5))), ValueError,
     r"d \(the last dimension of x\) must be a positive even integer, got 5"),
    (lambda: rope.apply(np.zeros(4)), ValueError, "x must have at least 2 dimension"),
    (lambda: rope.apply(np.zeros((3, 4)), positions=[0, 1]), ValueError,
     r"positions must be a 1-D array with one entry per row of x \(length 3\), got shape \(2,\)"),
    (lambda: rope.apply(np.zeros((3, 4)), pairing="neox"), ValueError,
     "pairing must be one of 'interleaved', 'half', got 'neox'"),
    (lambda: rope.apply(np.zeros((3, 4)), base=0.0), ValueError, "base must be >= 1"),
    (lambda: rope.apply([["a", "b"]]), TypeError, "x must be a numeric array"),
    (lambda: rope.rotation_matrix(1.0, 3), ValueError, "d must be a positive even integer, got 3"),
    (lambda: rope.rotation_matrix(float("nan"), 4), ValueError, "position must be finite"),
    (lambda: rope.rotation_matrix(1, 4, pairing="x"), ValueError, "pairing must be one of"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


@pytest.mark.parametrize("pairing", ["interleaved", "half"])
@pytest.mark.parametrize("d, r", [(16, 4), (16, 8), (64, 16), (8, 8)])
def test_partial_rotary_rotates_the_first_r_features_only(pairing, d, r):
    """GPT-NeoX's rotary_pct / GPT-J's rotary_dim: the first r features of each head rotate with
    frequencies computed for r (n^(-2i/r)), the rest pass through. Checked against the dense
    rotation matrix of size r, built entry by entry, next to an identity block."""
    rng = np.random.default_rng(r + d)
    x = rng.standard_normal((3, 5, d))
    got = rope.apply(x, base=100.0, pairing=pairing, rotary_dim=r)
    for p in range(5):
        dense = np.eye(d)
        dense[:r, :r] = rope.rotation_matrix(p, r, base=100.0, pairing=pairing)
        np.testing.assert_allclose(got[:, p], x[:, p] @ dense.T, atol=1e-12)
    np.testing.assert_array_equal(got[..., r:], x[..., r:])
    if r == d:
        np.testing.assert_array_equal(got, rope.apply(x, base=100.0, pairing=pairing))


def test_partial_rotary_keeps_relative_scores():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 1, 32))
    qs = rope.apply(np.repeat(q, 40, axis=0), rotary_dim=8)
    ks = rope.apply(np.repeat(k, 40, axis=0), rotary_dim=8)
    scores = qs @ ks.T
    for shift in (1, 7):   # the score still depends only on the offset
        np.testing.assert_allclose(np.diagonal(scores, shift)[:-1], np.diagonal(scores, shift)[1:],
                                   atol=1e-12)


@pytest.mark.parametrize("bad, msg", [
    (3, "rotary_dim must be an even integer between 2 and d = 16, got 3"),
    (0, "rotary_dim must be an even integer between 2 and d = 16, got 0"),
    (18, "rotary_dim must be an even integer between 2 and d = 16, got 18"),
    (4.0, "rotary_dim must be an even integer between 2 and d = 16, got 4.0"),
])
def test_partial_rotary_bad_dimension(bad, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        rope.apply(np.zeros((2, 16)), rotary_dim=bad)


def _hf_permute(w, n_heads):
    """convert_llama_weights_to_hf.py's permute (interleaved -> rotate-half), in numpy."""
    dim1, dim2 = w.shape
    return w.reshape(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(0, 2, 1, 3).reshape(dim1, dim2)


@pytest.mark.parametrize("n_heads, head_dim, d_in", [(1, 8, 8), (4, 8, 32), (3, 16, 20)])
def test_weight_conversion_is_per_head_and_matches_the_reference(n_heads, head_dim, d_in):
    rng = np.random.default_rng(n_heads)
    w = rng.standard_normal((n_heads * head_dim, d_in))
    half = rope.convert_qk_weight(w, n_heads, "interleaved", "half")
    np.testing.assert_array_equal(half, _hf_permute(w, n_heads))
    np.testing.assert_array_equal(rope.convert_qk_weight(half, n_heads, "half", "interleaved"), w)
    # every head's scores are unchanged: Meta's form with interleaved pairs, HF's with rotate-half
    x = rng.standard_normal((6, d_in))
    wk = rng.standard_normal((n_heads * head_dim, d_in))
    wk_half = rope.convert_qk_weight(wk, n_heads)
    for h in range(n_heads):
        rows = slice(h * head_dim, (h + 1) * head_dim)
        s_meta = rope.apply(x @ w[rows].T) @ rope.apply(x @ wk[rows].T).T
        s_hf = (rope.apply(x @ half[rows].T, pairing="half")
                @ rope.apply(x @ wk_half[rows].T, pairing="half").T)
        np.testing.assert_allclose(s_hf, s_meta, atol=1e-10)


def test_one_permutation_over_all_heads_is_wrong():
    w = np.random.default_rng(0).standard_normal((4 * 8, 32))
    whole = w[rope.pairing_permutation(32)]          # the tempting mistake
    assert not np.array_equal(whole, rope.convert_qk_weight(w, 4))
    np.testing.assert_array_equal(whole, rope.convert_qk_weight(w, 1))   # right for one head only


def test_weight_conversion_errors():
    with pytest.raises(ValueError, match="w has 30 rows, not a multiple of n_heads = 4"):
        rope.convert_qk_weight(np.zeros((30, 8)), 4)
    with pytest.raises(ValueError, match=r"head_dim \(rows of w / n_heads\) must be a positive even "
                                         r"integer, got 5"):
        rope.convert_qk_weight(np.zeros((10, 8)), 2)
    with pytest.raises(ValueError, match=r"w must be a 2-D weight"):
        rope.convert_qk_weight(np.zeros(8), 1)


def test_axial_scores_depend_only_on_the_2d_offset():
    rng = np.random.default_rng(3)
    rows, cols = rope.grid_positions(4, 5)
    assert list(zip(rows[:7], cols[:7])) == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 1)]
    q, k = rng.standard_normal((2, 1, 16))
    qs = rope.axial_apply(np.repeat(q, 20, axis=0), rows, cols, base=100.0)
    ks = rope.axial_apply(np.repeat(k, 20, axis=0), rows, cols, base=100.0)
    scores = qs @ ks.T
    by_offset: dict[tuple[float, float], list[float]] = {}
    for a in range(20):
        for b in range(20):
            by_offset.setdefault((rows[b] - rows[a], cols[b] - cols[a]), []).append(scores[a, b])
    for values in by_offset.values():
        np.testing.assert_allclose(values, values[0], atol=1e-12)
    # two offsets with the same row change but different column changes score differently
    assert not np.isclose(by_offset[(1.0, 0.0)][0], by_offset[(1.0, 2.0)][0])


def test_axial_halves_are_one_dimensional_rope():
    x = np.random.default_rng(1).standard_normal((6, 8))
    rows, cols = np.arange(6.0), np.zeros(6)
    out = rope.axial_apply(x, rows, cols)
    np.testing.assert_allclose(out[:, :4], rope.apply(x[:, :4]), atol=1e-15)
    np.testing.assert_array_equal(out[:, 4:], x[:, 4:])      # column 0 for every patch: no turn
    with pytest.raises(ValueError, match="must be divisible by 4 for axial RoPE"):
        rope.axial_apply(np.zeros((3, 6)), np.zeros(3), np.zeros(3))


dims_to_48 = st.integers(1, 24).map(lambda k: 2 * k)


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


@given(dims_to_48, st.integers(1, 9), pairings, seeds)
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


@given(dims_to_48, st.integers(1, 8), seeds)
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


@given(dims_to_48, st.floats(-1000, 1000), st.floats(0, 1000))
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


def test_partial_rotate_half_pairs_inside_the_rotated_part():
    d, r = 32, 8
    for i in range(r // 2):
        e = np.zeros((1, d))
        e[0, i] = 1.0
        turned = rope.apply(e, positions=[1.0], pairing="half", rotary_dim=r)[0]
        assert np.flatnonzero(np.abs(turned) > 1e-12).tolist() == [i, i + r // 2]


# -- rope.apply & co. with a frequencies override ------------------------------------------------
@given(dims_to_32, pairings, seeds, methods, factors)
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


@given(dims_to_32, pairings, seeds)
def test_default_frequencies_passed_explicitly_change_nothing(d, pairing, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 5, d)).astype(np.float32)
    pos = np.arange(5.0) * 7
    explicit = rope.apply(x, pos, 500.0, pairing, frequencies=encodings.frequencies(d, 500.0))
    assert explicit.dtype == np.float32
    np.testing.assert_array_equal(explicit, rope.apply(x, pos, 500.0, pairing))


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
@given(dims_to_32, pairings, seeds, st.floats(-5000, 5000), st.floats(-100, 100))
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
