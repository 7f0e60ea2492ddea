"""Quick check of chapter 9: ALiBi's weight ratio, m = 0, extrapolation, slope rules, |i − j|.

Every number quoted in the feedback is computed here with :mod:`posenc_lib.maths.alibi`.
"""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...maths import alibi, attention

# Q1: m = 1/4, keys at distances 2 and 6: the weight ratio is e^(m·4) = e, whatever the length
_M1 = 0.25
_NEAR1, _FAR1 = 2, 6
_RATIO1 = math.exp(_M1 * (_FAR1 - _NEAR1))
_HALVING1 = math.log(2) / _M1          # distance over which a weight halves
for _L1 in (7, 20, 500):
    _row1 = alibi.distance_profile(_L1, _M1)
    assert abs(_row1[_NEAR1] / _row1[_FAR1] - _RATIO1) < 1e-9 * _RATIO1
assert abs(_RATIO1 - math.e) < 1e-12 and abs(_HALVING1 - 2.77) < 0.005

# Q3: doubling the context 1024 -> 2048 barely moves the nearest weights, even for m = 1/256
_NEAR = 16
_CHANGE = {float(m): float(np.max(np.abs(alibi.distance_profile(2048, float(m))[:_NEAR]
                                         / alibi.distance_profile(1024, float(m))[:_NEAR] - 1)))
           for m in alibi.slopes(8)}
_GENTLE = float(alibi.slopes(8)[-1])
assert max(_CHANGE.values()) == _CHANGE[_GENTLE] < 0.02
_FAR_SHARE = alibi.mass_beyond(_GENTLE, 1024, 2048)   # keys 1024 or more tokens back

# Q4: 12 heads, reference rule against the naive 2^(-8h/12)
_REF12, _NAIVE12 = alibi.slopes(12), alibi.geometric_slopes(12)
_CHANGED = int(np.sum(~np.isclose(_REF12, _NAIVE12, rtol=1e-9)))
_SHARED = sorted({float(a) for a in _REF12 for b in _NAIVE12 if np.isclose(a, b, rtol=1e-9)},
                 reverse=True)
assert _CHANGED == 12 and len(_SHARED) == 4
_H9 = 8  # 0-based index of head 9
_H9_RATIO = float(_REF12[_H9] / _NAIVE12[_H9])
assert np.isclose(_REF12[_H9], 2 ** -0.5) and np.isclose(_NAIVE12[_H9], 2.0 ** -6)  # as quoted

# Q5: an encoder's bias written as -m(i - j): which query's row survives the bug?
_L5, _M5 = 7, 0.5
_LAST, _MID = _L5 - 1, _L5 // 2
_i, _j = np.arange(_L5)[:, None], np.arange(_L5)[None, :]
_W_RIGHT = alibi.weights(_L5, _M5, causal=False)
_W_WRONG = attention.softmax(-_M5 * (_i - _j).astype(float))
_ROW_GAP = np.max(np.abs(_W_WRONG - _W_RIGHT), axis=1)
assert _ROW_GAP[_LAST] < 1e-15 and np.all(_ROW_GAP[:_LAST] > 0.1)   # only the last row survives
assert int(np.argmax(_W_WRONG[0])) == _LAST and int(np.argmax(_W_WRONG[_MID])) == _LAST
# "the bug gives every row the same weights, softmax of m·j"
assert np.allclose(_W_WRONG, attention.softmax(_M5 * np.arange(float(_L5)))[None, :], atol=1e-15)


def _frac(m: float) -> str:
    return f"1/{1 / m:.0f}"


QUIZ = quiz.quiz(
    quiz.question(
        f"An ALiBi head has slope m = {_frac(_M1)}, and all content scores are equal. Key A is "
        f"{_NEAR1} tokens before the query, key B is {_FAR1} tokens before it. How many times "
        "larger is A's attention weight than B's?",
        quiz.option(f"About {_RATIO1:.2f} times: {_FAR1 - _NEAR1} more steps, each a factor "
                    f"e^(−{_frac(_M1)})", True,
                    f"B is {_FAR1 - _NEAR1} steps farther, and every step multiplies the weight "
                    f"by e^(−m). So w_A / w_B = e^({_FAR1 - _NEAR1}·{_frac(_M1)}) = e¹ ≈ "
                    f"{_RATIO1:.3f}. The softmax's denominator is the same for both keys, so "
                    "the ratio does not depend on how many keys the row has."),
        quiz.option(f"{_FAR1 // _NEAR1} times: key B is {_FAR1 // _NEAR1} times as far from the "
                    "query as A", False,
                    "That would hold if the weight were inversely proportional to distance. "
                    "ALiBi subtracts m·dist from the score, so what counts is the *difference* "
                    f"of the distances ({_FAR1 - _NEAR1} steps), each costing a factor e^(−m)."),
        quiz.option(f"2 times: a weight halves every 1/m = {1 / _M1:.0f} tokens of distance",
                    False,
                    f"1/m = {1 / _M1:.0f} is where the factor falls to 1/e ≈ {math.exp(-1):.2f}, "
                    f"not to ½. Halving takes ln 2/m ≈ {_HALVING1:.2f} tokens, so over "
                    f"{_FAR1 - _NEAR1} tokens the weight falls by more than 2: by e ≈ "
                    f"{_RATIO1:.2f}."),
        quiz.option("It depends on the sequence length, through the softmax's sum", False,
                    "Both weights are divided by the same sum Z of the row, so Z cancels in "
                    f"w_A / w_B = e^(−{_frac(_M1)}·{_NEAR1}) / e^(−{_frac(_M1)}·{_FAR1}). A "
                    "longer row makes both weights smaller, never their ratio."),
        kind="compute",
    ),
    quiz.question(
        "A causal decoder uses ALiBi with every slope set to 0. Which statement is right?",
        quiz.option("It still extrapolates like ALiBi: a zero bias is defined at any distance.",
                    False,
                    "A bias of 0 at every distance carries no information about distance. "
                    "Whatever such a model does on long inputs, it is not ALiBi's mechanism "
                    "(chapter 10 measures it)."),
        quiz.option("It is completely order-blind, exactly like a bidirectional head.", False,
                    "The causal mask breaks the symmetry: each token sees a different number of "
                    "predecessors. Chapter 1 measured that a causal head is not "
                    "permutation-equivariant."),
        quiz.option("It is a decoder with no position encoding; only its mask carries order.",
                    True,
                    "With m = 0 the bias vanishes and the scores are pure content: a NoPE "
                    "decoder. The mask remains, and a token that sees 5 predecessors can behave "
                    "differently from one that sees 50; that is all the order information "
                    "left."),
    ),
    quiz.question(
        "Why does a model trained with ALiBi on 1024 tokens still work on 2048-token inputs?",
        quiz.option("Unseen distances get the same straight-line penalty, so far keys get tiny "
                    "weights.", True,
                    "Nothing about a longer input is new to the bias: −m·1500 is just more of "
                    "−m·dist, and the extra keys are far away. Even for the gentlest head "
                    f"(m = {_frac(_GENTLE)}), doubling the context from 1024 to 2048 lowers each "
                    f"of its {_NEAR} nearest keys' weights by only "
                    f"{100 * _CHANGE[_GENTLE]:.1f}%; steeper heads change less."),
        quiz.option("Its per-distance biases are learned in training and carry over smoothly to "
                    "longer distances.", False,
                    "ALiBi learns nothing for position: the slopes are fixed before training. "
                    "(The learned tables of chapter 7 clip instead: every distance beyond the "
                    "last bucket reuses that bucket's one learned value, so they say nothing new "
                    "about far distances.)"),
        quiz.option("The slow exponential decay lets each head use all 2048 tokens equally well.",
                    False,
                    "It does the opposite: far keys are suppressed by the factor e^(−m·dist). "
                    "That suppression is why long inputs look familiar, and it is also ALiBi's "
                    "cost: even the gentlest head sends only "
                    f"{_FAR_SHARE:.3f} of its attention to keys 1024 or more tokens back."),
    ),
    quiz.question(
        "You load a 12-head checkpoint trained with the reference slopes into code that uses "
        "2^(−8h/12). What goes wrong?",
        quiz.option("Nothing serious: both rules give about the same range of slopes.",
                    False,
                    f"The ranges are close (reference {_REF12.max():.2f} to {_frac(_REF12.min())}, "
                    f"naive {_NAIVE12.max():.2f} to {_frac(_NAIVE12.min())}), but each head was "
                    "trained with its own slope. Head 9, trained with 2^(−0.5) ≈ "
                    f"{_REF12[_H9]:.2f}, would get 2^(−6) ≈ {_NAIVE12[_H9]:.3f}: its reach "
                    f"grows {_H9_RATIO:.0f}-fold."),
        quiz.option("Each head gets a slope it was not trained with: its reach changes.",
                    True,
                    "Queries and keys were learned together with one slope per head. Here all "
                    f"{_CHANGED} heads change: only {len(_SHARED)} values ("
                    + ", ".join(_frac(v) for v in _SHARED)
                    + ") occur in both lists, and always at different heads."),
        quiz.option("The code fails when loading the weights, as 12 is not a power of two.",
                    False,
                    "2^(−8h/12) can be evaluated for any H, and the slopes are not stored in "
                    "the checkpoint; that is why the mistake goes unnoticed. Only the numbers "
                    "are wrong."),
        kind="predict",
    ),
    quiz.question(
        f"An encoder (no mask) computes its bias as −m·(i − j), forgetting the absolute value. "
        f"With m = {_M5:g}, {_L5} tokens (positions 0 to {_LAST}) and equal content scores, "
        "which query's row of attention weights still comes out exactly right?",
        quiz.option(f"The row of the last query, position {_LAST}", True,
                    f"Query {_LAST} has no keys after it, so i − j ≥ 0 for all its keys and "
                    "−m·(i − j) = −m·|i − j|: its row is unchanged. In fact the bug gives "
                    "*every* row the same weights, softmax of m·j (the row constant −m·i drops "
                    "out), and that is the right row only for the last query. A decoder's mask "
                    "hides every key after the query, which is why decoders never show the "
                    "bug."),
        quiz.option(f"The row of the middle query, position {_MID}", False,
                    "The middle query has keys on both sides, and the bug treats them "
                    "differently: keys after it get +m·(j − i). Its weights change by up to "
                    f"{_ROW_GAP[_MID]:.2f}, and the last key, not the query, gets the most "
                    f"({_W_WRONG[_MID][-1]:.3f})."),
        quiz.option("The row of the first query, position 0", False,
                    "For query 0 every key lies after it, so the bias becomes +m·j and the "
                    "farther a key, the *more* weight it gets: the last key takes "
                    f"{_W_WRONG[0][-1]:.3f} instead of {_W_RIGHT[0][-1]:.3f}."),
        quiz.option("None: the bug changes every row", False,
                    f"Look at the last query, position {_LAST}: it has no keys after it, so "
                    "i − j is never negative there and equals |i − j|. Its row is exactly "
                    "right."),
        kind="predict",
    ),
)
