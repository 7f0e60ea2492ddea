"""Quick check of chapter 7."""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...maths import relative
from ..figures import relative as _relative_figures

# Q2: T5's bucket of a key 25 positions *after* the query, with 16 buckets and max_distance 64
# (not the defaults, so the chapter's bucket table does not give the answer away)
_NB, _D, _N = 16, 64, 25
_B = _NB // 2         # buckets per side: 8
_M = _B // 2          # exact buckets: 4
_LN2, _LN5 = math.log(2), math.log(5)
_NUM = math.log(_N / _M)                        # ln(25/4) = 2 ln 5 − 2 ln 2
_DEN = math.log(_D / _M)                        # ln(64/4) = 4 ln 2
_SCALED = _NUM / _DEN * (_B - _M)               # 2.64
_SIDE = _M + math.floor(_SCALED)                # 6: the bucket within one side
_BUCKET = int(relative.t5_bucket(np.array([_N]), bidirectional=True, num_buckets=_NB,
                                 max_distance=_D)[0])                       # 14
_BEFORE = int(relative.t5_bucket(np.array([-_N]), bidirectional=True, num_buckets=_NB,
                                 max_distance=_D)[0])                       # 6
_LN_D_SCALED = _NUM / math.log(_D) * (_B - _M)  # 1.76: dividing by ln D instead of ln(D/m)
_LOG_OF_D = _M + math.floor(_LN_D_SCALED) + _B  # 13
_ROUNDED = _M + round(_SCALED) + _B             # 15
assert abs(_NUM - (2 * _LN5 - 2 * _LN2)) < 1e-12 and abs(_DEN - 4 * _LN2) < 1e-12
assert _BUCKET == _SIDE + _B and _BEFORE == _SIDE and _SIDE < _B - 1  # not capped
assert len({_BUCKET, _BEFORE, _LOG_OF_D, _ROUNDED}) == 4

# Q3: Shaw et al.'s table index of some offsets with k = 4 (query at position 50)
_K = 4
_IDS = relative.shaw_relative_ids(101, _K)[50]
_SHAW = {off: int(_IDS[50 + off]) for off in (-50, -5, -4, -3, -1, 3)}
_CLIPPED = _SHAW[-5] - _K  # the offset both far keys are clipped to
assert _SHAW[-50] == _SHAW[-5] and _SHAW[-3] != _SHAW[3] and _SHAW[-1] != _SHAW[-4]

# Q5: the four terms of the sinusoidal logit in the chapter's demo (PE/√d, as in chapter 1),
# with the pair at the start (shift 0) and three words to the right (shift 3)
_T0, _T3 = ({name: float(v[i]) for name, v in
             _relative_figures.pair_logit_terms(shifts=(0, 3)).items()} for i in (0, 1))
assert _T0["content–content"] == _T3["content–content"]
assert all(abs(_T3[n] - _T0[n]) > 0.05 for n in ("content–position", "position–content",
                                                  "position–position"))


def _signed(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def _moved(name: str) -> str:
    return f"from {_signed(_T0[name])} to {_signed(_T3[name])}"


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
        f"T5's encoder with {_NB} buckets (B = {_B} per side, m = {_M} exact) and max_distance "
        f"D = {_D}. Which bucket does a key {_N} positions *after* the query use? "
        f"(ln 2 ≈ {_LN2:.3f}, ln 5 ≈ {_LN5:.3f})",
        quiz.option(f"{_BEFORE}", False,
                    f"{_BEFORE} is the right bucket *within one side*, and the bucket of a key "
                    f"{_N} positions *before* the query. This key is after it (j − i = +{_N} > 0), "
                    f"so it uses the upper half: add B = {_B}, giving {_BUCKET}."),
        quiz.option(f"{_LOG_OF_D}", False,
                    f"You divided by ln D = ln {_D} instead of ln(D/m) = ln {_D // _M}: "
                    f"ln({_N}/{_M}) / ln {_D} · {_B - _M} = {_LN_D_SCALED:.2f}, so the bucket became "
                    f"{_M} + ⌊{_LN_D_SCALED:.2f}⌋ + {_B} = "
                    f"{_LOG_OF_D}. The log-spaced buckets start at n = m, so both logarithms are "
                    f"taken relative to m: {_M} + ⌊{_SCALED:.2f}⌋ + {_B} = {_BUCKET}."),
        quiz.option(f"{_BUCKET}", True,
                    f"n = {_N} ≥ m = {_M}, so within its side the key is in bucket "
                    f"m + ⌊ln(n/m) / ln(D/m) · (B − m)⌋. Here ln(25/4) = 2 ln 5 − 2 ln 2 ≈ "
                    f"{_NUM:.3f} and ln(64/4) = 4 ln 2 ≈ {_DEN:.3f}, so the bucket is "
                    f"{_M} + ⌊{_NUM:.3f} / {_DEN:.3f} · {_B - _M}⌋ = {_M} + ⌊{_SCALED:.2f}⌋ = "
                    f"{_SIDE}. The key is after the query (j − i = +{_N} > 0), so add B = {_B}: "
                    f"{_BUCKET}."),
        quiz.option(f"{_ROUNDED}", False,
                    f"You rounded {_SCALED:.2f} up to {round(_SCALED)}. T5 truncates: "
                    f"⌊{_SCALED:.2f}⌋ = {math.floor(_SCALED)}, so the bucket is {_M} + "
                    f"{math.floor(_SCALED)} + {_B} = {_BUCKET}."),
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
                    f"All three terms that contain a position can change, and in the chapter's "
                    f"demo all three do between shift 0 and shift 3: content–position "
                    f"{_moved('content–position')}, position–content "
                    f"{_moved('position–content')}, position–position "
                    f"{_moved('position–position')}. Only content–content stays at "
                    f"{_signed(_T0['content–content'])}: the two words are the same."),
        quiz.option("Only the mixed terms: position–position is offset-only.", False,
                    f"The dot product PE(i)·PE(j) depends only on the offset, but the head "
                    f"computes `PE(i) @ W_Q` · `PE(j) @ W_K`. For a general head that depends on "
                    f"i and j separately (chapter 6): in the demo this term goes "
                    f"{_moved('position–position')} although the offset stays +1."),
        quiz.option("Only the position–position term.", False,
                    f"The mixed terms contain one position each, so they move too: in the demo "
                    f"content–position goes {_moved('content–position')} and position–content "
                    f"{_moved('position–content')}. Only the content–content term is free of "
                    f"positions."),
        kind="predict",
    ),
)
