"""Quick check of chapter 8 (RoPE).

Every question asks for a small computation or a prediction that the chapter does not spell
out; every number quoted in the feedback is computed below with the library.
"""

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

# Q2: one pair turning 60° per position; a key 4 positions away. Which other distance gives the
# same score for every q and k? Only one a whole number of turns (360°) further.
_STEP_DEG, _BASE_DIST = 60, 4
_CHOICES = (2, 6, 8, 10)
_TURN = {r: r * _STEP_DEG for r in (_BASE_DIST, *_CHOICES)}     # degrees
_SAME = [r for r in _CHOICES if (_TURN[r] - _TURN[_BASE_DIST]) % 360 == 0]
assert _SAME == [10]
_Q2, _K2 = np.array([0.8, 0.3]), np.array([0.2, 0.9])         # a sample query and key
_S2 = {r: float(_Q2 @ rope.rotate_2d(_K2, r, math.radians(_STEP_DEG)))
       for r in (0, _BASE_DIST, *_CHOICES)}
assert abs(_S2[10] - _S2[_BASE_DIST]) < 1e-12
assert abs(float(_Q2 @ rope.rotate_2d(_K2, -_CHOICES[0], math.radians(_STEP_DEG))) - _S2[_BASE_DIST]) < 1e-12
assert all(abs(_S2[r] - _S2[_BASE_DIST]) > 0.05 and abs(_S2[r]) > 0.05 for r in (0, 2, 6, 8))
assert abs(_S2[6] - _S2[0]) < 1e-12 and abs(_S2[8] - _S2[2]) < 1e-12

# Q3: adjacent-pair weights in rotate-half code, d = 8: where coordinate 1 goes, at what speed
_DH, _SLOT = 8, 1
_R_HALF = rope.rotation_matrix(1.0, _DH, pairing="half")        # R_1 of the rotate-half code
_COL = _R_HALF[:, _SLOT].copy()
_COL[_SLOT] = 0.0
_PARTNER = int(np.flatnonzero(_COL)[0])                         # the slot it is mixed with
_FREQ_CODE = float(math.atan2(abs(_R_HALF[_PARTNER, _SLOT]), _R_HALF[_SLOT, _SLOT]))
_R_ADJ = rope.rotation_matrix(1.0, _DH, pairing="interleaved")  # what training assumed
_FREQ_TRAINED = float(math.atan2(abs(_R_ADJ[0, _SLOT]), _R_ADJ[_SLOT, _SLOT]))
_CONVERTED_SLOT = int(np.flatnonzero(rope.pairing_permutation(_DH) == _SLOT)[0])
_SLOTS = np.arange(_DH)
_SAME_FREQ = [int(j) for j in _SLOTS[_SLOTS // 2 == _SLOTS % (_DH // 2)]]
assert _PARTNER == 5 and math.isclose(_FREQ_CODE, _THETA[1]) and _FREQ_TRAINED == 1.0
assert _CONVERTED_SLOT == 4 and _SAME_FREQ == [0, _DH - 1]

# Q4: a key that is the query plus independent noise (d = 128): the average score against r
_DR, _DRAWS = 128, 4000
_RNG = np.random.default_rng(2024)
_QR, _NR = _RNG.standard_normal((2, _DRAWS, _DR))
_KR = _QR + _NR
_MEAN, _INDEP = {}, {}
for _r in (0, 1000, 10000):
    _at = np.full(_DRAWS, float(_r))
    _MEAN[_r] = float(np.mean(np.sum(_QR * rope.apply(_KR, positions=_at), axis=1)))
    _INDEP[_r] = float(np.mean(np.sum(_QR * rope.apply(_NR, positions=_at), axis=1)))
_EXPECT = {r: _DR * float(rope.all_ones_score(float(r), _DR)) for r in _MEAN}   # = k = q curve
_K_SQ = float(np.mean(np.sum(_KR * _KR, axis=1)))               # |k|^2 on average: about 2d
_H_MEAN = float(np.mean(_QR[..., 0::2] ** 2 + _QR[..., 1::2] ** 2))  # E|q_(i)|^2 = 2 per pair
assert abs(_H_MEAN - 2.0) < 0.02
assert all(abs(_MEAN[r] - _EXPECT[r]) < 2.0 for r in _MEAN)
assert all(abs(m) < 2.0 for m in _INDEP.values()) and abs(_K_SQ - 2 * _DR) < 5

# Q5: the chapter's head (seed 5) with rotated values, the same sentence moved 7 positions later
_SHIFT = 7
_RNG5 = np.random.default_rng(5)
_X6 = _RNG5.standard_normal((6, 16))
_WQ, _WK, _WV = _RNG5.standard_normal((3, 16, 16)) / 4
_P6 = np.arange(6.0)
_O0, _W0 = rope.rope_attention(_X6, _WQ, _WK, _WV, _P6, rotate_values=True)
_O7, _W7 = rope.rope_attention(_X6, _WQ, _WK, _WV, _P6 + _SHIFT, rotate_values=True)
_WEIGHTS_GAP = float(np.max(np.abs(_W7 - _W0)))
_TURNED_GAP = float(np.max(np.abs(_O7 - rope.apply(_O0, positions=np.full(6, float(_SHIFT))))))
_LENGTH_GAP = float(np.max(np.abs(np.linalg.norm(_O7, axis=1) - np.linalg.norm(_O0, axis=1))))
_MOVED = float(np.max(np.abs(_O7 - _O0)))
assert max(_WEIGHTS_GAP, _TURNED_GAP, _LENGTH_GAP) < 1e-12 and _MOVED > 1.0

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
        f"A toy RoPE has a single pair that turns {_STEP_DEG}° per position. A key sits "
        f"{_BASE_DIST} positions after the query. At which other distance, also *after* the query, "
        f"would the same key get exactly the same score, *whatever* the query and key are?",
        quiz.option("2 positions", False,
                    f"The key turns {_TURN[2]}° against the query instead of {_TURN[_BASE_DIST]}°: "
                    f"a different direction, so a different score (sample q and k: "
                    f"{_S2[2]:+.3f} against {_S2[_BASE_DIST]:+.3f}). The turn {_TURN[2]}° = "
                    f"−{_TURN[_BASE_DIST]}° + 360° mirrors {_TURN[_BASE_DIST]}°, and a mirror "
                    f"turn gives the same score only for special q and k. (A key {_CHOICES[0]} positions "
                    f"*before* the query would do it: it turns by {-_TURN[2]}° ≡ "
                    f"{360 - _TURN[2]}°, the same turn as distance {_BASE_DIST}. RoPE's offsets "
                    f"are signed.)"),
        quiz.option("6 positions", False,
                    f"{_TURN[6]}° is a whole turn, so the key points as it does at distance 0, "
                    f"not at distance {_BASE_DIST} (sample q and k: {_S2[6]:+.3f}, the same as "
                    f"at distance 0, against {_S2[_BASE_DIST]:+.3f})."),
        quiz.option("8 positions", False,
                    f"Doubling the distance doubles the turn: {_TURN[8]}° = {_TURN[2]}° + 360°, "
                    f"the direction of distance 2, not of distance {_BASE_DIST} (sample q and "
                    f"k: {_S2[8]:+.3f} against {_S2[_BASE_DIST]:+.3f})."),
        quiz.option("10 positions", True,
                    f"{_TURN[10]}° = {_TURN[_BASE_DIST]}° + 360°: one extra full turn, so the "
                    f"key points exactly as it does at distance {_BASE_DIST} and every score is "
                    f"the same (sample q and k: {_S2[10]:+.3f} and {_S2[_BASE_DIST]:+.3f}). A "
                    f"single frequency repeats every 360°/{_STEP_DEG}° = {360 // _STEP_DEG} "
                    f"positions; many frequencies together can tell such distances apart."),
        kind="compute",
    ),
    quiz.question(
        f"Weights trained with adjacent pairs (d = {_DH}) are loaded into rotate-half code. "
        f"Training turned coordinate {_SLOT} together with coordinate 0, at θ₀ = "
        f"{_FREQ_TRAINED:.0f} rad per position. With which coordinate, and at what frequency, "
        f"does the rotate-half code turn coordinate {_SLOT}?",
        quiz.option("Coordinate 0 at θ₀, as trained", False,
                    f"The code does not know how the weights were trained: rotate-half always "
                    f"pairs coordinate j with j + d/2 = j + {_DH // 2}. The two conventions are "
                    f"the same maths only up to a permutation, and nobody permuted these "
                    f"weights."),
        quiz.option(f"Coordinate {_CONVERTED_SLOT} at θ₀", False,
                    f"Coordinate {_CONVERTED_SLOT} is where the *converted* weights would put "
                    f"it: permuting the columns of W_Q and W_K moves b₀ from coordinate {_SLOT} "
                    f"to {_CONVERTED_SLOT}, the slot rotate-half pairs with a₀ at θ₀. "
                    f"Unconverted, coordinate "
                    f"{_SLOT} stays where it is and the code pairs it with coordinate "
                    f"{_PARTNER}."),
        quiz.option(f"Coordinate {_PARTNER}, still at θ₀", False,
                    f"The partner is right, but the frequency belongs to the pair, not to the "
                    f"coordinate: rotate-half pair {_SLOT} is coordinates ({_SLOT}, {_PARTNER}) "
                    f"and turns at θ_{_SLOT} = {_FREQ_CODE:.1f} rad per position, "
                    f"{_FREQ_TRAINED / _FREQ_CODE:.0f} times slower than θ₀."),
        quiz.option(f"Coordinate {_PARTNER}, now at θ₁", True,
                    f"Rotate-half pairs coordinate j with j + {_DH // 2} and turns that pair at "
                    f"θ_j: coordinate {_SLOT} goes with coordinate {_PARTNER} at θ₁ = "
                    f"10000^(−2/{_DH}) = {_FREQ_CODE:.1f} rad per position. Over all {_DH} "
                    f"coordinates every partner is wrong and only coordinates {_SAME_FREQ[0]} "
                    f"and {_SAME_FREQ[1]} keep their frequency, so every score off the diagonal "
                    f"is wrong. Permuting the columns of W_Q and W_K fixes it."),
        kind="compute",
    ),
    quiz.question(
        f"Draw a random query q (d = {_DR}, standard normal coordinates) and a key k = q + z, "
        f"where the noise z is drawn independently in the same way. What does the *average* "
        f"score q·R_r k do as the distance r grows from 0 to 10000?",
        quiz.option("Stays near 0 at all distances", False,
                    f"That is what independent q and k do: q·R_r z alone averages "
                    f"{_INDEP[0]:+.1f}, {_INDEP[1000]:+.1f} and {_INDEP[10000]:+.1f} at r = 0, "
                    f"1000 and 10000 in {_DRAWS} draws. But k shares q's part: for every pair, "
                    f"the average of h_i = conj(q_(i))·k_(i) is that of |q_(i)|², about "
                    f"{_H_MEAN:.0f}, not 0."),
        quiz.option("Falls from about 128 towards 0", True,
                    f"The noise adds 0 on average, so the average score is that of k = q: "
                    f"Σ 2 cos(rθ_i), d = {_DR} times the all-ones curve, that is "
                    f"{_EXPECT[0]:.0f}, {_EXPECT[1000]:.1f} and {_EXPECT[10000]:.1f} at r = 0, "
                    f"1000 and 10000. Measured in {_DRAWS} draws: {_MEAN[0]:.1f}, "
                    f"{_MEAN[1000]:.1f} and {_MEAN[10000]:.1f}. Correlated query and key decay "
                    f"on average; independent ones do not."),
        quiz.option("Falls from about 256 towards 0", False,
                    f"About 2d = {2 * _DR} is |k|² (|q|² + |z|², measured {_K_SQ:.0f}), but the "
                    f"score is q·k, not k·k. At r = 0 it is |q|² + q·z, on average d = {_DR} + "
                    f"0 (measured {_MEAN[0]:.1f})."),
        quiz.option("Stays about 128 at every distance", False,
                    f"It starts there ({_MEAN[0]:.1f} at r = 0), but the rotation turns each "
                    f"pair of k against q by rθ_i, and the average of cos(rθ_i) over the pairs "
                    f"falls: the mean score is {_MEAN[1000]:.1f} at r = 1000 and "
                    f"{_MEAN[10000]:.1f} at r = 10000."),
        kind="predict",
    ),
    quiz.question(
        f"A head rotates its values as well as its queries and keys. The same sentence is moved "
        f"{_SHIFT} positions later (positions {_SHIFT}–{_SHIFT + 5} instead of 0–5); nothing else "
        f"changes. How are the head's new outputs related to the old ones?",
        quiz.option("They are exactly the same as before", False,
                    f"That is what happens when the values are *not* rotated. Here every value "
                    f"is turned by its position, which is now {_SHIFT} more: in the chapter's "
                    f"head the outputs move by up to {_MOVED:.2f}."),
        quiz.option(f"Each is the old one turned by R{chr(0x2080 + _SHIFT)}", True,
                    f"The weights see only offsets, so they stay the same (to within 1e-12). "
                    f"Each value gets the same extra turn R_{_SHIFT}, and a sum of turned "
                    f"vectors is the turned sum: new output = R_{_SHIFT} · old output (pair i "
                    f"turned by {_SHIFT}·θ_i), to within 1e-12 in the chapter's head. Same "
                    f"lengths, new directions (coordinates move by up to {_MOVED:.2f})."),
        quiz.option("Their attention weights change", False,
                    "The weights come from q and k only, and those still see nothing but "
                    "offsets: moving the whole sentence changes no offset, so the weights are "
                    "unchanged (to within 1e-12). What changes is the values they mix."),
        quiz.option("They change in length and direction", False,
                    f"A rotation keeps lengths. Every value gets the same extra turn "
                    f"R_{_SHIFT}, so each output is the old one turned by R_{_SHIFT}: its "
                    f"length is unchanged (to within 1e-12), only its direction moves."),
        kind="predict",
    ),
)
