"""Quick check of chapter 4. Every number in the feedback is computed here with the library."""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...maths import encodings, periodicity

# Q1: R(k) for omega = 0.5, k = 2 is the rotation by 1 radian (sine first)
_R = encodings.shift_matrix(2, [0.5])
_C1, _S1 = math.cos(1.0), math.sin(1.0)
assert np.allclose(_R, [[_C1, _S1], [-_S1, _C1]], atol=1e-15)
assert np.allclose(encodings.shift_matrix(-2, [0.5]), [[_C1, -_S1], [_S1, _C1]], atol=1e-15)
_DET_NO_MINUS = _C1 ** 2 - _S1 ** 2                 # det of [[c, s], [s, c]] = cos 2
assert abs(_DET_NO_MINUS - math.cos(2.0)) < 1e-15
_R1 = encodings.shift_matrix(1, [0.5])                 # one step: a turn by 0.5 radian
assert np.allclose(_R1 @ _R1, _R, atol=1e-15)           # R(2) = R(1) · R(1)

# Q2: PE(p)·PE(p + k) = cos k for omega = 1, whatever p
_PE = encodings.alternating(200, 2)
_OFFSETS = (1, 13, 19, 100)
_DOT = {k: float(_PE[50] @ _PE[50 + k]) for k in _OFFSETS}
assert all(abs(_DOT[k] - math.cos(k)) < 1e-12 for k in _OFFSETS)
assert max(_DOT, key=lambda k: _DOT[k]) == 19
_TURNS = {k: k / (2 * math.pi) for k in _OFFSETS}
_WHOLE = {k: round(_TURNS[k]) for k in _OFFSETS}       # the nearest whole number of turns
_MISS = {k: float(periodicity.wrap_error([k])[0]) for k in _OFFSETS}
assert (_WHOLE[13], _WHOLE[19], _WHOLE[100]) == (2, 3, 16)
assert 13 > 2 * math.pi * 2 and 19 > 2 * math.pi * 3 and 100 < 2 * math.pi * 16  # past / short

# Q3: 710 and 333 as near-periods; the pair collides only if its two points are < 0.0014 apart
_POS = np.arange(1001)
_SINE_PAIRS = periodicity.collision_pairs(np.sin(_POS), 3)
_PAIR_PAIRS = periodicity.collision_pairs(encodings.alternating(1001, 2), 3)
_D710, _D333 = (float(periodicity.wrap_error([k])[0]) for k in (710, 333))
_RADIUS = math.sqrt(2) * 1e-3                       # both coordinates within one grid step
assert _D710 < _RADIUS < _D333
_SINE_333 = int(np.sum(_SINE_PAIRS[:, 1] - _SINE_PAIRS[:, 0] == 333))
_PAIR_333 = int(np.sum(_PAIR_PAIRS[:, 1] - _PAIR_PAIRS[:, 0] == 333))
_PAIR_710 = int(np.sum(_PAIR_PAIRS[:, 1] - _PAIR_PAIRS[:, 0] == 710))
assert _SINE_333 > 0 and _PAIR_333 == 0 and _PAIR_710 == len(_PAIR_PAIRS)
_TURNS_333 = round(333 / (2 * math.pi))
assert 333 < 2 * math.pi * _TURNS_333                # "53 turns minus ..."

# Q4: one frequency copied over d = 512 dimensions
_N2 = len(_PAIR_PAIRS)
_N512 = periodicity.count_collisions(encodings.alternating(1001, 512), 3)
_RANK512 = int(np.linalg.matrix_rank(encodings.alternating(100, 512)))
assert _N512 == _N2 and _RANK512 == 2
_WIDE, _NARROW = encodings.alternating(8, 512), encodings.alternating(8, 2)
_D_RATIO = float(np.linalg.norm(_WIDE[7] - _WIDE[3]) / np.linalg.norm(_NARROW[7] - _NARROW[3]))
assert abs(_D_RATIO - math.sqrt(256)) < 1e-12        # "distances grow by √256 = 16"

# Q5: the exact mirror pair 2 and pi - 2, and the near one 2 and 353
_GAP_REAL = abs(math.sin(3.0) - math.sin(math.pi - 1.0))
_GAP_INT_START = abs(math.sin(2.0) - math.sin(353.0))
_GAP_INT_NEXT = abs(math.sin(3.0) - math.sin(354.0))
assert abs(math.sin(2.0) - math.sin(math.pi - 2.0)) < 1e-15


QUIZ = quiz.quiz(
    quiz.question(
        "PE(p) = (sin ωp, cos ωp) with ω = 0.5. Which matrix R, written as [[row 1], [row 2]], "
        "gives PE(p + 2) = R · PE(p) for every p?",
        quiz.option("[[cos 1, sin 1], [−sin 1, cos 1]]", True,
                    "The turn is ω·k = 0.5 · 2 = 1 radian. sin(θ + 1) = sin θ cos 1 + cos θ sin 1 "
                    "gives the first row, cos(θ + 1) = cos θ cos 1 − sin θ sin 1 the second: "
                    f"numerically [[{_R[0, 0]:.3f}, {_R[0, 1]:.3f}], "
                    f"[{_R[1, 0]:.3f}, {_R[1, 1]:.3f}]], with no p anywhere."),
        quiz.option("[[cos 2, sin 2], [−sin 2, cos 2]]", False,
                    "That turns the point by k = 2 radians. The angle of the turn is ω·k = "
                    "0.5 · 2 = 1 radian: you left out the frequency."),
        quiz.option("[[cos 1, −sin 1], [sin 1, cos 1]]", False,
                    "That is the familiar rotation matrix, written for the order (cos, sin). "
                    "Applied to (sin, cos) it turns the other way: it is R(−2), two positions "
                    "*back*. With the sine first, the minus sign moves to the lower-left entry."),
        quiz.option("[[cos 1, sin 1], [sin 1, cos 1]]", False,
                    "The minus sign of cos(a + b) = cos a cos b − sin a sin b is missing. Without "
                    f"it the matrix is not a rotation: its determinant is cos²1 − sin²1 = "
                    f"{_DET_NO_MINUS:.3f}, not 1, so it would squash the circle into an ellipse "
                    "and flip it."),
        quiz.option("[[cos 0.5, sin 0.5], [−sin 0.5, cos 0.5]]", False,
                    "That is one step, a turn by ω = 0.5 radian. Two steps turn twice as far: "
                    "R(2) = R(1) · R(1) is the turn by ω·k = 1 radian."),
        kind="compute",
    ),
    quiz.question(
        "With one frequency, ω = 1, the similarity of two positions k apart is "
        "PE(p)·PE(p + k) = cos k. Which of these offsets k gives the *largest* similarity?",
        quiz.option("k = 1", False,
                    f"The next word scores only cos 1 = {_DOT[1]:.3f}. With one fast frequency "
                    "the neighbour is not special: what counts is how close k is to a whole "
                    f"number of turns (2π ≈ {2 * math.pi:.3f} positions each)."),
        quiz.option("k = 13", False,
                    f"13 positions are {_TURNS[13]:.2f} turns, {_MISS[13]:.3f} radian past "
                    f"{_WHOLE[13]} whole turns: cos 13 = {_DOT[13]:.3f}. One of the others "
                    "lands closer to a whole turn."),
        quiz.option("k = 19", True,
                    f"19 positions are {_TURNS[19]:.3f} turns, only {_MISS[19]:.3f} radian past "
                    f"{_WHOLE[19]} whole turns, so cos 19 = {_DOT[19]:.3f}, against "
                    f"{_DOT[1]:.3f} for the next word. A single frequency measures the offset "
                    "modulo 2π: near and far look alike."),
        quiz.option("k = 100", False,
                    f"100 positions are {_TURNS[100]:.2f} turns, {_MISS[100]:.3f} radian short of "
                    f"{_WHOLE[100]} whole turns: cos 100 = {_DOT[100]:.3f}. Still more similar "
                    "than the next word, but not the most similar."),
        kind="compute",
    ),
    quiz.question(
        "Offsets 333 and 710 are both near-periods of sin p. Once the cosine is added, pairs "
        "710 apart still collide at 3 decimals, pairs 333 apart no longer do. Why?",
        quiz.option("The cosine flips its sign after 333 steps, but not after 710 steps.",
                    False,
                    f"333 positions are {_TURNS_333} turns minus {_D333:.4f} radian: both "
                    "coordinates nearly come back, with no sign change. Opposite cosines are "
                    "what the *mirror* pairs have (p + q near an odd multiple of π)."),
        quiz.option(f"710 steps miss whole turns by {_D710:.5f} rad, 333 steps by {_D333:.3f}.",
                    True,
                    f"A shift misses whole turns by δ(710) = {_D710:.1e} and δ(333) = "
                    f"{_D333:.4f} radian, and moves the point about that far on the circle. To "
                    "round alike, both coordinates must differ by less than 0.001, so the "
                    f"points must be closer than √2 · 0.001 ≈ {_RADIUS:.4f}. With the sine "
                    f"alone, {_SINE_333} pairs 333 apart did collide: near its peaks the sine is "
                    "flat, so the miss hardly shows; the cosine is steep there."),
        quiz.option("The cosine has other near-periods, and 333 is not one.", False,
                    "sin and cos share the period 2π, so they share their near-periods: after "
                    f"333 steps each changes by at most δ(333) = {_D333:.4f}. What separates "
                    "333 from 710 is how *well* they approximate whole turns."),
        kind="concept",
    ),
    quiz.question(
        f"The alternating encoding with d = 2 has {_N2} colliding pairs among positions 0–1000. "
        "You widen it to d = 512, still with the single frequency ω = 1. How many colliding "
        "pairs now?",
        quiz.option("None: 512 coordinates cannot all agree to 3 decimals.", False,
                    "They can, because they are copies: dimensions 2, 4, 6, … repeat dimension "
                    "0, and 3, 5, 7, … repeat dimension 1. Two positions that agree in the first "
                    "pair agree in all of them."),
        quiz.option("Fewer: more dimensions spread the points apart.", False,
                    f"Distances do grow, by √256 = {_D_RATIO:.0f}, because every pair repeats "
                    "the same difference. But a collision compares each coordinate after "
                    "rounding, and the copies round exactly like the first pair: nothing "
                    "changes."),
        quiz.option(f"Still {_N2}: the new dimensions copy the first two.", True,
                    f"Every pair of dimensions holds (sin p, cos p) again: still {_N512} "
                    f"colliding pairs, and the matrix of encodings still has rank {_RANK512} "
                    "— two numbers, tied by sin² + cos² = 1 to a single angle. Chapter 5 gives "
                    "each pair its own frequency."),
        kind="predict",
    ),
    quiz.question(
        "Positions 2 and π − 2 ≈ 1.14 have exactly the same sine. What does this say about a "
        "rule sin(p + 1) = f(sin p) meant to hold for every real position p?",
        quiz.option(f"No f exists: one step on, the sines differ by {_GAP_REAL:.2f}.", True,
                    f"One input, sin 2 = {math.sin(2.0):.3f}, would need two outputs: "
                    f"sin 3 = {math.sin(3.0):.3f} and sin(π − 1) = {math.sin(math.pi - 1.0):.3f}. "
                    "No function does that. (On whole numbers alone all sines differ, but 2 and "
                    f"353 start {_GAP_INT_START:.6f} apart and end {_GAP_INT_NEXT:.3f} apart: no "
                    "rule a finite-precision model could use.)"),
        quiz.option("Some f exists, but attention cannot learn a nonlinear one.", False,
                    "Nonlinearity is not the issue: no function at all sends one input to two "
                    f"different outputs ({math.sin(3.0):.3f} and {math.sin(math.pi - 1.0):.3f}). "
                    "With the cosine added, the rule exists and is even linear: R(1)."),
        quiz.option("Nothing: no token sits at position π − 2.", False,
                    "The formula sin(ωp) is defined for every real p, and the rule was meant to "
                    "hold there too; one counterexample sinks it. Whole numbers give the same "
                    f"picture in practice: sin 2 and sin 353 differ by {_GAP_INT_START:.6f}, "
                    f"sin 3 and sin 354 by {_GAP_INT_NEXT:.3f}."),
        kind="concept",
    ),
)
