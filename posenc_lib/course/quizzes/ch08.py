"""Quick check of chapter 8 (RoPE).

Every question asks for a small computation or a prediction that the chapter does not spell
out; every number quoted in the feedback is computed below with the library.
"""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...maths import rope

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

# Q6: GPT-NeoX-20B's partial rotary: head dimension 96, rotary_pct 0.25 (base 10000)
_DN, _PCT = 96, 0.25
_RD = int(_DN * _PCT)                                           # rotary_dim: 24 coordinates
_E6 = np.zeros((1, _DN))
_E6[0, 2 * (_RD // 2 - 1)] = 1.0                               # the slowest rotated pair's a
_TURNED6 = rope.apply(_E6, positions=[1.0], rotary_dim=_RD)[0]
_SLOW_RD = float(math.atan2(_TURNED6[2 * (_RD // 2 - 1) + 1], _TURNED6[2 * (_RD // 2 - 1)]))
_SLOW_FULL = float(rope.angles(1.0, _DN)[_RD // 2 - 1])         # pair 11 of a full 96-dim RoPE
_SLOW_ALL = float(rope.angles(1.0, _DN)[-1])                    # the slowest pair of all 96
_SLOW_PAIRS = float(rope.angles(1.0, 2 * _RD)[-1])              # 24 read as pairs: 48-dim RoPE
assert math.isclose(_SLOW_PAIRS, 10000.0 ** (-(2 * _RD - 2) / (2 * _RD)), rel_tol=1e-12)
assert len({f"{v:.5f}" for v in (_SLOW_RD, _SLOW_FULL, _SLOW_ALL, _SLOW_PAIRS)}) == 4
assert math.isclose(_SLOW_RD, 10000.0 ** (-(_RD - 2) / _RD), rel_tol=1e-9)
assert np.array_equal(_TURNED6[_RD:], _E6[0, _RD:])             # the other 72 do not move
assert _SLOW_ALL < _SLOW_RD < _SLOW_FULL

# Q7: rotary_dim = d/4, aligned key k = q, d = 128: the expected score at distance 10000
_D7, _R7, _FAR = 128, 32, 10000.0
_FRAC7 = _R7 / _D7
_KEEP_PARTIAL = float(_FRAC7 * rope.all_ones_score(_FAR, _R7) + (1 - _FRAC7))   # ÷ its r = 0 value
_KEEP_FULL = float(rope.all_ones_score(_FAR, _D7))
_RNG7 = np.random.default_rng(7)
_Q7 = _RNG7.standard_normal((4000, _D7))
_MEASURED7 = float(np.mean(np.sum(_Q7 * rope.apply(_Q7, positions=np.full(4000, _FAR),
                                                   rotary_dim=_R7), axis=1)) / _D7)
assert abs(_MEASURED7 - _KEEP_PARTIAL) < 0.02 and 0.7 < _KEEP_PARTIAL < 0.8
assert abs(_KEEP_FULL) < 0.15 and round(_KEEP_FULL, 2) != round(_FRAC7, 2)

# Q8: which original row lands in row 4 of a converted 2-head W_q (head_dim 8, nn.Linear layout)
_NH8, _HD8, _ROW8 = 2, 8, 4
_IDX8 = np.arange(float(_NH8 * _HD8))[:, None]                  # row j holds the number j
_FROM = int(rope.convert_qk_weight(_IDX8, _NH8)[_ROW8, 0])
_FROM_WHOLE = int(_IDX8[rope.pairing_permutation(_NH8 * _HD8)][_ROW8, 0])
_FROM_BACK = int(rope.convert_qk_weight(_IDX8, _NH8, "half", "interleaved")[_ROW8, 0])
assert (_FROM, _FROM_WHOLE, _FROM_BACK) == (1, 8, 2)

# Q9: axial RoPE on an 8 x 8 grid: which (query patch, key patch) scores like (1, 2) -> (3, 5)?
# base b = 10 (as in the chapter's explorer), so that the sample scores differ clearly
_B9 = 10.0
_RNG9 = np.random.default_rng(9)
_Q9, _K9 = _RNG9.standard_normal((2, 16))
_ROWS9, _COLS9 = rope.grid_positions(8, 8)


def _axial_score(query: tuple[int, int], key: tuple[int, int]) -> float:
    qi, ki = query[0] * 8 + query[1], key[0] * 8 + key[1]
    qs = rope.axial_apply(_Q9[None], _ROWS9[[qi]], _COLS9[[qi]], base=_B9)[0]
    ks = rope.axial_apply(_K9[None], _ROWS9[[ki]], _COLS9[[ki]], base=_B9)[0]
    return float(qs @ ks)


_PAIRS9 = {"ref": ((1, 2), (3, 5)), "same": ((4, 0), (6, 3)), "mirror": ((1, 5), (3, 2)),
           "back": ((3, 5), (1, 2)), "raster": ((0, 6), (3, 1))}
_S9 = {name: _axial_score(*pair) for name, pair in _PAIRS9.items()}
_RASTER = {name: (k[0] * 8 + k[1]) - (q[0] * 8 + q[1]) for name, (q, k) in _PAIRS9.items()}
assert abs(_S9["same"] - _S9["ref"]) < 1e-12 and _RASTER["raster"] == _RASTER["ref"] == 19
assert all(abs(_S9[n] - _S9["ref"]) > 1.0 for n in ("mirror", "back", "raster"))

# Q10 (the derivation): which angle phi(m) added at position m keeps scores offset-only?
_Q10, _K10 = complex(0.8, 0.3), complex(0.2, 0.9)
_PHIS = {"square": lambda m: 0.5 * m**2, "shifted": lambda m: 0.5 * m + 0.2,
         "log": lambda m: math.log(1 + m), "kink": lambda m: 0.5 * abs(m - 5)}


def _score10(phi_q, phi_k, m: int, n: int) -> float:
    return float((np.conj(_Q10 * np.exp(1j * phi_q(m))) * _K10 * np.exp(1j * phi_k(n))).real)


_S10 = {name: [_score10(phi, phi, m, m + 3) for m in (2, 10)] for name, phi in _PHIS.items()}
assert abs(_S10["shifted"][0] - _S10["shifted"][1]) < 1e-12
assert all(abs(v[0] - v[1]) > 0.1 for k, v in _S10.items() if k != "shifted")
assert (_PHIS["kink"](5) - _PHIS["kink"](2), _PHIS["kink"](13) - _PHIS["kink"](10)) == (-1.5, 1.5)

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
                    f"That is what independent, mean-zero q and k do: q·R_r z alone averages "
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
    quiz.question(
        f"GPT-NeoX-20B has head dimension d = {_DN} and rotary_pct = {_PCT}, base b = 10000. "
        f"How many coordinates of each head rotate, and how fast does the slowest rotated "
        f"pair turn?",
        quiz.option(f"{_RD} coordinates at {_SLOW_FULL:.5f} rad per position", False,
                    f"{_RD} coordinates is right, but the rotated part is a {_RD}-dimensional "
                    f"RoPE with its own frequencies b^(−2i/{_RD}), not the first {_RD // 2} "
                    f"frequencies of a {_DN}-dimensional one: its slowest pair turns at "
                    f"10000^(−{_RD - 2}/{_RD}) = {_SLOW_RD:.5f} rad per position, not "
                    f"10000^(−{_RD - 2}/{_DN}) = {_SLOW_FULL:.5f}."),
        quiz.option(f"{_RD} coordinates at {_SLOW_RD:.5f} rad per position", True,
                    f"rotary_dim = {_PCT} · {_DN} = {_RD} coordinates ({_RD // 2} pairs) "
                    f"rotate, as a {_RD}-dimensional RoPE: θ_i = b^(−2i/{_RD}), the slowest "
                    f"10000^(−{_RD - 2}/{_RD}) = {_SLOW_RD:.5f} rad per position. The other "
                    f"{_DN - _RD} coordinates do not move."),
        quiz.option(f"{_DN - _RD} coordinates at {_SLOW_ALL:.5f} rad per position", False,
                    f"{_DN - _RD} = {_DN} − {_RD} is the number of coordinates that stay "
                    f"*unrotated* (the position-free part). rotary_pct is the share that "
                    f"rotates: {_RD} coordinates, whose slowest pair turns at {_SLOW_RD:.5f} "
                    f"rad per position."),
        quiz.option(f"{2 * _RD} coordinates at {_SLOW_PAIRS:.5f} rad per position", False,
                    f"That reads {_PCT} · {_DN} = {_RD} as pairs: {_RD} pairs are {2 * _RD} "
                    f"coordinates, a {2 * _RD}-dimensional RoPE whose slowest pair turns at "
                    f"10000^(−{2 * _RD - 2}/{2 * _RD}) = {_SLOW_PAIRS:.5f}. But rotary_pct · d "
                    f"counts coordinates: {_RD} coordinates make {_RD // 2} pairs, and the "
                    f"slowest turns at 10000^(−{_RD - 2}/{_RD}) = {_SLOW_RD:.5f} rad per "
                    f"position."),
        kind="compute",
    ),
    quiz.question(
        f"A head with d = {_D7} rotates only its first rotary_dim = {_R7} coordinates. Draw a "
        f"random query q and use the aligned key k = q. On average, what share of its score at "
        f"distance 0 does the score keep at distance {_FAR:.0f}?",
        quiz.option(f"About {_KEEP_FULL:.2f}, as with full RoPE", False,
                    f"That is full RoPE (all {_D7} coordinates rotate): the all-ones curve at "
                    f"{_FAR:.0f} is {_KEEP_FULL:+.2f}. Here {_D7 - _R7} of the {_D7} "
                    f"coordinates never rotate, and their share of the score does not depend "
                    f"on distance."),
        quiz.option(f"Only about {_FRAC7:.2f}", False,
                    f"{_FRAC7:.2f} is the rotated share of the coordinates, and that is the "
                    f"part that decays. The position-free {1 - _FRAC7:.2f} stays at every "
                    f"distance."),
        quiz.option(f"About {_KEEP_PARTIAL:.2f}", True,
                    f"The {_D7 - _R7} unrotated coordinates keep their {1 - _FRAC7:.2f} of the "
                    f"score at every distance; the {_R7} rotated ones add {_FRAC7:.2f} times the "
                    f"all-ones curve of a {_R7}-dimensional RoPE, "
                    f"{float(rope.all_ones_score(_FAR, _R7)):+.2f} at {_FAR:.0f}. Total "
                    f"{_KEEP_PARTIAL:.2f}; measured over 4000 draws: {_MEASURED7:.2f}."),
        quiz.option("Exactly 1", False,
                    f"The {_R7} rotated coordinates still turn against each other by the "
                    f"distance, and their part of the score decays as in full RoPE. Only the "
                    f"other {_D7 - _R7} coordinates are position-free: about {_KEEP_PARTIAL:.2f} "
                    f"of the score remains."),
        kind="predict",
    ),
    quiz.question(
        f"A query projection in nn.Linear layout, shape ({_NH8 * _HD8}, d_model), holds "
        f"{_NH8} heads of head_dim {_HD8} in the adjacent layout. After converting it to "
        f"rotate-half head by head, which row of the original weight sits in row {_ROW8}?",
        quiz.option(f"Original row {_FROM}", True,
                    f"Row {_ROW8} is slot {_ROW8} of head 0: the start of the second half of "
                    f"the head, which holds b₀, the second coordinate of pair 0. In the "
                    f"adjacent layout b₀ is row 1."),
        quiz.option(f"Original row {_FROM_WHOLE}", False,
                    f"That is what one permutation over all {_NH8 * _HD8} rows gives: row "
                    f"{_FROM_WHOLE} belongs to head 1, so head 0 would get a row of another "
                    f"head. Permute each head's {_HD8} rows on their own: row {_ROW8} gets row "
                    f"{_FROM} (b₀ of head 0)."),
        quiz.option(f"Row {_FROM_BACK}", False,
                    f"That is the opposite conversion (rotate-half to adjacent): it moves the "
                    f"original row {_FROM_BACK} (a₁) to row {_ROW8}. Adjacent to rotate-half "
                    f"puts the a_i in the first half of each head and the b_i in the second: "
                    f"row {_ROW8} gets b₀, row {_FROM}."),
        quiz.option(f"Row {_ROW8}, unchanged", False,
                    f"Row {_ROW8} is a₂ in the adjacent layout, and in rotate-half row {_ROW8} "
                    f"holds b₀ (rotate-half pairs row j with j + {_HD8 // 2}). The rows must "
                    f"move: row {_ROW8} gets the original row {_FROM}."),
        kind="compute",
    ),
    quiz.question(
        "Axial 2-D RoPE with base b = 10, an 8 × 8 grid of patches (row, column), one fixed "
        "query content and one fixed key content. Which placement gives the same score as the query at patch "
        "(1, 2) and the key at patch (3, 5), whatever the two contents are?",
        quiz.option("Query (0, 6), key (3, 1): the same raster distance", False,
                    f"These two patches are {_RASTER['raster']} apart in raster order, as (1, 2) "
                    f"and (3, 5) are, but their offset is (3, −5), not (2, 3). Axial RoPE "
                    f"sees rows and columns separately (sample contents: {_S9['raster']:+.2f} "
                    f"against {_S9['ref']:+.2f}). A 1-D RoPE of the raster index would score "
                    f"them alike."),
        quiz.option("Query (1, 5), key (3, 2)", False,
                    f"The offset is (2, −3): the column offset has the other sign, and RoPE's "
                    f"offsets are signed (sample contents: {_S9['mirror']:+.2f} against "
                    f"{_S9['ref']:+.2f})."),
        quiz.option("Query (4, 0), key (6, 3)", True,
                    f"The offset is (2, 3) in both cases: the first half of each vector turns "
                    f"with the row, the second with the column, so the score depends on "
                    f"(Δrow, Δcol) only (sample contents: {_S9['same']:+.2f} and "
                    f"{_S9['ref']:+.2f})."),
        quiz.option("The two patches swapped", False,
                    f"Query at (3, 5) and key at (1, 2): swapping the patches turns the offset "
                    f"into (−2, −3). With different query "
                    f"and key contents that changes the score (sample contents: "
                    f"{_S9['back']:+.2f} against {_S9['ref']:+.2f})."),
        kind="predict",
    ),
    quiz.question(
        "In two dimensions, a query at position m is turned by the angle φ(m) and a key at "
        "position n by φ(n) (lengths are kept). For which φ does every score depend on the "
        "positions only through n − m?",
        quiz.option("φ(m) = 0.5·m²", False,
                    f"The step φ(m+1) − φ(m) = 0.5·(2m+1) grows with m, so the same offset gives "
                    f"different scores: for offset 3, {_S10['square'][0]:+.3f} at m = 2 and "
                    f"{_S10['square'][1]:+.3f} at m = 10 (sample q and k)."),
        quiz.option("φ(m) = 0.5·m + 0.2", True,
                    f"The score sees φ(n) − φ(m) = 0.5·(n − m): the constant 0.2 cancels, and "
                    f"the step is the same at every m (offset 3: {_S10['shifted'][0]:+.3f} at "
                    f"m = 2 and at m = 10). RoFormer's condition f(x, 0) = x only sets that "
                    f"constant to 0."),
        quiz.option("φ(m) = ln(1 + m)", False,
                    f"Its steps shrink as m grows, so a fixed offset turns the key less and less "
                    f"against the query: for offset 3, {_S10['log'][0]:+.3f} at m = 2 and "
                    f"{_S10['log'][1]:+.3f} at m = 10 (sample q and k)."),
        quiz.option("φ(m) = 0.5·|m − 5|, a V shape", False,
                    f"Its step is −0.5 before position 5 and +0.5 after it, so the turn "
                    f"between two positions depends on where they sit: for offset 3, "
                    f"φ(5) − φ(2) = −1.5 but φ(13) − φ(10) = +1.5, and the scores are "
                    f"{_S10['kink'][0]:+.3f} at m = 2 and {_S10['kink'][1]:+.3f} at m = 10 "
                    f"(sample q and k)."),
        kind="predict",
    ),
)
