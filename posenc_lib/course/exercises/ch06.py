"""Exercise checkers for chapter 6 (the Transformer's sinusoidal encoding).

Close-but-valid answers: a table computed in float32 (positions or frequencies stored in float32,
as deep-learning code usually does) differs from the float64 reference by a few millionths on
these cases (at most about 3e-6 for the usual recipes); it is *accepted with a note* up to
:data:`FLOAT32_TOL`, and anything further off is an error. Another real convention,
tensor2tensor's frequency spacing n^(-i/(d/2-1)), is *rejected* with a hint that names it: the
exercise asks for the paper's formula.

The cases of each checker are chosen so that no two typical mistakes produce the same numbers on
any case (``tests/chapters/test_ch06.py`` checks it): a hint never names a mistake the
learner did not make.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...checks import check_choice
from ...maths import encodings as _enc
from ...maths import similarity as _sim
from ._core import Diagnosis, Report, call_student, close, run_checks

__all__ = ["check_shift_matrix", "check_sinusoidal_encoding", "check_wavelength"]

#: Largest difference from the float64 reference that is accepted as float32 rounding: about three
#: times the largest error of the usual float32 recipes on the cases of exercise 1 (measured in
#: ``tests/chapters/test_ch06.py``), so that a constant error of 2e-5 is already rejected.
FLOAT32_TOL = 1e-5


# -- exercise 1: the encoding -------------------------------------------------------------------
#: (name, (seq_len, d, base)). Not d = 4 (there the exponent 4i/d equals tensor2tensor's spacing
#: i/(d/2-1)) and not base 100 (there 100^(4i/d) = 10000^(2i/d), a hard-coded base).
ENCODING_CASES: list[tuple[str, tuple[int, int, float]]] = [
    ("2 positions, d=6", (2, 6, 10000.0)),
    ("101 positions, d=8", (101, 8, 10000.0)),
    ("d=10, base 10", (20, 10, 10.0)),
    ("50 positions, d=64", (50, 64, 10000.0)),
]


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


def _float32_rounding(student: Callable[..., Any], reference: Callable[..., Any],
                      single: bool = True) -> Callable[..., Any]:
    """A 'wrong answer' that is the learner's own result when it is within float32 rounding of
    the reference (so an ``accept=True`` diagnosis passes it with a note), else None.

    ``single=True`` matches results stored in a float dtype of 32 bits or fewer, ``False`` the
    others (a float64 result this close was computed partly in float32, or is slightly off)."""
    def rounding(*args: Any) -> Any:
        status, got = call_student(student, args)
        if status != "ok" or not close(got, reference(*args), atol=FLOAT32_TOL, rtol=0.0):
            return None
        dtype = getattr(got, "dtype", np.dtype(np.float64))
        is_single = np.issubdtype(dtype, np.floating) and dtype.itemsize <= 4
        return got if is_single == single else None

    return rounding


_CLOSE_FLOAT64_NOTE = (f"your float64 values differ from the reference by more than 1e-6 but less "
                       f"than {FLOAT32_TOL:.0e}, the size of float32 rounding. Accepted: that is "
                       f"what a step done in float32 (positions or frequencies) gives. If no step "
                       f"of yours used float32, look for a small systematic error instead.")
_FLOAT32_NOTE = (f"your values differ from the float64 reference by more than 1e-6 but less than "
                 f"{FLOAT32_TOL:.0e}: the size of float32 rounding (positions or frequencies "
                 f"stored in float32, as in most deep-learning code). Accepted; the float32 "
                 f"section shows how this error grows with the position.")


def _encoding_mistakes(layout: _enc.Layout
                       ) -> list[tuple[str, Callable[[int, int, float], np.ndarray], str]]:
    """The typical wrong tables for exercise 1, as ``(name, function, hint)``."""
    other: _enc.Layout = "concat" if layout == "interleaved" else "interleaved"

    def pair_omega(d: int, base: float, power: float = 2.0) -> np.ndarray:
        return base ** (-power * np.arange(d // 2) / d)

    def wrong(kind: str) -> Callable[[int, int, float], np.ndarray]:
        def f(seq_len: int, d: int, base: float) -> np.ndarray:
            w = pair_omega(d, base)
            if kind == "swapped":
                return _table(seq_len, d, w, w, np.cos, np.sin, layout=layout)
            if kind == "minus_sin":
                return _table(seq_len, d, w, w, lambda a: -np.sin(a), layout=layout)
            if kind == "minus_cos":
                return _table(seq_len, d, w, w, second=lambda a: -np.cos(a), layout=layout)
            if kind == "no_cos":
                return _table(seq_len, d, w, w, second=np.zeros_like, layout=layout)
            if kind == "i_not_2i":
                w1 = pair_omega(d, base, 1.0)
                return _table(seq_len, d, w1, w1, layout=layout)
            if kind == "four_i":  # i = 0, 2, 4, ... (the column index) put into 2i/d: 4i'/d
                w4 = pair_omega(d, base, 4.0)
                return _table(seq_len, d, w4, w4, layout=layout)
            if kind == "dim_index":  # exponent 2j/d with the dimension index j = 2i, 2i+1
                js = np.arange(0, d, 2)
                return _table(seq_len, d, base ** (-2.0 * js / d),
                              base ** (-2.0 * (js + 1) / d), layout=layout)
            if kind == "column_index":  # exponent j/d with the column index j = 2i, 2i+1
                js = np.arange(0, d, 2)
                return _table(seq_len, d, base ** (-1.0 * js / d),
                              base ** (-1.0 * (js + 1) / d), layout=layout)
            if kind == "log10":  # exp(2i * -log10(n)/d): the exp recipe with the wrong logarithm
                wl = np.exp(-2.0 * np.arange(d // 2) * np.log10(base) / d)
                return _table(seq_len, d, wl, wl, layout=layout)
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
    hints = [
        ("swapped", f"sine and cosine are swapped: the sine goes to {sin_where}."),
        ("minus_sin", "the sine has the wrong sign: PE(pos, 2i) = +sin(pos·ω_i). (A rotation "
                      "matrix has a −sin; the encoding itself does not.)"),
        ("minus_cos", "the cosine has the wrong sign: PE(pos, 2i+1) = +cos(pos·ω_i), so row 0 "
                      f"is PE(0) = {pe0}."),
        ("no_cos", "the cosine dimensions are empty (zeros): every pair holds the sine and the "
                   "cosine of the same angle pos·ω_i."),
        ("i_not_2i", "the exponent is 2i/d, not i/d (i counts pairs: 0 … d/2-1)."),
        ("four_i", "your exponent is 4i/d: the i in 2i/d is the pair index 0, 1, 2, …, but you "
                   "put the column index 0, 2, 4, … in its place (a loop `for i in range(0, d, "
                   "2)` with `2 * i / d`). With the column index, write `i / d`."),
        ("dim_index", "use the pair index i in the exponent 2i/d, not the dimension index 2i or "
                      "2i+1: both dimensions of a pair share one frequency."),
        ("column_index", "sin and cos of one pair must share one frequency n^(-2i/d); with "
                         "n ** (-j/d) for the column j, the cosine column gets a different one."),
        ("log10", "in ω_i = exp(2i·(−ln n)/d) the logarithm is the natural one: `np.log`, not "
                  "`np.log10`."),
        ("inverted", "divide the position by n^(2i/d) (frequencies fall with i); you multiplied."),
        ("degrees", "numpy's sin and cos take radians: do not convert the angle from degrees."),
        ("layout", f"right numbers, wrong order: you built the {other} layout, this check asks "
                   f"for {layout} (pass layout='{other}' to the checker if that is what you "
                   f"want)."),
        ("start_at_1", f"positions start at 0: row 0 is PE(0) = {pe0}."),
        ("fixed_base", "your function ignores its base argument and always uses 10000: write "
                       "base ** (...) where you wrote 10000 ** (...)."),
        ("t2t_spacing", "your frequencies are n^(-i/(d/2-1)), the spacing of tensor2tensor and "
                        "fairseq (its slowest frequency is exactly 1/n). That is a real "
                        "convention, but not the paper's: this exercise asks for "
                        "ω_i = n^(-2i/d) = n^(-i/(d/2))."),
    ]
    if layout == "interleaved":  # in the concat layout this is the t2t_spacing answer above
        hints.append(("t2t", "that is tensor2tensor's table: all sines then all cosines, and "
                             "frequencies n^(-i/(d/2-1)). It differs from the paper's by more "
                             "than the order; this exercise asks for ω_i = n^(-2i/d) in the "
                             "interleaved layout."))
    return [(kind, wrong(kind), hint) for kind, hint in hints]


def check_sinusoidal_encoding(student: Callable[[int, int, float], Any],
                              layout: str = "interleaved") -> Report:
    r"""Exercise: ``sinusoidal_encoding(seq_len, d, base)`` — the ``(seq_len, d)`` table of PE.

    ``layout="interleaved"`` (the paper: sin at even dimensions, cos at odd ones) or
    ``"concat"`` (all sines, then all cosines, same frequencies). float32 arithmetic is accepted
    with a note; tensor2tensor's frequency spacing is rejected with a hint naming it.
    """
    layout = check_choice("layout", layout, _enc.LAYOUTS)

    def reference(seq_len: int, d: int, base: float) -> np.ndarray:
        return _enc.sinusoidal(seq_len, d, base, layout=layout)

    diagnoses = [Diagnosis(_float32_rounding(student, reference), _FLOAT32_NOTE, accept=True),
                 Diagnosis(_float32_rounding(student, reference, single=False),
                           _CLOSE_FLOAT64_NOTE, accept=True)]
    diagnoses += [Diagnosis(f, hint) for _, f, hint in _encoding_mistakes(layout)]
    return run_checks(f"sinusoidal_encoding ({layout})", student, reference, ENCODING_CASES,
                      diagnoses)


# -- exercise 2: the wavelength of pair i ----------------------------------------------------
#: (name, (i, d, base)): no two typical mistakes give the same number on any of them.
WAVELENGTH_CASES: list[tuple[str, tuple[int, int, float]]] = [
    ("i=2, d=16", (2, 16, 10000.0)),
    ("i=6, d=16", (6, 16, 10000.0)),
    ("base 10, d=16, i=5", (5, 16, 10.0)),
    ("pair 200 of d=512", (200, 512, 10000.0)),
    ("base 1000, d=64, i=20", (20, 64, 1000.0)),
]


def _wavelength_ref(i: int, d: int, base: float) -> float:
    return float(_enc.wavelengths(d, base)[i])


def _wavelength_mistakes() -> list[tuple[Callable[[int, int, float], float], str]]:
    """The typical wrong wavelengths for exercise 2, as ``(function, hint)``."""
    two_pi = 2 * np.pi
    return [
        (lambda i, d, base: base ** (2 * i / d),
         "that is 1/ω, the number of positions per radian; one full turn is 2π radians, "
         "so multiply by 2π."),
        (lambda i, d, base: base ** (-2 * i / d),
         "that is the angular frequency ω_i; the wavelength is 2π/ω_i."),
        (lambda i, d, base: two_pi * base ** (-2 * i / d),
         "you computed 2π·ω_i; the wavelength is 2π divided by ω_i."),
        (lambda i, d, base: two_pi * base ** (i / d), "the exponent is 2i/d, not i/d."),
        (lambda i, d, base: base ** (2 * i / d) / two_pi,
         "multiply by 2π, do not divide: a turn takes 2π radians, each position advances the "
         "angle by ω_i."),
        (lambda i, d, base: np.pi * base ** (2 * i / d),
         "one full turn is 2π radians, not π: you computed half a wavelength."),
        (lambda i, d, base: two_pi * base ** (4 * i / d),
         "in 2i/d, i is the pair index; you put the dimension index 2i in its place "
         "(exponent 4i/d)."),
        (lambda i, d, base: two_pi * base ** ((2 * i + 1) / d),
         "in 2i/d, i is the pair index; (2i+1)/d uses the index of the cosine dimension. Both "
         "dimensions of pair i share the exponent 2i/d."),
        (lambda i, d, base: two_pi * base ** (2 * (i + 1) / d),
         "pairs count from 0: pair 0 has wavelength 2π (ω_0 = 1); you used i + 1."),
        (lambda i, d, base: two_pi * base ** (2 * i // d),
         "`2 * i // d` is integer division, 0 for every pair (so every wavelength came out as "
         "2π): write `2 * i / d`."),
        (lambda i, d, base: two_pi * base ** (i / max(d // 2 - 1, 1)),
         "that is tensor2tensor's spacing, 2π·n^(i/(d/2-1)); the paper's wavelengths are "
         "2π·n^(2i/d)."),
        (lambda i, d, base: 360.0 * base ** (2 * i / d),
         "a wavelength counts positions, and one turn is 2π radians (360 is in degrees): "
         "2π·n^(2i/d)."),
        (lambda i, d, base: two_pi * 10000.0 ** (2 * i / d),
         "your function ignores its base argument and always uses 10000."),
        (lambda i, d, base: two_pi * base ** (2 * (d // 2 - 1 - i) / d),
         "your ladder runs backwards: pair 0 is the fastest (wavelength 2π, ω_0 = 1) and pair "
         "d/2 - 1 the slowest, so use i itself in n^(2i/d), not d/2 - 1 - i."),
    ]


def check_wavelength(student: Callable[[int, int, float], Any]) -> Report:
    r"""Exercise: ``wavelength(i, d, base)`` — the period, in positions, of pair ``i``: :math:`2\pi n^{2i/d}`.

    The answer is one number.
    """
    diagnoses = [Diagnosis(f, hint) for f, hint in _wavelength_mistakes()]
    return run_checks("wavelength", student, _wavelength_ref, WAVELENGTH_CASES, diagnoses)


# -- exercise 3: the shift matrix ------------------------------------------------------------
#: (name, (k, d, base)). Offsets are Python ints, as in the chapter, so that integer-only
#: solutions (``np.linalg.matrix_power``, ``range(abs(k))``) work.
SHIFT_CASES: list[tuple[str, tuple[int, int, float]]] = [
    ("d=4, k=1", (1, 4, 10000.0)),
    ("d=8, base 1000, k=5", (5, 8, 1000.0)),
    ("a negative offset, k=-2", (-2, 6, 10000.0)),
    ("d=16, a long offset k=40", (40, 16, 10000.0)),
]


def _shift_mistakes() -> list[tuple[Callable[[int, int, float], Any], str]]:
    """The typical wrong shift matrices for exercise 3, as ``(function, hint)``."""
    def same_angle(k: int, d: int, base: float) -> np.ndarray:
        return _sim.shift_matrix(k, d, 1.0)  # base 1: every omega_i = 1

    def wrong_way(k: int, d: int, base: float) -> np.ndarray | None:
        # for k < 0 the transposed blocks equal M(|k|): left to the next diagnosis
        return _sim.shift_matrix(-k, d, base) if k > 0 else None

    def sign_dropped(k: int, d: int, base: float) -> np.ndarray | None:
        return _sim.shift_matrix(-k, d, base) if k < 0 else None

    return [
        (wrong_way,
         "your blocks turn the wrong way. The textbook rotation [[cos, -sin], [sin, cos]] acts "
         "on (cos, sin); a PE pair is (sin, cos), so its block is [[cos kω, sin kω], "
         "[-sin kω, cos kω]] (check with sin(a+b) = sin a cos b + cos a sin b)."),
        (sign_dropped,
         "for this negative offset your matrix equals M(|k|) = M(−k). Either your code drops the "
         "sign of k (keep it in the angle k·ω_i), or your blocks turn the wrong way; in that "
         "case the positive offsets fail too, with a hint saying so."),
        (same_angle, "each pair turns by its own angle k·ω_i, not by k."),
        (lambda k, d, base: _sim.shift_matrix(k, d, base, layout="concat"),
         "use the interleaved layout: pair i sits at dimensions 2i and 2i+1."),
        (lambda k, d, base: _sim.shift_matrix(k, d, base ** 0.5),
         "the frequencies are n^(-2i/d): the exponent is 2i/d, not i/d."),
        (lambda k, d, base: _sim.shift_matrix(k, d, base ** 2.0),
         "in n^(-2i/d), i is the pair index; you used the dimension index 2i (exponent 4i/d)."),
        (lambda k, d, base: _sim.shift_matrix(k * np.pi / 180, d, base),
         "numpy's cos and sin take radians: do not convert the angle from degrees."),
    ]


def check_shift_matrix(student: Callable[[int, int, float], Any]) -> Report:
    r"""Exercise: ``shift_matrix(k, d, base)`` with ``shift_matrix(k, d, base) @ PE(p) == PE(p + k)``.

    Interleaved layout; one 2x2 block per pair; integer offsets ``k``, positive and negative.
    """
    def reference(k: int, d: int, base: float) -> np.ndarray:
        return _sim.shift_matrix(k, d, base)

    diagnoses = [Diagnosis(f, hint) for f, hint in _shift_mistakes()]
    return run_checks("shift_matrix", student, reference, SHIFT_CASES, diagnoses)
