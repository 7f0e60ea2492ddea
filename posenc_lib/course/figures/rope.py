"""Figures for chapter 8 (RoPE): rotating 2-D word vectors, the block-diagonal matrix, the two
pairing conventions, RoFormer's long-term-decay bound, partial rotary and axial (2-D) RoPE.

The chapter writes the frequency base as ``b`` (``n`` is a key position there), so the explorers
here label it "base b"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ...display.explorer import Explorer, choice_param, explore, int_param, log_param
from ...display.plotting import DIVERGING, OKABE_ITO
from ...maths import rope
from .. import toy

__all__ = [
    "PARTIAL_CONTENTS",
    "axial_scores",
    "axial_explorer",
    "decay",
    "decay_explorer",
    "pairing_layouts",
    "partial_rotary",
    "partial_rotary_explorer",
    "rotation_2d",
    "rotation_2d_explorer",
    "rotation_matrices",
    "signed_angle_deg",
    "word_vectors_2d",
]


def word_vectors_2d(words: Sequence[str], seed: int = 0) -> np.ndarray:
    """Seeded toy 2-D "embeddings" of ``words`` (:func:`posenc_lib.course.toy.word_vector` with d = 2)."""
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

    def plot(fig: Figure, shift: int, theta_deg: int, distance: int) -> Callable[..., Any]:
        ax = fig.subplots()
        _square_axes(ax, lim)
        _arrow(ax, a0, OKABE_ITO[0], "-", lw=1.0, alpha=0.35)
        _arrow(ax, c0, OKABE_ITO[3], "--", lw=1.0, alpha=0.35)
        ax.text(a0[0] * 1.13, a0[1] * 1.13, f"{first} (unrotated)", fontsize=8, color="#777777",
                ha="center")
        ax.text(c0[0] * 1.13, c0[1] * 1.13, f"{second} (unrotated)", fontsize=8, color="#777777",
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
    """Heatmaps of :func:`posenc_lib.maths.rope.rotation_matrix` for both pairings, entries annotated."""
    axes = fig.subplots(1, 2)
    for ax, pairing, name in zip(axes, rope.PAIRINGS,
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
          ) -> Callable[..., Any]:
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
    zero = ax.axhline(0, color="#888888", linewidth=0.7)
    ax.set_xscale("log")
    ax.set_xlim(1, max_distance)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("distance r between query and key, in positions (log scale)")
    ax.set_ylabel("relative size")
    ax.grid(True)
    ax.legend(loc="lower left", fontsize=8)
    title = ax.set_title("")

    def update(d: int, b: float) -> list[Artist]:
        start = rope.decay_bound(0.0, d, b)
        bound_line.set_ydata(rope.decay_bound(r, d, b) / start)
        ones_line.set_ydata(rope.all_ones_score(r, d, b))
        at = rope.decay_bound(np.array([100.0, 1000.0]), d, b) / start
        title.set_text(f"d = {d}, b = {b:g}: the bound is {at[0]:.2f} at distance 100 and "
                       f"{at[1]:.2f} at distance 1000")
        return [bound_line, ones_line, zero, title]   # the axes never move

    update(d, b)
    return update


def decay_explorer() -> Explorer:
    """Explorer: RoFormer's long-term-decay bound for different head dimensions d and bases b."""

    def plot(fig: Figure, d: int, b: float) -> Callable[..., Any]:
        return decay(fig, d, b)

    return explore(
        plot,
        int_param("d", "head dimension d", 4, 512, 128, (4, 128, 512), step=2,
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


PARTIAL_CONTENTS: tuple[str, ...] = ("aligned (k = q)", "independent")


def partial_rotary(fig: Figure, fraction: float, content: str = PARTIAL_CONTENTS[0],
                   d: int = 128, b: float = 10000.0, seed: int = 0,
                   max_distance: int = 10000) -> Callable[..., Any]:
    """Score of one query and key against their distance with only part of the head rotated.

    ``rope.apply(..., rotary_dim=fraction * d)``: the score splits into the rotated part (an
    ``r``-dimensional RoPE score) and the position-free part ``q[r:] · k[r:]`` (a horizontal
    line). ``content`` is ``"aligned (k = q)"`` or ``"independent"`` (``k`` drawn on its own);
    the dotted curve is the expected score, ``fraction`` times the all-ones curve of an
    ``r``-dimensional RoPE plus ``1 - fraction`` for aligned content and 0 for independent.
    Everything is divided by ``d``. Returns ``update(fraction=..., content=...)``.
    """
    ax = fig.subplots()
    dist = np.unique(np.round(np.geomspace(1, max_distance, 300)))
    rng = np.random.default_rng(seed)
    q, k_other = rng.standard_normal((2, d))
    total, = ax.plot(dist, dist * 0, color=OKABE_ITO[0], linewidth=1.8,
                     label="score (÷ d)")
    rotated, = ax.plot(dist, dist * 0, color=OKABE_ITO[3], linewidth=1.2, linestyle="--",
                       label="rotated part")
    free, = ax.plot(dist, dist * 0, color=OKABE_ITO[2], linewidth=1.6, linestyle="-.",
                    label="position-free part")
    expected, = ax.plot(dist, dist * 0, color="#555555", linewidth=1.2, linestyle=":",
                        label="expected score (÷ d)")
    zero = ax.axhline(0, color="#888888", linewidth=0.7)
    ax.set_xscale("log")
    ax.set_xlim(1, max_distance)
    ax.set_ylim(-0.6, 1.25)
    ax.set_xlabel("distance between query and key, in positions (log scale)")
    ax.set_ylabel("score ÷ d")
    ax.grid(True)
    ax.legend(loc="lower left", fontsize=8, ncol=2)
    title = ax.set_title("", fontsize=10)

    def update(fraction: float, content: str) -> list[Artist]:
        r = int(round(fraction * d))
        k = q if content == PARTIAL_CONTENTS[0] else k_other
        turned = rope.apply(np.broadcast_to(k, (len(dist), d)), positions=dist, base=b,
                            rotary_dim=r)
        part = turned[:, :r] @ q[:r] / d
        rest = float(q[r:] @ k[r:]) / d
        total.set_ydata(part + rest)
        rotated.set_ydata(part)
        free.set_ydata(np.full(len(dist), rest))
        if content == PARTIAL_CONTENTS[0]:
            expected.set_ydata(fraction * rope.all_ones_score(dist, r, b) + (1 - fraction))
        else:
            expected.set_ydata(np.zeros(len(dist)))
        title.set_text(f"rotary_dim = {r} of d = {d} ({fraction:.1%} rotated), base b = {b:g}, "
                       f"{content}\nposition-free part {rest:+.2f} at every distance")
        return [total, rotated, free, expected, zero, title]   # the axes never move

    update(fraction, content)
    return update


def partial_rotary_explorer(d: int = 128, b: float = 10000.0,
                            fractions: Sequence[float] = (0.125, 0.25, 0.5, 1.0)) -> Explorer:
    """Explorer: rotate a fraction of the head (``rotary_dim``) and see which part of the score
    depends on distance."""

    def plot(fig: Figure, fraction: float, content: str) -> Callable[..., Any]:
        return partial_rotary(fig, fraction, content, d, b)

    return explore(
        plot,
        choice_param("fraction", "fraction rotated", tuple(fractions), default=0.25,
                     description="rotary_dim / d (GPT-NeoX's rotary_pct)"),
        choice_param("content", "query and key", PARTIAL_CONTENTS),
        title=f"Partial rotary: only rotary_dim of the d = {d} coordinates turn",
        alt=(lambda fraction, content: f"Curves against the distance between query and key, "
             f"1 to 10000 on a log axis, for one random query with {content} key, d = {d}, "
             f"{int(round(fraction * d))} coordinates rotated: the score, its rotated part, its "
             f"position-free part (a horizontal line, the same at every distance) and the "
             f"expected score (dotted)."),
        figsize=(7.0, 3.8),
    )


def axial_scores(fig: Figure, query_row: int, query_col: int, size: int = 8, d: int = 32,
                 b: float = 10.0, seed: int = 0) -> Callable[..., Any]:
    """Axial RoPE on a ``size`` × ``size`` grid of patches: the score of a query patch against a
    key with the same content (``k = q``, a seeded random vector) placed at every patch.

    Left: the scores on the grid, the query patch marked. Right: the same scores indexed by the
    offset (Δrow, Δcol) = key − query, over every offset the grid allows; the offsets this query
    does not see are blank. ``rope.axial_apply`` with base ``b``. Returns
    ``update(query_row=..., query_col=...)``.
    """
    rows, cols = rope.grid_positions(size, size)
    q = np.random.default_rng(seed).standard_normal(d)
    queries = keys = rope.axial_apply(np.broadcast_to(q, (size * size, d)), rows, cols, b)
    lim = float(np.max(np.abs(queries @ keys.T)))  # the largest |score| over every placement
    ax_grid, ax_off = fig.subplots(1, 2)
    im = ax_grid.imshow(np.zeros((size, size)), cmap=DIVERGING, vmin=-lim, vmax=lim)
    marker, = ax_grid.plot([], [], marker="s", markersize=14, markerfacecolor="none",
                           markeredgecolor="black", markeredgewidth=2.0, linestyle="none")
    ax_grid.set_xlabel("key column")
    ax_grid.set_ylabel("key row")
    ax_grid.set_xticks(range(size))
    ax_grid.set_yticks(range(size))
    span = 2 * size - 1
    im_off = ax_off.imshow(np.zeros((span, span)), cmap=DIVERGING, vmin=-lim, vmax=lim,
                           extent=(-size + 0.5, size - 0.5, size - 0.5, -size + 0.5))
    ax_off.set_xlabel("Δcol = key column − query column")
    ax_off.set_ylabel("Δrow = key row − query row")
    ticks = list(range(-(size - 1), size, 2))
    ax_off.set_xticks(ticks)
    ax_off.set_yticks(ticks)
    fig.colorbar(im_off, ax=[ax_grid, ax_off], label="score q·k", shrink=0.8)
    t_grid = ax_grid.set_title("", fontsize=9)
    t_off = ax_off.set_title("", fontsize=9)

    def update(query_row: int, query_col: int) -> list[Artist]:
        i = query_row * size + query_col
        query = queries[i]  # the query is turned by its own (row, col)
        scores = (keys @ query).reshape(size, size)
        im.set_data(scores)
        marker.set_data([query_col], [query_row])
        by_offset = np.full((span, span), np.nan)
        by_offset[size - 1 - query_row: 2 * size - 1 - query_row,
                  size - 1 - query_col: 2 * size - 1 - query_col] = scores
        im_off.set_data(by_offset)
        t_grid.set_text(f"query at (row {query_row}, column {query_col});\n"
                        f"the same content as key at every patch")
        t_off.set_text("the same scores placed by offset;\n"
                       "blank: offsets out of this query's reach")
        return [im, marker, im_off, t_grid]   # the axes never move; the right title is fixed

    update(query_row, query_col)
    return update


def axial_explorer(size: int = 8, d: int = 32, b: float = 10.0) -> Explorer:
    """Explorer: move the query patch of an axial-RoPE head; the score map moves with it, and
    indexed by offset it does not change."""

    def plot(fig: Figure, query_row: int, query_col: int) -> Callable[..., Any]:
        return axial_scores(fig, query_row, query_col, size, d, b)

    where = (0, 2, 4, 7)
    return explore(
        plot,
        int_param("query_row", "query row", 0, size - 1, 2, where),
        int_param("query_col", "query column", 0, size - 1, 4, where),
        title=f"Axial 2-D RoPE on a grid of {size} × {size} patches (d = {d}, base b = {b:g})",
        alt=(lambda query_row, query_col: f"Left: an {size}-by-{size} heatmap of the scores of a "
             f"query patch at row {query_row}, column {query_col} against a key with the same "
             f"content at every patch; the largest score is at the query's own patch. Right: the same scores "
             f"placed by the offset between key and query, from -{size - 1} to {size - 1} in each "
             f"direction; the pattern there is the same wherever the query sits, only the "
             f"{size}-by-{size} block of offsets this query can reach moves, and the rest of the "
             f"map is blank."),
        figsize=(8.6, 4.2),
    )
