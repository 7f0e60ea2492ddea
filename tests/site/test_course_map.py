"""Course-level checks on the chapters: the generated course map, the chapter header box, and
the numbers glued into the prose."""

import ast
import subprocess
import sys

import nbformat
import pytest
from helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import course_map  # noqa: E402

CHAPTERS = course_map.chapter_files()


def test_course_map_is_up_to_date():
    result = subprocess.run([sys.executable, "tools/course_map.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_toc_lists_every_chapter():
    assert [p.name for p in CHAPTERS] == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_states_objectives_prerequisites_and_time(path):
    info = course_map.chapter_info(path)
    assert info["title"], path
    assert len(info["objectives"]) >= 2, f"{path.name}: list the learning objectives"
    assert info["prerequisites"], f"{path.name}: state the prerequisites"
    assert "minute" in info["time"], f"{path.name}: give a time estimate in minutes"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_glued_numbers_are_plain_python_values(path):
    """MyST-NB formats a glued number from its text form; ``np.float64(0.5)`` breaks the build."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            text = out["data"].get("application/papermill.record/text/plain")
            if text is None:
                continue
            try:
                ast.literal_eval(text)
            except (ValueError, SyntaxError):
                if not text.startswith("'") and "np." in text:
                    pytest.fail(f"{path.name}: glue({meta['name']!r}) stores {text!r}; "
                                "glue float(x) / int(x) instead")
