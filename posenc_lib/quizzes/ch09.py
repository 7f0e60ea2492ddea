"""Quick check of chapter 9: ALiBi's factor per step, m = 0, extrapolation, slope rules, |i − j|.

Every number quoted in the feedback is computed here with :mod:`posenc_lib.alibi`.
"""

from __future__ import annotations

import math

import numpy as np

from .. import alibi, attention, quiz

# Q1: one step farther multiplies the weight by e^(-m)
_M1 = 0.5
_STEP = math.exp(-_M1)
_LN2 = math.log(2)
assert abs(alibi.weights(5, _M1)[-1][3] / alibi.weights(5, _M1)[-1][4] - _STEP) < 1e-12

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

# Q5: an encoder's bias written as -m(i - j): the middle query of 7 tokens looks at the last key
_L5, _M5 = 7, 0.5
_MID = _L5 // 2
_i, _j = np.arange(_L5)[:, None], np.arange(_L5)[None, :]
_W_RIGHT = alibi.weights(_L5, _M5, causal=False)[_MID]
_W_WRONG = attention.softmax(-_M5 * (_i - _j).astype(float))[_MID]
assert int(np.argmax(_W_WRONG)) == _L5 - 1 and int(np.argmax(_W_RIGHT)) == _MID


def _frac(m: float) -> str:
    return f"1/{1 / m:.0f}"


QUIZ = quiz.quiz(
    quiz.question(
        f"An ALiBi head has slope m = {_M1:g} and all content scores are equal. A key moves one "
        "position farther from the query. What happens to its attention weight (before the row "
        "is renormalised)?",
        quiz.option(f"It falls by {_M1:g}, from w to w − {_M1:g}.", False,
                    f"That is the change of the *score*. The softmax exponentiates scores, so "
                    f"subtracting {_M1:g} from a score multiplies the weight by e^(−{_M1:g}). "
                    f"(A weight below {_M1:g} would even turn negative.)"),
        quiz.option("It is halved, as at every ALiBi step.", False,
                    f"Halving needs a bias step of ln 2 ≈ {_LN2:.3f} per token. With m = {_M1:g} "
                    f"the factor is e^(−{_M1:g}) ≈ {_STEP:.3f}, a little gentler than ½."),
        quiz.option(f"It is multiplied by e^(−{_M1:g}) ≈ {_STEP:.2f}.", True,
                    f"The bias drops by m = {_M1:g}, and the softmax turns a score s into a "
                    f"factor e^s, so the weight gains one more factor e^(−{_M1:g}) ≈ "
                    f"{_STEP:.3f}. One factor per step is exponential decay: a straight line on "
                    "a log axis."),
        quiz.option("It stays the same: only the scores change.", False,
                    "The weights are the softmax of the scores, so changing one score changes "
                    "the weights."),
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
                    f"(m = {_frac(_GENTLE)}), doubling the context from 1024 to 2048 changes the "
                    f"weights of its {_NEAR} nearest keys by at most {100 * _CHANGE[_GENTLE]:.1f}%; "
                    "steeper heads change less."),
        quiz.option("Its per-distance biases are learned in training and carry over smoothly to "
                    "longer distances.", False,
                    "ALiBi learns nothing for position: the slopes are fixed before training. "
                    "Learned per-distance tables (chapter 7) have no entry beyond the distances "
                    "they were trained on."),
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
        quiz.option("Nothing important: both rules give about the same range of slopes.", False,
                    f"The ranges are close (reference {_REF12.max():.2f} to {_frac(_REF12.min())}, "
                    f"naive {_NAIVE12.max():.2f} to {_frac(_NAIVE12.min())}), but each head was "
                    "trained with its own slope. Head 9, trained with 2^(−0.5) ≈ "
                    f"{_REF12[_H9]:.2f}, would get 2^(−6) ≈ {_NAIVE12[_H9]:.3f}: its reach "
                    f"grows {_H9_RATIO:.0f}-fold."),
        quiz.option("Every head gets a slope it was not trained with, so its reach changes.",
                    True,
                    "Queries and keys were learned together with one slope per head. Here all "
                    f"{_CHANGED} heads change: only {len(_SHARED)} values ("
                    + ", ".join(_frac(v) for v in _SHARED)
                    + ") occur in both lists, and always at different heads."),
        quiz.option("The code raises an error at load time: 12 is not a power of two.", False,
                    "2^(−8h/12) can be evaluated for any H; that is why the mistake goes "
                    "unnoticed. Only the numbers are wrong."),
        kind="predict",
    ),
    quiz.question(
        f"An encoder (no mask) computes its bias as −m·(i − j), forgetting the absolute value. "
        f"With m = {_M5:g}, {_L5} tokens and equal content scores, where does the middle query "
        f"(position {_MID}) put most of its attention?",
        quiz.option("On itself, the same as with the bias −m·|i − j|.", False,
                    f"That is what −m·|i − j| gives ({_W_RIGHT[_MID]:.3f} on itself). Without "
                    "the absolute value, keys after the query get a positive bias m·(j − i) "
                    "that grows with distance."),
        quiz.option("Equally on the keys on both sides of itself.", False,
                    "Symmetry needs |i − j|. With (i − j), keys before the query are penalised "
                    "and keys after it rewarded, so the row is lopsided, not balanced."),
        quiz.option("On the last key, the farthest one after itself.", True,
                    "For j > i, −m·(i − j) = +m·(j − i): the farther after the query, the larger "
                    f"the score. The last key gets {_W_WRONG[-1]:.3f}, the query itself only "
                    f"{_W_WRONG[_MID]:.3f}. A decoder never shows this bug, because its mask "
                    "hides every key after the query."),
        kind="predict",
    ),
)
