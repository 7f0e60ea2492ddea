"""posenc_lib.maths.relative: learned tables, Shaw et al.'s relative keys, T5 buckets (and
their ranges), the T5 bias, and attention logits with positions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.maths import encodings, relative
from posenc_lib.maths.relative import (
    learned_table,
    lookup,
    shaw_relative_ids,
    shaw_scores,
    t5_bias,
    t5_bucket,
)

# ---------------------------------------------------------------------------------------------
# Learned absolute table
# ---------------------------------------------------------------------------------------------


def test_learned_table_is_seeded_normal_with_requested_std():
    t = learned_table(512, 64, seed=3, scale=0.02)
    assert t.shape == (512, 64)
    np.testing.assert_array_equal(t, learned_table(512, 64, seed=3, scale=0.02))
    assert not np.allclose(t, learned_table(512, 64, seed=4, scale=0.02))
    # 32768 draws: the sample std is within ~1% of sigma, the mean within a few sigma/sqrt(N)
    assert abs(t.std() / 0.02 - 1.0) < 0.03
    assert abs(t.mean()) < 5 * 0.02 / math.sqrt(t.size)
    # scale multiplies the same draw
    np.testing.assert_allclose(learned_table(512, 64, seed=3, scale=1.0) * 0.02, t, rtol=1e-12)


def test_lookup_returns_the_rows_asked_for():
    table = np.arange(12.0).reshape(4, 3)  # row p is [3p, 3p+1, 3p+2]
    out = lookup(table, [[3, 0], [1, 1]])
    expected = np.array([[[9.0, 10.0, 11.0], [0.0, 1.0, 2.0]],
                         [[3.0, 4.0, 5.0], [3.0, 4.0, 5.0]]])
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(lookup(table, 2), [6.0, 7.0, 8.0])


def test_lookup_past_the_end_raises_the_familiar_error():
    table = learned_table(512, 8)
    with pytest.raises(ValueError) as exc:
        lookup(table, np.arange(600))
    assert str(exc.value) == (
        "position 512 is out of range for a learned table with max_len=512 (valid positions 0..511)"
    )
    lookup(table, [0, 511])  # the edges are fine


def test_lookup_rejects_negative_positions_instead_of_wrapping():
    table = np.arange(12.0).reshape(4, 3)
    with pytest.raises(ValueError, match=r"position -1 is out of range .*max_len=4 .*0\.\.3"):
        lookup(table, [0, -1])


def test_lookup_and_table_argument_errors():
    with pytest.raises(TypeError, match="positions must be integers"):
        lookup(np.zeros((4, 2)), [0.5])
    with pytest.raises(ValueError, match=r"table must be 2-D .*got shape \(2, 2, 2\)"):
        lookup(np.zeros((2, 2, 2)), [0])
    with pytest.raises(ValueError, match="max_len must be a positive integer, got 0"):
        learned_table(0, 4)
    with pytest.raises(TypeError, match="d must be a positive integer, got 4.0"):
        learned_table(4, 4.0)
    with pytest.raises(ValueError, match="scale must be >= 0, got -1"):
        learned_table(4, 4, scale=-1)


# ---------------------------------------------------------------------------------------------
# Shaw et al. (2018)
# ---------------------------------------------------------------------------------------------


def test_shaw_relative_ids_by_hand():
    # k = 2: id = clip(j - i, -2, 2) + 2. Row i = 0 has j - i = 0, 1, 2, 3 -> 2, 3, 4, 4(clipped);
    # row 3 has j - i = -3, -2, -1, 0 -> 0(clipped), 0, 1, 2.
    expected = np.array([[2, 3, 4, 4],
                         [1, 2, 3, 4],
                         [0, 1, 2, 3],
                         [0, 0, 1, 2]])
    ids = shaw_relative_ids(4, 2)
    np.testing.assert_array_equal(ids, expected)
    assert np.issubdtype(ids.dtype, np.integer)
    # k = 0: every pair shares the single vector
    np.testing.assert_array_equal(shaw_relative_ids(3, 0), np.zeros((3, 3), dtype=int))
    # k >= L - 1: no clipping, ids are j - i + k
    np.testing.assert_array_equal(shaw_relative_ids(3, 5),
                                  [[5, 6, 7], [4, 5, 6], [3, 4, 5]])


def _shaw_loop(q, k, a, kmax):
    seq, d = q.shape
    out = np.empty((seq, seq))
    for i in range(seq):
        for j in range(seq):
            r = min(max(j - i, -kmax), kmax)
            out[i, j] = sum(q[i, c] * (k[j, c] + a[r + kmax, c]) for c in range(d)) / math.sqrt(d)
    return out


@pytest.mark.parametrize("seq,d,kmax", [(6, 4, 2), (5, 3, 0), (4, 8, 7)])
def test_shaw_scores_match_double_loop(seq, d, kmax):
    rng = np.random.default_rng(seq * 100 + kmax)
    q = rng.normal(size=(2, 3, seq, d))  # (batch, heads, L, d)
    k = rng.normal(size=(2, 3, seq, d))
    a = rng.normal(size=(2 * kmax + 1, d))
    got = shaw_scores(q, k, a, kmax)
    assert got.shape == (2, 3, seq, seq)
    for b in range(2):
        for h in range(3):
            np.testing.assert_allclose(got[b, h], _shaw_loop(q[b, h], k[b, h], a, kmax),
                                       rtol=1e-12, atol=1e-12)


def test_shaw_scores_structure():
    rng = np.random.default_rng(0)
    seq, d, kmax = 7, 4, 2
    q = rng.normal(size=(seq, d))
    k = rng.normal(size=(seq, d))
    # zero relative vectors: plain scaled dot products
    np.testing.assert_allclose(shaw_scores(q, k, np.zeros((5, d)), kmax), q @ k.T / 2.0,
                               rtol=1e-12)
    # same query everywhere, zero keys: the score depends only on clip(j - i) -> Toeplitz,
    # and constant beyond the clipping distance
    qc = np.tile(rng.normal(size=d), (seq, 1))
    a = rng.normal(size=(5, d))
    e = shaw_scores(qc, np.zeros((seq, d)), a, kmax)
    per_offset = a @ qc[0] / 2.0  # score for clipped offset -2..2
    for i in range(seq):
        for j in range(seq):
            assert e[i, j] == pytest.approx(per_offset[min(max(j - i, -2), 2) + 2], rel=1e-12)


def test_shaw_scores_argument_errors():
    q = np.zeros((4, 3))
    with pytest.raises(ValueError, match=r"rel_keys must have shape .* = \(5, 3\), got \(4, 3\)"):
        shaw_scores(q, q, np.zeros((4, 3)), 2)
    with pytest.raises(ValueError, match="same length"):
        shaw_scores(q, np.zeros((5, 3)), np.zeros((5, 3)), 2)
    with pytest.raises(ValueError, match="last dimension"):
        shaw_scores(q, np.zeros((4, 2)), np.zeros((5, 3)), 2)
    with pytest.raises(ValueError, match="max_distance must be a non-negative integer, got -1"):
        shaw_relative_ids(4, -1)


# ---------------------------------------------------------------------------------------------
# T5 buckets
# ---------------------------------------------------------------------------------------------

# Bidirectional, 32 buckets, max_distance 128: B = 16 buckets per direction, m = 8 exact.
#   0 -> 0 (r = 0 is not > 0, lower half); -1 -> 1; +1 -> 16 + 1 = 17; -7 -> 7.
#   n >= 8: 8 + floor(ln(n/8) / ln(16) * 8) = 8 + floor(2 log2(n/8)):
#     n = 8  -> 8 + 0 = 8;   n = 11 -> 2 log2(1.375) = 0.92 -> 8;
#     n = 12 -> 2 log2(1.5) = 1.17 -> 9
#     n = 16 -> 8 + 2 = 10;  n = 22 -> 2 log2(2.75) = 2.92 -> 10;   n = 23 -> 3.05 -> 11
#     n = 32 -> 8 + 4 = 12;  n = 45 -> 4.98 -> 12;  n = 46 -> 5.05 -> 13;  n = 64 -> 8 + 6 = 14
#     n = 90 -> 6.98 -> 14;  n = 91 -> 7.02 -> 15;  n = 128 -> 8 + 8 = 16, capped at 15; 200 -> 15
#   positive offsets add 16: +8 -> 24, +16 -> 26, +91 -> 31, +200 -> 31.
BIDI_32_128 = {
    0: 0, -1: 1, 1: 17, -7: 7, 7: 23,
    -8: 8, -11: 8, -12: 9, -15: 9, -16: 10, -22: 10, -23: 11, -31: 11, -32: 12,
    -45: 12, -46: 13, -63: 13, -64: 14, -90: 14, -91: 15, -127: 15, -128: 15, -200: 15, -10**6: 15,
    8: 24, 11: 24, 12: 25, 16: 26, 22: 26, 23: 27, 32: 28, 46: 29, 64: 30, 90: 30,
    91: 31, 128: 31, 200: 31, 10**6: 31,
}


# Unidirectional, 32 buckets, 128: B = 32, m = 16; r > 0 -> n = 0 -> bucket 0.
#   n >= 16: 16 + floor(16 ln(n/16) / ln 8):
#     n = 18 -> 16 * 0.1178 / 2.0794 = 0.91 -> 16;  n = 19 -> 16 * 0.1719 / 2.0794 = 1.32 -> 17
#     n = 32 -> 16/3 = 5.33 -> 21;  n = 64 -> 32/3 = 10.67 -> 26;
#     n = 100 -> 16 ln 6.25 / ln 8 = 14.1 -> 30;  n = 112 -> 16 ln 7 / ln 8 = 14.97 -> 30;
#     n = 113 -> 15.04 -> 31;  n = 128 -> 16 + 16 = 32, capped at 31
UNI_32_128 = {
    0: 0, 1: 0, 5: 0, 300: 0, -1: 1, -15: 15, -16: 16, -18: 16, -19: 17, -32: 21, -64: 26,
    -100: 30, -112: 30, -113: 31, -128: 31, -1000: 31,
}


@pytest.mark.parametrize("bidirectional,table", [(True, BIDI_32_128), (False, UNI_32_128)])
def test_t5_bucket_hand_values(bidirectional, table):
    offsets = np.array(list(table))
    got = t5_bucket(offsets, bidirectional=bidirectional, num_buckets=32, max_distance=128)
    assert np.issubdtype(got.dtype, np.integer)
    np.testing.assert_array_equal(got, [table[o] for o in offsets])


def test_t5_bucket_small_config_by_hand():
    # bidirectional, 8 buckets, max_distance 16: B = 4 per side, m = 2 exact (n = 0, 1);
    # n >= 2: 2 + floor(ln(n/2) / ln(8) * 2): n = 2,3,4,5 -> 2 (2 ln(2.5)/ln 8 = 0.88),
    # n = 6 -> 2 ln 3 / ln 8 = 1.06 -> 3, n = 7 -> 1.20 -> 3, n = 16 -> 4 capped at 3;
    # positive offsets add 4.
    offsets = np.arange(-7, 8)
    expected = [3, 3, 2, 2, 2, 2, 1, 0, 5, 6, 6, 6, 6, 7, 7]
    np.testing.assert_array_equal(t5_bucket(offsets, True, 8, 16), expected)


def _t5_bucket_scalar(r: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """Independent re-implementation: scalar, pure Python, float64 math.log, searched by loop."""
    if bidirectional:
        per_side = num_buckets // 2
        base = per_side if r > 0 else 0
        n = abs(r)
    else:
        per_side = num_buckets
        base = 0
        n = -r if r < 0 else 0
    exact = per_side // 2
    if n < exact:
        return base + n
    # the largest bucket b in [exact, per_side - 1] whose lower edge
    # exact * (max_distance / exact) ** ((b - exact) / (per_side - exact)) is <= n
    bucket = exact
    for b in range(exact, per_side):
        if math.log(n / exact) * (per_side - exact) >= (b - exact) * math.log(max_distance / exact):
            bucket = b
    return base + bucket


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance",
                         [(32, 128), (16, 64), (64, 256), (8, 20), (10, 100), (33, 128)])
def test_t5_bucket_matches_independent_scalar_version(bidirectional, num_buckets, max_distance):
    offsets = np.arange(-300, 301)
    got = t5_bucket(offsets, bidirectional, num_buckets, max_distance)
    want = [_t5_bucket_scalar(int(r), bidirectional, num_buckets, max_distance) for r in offsets]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets,max_distance", [(32, 128), (16, 40), (64, 1000)])
def test_t5_bucket_monotone_in_distance_within_a_sign(bidirectional, num_buckets, max_distance):
    past = t5_bucket(-np.arange(0, 2000), bidirectional, num_buckets, max_distance)
    assert np.all(np.diff(past) >= 0)
    assert past[0] == 0
    assert past[-1] == (num_buckets // 2 if bidirectional else num_buckets) - 1
    future = t5_bucket(np.arange(1, 2000), bidirectional, num_buckets, max_distance)
    assert np.all(np.diff(future) >= 0)
    if bidirectional:
        # the future uses the upper half, the past the lower one
        assert future.min() > past.max()
        assert future.max() == num_buckets - 1 - (num_buckets % 2)
        # symmetry: +n and -n differ exactly by the half size
        np.testing.assert_array_equal(future - past[1:], num_buckets // 2)
    else:
        assert np.all(future == 0)


def test_t5_bucket_argument_errors():
    with pytest.raises(TypeError, match="relative_position must be integers"):
        t5_bucket([0.5])
    with pytest.raises(ValueError, match="num_buckets must be >= 4 when bidirectional=True.*got 3"):
        t5_bucket(0, True, 3, 10)
    with pytest.raises(ValueError, match=r"max_distance must be > max_exact = 8 .*got 8"):
        t5_bucket(0, True, 32, 8)
    with pytest.raises(TypeError, match="bidirectional must be a bool, got 1"):
        t5_bucket(0, 1)
    with pytest.raises(ValueError, match="num_buckets must be a positive integer, got 0"):
        t5_bucket(0, False, 0, 10)


# ---------------------------------------------------------------------------------------------
# T5 bias
# ---------------------------------------------------------------------------------------------


def test_t5_bias_looks_up_bucket_of_key_minus_query():
    # 8 buckets bidirectional / max_distance 16 (buckets derived above); values = 10 * bucket
    values = 10.0 * np.arange(8)
    bias = t5_bias(4, values, bidirectional=True, num_buckets=8, max_distance=16)
    # B[i, j] = 10 * bucket(j - i); bucket(0)=0, (-1)=1, (-2)=(-3)=2, (+1)=5, (+2)=(+3)=6
    expected = np.array([[0, 50, 60, 60],
                         [10, 0, 50, 60],
                         [20, 10, 0, 50],
                         [20, 20, 10, 0]], dtype=float)
    np.testing.assert_array_equal(bias, expected)


def test_t5_bias_per_head_and_toeplitz():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(3, 32))
    bias = t5_bias(40, values)
    assert bias.shape == (3, 40, 40)
    for h in range(3):
        np.testing.assert_array_equal(bias[h], t5_bias(40, values[h]))
        # depends on j - i only
        for off in range(-39, 40):
            diag = np.diagonal(bias[h], offset=off)
            assert np.all(diag == values[h, t5_bucket(off)])
    # decoder form: every key after the query shares bucket 0 with the diagonal
    dec = t5_bias(5, np.arange(32.0), bidirectional=False)
    assert np.all(dec[np.triu_indices(5)] == 0.0)
    np.testing.assert_array_equal(np.diagonal(dec, offset=-3), [3.0, 3.0])


def test_t5_bias_argument_errors():
    with pytest.raises(ValueError,
                       match=r"bucket_values must have shape .*num_buckets=32, got shape \(16,\)"):
        t5_bias(4, np.zeros(16))
    with pytest.raises(ValueError, match="got shape"):
        t5_bias(4, np.zeros((2, 2, 32)))
    with pytest.raises(ValueError, match="seq_len must be a non-negative integer, got -1"):
        t5_bias(-1, np.zeros(32))


# -- t5_bucket_ranges ----------------------------------------------------------------------------
def test_t5_ranges_default_config_by_hand():
    # B = 16 buckets per direction, m = 8 exact ones, D = 128: the log-spaced buckets start at
    # the distances 8 * (128/8)^(k/8) = 8 * 2^(k/2) = 8, 11.3, 16, 22.6, 32, 45.3, 64, 90.5
    edges = [8 * 2 ** (k / 2) for k in range(8)]
    starts = [math.ceil(e) for e in edges]  # first integer distance of each bucket
    ranges = relative.t5_bucket_ranges(32, 128, True, max_offset=300)
    after = [r for r in ranges if r[0] >= 16]
    before = [r for r in ranges if r[0] < 16]
    # exact buckets: distance n -> bucket n (before) and 16 + n (after, n >= 1)
    assert before[:8] == [(n, -n, -n) for n in range(8)]
    assert after[:7] == [(16 + n, n, n) for n in range(1, 8)]
    # log buckets: ranges between consecutive edges, the last one open to the scan's end
    for k in range(8):
        last = starts[k + 1] - 1 if k < 7 else 300
        assert before[8 + k] == (8 + k, -last, -starts[k])
        assert after[7 + k] == (24 + k, starts[k], last)
    assert len(ranges) == 31  # bucket 16 would be "after the query at distance 0": never used


def test_t5_ranges_causal_and_small_config():
    ranges = relative.t5_bucket_ranges(8, 20, bidirectional=False, max_offset=50)
    # B = 8, m = 4 exact; edges 4 * 5^(k/4): 4, 5.98, 8.94, 13.37 -> starts 4, 6, 9, 14
    assert ranges == [(0, 0, 50), (1, -1, -1), (2, -2, -2), (3, -3, -3),
                      (4, -5, -4), (5, -8, -6), (6, -13, -9), (7, -50, -14)]


@given(st.sampled_from([8, 16, 32, 64]), st.integers(40, 300), st.booleans())
def test_t5_ranges_partition_the_offsets(num_buckets, max_distance, bidirectional):
    ranges = relative.t5_bucket_ranges(num_buckets, max_distance, bidirectional, 200)
    covered = sorted(o for _, lo, hi in ranges for o in range(lo, hi + 1))
    assert covered == list(range(-200, 201))  # contiguous, disjoint, complete
    for b, lo, hi in ranges:
        assert set(relative.t5_bucket(np.arange(lo, hi + 1), bidirectional, num_buckets,
                                      max_distance)) == {b}


def test_t5_ranges_validation():
    with pytest.raises(ValueError, match="max_offset must be a positive integer, got 0"):
        relative.t5_bucket_ranges(max_offset=0)
    with pytest.raises(ValueError, match="max_distance must be > max_exact = 8"):
        relative.t5_bucket_ranges(32, 8)


# -- logits --------------------------------------------------------------------------------------
def _loop_logits(x, wq, wk, p, b):
    L, d = x.shape
    out = np.empty((L, L))
    for i in range(L):
        for j in range(L):
            qi = (x[i] + p[i]) @ wq
            kj = (x[j] + p[j]) @ wk
            out[i, j] = sum(qi[c] * kj[c] for c in range(wq.shape[1])) / math.sqrt(wq.shape[1])
            out[i, j] += b[i, j]
    return out


def test_logits_match_loop():
    rng = np.random.default_rng(11)
    x, p = rng.standard_normal((2, 5, 6))
    wq, wk = rng.standard_normal((2, 6, 4))
    b = rng.standard_normal((5, 5))
    np.testing.assert_allclose(relative.logits(x, wq, wk, p, b), _loop_logits(x, wq, wk, p, b),
                               atol=1e-12)
    np.testing.assert_allclose(relative.logits(x, wq, wk),
                               _loop_logits(x, wq, wk, 0 * p, 0 * b), atol=1e-12)


@given(st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_relative_bias_gives_a_pair_the_same_logit_anywhere(shift, seed):
    # "a man threw" vs "<shift filler tokens> a man threw": the man -> threw logit is unchanged
    rng = np.random.default_rng(seed)
    d = 8
    words = rng.standard_normal((3, d))
    filler = rng.standard_normal((shift, d))
    wq, wk = rng.standard_normal((2, d, d))
    values = rng.standard_normal(32)
    x0, x1 = words, np.vstack([filler, words])
    e0 = relative.logits(x0, wq, wk, bias=relative.t5_bias(3, values))
    e1 = relative.logits(x1, wq, wk, bias=relative.t5_bias(3 + shift, values))
    assert e1[shift + 1, shift + 2] == pytest.approx(e0[1, 2], abs=1e-9)


def test_absolute_encoding_changes_the_pair_logit():
    rng = np.random.default_rng(1)
    d = 16
    words = rng.standard_normal((3, d))
    wq, wk = rng.standard_normal((2, d, d))
    pe = encodings.sinusoidal(8, d)
    e0 = relative.logits(words, wq, wk, absolute=pe[:3])
    x1 = np.vstack([rng.standard_normal((5, d)), words])
    e1 = relative.logits(x1, wq, wk, absolute=pe)
    assert abs(e1[6, 7] - e0[1, 2]) > 0.1


def test_logits_validation():
    x = np.zeros((3, 4))
    w = np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"w_q and w_k must both have shape \(d, d_k\) with d=4"):
        relative.logits(x, w, np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"absolute must have the shape of x \(3, 4\), got \(2, 4\)"):
        relative.logits(x, w, w, absolute=np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"bias must have shape \(L, L\) = \(3, 3\), got \(3, 4\)"):
        relative.logits(x, w, w, bias=np.zeros((3, 4)))
    with pytest.raises(ValueError, match="x must be 2-D"):
        relative.logits(np.zeros((2, 3, 4)), w, w)
