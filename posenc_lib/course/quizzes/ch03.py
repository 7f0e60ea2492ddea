"""Quick check of chapter 3. Every number in the feedback is computed here with the library."""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...maths import periodicity

_POS = np.arange(1001)                                   # the chapter's positions 0..1000


def _n(count: int) -> str:
    """A count with spaced thousands, as in the chapter: 500 500."""
    return f"{count:,}".replace(",", " ")


def _signed(x: float) -> str:
    """x with 3 decimals and a typographic sign: +0.416, −0.416."""
    return f"{x:+.3f}".replace("-", "−")


def _count(omega: float) -> int:
    """Pairs p < q <= 1000 whose sin(omega * pos) agree to 3 decimals."""
    return periodicity.count_collisions(np.sin(omega * _POS), 3)


# Q1: sin 2 = sin(pi - 2) exactly, although both numbers are irrational
assert abs(math.sin(2.0) - math.sin(math.pi - 2.0)) < 1e-15

# Q2: 2 and 353 are a mirror pair, not a near-period
_TURNS_351 = 351 / (2 * math.pi)
_D351 = float(periodicity.wrap_error([351])[0])
_MIRROR_ERR = 355 - 113 * math.pi
_COS2, _COS353 = math.cos(2.0), math.cos(353.0)
assert round(math.sin(2.0), 4) == round(math.sin(353.0), 4)     # "agree to 4 decimals"
assert abs(_MIRROR_ERR) < 5e-5 and _D351 > 0.5
assert _COS2 < 0 < _COS353 and abs(_COS2 + _COS353) < 1e-4

# Q3: 2001 values at 3 decimals; the sine's first collision comes much earlier
_N_VALUES = len(np.unique(np.round(np.linspace(-1, 1, 200_001), 3) + 0.0))
assert _N_VALUES == 2001
_FIRST = periodicity.collision_pairs(np.sin(np.arange(_N_VALUES + 1)), 3)
_FIRST_P, _FIRST_Q = (int(x) for x in _FIRST[np.argmin(_FIRST[:, 1])])
assert (_FIRST_P, _FIRST_Q) == (11, 55) and round(_FIRST_Q - _FIRST_P) == 44

# Q4: near-periods of sin(10 pos): 10 * 71 = 710 ≈ 113 turns
_OFFSETS = (6, 63, 71, 710)
_D10 = {k: float(periodicity.wrap_error([k], 10.0)[0]) for k in _OFFSETS}
_TURNS10 = {k: 10 * k / (2 * math.pi) for k in _OFFSETS}
_BEST10 = periodicity.near_periods(10.0, 1000)
assert [k for k, _ in _BEST10][-1] == 71 and _D10[71] < 1e-4
assert abs(_D10[710] - 10 * _D10[71]) < 1e-9            # 710 = 10 × 71: ten times the error
_D1_710 = float(periodicity.wrap_error([710])[0])
assert abs(_D10[71] - _D1_710) < 1e-9                     # the same miss as 710 at ω = 1
_PAIRS10 = periodicity.collision_pairs(np.sin(10.0 * _POS), 3)
assert len(_PAIRS10) > 1141 and np.all((_PAIRS10[:, 1] - _PAIRS10[:, 0]) % 71 == 0)

# Q5: ω = 2π + ε samples like ω = ε on whole positions
_EPS = 1e-5
_N1 = _count(1.0)
_N_EPS = _count(2 * math.pi + _EPS)
_N_TINY = _count(_EPS)
_N_ALL = len(_POS) * (len(_POS) - 1) // 2
_VALUES_EPS = len(np.unique(np.round(np.sin((2 * math.pi + _EPS) * _POS), 3) + 0.0))
_TOP_EPS = float(np.sin(_EPS * 1000))
_RUNS_EPS = np.unique(np.round(np.sin((2 * math.pi + _EPS) * _POS), 3) + 0.0, return_counts=True)[1]
_PER_VALUE_EPS = int(np.median(_RUNS_EPS))               # the typical run of equal values
assert _N_EPS == _N_TINY and _N_EPS > 10 * _N1 and _N_EPS < _N_ALL / 5
assert _N1 == 1141 and _N_ALL == 500_500

# Q6: ω = 0.01 blurs neighbours; on long sequences it collides about as often as ω = 1
_N001 = _count(0.01)
_STEP001 = float(np.max(np.abs(np.diff(np.sin(0.01 * _POS)))))
_SAME_NEIGHBOURS = int(np.sum(np.diff(np.round(np.sin(0.01 * _POS), 3)) == 0))
_LONG = 100_000
_LONG001 = periodicity.count_collisions(np.sin(0.01 * np.arange(_LONG)), 3)
_LONG1 = periodicity.count_collisions(np.sin(np.arange(_LONG, dtype=float)), 3)
assert _N001 < _N1 and _STEP001 <= 0.01 and _SAME_NEIGHBOURS > 0
assert _LONG001 < _LONG1 and abs(_LONG001 / _LONG1 - 1) < 0.01   # "about the same, slightly fewer"


# Q4's "nearly repeats in that sense": a miss below 0.001 radian; 710 qualifies at ω = 1, and at
# ω = 10 the first offset that does is 71 (6, the offset nearest one turn, misses by 0.28)
_MISS6 = float(periodicity.wrap_error([6])[0])
assert periodicity.wrap_error([710])[0] < 1e-3 < _MISS6
assert [k for k in range(1, 72) if periodicity.wrap_error([k], 10.0)[0] < 1e-3] == [71]


QUIZ = quiz.quiz(
    quiz.question(
        "Why are sin p and sin q never *exactly* equal for two different whole numbers p and q?",
        quiz.option("Equal sines need q − p = 2πm or p + q = (2m+1)π, and π is irrational.", True,
                    "Two angles share a sine only if they differ by whole turns or are mirror "
                    "images, x and π − x (plus whole turns). Both conditions put π on one side "
                    "and whole numbers on the other, so they can never hold exactly. They can "
                    "hold *nearly*, which is what collisions are."),
        quiz.option("Floating-point rounding always leaves a small gap between any two sines.", False,
                    "Rounding works the other way: it can make different values look the same "
                    f"(sin 2 and sin 353 both round to {round(math.sin(2.0), 3)}). The exact "
                    "values differ for a mathematical reason, not a computational one."),
        quiz.option("Sines of whole numbers are irrational, and two irrationals differ.", False,
                    "Two irrational numbers can be equal: sin 2 = sin(π − 2) exactly. What fails "
                    "is that π − 2 is not a whole number. Equality needs q − p = 2πm or "
                    "p + q = (2m+1)π, and π is irrational."),
    ),
    quiz.question(
        "sin 2 and sin 353 agree to 4 decimals. Which relation between 2 and 353 explains it?",
        quiz.option("353 − 2 = 351 is almost a whole number of turns.", False,
                    f"351/(2π) ≈ {_TURNS_351:.2f} turns, {_D351:.2f} radians away from a whole "
                    "number: far from a near-period. Look at the sine's other symmetry, "
                    "sin x = sin(π − x)."),
        quiz.option("2 + 353 = 355 is almost 113π, and sin x = sin(π − x).", True,
                    f"355 − 113π ≈ {_MIRROR_ERR:.1e}, so sin 353 = sin(355 − 2) ≈ sin(113π − 2) "
                    "= sin 2: a mirror pair, not a period. That is why the cosines have opposite "
                    f"signs (cos 2 ≈ {_signed(_COS2)}, cos 353 ≈ {_signed(_COS353)}), a fact chapter 4 "
                    "uses."),
        quiz.option("Both sit at the same height on a rising stretch of the wave.", False,
                    f"They sit on opposite slopes: cos 2 ≈ {_signed(_COS2)} (falling), cos 353 ≈ "
                    f"{_signed(_COS353)} (rising). The same height on the same slope would mean "
                    "q − p close to a whole number of turns, a near-period; here it is the "
                    "mirror symmetry."),
    ),
    quiz.question(
        "You give each position one number, rounded to 3 decimals, in [−1, 1]. What is the "
        "longest sequence in which all positions can still differ, *whatever* function you use?",
        quiz.option("2001 positions, whatever function you use", True,
                    f"There are {_N_VALUES} values from −1.000 to 1.000 in steps of 0.001, so a "
                    f"{_N_VALUES + 1}nd position must reuse one (the pigeonhole principle). The "
                    f"sine does far worse: its first collision is positions {_FIRST_P} and "
                    f"{_FIRST_Q}, 44 ≈ 7 turns apart."),
        quiz.option("710 positions, the best near-period of sin", False,
                    "710 is where sin(pos) nearly repeats, but the question asks about any "
                    f"function. A clever function can do better than the sine (whose first "
                    f"collision is at positions {_FIRST_P} and {_FIRST_Q}), but no function can "
                    f"beat the count of available values, {_N_VALUES}."),
        quiz.option("No limit, if the function is chosen well", False,
                    f"The limit comes from counting, not from the function: {_N_VALUES} distinct "
                    f"values cannot label more than {_N_VALUES} positions."),
        kind="compute",
    ),
    quiz.question(
        "sin(pos) nearly repeats after 710 positions, because 710 ≈ 113 turns of 2π (it misses "
        "a whole number of turns by less than 0.001 radian). After how many positions does "
        "sin(10·pos) first nearly repeat in that sense, for every pos?",
        quiz.option("6 positions", False,
                    f"6 is the offset closest to one turn of sin(pos) (it misses by "
                    f"{_MISS6:.2f} radian), but at ω = 10 the angle moves "
                    f"by 10 · 6 = 60 radians ≈ {_TURNS10[6]:.2f} turns, {_D10[6]:.2f} radians "
                    "from a whole number. Multiply the offset by ω before comparing with 2π."),
        quiz.option("63 positions", False,
                    f"63 ≈ 10 · 2π mixes up frequency and wavelength: the angle moves by "
                    f"10 · 63 = 630 radians ≈ {_TURNS10[63]:.2f} turns, {_D10[63]:.2f} radians "
                    "off. You need 10·k close to a multiple of 2π."),
        quiz.option("71 positions", True,
                    f"10 · 71 = 710 ≈ 113 turns: δ = {_D10[71]:.1e} radians, exactly the miss of "
                    "710 at ω = 1. That is why the explorer's count jumps at ω = 10: every "
                    "colliding pair there is a multiple of 71 apart."),
        quiz.option("710 positions", False,
                    f"710 works too (10 · 710 ≈ {_TURNS10[710]:.0f} turns), but it misses by "
                    f"{_D10[710]:.1e} radians, ten times more than 71 does, and it is not the "
                    "first: 710 = 10 · 71."),
        kind="compute",
    ),
    quiz.question(
        f"Among positions 0 … 1000, ω = 1 gives {_n(_N1)} pairs that agree to 3 decimals. "
        "Predict: what happens with ω = 2π + 0.00001?",
        quiz.option("Far fewer pairs: a fast wave separates positions", False,
                    "The grey curve is fast, but only whole positions count: there "
                    "sin((2π + ε)p) = sin(2πp + εp) = sin(εp). The samples are those of the very "
                    "slow wave ω = 0.00001 (this is called aliasing)."),
        quiz.option("About as many pairs: just another frequency", False,
                    "On whole positions ω = 2π + ε gives exactly the samples of ω = ε = 0.00001, a "
                    f"wave that climbs from 0 to only {_TOP_EPS:.3f} over 1000 positions: "
                    f"{_n(_N_EPS)} pairs."),
        quiz.option("Far more pairs: neighbours become inseparable", True,
                    f"sin((2π + ε)p) = sin(εp): over 1000 positions the values climb from 0 to "
                    f"{_TOP_EPS:.3f} in steps of 0.00001, so only {_VALUES_EPS} distinct "
                    f"3-decimal values are used, most of them by a run of {_PER_VALUE_EPS} neighbours: "
                    f"{_n(_N_EPS)} pairs, {_N_EPS / _N1:.0f} times as many as ω = 1."),
        quiz.option("Every pair collides, as at ω = 2π exactly", False,
                    f"At exactly 2π every value is sin 0 = 0 and all {_n(_N_ALL)} pairs collide. "
                    f"With ε = 0.00001 the values still spread over {_VALUES_EPS} distinct "
                    f"3-decimal values: {_n(_N_EPS)} pairs."),
        kind="predict",
    ),
    quiz.question(
        f"Lowering ω from 1 to 0.01 cuts the pairs among positions 0 … 1000 that agree to 3 "
        f"decimals from {_n(_N1)} to {_N001}. Why is ω = 0.01 still a poor encoding?",
        quiz.option("Neighbouring positions get almost the same value.", True,
                    "One step turns the angle by 0.01 radian, so the sine changes by at most 0.01 "
                    f"(ten rounding steps), and {_SAME_NEIGHBOURS} neighbouring pairs already "
                    "agree to 3 decimals. A slow wave blurs near positions (and keeps far ones "
                    "apart only while the whole sequence stays on its first rising flank, which "
                    "ends at the first peak, a quarter wavelength from 0; here the wavelength is "
                    f"2π/0.01 ≈ {2 * np.pi / 0.01:.0f}, so the flank ends near position "
                    f"{2 * np.pi / 0.01 / 4:.0f}); a fast wave separates neighbours "
                    "but repeats. Chapters 4 and 5 "
                    "combine frequencies to get both."),
        quiz.option("A slow sine is no longer bounded by 1.", False,
                    "Every sine stays in [−1, 1], whatever its frequency: ω changes how fast the "
                    "wave moves, not how high it goes."),
        quiz.option("On long sequences it collides more than ω = 1.", False,
                    f"False: on {_n(_LONG)} positions the two give about the same count "
                    f"({_n(_LONG001)} pairs for ω = 0.01, {_n(_LONG1)} for ω = 1). The problem shows "
                    "on short sequences already: neighbours are nearly indistinguishable."
                    ),
    ),
)
