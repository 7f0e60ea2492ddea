"""Figures for chapter 12: where each method enters a head, a timeline, and a same-token probe."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyBboxPatch, Rectangle

from ...display.explorer import Explorer, explore, int_param
from ...display.plotting import OKABE_ITO, SEQUENTIAL
from ...lab import schemes
from .. import catalogue

__all__ = [
    "WHERE_STYLE",
    "same_token_explorer",
    "same_token_grid",
    "same_token_logits",
    "timeline",
    "timeline_alt",
    "where_diagram",
]

#: Colour and marker for each place position can enter (colour is never the only cue).
WHERE_STYLE: dict[str, tuple[str, str]] = {
    "input": (OKABE_ITO[0], "o"),
    "queries-keys": (OKABE_ITO[1], "s"),
    "scores": (OKABE_ITO[2], "^"),
    "nowhere": ("#666666", "X"),
}


# -- where each method enters ----------------------------------------------------------------
def _box(ax, x: float, y: float, w: float, h: float, text: str, *, face: str = "white",
         edge: str = "#333333", lw: float = 1.2, ls: str = "-", size: float = 9.5,
         weight: str = "normal") -> None:
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.008,rounding_size=0.015",
                                facecolor=face, edgecolor=edge, lw=lw, ls=ls))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size,
            weight=weight, wrap=False)


def _arrow(ax, x: float, y0: float, y1: float) -> None:
    ax.annotate("", xy=(x, y1), xytext=(x, y0),
                arrowprops={"arrowstyle": "-|>", "color": "#333333", "lw": 1.2,
                            "shrinkA": 0, "shrinkB": 0})


def where_diagram(fig: Figure) -> None:
    """One attention head from tokens to outputs, with the three places position can enter.

    A vertical flow (so it stays legible on a narrow phone screen): embedding → queries/keys →
    scores → softmax → weighted values. Coloured, labelled marks on the arrows show where the
    absolute encodings (input), RoPE and its stretched versions (queries and keys) and the
    relative biases (scores) act; each label names the methods and their chapters.
    """
    fig.set_layout_engine("none")  # boxes are placed by hand in figure coordinates
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    cx, bw = 0.245, 0.45  # centre column of the flow and box width
    left = cx - bw / 2
    steps = [  # (centre y, height, text)
        (0.895, 0.072, "tokens $t_1, \\dots, t_L$"),
        (0.775, 0.072, "embedding\n$x_i = E[t_i]$"),
        (0.615, 0.105, "projections\n$q_i = x_iW_Q$, $k_j = x_jW_K$\n$v_j = x_jW_V$"),
        (0.455, 0.072, "scores\n$e_{ij} = q_i\\cdot k_j/\\sqrt{d_k}$"),
        (0.325, 0.072, "softmax over $j$\n$\\to A_{ij}$"),
        (0.195, 0.072, "output\n$o_i = \\sum_j A_{ij}\\,v_j$"),
    ]
    for y, h, text in steps:
        _box(ax, left, y - h / 2, bw, h, text, size=9.0)
    for (y0, h0, _), (y1, h1, _) in zip(steps, steps[1:]):
        _arrow(ax, cx, y0 - h0 / 2, y1 + h1 / 2)

    def gap(k: int) -> float:  # middle of the arrow below box k
        (y0, h0, _), (y1, h1, _) = steps[k], steps[k + 1]
        return ((y0 - h0 / 2) + (y1 + h1 / 2)) / 2

    lx, lw = 0.53, 0.46  # label boxes on the right
    marks = [
        ("input", "+", gap(1), "INPUT\nadd PE(pos) to $x_i$\nsinusoidal (ch. 6), learned (ch. 7)"),
        ("queries-keys", "R", gap(2),
         "QUERIES & KEYS\nrotate $q_i$, $k_j$ by $R(pos)$\nRoPE (ch. 8); PI, NTK, YaRN (ch. 11)"),
        ("scores", "+", gap(3), "SCORES\nadd a term $b(i, j)$\nShaw, T5 (ch. 7); ALiBi (ch. 9)"),
    ]
    for where, symbol, y, label in marks:
        colour, _ = WHERE_STYLE[where]
        ax.scatter([cx], [y], s=300, color=colour, edgecolors="#333333", linewidths=0.8,
                   zorder=3)
        ax.text(cx, y, symbol, ha="center", va="center", color="white", fontsize=10.5,
                weight="bold", zorder=4)
        ax.plot([cx + 0.035, lx], [y, y], color=colour, lw=1.6, ls="--")
        _box(ax, lx, y - 0.052, lw, 0.104, label, edge=colour, lw=2.0, size=8.0)
    colour, _ = WHERE_STYLE["nowhere"]
    _box(ax, lx, steps[-1][0] - 0.052, lw, 0.104,
         "NOWHERE\nNoPE (ch. 10): only a causal\nmask hints at the order", edge=colour,
         lw=1.6, ls=":", size=8.0)
    ax.text(0.5, 0.075, "One attention head. Position enters at one of\nthree places "
            "(or nowhere). Relative methods act\non the queries and keys or on the scores.",
            ha="center", va="center", fontsize=8.5, style="italic", color="#333333")
    ax.text(0.5, 0.985, "Where position enters a transformer", ha="center", va="top",
            fontsize=11, weight="bold")


# -- timeline --------------------------------------------------------------------------------
def timeline(fig: Figure, events: tuple[catalogue.Event, ...] = catalogue.TIMELINE) -> None:
    """The methods and key adoptions on a vertical time axis, from 2017 (top) down to the start
    of the year after the last event (bottom).

    Markers sit at the true date on the axis; each is joined to its label, and the labels are
    spaced evenly in date order (so that the crowded year 2023 stays readable). Marker colour
    and shape say where the method acts (:data:`WHERE_STYLE`); filled markers are the methods'
    key papers, hollow ones adoptions by well-known models or later studies (italic labels).
    Dates are those of the first public version (arXiv v1 where one exists), to the month.
    :func:`timeline_alt` describes the same events in words.
    """
    ax = fig.subplots()
    top, bottom = 2017.0, float(_last_year(events) + 1)
    dates = [e.year + (e.month - 0.5) / 12 for e in events]
    rows = np.linspace(top + 0.2, bottom - 0.2, len(events))
    x_event, x_label = 0.0, 0.9
    months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
    for e, t, ty in zip(events, dates, rows):
        colour, marker = WHERE_STYLE[e.acts_on]
        filled = e.kind == "method"
        ax.scatter([x_event], [t], s=55, marker=marker, zorder=3,
                   facecolor=colour if filled else "white", edgecolor=colour, linewidths=1.6)
        ax.plot([x_event + 0.06, x_label - 0.08], [t, ty], color=colour, lw=0.8, alpha=0.8)
        ax.text(x_label, ty, f"{months[e.month - 1]} {e.year}  {e.label}", va="center",
                ha="left", fontsize=8.6, style="normal" if filled else "italic")
    ax.axvline(x_event, color="#333333", lw=1.0, zorder=1)
    ax.set_ylim(bottom + 0.05, top - 0.05)  # time runs down the page
    ax.set_xlim(-0.35, 6.3)
    ax.set_yticks(range(2017, int(bottom) + 1))
    ax.set_ylabel("year (first public version)")
    ax.set_xticks([])
    ax.spines["bottom"].set_visible(False)
    handles = [Line2D([], [], ls="none", marker=m, color=c, markersize=7, label=w)
               for w, (c, m) in WHERE_STYLE.items()]
    handles += [Line2D([], [], ls="none", marker="o", markerfacecolor="#777777",
                       markeredgecolor="#777777", label="key paper"),
                Line2D([], [], ls="none", marker="o", markerfacecolor="white",
                       markeredgecolor="#777777", label="model / study")]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=8,
               title="marker colour and shape: where it acts;  filled: key paper",
               title_fontsize=8)
    ax.set_title(f"Position encodings, 2017 → {_last_year(events)}")


def _last_year(events: tuple[catalogue.Event, ...]) -> int:
    return max((e.year for e in events), default=2017)


def timeline_alt(events: tuple[catalogue.Event, ...] = catalogue.TIMELINE) -> str:
    """Alt text for :func:`timeline`, built from the same events (so the two never disagree)."""
    months = ("January February March April May June July August September October November "
              "December").split()
    items = [f"{months[e.month - 1]} {e.year} {e.label}" for e in events]
    return (f"Vertical timeline from 2017 at the top to the end of {_last_year(events)} at the bottom. "
            "Markers on the time "
            "axis, coloured and shaped by where each method acts (filled for a method's key "
            "paper, hollow for an adoption or a later study), are joined to labels: "
            + "; ".join(items) + ".")


# -- same token at every position ------------------------------------------------------------
def same_token_grid(scheme: str, seq_len: int, train_len: int = 16, d: int = 16,
                    seed: int = 0) -> np.ndarray:
    """Logits of one head when the *same* token stands at positions ``0 .. seq_len-1``.

    Uses :func:`posenc_lib.course.catalogue.position_layer`; the learned table has ``train_len`` rows,
    so its logits beyond the training length are ``NaN`` (there is nothing to look up).
    A relative scheme gives a matrix that is constant along every diagonal.
    """
    seq_len = int(seq_len)
    bounded = schemes.get(scheme).has_max_length  # a learned table: rows up to train_len
    layer = catalogue.position_layer(scheme, d=d, seed=seed, max_len=train_len if bounded else 64)
    token = np.random.default_rng(seed + 1).standard_normal(d)
    known = min(seq_len, train_len) if bounded else seq_len
    out = np.full((seq_len, seq_len), np.nan)
    out[:known, :known] = layer(np.tile(token, (known, 1)), np.arange(known))
    return out


@lru_cache(maxsize=32)
def _same_token_grid_cached(scheme: str, seq_len: int, train_len: int) -> np.ndarray:
    grid = same_token_grid(scheme, seq_len, train_len)
    grid.flags.writeable = False  # shared between calls
    return grid


def same_token_logits(fig: Figure, seq_len: int = 32, train_len: int = 16,
                      scales_at: int = 64) -> dict[str, np.ndarray]:
    """Six heatmaps: the same-token logits of every lab scheme at length ``seq_len``.

    Each panel has its own colour scale, fixed from length ``scales_at`` so that it does not
    change when ``seq_len`` does. The white square marks positions inside the training length;
    grey means "no value" (the learned table has no row there). Returns the matrices.
    """
    update, _ = _same_token_panels(fig, train_len, max(scales_at, seq_len))
    return update(seq_len)


def _same_token_panels(fig: Figure, train_len: int, scales_at: int, fixed_layout: bool = False
                       ) -> tuple[Callable[[int], dict[str, np.ndarray]], list[Artist]]:
    """Draw the six panels once; return ``update(seq_len)``, which moves their artists to a
    length up to ``scales_at`` and returns the matrices shown, and the artists it changes
    (the images, squares and labels, every panel's axes, the title). ``fixed_layout``: place the
    panels at fixed positions instead of fitting them to the first length's labels (an
    explorer's frames are then laid out alike whichever is drawn first)."""
    if fixed_layout:
        fig.set_layout_engine("none")
        axes = fig.subplots(2, 3, sharex=True, sharey=True, gridspec_kw=dict(
            left=0.09, right=0.99, bottom=0.1, top=0.85, wspace=0.1, hspace=0.3))
    else:
        axes = fig.subplots(2, 3, sharex=True, sharey=True)
    cmap = colormaps[SEQUENTIAL].with_extremes(bad="#d0d0d0")
    panels = []
    for ax, scheme in zip(axes.flat, catalogue.LAYER_SCHEMES):
        # Logit (i, j) depends only on positions i and j, so the length-L grid is the top-left
        # corner of the longer one that fixes the colour scale: compute that one only (and
        # only once, since every slider move asks for the same one).
        ref = _same_token_grid_cached(scheme, scales_at, train_len)
        lo, hi = float(np.nanmin(ref)), float(np.nanmax(ref))
        if hi - lo < 1e-9:
            lo, hi = lo - 1.0, hi + 1.0
        image = ax.imshow(np.ma.masked_invalid(ref), cmap=cmap, vmin=lo, vmax=hi,
                          interpolation="nearest", origin="upper")
        square = ax.add_patch(Rectangle((-0.5, -0.5), train_len, train_len, fill=False,
                                        edgecolor="white", lw=1.8))
        no_row = ax.text(0, 0, "no row", ha="center", va="center", fontsize=8,
                         color="#333333", visible=False)
        where = schemes.get(scheme).acts_on
        colour, marker = WHERE_STYLE[where]
        ax.set_title(f"{schemes.get(scheme).long_label} · {where}", fontsize=9.5,
                     color="black")
        ax.plot([-0.03], [1.09], marker=marker, color=colour, transform=ax.transAxes,
                clip_on=False, markersize=6)
        panels.append((scheme, ref, image, square, no_row))
    for ax in axes[-1]:
        ax.set_xlabel("key position j")
    for ax in axes[:, 0]:
        ax.set_ylabel("query position i")
    title = fig.suptitle("", fontsize=10)

    def update(seq_len: int) -> dict[str, np.ndarray]:
        out = {}
        known = min(train_len, seq_len)
        for scheme, ref, image, square, no_row in panels:
            grid = ref[:seq_len, :seq_len].copy()
            out[scheme] = grid
            image.set_data(np.ma.masked_invalid(grid))
            image.set_extent((-0.5, seq_len - 0.5, seq_len - 0.5, -0.5))
            square.set_width(known)
            square.set_height(known)
            if schemes.get(scheme).has_max_length and seq_len > train_len:
                centre = (train_len + seq_len) / 2 - 0.5
                no_row.set_position((centre, centre))
                no_row.set_visible(True)
            else:
                no_row.set_visible(False)
        corner = axes[0, 0]   # the axes are shared: one call sets every panel's limits and ticks
        corner.set_xlim(-0.5, seq_len - 0.5)
        corner.set_ylim(seq_len - 0.5, -0.5)
        ticks = np.arange(0, seq_len, max(8, seq_len // 4 // 8 * 8))
        corner.set_xticks(ticks)
        corner.set_yticks(ticks)
        title.set_text(f"One token repeated at every position: logit of query i on key j\n"
                       f"(L = {seq_len}; white square: the {train_len} trained positions)")
        return out

    changing = [a for _, _, image, square, no_row in panels for a in (image, square, no_row)]
    changing += [axis for ax in axes.flat for axis in (ax.xaxis, ax.yaxis)]
    return update, [*changing, title]


def same_token_explorer(train_len: int = 16) -> Explorer:
    """Explorer: :func:`same_token_logits` for lengths 8 … 64 (trained on ``train_len``)."""

    def plot(fig: Figure, seq_len: int) -> Callable[..., Any]:
        panels, changing = _same_token_panels(fig, train_len, scales_at=64, fixed_layout=True)
        panels(seq_len)

        def update(seq_len: int) -> list[Artist]:
            panels(seq_len)
            return changing   # the panel titles and markers stay in the saved background

        return update

    return explore(
        plot,
        int_param("seq_len", "length L", 8, 64, 32, (8, 16, 24, 32, 48, 64), step=8,
                  description="sequence length (training length 16)"),
        title="The same token at every position: which schemes are relative?",
        alt=lambda seq_len: (
            f"Six heatmaps of attention logits for one token repeated at positions 0 to "
            f"{seq_len - 1}, query position down, key position across, with a white square "
            f"marking the first {train_len} positions seen in training. NoPE is one flat "
            "colour. Sinusoidal and learned-table panels vary irregularly over the whole "
            "square; the learned panel is grey (no row) beyond the training length. RoPE, "
            "ALiBi and T5 panels are constant along every diagonal: they depend only on the "
            "distance j - i, so the pattern simply continues past the training length."),
        figsize=(7.0, 5.0),
    )
