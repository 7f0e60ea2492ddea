"""Working copies of the chapters for JupyterLab (``make lab``), with the website's markup rendered.

The chapters in ``notebooks/`` are the website's source: their Markdown uses MyST roles and
directives that only the book build understands (glued numbers, citations, admonitions, the
``\\PE`` macro). JupyterLab shows those as raw text. This tool writes a copy of every chapter to
``lab/`` (not in git) in which

* every ``{glue:text}`name:fmt``` is replaced by the stored value, formatted as the website
  formats it (MyST-NB's own formatter);
* ``{cite}`` and ``{cite:t}`` become author–year citations, and the chapter ends with its
  reference list (from ``book/references.bib``);
* admonitions become quoted boxes, and dropdowns (answers, "what you should see") become
  ``<details>`` blocks that start closed, as on the website;
* the book's MathJax macros (``_config.yml``) are expanded, and ``(label)=`` targets dropped;
* explorer and quiz outputs keep their static picture and text but lose the stored widget
  state: before a cell runs it shows its default figure (or the questions) and a line saying
  to run it; once run, the sliders are live. Nothing shows "model not found".

The copies are for reading and running. Editing or autosaving them never touches
``notebooks/``, which only ``make notebooks`` writes. JupyterLab in this environment is set to
save widget state (``settings_override``), so a copy reopened after autosave shows its widgets. Usage::

    python tools/lab_copies.py                    # writes lab/*.ipynb
    python tools/lab_copies.py --in-place notebooks   # Binder only: renders the chapters in place

A copy the reader has changed since it was written is kept (delete it to get a fresh one).
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from pathlib import Path

import nbformat
import yaml
from myst_nb.core.variables import format_plain_text

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "lab"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
GLUE = "application/papermill.record/text/plain"

_GLUE_ROLE = re.compile(r"\{glue:text\}`([^`]+)`")
_CITE_ROLE = re.compile(r"\{cite(:t|:p)?\}`([^`]+)`")
_ADMONITION = re.compile(
    r"^(?P<fence>:{3,}|`{3,})\{admonition\}[ \t]*(?P<title>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.M | re.S)
_LABEL = re.compile(r"^\([\w.:-]+\)=[ \t]*\n", re.M)


def glue_values(nb: nbformat.NotebookNode) -> dict[str, str]:
    """The ``text/plain`` of every glued value stored in the notebook's outputs."""
    values = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name and GLUE in out.get("data", {}):
                values[name] = out["data"][GLUE]
    return values


def render_glue(text: str, values: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        key, _, fmt = m.group(1).rpartition(":") if ":" in m.group(1) else ("", "", "")
        if not key:
            key, fmt = m.group(1), "s"
        if key not in values:
            raise KeyError(f"{{glue:text}}`{m.group(1)}`: no value named {key!r} is glued")
        return format_plain_text(values[key], fmt)
    return _GLUE_ROLE.sub(one, text)


class Bibliography:
    """Author–year labels and full entries from a BibTeX file."""

    def __init__(self, path: Path) -> None:
        from pybtex.database import parse_file

        self.entries = parse_file(str(path)).entries

    @staticmethod
    def _plain(s: str) -> str:
        """BibTeX text as plain Unicode: LaTeX accents decoded (Rozi{\\`e}re → Rozière), braces
        dropped, ``--`` as an en dash."""
        import latexcodec  # noqa: F401  (registers the "ulatex" codec; installed with pybtex)

        return re.sub(r"[{}]", "", codecs.decode(s, "ulatex"))

    def authors(self, key: str) -> str:
        if key not in self.entries:
            raise KeyError(f"{{cite}}`{key}`: not in book/references.bib")
        people = self.entries[key].persons.get("author", [])
        last = [self._plain(" ".join(p.prelast_names + p.last_names)) for p in people]
        if not last:
            return self._plain(self.entries[key].fields.get("title", key))
        if len(last) == 1:
            return last[0]
        if len(last) == 2:
            return f"{last[0]} and {last[1]}"
        return f"{last[0]} et al."

    def year(self, key: str) -> str:
        return self._plain(self.entries[key].fields.get("year", "n.d."))

    def entry(self, key: str) -> str:
        e = self.entries[key]
        people = e.persons.get("author", [])
        names = ", ".join(self._plain(" ".join(p.first_names + p.middle_names + p.prelast_names
                                              + p.last_names))
                          for p in people)
        where = e.fields.get("journal") or e.fields.get("booktitle") or e.fields.get("howpublished", "")
        parts = [names, f"({self.year(key)})", f"*{self._plain(e.fields.get('title', key))}*."]
        if where:
            parts.append(self._plain(where) + ".")
        if "url" in e.fields:
            parts.append(f"<{e.fields['url']}>")
        return " ".join(p for p in parts if p)

    def cite(self, keys: list[str], textual: bool) -> str:
        if textual:
            return "; ".join(f"{self.authors(k)} ({self.year(k)})" for k in keys)
        return "(" + "; ".join(f"{self.authors(k)}, {self.year(k)}" for k in keys) + ")"


def render_citations(text: str, bib: Bibliography, cited: list[str]) -> str:
    def one(m: re.Match[str]) -> str:
        keys = [k.strip() for k in m.group(2).split(",") if k.strip()]
        cited.extend(k for k in keys if k not in cited)
        return bib.cite(keys, textual=m.group(1) == ":t")
    return _CITE_ROLE.sub(one, text)


def render_admonitions(text: str) -> str:
    """Admonitions as quoted boxes; dropdowns as closed ``<details>`` blocks."""
    def one(m: re.Match[str]) -> str:
        title = m.group("title").strip()
        lines = m.group("body").split("\n")
        options = []
        while lines and lines[0].startswith(":") and re.match(r":\w+:", lines[0]):
            options.append(lines.pop(0))
        body = "\n".join(lines).strip("\n")
        body = render_admonitions(body)
        if any("dropdown" in o for o in options if o.startswith(":class:")):
            return (f"<details>\n<summary><strong>{title}</strong> (click to open)</summary>\n\n"
                    f"{body}\n\n</details>\n")
        lines = [f"**{title}**", "", *body.split("\n")]
        return "\n".join(">" + (" " + line if line else "") for line in lines) + "\n"
    return _ADMONITION.sub(one, text)


def book_macros() -> dict[str, str]:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    mathjax = config["sphinx"]["config"].get("mathjax3_config", {})
    return dict(mathjax.get("tex", {}).get("macros", {}))


def expand_macros(text: str, macros: dict[str, str]) -> str:
    for name, body in macros.items():
        text = re.sub(rf"\\{name}(?![A-Za-z])", lambda _m, b=body: b, text)
    return text


def render_markdown(text: str, values: dict[str, str], bib: Bibliography,
                    macros: dict[str, str], cited: list[str]) -> str:
    text = render_glue(text, values)
    text = render_citations(text, bib, cited)
    text = render_admonitions(text)
    text = expand_macros(text, macros)
    return _LABEL.sub("", text)


BANNER = (
    "> **A working copy for JupyterLab.** Made by `make lab` from the book's chapter; edits and "
    "autosaves stay here, and `make lab` makes a fresh copy (your changes are kept only if you "
    "save the notebook under another name). Run the cells from the top to make the sliders and "
    "quizzes live."
)


BINDER_BANNER = (
    "> **The book's chapter, rendered for Binder.** Run the cells from the top to make the "
    "sliders and quizzes live. This session is temporary: download the notebook to keep your "
    "changes."
)


def lab_copy(nb: nbformat.NotebookNode, bib: Bibliography, macros: dict[str, str],
             banner: str = BANNER) -> nbformat.NotebookNode:
    """The chapter with its markup rendered and its static widget outputs replaced (see above)."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    values = glue_values(nb)
    cited: list[str] = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = render_markdown(cell.source, values, bib, macros, cited)
        elif cell.cell_type == "code":
            cell.execution_count = None  # "[ ]": not run in this session yet
            outputs = []
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if GLUE in data:
                    continue  # the value now stands in the prose
                if WIDGET_VIEW in data:
                    data.pop(WIDGET_VIEW)
                if "execution_count" in out:
                    out.execution_count = None
                outputs.append(out)
            cell.outputs = outputs
    nb.metadata.pop("widgets", None)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(banner))
    if cited:
        refs = "\n".join(f"- {bib.entry(k)}" for k in cited)
        nb.cells.append(nbformat.v4.new_markdown_cell("## References cited in this chapter\n\n" + refs))
    return nb


def settings_override(app_settings_dir: Path | None = None) -> Path:
    """JupyterLab settings for this environment only: keep widget state on save, so a chapter
    reopened after autosave shows its last widgets instead of "model not found"; no news
    pop-up. Written to ``overrides.json`` in JupyterLab's application settings folder
    (default: this environment's)."""
    folder = app_settings_dir or Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings"
    path = folder / "overrides.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    settings = json.loads(path.read_text()) if path.exists() else {}
    settings.setdefault("@jupyter-widgets/jupyterlab-manager:plugin", {})["saveState"] = True
    settings.setdefault("@jupyterlab/apputils-extension:notification", {})["fetchNews"] = "false"
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return path


def write_copies(out: Path = OUT, paths: list[Path] | None = None) -> tuple[list[Path], list[Path]]:
    """Write the working copy of each chapter (default: all) to ``out``.

    Returns (written, kept): a copy whose bytes differ from what this tool last wrote there
    (the reader edited or ran it) is kept, not overwritten.
    """
    bib = Bibliography(ROOT / "book" / "references.bib")
    macros = book_macros()
    out.mkdir(parents=True, exist_ok=True)
    record_path = out / ".written.json"
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    written, kept = [], []
    for p in paths or sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")):
        target = out / p.name
        if target.exists() and record.get(p.name) != _digest(target.read_bytes()):
            kept.append(target)
            continue
        nbformat.write(lab_copy(nbformat.read(p, as_version=4), bib, macros), target)
        record[p.name] = _digest(target.read_bytes())
        written.append(target)
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return written, kept


def _digest(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def render_in_place(folder: Path) -> list[Path]:
    """Replace every chapter in ``folder`` by its copy (Binder: a throwaway checkout)."""
    bib = Bibliography(ROOT / "book" / "references.bib")
    macros = book_macros()
    paths = sorted(folder.glob("[0-9][0-9]*_*.ipynb"))
    for p in paths:
        nbformat.write(lab_copy(nbformat.read(p, as_version=4), bib, macros, BINDER_BANNER), p)
    return paths


def main(argv: list[str]) -> int:
    if argv[:1] == ["--in-place"]:
        done = render_in_place(Path(argv[1]))
        print(f"{len(done)} chapters rendered in place in {argv[1]}/")
        return 0
    written, kept = write_copies(OUT, [Path(a) for a in argv] or None)
    print(f"{len(written)} chapters written to {OUT.relative_to(ROOT)}/")
    for k in kept:
        print(f"kept {k.relative_to(ROOT)}: you changed it (delete it to get a fresh copy)")
    print(f"JupyterLab settings for this environment: {settings_override()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
