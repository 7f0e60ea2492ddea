"""Small Sphinx fixes for the book's HTML (loaded through ``sphinx: local_extensions``).

* sphinx-thebe registers its inline configuration script twice on every page, which throws
  ``Identifier 'THEBE_JS_URL' has already been declared`` in the browser console. Live code via
  thebe is switched off in this book (``launch_buttons.thebe: false``), so drop its scripts.
* The page template starts with ``dataset.mode = localStorage.getItem("mode") || "{{ default_mode }}"``
  but sphinx-book-theme never sets ``default_mode``, so a first visit logs
  ``Got invalid theme mode: .``; give it ``auto`` (follow the reader's system setting).
* The theme loads Font Awesome's "SVG + JS" kit (``scripts/fontawesome.js``, 1.5 MB) on every
  page only to turn its ``<i class="fa-...">`` icons into SVG. The theme's stylesheet already
  carries Font Awesome's CSS and web fonts, which draw the same icons, so the script is dropped
  from every page (and from the output) once the build has finished.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any


def _fix_page(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if not context.get("default_mode"):
        context["default_mode"] = "auto"
    scripts = context.get("script_files")
    if not scripts:
        return
    kept = []
    for script in scripts:
        name = str(getattr(script, "filename", script) or "")
        body = str(getattr(script, "attributes", {}).get("body", ""))
        if "sphinx-thebe" in name or "THEBE_JS_URL" in body:
            continue
        kept.append(script)
    context["script_files"] = kept


def _static_changed(app: Any, env: Any, added: Any, changed: Any, removed: Any) -> list[str]:
    """Sphinx copies static files only when some page is rebuilt: if the book's own CSS or JS
    differs from the built copy, rebuild every page so that the new file is copied."""
    built = Path(app.outdir) / "_static"
    static = Path(app.srcdir) / "book" / "_static"
    for source in [*static.glob("posenc.*"), *static.glob("widgets/*")]:
        copy = built / source.relative_to(static)
        if not copy.exists() or copy.read_bytes() != source.read_bytes():
            return sorted(env.found_docs)
    return []


_FONTAWESOME_JS = re.compile(
    r'<script[^>]*src="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*>\s*</script>\s*')


def _drop_fontawesome_js(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lean = _FONTAWESOME_JS.sub("", text)
        if lean != text:
            page.write_text(lean, encoding="utf-8")
    for name in ("fontawesome.js", "fontawesome.js.map", "fontawesome.js.LICENSE.txt"):
        (out / "_static" / "scripts" / name).unlink(missing_ok=True)


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _fix_page, priority=900)
    app.connect("env-get-outdated", _static_changed)
    app.connect("build-finished", _drop_fontawesome_js)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
