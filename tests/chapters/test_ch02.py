"""Chapter 2 (the integer position): the claims its prose rests on, its quiz and its checkers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib.course import exercises, quizzes, toy
from posenc_lib.maths import encodings


# -- the claims of "Size or spacing?" and "What size does break" ------------------------------
@settings(max_examples=50, deadline=None)
@given(st.integers(2, 64), st.floats(-1e3, 1e3), st.integers(0, 2**31 - 1))
def test_layer_norm_centring_erases_a_constant_position(d, pos, seed):
    e = np.random.default_rng(seed).standard_normal(d)

    def layer_norm(x):
        c = x - x.mean()
        return c / c.std()

    assert np.allclose(layer_norm(e + pos), layer_norm(e), atol=1e-6 * (1 + abs(pos)))


@given(st.integers(1, 64), st.floats(-1e4, 1e4))
def test_removing_the_ones_direction_removes_the_integer_encoding(d, pos):
    remove_ones = np.eye(d) - np.ones((d, d)) / d
    assert np.allclose(remove_ones @ np.full(d, pos), 0.0, atol=1e-9 * (1 + abs(pos)))


def test_nearest_word_score_ignores_a_common_shift_but_not_the_spacing():
    words, labels, vectors = toy.clustered_vocabulary(d=16)
    order = np.random.default_rng(0).permutation(len(words))
    x, lab = vectors[order], labels[order]
    pe = encodings.integer(len(words), 16)
    with_int = toy.nearest_neighbour_agreement(x + pe, lab)
    assert toy.nearest_neighbour_agreement(x + 1000 + pe, lab) == with_int
    assert with_int < 0.5                                   # spacing 4 scrambles the clusters
    assert toy.nearest_neighbour_agreement(x + 0.01 * (1000 + pe), lab) == 1.0   # spacing 0.04


def test_first_normalised_position_never_needs_the_length():
    for n in (1, 2, 5, 500):
        assert encodings.normalized_integer(n, 3)[0].tolist() == [0.0] * 3
    assert encodings.normalized_integer(5, 1)[1, 0] != encodings.normalized_integer(6, 1)[1, 0]


# -- the quiz (positions of the correct options are the library's business) -------------------
def _correct(q):
    (k,) = q.correct_indices
    return q.options[k]


def test_quiz_kinds_and_lengths():
    qs = quizzes.chapter(2).questions
    assert len(qs) >= 3
    assert sum(q.kind in ("predict", "compute") for q in qs) >= 2
    lens = [([len(o.text) for o in q.options], len(_correct(q).text)) for q in qs]
    longest = sum(c == max(L) for L, c in lens)
    shortest = sum(c == min(L) for L, c in lens)
    assert longest <= len(qs) / 3 and shortest <= len(qs) / 3, (longest, shortest)


def _nearest_word_score(x, lab):
    """Plain numpy: share of tokens whose Euclidean nearest other token has the same label."""
    dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(dist, np.inf)
    return float(np.mean(lab[dist.argmin(1)] == lab))


def test_quiz_numbers_by_hand():
    q1, q2, q3, q4 = quizzes.chapter(2).questions
    assert _correct(q1).text == str(round(10 * math.sqrt(64))) == "80"
    assert {o.text for o in q1.options} == {"8", "80", "640", "6400"}    # √64, 10·64, 100·64
    _, labels, vectors = toy.clustered_vocabulary(d=16)
    norm = np.mean([math.sqrt(sum(v * v for v in row)) for row in vectors])
    first = next(p for p in range(1, 10**4) if 0.002 * p * 4 > norm)
    assert _correct(q2).text == str(first) == "105"
    assert "It is a quarter of the way" in _correct(q3).text
    assert "100 at L = 401" in _correct(q3).feedback          # 0.25 · 400 = position 100
    # Q4: the vocabulary's order (sorted by cluster) with positions 0..17, by hand
    pos = np.arange(18.0)[:, None]
    sorted_score = _nearest_word_score(vectors + pos, labels)
    shuffled = np.random.default_rng(0).permutation(18)
    assert "33%" in q4.prompt and _nearest_word_score(vectors[shuffled] + pos,
                                                      labels[shuffled]) == 6 / 18
    assert _correct(q4).text.startswith("It rises")
    assert f"{100 * sorted_score:.0f}%" in _correct(q4).feedback and sorted_score > 0.75


# -- the checkers: the upside-down ratio gets its hint first ----------------------------------
def test_upside_down_ratio_is_named_in_the_first_message():
    report = exercises.check_norm_ratio(
        lambda w, p: np.linalg.norm(w, axis=1) / np.linalg.norm(p, axis=1))
    assert "upside down" in report.messages[0]
    assert "inf or NaN" not in report.text()


@pytest.mark.parametrize("answer", [
    lambda L: np.arange(L) / L,                                   # never divides by zero
    lambda L: np.full(L, np.nan),                                 # NaN without dividing
    lambda L: np.zeros((L, 1)),                                   # wrong shape
])
def test_one_token_hint_only_after_a_division_by_zero(answer):
    assert "L - 1 = 0" not in exercises.check_normalized_positions(answer).text()


def test_inf_for_one_token_gets_the_guard_hint_not_the_positions_hint():
    text = exercises.check_normalized_positions(
        lambda L: np.array([np.inf]) if L == 1 else np.arange(L) / (L - 1)).text()
    assert "L - 1 = 0" in text and "from 1 to L" not in text


def test_float16_is_named_only_when_it_fails():
    ok = exercises.check_normalized_positions(lambda L: np.linspace(0, 1, L).astype(np.float32))
    assert ok.ok and "float16" not in ok.text()
    bad = exercises.check_norm_ratio(
        lambda w, p: (np.linalg.norm(p, axis=1) / np.linalg.norm(w, axis=1)).astype(np.float16))
    assert not bad.ok and "float16" in bad.text()
