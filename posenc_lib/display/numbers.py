"""Turn computed numbers into stable values that the prose can quote (via MyST-NB ``glue``).

Another CPU, or another BLAS kernel, rounds floating-point operations differently in the last
bits. A stored output that shows ``0.25048770466803655`` is therefore not portable: on another
machine the same cell prints ``0.2504877046680366`` and nbval fails. Everything a chapter stores
for the prose goes through this module instead:

* :func:`glue` rounds a float to a few significant digits (the prose shows fewer) before storing
  it, so the stored value is the same on every machine;
* :func:`below` states "the error is below ``tol``" as a checked claim: it raises if the error is
  not below the tolerance and returns the tolerance, a fixed number, for the prose to quote.
  (Quoting the error itself, or the next power of ten above it, depends on last-bit noise.)
* :func:`rounded` is the rounding both use, for printing.
"""

from __future__ import annotations

import numbers as _numbers
from typing import Any

from ..checks import check_finite_real

__all__ = ["SIG_DIGITS", "below", "glue", "rounded"]

SIG_DIGITS = 6
"""Significant digits kept by :func:`glue` and :func:`rounded` (prose shows at most four)."""


def rounded(x: float, sig: int = SIG_DIGITS) -> float:
    """``x`` as a Python float rounded to ``sig`` significant digits: ``rounded(2/3, 3) == 0.667``.

    Integers stay integers only if they are Python or numpy integers; use ``int(...)`` for counts.
    """
    if isinstance(sig, bool) or not isinstance(sig, _numbers.Integral) or not 1 <= sig <= 15:
        raise ValueError(f"sig must be an integer between 1 and 15, got {sig!r}")
    x = check_finite_real("x", x)
    if x == 0:
        return 0.0
    return float(f"{x:.{int(sig)}g}")


def _stable(name: str, value: Any, sig: int) -> Any:
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, _numbers.Integral):
        return int(value)
    if isinstance(value, _numbers.Real):
        return rounded(float(value), sig)
    raise TypeError(f"glue {name!r}: value must be a number, a bool or a string, got "
                    f"{type(value).__name__} {value!r}")


def glue(name: str, value: Any, sig: int = SIG_DIGITS) -> Any:
    """Store ``value`` under ``name`` for the book's ``glue:text`` roles, rounded to be portable.

    Floats (Python or numpy) are rounded to ``sig`` significant digits and stored as Python
    floats; integers as Python ints; strings and bools as they are. Nothing is displayed.
    Returns the stored value, so a cell can also print or assert on exactly what the prose shows.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a Python identifier, got {name!r}")
    stored = _stable(name, value, sig)
    try:
        from myst_nb import glue as _myst_glue
    except ImportError:  # e.g. Colab: no book build there, so nothing reads the stored value
        return stored
    _myst_glue(name, stored, display=False)
    return stored


def below(x: float, tol: float) -> float:
    """Check that ``|x| < tol`` and return ``tol``: a tolerance the prose can quote.

    Use it for "agrees to within …" statements about rounding error: the prose then quotes a
    fixed tolerance that the code has checked, not a last-bit number that differs between
    machines. Raises :class:`AssertionError` (naming both numbers) when the claim is false.
    """
    x = abs(check_finite_real("x", x))
    tol = check_finite_real("tol", tol, minimum=0.0, strict=True)
    if not x < tol:
        raise AssertionError(f"claimed |x| < {tol:g}, but |x| = {x:.3g}")
    return tol
