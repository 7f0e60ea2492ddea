"""Figures for chapter 8 (RoPE): rotating 2-D word vectors, the block-diagonal matrix, the two
pairing conventions, and the long-term decay of the score with distance."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import rope, toy
from ..explorer import Explorer, base_param, choice_param, dim_param, explore, int_param
from ..plotting import DIVERGING, OKABE_ITO

__all__ = [
    "decay",
    "decay_explorer",
    "pairing_layouts",
    "rotation_2d",
    "rotation_2d_explorer",
    "rotation_matrices",
    "word_vectors_2d",
]


def word_vectors_2d(words: Sequence[str], seed: int = 0) -> np.ndarray:
    """Seeded toy 2-D "embeddings" of ``words`` (:func:`posenc_lib.toy.word_vector` with d = 2)."""
    return np.stack([toy.word_vector(w, 2, seed) for w in words])


def _angle_deg(v: np.ndarray) -> float:
    return float(np.degrees(np.arctan2(v[1], v[0])))


def _arrow(ax: Axes, v: np.ndarray, color: str, ls: str = "-", lw: float = 1.8,
           alpha: float = 1.0):
    return ax.annotate("", xy=(v[0], v[1]), xytext=(0, 0), alpha=alpha,
                       arrowprops={"arrowstyle": "-|>", "color": color, "linestyle": ls,
                                   "linewidth": lw, "shrinkA": 0, "shrinkB": 0})


def _square_axes(ax: Axes, lim: float) -> None:
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.axhline(0, color="#bbbbbb", linewidth=0.6)
    ax.axvline(0, color="#bbbbbb", linewidth=0.6)
    ax.set_xticks([])
    ax.set_yticks([])


def rotation_2d(fig: Figure, sentences: Sequence[Sequence[str]], theta_deg: float = 25.0,
                highlight: tuple[str, str] = ("ate", "cheese"), seed: int = 0) -> None:
    """Word vectors before (top row) and after (bottom row) rotating word ``p`` by ``p·θ``.

    One column per sentence; the two ``highlight`` words are drawn in colour (solid and dashed),
    the others in grey, every arrow labelled with its word and position.
    """
    theta = np.deg2rad(theta_deg)
    axes = fig.subplots(2, len(sentences), squeeze=False)
    colors = {highlight[0]: (OKABE_ITO[0], "-"), highlight[1]: (OKABE_ITO[3], "--")}
    for col, words in enumerate(sentences):
        vecs = word_vectors_2d(words, seed)
        rotated = rope.rotate_2d(vecs, np.arange(len(words)), theta)
        lim = 1.05 * float(np.max(np.linalg.norm(vecs, axis=1))) + 0.35
        for row, vs in enumerate((vecs, rotated)):
            ax = axes[row, col]
            _square_axes(ax, lim)
            for p, (w, v) in enumerate(zip(words, vs)):
                color, ls = colors.get(w, ("#999999", "-"))
                strong = w in colors
                _arrow(ax, v, color, ls, lw=2.2 if strong else 1.0)
                ax.text(*(v * 1.12), f"{w} ({p})", fontsize=8 if not strong else 9,
                        color="black" if strong else "#666666", ha="center", va="center",
                        fontweight="bold" if strong else "normal")
            a = vs[words.index(highlight[0])]
            b = vs[words.index(highlight[1])]
            gap = (_angle_deg(b) - _angle_deg(a) + 180) % 360 - 180  # signed, in [-180, 180)
            label = "word vectors" if row == 0 else f"rotated by position × {theta_deg:g}°"
            ax.set_title(f"“{' '.join(words)}”\n{label}; "
                         f"angle {highlight[0]}→{highlight[1]}: {gap:+.0f}°", fontsize=9)


def rotation_2d_explorer(theta_options: Sequence[int] = (10, 25, 45, 90)) -> Explorer:
    """Explorer: move "ate … cheese" right by adding words in front; the angle between stays."""
    words = ("ate", "some", "cheese")
    base_vecs = word_vectors_2d(words)
    a0, c0 = base_vecs[0], base_vecs[2]
    lim = 1.25

    def plot(fig: Figure, shift: int, theta_deg: int) -> Callable[..., None]:
        ax = fig.subplots()
        _square_axes(ax, lim)
        _arrow(ax, a0, OKABE_ITO[0], "-", lw=1.0, alpha=0.35)
        _arrow(ax, c0, OKABE_ITO[3], "--", lw=1.0, alpha=0.35)
        ax.text(*(a0 * 1.13), "ate (unrotated)", fontsize=8, color="#777777", ha="center")
        ax.text(*(c0 * 1.13), "cheese (unrotated)", fontsize=8, color="#777777", ha="center",
                va="top")
        arr_a = _arrow(ax, a0, OKABE_ITO[0], "-", lw=2.4)
        arr_c = _arrow(ax, c0, OKABE_ITO[3], "--", lw=2.4)
        lab_a = ax.text(0, 0, "", fontsize=9, fontweight="bold", ha="center", va="center")
        lab_c = ax.text(0, 0, "", fontsize=9, fontweight="bold", ha="center", va="center")
        arc, = ax.plot([], [], color=OKABE_ITO[2], linewidth=2.0)
        arc_label = ax.text(0, 0, "", fontsize=9, color="black", ha="center", va="center")
        title = ax.set_title("", fontsize=10)

        def update(shift: int, theta_deg: int) -> None:
            theta = np.deg2rad(theta_deg)
            pa, pc = shift, shift + 2
            a = rope.rotate_2d(a0, pa, theta)
            c = rope.rotate_2d(c0, pc, theta)
            arr_a.xy = tuple(a)
            arr_c.xy = tuple(c)
            lab_a.set_position(tuple(a * 1.16))
            lab_a.set_text(f"ate ({pa})")
            lab_c.set_position(tuple(c * 1.16))
            lab_c.set_text(f"cheese ({pc})")
            t_a = np.arctan2(a[1], a[0])
            gap = (np.arctan2(c[1], c[0]) - t_a + np.pi) % (2 * np.pi) - np.pi  # signed
            ts = np.linspace(t_a, t_a + gap, 60)
            arc.set_data(0.35 * np.cos(ts), 0.35 * np.sin(ts))
            mid = t_a + gap / 2
            arc_label.set_position((0.5 * np.cos(mid), 0.5 * np.sin(mid)))
            arc_label.set_text(f"{np.degrees(gap):+.0f}°")
            title.set_text(f"{shift} words in front, θ = {theta_deg}°\nate turned by "
                           f"{pa * theta_deg}°, cheese by {pc * theta_deg}°; "
                           f"angle ate→cheese {np.degrees(gap):+.0f}°")

        update(shift, theta_deg)
        return update

    return explore(
        plot,
        int_param("shift", "words in front", 0, 10, 2, tuple(range(11))),
        choice_param("theta_deg", "θ (degrees per position)", tuple(theta_options), default=25),
        title="RoPE in 2-D: 'ate … cheese' anywhere in a sentence",
        alt=(lambda shift, theta_deg: f"Two arrows, 'ate' at position {shift} rotated by "
             f"{shift * theta_deg} degrees and 'cheese' at position {shift + 2} rotated by "
             f"{(shift + 2) * theta_deg} degrees, with faint unrotated copies; an arc marks the "
             f"angle between the two rotated arrows, which does not depend on the shift."),
        figsize=(5.6, 4.6),
    )


def rotation_matrices(fig: Figure, d: int = 8, position: float = 1.0,
                      base: float = 10000.0) -> None:
    """Heatmaps of :func:`posenc_lib.rope.rotation_matrix` for both pairings, entries annotated."""
    axes = fig.subplots(1, 2)
    for ax, pairing, name in zip(axes, ("interleaved", "half"),
                                 ("adjacent pairs (2i, 2i+1)", "rotate-half pairs (i, i + d/2)")):
        r = rope.rotation_matrix(position, d, base, pairing)
        im = ax.imshow(r, cmap=DIVERGING, vmin=-1, vmax=1)
        for i in range(d):
            for j in range(d):
                if r[i, j] != 0:
                    v = r[i, j]
                    ax.text(j, i, f"{v:.2f}" if abs(v) >= 0.1 else f"{v:.1g}", ha="center",
                            va="center", fontsize=7,
                            color="white" if abs(v) > 0.7 else "black")
        ax.set_xticks(range(d))
        ax.set_yticks(range(d))
        ax.set_xlabel("input coordinate")
        ax.set_ylabel("output coordinate")
        ax.set_title(f"R({position:g}), {name}", fontsize=10)
    fig.colorbar(im, ax=list(axes), label="entry", shrink=0.8)


def pairing_layouts(fig: Figure, d: int = 8) -> None:
    """Where the two coordinates (a_i, b_i) of each pair sit in the two conventions, linked."""
    ax = fig.subplots()
    h = d // 2
    inter = [f"a{i}" if c == 0 else f"b{i}" for i in range(h) for c in (0, 1)]
    half = [f"a{i}" for i in range(h)] + [f"b{i}" for i in range(h)]
    hatches = ["", "//", "..", "xx", "\\\\", "oo", "--", "++"]
    for y, row, name in ((1.0, inter, "adjacent (RoFormer, GPT-J)"),
                         (0.0, half, "rotate-half (GPT-NeoX, HF Llama)")):
        for x, label in enumerate(row):
            i = int(label[1:])
            ax.add_patch(_cell(x, y, OKABE_ITO[i % len(OKABE_ITO)], hatches[i % len(hatches)]))
            ax.text(x, y, f"{label[0]}$_{{{i}}}$", ha="center", va="center", fontsize=11,
                    fontweight="bold",
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 1, "alpha": 0.85})
        ax.text(-0.7, y, name, ha="right", va="center", fontsize=9)
    for x, label in enumerate(half):  # coordinate `label` sits at index x in half layout
        src = inter.index(label)
        ax.annotate("", xy=(x, 0.3), xytext=(src, 0.7),
                    arrowprops={"arrowstyle": "-|>", "color": "#555555", "linewidth": 0.9})
    for x in range(d):
        ax.text(x, 1.45, str(x), ha="center", fontsize=8, color="#555555")
        ax.text(x, -0.5, str(x), ha="center", fontsize=8, color="#555555")
    ax.set_xlim(-6.5, d - 0.4)
    ax.set_ylim(-0.7, 1.7)
    ax.axis("off")
    perm = rope.pairing_permutation(d)
    ax.set_title(f"Each pair i = (a_i, b_i) in both layouts; rotate-half vector = adjacent "
                 f"vector indexed by {list(map(int, perm))}", fontsize=10)


def _cell(x: float, y: float, color: str, hatch: str):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.45, y - 0.3), 0.9, 0.6, facecolor=color, alpha=0.55,
                     edgecolor="#333333", hatch=hatch)


def decay(fig: Figure, d: int = 128, n: float = 10000.0, max_distance: int = 10000
          ) -> Callable[..., None]:
    """RoFormer's bound (normalised to 1 at r = 0) and the all-ones score against distance.

    Log distance axis from 1 to ``max_distance``. Returns ``update(d=..., n=...)``.
    """
    ax = fig.subplots()
    r = np.unique(np.round(np.geomspace(1, max_distance, 600)))
    bound_line, = ax.plot(r, r * 0, color=OKABE_ITO[0], linewidth=1.8,
                          label="RoFormer bound (÷ its value at r = 0)")
    ones_line, = ax.plot(r, r * 0, color=OKABE_ITO[3], linewidth=1.2, linestyle="--",
                         label="score of all-ones q, k (÷ d)")
    ax.axhline(0, color="#888888", linewidth=0.7)
    ax.set_xscale("log")
    ax.set_xlim(1, max_distance)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("relative distance |m − n| (log scale)")
    ax.set_ylabel("relative size")
    ax.grid(True)
    ax.legend(loc="lower left", fontsize=8)
    title = ax.set_title("")

    def update(d: int, n: float) -> None:
        b = rope.decay_bound(r, d, n) / rope.decay_bound(0.0, d, n)
        s = rope.all_ones_score(r, d, n)
        bound_line.set_ydata(b)
        ones_line.set_ydata(s)
        title.set_text(f"Long-term decay, d = {d}, n = {n:g}: at distance 1000 the bound is "
                       f"{float(rope.decay_bound(1000.0, d, n) / rope.decay_bound(0.0, d, n)):.2f}")

    update(d, n)
    return update


def decay_explorer() -> Explorer:
    """Explorer: the long-term decay of RoPE scores for different d and base n."""

    def plot(fig: Figure, d: int, n: float) -> Callable[..., None]:
        return decay(fig, d, n)

    return explore(
        plot, dim_param(default=128, grid=(4, 16, 32, 64, 128, 256, 512)), base_param(),
        title="RoPE: how the possible score shrinks with distance",
        alt=(lambda d, n: f"Two curves against relative distance from 1 to 10000 on a log axis "
             f"for d={d} and base n={n:g}: RoFormer's upper bound normalised to 1 at distance 0, "
             f"and the score of all-ones query and key, both starting near 1 and decaying with "
             f"ripples."),
        figsize=(7.0, 3.6),
    )
