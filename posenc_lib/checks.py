"""Argument checks shared by every public function.

Each helper raises ``TypeError`` (wrong kind of thing) or ``ValueError`` (right kind, bad value)
with a message that names the parameter and repeats the value it got, e.g.
``ValueError: d must be a positive even integer, got 7``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "as_array",
    "check_bool",
    "check_choice",
    "check_even_dim",
    "check_finite_real",
    "check_base",
    "check_nonneg_int",
    "check_positive_int",
]


def _is_int(value: Any) -> bool:
    """True for Python and numpy integers, but not for bools."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a ``bool``; numpy's bool is accepted, ``0``/``1`` and strings are not."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def check_positive_int(name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= 1."""
    if not _is_int(value):
        raise TypeError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_nonneg_int(name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= 0."""
    if not _is_int(value):
        raise TypeError(f"{name} must be a non-negative integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_even_dim(name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` if it is a positive even integer (a model dimension)."""
    if not _is_int(value):
        raise TypeError(f"{name} must be a positive even integer, got {value!r}")
    if value < 2 or value % 2:
        raise ValueError(f"{name} must be a positive even integer, got {value!r}")
    return int(value)


def check_finite_real(name: str, value: Any, *, minimum: float | None = None,
                      strict: bool = False) -> float:
    """Return ``value`` as a ``float`` if it is a finite real number (optionally bounded below).

    ``strict=True`` demands ``value > minimum`` instead of ``value >= minimum``.
    """
    if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if minimum is not None:
        if strict and not v > minimum:
            raise ValueError(f"{name} must be > {minimum:g}, got {value!r}")
        if not strict and not v >= minimum:
            raise ValueError(f"{name} must be >= {minimum:g}, got {value!r}")
    return v


def check_base(name: str, value: Any) -> float:
    """A frequency base such as the Transformer's 10000: finite and >= 1."""
    return check_finite_real(name, value, minimum=1.0)


_Choice = TypeVar("_Choice", bound=str)


def check_choice(name: str, value: Any, choices: tuple[_Choice, ...]) -> _Choice:
    """Return ``value`` if it is one of ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def as_array(name: str, value: Any, *, min_ndim: int = 0, floating: bool = True,
             finite: bool = True) -> np.ndarray:
    """Convert ``value`` to an ndarray, rejecting non-numeric (and, if ``finite``, NaN/inf) input.

    Floating inputs keep their dtype (so float32 stays float32); integer input is promoted to
    float64 when ``floating`` is true.
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - numpy raises many kinds here
        raise TypeError(f"{name} must be array-like, got {type(value).__name__}") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real, got dtype {arr.dtype}")
    if floating and not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    if arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {arr.shape}")
    if finite and np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values")
    return arr
