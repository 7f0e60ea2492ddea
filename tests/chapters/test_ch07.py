"""Chapter 7 (learned and relative positions): the man -> threw demo rebuilt from the settings
the chapter states, and the one-liners it quotes."""

import math

import numpy as np
import pytest

from posenc_lib.course import toy
from posenc_lib.course.figures import relative as relative_figures
from posenc_lib.maths import encodings, relative


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
