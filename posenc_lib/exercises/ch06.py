"""Exercise checkers for chapter 6 (the Transformer's sinusoidal encoding).

Close-but-valid answers: a table computed in float32 (positions or frequencies stored in float32,
as deep-learning code usually does) differs from the float64 reference by up to about 1e-5 on
these cases; it is *accepted with a note*. Another real convention, tensor2tensor's frequency
spacing n^(-i/(d/2-1)), is *rejected* with a hint that names it: the exercise asks for the
paper's formula.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import encodings as _enc
from .. import similarity as _sim
from .._validate import check_choice
from ._core import Diagnosis, Report, call_student, close, run_checks

__all__ = ["check_shift_matrix", "check_sinusoidal_encoding", "check_wavelength"]

#: Largest difference from the float64 reference that is accepted as float32 rounding.
FLOAT32_TOL = 1e-4


# -- exercise 1: the encoding -------------------------------------------------------------------
def _table(seq_len: int, d: int, omega_sin: np.ndarray, omega_cos: np.ndarray,
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


def _float32_rounding(student: Callable[..., Any],
                      reference: Callable[..., Any]) -> Callable[..., Any]:
    """A 'wrong answer' that is the learner's own result when it is within float32 rounding of
    the reference (so an ``accept=True`` diagnosis passes it with a note), else None."""
    def rounding(*args: Any) -> Any:
        status, got = call_student(student, args)
        if status == "ok" and close(got, reference(*args), atol=FLOAT32_TOL, rtol=0.0):
            return got
        return None

    return rounding


_FLOAT32_NOTE = ("your values differ from the float64 reference by more than 1e-6 but less than "
                 "1e-4: the size of float32 rounding (positions or frequencies stored in float32, "
                 "as in most deep-learning code). Accepted; the float32 section shows how this "
                 "error grows with the position.")


def check_sinusoidal_encoding(student: Callable[[int, int, float], Any],
                              layout: str = "interleaved") -> Report:
    r"""Exercise: ``sinusoidal_encoding(seq_len, d, base)`` — the ``(seq_len, d)`` table of PE.

    ``layout="interleaved"`` (the paper: sin at even dimensions, cos at odd ones) or
    ``"concat"`` (all sines, then all cosines, same frequencies). float32 arithmetic is accepted
    with a note; tensor2tensor's frequency spacing is rejected with a hint naming it.
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
                return _table(seq_len, d, w, w, np.cos, np.sin, layout=layout)
            if kind == "minus_sin":
                return _table(seq_len, d, w, w, lambda a: -np.sin(a), layout=layout)
            if kind == "no_cos":
                return _table(seq_len, d, w, w, second=np.zeros_like, layout=layout)
            if kind == "i_not_2i":
                w1 = pair_omega(d, base, 1.0)
                return _table(seq_len, d, w1, w1, layout=layout)
            if kind == "dim_index":  # exponent 2j/d with the dimension index j = 2i, 2i+1
                js = np.arange(0, d, 2)
                return _table(seq_len, d, base ** (-2.0 * js / d),
                              base ** (-2.0 * (js + 1) / d), layout=layout)
            if kind == "column_index":  # exponent j/d with the column index j = 2i, 2i+1
                js = np.arange(0, d, 2)
                return _table(seq_len, d, base ** (-1.0 * js / d),
                              base ** (-1.0 * (js + 1) / d), layout=layout)
            if kind == "inverted":
                return _table(seq_len, d, 1 / w, 1 / w, layout=layout)
            if kind == "degrees":
                return _table(seq_len, d, w * np.pi / 180, w * np.pi / 180, layout=layout)
            if kind == "layout":
                return _enc.sinusoidal(seq_len, d, base, layout=other)
            if kind == "start_at_1":
                return _table(seq_len, d, w, w, start=1, layout=layout)
            if kind == "fixed_base":
                return _enc.sinusoidal(seq_len, d, 10000.0, layout=layout)
            if kind == "t2t_spacing":
                wt = _sim.tensor2tensor_frequencies(d, base)
                return _table(seq_len, d, wt, wt, layout=layout)
            if kind == "t2t":
                return _sim.sinusoidal_tensor2tensor(np.arange(seq_len), d, base)
            raise AssertionError(kind)

        return f

    sin_where = "even dimensions 2i" if layout == "interleaved" else "the first d/2 dimensions"
    pe0 = "[0, 1, 0, 1, …]" if layout == "interleaved" else "[0, …, 0, 1, …, 1]"
    diagnoses = [
        Diagnosis(_float32_rounding(student, reference), _FLOAT32_NOTE, accept=True),
        Diagnosis(wrong("swapped"), f"sine and cosine are swapped: the sine goes to {sin_where}."),
        Diagnosis(wrong("minus_sin"),
                  "the sine has the wrong sign: PE(pos, 2i) = +sin(pos·ω_i). (A rotation "
                  "matrix has a −sin; the encoding itself does not.)"),
        Diagnosis(wrong("no_cos"),
                  "the cosine dimensions are empty (zeros): every pair holds the sine and the "
                  "cosine of the same angle pos·ω_i."),
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
        Diagnosis(wrong("start_at_1"), f"positions start at 0: row 0 is PE(0) = {pe0}."),
        Diagnosis(wrong("fixed_base"),
                  "your function ignores its base argument and always uses 10000: write "
                  "base ** (...) where you wrote 10000 ** (...)."),
        Diagnosis(wrong("t2t_spacing"),
                  "your frequencies are n^(-i/(d/2-1)), the spacing of tensor2tensor and "
                  "fairseq (its slowest frequency is exactly 1/n). That is a real convention, "
                  "but not the paper's: this exercise asks for ω_i = n^(-2i/d) = n^(-i/(d/2))."),
    ]
    if layout == "interleaved":  # in the concat layout this is the t2t_spacing answer above
        diagnoses.append(Diagnosis(
            wrong("t2t"),
            "that is tensor2tensor's table: all sines then all cosines, and frequencies "
            "n^(-i/(d/2-1)). It differs from the paper's by more than the order; this exercise "
            "asks for ω_i = n^(-2i/d) in the interleaved layout."))
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
    r"""Exercise: ``wavelength(i, d, base)`` — the period, in positions, of pair ``i``: :math:`2\pi n^{2i/d}`.

    The answer is one number.
    """
    two_pi = 2 * np.pi
    diagnoses = [
        Diagnosis(lambda i, d, base: base ** (2 * i / d),
                  "that is 1/ω, the number of positions per radian; one full turn is 2π radians, "
                  "so multiply by 2π."),
        Diagnosis(lambda i, d, base: base ** (-2 * i / d),
                  "that is the angular frequency ω_i; the wavelength is 2π/ω_i."),
        Diagnosis(lambda i, d, base: two_pi * base ** (-2 * i / d),
                  "you computed 2π·ω_i; the wavelength is 2π divided by ω_i."),
        Diagnosis(lambda i, d, base: two_pi * base ** (i / d),
                  "the exponent is 2i/d, not i/d."),
        Diagnosis(lambda i, d, base: base ** (2 * i / d) / two_pi,
                  "multiply by 2π, do not divide: a turn takes 2π radians, each position "
                  "advances the angle by ω_i."),
        Diagnosis(lambda i, d, base: np.pi * base ** (2 * i / d),
                  "one full turn is 2π radians, not π: you computed half a wavelength."),
        Diagnosis(lambda i, d, base: two_pi * base ** (4 * i / d),
                  "in 2i/d, i is the pair index; you put the dimension index 2i in its place "
                  "(exponent 4i/d)."),
        Diagnosis(lambda i, d, base: two_pi * base ** (2 * (i + 1) / d),
                  "pairs count from 0: pair 0 has wavelength 2π (ω_0 = 1); you used i + 1."),
        Diagnosis(lambda i, d, base: two_pi * base ** (i / max(d // 2 - 1, 1)),
                  "that is tensor2tensor's spacing, 2π·n^(i/(d/2-1)); the paper's wavelengths "
                  "are 2π·n^(2i/d)."),
        Diagnosis(lambda i, d, base: 360.0 * base ** (2 * i / d),
                  "a wavelength counts positions, and one turn is 2π radians (360 is in "
                  "degrees): 2π·n^(2i/d)."),
        Diagnosis(lambda i, d, base: two_pi * 10000.0 ** (2 * i / d),
                  "your function ignores its base argument and always uses 10000."),
    ]
    cases = [
        # chosen so that no two typical mistakes give the same number on a case
        ("i=2, d=8", (2, 8, 10000.0)),
        ("i=3, d=16", (3, 16, 10000.0)),
        ("base 10, d=16, i=5", (5, 16, 10.0)),
        ("pair 200 of d=512", (200, 512, 10000.0)),
        ("base 1000, d=64, i=20", (20, 64, 1000.0)),
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

    def wrong_way(k: float, d: int, base: float) -> np.ndarray | None:
        # for k < 0 the transposed blocks equal M(|k|): left to the next diagnosis
        return _sim.shift_matrix(-k, d, base) if k > 0 else None

    def sign_dropped(k: float, d: int, base: float) -> np.ndarray | None:
        return _sim.shift_matrix(-k, d, base) if k < 0 else None

    diagnoses = [
        Diagnosis(wrong_way,
                  "your blocks turn the wrong way. The textbook rotation [[cos, -sin], [sin, cos]] "
                  "acts on (cos, sin); a PE pair is (sin, cos), so its block is "
                  "[[cos kω, sin kω], [-sin kω, cos kω]] (check with sin(a+b) = sin a cos b + "
                  "cos a sin b)."),
        Diagnosis(sign_dropped,
                  "for a negative offset your matrix is M(|k|): it ignores the sign of k. Keep "
                  "the sign in the angle k·ω_i (if your positive offsets fail too, your blocks "
                  "turn the wrong way)."),
        Diagnosis(same_angle, "each pair turns by its own angle k·ω_i, not by k."),
        Diagnosis(lambda k, d, base: _sim.shift_matrix(k, d, base, layout="concat"),
                  "use the interleaved layout: pair i sits at dimensions 2i and 2i+1."),
        Diagnosis(lambda k, d, base: _sim.shift_matrix(k, d, base ** 0.5),
                  "the frequencies are n^(-2i/d): the exponent is 2i/d, not i/d."),
        Diagnosis(lambda k, d, base: _sim.shift_matrix(k, d, base ** 2.0),
                  "in n^(-2i/d), i is the pair index; you used the dimension index 2i "
                  "(exponent 4i/d)."),
        Diagnosis(lambda k, d, base: _sim.shift_matrix(k * np.pi / 180, d, base),
                  "numpy's cos and sin take radians: do not convert the angle from degrees."),
    ]
    cases = [
        ("d=4, k=1", (1.0, 4, 10000.0)),
        ("d=8, base 1000, k=5", (5.0, 8, 1000.0)),
        ("a negative offset, k=-2", (-2.0, 6, 10000.0)),
        ("d=16, a long offset k=40", (40.0, 16, 10000.0)),
    ]
    return run_checks("shift_matrix", student, reference, cases, diagnoses)
