"""posenc_lib.maths.attention: softmax and scaled dot-product attention."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import attention


def loop_attention(q, k, v, mask=None):
    """Plain-Python reference, one query at a time."""
    out = np.zeros((q.shape[0], v.shape[1]))
    weights = np.zeros((q.shape[0], k.shape[0]))
    for i in range(q.shape[0]):
        s = np.array([q[i] @ k[j] / np.sqrt(q.shape[1]) for j in range(k.shape[0])])
        if mask is not None:
            s = np.where(mask[i], s, -np.inf)
        e = np.exp(s - s.max())
        weights[i] = e / e.sum()
        out[i] = weights[i] @ v
    return out, weights


def test_softmax_known_values_and_stability():
    np.testing.assert_allclose(attention.softmax([0.0, np.log(3.0)]), [0.25, 0.75])
    big = attention.softmax([1000.0, 1000.0 + np.log(3.0)])
    np.testing.assert_allclose(big, [0.25, 0.75])
    np.testing.assert_allclose(attention.softmax([[1.0, -np.inf]]), [[1.0, 0.0]])
    np.testing.assert_allclose(attention.softmax(np.zeros((2, 3)), axis=0), 0.5)


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_attention_matches_loop_reference(lq, lk, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, lq, 4)) if lq == lk else (rng.standard_normal((lq, 4)),
                                                             rng.standard_normal((lk, 4)))
    v = rng.standard_normal((lk, 3))
    out, w = attention.attention(q, k, v)
    ref_out, ref_w = loop_attention(q, k, v)
    np.testing.assert_allclose(w, ref_w, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    np.testing.assert_allclose(w.sum(-1), 1.0)


@given(st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_causal_matches_masked_loop(L, seed):
    rng = np.random.default_rng(seed)
    q, k, v = rng.standard_normal((3, L, 4))
    out, w = attention.attention(q, k, v, causal=True)
    ref_out, ref_w = loop_attention(q, k, v, mask=np.tril(np.ones((L, L), bool)))
    np.testing.assert_allclose(w, ref_w, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, atol=1e-12)
    assert w[0, 0] == 1.0


@given(st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_permutation_equivariance(L, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((L, 6))
    wq, wk, wv = rng.standard_normal((3, 6, 6))
    p = np.eye(L)[rng.permutation(L)]

    def head(z):
        return attention.attention(z @ wq, z @ wk, z @ wv)[0]

    np.testing.assert_allclose(head(p @ x), p @ head(x), atol=1e-10)


def test_bias_is_added_and_batches_broadcast():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 2, 4, 4))  # batch of 2
    bias = np.triu(np.full((4, 4), -5.0), 1)
    out, w = attention.attention(q, k, v, bias=bias)
    for b in range(2):
        s = q[b] @ k[b].T / 2.0 + bias
        e = np.exp(s - s.max(-1, keepdims=True))
        np.testing.assert_allclose(w[b], e / e.sum(-1, keepdims=True), atol=1e-12)


def test_causal_mask():
    m = attention.causal_mask(3)
    assert np.isneginf(m[0, 1]) and np.isneginf(m[0, 2]) and np.isneginf(m[1, 2])
    assert m[1, 0] == 0 and m[2, 2] == 0


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: attention.softmax(np.array([-np.inf, -np.inf])), ValueError, "fully masked"),
    (lambda: attention.softmax([np.nan, 1.0]), ValueError, "NaN"),
    (lambda: attention.softmax(3.0), ValueError, "at least 1 dimension"),
    (lambda: attention.softmax([1.0], axis=2), ValueError, "axis must be in"),
    (lambda: attention.softmax(["a"]), TypeError, "numeric"),
    (lambda: attention.attention(np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((2, 4))),
     ValueError, "q and k must share their last dimension"),
    (lambda: attention.attention(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((3, 3))),
     ValueError, "k and v must have the same length"),
    (lambda: attention.attention(np.zeros((2, 3)), np.zeros((3, 3)), np.zeros((3, 3)), causal=True),
     ValueError, "causal=True needs as many queries as keys"),
    (lambda: attention.attention(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)),
                                 bias=np.zeros((3, 3))), ValueError, "does not broadcast"),
    (lambda: attention.attention(np.zeros(3), np.zeros((2, 3)), np.zeros((2, 3))),
     ValueError, "q must have at least 2 dimension"),
    (lambda: attention.attention(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3)), causal=1),
     TypeError, "causal must be a bool"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_window_mask_known_values():
    inf = -np.inf
    expected = np.array([[0, 0, inf, inf],
                         [0, 0, 0, inf],
                         [inf, 0, 0, 0],
                         [inf, inf, 0, 0]])
    np.testing.assert_array_equal(attention.window_mask(4, 2), expected)
    assert not np.isinf(attention.window_mask(5, 5)).any()            # a window as long as the input
    np.testing.assert_array_equal(np.isinf(attention.window_mask(3, 1)), ~np.eye(3, dtype=bool))


@given(st.integers(1, 12), st.integers(1, 14))
def test_window_and_causal_masks_leave_each_query_its_last_w_keys(n, w):
    seen = np.isfinite(attention.window_mask(n, w) + attention.causal_mask(n))
    for i in range(n):  # query i sees keys max(0, i - w + 1) .. i, no more and no fewer
        assert np.flatnonzero(seen[i]).tolist() == list(range(max(0, i - w + 1), i + 1))


@pytest.mark.parametrize("args, exc, msg", [((4, 0), ValueError, "window must be"),
                                            ((4, 1.5), TypeError, "window must be"),
                                            ((-1, 2), ValueError, "seq_len must be")])
def test_window_mask_validation(args, exc, msg):
    with pytest.raises(exc, match=msg):
        attention.window_mask(*args)
