"""Chapter 7 additions to posenc_lib.maths.relative: T5 bucket ranges and logits with positions."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib.course import toy
from posenc_lib.maths import encodings, relative


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


# -- the man -> threw demo (figures.relative) -------------------------------------------------------
from posenc_lib.course.figures import relative as relative_figures  # noqa: E402


def test_pair_logit_terms_add_up_to_the_sinusoidal_logit():
    shifts = list(range(0, 16, 3))
    terms = relative_figures.pair_logit_terms(shifts=shifts)
    logits = relative_figures.pair_logits_by_shift(shifts=shifts)["sinusoidal (absolute)"]
    np.testing.assert_allclose(sum(terms.values()), logits, atol=1e-12)
    assert np.ptp(terms["content–content"]) == 0.0


def test_pair_logits_follow_the_stated_settings():
    # rebuild the shift-3 sinusoidal, learned and T5 logits from the settings the chapter states:
    # PE/sqrt(d) as in chapter 1, a learned stand-in of standard deviation 1/sqrt(2d)
    d, s = 16, 3
    sentence = list(relative_figures.FILLER[:s]) + ["a", "man", "threw", "a", "ball"]
    words = toy.embed(sentence, d, 0)
    x = words + encodings.sinusoidal(len(sentence), d) / math.sqrt(d)
    wq, wk, _ = toy.projections(d, 0, scale=3.0)
    q, k = x[s + 1] @ wq, x[s + 2] @ wk
    got = relative_figures.pair_logits_by_shift(shifts=(s,))
    assert got["sinusoidal (absolute)"][0] == pytest.approx(q @ k / 4.0, abs=1e-12)
    table = relative.learned_table(25, d, seed=0, scale=1 / math.sqrt(2 * d))
    xl = words + table[:len(sentence)]
    assert got["learned table (absolute)"][0] == pytest.approx(
        (xl[s + 1] @ wq) @ (xl[s + 2] @ wk) / 4.0, abs=1e-12)
    relative_ = got["T5 bias (relative)"][0]
    assert relative_ == pytest.approx(relative_figures.pair_logits_by_shift(shifts=(0,))
                                      ["T5 bias (relative)"][0], abs=1e-12)


def test_pair_logits_by_shift_rejects_too_many_fillers():
    with pytest.raises(ValueError, match="shifts must be at most 20, got 21"):
        relative_figures.pair_logits_by_shift(shifts=(21,))


def test_pair_logit_terms_scale_with_the_encoding():
    # scaling the encoding by c: mixed terms times c, position–position times c², content fixed
    base = relative_figures.pair_logit_terms(shifts=(0, 2, 5), seed=3, pe_scale=0.5)
    big = relative_figures.pair_logit_terms(shifts=(0, 2, 5), seed=3, pe_scale=1.5)
    for name, power in (("content–content", 0), ("content–position", 1),
                        ("position–content", 1), ("position–position", 2)):
        np.testing.assert_allclose(big[name], 3.0 ** power * base[name], atol=1e-12)


def test_word_and_head_recipes_quoted_in_the_chapter():
    # the chapter gives these one-liners so a reader can rebuild the demo without posenc_lib
    import zlib
    for word in ("man", "Threw", "garden"):
        rebuilt = np.random.default_rng([zlib.crc32(word.lower().encode()), 0]).standard_normal(16) / 4
        np.testing.assert_array_equal(toy.word_vector(word, 16, 0), rebuilt)
    w = np.random.default_rng([0, 1234]).standard_normal((3, 16, 16)) * 3 / 4
    wq, wk, _ = toy.projections(16, 0, scale=3.0)
    np.testing.assert_allclose(wq, w[0], atol=1e-15)
    np.testing.assert_allclose(wk, w[1], atol=1e-15)
