"""The book's one figure style, and the one way figures reach the page.

* Colours: the Okabe–Ito palette for lines (safe for the common colour-vision deficiencies),
  ``cividis``/``viridis`` for magnitudes and ``RdBu_r`` (two hues, light centre) for signed
  values such as encodings in [-1, 1].
* Every figure is shown with :func:`show`, which embeds the PNG with alt text in one HTML
  ``<img>`` (and the alt text as the plain-text output that nbval checks), so the website, the
  notebooks and screen readers all get the same picture and the same description.
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
from collections.abc import Iterator
from typing import Any

import matplotlib
import numpy as np
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = [
    "DIVERGING",
    "OKABE_ITO",
    "SEQUENTIAL",
    "STYLE",
    "book_style",
    "use_book_style",
    "FigureImage",
    "new_figure",
    "fixed_axes",
    "png_bytes",
    "rgba_png",
    "compact_png",
    "img_html",
    "show",
]

OKABE_ITO: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)
SEQUENTIAL = "cividis"
DIVERGING = "RdBu_r"

STYLE: dict[str, Any] = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "axes.edgecolor": "#333333",
    "axes.grid": False,  # line plots turn it on with ax.grid(True); heatmaps stay clean
    "axes.axisbelow": True,  # grid lines under the data (and identical when explorers blit)
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=list(OKABE_ITO)),
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "font.size": 10,
    "image.cmap": SEQUENTIAL,
    "savefig.bbox": "standard",
}


@contextlib.contextmanager
def book_style() -> Iterator[None]:
    """The book's figure style inside a ``with`` block only (the explorers draw inside it)."""
    with matplotlib.rc_context(STYLE):
        yield


def use_book_style() -> None:
    """Apply the book's figure style to this session: each chapter calls it once, in its first
    cell. Importing the library changes nothing in matplotlib (neither the backend nor
    ``rcParams``); figures are detached from pyplot and rendered to PNG with Agg."""
    matplotlib.rcParams.update(STYLE)


def new_figure(width: float = 7.0, height: float = 3.2) -> Figure:
    """A figure in the book style, detached from pyplot (nothing is shown until :func:`show`)."""
    return Figure(figsize=(width, height), layout="constrained")


def fixed_axes(fig: Figure, *rects: tuple[float, float, float, float]) -> list[Axes]:
    """Axes at fixed places in ``fig`` (figure fractions ``left, bottom, width, height``).

    Explorers use this instead of a layout engine: the layout then cannot depend on the slider
    values (tick labels, titles), so a live update draws exactly what a fresh figure would.
    """
    fig.set_layout_engine("none")
    return [fig.add_axes(r) for r in rects]


def png_bytes(fig: Figure, dpi: int = 90, fast: bool = False) -> bytes:
    """Render ``fig`` at ``dpi`` to PNG bytes (one Agg draw, encoded by Pillow).

    ``fast=True`` trades file size for speed (zlib level 1), for live slider updates.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.get_dpi() != dpi:
        fig.set_dpi(dpi)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    with book_style():  # a few settings are read at draw time: draw as the explorers do
        canvas.draw()
    return rgba_png(np.asarray(canvas.buffer_rgba()), fast=fast)


def rgba_png(rgba: np.ndarray, fast: bool = False) -> bytes:
    """Encode an ``(H, W, 4)`` uint8 RGBA canvas buffer as an RGB PNG."""
    from PIL import Image

    buf = io.BytesIO()
    options = {"compress_level": 1} if fast else {"optimize": True}
    Image.fromarray(np.ascontiguousarray(rgba[..., :3])).save(buf, format="PNG", **options)
    return buf.getvalue()


def compact_png(png: bytes, colors: int = 192) -> bytes:
    """Re-encode a PNG with a palette of at most ``colors`` colours (about 3x smaller).

    Used for the pre-rendered frames of the static site, where page weight matters more than
    the last shade of a gradient.
    """
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        pal = im.convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
        out = io.BytesIO()
        pal.save(out, format="PNG", optimize=True)
    return out.getvalue()


def img_html(png: bytes, alt: str) -> str:
    """An ``<img>`` tag with the PNG inlined, its alt text, and a width that never overflows."""
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<img class="posenc-figure" src="data:image/png;base64,{data}" '
        f'alt="{html.escape(alt, quote=True)}" style="max-width:100%;height:auto" />'
    )


class FigureImage:
    """A rendered figure with alt text; displays as HTML, falls back to its alt text."""

    def __init__(self, png: bytes, alt: str) -> None:
        if not isinstance(alt, str) or not alt.strip():
            raise ValueError(f"alt must be a non-empty description of the figure, got {alt!r}")
        self.png = png
        self.alt = alt

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": img_html(self.png, self.alt), "text/plain": f"[figure] {self.alt}"}


def show(fig: Figure, alt: str, dpi: int = 90) -> FigureImage:
    """Render ``fig`` with its alt text; the returned object displays in notebooks and the book."""
    return FigureImage(png_bytes(fig, dpi=dpi), alt)
