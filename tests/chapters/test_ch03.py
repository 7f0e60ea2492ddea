"""Chapter 3 (a single sine): the facts the chapter states, its explorer, quiz and hand example.

Counts are recomputed here with plain numpy (rounding and brute-force pair loops), not with
``posenc_lib.maths.periodicity``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lib.course import quizzes
from posenc_lib.course.exercises import ch03 as checkers
from posenc_lib.course.figures import naive

POS = np.arange(1001)


def pairs_of(values: np.ndarray, decimals: int = 3) -> np.ndarray:
    """All p < q with equal rounded values (plain numpy: an equality matrix)."""
    r = np.round(values, decimals) + 0.0
    p, q = np.nonzero(np.triu(r[:, None] == r[None, :], k=1))
    return np.stack([p, q], axis=1)


def count(omega: float) -> int:
    return len(pairs_of(np.sin(omega * POS)))


def test_leftover_pairs_split_into_weaker_near_periods_and_mirror_lines():
    pairs = pairs_of(np.sin(POS))
    diff, total = pairs[:, 1] - pairs[:, 0], pairs.sum(1)
    other = ~((diff == 710) | np.isin(total, [355, 1065, 1775]))
    assert (len(pairs), int(np.sum(diff == 710)), int(other.sum())) == (1141, 279, 129)
    d = diff[other].astype(float)
    t = total[other].astype(float)
    offset_err = np.abs(d - 2 * np.pi * np.round(d / (2 * np.pi)))
    odd = 2 * np.round((t / np.pi - 1) / 2) + 1
    mirror_err = np.abs(t - odd * np.pi)
    period_like = offset_err < mirror_err
    assert (int(period_like.sum()), int((~period_like).sum())) == (65, 64)
    # every "offset 88" pair is a mirror pair (its sum is near an odd multiple of π)
    assert np.all(~period_like[d == 88])


def test_omega_10_collisions_are_multiples_of_71():
    pairs = pairs_of(np.sin(10.0 * POS))
    offsets = pairs[:, 1] - pairs[:, 0]
    assert len(pairs) == 5374 and np.all(offsets % 71 == 0)
    assert abs(10 * 71 - 2 * math.pi * 113) < 1e-4
    # aliased frequencies above 2π on the slider give fewer pairs than ω = 1
    assert all(count(10 ** e) < count(1.0) for e in (0.8, 0.85, 0.9, 0.95))


@pytest.mark.parametrize("eps", [0.0263833, 1e-3, 3e-4, 1e-4, 1e-5])
def test_omega_near_two_pi_samples_like_a_tiny_omega(eps):
    assert count(2 * math.pi + eps) == count(eps)


def test_the_blow_up_near_two_pi_needs_a_tiny_epsilon():
    assert count(10 ** 0.8) < count(1.0) < count(2 * math.pi + 3e-4)
    assert count(2 * math.pi + 1e-5) > 40 * count(1.0)
    assert count(2 * math.pi) == 1001 * 1000 // 2


def test_explorer_grid_reaches_the_slider_value_closest_to_two_pi():
    explorer = naive.single_sine_explorer()
    (param,) = explorer.params
    assert 10 ** 0.8 in param.grid and 10.0 in param.grid and 0.01 in param.grid
    assert [param.fmt(g) for g in param.grid] == ["0.01", "0.03", "0.1", "0.3", "1", "3", "6.31",
                                                  "10"]


def test_hand_example_tells_the_usual_mistakes_apart():
    v = checkers._HAND
    r = np.round(v, 3) + 0.0
    correct = sum(1 for p in range(len(v)) for q in range(p + 1, len(v)) if r[p] == r[q])
    tolerance = sum(1 for p in range(len(v)) for q in range(p + 1, len(v))
                    if abs(v[p] - v[q]) <= 0.0005)
    repeats = len(v) - len(set(r.tolist()))
    trunc = np.trunc(v * 1000) / 1000 + 0.0
    truncated = sum(1 for p in range(len(v)) for q in range(p + 1, len(v))
                    if trunc[p] == trunc[q])
    keys = [f"{x:.3f}" for x in v]  # strings keep -0.000 apart from 0.000
    signed = sum(1 for p in range(len(v)) for q in range(p + 1, len(v)) if keys[p] == keys[q])
    answers = {"correct": correct, "ordered": 2 * correct, "self": correct + len(v),
               "tolerance": tolerance, "repeats": repeats, "truncated": truncated,
               "signed zero": signed}
    assert answers["correct"] == 10 and answers["signed zero"] == 8
    assert len(set(answers.values())) == len(answers), answers


def test_quiz_rules_for_chapter_3():
    q = quizzes.chapter(3)
    kinds = [x.kind for x in q.questions]
    assert "compute" in kinds or "predict" in kinds
    n = len(q.questions)
    longest = sum(len(x.options[x.correct_indices[0]].text) == max(len(o.text) for o in x.options)
                  for x in q.questions)
    shortest = sum(len(x.options[x.correct_indices[0]].text) == min(len(o.text) for o in x.options)
                   for x in q.questions)
    assert longest <= n / 3 and shortest <= n / 3, (longest, shortest)
