"""Chapter 5 (many frequencies): the facts the chapter's prose and quiz rest on, recomputed with
plain numpy, the chapter's own quiz rules, and its checkers."""

from __future__ import annotations

import math
import re

import numpy as np

from posenc_lib.course import exercises, quizzes
from posenc_lib.maths import encodings, periodicity


def _similarity(omegas: np.ndarray, k: np.ndarray) -> np.ndarray:
    """PE(p)·PE(p+k) / (d/2) = mean over pairs of cos(ω_i k)."""
    return np.cos(np.outer(k, omegas)).mean(axis=1)


def test_linear_similarity_stops_falling_beyond_pi_d():
    d = 64
    k = np.arange(10_001)
    lin = _similarity(1.0 / np.arange(1, d // 2 + 1), k)
    geo = _similarity(10000.0 ** (-2 * np.arange(d // 2) / d), k)
    assert np.allclose(lin, encodings.linear(10_001, d)[0] @ encodings.linear(10_001, d).T / 32,
                       atol=1e-12)
    far = k[k > math.pi * d]
    assert far[0] == 202
    assert lin[754] > 0.3 > 0 > lin[100]          # 754 back looks more alike than 100 back
    assert np.sum(lin[far] > lin[100]) > len(far) / 2
    assert np.sum(geo[far] > geo[100]) == 0
    assert np.argmax(lin <= 0) == 28


def test_near_periods_of_the_linear_schedule():
    # 754 = 2π·120.003: the pairs whose i + 1 divides 120 are back within 0.02 radian
    w = 1.0 / np.arange(1, 33)
    miss = np.abs((754 * w + np.pi) % (2 * np.pi) - np.pi)
    assert [m for m in range(1, 33) if miss[m - 1] < 0.02] == [m for m in range(1, 33)
                                                                if 120 % m == 0]
    # d = 16: 5278 = 2π·840.02 brings all 8 pairs back; it is the closest offset >= 10
    pe = encodings.linear(10_000, 16)
    dist = np.linalg.norm(pe - pe[0], axis=1)
    assert 10 + np.argmin(dist[10:]) == 5278 and dist[5278] < dist[1] / 7
    assert math.lcm(*range(1, 9)) == 840


def test_octave_counts_and_effective_octaves_of_the_linear_schedule():
    lam = 2 * np.pi * np.arange(1, 33)
    assert periodicity.octave_counts(lam).tolist() == [1, 2, 4, 8, 16, 1]
    assert np.floor(np.log2(30)) == np.floor(np.log2(31)) == 4     # pairs 29 and 30
    for d in (16, 64, 512, 1000, 4096):
        assert 3 < periodicity.effective_octaves(2 * math.pi * np.arange(1, d // 2 + 1)) < 5


def test_the_octave_checker_needs_the_tolerance():
    def no_tolerance(lam):
        lam = np.asarray(lam, dtype=float)
        return np.bincount(np.floor(np.log2(lam / lam.min())).astype(int))

    report = exercises.check_octave_counts(no_tolerance)
    assert not report.ok and "add 1e-9" in report.text()
    assert report.passed == report.total - 1          # only the rounding case tells


def test_quiz_of_chapter_5():
    q = quizzes.chapter(5)
    assert len(q.questions) >= 4
    assert {x.kind for x in q.questions} >= {"predict", "compute"}
    longest = shortest = 0
    for x in q.questions:
        lengths = [len(o.text) for o in x.options]
        right = lengths[x.correct_indices[0]]
        longest += right == max(lengths)
        shortest += right == min(lengths)
        for k in range(len(x.options)):
            visible = re.sub(r"<[^>]+>", "", x.feedback_html(k))
            assert "*" not in visible and "$" not in visible
    assert longest <= len(q.questions) / 3 and shortest <= len(q.questions) / 3


def test_float32_linear_encoding_is_accepted_without_a_note():
    # the exercise text says a float32 result is accepted
    import exercises_cases.ch05 as cases

    report = exercises.check_linear_encoding(cases.FLOAT32_PASSES["check_linear_encoding"])
    assert report.ok and not report.notes, report.text()


def test_float32_recipe_that_multiplies_by_the_frequency_is_accepted():
    """The float32 version real code writes (angle = pos * (1/(i+1)) in float32) is off by ~2e-6."""
    def float32_encoding(seq_len, d):
        pos = np.arange(seq_len, dtype=np.float32)[:, None]
        w = (1 / np.arange(1, d // 2 + 1)).astype(np.float32)
        out = np.zeros((seq_len, d), dtype=np.float32)
        out[:, 0::2], out[:, 1::2] = np.sin(pos * w), np.cos(pos * w)
        return out

    exact = np.asarray(float32_encoding(100, 32), dtype=float)
    pos = np.arange(100)[:, None] / np.arange(1, 17)
    assert np.max(np.abs(exact[:, 0::2] - np.sin(pos))) > 1e-6      # float32 really is off
    assert exercises.check_linear_encoding(float32_encoding).ok


def test_octave_counts_hint_names_only_mistakes_no_passed_case_rules_out():
    """Without the 1e-9, and with octaves closed on the right, the rounding case gives the same
    wrong counts; the hand example (exact powers of two) tells the two apart, so each learner
    gets only the hint about their own mistake."""
    def no_eps(lam):
        lam = np.asarray(lam, dtype=float)
        return np.bincount(np.floor(np.log2(lam / lam.min())).astype(int))

    def closed_right(lam):
        ratio = np.asarray(lam, dtype=float) / np.min(lam)
        return np.bincount(np.maximum(np.ceil(np.log2(ratio) - 1e-9) - 1, 0).astype(int))

    report = exercises.check_octave_counts(no_eps).text()
    assert "4 of 5" in report and "add 1e-9" in report and "closed on the right" not in report
    report = exercises.check_octave_counts(closed_right).text()
    assert "closed on the right" in report and "add 1e-9 to log2(ratio) before" not in report
