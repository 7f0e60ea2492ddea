"""posenc_lib.maths.rope: the fast path against independent references, properties, validation."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import encodings, rope

dims = st.integers(1, 32).map(lambda k: 2 * k)
pairings = st.sampled_from(["interleaved", "half"])


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
