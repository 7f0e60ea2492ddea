"""Exercise checkers for chapter 11 (stretching RoPE: turns per pair, NTK-aware, YaRN)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _encodings
from .. import rope_scaling as _scaling
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_ntk_frequencies", "check_turns_per_pair", "check_yarn_frequencies"]


def _omega(d: int, base: float) -> np.ndarray:
    return _encodings.frequencies(d, base)


# -- exercise 1: how many turns does each pair make in the trained context? -------------------
def check_turns_per_pair(student: Callable[[int, float, int], Any]) -> Report:
    """Exercise: ``turns_per_pair(d, base, L)`` = :math:`L\\,\\omega_i / (2\\pi)` for every pair."""
    cases = [
        ("d=128, base 10000, L=2048", (128, 10000.0, 2048)),
        ("d=64, base 500000, L=8192", (64, 500000.0, 8192)),
        ("d=16, base 100, L=32", (16, 100.0, 32)),
    ]

    def ref(d: int, base: float, L: int) -> np.ndarray:
        return _scaling.turns(d, base, L)

    def i_not_2i(d: int, base: float, L: int) -> np.ndarray:
        return L * base ** (-np.arange(d // 2) / d) / (2 * math.pi)

    diagnoses = [
        Diagnosis(lambda d, b, L: L * _omega(d, b),
                  "L * omega_i is the total angle in radians; one turn is 2*pi radians, so "
                  "divide by 2*pi."),
        Diagnosis(lambda d, b, L: L * _omega(d, b) / 360.0,
                  "omega_i is in radians per position, not degrees: one turn is 2*pi, not 360."),
        Diagnosis(lambda d, b, L: 2 * math.pi / (_omega(d, b) * L),
                  "that is wavelength / L, the inverse: turns = L / wavelength = "
                  "L * omega_i / (2*pi)."),
        Diagnosis(i_not_2i, "omega_i = base ** (-2i/d): the exponent uses 2i, not i."),
        Diagnosis(lambda d, b, L: (L - 1) * _omega(d, b) / (2 * math.pi),
                  "count the whole context, L positions, as in the text: L * omega_i / (2*pi)."),
    ]
    return run_checks("turns_per_pair", student, ref, cases, diagnoses)


# -- exercise 2: NTK-aware scaling ---------------------------------------------------------------
def check_ntk_frequencies(student: Callable[[int, float, float], Any]) -> Report:
    """Exercise: ``ntk_frequencies(d, base, factor)``: the frequencies with base
    :math:`n\\,s^{d/(d-2)}`."""
    cases = [
        ("d=16, base 10000, s=4", (16, 10000.0, 4.0)),
        ("d=128, base 10000, s=8", (128, 10000.0, 8.0)),
        ("d=64, base 500000, s=2.5", (64, 500000.0, 2.5)),
        ("d=8, base 100, s=1 (no change)", (8, 100.0, 1.0)),
    ]

    def ref(d: int, base: float, factor: float) -> np.ndarray:
        return _scaling.scaled_frequencies(d, factor, "ntk", base=base)[0]

    diagnoses = [
        Diagnosis(lambda d, b, s: _omega(d, b * s),
                  "multiply the base by s ** (d / (d - 2)), not by s: with base * s the slowest "
                  "pair is slowed by only s ** ((d - 2) / d), a bit less than s."),
        Diagnosis(lambda d, b, s: _omega(d, b * s ** ((d - 2) / d)),
                  "the exponent is d / (d - 2), chosen so that the slowest pair "
                  "(i = d/2 - 1) ends up divided by exactly s."),
        Diagnosis(lambda d, b, s: _omega(d, b) / s,
                  "dividing every frequency by s is linear Position Interpolation. NTK-aware "
                  "scaling changes the base instead, so the fastest pair keeps omega_0 = 1."),
        Diagnosis(lambda d, b, s: _omega(d, b / s ** (d / (d - 2))),
                  "divide the frequencies, do not speed them up: the base grows "
                  "(base * s ** (d/(d-2))), so every omega_i gets smaller or stays."),
    ]
    return run_checks("ntk_frequencies", student, ref, cases, diagnoses)


# -- exercise 3: YaRN's blend ---------------------------------------------------------------------
def _yarn_with(ramp: Callable[[int, float, float], np.ndarray], *, scale_up: bool = False,
               wavelengths: bool = False) -> Callable[..., np.ndarray]:
    """YaRN's blend built from ``ramp(d, low, high)``, optionally with one of the usual slips."""
    def wrong(d: int, base: float, factor: float, low: float, high: float) -> np.ndarray:
        omega = _omega(d, base)
        gamma = ramp(d, low, high)
        if wavelengths:  # blend the wavelengths instead: lambda' = lambda (1 - g) + s lambda g
            return omega / ((1.0 - gamma) + factor * gamma)
        inter = omega * factor if scale_up else omega / factor
        return inter * gamma + omega * (1.0 - gamma)

    return wrong


def _unclipped_ramp(d: int, low: float, high: float) -> np.ndarray:
    return (np.arange(d // 2, dtype=float) - low) / (high - low)


def check_yarn_frequencies(student: Callable[..., Any]) -> Report:
    """Exercise: ``yarn_frequencies(d, base, factor, low, high)``: keep pairs ``i <= low``,
    divide pairs ``i >= high`` by ``factor``, blend the frequencies linearly in between."""
    cases = [
        ("d=16, base 10000, s=4, low=2, high=6", (16, 10000.0, 4.0, 2, 6)),
        ("d=128, base 10000, s=8, low=20, high=46", (128, 10000.0, 8.0, 20, 46)),
        ("d=32, base 500000, s=16, low=3, high=9", (32, 500000.0, 16.0, 3, 9)),
    ]

    def ref(d: int, base: float, factor: float, low: float, high: float) -> np.ndarray:
        return _scaling.yarn_frequencies(d, factor, low, high, base)

    diagnoses = [
        Diagnosis(_yarn_with(_unclipped_ramp),
                  "clip the ramp to [0, 1]: without the clip, pairs below low get sped up and "
                  "pairs above high get divided by more than s."),
        Diagnosis(_yarn_with(lambda d, lo, hi: 1.0 - _scaling.yarn_ramp(d, lo, hi)),
                  "the ramp is the wrong way round: the fast pairs (small i, many turns) are "
                  "kept, the slow ones (large i) are interpolated."),
        Diagnosis(_yarn_with(_scaling.yarn_ramp, scale_up=True),
                  "interpolating means dividing the frequency by s (turning slower), not "
                  "multiplying it."),
        Diagnosis(_yarn_with(_scaling.yarn_ramp, wavelengths=True),
                  "blend the frequencies, omega_i / s * gamma + omega_i * (1 - gamma), not the "
                  "wavelengths: the two agree at the ends of the ramp but not in between."),
        Diagnosis(lambda d, b, s, lo, hi: _omega(d, b) / s,
                  "dividing every pair by s is plain Position Interpolation: YaRN keeps the "
                  "pairs i <= low unchanged."),
    ]
    return run_checks("yarn_frequencies", student, ref, cases, diagnoses)
