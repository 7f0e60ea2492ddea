"""Exercise checkers for chapter 11 (stretching RoPE: turns per pair, NTK-aware, YaRN).

The chapter writes the frequencies :math:`\\theta_i = n^{-2i/d}` (``omega`` in the library's code);
the hints use ``theta_i`` too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...maths import encodings as _encodings
from ...maths import rope_scaling as _scaling
from ._core import Diagnosis, Report, call_student, close, run_checks

__all__ = ["check_ntk_frequencies", "check_turns_per_pair", "check_yarn_by_parts"]


def _theta(d: int, base: float) -> np.ndarray:
    return _encodings.frequencies(d, base)


def _returned_a_pair(title: str, student: Callable[..., Any],
                     cases: Sequence[tuple[str, tuple[Any, ...]]]) -> Report | None:
    """A report if the learner returned ``(frequencies, scale)`` like ``scaled_frequencies``."""
    status, got = call_student(student, cases[0][1])
    if status != "ok" or not isinstance(got, (tuple, list)) or len(got) != 2:
        return None
    first, second = got
    if np.ndim(second) != 0 or isinstance(second, str):
        return None
    try:
        shape = np.shape(first)
    except (TypeError, ValueError):
        return None
    if len(shape) != 1:
        return None
    return Report(title, 0, len(cases), [
        "your function returned two things, an array and a number, like "
        "`rope_scaling.scaled_frequencies`, which returns `(frequencies, attention_scale)`. "
        "Return only the array of frequencies (with the library: its `[0]`)."])


def _first_wins(diagnoses: Sequence[Diagnosis]) -> list[Diagnosis]:
    """The diagnoses, each silenced on a case where an earlier one gives the same wrong answer.

    ``run_checks`` joins the hints of every diagnosis that matches; two mistakes that happen to
    coincide on one case (rounding inward and to the nearest integer, say) would then produce two
    hints glued together. Here only the first (the more general one, listed earlier) speaks.
    """
    out: list[Diagnosis] = []
    for k, d in enumerate(diagnoses):
        earlier = tuple(diagnoses[:k])

        def wrong(*args: Any, _d: Diagnosis = d, _earlier: tuple[Diagnosis, ...] = earlier) -> Any:
            mine = _d.wrong(*args)
            for e in _earlier:
                try:
                    with np.errstate(all="ignore"):
                        theirs = e.wrong(*args)
                except Exception:  # an earlier diagnosis that does not apply here
                    continue
                if close(mine, theirs):
                    return None
            return mine

        out.append(Diagnosis(wrong, d.hint, d.accept))
    return out


# -- exercise 1: how many turns does each pair make in the trained context? -------------------
def check_turns_per_pair(student: Callable[[int, float, int], Any]) -> Report:
    """Exercise: ``turns_per_pair(d, base, L)`` = :math:`L\\,\\theta_i / (2\\pi)` for every pair."""
    cases = [
        ("d=128, base 10000, L=2048", (128, 10000.0, 2048)),
        ("d=64, base 500000, L=8192", (64, 500000.0, 8192)),
        ("d=16, base 100, L=32", (16, 100.0, 32)),
    ]

    def ref(d: int, base: float, L: int) -> np.ndarray:
        return _scaling.turns(d, base, L)

    def i_not_2i(d: int, base: float, L: int) -> np.ndarray:
        return L * base ** (-np.arange(d // 2) / d) / (2 * math.pi)

    def two_i_twice(d: int, base: float, L: int) -> np.ndarray:  # i = np.arange(0, d, 2), then 2i
        return L * base ** (-2.0 * np.arange(0, d, 2) / d) / (2 * math.pi)

    diagnoses = [
        Diagnosis(lambda d, b, L: L * _theta(d, b),
                  "L * theta_i is the total angle in radians; one turn is 2*pi radians, so "
                  "divide by 2*pi."),
        Diagnosis(lambda d, b, L: L * _theta(d, b) / math.pi,
                  "one full turn is 2*pi radians, not pi: divide L * theta_i by 2*pi."),
        Diagnosis(lambda d, b, L: L * _theta(d, b) / 360.0,
                  "theta_i is in radians per position, not degrees: one turn is 2*pi, not 360."),
        Diagnosis(lambda d, b, L: 2 * math.pi / (_theta(d, b) * L),
                  "that is wavelength / L, the inverse: turns = L / wavelength = "
                  "L * theta_i / (2*pi)."),
        Diagnosis(lambda d, b, L: 2 * math.pi / _theta(d, b),
                  "those are the wavelengths 2*pi / theta_i (positions per turn). The number of "
                  "turns in L positions is L / wavelength = L * theta_i / (2*pi)."),
        Diagnosis(i_not_2i, "theta_i = base ** (-2i/d): the exponent uses 2i, not i."),
        Diagnosis(two_i_twice,
                  "`np.arange(0, d, 2)` already counts 0, 2, 4, … = 2i; multiplying it by 2 "
                  "again gives base ** (-4i/d). Use `2 * np.arange(d // 2)` or "
                  "`np.arange(0, d, 2)`, not both."),
        Diagnosis(lambda d, b, L: L * b ** (2.0 * np.arange(d // 2) / d) / (2 * math.pi),
                  "the exponent is negative: theta_i = base ** (-2i/d) gets smaller as i grows."),
        Diagnosis(lambda d, b, L: (L - 1) * _theta(d, b) / (2 * math.pi),
                  "count the whole context, L positions, as in the text: L * theta_i / (2*pi)."),
        Diagnosis(lambda d, b, L: L * b ** (-2.0 * np.arange(1, d // 2 + 1) / d) / (2 * math.pi),
                  "count the pairs from i = 0, not from 1: pair 0 is the fastest, with "
                  "theta_0 = base ** 0 = 1. Use `np.arange(d // 2)`."),
        Diagnosis(lambda d, b, L: ref(d, b, L)[::-1],
                  "your values come in reverse order: pair 0 is the fastest (theta_0 = 1, the "
                  "most turns), so r_i should decrease as i grows."),
        Diagnosis(lambda d, b, L: np.floor(ref(d, b, L)),
                  "r_i is a real number, not a count of whole turns: a slow pair makes only a "
                  "fraction of a turn. Do not round down (no `//`, `int` or `floor`)."),
        Diagnosis(lambda d, b, L: np.repeat(ref(d, b, L), 2),
                  "return one value per pair, i = 0 … d/2 - 1 (d/2 values), not one per "
                  "dimension: both coordinates of a pair turn together."),
        Diagnosis(lambda d, b, L: L * b ** (-np.arange(d) / d) / (2 * math.pi),
                  "return one value per pair, i = 0 … d/2 - 1 (d/2 values), not one per "
                  "dimension: both coordinates of a pair turn together."),
        Diagnosis(lambda d, b, L: L * b ** (-2.0 * np.arange(d) / d) / (2 * math.pi),
                  "return one value per pair, i = 0 … d/2 - 1 (d/2 values), not one per "
                  "dimension: both coordinates of a pair turn together."),
    ]
    return run_checks("turns_per_pair", student, ref, cases, _first_wins(diagnoses))


# -- exercise 2: NTK-aware scaling ---------------------------------------------------------------
def check_ntk_frequencies(student: Callable[[int, float, float], Any]) -> Report:
    """Exercise: ``ntk_frequencies(d, base, factor)``: the frequencies with base
    :math:`n\\,s^{d/(d-2)}`."""
    cases = [
        ("d=16, base 10000, s=4", (16, 10000.0, 4.0)),
        ("d=128, base 10000, s=8", (128, 10000.0, 8.0)),
        ("d=64, base 500000, s=2.5", (64, 500000.0, 2.5)),
        ("d=16, base 100, s=4", (16, 100.0, 4.0)),
        ("d=8, base 100, s=1 (no change)", (8, 100.0, 1.0)),
    ]

    def ref(d: int, base: float, factor: float) -> np.ndarray:
        return _scaling.scaled_frequencies(d, factor, "ntk", base=base)[0]

    pair = _returned_a_pair("ntk_frequencies", student, cases)
    if pair is not None:
        return pair
    diagnoses = [
        Diagnosis(lambda d, b, s: _theta(d, b * s),
                  "multiply the base by s ** (d / (d - 2)), not by s: with base * s the slowest "
                  "pair is slowed by only s ** ((d - 2) / d), a bit less than s. (If you wrote "
                  "`d // (d - 2)`: that is integer division, which gives 1 for d > 4; use `/`.)"),
        Diagnosis(lambda d, b, s: _theta(d, b * s ** ((d - 2) / d)),
                  "the exponent is d / (d - 2), chosen so that the slowest pair "
                  "(i = d/2 - 1) ends up divided by exactly s."),
        Diagnosis(lambda d, b, s: _theta(d, (b * s) ** (d / (d - 2))),
                  "only s is raised to the power d / (d - 2): the new base is "
                  "base * s ** (d / (d - 2)), with the base itself not raised."),
        Diagnosis(lambda d, b, s: _theta(d, b) / s,
                  "dividing every frequency by s is linear Position Interpolation. NTK-aware "
                  "scaling changes the base instead, so the fastest pair keeps theta_0 = 1."),
        Diagnosis(lambda d, b, s: _theta(d, b / s ** (d / (d - 2))),
                  "divide the frequencies, do not speed them up: the base grows "
                  "(base * s ** (d/(d-2))), so every theta_i gets smaller or stays."),
        Diagnosis(lambda d, b, s: _theta(d, b ** (d / (d - 2)) * s),
                  "only s is raised to the power d / (d - 2): the new base is "
                  "base * s ** (d / (d - 2)), with the base itself not raised."),
        Diagnosis(lambda d, b, s: (b * s ** (d / (d - 2))) ** (-2.0 * np.arange(d // 2) / (d - 2)),
                  "the frequencies are new_base ** (-2i/d): the d - 2 belongs only in the "
                  "exponent d / (d - 2) of s inside the new base, not in the frequencies' "
                  "exponent."),
        Diagnosis(lambda d, b, s: (b * s ** (d / (d - 2))) ** (-np.arange(d // 2) / d),
                  "the frequencies are new_base ** (-2i/d): the exponent uses 2i, not i."),
        Diagnosis(lambda d, b, s: 2 * math.pi / ref(d, b, s),
                  "those are wavelengths, 2*pi / theta'_i (positions per turn). Return the "
                  "frequencies theta'_i = new_base ** (-2i/d), in radians per position."),
        Diagnosis(lambda d, b, s: _theta(d, b),
                  "those are the original frequencies: NTK-aware scaling raises the base to "
                  "base * s ** (d / (d - 2)) before computing new_base ** (-2i/d)."),
        Diagnosis(lambda d, b, s: (b * s ** (d / (d - 2))) ** (-2.0 * np.arange(d) / d),
                  "return one frequency per pair, i = 0 … d/2 - 1 (d/2 values), not one per "
                  "dimension."),
        Diagnosis(lambda d, b, s: np.repeat(ref(d, b, s), 2),
                  "return one frequency per pair, i = 0 … d/2 - 1 (d/2 values), not one per "
                  "dimension."),
    ]
    return run_checks("ntk_frequencies", student, ref, cases, diagnoses)


# -- exercise 3: YaRN ("NTK-by-parts"), boundaries and blend ----------------------------------
_BETA_FAST, _BETA_SLOW = 32.0, 1.0


def _boundary(beta: float, d: int, base: float, L: float) -> float:
    """The fractional pair index that makes exactly ``beta`` turns over ``L`` positions."""
    return d * math.log(L / (2 * math.pi * beta)) / (2 * math.log(base))


def _yarn(d: int, factor: float, base: float, L: float, *, low: float | None = None,
          high: float | None = None, index: Callable[[int], np.ndarray] | None = None,
          denominator_plus_one: bool = False, clip: bool = True, blend: str = "linear",
          scale_up: bool = False) -> np.ndarray:
    """YaRN's frequencies, optionally with one of the usual slips."""
    theta = _theta(d, base)
    lo = math.floor(_boundary(_BETA_FAST, d, base, L)) if low is None else low
    hi = math.ceil(_boundary(_BETA_SLOW, d, base, L)) if high is None else high
    i = np.arange(d // 2, dtype=float) if index is None else index(d)
    rho = (i - lo) / (hi - lo + (1 if denominator_plus_one else 0))
    if clip:
        rho = np.clip(rho, 0.0, 1.0)
    if blend == "wavelengths":  # lambda' = (1 - rho) lambda + rho s lambda
        return theta / ((1.0 - rho) + factor * rho)
    if blend == "geometric":  # theta' = theta s^(-rho)
        return theta * factor ** (-rho)
    inter = theta * factor if scale_up else theta / factor
    return (1.0 - rho) * theta + rho * inter


def _yarn_paper(d: int, factor: float, base: float, L: float) -> np.ndarray:
    theta = _theta(d, base)
    gamma = np.clip((L * theta / (2 * math.pi) - _BETA_SLOW) / (_BETA_FAST - _BETA_SLOW), 0, 1)
    return (1.0 - gamma) * theta / factor + gamma * theta


def check_yarn_by_parts(student: Callable[[int, float, float, int], Any]) -> Report:
    """Exercise: ``yarn_by_parts(d, factor, base, L)``: YaRN's frequencies with the reference
    code's ramp (boundaries ``low = floor(i(32))``, ``high = ceil(i(1))``, linear in the pair
    index between). The paper's ramp, linear in the number of turns, is accepted with a note."""
    cases = [
        ("d=128, s=8, base 10000, L=2048", (128, 8.0, 10000.0, 2048)),
        ("d=64, s=4, base 500000, L=8192", (64, 4.0, 500000.0, 8192)),
        ("d=32, s=16, base 10000, L=4096", (32, 16.0, 10000.0, 4096)),
        ("d=24, s=2.5, base 300, L=512", (24, 2.5, 300.0, 512)),
    ]

    def ref(d: int, factor: float, base: float, L: int) -> np.ndarray:
        return _scaling.scaled_frequencies(d, factor, "yarn", base=base, original_max_len=L)[0]

    pair = _returned_a_pair("yarn_by_parts", student, cases)
    if pair is not None:
        return pair

    def unrounded(d, s, b, L):
        return _yarn(d, s, b, L, low=_boundary(_BETA_FAST, d, b, L),
                     high=_boundary(_BETA_SLOW, d, b, L))

    def rounded_inward(d, s, b, L):
        return _yarn(d, s, b, L, low=math.ceil(_boundary(_BETA_FAST, d, b, L)),
                     high=math.floor(_boundary(_BETA_SLOW, d, b, L)))

    def rounded_nearest(d, s, b, L):
        return _yarn(d, s, b, L, low=round(_boundary(_BETA_FAST, d, b, L)),
                     high=round(_boundary(_BETA_SLOW, d, b, L)))

    def rounded_narrow(d, s, b, L):  # only where inward and nearest rounding coincide
        inward, nearest = rounded_inward(d, s, b, L), rounded_nearest(d, s, b, L)
        return inward if close(inward, nearest) else None

    def mixed_logs(numerator: Callable[[float], float], denominator: Callable[[float], float]
                   ) -> Callable[..., np.ndarray]:
        def wrong(d, s, b, L):
            def i_of(beta: float) -> float:
                return d * numerator(L / (2 * math.pi * beta)) / (2 * denominator(b))
            return _yarn(d, s, b, L, low=math.floor(i_of(_BETA_FAST)),
                         high=math.ceil(i_of(_BETA_SLOW)))
        return wrong

    def swapped_betas(d, s, b, L):
        return _yarn(d, s, b, L, low=math.floor(_boundary(_BETA_SLOW, d, b, L)),
                     high=math.ceil(_boundary(_BETA_FAST, d, b, L)))

    def half_d(d, s, b, L):  # i(beta) with d/2, the number of pairs, in place of d
        def i_of(beta: float) -> float:
            return (d / 2) * math.log(L / (2 * math.pi * beta)) / (2 * math.log(b))
        return _yarn(d, s, b, L, low=math.floor(i_of(_BETA_FAST)),
                     high=math.ceil(i_of(_BETA_SLOW)))

    def both_down(d, s, b, L):  # int() or floor on both boundaries
        return _yarn(d, s, b, L, low=math.floor(_boundary(_BETA_FAST, d, b, L)),
                     high=math.floor(_boundary(_BETA_SLOW, d, b, L)))

    def paper_gamma_reversed(d, s, b, L):  # the paper's gamma read as the share interpolated
        theta = _theta(d, b)
        gamma = np.clip((L * theta / (2 * math.pi) - _BETA_SLOW) / (_BETA_FAST - _BETA_SLOW), 0, 1)
        return gamma * theta / s + (1.0 - gamma) * theta

    def hard_switch(d, s, b, L):  # keep the pairs with a turn or more, divide the rest, no ramp
        theta = _theta(d, b)
        return np.where(L * theta / (2 * math.pi) >= _BETA_SLOW, theta, theta / s)

    def no_two_pi(d, s, b, L):
        def i_of(beta: float) -> float:
            return d * math.log(L / beta) / (2 * math.log(b))
        return _yarn(d, s, b, L, low=math.floor(i_of(_BETA_FAST)),
                     high=math.ceil(i_of(_BETA_SLOW)))

    diagnoses = [
        Diagnosis(_yarn_paper,
                  "you wrote the ramp as the YaRN paper defines it, linear in the number of "
                  "turns r_i (gamma = clip((r - 1) / 31, 0, 1), 1 = keep). That is a valid YaRN; "
                  "the exercise asked for the reference code's ramp (used by Hugging Face, "
                  "llama.cpp and `posenc_lib`), linear in the pair index between low and high. "
                  "When some pair makes at least 32 turns (low >= 0, as in this exercise), both "
                  "keep and fully interpolate the same pairs and differ only on the ramp.",
                  accept=True),
        Diagnosis(paper_gamma_reversed,
                  "you used the paper's ramp the wrong way round: in the paper gamma = 1 means "
                  "*keep* the pair (theta' = (1 - gamma) * theta / s + gamma * theta), the "
                  "opposite of the code's rho, where 1 means interpolate."),
        Diagnosis(hard_switch,
                  "there is no ramp: you kept every pair with at least one turn and divided "
                  "the rest by s. YaRN keeps pairs i <= low, divides pairs i >= high by s and "
                  "blends linearly in between."),
        Diagnosis(half_d,
                  "in i(beta) = d * ln(L / (2*pi*beta)) / (2 ln base), d is the head dimension, "
                  "not the number of pairs d/2."),
        Diagnosis(both_down,
                  "high rounds up: low = floor(i(32)) but high = ceil(i(1)), not down and not "
                  "to the nearest integer. Here int(), floor or round on both boundaries all "
                  "give this ramp, which ends one pair early."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, L, clip=False),
                  "clip the ramp to [0, 1]: without the clip, pairs below low get sped up and "
                  "pairs above high get divided by more than s."),
        Diagnosis(lambda d, s, b, L: (lambda t, r: r * t + (1 - r) * t / s)(
                      _theta(d, b), _scaling.yarn_ramp(
                          d, math.floor(_boundary(_BETA_FAST, d, b, L)),
                          math.ceil(_boundary(_BETA_SLOW, d, b, L)))),
                  "the ramp is the wrong way round: the fast pairs (small i, at least 32 turns) "
                  "are kept, the slow ones (large i, under one turn) are divided by s. low comes "
                  "from beta = 32, high from beta = 1, and rho_i = 0 means keep."),
        Diagnosis(swapped_betas,
                  "you swapped the two thresholds: low comes from beta_fast = 32 (the fast pairs, "
                  "which turn at least 32 times and are kept) and high from beta_slow = 1 (the "
                  "pairs under one turn, divided by s): low = floor(i(32)), high = ceil(i(1))."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, L, scale_up=True),
                  "interpolating means dividing the frequency by s (turning slower), not "
                  "multiplying it."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, L, blend="wavelengths"),
                  "blend the frequencies, (1 - rho) * theta_i + rho * theta_i / s, not the "
                  "wavelengths: the two agree at the ends of the ramp but not in between."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, L, blend="geometric"),
                  "blend the frequencies linearly, (1 - rho) * theta_i + rho * theta_i / s; "
                  "theta_i * s ** (-rho) is a geometric blend, which agrees only at the ends of "
                  "the ramp."),
        Diagnosis(lambda d, s, b, L: _theta(d, b) / s,
                  "dividing every pair by s is plain Position Interpolation: YaRN keeps the "
                  "pairs i <= low unchanged."),
        Diagnosis(lambda d, s, b, L: _scaling.scaled_frequencies(d, s, "ntk", base=b)[0],
                  "those are NTK-aware frequencies (a larger base). YaRN keeps pairs i <= low, "
                  "divides pairs i >= high by s and blends linearly in between."),
        Diagnosis(unrounded,
                  "round the boundaries outward to whole pair indices: low = floor(i(32)), "
                  "high = ceil(i(1))."),
        Diagnosis(rounded_narrow,
                  "round the boundaries outward: low = floor(i(32)) (down) and high = ceil(i(1)) "
                  "(up). Rounding inward or to the nearest integer gives the same, too narrow, "
                  "ramp here."),
        Diagnosis(rounded_inward,
                  "round the boundaries outward, not inward: low = floor(i(32)) (round down) "
                  "and high = ceil(i(1)) (round up), so the ramp covers every pair in between."),
        Diagnosis(rounded_nearest,
                  "round the boundaries outward, not to the nearest integer: "
                  "low = floor(i(32)), high = ceil(i(1))."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, s * L),
                  "the boundaries use the original training length L, not the new length "
                  "s * L (Hugging Face's original_max_position_embeddings)."),
        Diagnosis(no_two_pi,
                  "a pair makes r = L / wavelength = L * theta_i / (2*pi) turns, so "
                  "i(beta) = d * ln(L / (2*pi*beta)) / (2 ln base): the 2*pi is missing."),
        Diagnosis(mixed_logs(math.log, math.log10),
                  "use the same logarithm above and below in i(beta) = d * ln(L / (2*pi*beta)) "
                  "/ (2 ln base): mixing `np.log` and `np.log10` moves the boundaries."),
        Diagnosis(mixed_logs(math.log10, math.log),
                  "use the same logarithm above and below in i(beta) = d * ln(L / (2*pi*beta)) "
                  "/ (2 ln base): mixing `np.log` and `np.log10` moves the boundaries."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, L, index=lambda d: np.arange(0, d, 2)),
                  "the ramp runs over the pair index i = 0 … d/2 - 1; `np.arange(0, d, 2)` "
                  "gives 2i."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, L, index=lambda d: np.arange(1, d // 2 + 1)),
                  "count the pairs from i = 0, not from 1."),
        Diagnosis(lambda d, s, b, L: _yarn(d, s, b, L, denominator_plus_one=True),
                  "the ramp is (i - low) / (high - low): it reaches 1 exactly at i = high, so "
                  "no + 1 in the denominator."),
        Diagnosis(lambda d, s, b, L: _yarn(d, b, s, L),
                  "the arguments come in the order (d, factor, base, L), as in "
                  "`scaled_frequencies(d, factor, method, base, original_max_len)`: you swapped "
                  "factor and base."),
        Diagnosis(lambda d, s, b, L: ref(d, s, b, L) * (0.1 * math.log(s) + 1.0),
                  "the attention scale 0.1 * ln(s) + 1 is not part of the frequencies: it "
                  "multiplies q and k (so the logits grow by its square). Return the blended "
                  "frequencies only."),
    ]
    return run_checks("yarn_by_parts", student, ref, cases, _first_wins(diagnoses))
