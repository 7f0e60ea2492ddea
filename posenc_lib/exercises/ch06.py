"""Exercise checkers for chapter 6 (the Transformer's sinusoidal encoding)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _enc
from .. import similarity as _sim
from .._validate import check_choice
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_shift_matrix", "check_sinusoidal_encoding", "check_wavelength"]


# -- exercise 1: the encoding -------------------------------------------------------------------
def _table(seq_len: int, d: int, base: float, omega_sin: np.ndarray, omega_cos: np.ndarray,
           first: Callable[[np.ndarray], np.ndarray] = np.sin,
           second: Callable[[np.ndarray], np.ndarray] = np.cos,
           start: int = 0, layout: str = "interleaved") -> np.ndarray:
    """A (seq_len, d) table with ``first(pos*omega_sin)`` and ``second(pos*omega_cos)`` columns."""
    pos = np.arange(start, start + seq_len, dtype=float)[:, None]
    out = np.empty((seq_len, d))
    a, b = first(pos * omega_sin), second(pos * omega_cos)
    if layout == "interleaved":
        out[:, 0::2], out[:, 1::2] = a, b
    else:
        out[:, : d // 2], out[:, d // 2:] = a, b
    return out


def check_sinusoidal_encoding(student: Callable[[int, int, float], Any],
                              layout: str = "interleaved") -> Report:
    r"""Exercise: ``sinusoidal_encoding(seq_len, d, base)`` — the ``(seq_len, d)`` table of PE.

    ``layout="interleaved"`` (the paper: sin at even dimensions, cos at odd ones) or
    ``"concat"`` (all sines, then all cosines).
    """
    layout = check_choice("layout", layout, _enc.LAYOUTS)
    other = "concat" if layout == "interleaved" else "interleaved"

    def reference(seq_len: int, d: int, base: float) -> np.ndarray:
        return _enc.sinusoidal(seq_len, d, base, layout=layout)

    def pair_omega(d: int, base: float, power: float = 2.0) -> np.ndarray:
        return base ** (-power * np.arange(d // 2) / d)

    def wrong(kind: str) -> Callable[[int, int, float], np.ndarray]:
        def f(seq_len: int, d: int, base: float) -> np.ndarray:
            w = pair_omega(d, base)
            if kind == "swapped":
                return _table(seq_len, d, base, w, w, np.cos, np.sin, layout=layout)
            if kind == "i_not_2i":
                w1 = pair_omega(d, base, 1.0)
                return _table(seq_len, d, base, w1, w1, layout=layout)
            if kind == "dim_index":  # exponent 2j/d with the dimension index j = 2i, 2i+1
                js = np.arange(0, d, 2)
                return _table(seq_len, d, base, base ** (-2.0 * js / d),
                              base ** (-2.0 * (js + 1) / d), layout=layout)
            if kind == "column_index":  # exponent j/d with the column index j = 2i, 2i+1
                js = np.arange(0, d, 2)
                return _table(seq_len, d, base, base ** (-1.0 * js / d),
                              base ** (-1.0 * (js + 1) / d), layout=layout)
            if kind == "inverted":
                return _table(seq_len, d, base, 1 / w, 1 / w, layout=layout)
            if kind == "degrees":
                return _table(seq_len, d, base, w * np.pi / 180, w * np.pi / 180, layout=layout)
            if kind == "layout":
                return _enc.sinusoidal(seq_len, d, base, layout=other)
            if kind == "start_at_1":
                return _table(seq_len, d, base, w, w, start=1, layout=layout)
            raise AssertionError(kind)

        return f

    sin_where = "even dimensions 2i" if layout == "interleaved" else "the first d/2 dimensions"
    diagnoses = [
        Diagnosis(wrong("swapped"), f"sine and cosine are swapped: the sine goes to {sin_where}."),
        Diagnosis(wrong("i_not_2i"), "the exponent is 2i/d, not i/d (i counts pairs: 0 … d/2-1)."),
        Diagnosis(wrong("dim_index"),
                  "use the pair index i in the exponent 2i/d, not the dimension index 2i or "
                  "2i+1: both dimensions of a pair share one frequency."),
        Diagnosis(wrong("column_index"),
                  "sin and cos of one pair must share one frequency n^(-2i/d); with "
                  "n ** (-j/d) for the column j, the cosine column gets a different one."),
        Diagnosis(wrong("inverted"),
                  "divide the position by n^(2i/d) (frequencies fall with i); you multiplied."),
        Diagnosis(wrong("degrees"),
                  "numpy's sin and cos take radians: do not convert the angle from degrees."),
        Diagnosis(wrong("layout"),
                  f"right numbers, wrong order: you built the {other} layout, this check asks "
                  f"for {layout} (pass layout='{other}' to the checker if that is what you want)."),
        Diagnosis(wrong("start_at_1"), "positions start at 0: row 0 is PE(0) = [0, 1, 0, 1, …]."),
    ]
    cases = [
        ("2 positions, d=4", (2, 4, 10000.0)),
        ("101 positions, d=8", (101, 8, 10000.0)),
        ("d=6, base 100", (20, 6, 100.0)),
        ("d=64, base 10000", (50, 64, 10000.0)),
    ]
    return run_checks(f"sinusoidal_encoding ({layout})", student, reference, cases, diagnoses)


# -- exercise 2: the wavelength of pair i ----------------------------------------------------
def _wavelength_ref(i: int, d: int, base: float) -> float:
    return float(_enc.wavelengths(d, base)[i])


def check_wavelength(student: Callable[[int, int, float], Any]) -> Report:
    r"""Exercise: ``wavelength(i, d, base)`` — the period, in positions, of pair ``i``: :math:`2\pi n^{2i/d}`."""
    diagnoses = [
        Diagnosis(lambda i, d, base: base ** (2 * i / d),
                  "that is 1/ω, the number of positions per radian; one full turn is 2π radians, "
                  "so multiply by 2π."),
        Diagnosis(lambda i, d, base: base ** (-2 * i / d),
                  "that is the angular frequency ω_i; the wavelength is 2π/ω_i."),
        Diagnosis(lambda i, d, base: 2 * np.pi * base ** (-2 * i / d),
                  "you computed 2π·ω_i; the wavelength is 2π divided by ω_i."),
        Diagnosis(lambda i, d, base: 2 * np.pi * base ** (i / d),
                  "the exponent is 2i/d, not i/d."),
        Diagnosis(lambda i, d, base: base ** (2 * i / d) / (2 * np.pi),
                  "multiply by 2π, do not divide: a turn takes 2π radians, each position "
                  "advances the angle by ω_i."),
    ]
    cases = [
        ("i=1, d=8", (1, 8, 10000.0)),
        ("i=3, d=8", (3, 8, 10000.0)),
        ("base 10, d=16, i=5", (5, 16, 10.0)),
        ("slowest pair of d=512", (255, 512, 10000.0)),
        ("base 100, d=64, i=20", (20, 64, 100.0)),
    ]
    return run_checks("wavelength", student, _wavelength_ref, cases, diagnoses)


# -- exercise 3: the shift matrix ------------------------------------------------------------
def check_shift_matrix(student: Callable[[float, int, float], Any]) -> Report:
    r"""Exercise: ``shift_matrix(k, d, base)`` with ``shift_matrix(k, d, base) @ PE(p) == PE(p + k)``.

    Interleaved layout; one 2x2 block per pair.
    """
    def reference(k: float, d: int, base: float) -> np.ndarray:
        return _sim.shift_matrix(k, d, base)

    def same_angle(k: float, d: int, base: float) -> np.ndarray:
        return _sim.shift_matrix(k, d, 1.0)  # base 1: every omega_i = 1

    diagnoses = [
        Diagnosis(lambda k, d, base: _sim.shift_matrix(-k, d, base),
                  "your blocks turn the wrong way. The textbook rotation [[cos, -sin], [sin, cos]] "
                  "acts on (cos, sin); a PE pair is (sin, cos), so its block is "
                  "[[cos kω, sin kω], [-sin kω, cos kω]] (check with sin(a+b) = sin a cos b + "
                  "cos a sin b)."),
        Diagnosis(same_angle, "each pair turns by its own angle k·ω_i, not by k."),
        Diagnosis(lambda k, d, base: _sim.shift_matrix(k, d, base, layout="concat"),
                  "use the interleaved layout: pair i sits at dimensions 2i and 2i+1."),
        Diagnosis(lambda k, d, base: _sim.shift_matrix(k, d, base ** 0.5),
                  "the frequencies are n^(-2i/d): the exponent is 2i/d, not i/d."),
    ]
    cases = [
        ("one pair, k=1", (1.0, 2, 10000.0)),
        ("d=4, k=3", (3.0, 4, 10000.0)),
        ("d=8, base 100, k=5", (5.0, 8, 100.0)),
        ("a negative offset, k=-2", (-2.0, 6, 10000.0)),
    ]
    return run_checks("shift_matrix", student, reference, cases, diagnoses)
