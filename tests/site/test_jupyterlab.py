"""The chapters as `make lab` opens them, in a real JupyterLab driven by headless Chromium.

For every chapter's working copy (``tools/lab_copies.py``), opened untrusted and not run, as a
fresh download is: no raw MyST markup anywhere (glued numbers, citations, admonitions, the
``\\PE`` macro), the maths typeset, every explorer shows its default figure with a line saying
how to get the sliders, the quiz shows its questions and no answer, the solutions and the
author's checks start collapsed, no "model not found" widget error, and the page asks no other
host for anything. Screenshots land in ``test-artifacts/lab__*.png``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from helpers import ROOT
from site_helpers import block_other_hosts
from tool_loader import load_tool

pytestmark = pytest.mark.browser

ARTIFACTS = Path(os.environ.get("POSENC_ARTIFACTS", ROOT / "test-artifacts"))
CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]*_*.ipynb"))
RAW_MARKUP = ["{glue:text}", "{cite}", "{cite:t}", "{admonition}", ":::", "\\PE", ":class:"]
lab_copies = load_tool("lab_copies")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab serving fresh working copies, with settings of its own (all cells attached,
    so the test sees every cell without scrolling)."""
    root = tmp_path_factory.mktemp("lab")
    lab_copies.write_copies(root / "chapters")
    settings = root / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    lab_copies.settings_override(root / "app-settings")   # what make lab sets: saveState, no news
    port = _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(root / "config"),
           "JUPYTER_DATA_DIR": str(root / "data"), "JUPYTER_RUNTIME_DIR": str(root / "runtime")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         "--allow-root", "--IdentityProvider.token=", "--ServerApp.password=",
         "--LabApp.extension_manager=readonly", "--ServerApp.disable_check_xsrf=True",
         f"--ServerApp.root_dir={root / 'chapters'}", f"--LabApp.user_settings_dir={root / 'settings'}",
         f"--LabApp.app_settings_dir={root / 'app-settings'}",
         f"--LabApp.workspaces_dir={root / 'workspaces'}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--LabApp.expose_app_in_browser=True"],   # window.jupyterapp: open chapters in one app
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start within 60 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _expected(path: Path) -> dict[str, int]:
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    explorers = sum(1 for c in code for o in c.get("outputs", [])
                    if "<Explorer " in "".join(o.get("data", {}).get("text/plain", "")))
    quizzes = sum(1 for c in code if "quizzes.chapter(" in c.source)
    hidden = sum(1 for c in code if c.metadata.get("jupyter", {}).get("source_hidden"))
    return {"explorers": explorers, "quizzes": quizzes, "hidden": hidden}


class LabPage:
    """One JupyterLab page for all the chapters a worker checks: loading the app takes longer
    than reading a chapter, so each chapter is opened in the running app (its documents closed
    first) instead of reloading it. Requests to other hosts are blocked and recorded."""

    def __init__(self, browser, url: str):
        self.errors: list[str] = []
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(120000)
        self.external = block_other_hosts(self.page, url)
        self.page.on("pageerror", self._error)
        self.page.goto(f"{url}/lab?reset", wait_until="load")
        self.page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started")
        self.page.evaluate("() => window.jupyterapp.started")

    def _error(self, error) -> None:
        # Closing the previous chapter disposes of its kernel connection; a request still in
        # flight is then cancelled, and JupyterLab reports that (late, on the next chapter) as
        # a page error. It comes from this test switching chapters, not from a chapter.
        if "Canceled future for create_subshell_request" not in str(error):
            self.errors.append(str(error))

    def open(self, path: Path) -> None:
        """Close every document, open the chapter ``path`` and wait until every cell is drawn
        and its maths typeset."""
        self.external.clear()
        self.errors.clear()
        cells = self.page.evaluate("""async (path) => {
            const app = window.jupyterapp;
            // Closing a notebook leaves its kernel running (JupyterLab's default); the server's
            // shutdown at the end of the module stops them all.
            await app.commands.execute('application:close-all');
            const widget = await app.commands.execute('docmanager:open',
                                                      {path, factory: 'Notebook'});
            await widget.context.ready;
            await widget.sessionContext.ready;   // its kernel started (closing earlier cancels it)
            await widget.revealed;
            const types = widget.content.widgets.map(c => c.model.type);
            return [types.length, types.filter(t => t === 'markdown').length];
        }""", path.name)
        self.page.wait_for_function(
            "([cells, markdown]) => document.querySelectorAll('.jp-Notebook .jp-Cell').length"
            " === cells && document.querySelectorAll("
            "'.jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown').length === markdown",
            arg=cells)
        self.page.wait_for_function(
            "() => document.querySelectorAll('.jp-Notebook mjx-container').length > 0",
            timeout=60000)
        self.page.wait_for_timeout(300)


@pytest.fixture(scope="module")
def lab_page(lab, browser):
    page = LabPage(browser, lab)
    yield page
    page.context.close()


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_reads_in_jupyterlab_before_running(lab_page, path):
    lab_page.open(path)
    page = lab_page.page
    want = _expected(path)
    got = page.evaluate("""() => {
        const nb = document.querySelector('.jp-Notebook');
        const md = [...nb.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')]
            .map(e => e.innerText).join('\\n');
        return {
          notebooks: document.querySelectorAll('.jp-Notebook').length,
          markdown: md,
          text: nb.innerText,
          previews: nb.querySelectorAll('.posenc-explorer-preview img').length,
          quizzes: nb.querySelectorAll('.posenc-quiz-preview').length,
          collapsed: nb.querySelectorAll('.jp-Cell .jp-InputPlaceholder').length,
          feedback: [...nb.querySelectorAll(
              '.posenc-quiz-preview .posenc-feedback, .posenc-question .posenc-feedback')]
            .filter(e => e.offsetParent !== null).length,
          details: nb.querySelectorAll('details:not([open])').length,
        };
    }""")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lab__{path.stem}.png"))
    if got["previews"]:
        preview = page.locator(".posenc-explorer-preview").first
        preview.scroll_into_view_if_needed()
        preview.screenshot(path=str(ARTIFACTS / f"lab__{path.stem}.explorer.png"))
    assert got["notebooks"] == 1, f"{path.name}: {got['notebooks']} notebooks open"
    raw = [m for m in RAW_MARKUP if m in got["markdown"]]
    assert raw == [], f"{path.name}: raw MyST markup shows in JupyterLab: {raw}"
    assert "model not found" not in got["text"] and "Error displaying widget" not in got["text"]
    assert got["previews"] == want["explorers"], (path.name, got["previews"], want)
    assert got["quizzes"] == want["quizzes"], (path.name, got["quizzes"], want)
    assert got["collapsed"] >= want["hidden"], (path.name, got["collapsed"], want)
    assert got["feedback"] == 0, f"{path.name}: quiz feedback visible before answering"
    assert "<Explorer " not in got["text"], f"{path.name}: an explorer shows as a bare repr"
    assert lab_page.external == [], f"{path.name}: requests to other hosts: {lab_page.external}"
    assert lab_page.errors == [], f"{path.name}: page errors: {lab_page.errors}"


def _shut_down_kernels(url: str) -> None:
    with urllib.request.urlopen(f"{url}/api/sessions", timeout=10) as r:
        sessions = json.load(r)
    for s in sessions:
        req = urllib.request.Request(f"{url}/api/sessions/{s['id']}", method="DELETE")
        urllib.request.urlopen(req, timeout=30).close()


@pytest.mark.parametrize("name", ["03_single_sine"])
def test_run_all_makes_sliders_live(lab, browser, name):
    """Run All in a real kernel: no cell errors, and a live slider redraws its figure. One
    chapter: every explorer is the same ``Explorer`` class (``tests/display/test_explorer.py``
    moves every one of them live in Python), and nbval runs every chapter in a kernel."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(180000)
    try:
        page.goto(f"{lab}/lab/tree/{name}.ipynb?reset", wait_until="load")
        page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown")
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        page.wait_for_function("""() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
                .map(p => p.innerText.trim()).filter(t => t !== '');   // collapsed: no prompt
            return prompts.length > 0 && prompts.every(t => /\\[\\d+\\]/.test(t));
        }""")
        errors = page.evaluate("""() => [...document.querySelectorAll(
            '[data-mime-type="application/vnd.jupyter.error"]')].map(e => e.innerText.slice(0, 300))""")
        assert errors == [], f"{name}: cells raised: {errors}"
        explorer = page.locator(".posenc-explorer.posenc-live").first
        explorer.scroll_into_view_if_needed()
        handle = explorer.locator(".noUi-handle").first
        readout = explorer.locator(".posenc-readout").first
        before, before_text = explorer.screenshot(), readout.inner_text()
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "([el, old]) => el.innerText !== old", arg=[readout.element_handle(), before_text])
        page.wait_for_timeout(1500)
        after = explorer.screenshot()
        assert after != before, f"{name}: moving a live slider did not redraw the figure"
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / f"lab__{name}.run.explorer.png").write_bytes(after)
        page.screenshot(path=str(ARTIFACTS / f"lab__{name}.run.png"))
        # Save (as autosave would), reopen: the saved widget state shows, no "model not found".
        page.keyboard.press("Control+s")
        page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30000)
        page.goto("about:blank")
        _shut_down_kernels(lab)               # reopened later: the kernel's widgets are gone
        page.goto(f"{lab}/lab/tree/{name}.ipynb?reset", wait_until="load")
        page.wait_for_selector(".jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown")
        page.wait_for_selector(".posenc-explorer.posenc-live", timeout=30000)  # from saved state
        page.wait_for_timeout(1500)
        text = page.evaluate("() => document.body.innerText")
        assert "model not found" not in text and "Error displaying widget" not in text
    finally:
        context.close()
