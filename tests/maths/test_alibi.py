"""posenc_lib.maths.alibi: slopes by the reference rule (BLOOM's and MPT's), the bias, the
weights of a five-token example, their profile over distance, the span and the mass beyond a
distance, the key-position form, and validation."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import alibi, attention


def test_slopes_8_heads_are_halvings():
    assert alibi.slopes(8).tolist() == [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128,
                                       1 / 256]


def test_slopes_power_of_two_counts():
    np.testing.assert_allclose(alibi.slopes(16), [2 ** (-0.5 * k) for k in range(1, 17)])
    np.testing.assert_allclose(alibi.slopes(4), [1 / 4, 1 / 16, 1 / 64, 1 / 256])
    np.testing.assert_allclose(alibi.slopes(1), [1 / 256])


def test_slopes_12_heads_follow_the_reference_interleaving():
    # 8 slopes of the 8-head rule, then slopes 1, 3, 5, 7 of the 16-head rule (2^-0.5k)
    expected = [2.0 ** -k for k in range(1, 9)] + [2 ** -0.5, 2 ** -1.5, 2 ** -2.5, 2 ** -3.5]
    np.testing.assert_allclose(alibi.slopes(12), expected, rtol=1e-15)
    naive = alibi.geometric_slopes(12)
    np.testing.assert_allclose(naive, [2 ** (-8 * h / 12) for h in range(1, 13)])
    assert not np.allclose(np.sort(naive), np.sort(alibi.slopes(12)))


def test_slopes_6_heads():
    # 4-head slopes, then every other slope of the 8-head rule (2^-1, 2^-3, ...), first two
    expected = [2.0 ** -2, 2.0 ** -4, 2.0 ** -6, 2.0 ** -8, 2.0 ** -1, 2.0 ** -3]
    np.testing.assert_allclose(alibi.slopes(6), expected)


def test_bias_values_symmetric_and_causal():
    b = alibi.bias(4, 0.5, causal=False)
    expected = -0.5 * np.abs(np.arange(4)[:, None] - np.arange(4)[None, :])
    np.testing.assert_array_equal(b, expected)
    c = alibi.bias(4, 0.5, causal=True)
    assert np.all(np.isneginf(c[np.triu_indices(4, 1)]))
    np.testing.assert_array_equal(c[np.tril_indices(4)], expected[np.tril_indices(4)])
    assert not np.signbit(c[0, 0])  # 0.0, not -0.0


def test_bias_per_head():
    m = alibi.slopes(8)
    b = alibi.bias(5, m, causal=False)
    assert b.shape == (8, 5, 5)
    for h in range(8):
        np.testing.assert_array_equal(b[h], alibi.bias(5, float(m[h]), causal=False))


@pytest.mark.parametrize("m, expected", [
    (0.5, [0.058, 0.096, 0.158, 0.260, 0.429]),
    (0.1, [0.162, 0.179, 0.198, 0.219, 0.242]),
])
def test_last_row_weights_of_five_tokens(m, expected):
    scores = np.zeros((5, 5))  # content scores all equal
    w = attention.softmax(scores + alibi.bias(5, m, causal=True))
    np.testing.assert_allclose(w[4], expected, atol=1e-3)
    # closed form: w_j proportional to exp(-m (4 - j))
    e = np.exp(-m * (4 - np.arange(5)))
    np.testing.assert_allclose(w[4], e / e.sum(), atol=1e-15)


def test_zero_slope_is_no_position():
    w = attention.softmax(alibi.bias(6, 0.0, causal=False))
    np.testing.assert_allclose(w, 1 / 6)


def test_adding_instead_of_subtracting_prefers_far_tokens():
    w = attention.softmax(alibi.bias(6, -0.5, causal=True))
    assert np.argmax(w[5]) == 0  # the farthest key wins


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: alibi.slopes(0), ValueError, "num_heads must be a positive integer, got 0"),
    (lambda: alibi.slopes(2.0), TypeError, "num_heads must be a positive integer, got 2.0"),
    (lambda: alibi.bias(-1, 0.5), ValueError, "seq_len must be a non-negative integer, got -1"),
    (lambda: alibi.bias(3, [[0.5]]), ValueError, "slopes must be a scalar or a 1-D array"),
    (lambda: alibi.bias(3, "a"), TypeError, "slopes must be a numeric array"),
    (lambda: alibi.bias(3, np.nan), ValueError, "slopes must contain only finite values"),
    (lambda: alibi.bias(3, 0.5, causal="yes"), TypeError, "causal must be a bool"),
])
def test_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


slopes_st = st.floats(min_value=1 / 256, max_value=1.0)
lengths = st.integers(min_value=1, max_value=40)


# -- weights ------------------------------------------------------------------------------------
def test_five_token_example_weights_by_closed_form():
    # the chapter's numeric check: w_j = e^{-m(4-j)} / sum_k e^{-m(4-k)}, printed to 3 decimals
    w5 = alibi.weights(5, 0.5)[-1]
    np.testing.assert_allclose(w5, [0.058, 0.096, 0.158, 0.260, 0.429], atol=5e-4)
    w1 = alibi.weights(5, 0.1)[-1]
    np.testing.assert_allclose(w1, [0.162, 0.179, 0.198, 0.219, 0.242], atol=5e-4)
    # exact value of the largest weight: 1 / (1 + e^-0.5 + e^-1 + e^-1.5 + e^-2)
    assert w5[-1] == pytest.approx(1 / sum(math.exp(-0.5 * k) for k in range(5)), abs=1e-15)


@given(slopes_st, lengths)
def test_log_weights_fall_by_exactly_m_per_step(m, L):
    # the straight line on a log axis: log w_k - log w_{k+1} = m for every k
    prof = alibi.distance_profile(L, m)
    np.testing.assert_allclose(-np.diff(np.log(prof)), m, atol=1e-9)


@given(slopes_st, lengths)
def test_profile_is_a_truncated_geometric_series(m, L):
    r = math.exp(-m)
    k = np.arange(L)
    expected = (1 - r) * r ** k / (1 - r ** L)
    np.testing.assert_allclose(alibi.distance_profile(L, m), expected, rtol=1e-9, atol=1e-15)


def test_linear_profile_known_values():
    # raw 1 - 0.25k clipped at 0: [1, .75, .5, .25, 0, 0], sum 2.5
    np.testing.assert_allclose(alibi.distance_profile(6, 0.25, kind="linear"),
                               [0.4, 0.3, 0.2, 0.1, 0.0, 0.0], atol=1e-15)
    # linear and exponential differ: the real one never reaches 0
    assert alibi.distance_profile(6, 0.25).min() > 0


def test_weights_with_content_scores_match_attention():
    rng = np.random.default_rng(9)
    L, d = 7, 4
    q, k, v = rng.standard_normal((3, L, d))
    m = alibi.slopes(4)
    _, ref = attention.attention(q, k, v, bias=alibi.bias(L, m, causal=True))
    got = alibi.weights(L, m, causal=True, scores=q @ k.T / np.sqrt(d))
    np.testing.assert_allclose(got, ref, atol=1e-14)
    assert got.shape == (4, L, L)


def test_symmetric_weights_decay_on_both_sides():
    w = alibi.weights(9, 0.5, causal=False)[4]
    np.testing.assert_allclose(w, w[::-1], atol=1e-15)  # the middle query: mirror image
    np.testing.assert_allclose(w[4] / w[3], math.exp(0.5), rtol=1e-12)


def test_zero_slope_equals_no_position_and_sign_flip_prefers_far_keys():
    L = 6
    np.testing.assert_allclose(alibi.weights(L, 0.0, causal=False), 1 / L, atol=1e-15)
    np.testing.assert_allclose(alibi.weights(L, 0.0)[-1], 1 / L, atol=1e-15)
    added = alibi.weights(L, -0.5)[-1]
    assert np.all(np.diff(added) < 0)  # farther key, larger weight
    np.testing.assert_allclose(added, alibi.weights(L, 0.5)[-1][::-1], atol=1e-15)


# -- span and mass ------------------------------------------------------------------------------
def test_span_known_values():
    np.testing.assert_allclose(alibi.span(alibi.slopes(8)), [2, 4, 8, 16, 32, 64, 128, 256])
    assert alibi.span(0.5, 0.01) == pytest.approx(2 * math.log(100), rel=1e-15)
    assert alibi.span(1 / 256, 0.5) == pytest.approx(256 * math.log(2), rel=1e-15)
    assert alibi.span(0.0) == math.inf


@given(slopes_st, st.floats(min_value=1e-6, max_value=0.99))
def test_span_is_where_the_factor_reaches_the_ratio(m, ratio):
    assert math.exp(-m * alibi.span(m, ratio)) == pytest.approx(ratio, rel=1e-9)


@given(st.floats(min_value=0.0, max_value=2.0), st.integers(1, 60), st.data())
def test_mass_beyond_equals_summed_weights(m, L, data):
    D = data.draw(st.integers(0, L))
    brute = float(alibi.distance_profile(L, m)[D:].sum())
    assert alibi.mass_beyond(m, D, L) == pytest.approx(brute, abs=1e-12)


def test_mass_beyond_edges_and_tiny_slopes():
    assert alibi.mass_beyond(0.0, 3, 12) == 0.75
    assert alibi.mass_beyond(0.3, 0, 10) == pytest.approx(1.0, abs=1e-15)
    assert alibi.mass_beyond(0.3, 10, 10) == 0.0
    assert alibi.mass_beyond(1e-12, 5, 10) == pytest.approx(0.5, abs=1e-9)


# -- key-position form of the causal bias -------------------------------------------------------
@given(st.lists(slopes_st, min_size=1, max_size=4), st.integers(1, 20))
def test_key_position_bias_gives_the_same_causal_weights(ms, L):
    m = np.array(ms)
    a = attention.softmax(alibi.key_position_bias(L, m))
    b = attention.softmax(alibi.bias(L, m, causal=True))
    np.testing.assert_allclose(a, b, atol=1e-12)


def test_key_position_bias_values_and_symmetric_counterexample():
    b = alibi.key_position_bias(3, 0.5)
    np.testing.assert_array_equal(b, [[0, -np.inf, -np.inf], [0, 0.5, -np.inf], [0, 0.5, 1.0]])
    full = np.where(np.isinf(b), 1.0, b)  # the same trick without the mask is not symmetric ALiBi
    assert not np.allclose(attention.softmax(full), alibi.weights(3, 0.5, causal=False))


# -- slopes: the reference rule against two independent re-implementations ----------------------
def _bloom_rule(n):
    # Hugging Face BLOOM's build_alibi_tensor: base^1..P, then extra_base^1,3,5,...
    p = 2 ** math.floor(math.log2(n))
    base = 2 ** (-(2 ** -(math.log2(p) - 3)))
    out = [base ** k for k in range(1, p + 1)]
    if p != n:
        extra = 2 ** (-(2 ** -(math.log2(2 * p) - 3)))
        out += [extra ** k for k in range(1, 1 + 2 * min(p, n - p), 2)]
    return np.array(out)


def _mpt_rule(n, bias_max=8):
    # MosaicML llm-foundry's gen_slopes: the next power of two, then [1::2] + [::2], truncated
    big = 2 ** math.ceil(math.log2(n))
    s = 1.0 / 2 ** (np.arange(1, big + 1) * bias_max / big)
    if big != n:
        s = np.concatenate([s[1::2], s[::2]])[:n]
    return s


@pytest.mark.parametrize("n", list(range(1, 130)))
def test_reference_slopes_match_bloom_and_mpt_rules(n):
    np.testing.assert_allclose(alibi.slopes(n), _bloom_rule(n), rtol=1e-13)
    np.testing.assert_allclose(alibi.slopes(n), _mpt_rule(n), rtol=1e-13)


def test_bloom_176b_slopes():
    s = alibi.slopes(112)  # BLOOM-176B has 112 heads: 64 + 48 in-between slopes
    np.testing.assert_allclose(s[:64], [2 ** (-k / 8) for k in range(1, 65)], rtol=1e-13)
    np.testing.assert_allclose(s[64:], [2 ** (-k / 16) for k in range(1, 96, 2)], rtol=1e-13)


# -- validation ---------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, msg", [
    (lambda: alibi.weights(0, 0.5), ValueError, "seq_len must be >= 1"),
    (lambda: alibi.weights(3, 0.5, scores=np.zeros((2, 2))), ValueError, "do not broadcast"),
    (lambda: alibi.weights(3, 0.5, scores="x"), TypeError, "scores must be a numeric array"),
    (lambda: alibi.distance_profile(0, 0.5), ValueError, "seq_len must be a positive integer"),
    (lambda: alibi.distance_profile(4, "a"), TypeError, "slope must be a real number"),
    (lambda: alibi.distance_profile(4, 0.5, kind="cubic"), ValueError, "kind must be one of"),
    (lambda: alibi.span(-0.5), ValueError, "slopes must be >= 0"),
    (lambda: alibi.span(0.5, 1.0), ValueError, "ratio must be < 1, got 1.0"),
    (lambda: alibi.span(0.5, 0.0), ValueError, "ratio must be > 0"),
    (lambda: alibi.span([[0.5]]), ValueError, "slopes must be a scalar or a 1-D array"),
    (lambda: alibi.mass_beyond(-0.1, 1, 4), ValueError, "slope must be >= 0"),
    (lambda: alibi.mass_beyond(0.1, 5, 4), ValueError, r"distance must be <= seq_len \(4\), got 5"),
    (lambda: alibi.mass_beyond(0.1, 1.5, 4), TypeError, "distance must be a non-negative integer"),
    (lambda: alibi.key_position_bias(-1, 0.5), ValueError, "seq_len must be a non-negative"),
    (lambda: alibi.key_position_bias(3, [[0.5]]), ValueError, "slopes must be a scalar or a 1-D"),
])
def test_weights_profile_span_and_mass_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
