"""Serving the built site on localhost and driving Debian's Chromium (shared by the browser test
and the page-weight benchmark)."""

from __future__ import annotations

import contextlib
import gzip
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("POSENC_SITE", ROOT / "_build" / "html"))  # override to test another build
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


def toc_pages() -> list[str]:
    """HTML paths of every document listed in _toc.yml (root first)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for e in entries:
            if "file" in e:
                files.append(e["file"])
            walk(e.get("sections", []))

    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    walk(toc.get("chapters", []))
    return [f + ".html" for f in files]


@contextlib.contextmanager
def serve(site: Path = SITE) -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 (a free port) for the duration of the block; yields the URL."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(site), **kwargs)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def launch(playwright):
    """Headless Debian Chromium through Playwright (no browser download)."""
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


class ResponseSizes:
    """The decoded body size of every response a page receives (``data:`` URLs excluded), and
    what the same bytes weigh gzip-compressed at level 6 (as a web server would send them).
    One counter for the browser test's page budget and for ``benchmarks/bench_pages.py``."""

    def __init__(self, page) -> None:
        self._bodies: dict[str, bytes] = {}
        page.on("response", self._count)

    def _count(self, response) -> None:
        if urlparse(response.url).scheme == "data":
            return
        try:
            self._bodies[response.url] = response.body()
        except Exception:  # redirects and aborted requests have no body
            self._bodies.setdefault(response.url, b"")

    @property
    def sizes(self) -> dict[str, int]:
        return {url: len(body) for url, body in self._bodies.items()}

    def total(self) -> int:
        return sum(self.sizes.values())

    def total_gzip(self) -> int:
        return sum(len(gzip.compress(b, 6)) for b in self._bodies.values() if b)


def wait_settled(page, timeout: float = 90000) -> None:
    """Wait until a loaded page of the book has finished its work: MathJax has typeset the maths
    (and so asked for its fonts), the static widget renderer has drawn every stored widget, and
    every font the page uses has loaded.

    Not Playwright's ``networkidle``: on several pages with explorers (chapters 5, 9, 10, 10b,
    12) it often did not fire within 45 s although every request the page made had finished;
    waiting for it cost a quarter of the whole test suite.
    """
    page.wait_for_function(
        "() => !document.querySelector('.math') || "
        "(window.MathJax && MathJax.startup && MathJax.startup.document && "
        " document.querySelectorAll('mjx-container').length > 0)", timeout=timeout)
    page.evaluate("() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null")
    n_widgets = page.evaluate(
        "() => document.querySelectorAll("
        "'script[type=\"application/vnd.jupyter.widget-view+json\"]').length")
    if n_widgets:
        page.wait_for_function(
            "() => document.querySelectorAll('.jupyter-widgets.widget-box, .widget-vbox').length"
            f" >= {n_widgets}", timeout=timeout)
    page.evaluate("() => document.fonts.ready.then(() => document.fonts.status)")


def block_other_hosts(page, base: str) -> list[str]:
    """Let ``page`` load only from ``base``'s host (and ``data:``/``blob:`` URLs): every other
    request is aborted and its URL recorded in the returned list (the same list keeps growing)."""
    host = urlparse(base).netloc
    blocked: list[str] = []

    def route(r) -> None:
        parsed = urlparse(r.request.url)
        if parsed.scheme in ("data", "blob") or parsed.netloc == host:
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return blocked
