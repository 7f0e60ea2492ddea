"""The registry of position schemes: one list that the lab, the sweeps, the catalogue and the
figures all read, with styles that tell the schemes apart without colour."""

from __future__ import annotations

import ast

import pytest
from helpers import ROOT

from posenc_lib import lab
from posenc_lib.course import catalogue
from posenc_lib.course.figures import lab as lab_figs
from posenc_lib.display import plotting
from posenc_lib.lab import extrapolation, schemes

PKG = ROOT / "posenc_lib"
SIX = ("none", "learned", "sinusoidal", "rope", "alibi", "t5")


def test_every_list_of_schemes_is_the_registry():
    assert schemes.NAMES == SIX
    assert lab.POSITIONS is schemes.NAMES
    assert extrapolation.SCHEMES is schemes.NAMES
    assert catalogue.LAYER_SCHEMES is schemes.NAMES
    assert catalogue.WHERE is schemes.WHERE
    assert list(lab_figs.SCHEME_STYLE) == list(lab_figs.SCHEME_LABEL) == list(SIX)


def test_no_second_list_of_schemes_in_the_library():
    """A literal tuple, list, set or dict naming three or more of the six schemes outside
    schemes.py would be a second registry to keep in step. Published numbers keyed by scheme
    (a module constant named ``PAPER_*``, e.g. a paper's table) are data, not a registry."""
    offenders = []
    for path in PKG.rglob("*.py"):
        if path.name == "schemes.py" or path == PKG / "maths" / "released.py":
            continue  # released.py names released models' methods (tested to be the lab's names)
        tree = ast.parse(path.read_text())
        published = {id(n) for a in ast.walk(tree) if isinstance(a, (ast.Assign, ast.AnnAssign))
                     and any(isinstance(t, ast.Name) and t.id.startswith("PAPER_")
                             for t in (a.targets if isinstance(a, ast.Assign) else [a.target]))
                     for n in ast.walk(a.value)}
        for node in ast.walk(tree):
            if id(node) in published:
                continue
            elts = (node.keys if isinstance(node, ast.Dict)
                    else node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [])
            names = {e.value for e in elts if isinstance(e, ast.Constant) and e.value in SIX}
            if len(names) >= 3:
                offenders.append(f"{path.relative_to(PKG)}:{node.lineno}")
    assert not offenders, offenders


def test_styles_tell_the_schemes_apart_without_colour():
    regs = list(schemes.REGISTRY.values())
    assert all(s.colour in plotting.OKABE_ITO for s in regs)
    assert len({s.colour for s in regs}) == len({s.marker for s in regs}) == len(regs)
    assert len({str(s.linestyle) for s in regs}) == len(regs)
    assert len({s.label for s in regs}) == len({s.long_label for s in regs}) == len(regs)


@pytest.mark.parametrize("name, where", [("none", "nowhere"), ("learned", "input"),
                                         ("sinusoidal", "input"), ("rope", "queries-keys"),
                                         ("alibi", "scores"), ("t5", "scores")])
def test_where_each_scheme_acts(name, where):
    assert schemes.get(name).acts_on == where


def test_catalogue_agrees_with_the_registry():
    for m in catalogue.METHODS:
        if m.lab_scheme is not None:
            assert m.acts_on == schemes.get(m.lab_scheme).acts_on, m.key


def test_a_method_that_contradicts_the_registry_is_rejected():
    m = catalogue.method("rope")
    fields = {f: getattr(m, f) for f in m.__dataclass_fields__}
    with pytest.raises(ValueError, match="acts on input, but the lab's 'rope' acts on queries-keys"):
        catalogue.Method(**{**fields, "acts_on": "input"})


def test_bad_names_and_bad_entries():
    with pytest.raises(ValueError, match="scheme must be one of"):
        schemes.get("rotary")
    with pytest.raises(ValueError, match="acts_on"):
        schemes.Scheme("x", "x", "x", "keys", "#000000", "o", "-")
