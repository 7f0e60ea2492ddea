"""Quick check of chapter 5. Every number in the feedback is computed here with the library."""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...display.numbers import below
from ...maths import encodings, periodicity

# Q1: sin(pos/2i), cos(pos/2i) with the pairs counted from i = 1: divisors 2, 4, 6, 8 (d = 8)
_LAM = 2 * np.pi / encodings.linear_frequencies(8)                 # 2π(i + 1): 2π, 4π, 6π, 8π
assert np.allclose(_LAM / np.pi, [2, 4, 6, 8])
_LAM_2I = np.array([2 * np.pi * 2 * i for i in range(1, 5)])      # 2π · 2i: 4π, 8π, 12π, 16π
assert np.allclose(_LAM_2I, 2 * _LAM)                               # every wavelength doubled
_pos = np.arange(200.0)
_pe_2i = np.stack([f(_pos[:, None] / (2 * np.arange(1, 5))) for f in (np.sin, np.cos)], -1)
_half = _pos[:, None] / 2 * encodings.linear_frequencies(8)       # the chapter's angles at p/2
assert np.allclose(_pe_2i, np.stack([np.sin(_half), np.cos(_half)], -1))   # half the speed
_EFF_2I = periodicity.effective_octaves(_LAM_2I)
assert abs(_EFF_2I - periodicity.effective_octaves(_LAM)) < 1e-12  # the same octave shares


# Q2: the pairs stored (cos, sin) instead of (sin, cos): the best linear shift still exists
def _fit_error(pe: np.ndarray) -> float:
    m, *_ = np.linalg.lstsq(pe[:-1], pe[1:], rcond=None)  # solves pe[:-1] @ m = pe[1:]: m = Mᵀ
    return float(np.max(np.abs(pe[:-1] @ m - pe[1:])))


_PE8 = encodings.linear(2001, 8)
_COS_FIRST = _PE8.reshape(2001, 4, 2)[:, :, ::-1].reshape(2001, 8)   # (cos, sin) in every pair
_FIT_COS_FIRST = below(_fit_error(_COS_FIRST), 1e-12)
_FIT_DIM = _fit_error(encodings.linear(2001, 8, convention="dimension"))
assert _FIT_DIM > 0.5
_B = encodings.shift_matrix(1, encodings.linear_frequencies(8))      # R(1) for (sin, cos)
_SWAP = np.kron(np.eye(4), [[0, 1], [1, 0]])
_M_COS_FIRST = _SWAP @ _B @ _SWAP                                   # the same turn, (cos, sin)
assert np.allclose(_COS_FIRST[1:] , _COS_FIRST[:-1] @ _M_COS_FIRST.T, atol=1e-12)
_c, _s = math.cos(1.0), math.sin(1.0)
assert np.allclose(_M_COS_FIRST[:2, :2], [[_c, -_s], [_s, _c]])     # pair 0: the textbook form
assert np.max(np.abs(_M_COS_FIRST - _B)) > 0.5                      # not the (sin, cos) matrix

# Q3: a schedule that doubles the wavelength from pair to pair, d = 16 (8 pairs)
_LAM_DOUBLING = 2 * np.pi * 2.0 ** np.arange(8)
_COUNTS_DOUBLING = periodicity.octave_counts(_LAM_DOUBLING)
_EFF_DOUBLING = periodicity.effective_octaves(_LAM_DOUBLING)
_SPAN_DOUBLING = periodicity.octave_span(_LAM_DOUBLING)
assert _COUNTS_DOUBLING.tolist() == [1] * 8 and abs(_EFF_DOUBLING - 8) < 1e-9
assert abs(_SPAN_DOUBLING - 7) < 1e-9
_EFF_LIN16 = periodicity.effective_octaves(2 * np.pi / encodings.linear_frequencies(16))

def _phase(k: float | np.ndarray, omega: np.ndarray) -> np.ndarray:
    """How far each pair is from a whole number of turns after k positions (radians)."""
    a = np.asarray(omega) * k
    return np.abs((a + np.pi) % (2 * np.pi) - np.pi)


_TURNS_754 = 754 / (2 * math.pi)

# Q4: effective octaves of the linear schedule, d = 64 and 512 (and the geometric one)
_LIN = {d: 2 * np.pi / encodings.linear_frequencies(d) for d in (64, 512)}
_EFF = {d: periodicity.effective_octaves(lam) for d, lam in _LIN.items()}
_SPAN = {d: periodicity.octave_span(lam) for d, lam in _LIN.items()}
_GEO_EFF = {d: periodicity.effective_octaves(encodings.wavelengths(d)) for d in (64, 512)}
_COUNTS_512 = periodicity.octave_counts(_LIN[512])
_TOP_SHARE = 100 * float(_COUNTS_512.max() / _COUNTS_512.sum())
_EFF_ALL = [periodicity.effective_octaves(2 * np.pi / encodings.linear_frequencies(d))
            for d in range(64, 4097, 2)]
_EFF_LO, _EFF_HI = math.floor(10 * min(_EFF_ALL)) / 10, math.ceil(10 * max(_EFF_ALL)) / 10
assert 3.5 < _EFF[64] < _EFF[512] < 4.5 and _EFF[512] - _EFF[64] < 0.5
assert round(_SPAN[64]) == 5 and round(_SPAN[512]) == 8 and _TOP_SHARE == 50

# Q5: d = 16, offset 754 = 2π · 120.003 and 5278 = 2π · 840.02 (840 = lcm(1, …, 8))
_W16 = encodings.linear_frequencies(16)
_MISS_754 = _phase(754, _W16)
_BACK_16 = _MISS_754 < 0.02
assert _BACK_16.sum() == 7 and not _BACK_16[6]
_PE16 = encodings.linear(5279, 16)
_DIST = {k: float(np.linalg.norm(_PE16[k] - _PE16[0])) for k in (1, 754, 5278)}
_MISS_5278 = float(_phase(5278, _W16).max())
assert math.lcm(*range(1, 9)) == 840 and _MISS_5278 < 0.13
_K_ALL_BACK = 1 + int(np.argmax(_phase(np.arange(1, 60000)[:, None], _W16).max(axis=-1) < 0.02))
assert _K_ALL_BACK > 5278 and _phase(_K_ALL_BACK, _W16).max() < 0.02
_K_ALL_BACK_SHOWN = f"{_K_ALL_BACK:,}".replace(",", " ")          # 42 223, spaced as in the book
assert _DIST[5278] < _DIST[754] < _DIST[1]


QUIZ = quiz.quiz(
    quiz.question(
        "A code base writes the linear schedule as sin(pos/2i), cos(pos/2i), counting the pairs "
        "from i = 1 (so nothing divides by zero). With d = 8, what are its four wavelengths?",
        quiz.option("4π, 8π, 12π, 16π", True,
                    "Pair i turns by 1/(2i) radian per position, so one turn takes 2π · 2i "
                    "positions: 4π, 8π, 12π, 16π. That is this chapter's 2π(i + 1) = 2π, 4π, 6π, 8π "
                    "with every wavelength doubled (every pair turns at half the speed). "
                    "The steps are still equal, so the pairs crowd into octaves exactly as "
                    f"before ({_EFF_2I:.2f} effective octaves either way)."),
        quiz.option("2π, 4π, 6π, 8π", False,
                    "Those are this chapter's wavelengths, 2π(i + 1) with i from 0. Dividing by 2i "
                    "with i = 1 … 4 divides by 2, 4, 6, 8, so pair i needs 2π · 2i positions per "
                    "turn: 4π, 8π, 12π, 16π."),
        quiz.option("π, 2π, 3π, 4π", False,
                    "That multiplies the angle by 2i instead of dividing by it. The angle pos/(2i) "
                    "grows by 1/(2i) per position, so a turn of 2π takes 2π · 2i positions: 4π, "
                    "8π, 12π, 16π."),
        quiz.option("Undefined: one pair divides by zero", False,
                    "Only if the pairs are counted from 0, as the formula is often (mis)read. "
                    "Counted from 1 the divisors are 2, 4, 6, 8, and the wavelengths 2π · 2i = "
                    "4π, 8π, 12π, 16π."),
        kind="compute",
    ),
    quiz.question(
        "Keep the linear frequencies 1/(i + 1), but store every pair as (cos, sin) instead of "
        "(sin, cos). Is there still one fixed matrix M with PE(p + 1) = M·PE(p) for every p?",
        quiz.option("Yes, each block [[cos, −sin], [sin, cos]]", True,
                    "Swapping the two members of every pair is a fixed permutation, so the shift "
                    "stays linear; each block is the textbook rotation written for (cos, sin), "
                    "cos(a + b) = cos a cos b − sin a sin b first. Fitted over 2001 positions "
                    f"(d = 8) it is exact to within {_FIT_COS_FIRST:.0e}. What breaks the rule is "
                    "giving the sine and the cosine of a pair *different* frequencies (the best "
                    f"matrix is then off by up to {_FIT_DIM:.2f})."),
        quiz.option("Yes, the same matrix as for (sin, cos)", False,
                    "The turn is the same, but the coordinates are listed the other way round, so "
                    "the off-diagonal signs swap places: each block becomes [[cos, −sin], "
                    "[sin, cos]]. The (sin, cos) matrix applied to (cos, sin) turns backwards."),
        quiz.option("No: a rotation needs the sine listed first", False,
                    "The order is a convention (chapter 4's pitfall): with (cos, sin) the block is "
                    "the familiar [[cos, −sin], [sin, cos]]. What a rotation needs is that both "
                    "members share one angle."),
        quiz.option("No: the pairs turn at different speeds", False,
                    "They do, but a block-diagonal matrix gives each pair its own block, turning by "
                    "its own angle 1/(i + 1): chapter 4's rule holds pair by pair."),
        kind="predict",
    ),
    quiz.question(
        "A schedule doubles the wavelength from one pair to the next: 2π, 4π, 8π, …, 256π "
        "(d = 16, 8 pairs). What are its span and its effective number of octaves?",
        quiz.option("Span 7; effective octaves: 8", True,
                    "The longest wavelength is 2⁷ times the shortest: a span of log₂ 2⁷ = 7 "
                    "doublings. Each of the octaves 0 … 7 holds exactly one pair, so the shares are "
                    f"8 × 1/8, H = 3 bits and 2^H = {_EFF_DOUBLING:.0f}: it counts octaves, not "
                    "doublings, so it can exceed the span by 1. The linear schedule with the same "
                    f"d manages {_EFF_LIN16:.1f}."),
        quiz.option("Span 8; effective octaves 8", False,
                    "Eight wavelengths sit at 2⁰, …, 2⁷ times the shortest: seven doublings "
                    "separate the ends, so the span is 7. The effective number counts octaves, "
                    f"eight of them, each with one pair: {_EFF_DOUBLING:.0f}."),
        quiz.option("Span 7; effective octaves only 3", False,
                    "3 is H, the entropy in bits (eight equal shares give log₂ 8 = 3). The "
                    f"effective number of octaves is 2^H = {_EFF_DOUBLING:.0f}."),
        quiz.option("Span 7; effective octaves just 1", False,
                    "That would mean all pairs in one octave. Doubling every step puts each pair "
                    f"in its own octave: eight equal shares, 2^H = {_EFF_DOUBLING:.0f}."),
        kind="compute",
    ),
    quiz.question(
        f"With the linear schedule, d = 64 gives {_EFF[64]:.1f} effective octaves. Predict the "
        "value at d = 512, with eight times as many pairs.",
        quiz.option("≈ 4: almost the same as before", True,
                    f"It is {_EFF[512]:.2f}. Octave b holds 2ᵇ pairs, so the top full octave "
                    f"alone holds {_TOP_SHARE:.0f}% of them and each octave below holds half as "
                    f"many as the next: for every even d from 64 to 4096 the spread stays between "
                    f"{_EFF_LO:.1f} and {_EFF_HI:.1f}. The extra "
                    "pairs are near-copies of the slowest waves."),
        quiz.option("≈ 7: up by one per doubling of d", False,
                    "That is how the *span* grows: the longest wavelength is πd, so each doubling "
                    f"of d adds one octave of range ({_SPAN[64]:.1f} → {_SPAN[512]:.1f} octaves). "
                    "But the new pairs do not spread over that range: they pile into the top "
                    f"octaves, and the effective number is {_EFF[512]:.2f}."),
        quiz.option("≈ 30: up eightfold, like d", False,
                    "That would need every new pair to add a new scale: a factor between "
                    "neighbouring wavelengths that stays the same as d grows (say 2, one octave "
                    "per pair). Here they grow in equal steps of 2π, so the new pairs crowd into "
                    f"the top octaves: {_EFF[512]:.2f} effective octaves. Chapter 6's geometric "
                    "schedule has a constant factor, n^(2/d), but it shrinks as d grows (the top "
                    "stays below 2πn), so it goes only from "
                    f"{_GEO_EFF[64]:.1f} to {_GEO_EFF[512]:.1f}."),
        kind="predict",
    ),
    quiz.question(
        "Linear schedule with d = 16: pair i has frequency 1/(i + 1), for i = 0 … 7. An offset "
        f"of 754 positions is 2π · {_TURNS_754:.3f}. After 754 positions, how many of the 8 "
        "pairs are back within 0.02 radian of their starting angle?",
        quiz.option("1, only pair 0", False,
                    f"Pair 0 turns 754 radians, {_TURNS_754:.3f} turns: it is back, "
                    f"{_MISS_754[0]:.3f} radian off. But every pair whose i + 1 divides 120 is "
                    "back too: it makes 120/(i + 1) whole turns, give or take less than 0.02 "
                    "radian."),
        quiz.option("4, half of the pairs", False,
                    "Check each i + 1 from 1 to 8 against 120 = 2³ · 3 · 5: only 7 fails to "
                    f"divide it. Pair 6 is {_MISS_754[6]:.2f} radian off; the other seven are "
                    f"within {_MISS_754[_BACK_16].max():.3f}."),
        quiz.option("7, all but one pair", True,
                    "Pair i turns 754/(i + 1) radians: a whole number of turns, give or take "
                    f"{_MISS_754[_BACK_16].max():.3f} radian, whenever i + 1 divides 120. 1, 2, "
                    "3, 4, 5, 6 and 8 do; 7 does not. So positions 754 apart are only "
                    f"{_DIST[754]:.3f} apart, closer than two neighbours ({_DIST[1]:.3f})."),
        quiz.option("8, all of them", False,
                    f"Close, but 7 does not divide 120, and pair 6 is {_MISS_754[6]:.2f} radian "
                    "off. All eight come roughly back together only near multiples of "
                    "2π · 840 ≈ 5278, 840 being the least common multiple of 1 … 8: at offset "
                    f"5278 every pair is within {_MISS_5278:.2f} radian (not the 0.02 of the "
                    f"question: that first happens at offset {_K_ALL_BACK_SHOWN}), and the distance "
                    f"is only {_DIST[5278]:.3f}."),
        kind="compute",
    ),
)
