"""posenc_lib.display.numbers: rounding for glue, and ``below`` for "agrees to within" claims."""

import pytest

from posenc_lib.display.numbers import below, rounded


def test_rounded_and_below():
    assert rounded(2 / 3, 3) == 0.667
    assert rounded(0.25048770466803655) == rounded(0.2504877046680366) == 0.250488
    assert rounded(123456789.0, 2) == 1.2e8
    assert rounded(0) == 0.0 and isinstance(rounded(3), float)
    assert below(2.2e-16, 1e-12) == 1e-12
    with pytest.raises(AssertionError, match="claimed"):
        below(2e-12, 1e-12)
    for bad, exc in [(float("nan"), ValueError), ("1", TypeError)]:
        with pytest.raises(exc):
            rounded(bad)
    with pytest.raises(ValueError, match="sig"):
        rounded(1.0, 0)
