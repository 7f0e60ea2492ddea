"""Figures for chapter 8 (RoPE): rotating 2-D word vectors, the block-diagonal matrix, the two
pairing conventions, and RoFormer's long-term-decay bound.

The chapter writes the frequency base as ``b`` (``n`` is a key position there), so the explorers
here label it "base b"."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import rope, toy
from ..explorer import Explorer, choice_param, explore, int_param, log_param
from ..plotting import DIVERGING, OKABE_ITO

__all__ = [
    "decay",
    "decay_explorer",
    "pairing_layouts",
    "rotation_2d",
    "rotation_2d_explorer",
    "rotation_matrices",
    "signed_angle_deg",
    "word_vectors_2d",
]


def word_vectors_2d(words: Sequence[str], seed: int = 0) -> np.ndarray:
    """Seeded toy 2-D "embeddings" of ``words`` (:func:`posenc_lib.toy.word_vector` with d = 2)."""
    return np.stack([toy.word_vector(w, 2, seed) for w in words])


def _angle_deg(v: np.ndarray) -> float:
    return float(np.degrees(np.arctan2(v[1], v[0])))


def signed_angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    """The angle from 2-D vector ``a`` to ``b`` in degrees, counter-clockwise, in [-180, 180)."""
    return (_angle_deg(np.asarray(b)) - _angle_deg(np.asarray(a)) + 180) % 360 - 180


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


def rotation_2d(fig: Figure, sentences: Sequence[Sequence[str]], theta_deg: float = 20.0,
                highlight: tuple[str, str] = ("bird", "song"), seed: int = 0) -> None:
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
            gap = signed_angle_deg(a, b)
            label = "word vectors" if row == 0 else f"rotated by position × {theta_deg:g}°"
            ax.set_title(f"“{' '.join(words)}”\n{label}; "
                         f"angle {highlight[0]}→{highlight[1]}: {gap:+.0f}°", fontsize=9)


def rotation_2d_explorer(pair: tuple[str, str] = ("bird", "song"),
                         theta_options: Sequence[int] = (20, 45, 90),
                         distances: Sequence[int] = (3, 7)) -> Explorer:
    """Explorer: move a pair of words right by adding words in front; the angle between them
    depends only on their distance (and, with one frequency, only on distance × θ mod 360°)."""
    base_vecs = word_vectors_2d(pair)
    a0, c0 = base_vecs[0], base_vecs[1]
    lim = 1.25
    first, second = pair

    def plot(fig: Figure, shift: int, theta_deg: int, distance: int) -> Callable[..., None]:
        ax = fig.subplots()
        _square_axes(ax, lim)
        _arrow(ax, a0, OKABE_ITO[0], "-", lw=1.0, alpha=0.35)
        _arrow(ax, c0, OKABE_ITO[3], "--", lw=1.0, alpha=0.35)
        ax.text(*(a0 * 1.13), f"{first} (unrotated)", fontsize=8, color="#777777", ha="center")
        ax.text(*(c0 * 1.13), f"{second} (unrotated)", fontsize=8, color="#777777",
                ha="center", va="top")
        arr_a = _arrow(ax, a0, OKABE_ITO[0], "-", lw=2.4)
        arr_c = _arrow(ax, c0, OKABE_ITO[3], "--", lw=2.4)
        lab_a = ax.text(0, 0, "", fontsize=9, fontweight="bold", ha="center", va="center")
        lab_c = ax.text(0, 0, "", fontsize=9, fontweight="bold", ha="center", va="center")
        arc, = ax.plot([], [], color=OKABE_ITO[2], linewidth=2.0)
        arc_label = ax.text(0, 0, "", fontsize=9, color="black", ha="center", va="center")
        title = ax.set_title("", fontsize=10)

        def update(shift: int, theta_deg: int, distance: int) -> None:
            theta = np.deg2rad(theta_deg)
            pa, pc = shift, shift + distance
            a = rope.rotate_2d(a0, pa, theta)
            c = rope.rotate_2d(c0, pc, theta)
            arr_a.xy = tuple(a)
            arr_c.xy = tuple(c)
            lab_a.set_position(tuple(a * 1.16))
            lab_a.set_text(f"{first} ({pa})")
            lab_c.set_position(tuple(c * 1.16))
            lab_c.set_text(f"{second} ({pc})")
            t_a = np.arctan2(a[1], a[0])
            gap = np.deg2rad(signed_angle_deg(a, c))
            ts = np.linspace(t_a, t_a + gap, 60)
            arc.set_data(0.35 * np.cos(ts), 0.35 * np.sin(ts))
            mid = t_a + gap / 2
            arc_label.set_position((0.5 * np.cos(mid), 0.5 * np.sin(mid)))
            arc_label.set_text(f"{np.degrees(gap):+.0f}°")
            title.set_text(f"{shift} words in front, distance {distance}, θ = {theta_deg}°\n"
                           f"{first} turned by {pa * theta_deg}°, {second} by {pc * theta_deg}°; "
                           f"angle {first}→{second} {np.degrees(gap):+.0f}°")

        update(shift, theta_deg, distance)
        return update

    return explore(
        plot,
        int_param("shift", "words in front", 0, 7, 0, tuple(range(8))),
        choice_param("theta_deg", "θ (degrees per position)", tuple(theta_options),
                     default=theta_options[0]),
        choice_param("distance", f"distance {first}→{second}", tuple(distances),
                     default=distances[0]),
        title=f"RoPE in 2-D: '{first} … {second}' anywhere in a sentence",
        alt=(lambda shift, theta_deg, distance: f"Two arrows, '{first}' at position {shift} "
             f"rotated by {shift * theta_deg} degrees and '{second}' at position "
             f"{shift + distance} rotated by {(shift + distance) * theta_deg} degrees, with faint "
             f"unrotated copies; an arc marks the angle between the two rotated arrows, which "
             f"does not depend on the number of words in front."),
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


def decay(fig: Figure, d: int = 128, b: float = 10000.0, max_distance: int = 10000
          ) -> Callable[..., None]:
    """RoFormer's bound (normalised to 1 at r = 0) and the all-ones score against distance.

    ``d`` is the head dimension and ``b`` the frequency base. The all-ones curve is also the
    *expected* score of a random query with the key equal to it (``k = q``). Log distance axis
    from 1 to ``max_distance``. Returns ``update(d=..., b=...)``.
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
    ax.set_xlabel("distance r between query and key, in positions (log scale)")
    ax.set_ylabel("relative size")
    ax.grid(True)
    ax.legend(loc="lower left", fontsize=8)
    title = ax.set_title("")

    def update(d: int, b: float) -> None:
        start = rope.decay_bound(0.0, d, b)
        bound_line.set_ydata(rope.decay_bound(r, d, b) / start)
        ones_line.set_ydata(rope.all_ones_score(r, d, b))
        at = rope.decay_bound(np.array([100.0, 1000.0]), d, b) / start
        title.set_text(f"d = {d}, b = {b:g}: the bound is {at[0]:.2f} at distance 100 and "
                       f"{at[1]:.2f} at distance 1000")

    update(d, b)
    return update


def decay_explorer() -> Explorer:
    """Explorer: RoFormer's long-term-decay bound for different head dimensions d and bases b."""

    def plot(fig: Figure, d: int, b: float) -> Callable[..., None]:
        return decay(fig, d, b)

    return explore(
        plot,
        int_param("d", "head dimension d", 4, 512, 128, (4, 16, 32, 64, 128, 256, 512), step=2,
                  description="dimension of one head's queries and keys (even)"),
        log_param("b", "base b", 10.0, 100000.0, 10000.0,
                  (10.0, 100.0, 1000.0, 10000.0, 100000.0), step=0.05,
                  description="frequency base (log scale)"),
        title="RoPE: how the bound on the score changes with distance (for fixed content)",
        alt=(lambda d, b: f"Two curves against the distance between query and key, from 1 to "
             f"10000 on a log axis, for d={d} and base b={b:g}: RoFormer's upper bound "
             f"normalised to 1 at distance 0, and the score of an all-ones query and key divided "
             f"by d, both starting near 1 and falling with ripples."),
        figsize=(7.0, 3.6),
    )
