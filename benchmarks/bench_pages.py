"""Bytes a chapter page loads on first visit (uncompressed), measured in headless Chromium.

Every response is counted with its decoded body size. "Own" is what belongs to the page itself
(its HTML — which carries the inlined figures and the widget state — and files next to it);
"shared" is the theme, MathJax, RequireJS and the widget manager under ``_static/``, which a
reader downloads once for the whole site. "gzip" is what the same bytes weigh compressed
(level 6, as a web server would send them). Target: total <= 5 MB uncompressed (the browser test
enforces it). Needs the built site (``make book``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from site_helpers import (  # noqa: E402
    SITE,
    ResponseSizes,
    block_other_hosts,
    launch,
    serve,
    toc_pages,
    wait_settled,
)


def measure_page(browser, base: str, path: str) -> tuple[int, int, int, int]:
    context = browser.new_context()
    page = context.new_page()
    responses = ResponseSizes(page)
    external = block_other_hosts(page, base)
    page.goto(f"{base}/{path}", wait_until="load")
    wait_settled(page)
    page.wait_for_timeout(1500)
    context.close()
    sizes = responses.sizes
    shared = sum(v for k, v in sizes.items() if "/_static/" in urlparse(k).path)
    own = sum(sizes.values()) - shared
    return own, shared, responses.total_gzip(), len(external)


def main() -> None:
    from playwright.sync_api import sync_playwright

    print("\n### Page weight on first visit (uncompressed)\n")
    print("| page | own (HTML, figures, widget state) | shared (_static) | total | total gzip "
          "| external requests |")
    print("|---|---|---|---|---|---|")
    worst_total = worst_own = worst_zip = 0
    with serve(SITE) as base, sync_playwright() as p:
        browser = launch(p)
        for path in toc_pages():
            own, shared, zipped, ext = measure_page(browser, base, path)
            worst_total, worst_own = max(worst_total, own + shared), max(worst_own, own)
            worst_zip = max(worst_zip, zipped)
            print(f"| {path} | {own / 1e6:.2f} MB | {shared / 1e6:.2f} MB | "
                  f"{(own + shared) / 1e6:.2f} MB | {zipped / 1e6:.2f} MB | {ext} |")
        browser.close()
    print(f"| **largest** | {worst_own / 1e6:.2f} MB | | {worst_total / 1e6:.2f} MB | "
          f"{worst_zip / 1e6:.2f} MB | |")


if __name__ == "__main__":
    main()
