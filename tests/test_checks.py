"""posenc_lib.checks: the argument checks below every layer."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.checks import check_bool


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_check_bool_accepts_bools(value):
    assert check_bool("flag", value) is bool(value)


@pytest.mark.parametrize("value", [0, 1, "yes", None, 1.0])
def test_check_bool_names_the_parameter(value):
    with pytest.raises(TypeError, match=r"^flag must be a bool, got "):
        check_bool("flag", value)
