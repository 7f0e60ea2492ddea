"""posenc_lib.maths.alibi: slopes by the reference rule, the bias, and the last row of a
five-token example."""

import numpy as np
import pytest

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
