"""Checkers of chapters 2–5: a correct answer passes, each usual mistake gets its hint."""

import math

import numpy as np
import pytest

from posenc_lib.course import exercises


# -- independent correct answers (written here, not taken from the library) -------------------
def normalized_positions(L):
    return np.zeros(1) if L == 1 else np.arange(L) / (L - 1)


def norm_ratio(w, p):
    return np.sqrt((p ** 2).sum(1)) / np.sqrt((w ** 2).sum(1))


def sine_encoding(L, d, w):
    return np.tile(np.sin(w * np.arange(L))[:, None], (1, d))


def count_collisions(values, decimals):
    r = np.round(values, decimals) + 0.0
    return sum(1 for p in range(len(r)) for q in range(p + 1, len(r)) if r[p] == r[q])


def alternating(L, d):
    return np.array([[math.sin(p) if j % 2 == 0 else math.cos(p) for j in range(d)]
                     for p in range(L)])


def shift_matrix(k, w):
    a = k * w
    return np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])


def linear_encoding(L, d):
    return np.array([[math.sin(p / (j // 2 + 1)) if j % 2 == 0 else math.cos(p / (j // 2 + 1))
                      for j in range(d)] for p in range(L)])


def octave_counts(lam):
    lam = np.asarray(lam, float)
    bins = [int(math.floor(math.log2(x / lam.min()) + 1e-9)) for x in lam]
    return np.bincount(bins)


@pytest.mark.parametrize("checker, answer", [
    (exercises.check_normalized_positions, normalized_positions),
    (exercises.check_norm_ratio, norm_ratio),
    (exercises.check_sine_encoding, sine_encoding),
    (exercises.check_count_collisions, count_collisions),
    (exercises.check_alternating, alternating),
    (exercises.check_pair_shift, shift_matrix),
    (exercises.check_linear_encoding, linear_encoding),
    (exercises.check_octave_counts, octave_counts),
])
def test_correct_answers_pass_and_stubs_return_none(checker, answer):
    report = checker(answer)
    assert report.ok, report.text()
    stub = checker(lambda *args: None)
    assert not stub.ok and "returned None" in stub.text()


@pytest.mark.parametrize("checker, wrong, hint", [
    (exercises.check_normalized_positions, lambda L: np.arange(L) / L, "divide by L - 1, not L"),
    (exercises.check_normalized_positions, lambda L: np.arange(L) / (L - 1),
     "a one-token sentence has L - 1 = 0"),
    (exercises.check_norm_ratio, lambda w, p: norm_ratio(p, w), "upside down"),
    (exercises.check_norm_ratio, lambda w, p: (p ** 2).sum(1) / (w ** 2).sum(1), "square roots"),
    (exercises.check_sine_encoding, lambda L, d, w: sine_encoding(L + 1, d, w)[1:],
     "positions start at 0"),
    (exercises.check_sine_encoding,
     lambda L, d, w: np.tile(np.sin(np.radians(w * np.arange(L)))[:, None], (1, d)), "radians"),
    (exercises.check_sine_encoding, lambda L, d, w: sine_encoding(L, d, 1.0),
     "multiply the position by omega"),
    (exercises.check_count_collisions, lambda v, dec: 2 * count_collisions(v, dec),
     "counted twice"),
    (exercises.check_count_collisions, lambda v, dec: count_collisions(v, dec) + len(v),
     "does not collide with itself"),
    (exercises.check_alternating,
     lambda L, d: np.array([[math.cos(p) if j % 2 == 0 else math.sin(p) for j in range(d)]
                            for p in range(L)]), "sine goes to the even dimensions"),
    (exercises.check_alternating,
     lambda L, d: np.tile([math.sin(j) if j % 2 == 0 else math.cos(j) for j in range(d)], (L, 1)),
     "not the dimension index"),
    (exercises.check_pair_shift, lambda k, w: shift_matrix(k, w).T, "(cos, sin) order"),
    (exercises.check_pair_shift, lambda k, w: shift_matrix(k, 1.0), "k * omega, not k"),
    (exercises.check_linear_encoding,
     lambda L, d: np.array([[math.sin(p / (j + 1)) if j % 2 == 0 else math.cos(p / (j + 1))
                             for j in range(d)] for p in range(L)]),
     "each dimension by its own index"),
    (exercises.check_linear_encoding,
     lambda L, d: np.array([[math.sin(p / (2 * (j // 2) + 2)) if j % 2 == 0
                             else math.cos(p / (2 * (j // 2) + 2)) for j in range(d)]
                            for p in range(L)]), "not 2(i + 1)"),
    (exercises.check_linear_encoding,      # divides by i: 0/0 at position 0, pair 0
     lambda L, d: np.array([[np.sin(np.float64(p) / (j // 2)) if j % 2 == 0
                             else np.cos(np.float64(p) / (j // 2)) for j in range(d)]
                            for p in range(L)]), "count pairs from 1"),
    (exercises.check_octave_counts,
     lambda lam: np.bincount(np.floor(np.log10(np.asarray(lam) / min(lam)) + 1e-9).astype(int)),
     "use log2, not log10"),
    (exercises.check_octave_counts,
     lambda lam: np.bincount(np.floor(np.log2(np.asarray(lam) / lam[0]) + 1e-9).astype(int)),
     "not the first entry"),
])
def test_usual_mistakes_get_their_hint(checker, wrong, hint):
    with np.errstate(all="ignore"):
        report = checker(wrong)
    assert not report.ok
    assert hint in report.text(), report.text()
