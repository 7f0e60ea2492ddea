"""Quick check of chapter 7."""

from __future__ import annotations

import math

import numpy as np

from .. import quiz, relative
from ..figures import relative as _relative_figures

# Q2: T5's bucket of a key 40 positions before the query (defaults: 32 buckets, max_distance 128)
_D, _N = 128, 40
_B = 32 // 2          # buckets per side
_M = _B // 2          # exact buckets
_SCALED = math.log(_N / _M) / math.log(_D / _M) * (_B - _M)        # 4.64
_BUCKET = int(relative.t5_bucket(np.array([-_N]), True, 32, _D)[0])  # 12
_LOG_OF_D = _M + math.floor(math.log(_N / _M) / math.log(_D) * (_B - _M))  # 10
_RANGE = next(r for r in relative.t5_bucket_ranges(32, _D, True, 300) if r[0] == _BUCKET)
assert _BUCKET == _M + math.floor(_SCALED) and _LOG_OF_D < _BUCKET and _RANGE[2] < 0

# Q3: Shaw et al.'s table index of some offsets with k = 4 (query at position 50)
_K = 4
_IDS = relative.shaw_relative_ids(101, _K)[50]
_SHAW = {off: int(_IDS[50 + off]) for off in (-50, -5, -4, -3, -1, 3)}
_CLIPPED = _SHAW[-5] - _K  # the offset both far keys are clipped to
assert _SHAW[-50] == _SHAW[-5] and _SHAW[-3] != _SHAW[3] and _SHAW[-1] != _SHAW[-4]

# Q5: the ranges of the four terms of the sinusoidal logit in the chapter's demo
_SHIFTS = tuple(range(16))
_TERMS = {name: float(np.ptp(v))
          for name, v in _relative_figures.pair_logit_terms(shifts=_SHIFTS).items()}

QUIZ = quiz.quiz(
    quiz.question(
        "GPT-2 small has a 1024-row position table (positions 0 to 1023). What happens if you "
        "feed it 1025 tokens?",
        quiz.option("Row 1024 is extrapolated from the last rows.", False,
                    "There is nothing to extrapolate with: every row is a free parameter, trained "
                    "only by examples long enough to reach it. No rule links row 1023 to a row "
                    "1024."),
        quiz.option("It runs, a little less accurately.", False,
                    "It does not run at all. The model needs the vector of position 1024 and the "
                    "table has none, so the lookup fails before attention sees anything."),
        quiz.option("The lookup fails: there is no row 1024.", True,
                    "Each row is an independent trained parameter and nothing defines row 1024. "
                    "In practice the input is truncated to 1024 tokens or cut into windows."),
        kind="predict",
    ),
    quiz.question(
        f"T5's encoder with the defaults: 32 buckets (B = {_B} per side, m = {_M} exact), "
        f"max_distance D = {_D}. Which bucket does a key {_N} positions *before* the query use? "
        f"(ln {_N // _M} ≈ {math.log(_N / _M):.3f}, ln {_D // _M} ≈ {math.log(_D / _M):.3f})",
        quiz.option(f"{_LOG_OF_D}", False,
                    f"You divided by ln D = ln {_D} instead of ln(D/m) = ln {_D // _M}: "
                    f"{_M} + ⌊ln {_N // _M} / ln {_D} · {_B - _M}⌋ = {_LOG_OF_D}. The log-spaced buckets "
                    f"start at n = m, so both logarithms are taken relative to m: "
                    f"{_M} + ⌊{_SCALED:.2f}⌋ = {_BUCKET}."),
        quiz.option(f"{_BUCKET}", True,
                    f"n = {_N} ≥ m, so the bucket is m + ⌊ln(n/m) / ln(D/m) · (B − m)⌋ = "
                    f"{_M} + ⌊ln {_N // _M} / ln {_D // _M} · {_B - _M}⌋ = {_M} + ⌊{_SCALED:.2f}⌋ = {_BUCKET}. "
                    f"The key is before the query (j − i = −{_N} < 0), so nothing is added. The "
                    f"bucket table in the chapter agrees: bucket {_BUCKET} holds the offsets "
                    f"−{-_RANGE[1]} to −{-_RANGE[2]}."),
        quiz.option(f"{_BUCKET + 1}", False,
                    f"You rounded {_SCALED:.2f} up to {round(_SCALED)}. T5 truncates: ⌊{_SCALED:.2f}⌋ = "
                    f"{math.floor(_SCALED)}, so the bucket is {_M} + {math.floor(_SCALED)} = "
                    f"{_BUCKET}."),
        quiz.option(f"{_BUCKET + _B}", False,
                    f"{_BUCKET + _B} = {_BUCKET} + {_B} is the bucket of a key {_N} positions "
                    f"*after* the query. The upper half is for j − i > 0; here j − i = −{_N}, "
                    f"so the answer is {_BUCKET}."),
        kind="compute",
    ),
    quiz.question(
        "With Shaw et al.'s clipping distance k = 4, what can the position term of a head NOT "
        "tell apart?",
        quiz.option("A key 3 positions before the query from one 3 after it.", False,
                    f"Those are the offsets −3 and +3, indices {_SHAW[-3]} and {_SHAW[3]} of the "
                    f"table: two different vectors. Shaw et al.'s offsets keep their sign."),
        quiz.option("A key 5 positions before the query from one 50 before.", True,
                    f"Both offsets are clipped to −{-_CLIPPED}, so both keys use the same vector "
                    f"(index {_SHAW[-5]}). Only the content of the two keys can still separate "
                    f"them."),
        quiz.option("A key 1 position before the query from one 4 before.", False,
                    f"Both offsets lie within ±{_K}, so each has a vector of its own (indices "
                    f"{_SHAW[-1]} and {_SHAW[-4]}). Clipping merges only the offsets beyond "
                    f"±{_K}."),
    ),
    quiz.question(
        "Why are T5's buckets exact near the query and wider and wider further away?",
        quiz.option("Log-spaced buckets make the bias decay with distance.", False,
                    "The buckets only decide which offsets share a learned value. The values "
                    "themselves are free to rise or fall with distance."),
        quiz.option("The L×L bias matrix would not fit in memory without them.", False,
                    "The bias is an L×L matrix either way. The buckets reduce the number of "
                    "learned values, not the size of that matrix."),
        quiz.option("Offsets 1, 2, 3 differ in meaning; 101, 102, 103 hardly.", True,
                    "Each bucket costs one learned number per head, so T5 spends them where "
                    "the resolution matters (nearby words) and gives far keys a few coarse "
                    "categories."),
    ),
    quiz.question(
        "A random head reads sinusoids added to its input. The pair man → threw moves 3 words "
        "to the right. Which of the four terms of its logit can change?",
        quiz.option("Both mixed terms and the position–position term.", True,
                    f"All three terms that contain a position can change. In the chapter's demo "
                    f"({len(_SHIFTS)} shifts) the content–position term varies over a range of "
                    f"{_TERMS['content–position']:.2f}, the position–content term over "
                    f"{_TERMS['position–content']:.2f}, and the position–position term over "
                    f"{_TERMS['position–position']:.2f}. Only the content–content term stays "
                    f"fixed."),
        quiz.option("Only the mixed terms: position–position is offset-only.", False,
                    f"The dot product PE(i)·PE(j) depends only on the offset, but the head "
                    f"computes PE(i) W_Q · PE(j) W_K. For a general head that depends on i and j "
                    f"separately (chapter 6): in the demo this term varies the most, over a "
                    f"range of {_TERMS['position–position']:.2f}."),
        quiz.option("Only the position–position term.", False,
                    f"The mixed terms contain one position each, so they move too: over ranges "
                    f"of {_TERMS['content–position']:.2f} and {_TERMS['position–content']:.2f} "
                    f"in the demo. Only the content–content term is free of positions."),
        kind="predict",
    ),
)
