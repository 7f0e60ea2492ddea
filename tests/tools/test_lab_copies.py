"""tools/lab_copies.py: the website's markup rendered for JupyterLab (known inputs and outputs)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from helpers import ROOT
from tool_loader import load_tool

tool = load_tool("lab_copies")
BIB = tool.Bibliography(ROOT / "book" / "references.bib")
CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]*_*.ipynb"))


def test_glue_is_formatted_as_the_website_formats_it():
    values = {"ratio": "4.78312", "count": "14", "name": "'RoPE'"}
    text = "x {glue:text}`ratio:.1f`, n = {glue:text}`count`, {glue:text}`name` and {glue:text}`ratio:.0%`"
    assert tool.render_glue(text, values) == "x 4.8, n = 14, RoPE and 478%"
    with pytest.raises(KeyError, match="missing"):
        tool.render_glue("{glue:text}`missing:.2f`", values)


def test_citations_are_author_year():
    cited: list[str] = []
    out = tool.render_citations("as {cite:t}`vaswani2017attention` and {cite}`shaw2018self,su2021roformer`",
                                BIB, cited)
    assert out == "as Vaswani et al. (2017) and (Shaw et al., 2018; Su et al., 2021)"
    assert cited == ["vaswani2017attention", "shaw2018self", "su2021roformer"]
    assert BIB.entry("vaswani2017attention").startswith("Ashish Vaswani, Noam Shazeer")
    assert "Łukasz Kaiser" in BIB.entry("vaswani2017attention")
    # LaTeX accents become letters, not "Fran\\ccois" or "Rozi\\`ere"
    assert "François Chollet" in BIB.entry("vaswani2018tensor2tensor")
    assert BIB.authors("roziere2023codellama").startswith("Rozière")


def test_admonitions_and_dropdowns():
    text = ":::{admonition} In this chapter\n:class: tip\n\nBody line\n:::\n"
    assert tool.render_admonitions(text).rstrip("\n") == "> **In this chapter**\n>\n> Body line"
    text = "```{admonition} Answer\n:class: dropdown\nIt is $4$.\n```\n"
    out = tool.render_admonitions(text)
    assert out.startswith("<details>\n<summary><strong>Answer</strong>") and "It is $4$." in out
    assert out.rstrip().endswith("</details>")


def test_macros_are_expanded_from_the_book_config():
    macros = tool.book_macros()
    assert macros["PE"] == "\\operatorname{PE}"
    assert tool.expand_macros(r"$\PE(pos) \cdot \PEX$", {"PE": "P"}) == r"$P(pos) \cdot \PEX$"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_copy_has_no_website_markup_and_no_stored_widgets(path: Path):
    nb = nbformat.read(path, as_version=4)
    copy = tool.lab_copy(nb, BIB, tool.book_macros())
    markdown = "\n".join(c.source for c in copy.cells if c.cell_type == "markdown")
    for raw in ["{glue:text}", "{cite", "{admonition}", "\\PE", ":class:"]:
        assert raw not in markdown, f"{path.name}: {raw} left in the copy"
    assert "widgets" not in copy.metadata
    views = [o for c in copy.cells if c.cell_type == "code" for o in c.get("outputs", [])
             if tool.WIDGET_VIEW in o.get("data", {})]
    assert views == []
    assert len(nb.cells) + 1 <= len(copy.cells) <= len(nb.cells) + 2
