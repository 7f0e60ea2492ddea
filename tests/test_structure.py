"""The library's shape: four layers whose imports only point down, no import cycles (not even
ones hidden in function-level imports), no private name used across modules, and importing it
leaves the reader's matplotlib alone."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "posenc_lib"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:`` (never executed)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING",
                                                                    "typing.TYPE_CHECKING"):
            continue
        yield node
        yield from _runtime_nodes(node)


def _imports(path: Path) -> set[str]:
    """posenc_lib modules that ``path`` imports at run time, at any depth (functions included;
    imports for type checkers only are left out)."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rsplit(".", 1)[0]
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("posenc_lib"):
                continue
            for alias in node.names:  # `from . import rope` imports the module posenc_lib.maths.rope
                sub = f"{target}.{alias.name}"
                found.add(sub if (PKG.parent / (sub.replace(".", "/") + ".py")).exists()
                          or (PKG.parent / sub.replace(".", "/")).is_dir() else target)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("posenc_lib")}
    return found - {here}


#: The layers, and what each may import. ``maths`` and ``display`` sit side by side on the
#: argument checks; the lab builds on the maths; course content on everything.
LAYERS: dict[str, set[str]] = {
    "checks": set(),
    "maths": {"checks"},
    "display": {"checks"},
    "lab": {"checks", "maths"},
    "course": {"checks", "maths", "display", "lab"},
}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import in ``graph`` (module -> modules it imports) that points up or sideways."""
    bad = []
    for module, targets in sorted(graph.items()):
        here = _layer(module)
        if here is None:  # the package's facade: posenc_lib/__init__.py (lazy, imports nothing)
            continue
        for target in sorted(targets):
            there = _layer(target)
            if there is None or (there != here and there not in LAYERS[here]):
                bad.append(f"{module} ({here}) imports {target} ({there or 'the package root'})")
    return bad


def test_every_module_sits_in_a_layer():
    stray = [_module_name(p) for p in PKG.rglob("*.py")
             if _layer(_module_name(p)) is None and _module_name(p) != "posenc_lib"]
    assert stray == []
    assert {p.name for p in PKG.iterdir() if p.is_dir() and not p.name.startswith("__")} == \
        set(LAYERS) - {"checks"}


def test_imports_only_point_down():
    graph = {_module_name(p): _imports(p) for p in PKG.rglob("*.py")}
    assert layer_violations(graph) == []


def test_the_layer_check_catches_an_upward_or_sideways_import():
    graph = {"posenc_lib.maths.rope": {"posenc_lib.checks", "posenc_lib.lab.model"},
             "posenc_lib.display.plotting": {"posenc_lib.maths.encodings"},
             "posenc_lib.lab.model": {"posenc_lib.maths.rope", "posenc_lib.lab.schemes"},
             "posenc_lib.course.toy": {"posenc_lib.lab", "posenc_lib.display.quiz"}}
    assert layer_violations(graph) == [
        "posenc_lib.display.plotting (display) imports posenc_lib.maths.encodings (maths)",
        "posenc_lib.maths.rope (maths) imports posenc_lib.lab.model (lab)"]


def test_the_facade_imports_nothing_until_asked():
    code = ("import sys, posenc_lib; assert not [m for m in sys.modules "
            "if m.startswith('posenc_lib.')], sorted(sys.modules); "
            "from posenc_lib import rope, storage; import posenc_lib.maths.rope as r; "
            "import posenc_lib.lab.storage as s; assert rope is r and storage is s; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_no_private_name_is_used_across_modules():
    """``module._name`` from another module, or ``from module import _name``, would tie two
    modules through a name one of them promises to nobody."""
    offenders = []
    for path in PKG.rglob("*.py"):
        tree = ast.parse(path.read_text())
        local_aliases = {a.asname or a.name for node in ast.walk(tree)
                         if isinstance(node, ast.ImportFrom) and (node.module or node.level)
                         for a in node.names}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and isinstance(node.value, ast.Name)
                    and node.value.id in local_aliases):
                offenders.append(f"{path.relative_to(PKG)}:{node.lineno} {node.value.id}.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.level and node.module != "_core":
                offenders += [f"{path.relative_to(PKG)}:{node.lineno} imports {a.name}"
                              for a in node.names if a.name.startswith("_")]
    assert offenders == []


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
from posenc_lib.display import plotting
with plotting.book_style():
    assert matplotlib.rcParams['axes.spines.top'] is False
assert matplotlib.rcParams['axes.spines.top'] is True
print('ok')
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"MPLBACKEND": "svg", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
