"""Generate book/course_map.md from the chapters themselves (one source of truth).

Each chapter's first "In this chapter" admonition lists its objectives ("You will be able to"),
prerequisites and time estimate; this script collects them into the course map with a checklist.
``tests/site/test_course_map.py`` fails when the committed page is out of date. Usage::

    python tools/course_map.py          # rewrite book/course_map.md
    python tools/course_map.py --check  # exit 1 if it would change
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "book" / "course_map.md"

INTRO = """# Course map

The book is one path: each chapter proposes the next idea, measures what it fixes and what it
still breaks. Work through it in order; every chapter lists what it assumes. Times are estimates
for a careful first reading with the quick checks, plus the exercises.

**How to work through a chapter.** Read the idea and the maths, run or move every explorer and
try the "things to try", answer the quick check *before* reading the feedback, do the exercises
until the checker passes (hints name the usual mistakes), and only then open the solutions. Tick
the chapter off below.

*This page is generated from the chapters by `tools/course_map.py`.*
"""


def chapter_files() -> list[Path]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = []
    for part in toc.get("parts", []):
        for ch in part.get("chapters", []):
            path = ROOT / (ch["file"] + ".ipynb")
            if path.exists():
                files.append(path)
    return files


def _section(text: str, heading: str) -> str:
    """The text after a bold ``**heading**`` up to the next bold heading or the fence end."""
    m = re.search(r"\*\*" + re.escape(heading) + r"[^*]*\*\*:?(.*?)(?=\n\s*\*\*|\n:::|\Z)", text,
                  re.S)
    return m.group(1).strip() if m else ""


def chapter_info(path: Path) -> dict[str, object]:
    nb = nbformat.read(path, as_version=4)
    title, box = "", ""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        if not title:
            m = re.search(r"^#\s+(.+)$", cell.source, re.M)
            if m:
                title = m.group(1).strip()
        if "In this chapter" in cell.source and not box:
            box = cell.source
    objectives = [re.sub(r"^\s*(\d+\.|[-*])\s*", "", line).strip()
                  for line in _section(box, "You will be able to").splitlines()
                  if re.match(r"^\s*(\d+\.|[-*])\s", line)]
    prereq = " ".join(_section(box, "Prerequisites").split())
    time = " ".join(_section(box, "Time").split())
    return {"title": title, "objectives": objectives, "prerequisites": prereq, "time": time,
            "doc": path.relative_to(ROOT).with_suffix("").as_posix()}


def render() -> str:
    parts = [INTRO]
    rows = ["| | chapter | time |", "|---|---|---|"]
    infos = [chapter_info(p) for p in chapter_files()]
    for info in infos:
        label = info["doc"].rsplit("/", 1)[-1].split("_")[0].lstrip("0")  # "1" … "10", "10b"
        rows.append(f"| {label} | {{doc}}`/{info['doc']}` | {info['time'] or '—'} |")
    parts.append("## The path at a glance\n\n" + "\n".join(rows) + "\n")
    parts.append("## Chapter by chapter\n")
    for info in infos:
        block = [f"### {{doc}}`/{info['doc']}`\n"]
        if info["prerequisites"]:
            block.append(f"*Prerequisites:* {info['prerequisites']}\n")
        if info["time"]:
            block.append(f"*Time:* {info['time']}\n")
        if info["objectives"]:
            block.append("You will be able to:\n")
            block += [f"- [ ] {o}" for o in info["objectives"]]
            block.append("")
        parts.append("\n".join(block))
    return "\n".join(parts).rstrip() + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != text:
            print("book/course_map.md is out of date: run python tools/course_map.py")
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
