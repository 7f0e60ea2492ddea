"""The library's shape: no import cycles (not even ones hidden in function-level imports), and
importing it leaves the reader's matplotlib alone."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "posenc_lib"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """posenc_lib modules that ``path`` imports, at any depth (functions included)."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("posenc_lib"):
                continue
            for alias in node.names:  # `from . import rope` imports the module posenc_lib.rope
                sub = f"{target}.{alias.name}"
                found.add(sub if (PKG.parent / (sub.replace(".", "/") + ".py")).exists()
                          or (PKG.parent / sub.replace(".", "/")).is_dir() else target)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("posenc_lib")}
    return found - {here}


def test_no_import_cycles():
    graph = {_module_name(p): _imports(p) for p in PKG.rglob("*.py")}
    # packages import their children by design (__init__ re-exports); ignore parent -> child
    graph = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                cycle = path[path.index(t):] + [t]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if t in graph and not state.get(t):
                visit(t)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if not state.get(m):
            visit(m)


def test_importing_the_library_leaves_matplotlib_alone():
    code = """
import importlib, pkgutil, matplotlib
before = dict(matplotlib.rcParams); backend = matplotlib.get_backend()
import posenc_lib
for m in pkgutil.walk_packages(posenc_lib.__path__, 'posenc_lib.'):
    importlib.import_module(m.name)
changed = sorted(k for k, v in matplotlib.rcParams.items() if before[k] != v)
assert changed == [], changed
assert matplotlib.get_backend() == backend, matplotlib.get_backend()
from posenc_lib import plotting
with plotting.book_style():
    assert matplotlib.rcParams['axes.spines.top'] is False
assert matplotlib.rcParams['axes.spines.top'] is True
print('ok')
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"MPLBACKEND": "svg", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
