"""Turn computed numbers into the stable values quoted in the prose (via MyST-NB ``glue``)."""

from __future__ import annotations

import math

from ._validate import check_finite_real

__all__ = ["bound"]


def bound(x: float, floor: float = 1e-16) -> float:
    """The smallest power of ten that is >= ``|x|`` (and >= ``floor``).

    Rounding errors differ between machines and BLAS libraries in their last bits; a statement
    such as "agree to within 1e-15" does not. ``bound(2.2e-16) == 1e-15``, ``bound(0) == 1e-16``.
    """
    x = abs(check_finite_real("x", x))
    floor = check_finite_real("floor", floor, minimum=0.0, strict=True)
    if x <= floor:
        return floor
    return 10.0 ** math.ceil(math.log10(x) - 1e-12)
