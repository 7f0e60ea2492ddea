"""Quick check of chapter 8 (RoPE)."""

from __future__ import annotations

import math

import numpy as np

from .. import quiz, rope

# Q1: the angle of pair i = 2 at position 5, d = 8, base 10000 (and what the usual slips give)
_D, _POS, _PAIR = 8, 5, 2
_THETA = rope.angles(1.0, _D)                                   # theta_0 .. theta_3
_RIGHT = float(rope.angles(float(_POS), _D)[_PAIR])             # 5 * 10000^(-4/8) = 0.05
_FROM_ONE = float(_POS * _THETA[_PAIR + 1])                     # frequencies counted from i = 1
_POS_PLUS_ONE = float((_POS + 1) * _THETA[_PAIR])               # positions counted from 1
_I_NOT_2I = float(_POS * 10000.0 ** (-_PAIR / _D))              # exponent i/d instead of 2i/d
assert _FROM_ONE < _RIGHT < _POS_PLUS_ONE < _I_NOT_2I
assert math.isclose(_RIGHT, 0.05) and math.isclose(_THETA[_PAIR], 0.01)

# Q2: one frequency, 90° per position: a key 3 and a key 7 positions away get the same turn
_QUARTER = math.pi / 2
_Q, _K = np.array([0.6, -0.2]), np.array([0.3, 0.9])
_S3, _S7 = (float(_Q @ rope.rotate_2d(_K, dist, _QUARTER)) for dist in (3, 7))
assert abs(_S3 - _S7) < 1e-12

# Q3: adjacent-pair weights in rotate-half code, d = 8: which coordinates keep their frequency
_DH = 8
_SLOTS = np.arange(_DH)
_TRAINED_PAIR = _SLOTS // 2                                     # adjacent layout: pair of slot j
_CODE_PAIR = _SLOTS % (_DH // 2)                                # what rotate-half code assumes
_SAME_FREQ = [int(j) for j in _SLOTS[_TRAINED_PAIR == _CODE_PAIR]]
_TRAINED_PARTNER = _SLOTS ^ 1
_CODE_PARTNER = (_SLOTS + _DH // 2) % _DH
_WRONG_PARTNER = int(np.sum(_TRAINED_PARTNER != _CODE_PARTNER))
assert _SAME_FREQ == [0, _DH - 1] and _WRONG_PARTNER == _DH

# Q4: independent random q, k (d = 128): mean and spread of q·R_r k at r = 1 and r = 10000
_DR, _DRAWS = 128, 4000
_RNG = np.random.default_rng(2024)
_QR, _KR = _RNG.standard_normal((2, _DRAWS, _DR))
_STATS = {}
for _r in (1, 10000):
    _s = np.sum(_QR * rope.apply(_KR, positions=np.full(_DRAWS, float(_r))), axis=1)
    _STATS[_r] = (float(_s.mean()), float(_s.std()))
_ALIGNED_10K = float(rope.all_ones_score(10000.0, _DR))         # k = q: expected score / d
_BOUND_10K = float(rope.decay_bound(10000.0, _DR) / rope.decay_bound(0.0, _DR))
assert all(abs(m) < 1.5 and abs(s / math.sqrt(_DR) - 1) < 0.05 for m, s in _STATS.values())

# Q5: the chapter's head (seed 5): shift the sentence by 7 with and without rotated values
_RNG5 = np.random.default_rng(5)
_X6 = _RNG5.standard_normal((6, 16))
_WQ, _WK, _WV = _RNG5.standard_normal((3, 16, 16)) / 4
_P6 = np.arange(6.0)
_CHANGE = {}
for _rv in (False, True):
    _o0, _w0 = rope.rope_attention(_X6, _WQ, _WK, _WV, _P6, rotate_values=_rv)
    _o7, _w7 = rope.rope_attention(_X6, _WQ, _WK, _WV, _P6 + 7, rotate_values=_rv)
    _CHANGE[_rv] = (float(np.max(np.abs(_o7 - _o0))), float(np.max(np.abs(_w7 - _w0))))
assert _CHANGE[False][0] < 1e-12 and _CHANGE[True][0] > 1.0 and _CHANGE[True][1] < 1e-12

QUIZ = quiz.quiz(
    quiz.question(
        f"RoPE with head dimension d = {_D} and base b = 10000 has pairs i = 0 … {_D // 2 - 1}. "
        f"By what angle does pair i = {_PAIR} of the token at position {_POS} turn?",
        quiz.option(f"{_FROM_ONE:.3f} rad", False,
                    f"That is {_POS} · θ_{_PAIR + 1}: you counted the pairs from 1, so pair "
                    f"{_PAIR} got the next, slower frequency. The pairs are numbered from 0: "
                    f"θ_{_PAIR} = 10000^(−{2 * _PAIR}/{_D}) = {_THETA[_PAIR]:.2f}."),
        quiz.option(f"{_RIGHT:.2f} rad", True,
                    f"θ_{_PAIR} = b^(−2i/d) = 10000^(−{2 * _PAIR}/{_D}) = {_THETA[_PAIR]:.2f}, "
                    f"and the token at position {_POS} turns by {_POS} · {_THETA[_PAIR]:.2f} = "
                    f"{_RIGHT:.2f} radians."),
        quiz.option(f"{_POS_PLUS_ONE:.2f} rad", False,
                    f"That is {_POS + 1} · θ_{_PAIR}: you counted positions from 1. The token "
                    f"at position p turns by p · θ_i, so the first token (p = 0) is not rotated "
                    f"and this one turns by {_RIGHT:.2f} rad."),
        quiz.option(f"{_I_NOT_2I:.1f} rad", False,
                    f"You used the exponent i/d = {_PAIR}/{_D} instead of 2i/d = "
                    f"{2 * _PAIR}/{_D}: 10000^(−{_PAIR}/{_D}) = "
                    f"{10000.0 ** (-_PAIR / _D):.2f}, times {_POS} gives {_I_NOT_2I:.1f}. The "
                    f"exponent 2i/d counts coordinates, two per pair, as in chapter 6."),
        kind="compute",
    ),
    quiz.question(
        "A toy RoPE has a single pair turning 90° per position. Two keys with the same content "
        "sit 3 and 7 positions after a query. How do their scores compare?",
        quiz.option("The key 7 positions away scores lower.", False,
                    "With one frequency nothing makes the score fall with distance: it only "
                    "depends on the angle, and 7 · 90° = 630° is the same direction as "
                    "3 · 90° = 270° (they differ by a full turn)."),
        quiz.option("The two scores are exactly equal.", True,
                    f"The keys turn by 3 · 90° = 270° and 7 · 90° = 630° = 270° + 360° relative "
                    f"to the query: the same direction, so the same score (with a sample q and "
                    f"k: {_S3:+.3f} and {_S7:+.3f}). One frequency cannot tell offsets 4 apart; "
                    f"many frequencies together can."),
        quiz.option("The scores have opposite signs.", False,
                    "Opposite signs would need the keys to be turned half a circle (180°) "
                    "apart. Their turns differ by 4 · 90° = 360°, a whole circle, so they point "
                    "the same way."),
        kind="predict",
    ),
    quiz.question(
        "You load weights trained with adjacent pairs into code that uses rotate-half. What "
        "happens?",
        quiz.option("It stops with a shape error.", False,
                    "Both conventions use d coordinates and d/2 angles, so every shape matches. "
                    "That is exactly why this bug is dangerous: nothing complains."),
        quiz.option("Nothing: both conventions are the same maths.", False,
                    "They are the same maths up to a permutation of the coordinates. Trained "
                    "weights have fixed which coordinate is which, so with the other "
                    "convention the rotation mixes the wrong coordinates."),
        quiz.option("It runs, but off-diagonal scores are wrong.", True,
                    f"The shapes match, so nothing complains. But every coordinate is rotated "
                    f"with the wrong partner, and most at the wrong frequency (for d = {_DH}, "
                    f"all {_WRONG_PARTNER} coordinates get a wrong partner and only coordinates "
                    f"{_SAME_FREQ[0]} and {_SAME_FREQ[1]} keep their frequency). Only the "
                    f"diagonal, where there is no rotation, survives. Permuting the columns of "
                    f"W_Q and W_K fixes it."),
    ),
    quiz.question(
        f"RoFormer's bound on the score shrinks with distance. Draw a query and a key "
        f"*independently* at random (d = {_DR}, standard normal coordinates). What happens to "
        f"their score as the distance grows from 1 to 10000?",
        quiz.option("It averages 0 with an unchanged spread.", True,
                    f"Rotating a random key gives another random key of the same kind, so "
                    f"distance changes nothing: in {_DRAWS} draws the mean is "
                    f"{_STATS[1][0]:+.2f} and {_STATS[10000][0]:+.2f}, the spread "
                    f"{_STATS[1][1]:.1f} and {_STATS[10000][1]:.1f} (√d ≈ "
                    f"{math.sqrt(_DR):.1f}) at distances 1 and 10000. The bound is about fixed "
                    f"content, not random vectors."),
        quiz.option("It shrinks towards 0, as the bound does.", False,
                    f"The bound (down to {_BOUND_10K:.2f} of its start at distance 10000) "
                    f"limits the score of *fixed* content at different distances. For "
                    f"independent random q and k the score averages 0 with a spread of about "
                    f"√d ≈ {math.sqrt(_DR):.1f} at every distance."),
        quiz.option("Its average falls from high to near 0.", False,
                    f"That is what happens when the key equals the query (k = q): the expected "
                    f"score then follows the all-ones curve, d · ({_ALIGNED_10K:+.3f}) at "
                    f"distance 10000. Independent q and k average 0 at every distance, "
                    f"distance 1 included."),
        quiz.option("It averages 0, but its spread shrinks.", False,
                    f"The spread does not shrink: it stays about √d ≈ {math.sqrt(_DR):.1f} "
                    f"({_STATS[1][1]:.1f} at distance 1, {_STATS[10000][1]:.1f} at 10000 in "
                    f"{_DRAWS} draws), because a rotated random key is just as random."),
        kind="predict",
    ),
    quiz.question(
        "A head rotates its values as well as its queries and keys. Seven words are added in "
        "front of the sentence. What happens to the head's outputs?",
        quiz.option("Nothing: the attention weights are unchanged.", False,
                    f"The weights are indeed unchanged (they only see offsets), but each output "
                    f"mixes values that are now turned by their new absolute positions. In the "
                    f"chapter's head the outputs moved by up to {_CHANGE[True][0]:.2f}."),
        quiz.option("They change, though the weights do not.", True,
                    f"The weights depend only on offsets, so they stay the same (to within "
                    f"1e-12). The values, though, are turned by their absolute positions, and "
                    f"the output mixes them: in the chapter's head the outputs moved by up to "
                    f"{_CHANGE[True][0]:.2f}. Without rotated values they do not move at all."),
        quiz.option("Only the first seven outputs change.", False,
                    "Every value moves 7 positions, so every value is turned by 7 more steps "
                    "and every output changes. Position is absolute again for all tokens, not "
                    "just the first ones."),
        kind="predict",
    ),
)
