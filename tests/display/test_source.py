"""posenc_lib.display.source: listings of the library's code."""

import pytest

from posenc_lib.display.source import show_source
from posenc_lib.maths import attention


def test_show_source_drops_docstring():
    src = show_source(attention.causal_mask)
    assert src.code.startswith("def causal_mask(")
    assert '"""' not in src.code and "np.triu_indices" in src.code
    assert "```python" in src._repr_mimebundle_()["text/markdown"]
    assert '"""' in show_source(attention.causal_mask, docstring=True).code
    with pytest.raises(TypeError, match="obj must be a function or class"):
        show_source(3)
