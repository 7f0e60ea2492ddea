"""Figures for chapters 2–5: the naive encodings and what each one breaks.

* chapter 2 — integer positions: norm ratios, word clusters before and after (PCA), explorer;
* chapter 3 — one sine: near-equal values, the map of colliding pairs, explorer over ω;
* chapter 4 — sine and cosine: the unit circle, mirror pairs, the shift rotation R(k), explorer;
* chapter 5 — many linear frequencies: heatmaps, similarity against offset, wavelength octaves,
  explorer over d.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullLocator

from ...display.explorer import Explorer, dim_param, explore, int_param, log_param
from ...display.plotting import DIVERGING, OKABE_ITO, fixed_axes
from ...maths import encodings, periodicity
from .. import toy

__all__ = [
    "MARKERS",
    "cluster_panels",
    "collision_maps",
    "encoding_heatmaps",
    "integer_explorer",
    "linear_explorer",
    "mirror_pair",
    "ratio_lines",
    "rotation_explorer",
    "similarity_curves",
    "sine_pair_zoom",
    "single_sine_explorer",
    "wavelength_schedules",
]

MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES: tuple[Any, ...] = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)))
_MAX_POINTS = 20000  # collision maps draw at most this many pairs (a deterministic subsample)



# -- chapter 2 --------------------------------------------------------------------------------
def ratio_lines(fig: Figure, positions: np.ndarray, curves: Mapping[str, np.ndarray], *,
                title: str, ylabel: str = "‖position part‖ / ‖word part‖",
                logy: bool = True, logx: bool = True) -> Axes:
    """Lines of a ratio against position (one style per curve) with the level 1 marked."""
    ax = fig.subplots()
    for j, (label, values) in enumerate(curves.items()):
        ax.plot(positions, values, color=OKABE_ITO[j % 8], linestyle=LINESTYLES[j % 5],
                linewidth=2, label=label)
    # a thin solid grey line: no curve uses that style, so "the dotted curve" stays unambiguous
    ax.axhline(1.0, color="#555555", linewidth=0.9, linestyle="-", zorder=1)
    ax.text(positions[-1], 1.0, "as large as the word ", ha="right", va="bottom", fontsize=8,
            color="#555555")
    if logy:
        ax.set_yscale("log")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("position in the sequence")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True)
    ax.legend(loc="lower right")
    return ax


def _scatter_clusters(ax: Axes, xy: np.ndarray, labels: np.ndarray, words: Sequence[str],
                      names: Sequence[str], annotate: bool = True) -> list[Any]:
    artists = []
    for c, name in enumerate(names):
        sel = labels == c
        artists.append(ax.scatter(xy[sel, 0], xy[sel, 1], s=36, marker=MARKERS[c],
                                  color=OKABE_ITO[c], edgecolor="black", linewidth=0.4,
                                  label=name, zorder=3))
    texts = []
    if annotate:
        for (x, y), w in zip(xy, words):
            texts.append(ax.annotate(w, (x, y), xytext=(3, 3), textcoords="offset points",
                                     fontsize=7, color="#333333"))
    return [artists, texts]


def _fit_equal(ax: Axes, xy: np.ndarray, margin: float = 0.12) -> None:
    """Limits that show ``xy`` with one data unit as long on both axes (true proportions)."""
    box = ax.get_position()
    fig = ax.get_figure(root=True)
    assert fig is not None
    w_in, h_in = fig.get_size_inches()
    w, h = box.width * w_in, box.height * h_in
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    centre, span = (lo + hi) / 2, np.maximum(hi - lo, 1e-9) * (1 + 2 * margin)
    per_inch = max(span[0] / w, span[1] / h)
    ax.set_xlim(centre[0] - per_inch * w / 2, centre[0] + per_inch * w / 2)
    ax.set_ylim(centre[1] - per_inch * h / 2, centre[1] + per_inch * h / 2)


def cluster_panels(fig: Figure, panels: Sequence[tuple[str, np.ndarray]], labels: np.ndarray,
                   words: Sequence[str], names: Sequence[str],
                   annotate: Sequence[int] = ()) -> None:
    """Side-by-side 2-D scatters (e.g. PCA coordinates), one marker and colour per cluster.

    ``panels`` holds ``(title, xy)`` with ``xy`` of shape ``(len(words), 2)``. A legend below
    the panels names each cluster and lists its words (point labels would overlap inside tight
    clusters); the panels whose index is in ``annotate`` also label every point with its word.
    """
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    handles: list[Any] = []
    for j, (ax, (title, xy)) in enumerate(zip(axes, panels)):
        artists, _ = _scatter_clusters(ax, xy, labels, words, names, annotate=(j in annotate))
        handles = handles or artists
        ax.margins(0.12)
        ax.set_aspect("equal", adjustable="datalim")   # true proportions: no stretched axis
        ax.set_xlabel("principal component 1")
        ax.set_ylabel("principal component 2")
        ax.set_title(title)
        ax.grid(True)
    members = [", ".join(w for w, lab in zip(words, labels) if lab == c)
               for c in range(len(names))]
    fig.legend(handles, [f"{name}: {m}" for name, m in zip(names, members)],
               loc="outside lower center", ncols=len(names), fontsize=8, frameon=False,
               handletextpad=0.3, columnspacing=1.2)


def _explorer_sentence(seq_len: int, n_words: int) -> np.ndarray:
    """Positions of ``n_words`` words spread evenly over a sentence of ``seq_len`` tokens."""
    return np.round(np.linspace(0, seq_len - 1, n_words)).astype(np.int64)


def integer_explorer(d: int = 16, seed: int = 0) -> Explorer:
    """Explorer: 18 words (three meaning clusters) spread over a sentence of length L, each with
    ``scale × position`` added to every dimension. Left: PCA of the sums; right: how large the
    position part is compared with the word."""
    words, labels, vectors = toy.clustered_vocabulary(d=d, seed=seed)
    order = np.random.default_rng(seed).permutation(len(words))   # a shuffled "sentence"
    words = tuple(words[i] for i in order)
    labels, vectors = labels[order], vectors[order]
    names = tuple(toy.CLUSTERS)
    chance = (np.bincount(labels).max() - 1) / (len(words) - 1)
    word_norm = float(np.mean(np.linalg.norm(vectors, axis=1)))

    def state(seq_len: int, scale: float) -> tuple[np.ndarray, np.ndarray, float]:
        pos = _explorer_sentence(seq_len, len(words))
        x = vectors + scale * pos[:, None].astype(float)   # scale × integer encoding
        return pos, toy.pca(x, 2).scores, toy.nearest_neighbour_agreement(x, labels)

    def plot(fig: Figure, seq_len: int, scale: float) -> Callable[..., Any]:
        ax, ax2 = fixed_axes(fig, (0.10, 0.14, 0.40, 0.72), (0.63, 0.14, 0.35, 0.72))
        pos, xy, agree = state(seq_len, scale)
        groups, texts = _scatter_clusters(ax, xy, labels, words, names, annotate=False)
        ax.set_xlabel("principal component 1")
        ax.set_ylabel("principal component 2")
        ax.grid(True)
        ax.legend(loc="best", fontsize=7, frameon=True, framealpha=0.85, edgecolor="#cccccc")
        ax.set_title("word + scale × position (PCA)", fontsize=10)
        title = fig.suptitle("", fontsize=10)
        line, = ax2.plot([], [], color=OKABE_ITO[0], linewidth=2, label="scale × position")
        dots, = ax2.plot([], [], "o", color=OKABE_ITO[3], markersize=4, label="word positions")
        level = ax2.axhline(1.0, color="#555555", linewidth=1, linestyle=":")
        ax2.set_yscale("log")
        ax2.set_ylim(1e-3, 1e5)
        # Every second decade labelled, no minor ticks: eight decades of minor ticks and their
        # grid lines took 40 % of each redraw.
        ax2.yaxis.set_major_locator(LogLocator(numticks=5))
        ax2.yaxis.set_minor_locator(NullLocator())
        ax2.set_xlabel("position")
        ax2.set_ylabel("‖position part‖ / ‖word‖")
        ax2.grid(True)
        ax2.legend(loc="lower right", fontsize=7)
        title2 = ax2.set_title("", fontsize=10)

        def update(seq_len: int, scale: float) -> list[Artist]:
            pos, xy, agree = state(seq_len, scale)
            for c, g in enumerate(groups):
                g.set_offsets(xy[labels == c])
            _fit_equal(ax, xy)
            title.set_text(f"L = {seq_len}, scale = {scale:g}: the nearest word is in the same "
                           f"cluster for {100 * agree:.0f}% of words (chance: {100 * chance:.0f}%)")
            grid = np.arange(1, seq_len)
            line.set_data(grid, scale * grid * math.sqrt(d) / word_norm)
            dots.set_data(pos[1:], scale * pos[1:] * math.sqrt(d) / word_norm)
            ax2.set_xlim(0, seq_len - 1)
            title2.set_text("position part outgrows the word" if scale * (seq_len - 1)
                            * math.sqrt(d) > word_norm else "position part stays smaller")
            return [*groups, ax.xaxis, ax.yaxis, title, line, dots, level, ax2.xaxis, title2]

        update(seq_len, scale)
        return update

    return explore(
        plot,
        int_param("seq_len", "sequence length L", 18, 5000, 50, (18, 50, 200, 1000, 5000),
                  description="the 18 words are spread evenly over L positions"),
        log_param("scale", "scale", 0.0001, 1.0, 1.0, (0.0001, 0.001, 0.01, 0.1, 1.0), step=0.1,
                  description="multiplies the integer position (log scale)"),
        title="Adding scale × position to 18 words from three clusters",
        alt=lambda seq_len, scale: (
            f"Left: the 18 word vectors (animals, foods, colours) plus {scale:g} times their "
            f"position in a {seq_len}-token sentence, projected on two principal components; "
            f"right: the size of the position part relative to the word, against position, on "
            f"a log scale."),
        figsize=(7.6, 3.4),
    )


# -- chapter 3 --------------------------------------------------------------------------------
def sine_pair_zoom(fig: Figure, p: int, q: int, omega: float = 1.0, width: float = 3.0) -> None:
    """Two zoomed windows of :math:`\\sin(\\omega x)`, around positions ``p`` and ``q``.

    The integer positions are dots; ``p`` and ``q`` are highlighted with their values (five
    decimals, to show where they first differ), and a dashed line at the height of ``sin(ω p)``
    shows whether they match. Windows start at position 0 at the earliest.
    """
    axes = fig.subplots(1, 2, sharey=True)
    level = math.sin(omega * p)
    for ax, centre, colour, marker in ((axes[0], p, OKABE_ITO[0], "o"),
                                       (axes[1], q, OKABE_ITO[3], "s")):
        lo = max(0.0, centre - width)
        x = np.linspace(lo, centre + width, 400)
        ax.plot(x, np.sin(omega * x), color="#777777", linewidth=1.2, label="sin(ωx)")
        ints = np.arange(math.ceil(lo), math.floor(centre + width) + 1)
        ax.plot(ints, np.sin(omega * ints), "o", color="#777777", markersize=3)
        ax.plot([centre], [math.sin(omega * centre)], marker, color=colour, markersize=9,
                markeredgecolor="black", zorder=3)
        ax.annotate(f"sin({centre}) = {math.sin(omega * centre):.5f}",
                    (centre, math.sin(omega * centre)), xytext=(0, -28),
                    textcoords="offset points", ha="center", fontsize=9)
        ax.axhline(level, color=OKABE_ITO[2], linestyle="--", linewidth=1)
        ax.set_xlabel("position")
        ax.set_title(f"around position {centre}")
        ax.set_ylim(-1.15, 1.15)
        ax.grid(True)
    axes[0].set_ylabel("sin(position)")


def _collision_axes(ax: Axes, pairs: np.ndarray, max_pos: int, title: str,
                    colour: str = OKABE_ITO[0], marker: str = "o") -> Any:
    shown = pairs if len(pairs) <= _MAX_POINTS else pairs[:: math.ceil(len(pairs) / _MAX_POINTS)]
    sc = ax.scatter(shown[:, 0] if len(shown) else [], shown[:, 1] if len(shown) else [],
                    s=4, marker=marker, color=colour, linewidth=0)
    ax.set_xlim(0, max_pos)
    ax.set_ylim(0, max_pos)
    ax.set_aspect("equal")
    ax.set_xlabel("position p")
    ax.set_ylabel("position q (> p)")
    ax.set_title(title)
    ax.grid(True)
    return sc


def collision_maps(fig: Figure, panels: Sequence[tuple[str, np.ndarray]], max_pos: int,
                   guides: bool = True) -> None:
    """Scatter of colliding pairs ``(p, q)``, one panel per ``(title, pairs)``.

    With ``guides`` the lines q − p = 710 (113 turns of 2π) and p + q = 355, 1065, 1775 (odd
    multiples of 113π, where sin(q) ≈ sin(p) by mirror symmetry) are drawn, as for sin(pos).
    """
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for j, (ax, (title, pairs)) in enumerate(zip(axes, panels)):
        _collision_axes(ax, pairs, max_pos, title, OKABE_ITO[j % 8], MARKERS[j % 8])
        if guides:
            x = np.array([0, max_pos])
            ax.plot(x, x + 710, color="#777777", linestyle="--", linewidth=0.9, zorder=0,
                    label="q − p = 710 (near-period)")
            for n, total in enumerate((355, 1065, 1775)):
                ax.plot(x, total - x, color="#777777", linestyle=":", linewidth=1.1, zorder=0,
                        label="p + q = 355, 1065, 1775 (mirror)" if n == 0 else None)
            ax.legend(loc="lower right", fontsize=7, frameon=True, framealpha=0.9,
                      edgecolor="#cccccc")


def single_sine_explorer(max_pos: int = 1000, decimals: int = 3) -> Explorer:
    """Explorer over the frequency ω of sin(ω·pos): the wave, and every pair of positions
    ≤ ``max_pos`` whose values agree to ``decimals`` decimals."""
    positions = np.arange(max_pos + 1)
    window = 60

    def data(omega: float) -> np.ndarray:
        return periodicity.collision_pairs(np.sin(omega * positions), decimals)

    def plot(fig: Figure, omega: float) -> Callable[..., Any]:
        ax, ax2 = fixed_axes(fig, (0.08, 0.14, 0.50, 0.74), (0.68, 0.14, 0.30, 0.68))
        xs = np.linspace(0, window, 1200)
        curve, = ax.plot([], [], color="#888888", linewidth=1, label="sin(ωx), any real x")
        dots, = ax.plot([], [], "o", color=OKABE_ITO[0], markersize=3.5,
                        label="integer positions")
        ax.set_xlim(0, window)
        ax.set_ylim(-1.1, 1.45)
        ax.set_xlabel("position")
        ax.set_ylabel("sin(ω · position)")
        ax.legend(loc="upper right", ncols=2, fontsize=7)
        ax.grid(True)
        title = ax.set_title("")
        sc = _collision_axes(ax2, np.zeros((0, 2), dtype=int), max_pos, "")

        def update(omega: float) -> list[Artist]:
            curve.set_data(xs, np.sin(omega * xs))
            ints = np.arange(window + 1)
            dots.set_data(ints, np.sin(omega * ints))
            title.set_text(f"ω = {omega:.3g}: wavelength 2π/ω = {2 * math.pi / omega:.3g} "
                           "positions")
            pairs = data(omega)
            shown = pairs if len(pairs) <= _MAX_POINTS else \
                pairs[:: math.ceil(len(pairs) / _MAX_POINTS)]
            sc.set_offsets(shown if len(shown) else np.zeros((0, 2)))
            ax2.set_title(f"{len(pairs):,} pairs ≤ {max_pos} agree\nto {decimals} decimals",
                          fontsize=10)
            return [curve, dots, title, sc, ax2.title]   # the axes never move

        update(omega)
        return update

    return explore(
        plot,
        # 10**0.8 ≈ 6.31 is the live slider's closest value to 2π (chapter 3 asks about it)
        log_param("omega", "frequency ω", 0.01, 10.0, 1.0,
                  (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10 ** 0.8, 10.0), step=0.05,
                  fmt=lambda v: f"{v:.3g}", description="radians per position (log scale)"),
        title="One sine wave: how often do two positions look the same?",
        alt=lambda omega: (
            f"Left: sin(omega x) with omega = {omega:.3g} over positions 0 to {window}, integer "
            f"positions as dots. Right: every pair of positions p < q up to {max_pos} whose sines "
            f"agree to {decimals} decimals, drawn as a point (p, q): {len(data(omega))} pairs."),
        figsize=(7.6, 3.4),
    )


# -- chapter 4 --------------------------------------------------------------------------------
def _unit_circle(ax: Axes) -> None:
    t = np.linspace(0, 2 * math.pi, 400)
    ax.plot(np.cos(t), np.sin(t), color="#bbbbbb", linewidth=1, zorder=0)
    ax.axhline(0, color="#dddddd", linewidth=0.8, zorder=0)
    ax.axvline(0, color="#dddddd", linewidth=0.8, zorder=0)
    ax.set_aspect("equal")
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_xlabel("cos(ω · position)")
    ax.set_ylabel("sin(ω · position)")


def mirror_pair(fig: Figure, p: int, q: int, k: int = 1, omega: float = 1.0) -> None:
    """Positions ``p`` and ``q`` (equal sines) and ``p + k``, ``q + k`` (different sines).

    Left: the sine alone, a number line. Right: the (cos, sin) point on the unit circle, where
    ``p`` and ``q`` are mirror images and the shift by ``k`` is the same rotation for both.
    """
    ax, ax2 = fig.subplots(1, 2, width_ratios=[0.8, 1.2])
    styles = [(p, OKABE_ITO[0], "o"), (q, OKABE_ITO[3], "s")]
    for j, (pos, colour, marker) in enumerate(styles):
        s0, s1 = math.sin(omega * pos), math.sin(omega * (pos + k))
        ax.plot([j], [s0], marker, color=colour, markersize=9, markeredgecolor="black")
        ax.plot([j], [s1], marker, color=colour, markersize=9, markerfacecolor="white",
                markeredgecolor=colour, markeredgewidth=2)
        ax.annotate("", (j, s1), (j, s0), arrowprops=dict(arrowstyle="->", color=colour))
        up = s0 >= s1           # put the start label above and the end label below, or reverse
        ax.annotate(f"{pos}", (j, s0), xytext=(9, 4 if up else -4), textcoords="offset points",
                    va="bottom" if up else "top")
        ax.annotate(f"{pos + k}", (j, s1), xytext=(9, -4 if up else 4),
                    textcoords="offset points", va="top" if up else "bottom")
    ax.set_xlim(-0.6, 1.8)
    ax.set_ylim(-1.1, 1.1)
    ax.set_xticks([0, 1], [f"start {p}", f"start {q}"])
    ax.set_ylabel("sin(position)")
    ax.set_title(f"sine alone: (nearly) same start,\ndifferent value k = {k} later")
    ax.grid(True, axis="y")
    _unit_circle(ax2)
    for pos, colour, marker in styles:
        a0, a1 = omega * pos, omega * (pos + k)
        ax2.plot([math.cos(a0)], [math.sin(a0)], marker, color=colour, markersize=9,
                 markeredgecolor="black", zorder=3, label=f"positions {pos} → {pos + k}")
        ax2.plot([math.cos(a1)], [math.sin(a1)], marker, color=colour, markersize=9,
                 markerfacecolor="white", markeredgecolor=colour, markeredgewidth=2, zorder=3)
        arc = np.linspace(a0, a0 + omega * k, 60)
        ax2.plot(0.82 * np.cos(arc), 0.82 * np.sin(arc), color=colour, linewidth=1.5)
        ax2.annotate("", (0.82 * math.cos(arc[-1]), 0.82 * math.sin(arc[-1])),
                     (0.82 * math.cos(arc[-4]), 0.82 * math.sin(arc[-4])),
                     arrowprops=dict(arrowstyle="->", color=colour))
    ax2.axhline(math.sin(omega * p), color=OKABE_ITO[2], linestyle="--", linewidth=1)
    ax2.set_title(f"sine and cosine: two points,\neach turned by kω = {k * omega:.3g} rad")
    ax2.legend(loc="lower left", fontsize=8)


def rotation_explorer(omega: float = 1.0, n_points: int = 25) -> Explorer:
    """Explorer: PE(p) = (sin ωp, cos ωp) on the unit circle and the shift R(k) to PE(p + k).

    The dashed line at height sin(ωp) meets the circle twice: at PE(p) and at its mirror image,
    which has the same sine. Turned by the same kω, the two land at different heights — so the
    sine alone cannot say what sin(ω(p + k)) is, while the pair can.
    """
    def plot(fig: Figure, p: int, k: int) -> Callable[..., Any]:
        ax, = fixed_axes(fig, (0.02, 0.12, 0.46, 0.78))
        _unit_circle(ax)
        ref = np.arange(n_points)
        # the reference dots and labels are redrawn over the moving level line, as in a full draw
        dots, = ax.plot(np.cos(omega * ref), np.sin(omega * ref), ".", color="#999999",
                        markersize=4)
        marks: list[Artist] = [dots, *(
            ax.annotate(str(r), (1.13 * math.cos(omega * r), 1.13 * math.sin(omega * r)),
                        ha="center", va="center", fontsize=7, color="#777777") for r in range(7))]
        level = ax.axhline(0, color=OKABE_ITO[2], linestyle="--", linewidth=1)
        start, = ax.plot([], [], "o", color=OKABE_ITO[0], markersize=10, markeredgecolor="black",
                         zorder=4, label="PE(p)")
        end, = ax.plot([], [], "o", color=OKABE_ITO[0], markersize=10, markerfacecolor="white",
                       markeredgewidth=2, zorder=4, label="PE(p + k) = R(k) PE(p)")
        arc, = ax.plot([], [], color=OKABE_ITO[0], linewidth=2)
        mstart, = ax.plot([], [], "s", color=OKABE_ITO[3], markersize=9, markeredgecolor="black",
                          zorder=4, label="mirror point: same sine as p")
        mend, = ax.plot([], [], "s", color=OKABE_ITO[3], markersize=9, markerfacecolor="white",
                        markeredgewidth=2, zorder=4, label="mirror turned by the same kω")
        marc, = ax.plot([], [], color=OKABE_ITO[3], linewidth=1.5, linestyle="--")
        fig.legend(handles=[start, end, mstart, mend], loc="upper left",
                   bbox_to_anchor=(0.50, 0.86), fontsize=8)
        title = fig.suptitle("", fontsize=11)
        info = fig.text(0.51, 0.14, "", fontsize=8, family="monospace", va="bottom")

        def update(p: int, k: int) -> list[Artist]:
            a0 = omega * p
            m0 = math.pi - a0                     # same sine, other cosine
            level.set_ydata([math.sin(a0)] * 2)
            start.set_data([math.cos(a0)], [math.sin(a0)])
            end.set_data([math.cos(a0 + omega * k)], [math.sin(a0 + omega * k)])
            t = np.linspace(0, omega * k, 80)
            arc.set_data(0.75 * np.cos(a0 + t), 0.75 * np.sin(a0 + t))
            mstart.set_data([math.cos(m0)], [math.sin(m0)])
            mend.set_data([math.cos(m0 + omega * k)], [math.sin(m0 + omega * k)])
            marc.set_data(0.6 * np.cos(m0 + t), 0.6 * np.sin(m0 + t))
            pe = np.array([math.sin(a0), math.cos(a0)])
            moved = encodings.shift_matrix(k, [omega]) @ pe
            title.set_text(f"p = {p}, k = {k}: every point turns by kω = {k * omega:g} rad")
            info.set_text(f"PE(p)      = ({pe[0]:+.3f}, {pe[1]:+.3f})\n"
                          f"R(k) PE(p) = ({moved[0]:+.3f}, {moved[1]:+.3f})\n"
                          f"sin at p+k: pair {math.sin(a0 + omega * k):+.3f}, "
                          f"mirror {math.sin(m0 + omega * k):+.3f}\n"
                          f"PE(p) to mirror: {2 * abs(math.cos(a0)):.3f} apart")
            return [level, *marks, start, end, arc, mstart, mend, marc, title, info]

        update(p, k)
        return update

    return explore(
        plot,
        int_param("p", "position p", 0, 40, 2, (0, 1, 2, 3, 5, 8, 11, 13, 20)),
        int_param("k", "offset k", 1, 10, 1, (1, 2, 3, 5)),
        title="Sine and cosine: a position is a point on a circle, an offset is a turn",
        alt=lambda p, k: (
            f"Unit circle with horizontal axis cos and vertical axis sin. The point for position "
            f"{p} and the point {k} positions later, joined by an arc of {k * omega:g} radians; a "
            f"second point with the same sine (its mirror image) turned by the same arc ends at "
            f"a different height."),
        figsize=(7.6, 3.8),
    )


# -- chapter 5 --------------------------------------------------------------------------------
def encoding_heatmaps(fig: Figure, panels: Sequence[tuple[str, np.ndarray]]) -> None:
    """Heatmaps of encodings: positions across, dimensions down, dimension 0 (the fastest pair)
    at the top, like the rows of a printed table (the book's one orientation for encodings)."""
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    im = None
    for ax, (title, pe) in zip(axes, panels):
        im = ax.imshow(pe.T, aspect="auto", origin="upper", cmap=DIVERGING, vmin=-1, vmax=1,
                       interpolation="nearest")
        ax.set_xlabel("position")
        ax.set_ylabel("dimension (0 at the top)")
        ax.set_title(title)
    assert im is not None
    fig.colorbar(im, ax=list(axes), label="value", shrink=0.85)


def similarity_curves(fig: Figure, offsets: np.ndarray, curves: Mapping[str, np.ndarray],
                      title: str) -> None:
    """Normalised dot product PE(p)·PE(p+k) / (d/2) against the offset k, one line per encoding."""
    ax = fig.subplots()
    for j, (label, values) in enumerate(curves.items()):
        # The first curve (usually the fast single frequency) is thin and light so that it does
        # not hide the others; later curves are drawn on top.
        ax.plot(offsets, values, color=OKABE_ITO[j % 8], linestyle=LINESTYLES[j % 5],
                linewidth=0.6 if j == 0 else 1.8, alpha=0.55 if j == 0 else 1.0,
                label=label, zorder=2 + j)
    ax.axhline(0, color="#888888", linewidth=0.8)
    ax.set_xlabel("offset k between the two positions")
    ax.set_ylabel("PE(p)·PE(p+k) / (d/2)")
    ax.set_ylim(-1.05, 1.05)
    ax.set_title(title)
    ax.grid(True)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=len(curves), frameon=False)


def wavelength_schedules(fig: Figure, d: int, base: float = 10000.0) -> None:
    """Left: wavelength of each pair, linear 2π(i+1) vs geometric 2π·n^(2i/d), log scale.
    Right: how many pairs fall into each octave above 2π."""
    ax, ax2 = fig.subplots(1, 2)
    _draw_schedules(ax, ax2, d, base)


def _draw_schedules(ax: Axes, ax2: Axes, d: int, base: float) -> tuple[Any, ...]:
    i = np.arange(d // 2)
    lin = 2 * np.pi / encodings.linear_frequencies(d)
    geo = encodings.wavelengths(d, base)
    l1, = ax.plot(i, lin, "o-", color=OKABE_ITO[0], markersize=3, label="linear 2π(i+1)")
    l2, = ax.plot(i, geo, "s--", color=OKABE_ITO[1], markersize=3,
                  label=f"geometric 2π·{base:g}^(2i/d)")
    ax.set_yscale("log")
    ax.set_ylim(3, 2 * math.pi * base * 1.5)
    ax.set_xlabel("pair index i")
    ax.set_ylabel("wavelength (positions)")
    ax.grid(True)
    ax.legend(loc="upper left", fontsize=8)
    n_oct = int(math.floor(math.log2(base))) + 1
    width = 0.4
    c1 = np.zeros(n_oct)
    c2 = np.zeros(n_oct)
    lc, gc = periodicity.octave_counts(lin), periodicity.octave_counts(geo)
    c1[:len(lc)] = lc
    c2[:len(gc)] = gc
    b1 = ax2.bar(np.arange(n_oct) - width / 2, c1 / (d // 2), width, color=OKABE_ITO[0],
                 label="linear")
    b2 = ax2.bar(np.arange(n_oct) + width / 2, c2 / (d // 2), width, color=OKABE_ITO[1],
                 hatch="//", edgecolor="white", label="geometric")
    ax2.set_ylim(0, 1.0)
    ax2.set_xlabel("octave b: 2^b ≤ λ/2π < 2^(b+1)")
    ax2.set_ylabel("share of the d/2 pairs")
    ax2.grid(True, axis="y")
    ax2.legend(loc="upper right", fontsize=8)
    return l1, l2, b1, b2, lin, geo


def linear_explorer(seq_len: int = 200, base: float = 10000.0) -> Explorer:
    """Explorer over d: the linear encoding sin(pos/(i+1)), cos(pos/(i+1)) as a heatmap, and the
    wavelengths of its pairs against the Transformer's geometric ones."""

    def plot(fig: Figure, d: int) -> Callable[..., Any]:
        ax, cax, ax2 = fixed_axes(fig, (0.08, 0.14, 0.36, 0.72), (0.455, 0.14, 0.012, 0.72),
                                   (0.62, 0.14, 0.36, 0.72))
        im = ax.imshow(encodings.linear(seq_len, d).T, aspect="auto", origin="upper",
                       cmap=DIVERGING, vmin=-1, vmax=1, interpolation="nearest",
                       extent=(-0.5, seq_len - 0.5, d - 0.5, -0.5))
        ax.set_xlabel("position")
        ax.set_ylabel("dimension (0 at the top)")
        fig.colorbar(im, cax=cax)
        title = ax.set_title("")
        lin_line, = ax2.plot([], [], "o-", color=OKABE_ITO[0], markersize=2.5,
                             label="linear 2π(i+1)")
        geo_line, = ax2.plot([], [], "s--", color=OKABE_ITO[1], markersize=2.5,
                             label=f"geometric 2π·{base:g}^(2i/d)")
        ax2.set_yscale("log")
        ax2.set_ylim(3, 2 * math.pi * base * 2)
        ax2.set_xlabel("pair index i")
        ax2.set_ylabel("wavelength (positions)")
        ax2.grid(True)
        ax2.legend(loc="upper left", fontsize=7)
        title2 = ax2.set_title("", fontsize=9)

        def update(d: int) -> list[Artist]:
            im.set_data(encodings.linear(seq_len, d).T)
            im.set_extent((-0.5, seq_len - 0.5, d - 0.5, -0.5))
            ax.set_ylim(d - 0.5, -0.5)                     # dimension 0 at the top
            title.set_text(f"linear encoding, d = {d}")
            i = np.arange(d // 2)
            lin = 2 * np.pi / encodings.linear_frequencies(d)
            geo = encodings.wavelengths(d, base)
            lin_line.set_data(i, lin)
            geo_line.set_data(i, geo)
            ax2.set_xlim(-0.5, d // 2 - 0.5)
            title2.set_text(f"effective octaves: linear {periodicity.effective_octaves(lin):.1f}, "
                            f"geometric {periodicity.effective_octaves(geo):.1f}\n"
                            f"longest λ: linear {lin.max():.0f}, geometric {geo.max():.0f}")
            # what changes (the heatmap's height and the curves' length move two axes' ticks);
            # the colour bar, legend and the other axes stay in the saved background
            return [im, ax.yaxis, title, lin_line, geo_line, ax2.xaxis, title2]

        update(d)
        return update

    return explore(
        plot, dim_param(default=32),
        title="sin(pos/(i+1)): more dimensions, but not more scales",
        alt=lambda d: (
            f"Left: heatmap of the linear encoding with d = {d} over positions 0 to "
            f"{seq_len - 1}, dimension 0 at the top: fast stripes at the top, slower ones lower "
            f"down. Right: wavelength "
            f"of each pair on a log scale, linear schedule (longest {math.pi * d:.0f}) against "
            f"the geometric one (longest {2 * math.pi * base ** ((d - 2) / d):.0f})."),
        figsize=(7.6, 3.4),
    )
