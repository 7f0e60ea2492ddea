"""Chapter 4 (sine and cosine together): the claims the chapter makes, checked with independent
computations (plain math/numpy, not the library), and the rules its quiz must follow.

The checkers' correct and wrong answers live in ``tests/exercises_cases/ch04.py``.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from posenc_lib.course import quizzes
from posenc_lib.course.figures import naive
from posenc_lib.maths import encodings, periodicity

CHAPTER = 4


def _rounded_pair_collisions(values: np.ndarray) -> Counter:
    """Offsets q - p of all pairs p < q whose rows agree after rounding to 3 decimals."""
    keys = [tuple(np.round(np.atleast_1d(v), 3) + 0.0) for v in values]
    groups: dict[tuple, list[int]] = {}
    for p, key in enumerate(keys):
        groups.setdefault(key, []).append(p)
    return Counter(q - p for g in groups.values() for i, p in enumerate(g) for q in g[i + 1:])


def test_only_the_near_period_710_survives_and_why():
    pos = np.arange(1001)
    pair = np.stack([np.sin(pos), np.cos(pos)], axis=1)
    offsets = _rounded_pair_collisions(pair)
    assert set(offsets) == {710} and offsets[710] == 266
    # a pair collision needs the points within sqrt(2) * 0.001; only 710 turns that close
    miss = {k: abs(math.remainder(k, 2 * math.pi)) for k in range(1, 1001)}
    assert [k for k, m in miss.items() if m < math.sqrt(2) * 1e-3] == [710]
    assert miss[333] > 6 * math.sqrt(2) * 1e-3 and miss[377] > 6 * math.sqrt(2) * 1e-3
    # the sine alone also collides 333 and 377 apart, and first at (11, 55)
    sine = _rounded_pair_collisions(np.sin(pos))
    assert sine[333] > 0 and sine[377] > 0 and sum(sine.values()) == 1141
    first = min((q, p) for p in range(56) for q in range(p + 1, 56)
                if round(math.sin(p), 3) == round(math.sin(q), 3))
    assert first == (55, 11)


def test_the_circle_holds_about_8000_cells_at_3_decimals():
    theta = np.linspace(0, 2 * math.pi, 3_000_000, endpoint=False)
    cells = np.unique(np.round(np.stack([np.sin(theta), np.cos(theta)], 1), 3) + 0.0, axis=0)
    assert abs(len(cells) - 8000) <= 10


def test_lone_sine_counterexample_and_mirror_pair():
    assert abs(math.sin(2) - math.sin(math.pi - 2)) < 1e-15
    assert abs(math.sin(3) - math.sin(math.pi - 1)) > 0.7
    assert round(math.sin(2), 4) == round(math.sin(353), 4)      # "agree to four decimals"
    assert round(math.sin(2), 5) != round(math.sin(353), 5)      # ... but not to five
    assert abs(math.sin(2) - math.sin(353)) < 2e-5
    assert math.cos(2) * math.cos(353) < 0                       # a mirror pair


def test_shift_matrix_orientation_for_sine_first():
    a = 0.2
    R = encodings.shift_matrix(a, [1.0])
    assert np.allclose(R, [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    s, c = R @ np.array([math.sin(0.3), math.cos(0.3)])
    assert math.atan2(s, c) > 0.3                                # counter-clockwise, cos across


def test_explorer_static_grid_has_the_positions_the_text_asks_for():
    ex = naive.rotation_explorer()
    grids = {p.name: p.grid for p in ex.params}
    assert 11 in grids["p"]                      # "try p = 11": mirror and PE(p) nearly coincide
    assert {1, 3, 5} <= set(grids["k"])          # "keep k = 1", "set k = 3 and k = 5"
    assert 2 * abs(math.cos(11)) < 0.01


def test_quiz_follows_the_book_rules():
    q = quizzes.chapter(CHAPTER)
    kinds = Counter(x.kind for x in q.questions)
    assert kinds["predict"] + kinds["compute"] >= 1
    longest = shortest = 0
    for x in q.questions:
        (c,) = x.correct_indices
        texts = [o.text for o in x.options]
        lengths = [len(t) for t in texts]
        longest += lengths[c] == max(lengths)
        shortest += lengths[c] == min(lengths)
    assert longest <= len(q.questions) / 3 and shortest <= len(q.questions) / 3
    # the d = 512 question: copies do not change the count
    assert periodicity.count_collisions(encodings.alternating(1001, 512), 3) == 266
