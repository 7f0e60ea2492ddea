"""Binder (repo2docker files) and Colab (the install cell), tested offline."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from helpers import ROOT
from tool_loader import load_tool

from posenc_lib.lab import extrapolation, storage, textlm

CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]*_*.ipynb"))
executor = load_tool("execute_notebooks")


def _repository() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_starts_with_the_install_cell(path: Path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = code[0]
    assert first.id == executor.INSTALL_CELL_ID and first.source == executor.install_source()
    assert "remove-cell" in first.metadata["tags"]                # hidden on the website
    assert _repository()["url"] in first.source                   # the one setting
    assert first.outputs == []                                     # a no-op here


def _requirement() -> str:
    tree = ast.parse(executor.install_source())
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
               and isinstance(n.value, str) and n.value.startswith("posenc-lib @ ")]
    assert len(strings) == 1
    return strings[0]


def test_the_install_cell_names_the_configured_repository_and_branch():
    repo = _repository()
    assert _requirement() == f"posenc-lib @ git+{repo['url']}@{repo['branch']}"


def _copy_checkout(dst: Path) -> Path:
    """What the package is built from: the checkout without its environments, builds, caches and
    the JupyterLab copies (top-level ``lab/``; the library's own ``posenc_lib/lab`` stays)."""
    top = {".venv", ".venv-hf", "_build", "lab", ".git", "test-artifacts", "notebooks", "book",
           "tests", "benchmarks"}

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
        return skip | (top & set(names) if Path(folder) == ROOT else set())

    shutil.copytree(ROOT, dst, ignore=ignore)
    return dst


def test_what_the_install_cell_installs_works_from_a_local_checkout(tmp_path: Path):
    """The same pip install with the repository replaced by this checkout (no network):
    the package builds and brings its stored lab models."""
    src = _copy_checkout(tmp_path / "src")
    target = tmp_path / "site"
    requirement = _requirement().replace(_requirement().split(" @ ")[1], src.as_uri())
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--target", str(target), requirement],
                   check=True, cwd=tmp_path)
    models = list((target / "posenc_lib" / "lab" / "trained").glob("*.npz"))
    assert len(models) == len(list((ROOT / "posenc_lib" / "lab" / "trained").glob("*.npz"))) > 0
    code = ("import posenc_lib, posenc_lib.course.quizzes.ch08, pathlib; "
            "print(pathlib.Path(posenc_lib.__file__).parent)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(target)}, cwd=tmp_path).stdout
    assert Path(out.strip()) == target / "posenc_lib"


def test_binder_files_follow_repo2docker():
    binder = ROOT / "binder"
    req = (binder / "requirements.txt").read_text().split()
    assert req == ["-r", "../requirements.txt"] and (binder / "../requirements.txt").exists()
    assert re.fullmatch(r"python-3\.\d+\n", (binder / "runtime.txt").read_text())
    post = binder / "postBuild"
    assert os.access(post, os.X_OK) and post.read_text().startswith("#!/bin/bash\n")
    commands = [line for line in post.read_text().splitlines() if line and not line.startswith("#")]
    assert "python -m pip install --quiet --no-deps -e ." in commands
    assert "python tools/lab_copies.py --in-place notebooks" in commands
    subprocess.run(["bash", "-n", str(post)], check=True)


def test_binder_renders_the_chapters_in_place(tmp_path: Path):
    for p in CHAPTERS[:2]:
        shutil.copy(p, tmp_path / p.name)
    subprocess.run([sys.executable, str(ROOT / "tools" / "lab_copies.py"), "--in-place",
                    str(tmp_path)], check=True, capture_output=True)
    for p in CHAPTERS[:2]:
        nb = nbformat.read(tmp_path / p.name, as_version=4)
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert "{glue:text}" not in text and "rendered for Binder" in text


#: What the installed package must read with no checkout in sight: a stored result of chapters
#: 10 and 12 (their length sweeps), chapter 10b's stored numbers, the corpus, every model file.
_INSTALLED_READS = """
import json, pathlib, sys
import posenc_lib
from posenc_lib.lab import extrapolation, storage, textlm
home = pathlib.Path(posenc_lib.__file__).parent
ch10 = extrapolation.length_sweep("copy_back", factors=(1, 2, 4, 8))
ch12 = extrapolation.length_sweep("latest_signal", factors=(1, 2, 4, 8))
curves, passkey = textlm.length_curves(), textlm.passkey_results()
print(json.dumps({
    "home": str(home), "prefix": sys.prefix,
    "ch10": ch10.accuracy["rope"], "ch12": ch12.accuracy["alibi"],
    "ch10b": [curves["schemes"]["rope"][0]["nonoverlapping"], passkey["schemes"]["alibi"][0]],
    "corpus": [len(textlm.corpus_text(s)) for s in textlm.SPLITS],
    "problems": storage.check_folder(),
    "models": len(storage.manifest()),
}))
"""


def test_the_wheel_installed_in_a_fresh_environment_reads_every_stored_file(tmp_path: Path):
    """The path a Colab reader takes: build the wheel, install it with its declared
    dependencies into a fresh virtual environment outside the checkout, and there read stored
    results of chapters 10, 10b and 12, the corpus and every stored model. With misses as errors,
    a file missing from the wheel fails here instead of recomputing for minutes."""
    src = _copy_checkout(tmp_path / "src")
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(wheels), str(src)],
                   check=True, cwd=tmp_path)
    (wheel,) = wheels.glob("posenc_lib-*.whl")
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # the versions the book is tested with (requirements.txt), so pip takes them from its cache
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--constraint", str(ROOT / "requirements.txt"), str(wheel)],
                   check=True, cwd=tmp_path)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POSENC_TRAIN_CACHE", "PYTHON", "VIRTUAL_ENV"))}
    env["POSENC_TRAIN_CACHE_MISS"] = "error"
    run = subprocess.run([str(python), "-c", _INSTALLED_READS], capture_output=True, text=True,
                         env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(got["home"]).is_relative_to(venv) and got["prefix"] == str(venv)
    assert got["problems"] == []
    assert got["models"] == len(list(storage.DEFAULT_DIR.glob("*.npz")))
    assert got["corpus"] == [len(textlm.corpus_text(s)) for s in textlm.SPLITS]
    assert got["ch10"] == list(extrapolation.length_sweep("copy_back", factors=(1, 2, 4, 8))
                               .accuracy["rope"])
    assert got["ch12"] == list(extrapolation.length_sweep("latest_signal", factors=(1, 2, 4, 8))
                               .accuracy["alibi"])
    curves, passkey = textlm.length_curves(), textlm.passkey_results()
    assert got["ch10b"] == [curves["schemes"]["rope"][0]["nonoverlapping"],
                            passkey["schemes"]["alibi"][0]]
