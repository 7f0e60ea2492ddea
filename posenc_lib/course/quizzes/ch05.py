"""Quick check of chapter 5. Every number in the feedback is computed here with the library."""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...display.numbers import below
from ...maths import encodings, periodicity

# Q1: sin(pos/2i) with i = 0 is NaN at every position; wavelengths 2π(i + 1)
with np.errstate(divide="ignore", invalid="ignore"):
    _AT_0 = float(np.sin(np.float64(0) / 0))
    _AT_5 = float(np.sin(np.float64(5) / 0))
assert math.isnan(_AT_0) and math.isnan(_AT_5)
_LAM = 2 * np.pi / encodings.linear_frequencies(8)
assert abs(_LAM[0] - 2 * math.pi) < 1e-12 and np.all(np.diff(_LAM) > 0)
assert 1 / 4 > 1 / 6                                     # i = 3: i + 1 is faster than 2i

# Q2: the best linear shift PE(p + 1) ≈ M PE(p), d = 8, 2001 positions, both conventions
def _fit_error(convention: str) -> float:
    pe = encodings.linear(2001, 8, convention=convention)
    m, *_ = np.linalg.lstsq(pe[:-1], pe[1:], rcond=None)  # solves pe[:-1] @ m = pe[1:]: m = Mᵀ
    return float(np.max(np.abs(pe[:-1] @ m - pe[1:])))


_FIT_DIM = _fit_error("dimension")
_FIT_PAIR = below(_fit_error("pair"), 1e-12)
assert _FIT_DIM > 0.5

# Q3: similarity of the linear schedule, d = 64, against the offset
_D = 64
_K = np.arange(10_001)
_SIM_LIN = np.cos(np.outer(_K, encodings.linear_frequencies(_D))).mean(axis=1)
_SIM_GEO = np.cos(np.outer(_K, 2 * np.pi / encodings.wavelengths(_D))).mean(axis=1)
_PE = encodings.linear(1234 + 1001, _D)
_OFFSET_ONLY = below(float(np.max(np.abs(_PE[1234] @ _PE[1234:].T - _PE[0] @ _PE[:1001].T))),
                     1e-12)
_SLOWEST = math.pi * _D                                   # longest wavelength 2π · d/2
_FAR = _K[_K > _SLOWEST]                                  # offsets 202 … 10 000
_FAR_END = f"{_FAR[-1]:,}".replace(",", " ")             # 10 000, spaced as in the chapter
_N_LIN = int(np.sum(_SIM_LIN[_FAR] > _SIM_LIN[100]))
_DIP = int(np.argmin(_SIM_LIN[:201]))                    # the similarity's lowest point: 66
assert 40 < _DIP < 100 and _SIM_LIN[_DIP] < _SIM_LIN[100]   # "a few dozen"; 100 is past the dip
_N_GEO = int(np.sum(_SIM_GEO[_FAR] > _SIM_GEO[100]))
assert np.min(np.abs(_SIM_LIN[_FAR] - _SIM_LIN[100])) > 1e-9      # no near-ties: counts portable
assert np.min(np.abs(_SIM_GEO[_FAR] - _SIM_GEO[100])) > 1e-9
assert _SIM_LIN[754] > 0.3 > 0 > _SIM_LIN[100] and _N_GEO == 0 and _N_LIN > len(_FAR) / 2


def _phase(k: float | np.ndarray, omega: np.ndarray) -> np.ndarray:
    """How far each pair is from a whole number of turns after k positions (radians)."""
    a = np.asarray(omega) * k
    return np.abs((a + np.pi) % (2 * np.pi) - np.pi)


_TURNS_754 = 754 / (2 * math.pi)
_BACK_64 = _phase(754, encodings.linear_frequencies(_D)) < 0.02
_DIVIDES_120 = np.array([120 % (i + 1) == 0 for i in range(_D // 2)])
assert np.array_equal(_BACK_64, _DIVIDES_120)

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
assert _DIST[5278] < _DIST[754] < _DIST[1]


QUIZ = quiz.quiz(
    quiz.question(
        "With the pair index i = 0, 1, 2, …, the idea is often written sin(pos/2i), "
        "cos(pos/2i). Why does this book divide by i + 1 instead?",
        quiz.option("Pair 0 would divide by zero: NaN at every position.", True,
                    "With i = 0 the angle is pos/0: 0/0 at position 0 and ∞ at the others, and "
                    f"numpy gives sin(0/0) = {_AT_0} and sin(5/0) = {_AT_5}. Counting pairs from "
                    "1 keeps pair 0 as chapter 4's circle (wavelength 2π ≈ "
                    f"{_LAM[0]:.3f}). Compared with 2i, dividing by i + 1 also makes the pairs "
                    "i ≥ 2 faster (i = 3: 1/4 instead of 1/6), but that is a side effect, not "
                    "the reason."),
        quiz.option("So that every wavelength is a whole number of positions.", False,
                    f"The wavelength of pair i is 2π(i + 1): {_LAM[0]:.3f}, {_LAM[1]:.3f}, "
                    f"{_LAM[2]:.3f}, …, never a whole number, since 2π is irrational. Nothing needs "
                    "whole wavelengths; what breaks with 2i is pair 0, which divides by zero."),
        quiz.option("To make pair 0 the slowest of the pairs.", False,
                    "The opposite: pair 0 has the largest frequency, 1/1, and the shortest "
                    f"wavelength, 2π ≈ {_LAM[0]:.3f}; pair i turns i + 1 times more slowly. The "
                    "change from 2i to i + 1 is about pair 0 dividing by zero."),
        kind="concept",
    ),
    quiz.question(
        "A variant gives each *dimension* its own frequency: sin(pos/1), cos(pos/2), "
        "sin(pos/3), cos(pos/4), … What does it lose compared with one frequency per pair?",
        quiz.option("Boundedness: some of its values can exceed 1.", False,
                    "Every entry is still a sine or a cosine, so it stays between −1 and 1. What "
                    "changes is that the sine and the cosine of a pair no longer share an "
                    "angle."),
        quiz.option("A fixed matrix that shifts every position by k.", True,
                    "A rotation turns (sin θ, cos θ) only when both use the same θ. With d = 8 "
                    "and 2001 positions, the best matrix M with PE(p + 1) ≈ M·PE(p) is off by up "
                    f"to {_FIT_DIM:.2f} for this variant, against less than {_FIT_PAIR:.0e} for "
                    "one frequency per pair."),
        quiz.option("Nothing: more distinct frequencies only help it.", False,
                    "More frequencies help only if attention can use them. Here no fixed matrix "
                    f"shifts the encoding (the best one is off by up to {_FIT_DIM:.2f}), so "
                    "“k positions back” is no longer one linear map that attention could learn."),
        kind="concept",
    ),
    quiz.question(
        f"Linear schedule, d = {_D}: the similarity PE(p)·PE(p + k)/(d/2) is "
        f"{_SIM_LIN[754]:.2f} at k = 754 but −{-_SIM_LIN[100]:.2f} at k = 100. What does this "
        "tell you?",
        quiz.option("The encoding is no longer relative at large offsets.", False,
                    "It is still relative: the similarity depends only on the offset k (started "
                    f"from position 1234, the values agree to within {_OFFSET_ONLY:.0e}). The "
                    "trouble is what that function of k looks like far out."),
        quiz.option("Rounding errors pile up at large offsets.", False,
                    f"The rise is real, not noise: 754 = 2π · {_TURNS_754:.3f}, and the "
                    f"{int(_BACK_64.sum())} pairs whose i + 1 divides 120 have turned a whole "
                    "number of times, give or take 0.02 radian. They see offset 754 as if it "
                    "were offset 0."),
        quiz.option("Past a few dozen offsets, more similar no longer means nearer.", True,
                    f"The similarity falls only as far as offset {_DIP}, its lowest point "
                    f"({_SIM_LIN[_DIP]:.2f}); offset 100 already looks more alike "
                    f"({_SIM_LIN[100]:.2f}). Further out the pairs' phases decide: no pair can "
                    f"say \"nearer\" beyond half its wavelength, at most πd/2 ≈ "
                    f"{_SLOWEST / 2:.0f} for the slowest, and 754 = 2π · {_TURNS_754:.3f} brings the "
                    f"{int(_BACK_64.sum())} of {_D // 2} pairs whose i + 1 divides 120 back into "
                    f"step. In all, {_N_LIN} of the {len(_FAR)} offsets from {_FAR[0]} to "
                    f"{_FAR_END} look more alike than offset 100; with the geometric schedule "
                    f"of chapter 6, not one ({_N_GEO})."),
        kind="concept",
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
                    "That would need each pair's wavelength to be a constant factor longer than "
                    "the previous one. Here they grow in equal steps of 2π, so the new pairs "
                    f"crowd into the top octaves: {_EFF[512]:.2f} effective octaves. The "
                    f"geometric schedule goes from {_GEO_EFF[64]:.1f} to {_GEO_EFF[512]:.1f}."),
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
                    f"question: that first happens at offset {_K_ALL_BACK:,}), and the distance "
                    f"is only {_DIST[5278]:.3f}."),
        kind="compute",
    ),
)
