"""Show library source in a chapter, so notebooks never copy helper code."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

__all__ = ["Source", "show_source"]


class Source:
    """Source code of a library object; displays as a highlighted Python block."""

    def __init__(self, code: str, name: str) -> None:
        self.code = code
        self.name = name

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/markdown": f"```python\n{self.code}```\n", "text/plain": self.code}


def show_source(obj: Any, docstring: bool = False) -> Source:
    """The source of a function or class from ``posenc_lib`` (its docstring dropped unless asked)."""
    try:
        code = textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as exc:
        raise TypeError(f"obj must be a function or class defined in Python, got {obj!r}") from exc
    if not docstring:
        node = ast.parse(code).body[0]
        first = getattr(node, "body", [None])[0]
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)):
            lines = code.splitlines(keepends=True)
            del lines[first.lineno - 1:first.end_lineno]
            code = "".join(lines)
    return Source(code, getattr(obj, "__qualname__", repr(obj)))
