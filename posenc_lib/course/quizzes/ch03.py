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

# Q2: which partner of position 100 is a *mirror* collision? 355 ≈ 113π, 710 ≈ 113 turns
_MIRROR_ERR = 355 - 113 * math.pi
assert abs(_MIRROR_ERR) < 5e-5
_P2 = 640                                      # its mirror partner uses 1065 = 3 · 355 ≈ 339π
_Q2 = {"mirror": 1065 - _P2, "half": 710 - _P2, "flip": _P2 + 355, "period": _P2 + 710}
assert abs(1065 - 339 * math.pi) < 1e-4 and 339 % 2 == 1
_SIN = {q: math.sin(q) for q in (_P2, *_Q2.values())}
_COS = {q: math.cos(q) for q in (_P2, *_Q2.values())}
_R3 = {q: round(x, 3) + 0.0 for q, x in _SIN.items()}
assert _R3[_P2] == _R3[_Q2["mirror"]] == _R3[_Q2["period"]]            # both partners collide …
assert _COS[_P2] * _COS[_Q2["mirror"]] < 0 < _COS[_P2] * _COS[_Q2["period"]]   # … one mirrors
assert _R3[_Q2["half"]] == _R3[_Q2["flip"]] == -_R3[_P2] != _R3[_P2]    # flipped signs
assert abs(_SIN[_P2]) > 0.4                                             # so a flip is visible

# Q3: one number in [0, 1] rounded to 2 decimals: 101 values, so at most 101 positions apart
_N_VALUES2 = len(np.unique(np.round(np.linspace(0, 1, 100_001), 2) + 0.0))
assert _N_VALUES2 == 101
_N_VALUES3 = len(np.unique(np.round(np.linspace(-1, 1, 200_001), 3) + 0.0))   # the chapter's 2001
assert _N_VALUES3 == 2001

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

# Q5: ω = 2π − 0.01 samples like ω = −0.01 on whole positions: sin(−x) = −sin(x), and
# rounding is symmetric, so the count is exactly that of ω = 0.01
_N1 = _count(1.0)
_N_ALL = len(_POS) * (len(_POS) - 1) // 2
assert _N1 == 1141 and _N_ALL == 500_500
_W5 = 2 * math.pi - 0.01
_N_W5 = _count(_W5)
_SLOW5 = np.sin(0.01 * _POS)
assert np.max(np.abs(np.sin(_W5 * _POS) + _SLOW5)) < 1e-10            # the same samples, negated
_FRAC5 = np.abs(np.abs(_SLOW5) * 1000 % 1 - 0.5)                     # distance to a rounding edge
assert _FRAC5.min() > 1e-6                                            # so the counts are portable
_N_TURNS5 = _W5 * 1000 / (2 * math.pi)                                # turns of the grey curve

# Q6: ω = 0.01 blurs neighbours; on long sequences it collides about as often as ω = 1
_N001 = _count(0.01)
assert _N_W5 == _N001
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
        f"With 355 ≈ 113π and 710 ≈ 113 turns in mind: sin {_P2} ≈ {_signed(_SIN[_P2])}. Which "
        f"position q makes (q, {_P2}) a *mirror* pair, whose sines agree to 3 decimals because "
        f"q + {_P2} is close to an odd multiple of π?",
        quiz.option(f"q = {_Q2['mirror']}", True,
                    f"{_Q2['mirror']} + {_P2} = 1065 = 3 · 355 ≈ 339π, an odd multiple of π, so "
                    f"sin {_Q2['mirror']} ≈ sin(339π − {_P2}) = sin(π − {_P2}) = sin {_P2} (both "
                    f"{_signed(_R3[_P2])} to 3 decimals). As for 2 and 353, the cosines have "
                    f"opposite signs: {_signed(_COS[_P2])} and {_signed(_COS[_Q2['mirror']])}."),
        quiz.option(f"q = {_Q2['half']}", False,
                    f"{_P2} + {_Q2['half']} = 710 ≈ 226π, an *even* multiple of π: "
                    f"sin(226π − {_P2}) = −sin {_P2}, so sin {_Q2['half']} ≈ "
                    f"{_signed(_SIN[_Q2['half']])}. The mirror needs an odd multiple, such as "
                    "355 ≈ 113π or 3 · 355 ≈ 339π."),
        quiz.option(f"q = {_Q2['flip']}", False,
                    f"{_Q2['flip']} − {_P2} = 355 ≈ 113π is an odd number of *half* turns, so the "
                    f"wave is flipped: sin {_Q2['flip']} ≈ −sin {_P2} = "
                    f"{_signed(_SIN[_Q2['flip']])}. A mirror pair needs the *sum* near an odd "
                    "multiple of π."),
        quiz.option(f"q = {_Q2['period']}", False,
                    f"sin {_Q2['period']} ≈ {_signed(_SIN[_Q2['period']])} does agree with "
                    f"sin {_P2}, but because {_Q2['period']} − {_P2} = 710 ≈ 113 whole turns: a "
                    f"near-period, not a mirror. Its cosine agrees too "
                    f"({_signed(_COS[_Q2['period']])}), which a mirror's never does."),
        kind="compute", ordered=True,
    ),
    quiz.question(
        "You give each position a single number in [0, 1], rounded to 2 decimals, and you may "
        "pick the function freely. At most how many positions can all get different numbers?",
        quiz.option("100", False,
                    "That counts the steps of 0.01 from 0 to 1. The values are 0.00, 0.01, …, "
                    f"1.00: both ends count, {_N_VALUES2} values, so {_N_VALUES2} positions."),
        quiz.option(f"{_N_VALUES2}", True,
                    f"0.00, 0.01, …, 1.00 are {_N_VALUES2} values, so the best function labels "
                    f"{_N_VALUES2} positions and position {_N_VALUES2 + 1} must reuse a value (the "
                    f"pigeonhole principle). The chapter's 3 decimals in [−1, 1] give "
                    f"{_N_VALUES3}; more digits move the limit, never remove it."),
        quiz.option("201", False,
                    f"201 values would be [−1, 1] at 2 decimals. Here the range is [0, 1]: "
                    f"{_N_VALUES2} values, so at most {_N_VALUES2} positions."),
        quiz.option("No limit, for a well-chosen function", False,
                    f"The limit comes from counting, not from the function: {_N_VALUES2} distinct "
                    f"values cannot label more than {_N_VALUES2} positions."),
        kind="compute", ordered=True,
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
        f"Among positions 0 … 1000, ω = 0.01 gives {_N001} pairs that agree to 3 decimals. "
        "Predict the count for ω = 2π − 0.01, just *below* 2π.",
        quiz.option(f"Exactly {_N001}, the same count as ω = 0.01", True,
                    "On whole positions the 2π part is whole turns: sin((2π − 0.01)p) = "
                    "sin(−0.01p) = −sin(0.01p). The samples are those of ω = 0.01 with the sign "
                    "flipped, and two values round alike exactly when their negatives do: "
                    f"{_N_W5} pairs. Aliasing works on both sides of 2π."),
        quiz.option(f"About {_n(_N_ALL)}: every pair, as at 2π", False,
                    f"All {_n(_N_ALL)} pairs collide only at exactly 2π, where every sample is "
                    "sin 0 = 0. A miss of 0.01 radian per step is the slow wave sin(0.01p) read "
                    f"backwards: {_N_W5} pairs."),
        quiz.option(f"Far fewer than {_N001}: it is a fast wave", False,
                    f"The grey curve turns {_N_TURNS5:.0f} times over 1000 positions, but only whole "
                    "positions count, and there each step moves the angle by −0.01 radian modulo "
                    f"2π: the count of the slow wave, {_N_W5}."),
        quiz.option(f"About twice {_N001}: the sign flip adds pairs", False,
                    "Flipping the sign of every sample moves every value to its negative, so two "
                    "positions agree after the flip exactly when they agreed before: the count "
                    f"stays {_N_W5}."),
        kind="predict",
    ),
    quiz.question(
        f"Lowering ω from 1 to 0.01 cuts the pairs among positions 0 … 1000 that agree to 3 "
        f"decimals from {_n(_N1)} to {_N001}. Why is ω = 0.01 still a poor encoding?",
        quiz.option("Neighbouring positions get nearly equal values.", True,
                    "One step turns the angle by 0.01 radian, so the sine changes by at most 0.01 "
                    f"(ten rounding steps), and {_SAME_NEIGHBOURS} neighbouring pairs already "
                    "agree to 3 decimals. A slow wave blurs near positions (and keeps far ones "
                    "apart only while the whole sequence stays on its first rising flank, which "
                    "ends at the first peak, a quarter wavelength from 0; here the wavelength is "
                    f"2π/0.01 ≈ {2 * np.pi / 0.01:.0f}, so the flank ends near position "
                    f"{2 * np.pi / 0.01 / 4:.0f}); a fast wave separates neighbours "
                    "but repeats. Chapters 4 and 5 "
                    "combine frequencies to get both."),
        quiz.option("A slow sine is no longer bounded between −1 and 1.", False,
                    "Every sine stays in [−1, 1], whatever its frequency: ω changes how fast the "
                    "wave moves, not how high it goes."),
        quiz.option("On long sequences it collides more than ω = 1.", False,
                    f"False: on {_n(_LONG)} positions the two give about the same count "
                    f"({_n(_LONG001)} pairs for ω = 0.01, {_n(_LONG1)} for ω = 1). The problem shows "
                    "on short sequences already: neighbours are nearly indistinguishable."
                    ),
    ),
)
