"""Build the book's real-text corpus from the Python 3.11 documentation sources.

The corpus (``posenc_lib/lab/corpus/``) is committed; this script documents how it was made and
remakes it byte for byte. Its input is Debian's ``python3.11-doc`` package (from the package
registry, never from the web at run time)::

    apt-get download python3.11-doc          # python3.11-doc_3.11.2-6+deb12u9_all.deb
    dpkg-deb -x python3.11-doc_*.deb /tmp/pydoc
    python tools/build_corpus.py /tmp/pydoc/usr/share/doc/python3.11/html/_sources

It keeps the *prose* of four parts of the documentation (the tutorial, the HOWTOs, the FAQ and
the glossary): paragraphs of running text, with reStructuredText markup, code, tables, headings
and directives removed, non-ASCII letters transliterated, and every paragraph on one line.
Whole documents go to one split (train / validation / test), chosen by a fixed list, so that no
paragraph of a test document was seen in training.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "posenc_lib" / "lab" / "corpus"
PARTS = ("tutorial", "howto", "faq", "glossary.rst.txt")
#: Documents held out (paths relative to _sources); everything else in PARTS is training text.
VALID = ("howto/descriptor.rst.txt", "faq/design.rst.txt", "tutorial/classes.rst.txt")
TEST = ("howto/logging.rst.txt", "faq/programming.rst.txt", "tutorial/controlflow.rst.txt")

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?!?([^`<]*?)(?:\s*<[^`>]*>)?`")
_LINK = re.compile(r"`([^`<]+?)\s*<[^`>]*>`_+")
_SUBST = re.compile(r"\|[^|\s][^|]*\|")


def _inline(text: str) -> str:
    text = _ROLE.sub(lambda m: m.group(1).strip(), text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _SUBST.sub("", text)
    text = re.sub(r"``([^`]*)``", r"\1", text)
    text = re.sub(r"`([^`]*)`_*", r"\1", text)
    text = text.replace("**", "").replace("\\", "")
    text = re.sub(r"(?<!\w)\*([^*\s][^*]*)\*", r"\1", text)
    text = re.sub(r"\[#\w*\]_", "", text)
    text = text.replace("::", ":")
    text = unicodedata.normalize("NFKD", text)
    for a, b in (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"'),
                 ("\u2013", "-"), ("\u2014", "--"), ("\u2026", "..."), ("\u00a0", " ")):
        text = text.replace(a, b)
    text = text.encode("ascii", "ignore").decode()
    return re.sub(r"\s+", " ", text).strip()


def _is_prose(par: str) -> bool:
    letters = sum(c.isalpha() for c in par)
    words = par.split()
    return (len(words) >= 8 and letters >= 0.7 * len(par.replace(" ", ""))
            and par[-1] in ".:?!)\"'" and ">>>" not in par)


def paragraphs(rst: str) -> list[str]:
    """The prose paragraphs of one reST document, cleaned, in order."""
    out: list[str] = []
    block: list[str] = []
    skip_indent: int | None = None  # inside a directive or literal block: skip deeper lines
    literal_next = False
    last_indent = 0

    def flush() -> None:
        if block:
            par = _inline(" ".join(block))
            if _is_prose(par):
                out.append(par)
            block.clear()

    for line in rst.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if skip_indent is not None:
            if not stripped or indent > skip_indent:
                continue
            skip_indent = None
        if not stripped:
            flush()
            if literal_next:
                skip_indent = last_indent
                literal_next = False
            continue
        if stripped.startswith("..") or re.fullmatch(r"([=\-~^\"'`#*+])\1{2,}", stripped) \
                or stripped.startswith(("+--", "|", ">>>", "...")) or stripped.startswith("="):
            flush()
            skip_indent = indent
            continue
        if stripped.startswith(("* ", "- ", "#. ")) or re.match(r"\d+\. ", stripped):
            flush()
            stripped = re.sub(r"^(\*|-|#\.|\d+\.)\s+", "", stripped)
        block.append(stripped)
        last_indent = indent
        if stripped.endswith("::"):
            literal_next = True
    flush()
    return out


def main(sources: Path) -> None:
    files = []
    for part in PARTS:
        p = sources / part
        files += sorted(p.rglob("*.rst.txt")) if p.is_dir() else [p]
    splits: dict[str, list[str]] = {"train": [], "valid": [], "test": []}
    for f in files:
        rel = f.relative_to(sources).as_posix()
        split = "valid" if rel in VALID else "test" if rel in TEST else "train"
        pars = paragraphs(f.read_text(encoding="utf-8"))
        if pars:
            splits[split].append("\n".join(pars))
    OUT.mkdir(parents=True, exist_ok=True)
    for split, docs in splits.items():
        text = "\n\n".join(docs) + "\n"
        (OUT / f"{split}.txt").write_text(text, encoding="ascii")
        print(f"{split:5s} {len(docs):3d} documents {len(text):8,d} characters")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
