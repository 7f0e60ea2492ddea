"""One explorer API behind every slider in the book.

An :class:`Explorer` couples a plotting function ``plot(fig, **values)`` with named parameters
(:class:`Param`). It shows as ipywidgets sliders above the figure, in one of two modes that look
the same to the reader:

``live`` (Jupyter, VS Code, Colab — the default)
    Moving a slider calls back into Python, which clears the *same* matplotlib figure, redraws it
    and swaps the new PNG into the page. Any value in the slider's range works.

``static`` (the website: no kernel, no network)
    Every combination of the parameters' declared ``grid`` values is rendered ahead of time. The
    frames sit in nested :class:`ipywidgets.Stack` widgets; each slider's ``index`` is linked in
    the browser (:func:`ipywidgets.jslink`) to the ``selected_index`` of the stacks at its level,
    so moving it flips frames with no Python at all.

The mode comes from the ``POSENC_WIDGETS`` environment variable (``static`` or ``live``);
``tools/execute_notebooks.py`` sets ``static`` when it stores the outputs the book is built from.
Either way the text form of an explorer is one stable line, so nbval checks it.
"""

from __future__ import annotations

import html
import itertools
import math
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from .plotting import book_style, compact_png, img_html, new_figure, png_bytes, rgba_png

__all__ = [
    "MAX_FRAMES",
    "Explorer",
    "Param",
    "base_param",
    "choice_param",
    "dim_param",
    "explore",
    "float_param",
    "int_param",
    "log_param",
    "mode",
    "slope_param",
]

Kind = Literal["int", "float", "log", "choice"]
MAX_FRAMES = 64  # static frames per explorer: keeps a chapter page within its size budget
PNG_CACHE = 128  # live images an explorer keeps for values it has already shown
_MODES = ("live", "static")


def mode() -> str:
    """The explorer mode in force: ``POSENC_WIDGETS`` if set to ``live``/``static``, else live."""
    value = os.environ.get("POSENC_WIDGETS", "live").strip().lower()
    if value not in _MODES:
        raise ValueError(f"POSENC_WIDGETS must be 'live' or 'static', got {value!r}")
    return value


def _default_fmt(value: Any) -> str:
    """A slider label: whole numbers as they are, others to 4 significant digits."""
    if isinstance(value, float):
        if value != 0 and (abs(value) < 1e-2 or abs(value) >= 1e5):
            return f"{value:.3g}"
        if value == round(value) or abs(value) >= 1000:
            return f"{value:.0f}"
        return f"{value:.4g}"
    return str(value)


@dataclass(frozen=True)
class Param:
    """One slider: a keyword of the plot function, its live range and its static grid.

    ``kind`` is ``"int"`` (``IntSlider`` with ``step``), ``"float"`` (``FloatSlider``), ``"log"``
    (``FloatLogSlider``: ``min``/``max`` are values, the slider moves in equal steps of
    ``log(value)``) or ``"choice"`` (``ToggleButtons`` over ``grid``). ``grid`` lists the values
    rendered for the static site; it must lie within ``[min, max]`` and contain ``default``.
    """

    name: str
    label: str
    kind: Kind
    default: Any
    grid: tuple[Any, ...]
    min: float | None = None
    max: float | None = None
    step: float | None = None
    fmt: Callable[[Any], str] = field(default=_default_fmt, compare=False)
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"name must be a Python identifier, got {self.name!r}")
        if self.kind not in ("int", "float", "log", "choice"):
            raise ValueError(f"kind must be 'int', 'float', 'log' or 'choice', got {self.kind!r}")
        if len(self.grid) < 1:
            raise ValueError(f"grid of {self.name!r} must hold at least one value")
        if self.default not in self.grid:
            raise ValueError(
                f"default of {self.name!r} ({self.default!r}) must be one of its grid values"
            )
        if self.kind != "choice":
            if self.min is None or self.max is None or not self.min < self.max:
                raise ValueError(f"{self.name!r} needs min < max, got {self.min!r}, {self.max!r}")
            for g in self.grid:
                if not self.min <= g <= self.max:
                    raise ValueError(
                        f"grid value {g!r} of {self.name!r} lies outside [{self.min}, {self.max}]"
                    )
            if self.kind == "log" and self.min <= 0:
                raise ValueError(f"log parameter {self.name!r} needs min > 0, got {self.min!r}")

    # -- values the slider can reach -------------------------------------------------------
    def live_extremes(self) -> tuple[Any, ...]:
        """Values at the ends (and an odd spot inside) of the live range, for tests."""
        if self.kind == "choice":
            return tuple(self.grid)
        if self.kind == "int":
            step = int(self.step or 1)
            first, last = int(self.min), int(self.max)  # type: ignore[arg-type]
            n_steps = (last - first) // step
            middle = first + step * max(1, n_steps // 3)
            return (first, first + step, middle, first + n_steps * step)
        lo, hi = float(self.min), float(self.max)  # type: ignore[arg-type]
        if self.kind == "log":
            inner = math.exp(math.log(lo) + 0.37 * (math.log(hi) - math.log(lo)))
        else:
            inner = lo + 0.37 * (hi - lo)
        return (lo, inner, hi)

    def coerce(self, value: Any) -> Any:
        """Turn a raw slider value into what the plot function receives."""
        if self.kind == "int":
            return int(value)
        if self.kind in ("float", "log"):
            return float(value)
        return value

    # -- widgets ----------------------------------------------------------------------------
    def live_widget(self) -> widgets.ValueWidget:
        style = {"description_width": "initial"}
        layout = widgets.Layout(width="min(100%, 26rem)")
        if self.kind == "int":
            return widgets.IntSlider(
                value=int(self.default), min=int(self.min), max=int(self.max),  # type: ignore[arg-type]
                step=int(self.step or 1), description=self.label, continuous_update=True,
                style=style, layout=layout,
            )
        if self.kind == "float":
            return widgets.FloatSlider(
                value=float(self.default), min=float(self.min), max=float(self.max),  # type: ignore[arg-type]
                step=float(self.step or (self.max - self.min) / 100),  # type: ignore[operator]
                description=self.label, continuous_update=True, style=style, layout=layout,
            )
        if self.kind == "log":
            return widgets.FloatLogSlider(
                value=float(self.default), base=10.0, min=math.log10(self.min),  # type: ignore[arg-type]
                max=math.log10(self.max), step=float(self.step or 0.05),  # type: ignore[arg-type]
                description=self.label, continuous_update=True, readout_format=".3g",
                style=style, layout=layout,
            )
        return self._choice_widget()

    def static_widget(self) -> widgets.DOMWidget:
        if self.kind == "choice":
            return self._choice_widget()
        return widgets.SelectionSlider(
            options=[(self.fmt(g), i) for i, g in enumerate(self.grid)],
            index=self.grid.index(self.default), description=self.label,
            continuous_update=True, style={"description_width": "initial"},
            layout=widgets.Layout(width="min(100%, 26rem)"),
        )

    def _choice_widget(self) -> widgets.ToggleButtons:
        return widgets.ToggleButtons(
            options=[(self.fmt(g), g) for g in self.grid], value=self.default,
            description=self.label, style={"description_width": "initial", "button_width": "auto"},
        )


# -- the parameters the book uses again and again --------------------------------------------
def int_param(name: str, label: str, min: int, max: int, default: int,
              grid: Sequence[int], step: int = 1, description: str = "") -> Param:
    """An integer slider (``IntSlider``) with a static ``grid``."""
    return Param(name, label, "int", default, tuple(grid), min, max, step, description=description)


def float_param(name: str, label: str, min: float, max: float, default: float,
                grid: Sequence[float], step: float | None = None,
                description: str = "") -> Param:
    """A linear real slider (``FloatSlider``) with a static ``grid``."""
    return Param(name, label, "float", default, tuple(grid), min, max, step,
                 description=description)


def log_param(name: str, label: str, min: float, max: float, default: float,
              grid: Sequence[float], step: float = 0.05, fmt: Callable[[Any], str] = _default_fmt,
              description: str = "") -> Param:
    """A log-scale slider: equal steps of ``log10(value)`` (``step`` in decades)."""
    return Param(name, label, "log", default, tuple(grid), min, max, step, fmt=fmt,
                 description=description)


def choice_param(name: str, label: str, options: Sequence[Any], default: Any | None = None,
                 description: str = "") -> Param:
    """A set of toggle buttons over ``options`` (identical live and static)."""
    opts = tuple(options)
    return Param(name, label, "choice", opts[0] if default is None else default, opts,
                 description=description)


def dim_param(default: int = 64, grid: Sequence[int] = (4, 8, 16, 32, 64, 128, 256, 512),
              min: int = 4, max: int = 512, name: str = "d") -> Param:
    """Model dimension ``d``: even values only (``step=2``), 4…512 by default."""
    return int_param(name, "dimension d", min, max, default, grid, step=2,
                     description="model dimension (even)")


def base_param(default: float = 10000.0,
               grid: Sequence[float] = (10.0, 100.0, 1000.0, 10000.0, 100000.0),
               min: float = 10.0, max: float = 100000.0, name: str = "n") -> Param:
    """Frequency base ``n`` on a log scale, 10…100000."""
    return log_param(name, "base n", min, max, default, grid, step=0.05,
                     description="frequency base (log scale)")


def _slope_label(m: float) -> str:
    inv = 1.0 / m
    return f"1/{inv:.0f}" if abs(inv - round(inv)) < 1e-9 and inv >= 2 else f"{m:.3g}"


_SLOPES = tuple(2.0 ** -k for k in range(8, -1, -1))   # 1/256, 1/128, ..., 1


def slope_param(default: float = 0.5, grid: Sequence[float] = _SLOPES,
                min: float = 1 / 256, max: float = 1.0, name: str = "m") -> Param:
    """ALiBi slope ``m`` on a log scale, 1/256…1 (powers of two on the static site)."""
    return log_param(name, "slope m", min, max, default, grid, step=math.log10(2) / 4,
                     fmt=_slope_label, description="ALiBi slope (log scale)")


# -- the explorer ---------------------------------------------------------------------------
class Explorer:
    """Sliders plus one figure; see the module docstring for the live and static modes.

    ``plot(fig, **values)`` draws into an empty :class:`~matplotlib.figure.Figure` (the same
    object on every redraw) and may return ``update(**values)``, a function that changes the
    existing artists for new values; then the explorer calls it instead of redrawing from scratch.
    If ``update`` returns the list of artists it changed, live updates redraw only those over a
    saved image of the rest (blitting), which is several times faster than a full draw (text is
    most of Agg's work, and most text does not change). The list must hold everything that
    changes: where limits or ticks move, the ``ax.xaxis``/``ax.yaxis`` artist (ticks, labels,
    grid lines); and any unchanged artist that a full draw puts *over* a changed one (a
    reference line that curves cross, a label on a grid line), since blitted artists land on
    top. The spines, and the legends of axes with a changed artist, are redrawn automatically.
    Return ``None`` to have the whole figure drawn.
    ``test_live_updates_match_a_fresh_full_drawing`` compares the two for every explorer.
    ``alt`` is the figure's description for screen readers: a format string over the parameter
    names (``"… d={d}, n={n:g}"``) or a function of them.
    """

    def __init__(self, plot: Callable[..., Any], params: Sequence[Param], *, title: str,
                 alt: str | Callable[..., str], figsize: tuple[float, float] = (7.0, 3.2),
                 dpi: int = 80) -> None:
        if not callable(plot):
            raise TypeError(f"plot must be callable, got {plot!r}")
        params = tuple(params)
        if not params:
            raise ValueError("an explorer needs at least one Param")
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ValueError(f"parameter names must be unique, got {names}")
        frames = math.prod(len(p.grid) for p in params)
        if frames > MAX_FRAMES:
            raise ValueError(
                f"the static grids give {frames} frames; at most {MAX_FRAMES} keep a page small"
            )
        self.plot = plot
        self.params = params
        self.title = title
        self.alt = alt
        self.figsize = figsize
        self.dpi = dpi
        self._fig: Figure | None = None
        self._updater: Callable[..., Any] | None = None
        self._plotted: dict[str, Any] | None = None  # values last drawn by ``plot`` itself
        self._background: tuple[tuple[int, ...], Any, list[Any]] | None = None
        # Live PNGs already drawn, newest last: a slider moved back to a value it has shown
        # gets its image at once (at most PNG_CACHE entries, ~20-60 KB each).
        self._pngs: OrderedDict[tuple[tuple[str, Any], ...], bytes] = OrderedDict()

    # -- rendering --------------------------------------------------------------------------
    @property
    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def alt_text(self, **values: Any) -> str:
        return self.alt(**values) if callable(self.alt) else self.alt.format(**values)

    def _full(self, values: dict[str, Any]) -> dict[str, Any]:
        full = {**self.defaults, **values}
        unknown = set(full) - {p.name for p in self.params}
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)} for explorer {self.title!r}")
        return {p.name: p.coerce(full[p.name]) for p in self.params}

    def draw(self, **values: Any) -> Figure:
        """Draw the explorer's figure (created once) for ``values`` and return it (full redraw)."""
        with book_style():
            self._update(self._full(values))
        self._background = None  # a full draw follows; any cached background may be stale
        return self._fig  # type: ignore[return-value]

    def _update(self, full: dict[str, Any]) -> Any:
        """Bring the figure to ``full``; returns what the plot's ``update`` returned (or None).

        The first call runs ``plot(fig, **defaults)``. If ``plot`` returned a callable, the
        figure's layout is fitted to that default frame and frozen, and this and later calls hand
        the callable the new values so it can update its artists in place; otherwise the figure
        is cleared and ``plot`` runs again for each new frame. Fitting the layout to the defaults,
        not to whichever frame is asked for first, gives every frame the same layout however
        the reader (or a test, or the static build) reaches it.
        """
        if self._fig is None:
            self._fig = new_figure(*self.figsize)
            self._fig.set_dpi(self.dpi)
            FigureCanvasAgg(self._fig)
        if self._updater is not None:
            return self._updater(**full)
        defaults = self._full({})
        if self._plotted is None:
            result = self._replot(defaults)
            if callable(result):
                # Lay the figure out once, then freeze it: later updates only move artists.
                self._fig.draw_without_rendering()
                self._fig.set_layout_engine("none")
                self._updater = result
                return None if full == defaults else result(**full)
        if full != self._plotted:
            self._replot(full)
        return None

    def _replot(self, values: dict[str, Any]) -> Any:
        """Clear the figure and run ``plot`` for ``values``; returns what ``plot`` returned."""
        assert self._fig is not None
        self._fig.clear()
        self._fig.set_layout_engine("constrained")
        result = self.plot(self._fig, **values)
        self._plotted = values
        return result

    def render_png(self, compact: bool = False, **values: Any) -> bytes:
        """PNG bytes of the figure for ``values`` (defaults fill the rest), in the book style.

        ``compact=True`` (static frames): a full draw, saved as a small palette PNG.
        ``compact=False`` (live updates): the fast path. If the plot's ``update`` returned the
        artists it changed, only those are drawn over a cached rendering of everything else
        (blitting); otherwise the whole figure is drawn.
        """
        with book_style():
            return self._render_png(compact, values)

    def _render_png(self, compact: bool, values: dict[str, Any]) -> bytes:
        full = self._full(values)
        if compact:
            return compact_png(png_bytes(self.draw(**full), dpi=self.dpi))
        key = tuple(sorted(full.items()))
        if key in self._pngs:
            self._pngs.move_to_end(key)
            return self._pngs[key]
        png = self._draw_live(full)
        self._pngs[key] = png
        if len(self._pngs) > PNG_CACHE:
            self._pngs.popitem(last=False)
        return png

    def _draw_live(self, full: dict[str, Any]) -> bytes:
        changed = self._update(full)
        fig = self._fig
        assert fig is not None
        if not changed:
            self._background = None
            return png_bytes(fig, dpi=self.dpi, fast=True)
        # The axes frames, and the legends of axes where something changed, are redrawn too, so
        # that changed artists never cover them: a full draw puts spines (z-order 2.5) and
        # legends (5) over images, grid lines, patches and lines.
        touched = {a.axes for a in changed if getattr(a, "axes", None) is not None}
        legends = [ax.get_legend() for ax in fig.axes if ax in touched and ax.get_legend()]
        artists = list(dict.fromkeys([*changed, *legends, *(sp for ax in fig.axes
                                                           for sp in ax.spines.values())]))
        canvas = fig.canvas
        assert isinstance(canvas, FigureCanvasAgg)
        key = tuple(id(a) for a in artists)
        if self._background is None or self._background[0] != key:
            # "Animated" artists are left out of a full draw, except images, which are still
            # composited: those are hidden, or an image with transparent (NaN) cells would leave
            # its old pixels in the background. (Hiding everything instead would also skip
            # placing the axes titles.)
            images = [a for a in artists if isinstance(a, AxesImage)]
            shown = [a.get_visible() for a in images]
            for a in artists:
                a.set_animated(True)
            for a in images:
                a.set_visible(False)
            canvas.draw()  # everything except the changing artists
            # the order a full draw uses: by z-order, ties in the order the artists were added
            rank = {id(a): i for i, a in enumerate(fig.findobj(include_self=False))}
            order = sorted(artists, key=lambda a: (a.get_zorder(), rank.get(id(a), 0)))
            self._background = (key, canvas.copy_from_bbox(fig.bbox), order)
            for a in artists:
                a.set_animated(False)
            for a, v in zip(images, shown):
                a.set_visible(v)
        canvas.restore_region(self._background[1])
        for a in self._background[2]:
            fig.draw_artist(a)
        return rgba_png(np.asarray(canvas.buffer_rgba()), fast=True)

    def frame_html(self, compact: bool = False, **values: Any) -> str:
        """The ``<img>`` (PNG inlined, alt text filled in) for ``values``."""
        full = self._full(values)
        return img_html(self.render_png(compact=compact, **full), self.alt_text(**full))

    def sweep(self) -> Iterator[dict[str, Any]]:
        """Every static frame and the ends of every live range (one parameter at a time)."""
        for combo in itertools.product(*(p.grid for p in self.params)):
            yield dict(zip((p.name for p in self.params), combo))
        for p in self.params:
            for v in p.live_extremes():
                yield {**self.defaults, p.name: p.coerce(v)}

    # -- widgets ----------------------------------------------------------------------------
    def _header(self) -> widgets.HTML:
        return widgets.HTML(f"<strong>{self.title}</strong>")

    def live(self) -> widgets.VBox:
        """Sliders with Python callbacks that redraw the figure in place."""
        sliders = [p.live_widget() for p in self.params]
        image = widgets.HTML(self.frame_html())
        state = self.defaults
        # Readouts use each parameter's own format, as the static site's labels do
        # (10000, 1/4), not the slider's built-in one (1.00e+4, 0.250).
        rows: list[widgets.Widget] = []
        readouts: list[widgets.Label | None] = []
        for p, s in zip(self.params, sliders):
            if p.kind == "choice":
                rows.append(s)
                readouts.append(None)
                continue
            s.readout = False
            label = widgets.Label(p.fmt(p.coerce(s.value)))
            label.add_class("posenc-readout")
            readouts.append(label)
            rows.append(widgets.HBox([s, label]))

        def update(change: dict[str, Any]) -> None:
            for p, s, r in zip(self.params, sliders, readouts):
                state[p.name] = p.coerce(s.value)
                if r is not None:
                    r.value = p.fmt(state[p.name])
            image.value = self.frame_html(**state)

        for s in sliders:
            s.observe(update, names="value")
        box = widgets.VBox([self._header(), *rows, image])
        box.add_class("posenc-explorer")
        box.add_class("posenc-live")
        return box

    def static(self) -> widgets.VBox:
        """Pre-rendered frames in nested stacks, switched in the browser by linked sliders."""
        controls = [p.static_widget() for p in self.params]
        levels: list[list[widgets.Stack]] = [[] for _ in self.params]

        def build(depth: int, fixed: dict[str, Any]) -> widgets.Widget:
            if depth == len(self.params):
                return widgets.HTML(self.frame_html(compact=True, **fixed))
            p = self.params[depth]
            children = [build(depth + 1, {**fixed, p.name: g}) for g in p.grid]
            stack = widgets.Stack(children, selected_index=p.grid.index(p.default))
            levels[depth].append(stack)
            return stack

        root = build(0, {})
        for control, stacks in zip(controls, levels):
            for stack in stacks:
                widgets.jslink((control, "index"), (stack, "selected_index"))
        box = widgets.VBox([self._header(), *controls, root])
        box.add_class("posenc-explorer")
        box.add_class("posenc-static")
        return box

    def widget(self, mode_: str | None = None) -> widgets.VBox:
        chosen = mode() if mode_ is None else mode_
        if chosen not in _MODES:
            raise ValueError(f"mode must be 'live' or 'static', got {chosen!r}")
        return self.live() if chosen == "live" else self.static()

    def __repr__(self) -> str:
        names = ", ".join(p.name for p in self.params)
        return f"<Explorer {self.title!r}: sliders {names}>"

    def static_html(self) -> str:
        """What a notebook shows before the cell runs (or where widgets cannot render): the
        default figure and a line saying how to get the sliders."""
        names = ", ".join(p.label for p in self.params)
        return (f'<div class="posenc-explorer-preview"><p><strong>{html.escape(self.title)}</strong>'
                f"</p>{self.frame_html(compact=True)}<p><em>Run this cell to move the sliders "
                f"({html.escape(names)}).</em></p></div>")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = self.widget()._repr_mimebundle_(include=include, exclude=exclude)
        if isinstance(bundle, tuple):  # (data, metadata)
            data = dict(bundle[0])
        else:
            data = dict(bundle or {})
        data["text/html"] = self.static_html()
        data["text/plain"] = repr(self)
        return data

    # -- measurement ------------------------------------------------------------------------
    def time_update(self, repeats: int = 20, cached: bool = False) -> list[float]:
        """Seconds per live update (redraw + PNG + HTML), cycling through the static grid.

        ``cached=False`` times real redraws (the image cache is emptied before each move);
        ``cached=True`` lets moves back to values already shown come from the cache.
        """
        combos = list(itertools.product(*(p.grid for p in self.params)))
        out = []
        for r in range(repeats):
            values = dict(zip((p.name for p in self.params), combos[r % len(combos)]))
            if not cached:
                self._pngs.clear()
            t0 = time.perf_counter()
            self.frame_html(**values)
            out.append(time.perf_counter() - t0)
        return out


def explore(plot: Callable[..., Any], *params: Param, title: str,
            alt: str | Callable[..., str], figsize: tuple[float, float] = (7.0, 3.2),
            dpi: int = 80) -> Explorer:
    """Make an :class:`Explorer`; display it (last expression of a cell) to get the sliders."""
    return Explorer(plot, params, title=title, alt=alt, figsize=figsize, dpi=dpi)
