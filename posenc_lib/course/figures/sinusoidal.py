"""Figures and explorers for chapter 6: the Transformer's sinusoidal encoding, 10000^(2i/d)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from ...display.explorer import (
    Explorer,
    base_param,
    choice_param,
    dim_param,
    explore,
    int_param,
    log_param,
)
from ...display.plotting import DIVERGING, OKABE_ITO, fixed_axes
from ...maths import encodings, periodicity, similarity

__all__ = [
    "base_effect_explorer",
    "clock_explorer",
    "clock_faces",
    "column_spectra",
    "encoding_views_explorer",
    "float32_error",
    "layout_heatmaps",
    "norm_comparison",
    "shift_matrix_heatmap",
    "similarity_matrix_explorer",
    "wavelength_ladder",
]

_LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
_MARKERS = ("o", "s", "^", "D", "v", "P")
_CATEGORY_STYLE = {  # pair categories of similarity.window_census: colour + marker
    "wrapping": (OKABE_ITO[0], "o", "wraps around (repeats in the window)"),
    "ruler": (OKABE_ITO[1], "s", "ruler (moves, never repeats)"),
    "frozen": (OKABE_ITO[3], "x", "frozen (moves < 0.1)"),
}



def _fmt_len(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


# -- the dial analogy -------------------------------------------------------------------------
def _draw_clock(ax: Axes, colour: str) -> Callable[..., None]:
    """A dial on ``ax``; returns ``set_angle(theta)`` that moves its hand.

    The book draws every (sin, cos) pair the same way (chapter 4's circle): the cosine across,
    the sine up. The hand points to ``(cos θ, sin θ)``: at θ = 0 it points right (3 o'clock), and
    it turns counter-clockwise as θ grows, as angles do in mathematics.
    """
    ax.add_patch(Circle((0, 0), 1.0, fill=False, lw=1.2, color="#555555"))
    for t in np.arange(12) * np.pi / 6:
        ax.plot([0.88 * np.cos(t), np.cos(t)], [0.88 * np.sin(t), np.sin(t)],
                color="#888888", lw=0.8)
    trace, = ax.plot([], [], color=colour, lw=2.5, alpha=0.35)
    hand, = ax.plot([0, 1], [0, 0], color=colour, lw=2.2, solid_capstyle="round")
    tip, = ax.plot([1], [0], marker="o", color=colour, ms=5)
    ax.plot([0], [0], marker="o", color="#333333", ms=3)
    ax.set_xlim(-1.15, 1.15)
    ax.set_ylim(-1.15, 1.15)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)

    def set_angle(theta: float, swept: float | None = None) -> None:
        x, y = np.cos(theta), np.sin(theta)
        hand.set_data([0, 0.8 * x], [0, 0.8 * y])
        tip.set_data([0.8 * x], [0.8 * y])
        # the arc swept by the last step (how far one position moves this hand)
        if swept is not None:
            a = np.linspace(theta - min(swept, 2 * np.pi), theta, 40)
            trace.set_data(0.8 * np.cos(a), 0.8 * np.sin(a))

    return set_angle


def clock_faces(fig: Figure, positions: Sequence[int], d: int = 8, base: float = 10000.0) -> None:
    """A grid of dials: one row per position, one column per dimension pair.

    The hand of dial ``(pos, i)`` points to ``(PE(pos, 2i+1), PE(pos, 2i)) = (cos, sin)``: the
    cosine across, the sine up, as in chapter 4; a shaded arc shows how far it turned since
    ``pos - 1``.
    """
    positions = [int(p) for p in positions]
    if not positions:
        raise ValueError("positions must hold at least one position")
    omega = encodings.frequencies(d, base)
    lam = encodings.wavelengths(d, base)
    axes = fig.subplots(len(positions), d // 2, squeeze=False)
    for r, pos in enumerate(positions):
        for i in range(d // 2):
            ax = axes[r, i]
            set_angle = _draw_clock(ax, OKABE_ITO[i % len(OKABE_ITO)])
            set_angle(pos * omega[i], swept=omega[i] if pos > 0 else None)
            if r == 0:
                ax.set_title(f"pair i={i}\n(dims {2 * i}, {2 * i + 1})\n"
                             f"λ = {_fmt_len(lam[i])}", fontsize=9)
            if i == 0:
                ax.set_ylabel(f"pos = {pos}", rotation=0, ha="right", va="center", fontsize=10)
    fig.suptitle(f"Each pair is a hand on a dial (d = {d}, n = {base:g}): "
                 "fast on the left, slow on the right", fontsize=11)


def clock_explorer() -> Explorer:
    """Explorer: the four hands of a d=8, n=10000 encoding at one position (the slider), drawn
    like chapter 4's circle (cosine across, sine up, turning counter-clockwise)."""
    d = 8

    n = 10000.0

    def plot(fig: Figure, pos: int) -> Callable[..., Any]:
        axes = fig.subplots(1, d // 2)
        setters = [_draw_clock(ax, OKABE_ITO[i]) for i, ax in enumerate(axes)]
        titles = [ax.set_title("", fontsize=9) for ax in axes]
        readouts = [ax.text(0, -1.45, "", ha="center", va="top", fontsize=9) for ax in axes]
        for ax in axes:
            ax.set_ylim(-1.9, 1.15)
        sup = fig.suptitle("")

        def update(pos: int) -> None:
            omega = encodings.frequencies(d, n)
            lam = encodings.wavelengths(d, n)
            for i in range(d // 2):
                setters[i](pos * omega[i], swept=omega[i])
                titles[i].set_text(f"pair i={i}, λ = {_fmt_len(lam[i])}")
                readouts[i].set_text(f"sin = {np.sin(pos * omega[i]):+.3f}\n"
                                     f"cos = {np.cos(pos * omega[i]):+.3f}")
            sup.set_text(f"Position {pos} on four dials (d = {d}, n = {n:g}); "
                         "the pale arc is one step")

        update(pos)
        return update

    return explore(
        plot,
        int_param("pos", "position", 0, 2000, 7, (0, 1, 2, 3, 5, 7, 10, 30, 100, 300, 1000, 2000),
                  description="token position"),
        title="One hand per dimension pair",
        alt=lambda pos: (f"Four dials for position {pos} of a d=8 sinusoidal encoding with "
                         f"base n={n:g}. Hand i points at angle {pos} times n^(-2i/8), measured "
                         "counter-clockwise from 3 o'clock (cosine across, sine up); the first "
                         "hand turns fastest."),
        figsize=(7.0, 2.9),
    )


# -- heatmap and wave views -------------------------------------------------------------------
def _wave_dims(d: int) -> list[int]:
    """Up to six sine dimensions 2i spread from the fastest pair to the slowest."""
    pairs = sorted({0, 1, d // 16, d // 8, d // 4, d // 2 - 1})
    return [2 * i for i in pairs if 0 <= i < d // 2]


def encoding_views_explorer(seq_len: int = 100) -> Explorer:
    """Explorer: the encoding as a heatmap (dimension x position) or as stacked waves; d and n."""
    pos = np.arange(seq_len)

    def plot(fig: Figure, d: int, n: float, view: str) -> Callable[..., Any]:
        ax_h, ax_w, cax = fixed_axes(fig, (0.1, 0.14, 0.7, 0.76), (0.1, 0.14, 0.7, 0.76),
                                      (0.83, 0.14, 0.02, 0.76))
        im = ax_h.imshow(encodings.sinusoidal(seq_len, d, n).T, cmap=DIVERGING, vmin=-1, vmax=1,
                         aspect="auto", interpolation="nearest",
                         extent=(-0.5, seq_len - 0.5, d - 0.5, -0.5))
        ax_h.set_xlabel("position")
        ax_h.set_ylabel("dimension (0 = fastest)")
        cbar = fig.colorbar(im, cax=cax, label="PE value")
        ax_w.set_xlabel("position")
        ax_w.set_xlim(0, seq_len - 1)
        ax_w.grid(True, axis="x")
        ax_w.set_yticks([])
        ax_w.spines["left"].set_visible(False)
        lines = [ax_w.plot([], [], color=OKABE_ITO[k], ls=_LINESTYLES[k], lw=1.6)[0]
                 for k in range(6)]
        labels = [ax_w.text(seq_len + 1, -2.6 * k, "", color=OKABE_ITO[k], fontsize=8,
                            va="center", ha="left", clip_on=False) for k in range(6)]
        title_h = ax_h.set_title("")
        title_w = ax_w.set_title("")

        def update(d: int, n: float, view: str) -> None:
            pe = encodings.sinusoidal(seq_len, d, n)
            im.set_data(pe.T)
            im.set_extent((-0.5, seq_len - 0.5, d - 0.5, -0.5))
            ax_h.set_ylim(d - 0.5, -0.5)
            dims = _wave_dims(d)
            lam = encodings.wavelengths(d, n)
            for k, (line, label) in enumerate(zip(lines, labels)):
                shown = k < len(dims)
                if shown:
                    line.set_data(pos, pe[:, dims[k]] - 2.6 * k)
                    label.set_text(f"dim {dims[k]}\nλ = {_fmt_len(lam[dims[k] // 2])}")
                line.set_visible(shown)
                label.set_visible(shown)
            ax_w.set_ylim(-2.6 * (len(dims) - 1) - 1.3, 1.3)
            heat = view == "heatmap"
            ax_h.set_visible(heat)
            cbar.ax.set_visible(heat)
            ax_w.set_visible(not heat)
            title_h.set_text(f"PE(pos, dim) for d = {d}, n = {n:g}: fast rows on top")
            title_w.set_text(f"Sine dimensions 2i of d = {d}, n = {n:g} (each offset vertically)")

        update(d, n, view)
        return update

    return explore(
        plot,
        dim_param(default=128, grid=(16, 128)),
        base_param(),
        choice_param("view", "view", ("heatmap", "waves")),
        title="The sinusoidal encoding: heatmap view and wave view",
        alt=lambda d, n, view: (
            f"{'Heatmap' if view == 'heatmap' else 'Stacked wave plot'} of the sinusoidal encoding "
            f"of positions 0 to {seq_len - 1}, dimension d={d}, base n={n:g}. Low dimensions "
            "oscillate quickly along the positions; high dimensions change slowly."),
        figsize=(7.0, 3.3),
    )


# -- wavelengths --------------------------------------------------------------------------------
def wavelength_ladder(fig: Figure, d: int = 512, bases: Sequence[float] = (10.0, 10000.0)) -> None:
    """Wavelength of each pair (log scale) for several bases: geometric = a straight line."""
    ax = fig.subplots()
    i = np.arange(d // 2)
    for k, n in enumerate(bases):
        lam = encodings.wavelengths(d, n)
        ax.plot(i, lam, color=OKABE_ITO[k], ls=_LINESTYLES[k], lw=2,
                label=f"n = {n:g}: λ from 2π to {lam[-1]:,.0f}")
        ax.plot([i[-1]], [lam[-1]], marker=_MARKERS[k], color=OKABE_ITO[k], ms=7)
        ax.axhline(2 * np.pi * n, color=OKABE_ITO[k], lw=0.8, ls=":")
        ax.text(0, 2 * np.pi * n * 1.25, f"2π·{n:g}", color=OKABE_ITO[k], fontsize=8)
    ax.axhline(2 * np.pi, color="#555555", lw=0.8, ls=":")
    ax.set_yscale("log")
    ax.set_xlabel("pair index i (dimensions 2i, 2i+1)")
    ax.set_ylabel(r"wavelength $\lambda_i$ (positions)")
    ax.set_title(f"Wavelengths of the {d // 2} pairs (d = {d}): a geometric ladder")
    ax.grid(True, which="major")
    ax.legend(loc="center right")


# -- cosine similarity ----------------------------------------------------------------------------
def similarity_matrix_explorer(seq_len: int = 64, max_offset: int = 512) -> Explorer:
    """Explorer: cosine-similarity matrix of PE(0..seq_len-1) and similarity against offset."""

    def plot(fig: Figure, d: int, n: float) -> Callable[..., Any]:
        ax_m, ax_c = fig.subplots(1, 2, width_ratios=(1, 1.35))
        im = ax_m.imshow(np.eye(seq_len), cmap=DIVERGING, vmin=-1, vmax=1,
                         interpolation="nearest")
        ax_m.set_xlabel("position m")
        ax_m.set_ylabel("position p")
        fig.colorbar(im, ax=ax_m, label="cos similarity", shrink=0.85)
        k = np.arange(max_offset + 1)
        line, = ax_c.plot(k, np.zeros_like(k, dtype=float), color=OKABE_ITO[0], lw=1.4,
                          label="PE(p+k) vs PE(p)")
        zero = ax_c.axhline(0, color="#555555", lw=0.8)
        ax_c.axvspan(0, seq_len - 1, color=OKABE_ITO[1], alpha=0.15,
                     label=f"offsets in the matrix (< {seq_len})")
        ax_c.set_xlim(0, max_offset)
        ax_c.set_ylim(-1, 1.02)
        ax_c.set_xlabel("offset k = m − p")
        ax_c.set_ylabel("cos similarity")
        ax_c.grid(True)
        ax_c.legend(loc="lower left", fontsize=8)
        title_m = ax_m.set_title("")
        title_c = ax_c.set_title("")

        def update(d: int, n: float) -> list[Artist]:
            s = similarity.cosine_similarity_matrix(encodings.sinusoidal(seq_len, d, n))
            im.set_data(s)
            line.set_ydata(similarity.offset_similarity(k, d, n))
            title_m.set_text(f"d = {d}, n = {n:g}")
            title_c.set_text("similarity of PE(p+k) and PE(p) against k")
            return [im, line, zero, title_m]   # the axes never move

        update(d, n)
        return update

    return explore(
        plot,
        dim_param(default=64, grid=(8, 64, 512)),
        base_param(),
        title="Cosine similarity between position vectors",
        alt=lambda d, n: (
            f"Left: {seq_len}-by-{seq_len} matrix of cosine similarities between sinusoidal "
            f"encodings (d={d}, n={n:g}); every diagonal stripe has one colour because the "
            f"similarity depends only on the offset. Right: the similarity against the offset, "
            f"0 to {max_offset}."),
        figsize=(7.6, 3.4),
    )


# -- the effect of the base n -------------------------------------------------------------------
def base_effect_explorer(window: int = 512) -> Explorer:
    """Explorer: similarity decay with offset, and what each pair does inside a window."""

    def plot(fig: Figure, d: int, n: float) -> Callable[..., Any]:
        ax_s, ax_t = fixed_axes(fig, (0.09, 0.15, 0.38, 0.75), (0.6, 0.15, 0.38, 0.75))
        k = np.arange(window)
        line, = ax_s.plot(k, np.zeros(window), color=OKABE_ITO[0], lw=1.3)
        zero = ax_s.axhline(0, color="#555555", lw=0.8)
        ax_s.set_xlim(0, window - 1)
        ax_s.set_ylim(-1, 1.02)
        ax_s.set_xlabel("offset k")
        ax_s.set_ylabel("cos similarity of PE(p+k), PE(p)")
        ax_s.grid(True)
        dots = {}
        for name, (colour, marker, label) in _CATEGORY_STYLE.items():
            dots[name], = ax_t.plot([], [], ls="none", marker=marker, color=colour, ms=4,
                                    label=label)
        threshold = ax_t.axhline(0.1, color=OKABE_ITO[3], lw=0.8, ls=":")
        ax_t.set_ylim(-0.05, 3.0)
        ax_t.set_yticks([0, 0.5, 1, 1.5, 2])
        ax_t.set_xlabel("pair index i")
        ax_t.set_ylabel(f"largest move in {window} positions")
        ax_t.legend(loc="upper right", fontsize=7.5)
        ax_t.grid(True, axis="y")
        title_s = ax_s.set_title("", fontsize=10)
        title_t = ax_t.set_title("", fontsize=10)

        def update(d: int, n: float) -> list[Artist]:
            line.set_ydata(similarity.offset_similarity(k, d, n))
            travel = similarity.pair_travel(window, d, n)
            omega = encodings.frequencies(d, n)
            i = np.arange(d // 2)
            wrapping = (window - 1) * omega >= 2 * np.pi
            frozen = ~wrapping & (travel < 0.1)
            masks = {"wrapping": wrapping, "frozen": frozen, "ruler": ~wrapping & ~frozen}
            for name, mask in masks.items():
                dots[name].set_data(i[mask], travel[mask])
            ax_t.set_xlim(-0.5, d // 2 - 0.5)
            c = similarity.window_census(window, d, n)
            title_s.set_text(f"d = {d}, n = {n:g}: similarity vs offset")
            title_t.set_text(f"{c['wrapping']} wrap, {c['ruler']} ruler, {c['frozen']} frozen")
            # only the pair axis's range moves (with d)
            return [line, zero, *dots.values(), threshold, ax_t.xaxis, title_s, title_t]

        update(d, n)
        return update

    grid = tuple(float(10 ** (e / 2)) for e in range(2, 11))
    return explore(
        plot,
        dim_param(default=512, grid=(16, 512)),
        log_param("n", "base n", 10.0, 100000.0, 10000.0,
                  tuple(round(g, 1) if g < 100 else round(g) * 1.0 for g in grid), step=0.05,
                  fmt=lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.3g}",
                  description="frequency base (log scale)"),
        title=f"The effect of the base n over a {window}-token window",
        alt=lambda d, n: (
            f"Left: cosine similarity of sinusoidal encodings against the offset, 0 to "
            f"{window - 1}, for d={d} and base n={n:g}. Right: for each dimension pair, the "
            f"largest distance it moves within {window} positions, marked as wrapping, ruler "
            "or frozen."),
        figsize=(7.6, 3.3),
    )


# -- linear maps, layouts ------------------------------------------------------------------------
def shift_matrix_heatmap(fig: Figure, offset: float, d: int = 16, base: float = 10000.0) -> None:
    """The block-rotation matrix M(k) with PE(p+k) = M(k) PE(p), in both layouts."""
    axes = fig.subplots(1, 2)
    for ax, layout in zip(axes, encodings.LAYOUTS):
        m = similarity.shift_matrix(offset, d, base, layout=layout)
        im = ax.imshow(m, cmap=DIVERGING, vmin=-1, vmax=1, interpolation="nearest")
        ax.set_title(f"{layout} layout")
        ax.set_xlabel("input dimension (of PE(p))")
        ax.set_ylabel("output dimension (of PE(p+k))")
    fig.colorbar(im, ax=list(axes), label="matrix entry", shrink=0.85)
    fig.suptitle(f"M(k) for k = {offset:g}, d = {d}, n = {base:g}: one 2x2 rotation per pair")


def layout_heatmaps(fig: Figure, seq_len: int = 64, d: int = 32, base: float = 10000.0) -> None:
    """The same encoding (same frequencies) stored interleaved, as in the paper, and concatenated."""
    axes = fig.subplots(1, 2, sharey=True)
    for ax, layout in zip(axes, encodings.LAYOUTS):
        pe = encodings.sinusoidal(seq_len, d, base, layout=layout)
        im = ax.imshow(pe.T, cmap=DIVERGING, vmin=-1, vmax=1, aspect="auto",
                       interpolation="nearest")
        ax.set_xlabel("position")
        ax.set_title("interleaved: sin, cos, sin, cos, …" if layout == "interleaved"
                     else "concat: all sines, then all cosines")
    axes[0].set_ylabel("dimension (0 at the top)")
    fig.colorbar(im, ax=list(axes), label="PE value", shrink=0.85)


# -- size and precision ---------------------------------------------------------------------------
def norm_comparison(fig: Figure, dims: Sequence[int] = (64, 128, 256, 512, 1024),
                    vocab_size: int = 1000, seed: int = 0) -> None:
    """Norm of a token embedding (N(0, 1/d) init), of √d times it, and of PE, against d."""
    ax = fig.subplots()
    dims = [int(x) for x in dims]
    emb = [float(np.linalg.norm(similarity.init_embeddings(vocab_size, d, seed), axis=1).mean())
           for d in dims]
    series = [
        ("token embedding, N(0, 1/d) init", emb, "o", "-"),
        ("√d × token embedding", [np.sqrt(d) * e for d, e in zip(dims, emb)], "s", "--"),
        ("PE(pos) (any pos): √(d/2)", [np.sqrt(d / 2) for d in dims], "^", "-."),
    ]
    for k, (label, ys, marker, ls) in enumerate(series):
        ax.plot(dims, ys, marker=marker, ls=ls, color=OKABE_ITO[k], lw=1.8, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(dims, [str(d) for d in dims])
    ticks = [1, 2, 4, 8, 16, 32]
    ax.set_yticks(ticks, [str(t) for t in ticks])
    ax.set_xlabel("model dimension d")
    ax.set_ylabel("vector norm")
    ax.set_title(f"Sizes of what gets added (mean over {vocab_size} tokens)")
    ax.grid(True)
    ax.legend(loc="upper left")


def float32_error(fig: Figure, positions: Sequence[float], d: int = 512,
                  base: float = 10000.0) -> dict[str, np.ndarray]:
    """Size of the float32 rounding error of the whole encoding vector, against position.

    Two recipes: everything in float32 (:func:`posenc_lib.maths.similarity.sinusoidal_float32`), and
    angles in float64 with only the result cast to float32. The dotted line is half the distance
    between neighbouring positions, :math:`\\lVert PE(p+1)-PE(p)\\rVert/2` (the same for every p).
    An error that long is necessary, not sufficient, for the stored vector to sit closer to a
    neighbour's encoding: the error would also have to point towards that neighbour, and the
    rounding errors of the pairs have both signs. Returns the positions and both error norms.
    """
    pos = np.asarray(positions, dtype=np.float64)
    exact = encodings.sinusoidal_at(pos, d, base)
    err32 = np.linalg.norm(similarity.sinusoidal_float32(pos, d, base).astype(np.float64) - exact,
                           axis=-1)
    cast = encodings.sinusoidal_at(pos, d, base, dtype=np.float32).astype(np.float64)
    err_cast = np.linalg.norm(cast - exact, axis=-1)
    half_gap = float(similarity.offset_distance(1, d, base)) / 2
    ax = fig.subplots()
    ax.loglog(pos, err32, marker="o", ms=3, color=OKABE_ITO[3], lw=1.6,
              label="all-float32 recipe")
    ax.loglog(pos, err_cast, marker="s", ms=3, ls="--", color=OKABE_ITO[0], lw=1.6,
              label="float64 angles, result cast to float32")
    ax.axhline(half_gap, color="#333333", ls=":", lw=1.2)
    ax.text(pos[0], half_gap * 1.4, "half the distance to PE(p+1)", fontsize=8)
    ax.axvline(2 ** 24, color="#555555", ls="-.", lw=1)
    ax.text(2 ** 24 * 0.8, 1e-6, "2²⁴: float32 has\nno odd integers", fontsize=8,
            ha="right", color="#555555")
    ax.set_xlabel("position p")
    ax.set_ylabel("‖PE₃₂(p) − PE(p)‖")
    ax.set_title(f"Rounding error of the float32 encoding (d = {d}, n = {base:g})")
    ax.grid(True)
    ax.legend(loc="center left", fontsize=8)
    return {"positions": pos, "error": err32, "error_cast": err_cast,
            "half_gap": np.asarray(half_gap)}


def column_spectra(fig: Figure, d: int = 8, seq_len: int = 65536, base: float = 10000.0) -> None:
    r"""The amplitude spectrum of each sine column of the encoding, one curve per pair.

    Left: the first 200 positions of the ``d/2`` sine columns (dimensions 0, 2, 4, ...). Right:
    their spectra over ``seq_len`` positions (:func:`posenc_lib.maths.periodicity.spectrum`), both axes
    logarithmic, with a dotted vertical line at each pair's :math:`\omega_i/2\pi`.
    """
    pe = encodings.sinusoidal(seq_len, d, base)
    sines = pe[:, 0::2]
    freqs, amps = periodicity.spectrum(sines)
    expected = encodings.frequencies(d, base) / (2 * np.pi)
    ax_w, ax_s = fig.subplots(1, 2, width_ratios=(1, 1.4))
    shown = np.arange(min(200, seq_len))
    for i in range(d // 2):
        colour, style = OKABE_ITO[i % 8], _LINESTYLES[i % len(_LINESTYLES)]
        ax_w.plot(shown, sines[shown, i] - 2.5 * i, color=colour, linestyle=style, linewidth=1.4)
        ax_s.plot(freqs[1:], np.maximum(amps[1:, i], 1e-6), color=colour, linestyle=style,
                  linewidth=1.4, label=f"pair {i}: dim {2 * i}")
        ax_s.axvline(expected[i], color=colour, linestyle=":", linewidth=1.0)
    ax_w.set_yticks(-2.5 * np.arange(d // 2), [f"dim {2 * i}" for i in range(d // 2)])
    ax_w.set_xlabel("position")
    ax_w.set_title("the sine columns")
    ax_s.set_xscale("log")
    ax_s.set_yscale("log")
    ax_s.set_ylim(1e-5, 2)
    ax_s.set_xlabel("frequency (cycles per position)")
    ax_s.set_ylabel("amplitude")
    ax_s.set_title(f"their spectra ({seq_len:,} positions); dotted: ω/2π")
    ax_s.grid(True)
    ax_s.legend(loc="lower left", fontsize=8)
