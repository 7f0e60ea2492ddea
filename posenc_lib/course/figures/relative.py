"""Figures for chapter 7: the learned table's wall, Shaw et al.'s clipping, T5's buckets, and
what happens to one pair of words when the sentence around it grows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter

from ...display.explorer import Explorer, explore, int_param
from ...display.plotting import DIVERGING, OKABE_ITO
from ...maths import encodings, relative
from .. import toy

__all__ = [
    "learned_table_wall",
    "pair_logit_terms",
    "pair_logits_by_shift",
    "pair_shift_figure",
    "shaw_clipping",
    "shaw_clipping_explorer",
    "t5_buckets",
    "t5_buckets_explorer",
    "T5_EXPLORER_MAX_OFFSET",
]


# -- learned absolute table ----------------------------------------------------------------------
def learned_table_wall(fig: Figure, table: np.ndarray, extra: int = 8) -> None:
    """Heatmap of a learned table (positions down, dimensions across) and the missing rows after it.

    ``extra`` empty, hatched rows below the table stand for the positions a longer input would
    need: the model has no vector for them.
    """
    table = np.asarray(table, dtype=float)
    max_len, d = table.shape
    ax = fig.subplots()
    lim = float(np.max(np.abs(table)))
    im = ax.imshow(table, cmap=DIVERGING, vmin=-lim, vmax=lim, aspect="auto",
                   extent=(-0.5, d - 0.5, max_len - 0.5, -0.5))
    ax.add_patch(Rectangle((-0.5, max_len - 0.5), d, extra, facecolor="white",
                           edgecolor="#333333", hatch="xx", linewidth=1.0))
    ax.axhline(max_len - 0.5, color="black", linewidth=2)
    ax.text(d / 2 - 0.5, max_len - 0.5 + extra / 2, f"positions {max_len}, {max_len + 1}, … : "
            "no row to look up", ha="center", va="center", fontsize=10,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 2})
    ax.set_ylim(max_len - 0.5 + extra, -0.5)
    ax.set_xlabel("dimension of the position vector")
    ax.set_ylabel("position (row of the table)")
    ax.set_title(f"A learned position table: {max_len} rows, then a wall")
    fig.colorbar(im, ax=ax, label="value (random stand-in)", shrink=0.85)


# -- Shaw et al. ----------------------------------------------------------------------------------
def shaw_clipping(fig: Figure, seq_len: int = 12, max_distance: int = 3
                  ) -> Callable[..., Any]:
    """Left: the clipped offset clip(j - i, -k, k) for every query/key pair. Right: offset → clipped.

    Returns ``update(max_distance=...)`` for explorers.
    """
    ax_map, ax_line = fig.subplots(1, 2, width_ratios=[1.1, 1.0])
    ids = relative.shaw_relative_ids(seq_len, max_distance) - max_distance
    vmax = seq_len - 1
    im = ax_map.imshow(ids, cmap=DIVERGING, vmin=-vmax, vmax=vmax)
    texts = [[ax_map.text(j, i, "", ha="center", va="center", fontsize=7)
              for j in range(seq_len)] for i in range(seq_len)]
    ax_map.set_xlabel("key position j")
    ax_map.set_ylabel("query position i")
    ticks = range(0, seq_len, 2)
    ax_map.set_xticks(ticks)
    ax_map.set_yticks(ticks)
    fig.colorbar(im, ax=ax_map, label="clipped offset", shrink=0.8)

    offsets = np.arange(-(seq_len - 1), seq_len)
    true_line, = ax_line.plot(offsets, offsets, color="#999999", linestyle=":",
                              label="true offset j − i")
    line, = ax_line.plot(offsets, offsets, color=OKABE_ITO[0], marker="o", markersize=3.5,
                         label="offset the model sees")
    band = ax_line.axhspan(-max_distance, max_distance, color=OKABE_ITO[1], alpha=0.15,
                           label="distinct learned vectors")
    ax_line.set_xlim(offsets[0] - 0.5, offsets[-1] + 0.5)
    ax_line.set_ylim(offsets[0] - 0.5, offsets[-1] + 0.5)
    ax_line.set_xlabel("offset j − i")
    ax_line.set_ylabel("clip(j − i, −k, k)")
    ax_line.grid(True)
    ax_line.set_axisbelow(True)  # grid behind the band, also when only the band is redrawn
    legend = ax_line.legend(loc="upper left", fontsize=8)
    title = fig.suptitle("")

    def update(max_distance: int) -> list[Artist]:
        k = int(max_distance)
        ids = relative.shaw_relative_ids(seq_len, k) - k
        im.set_data(ids)
        for i in range(seq_len):
            for j in range(seq_len):
                texts[i][j].set_text(str(ids[i, j]))
                texts[i][j].set_color("white" if abs(ids[i, j]) > 0.6 * vmax else "black")
        line.set_ydata(np.clip(offsets, -k, k))
        band.set_y(-k - 0.3 if k == 0 else -k)
        band.set_height(0.6 if k == 0 else 2 * k)
        title.set_text(f"Shaw et al. with k = {k}: {2 * k + 1} learned vectors; every offset "
                       f"beyond ±{k} shares the edge vector")
        # the artists that change: the explorer redraws only these over the rest
        return [im, *ax_map.spines.values(), *(t for row in texts for t in row), band,
                *ax_line.spines.values(), true_line, line, legend, title]

    update(max_distance)
    return update


def shaw_clipping_explorer(seq_len: int = 12) -> Explorer:
    """Explorer: the clipping distance k of Shaw et al.'s relative positions."""

    def plot(fig: Figure, max_distance: int) -> Callable[..., Any]:
        return shaw_clipping(fig, seq_len, max_distance)

    return explore(
        plot,
        int_param("max_distance", "clipping distance k", 0, 16, 3, (0, 1, 2, 3, 4, 6, 8, 11, 16)),
        title="Shaw et al.: which relative vector each query/key pair uses",
        alt=(lambda max_distance: f"Left: a {seq_len}-by-{seq_len} grid of offsets j minus i, "
             f"clipped to the range -{max_distance} to {max_distance}, constant along diagonals "
             f"and flat beyond the clipping distance. Right: the clipped offset against the true "
             f"offset, a ramp that saturates at ±{max_distance}."),
        figsize=(8.0, 3.8),
    )


# -- T5 buckets -----------------------------------------------------------------------------------
def t5_buckets(fig: Figure, num_buckets: int = 32, max_distance: int = 128,
               max_offset: int = 160) -> Callable[..., Any]:
    """Bucket index against the offset j - i (key minus query), encoder and decoder variants.

    Returns ``update(num_buckets=..., max_distance=...)``.
    """
    ax = fig.subplots()
    offsets = np.arange(-max_offset, max_offset + 1)
    enc, = ax.step(offsets, offsets * 0, where="mid", color=OKABE_ITO[0], linewidth=1.8,
                   label="bidirectional (encoder)")
    dec, = ax.step(offsets, offsets * 0, where="mid", color=OKABE_ITO[3], linewidth=1.5,
                   linestyle="--", label="causal (decoder)")
    exact = ax.axvspan(-8, 8, color=OKABE_ITO[2], alpha=0.15, label="exact encoder buckets")
    md_lines = [ax.axvline(0, color="#555555", linestyle=":", linewidth=1) for _ in range(2)]
    ax.set_xlim(-max_offset, max_offset)
    ax.set_ylim(-1, 64)
    # tick labels padded to two digit widths (figure spaces), so the frozen layout fits any limit
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.0f}".rjust(2, "\u2007")))
    ax.set_xlabel("offset j − i (key position − query position)")
    ax.set_ylabel("bucket index")
    ax.grid(True)
    ax.legend(loc="center right", fontsize=8)
    title = ax.set_title("")

    def update(num_buckets: int, max_distance: int) -> list[Artist]:
        nb, md = int(num_buckets), int(max_distance)
        b_enc = relative.t5_bucket(offsets, True, nb, md)
        b_dec = relative.t5_bucket(offsets, False, nb, md)
        enc.set_ydata(b_enc)
        dec.set_ydata(b_dec)
        m = (nb // 2) // 2
        exact.set_x(-m + 0.5)
        exact.set_width(2 * m - 1)
        for line, x in zip(md_lines, (-md, md)):
            line.set_xdata([x, x])
        ax.set_ylim(-1, nb + 1)
        where = "dotted lines" if md <= max_offset else "beyond the plotted range"
        title.set_text(f"T5: {nb} buckets, max_distance = {md} ({where})\n"
                       f"encoder uses {len(np.unique(b_enc))} buckets, exact up to ±{m - 1}")
        return [enc, dec, exact, *md_lines, ax.yaxis, title]   # the bucket axis moves with nb

    update(num_buckets, max_distance)
    return update


T5_EXPLORER_MAX_OFFSET = 160
"""The T5 explorer plots the offsets from ``-T5_EXPLORER_MAX_OFFSET`` to ``T5_EXPLORER_MAX_OFFSET``."""


def t5_buckets_explorer() -> Explorer:
    """Explorer: T5's bucket function for different numbers of buckets and max distances."""
    top = T5_EXPLORER_MAX_OFFSET

    def plot(fig: Figure, num_buckets: int, max_distance: int) -> Callable[..., Any]:
        return t5_buckets(fig, num_buckets, max_distance, max_offset=top)

    return explore(
        plot,
        int_param("num_buckets", "num_buckets", 8, 64, 32, (8, 16, 32, 64), step=8),
        # min 64 > 32 exact buckets of the causal variant with num_buckets = 64
        int_param("max_distance", "max_distance", 64, 512, 128, (64, 128, 256, 512), step=8),
        title="T5's relative position buckets",
        alt=(lambda num_buckets, max_distance: f"Step plot of the T5 bucket index against the "
             f"offset from -{top} to {top} with {num_buckets} buckets and max_distance "
             f"{max_distance}: one bucket per offset near zero, then wider and wider buckets, "
             f"the upper half of the buckets for keys after the query; the causal variant puts "
             f"every later key in bucket 0."),
        figsize=(7.2, 3.6),
    )


# -- absolute vs relative: one pair as the sentence grows ----------------------------------------
FILLER = ("in", "the", "garden", "on", "a", "sunny", "day", "after", "lunch", "quickly", "and",
          "then", "very", "suddenly", "outside", "near", "an", "old", "oak", "tree")


def pair_logits_by_shift(words: Sequence[str] = ("a", "man", "threw", "a", "ball"),
                         query: int = 1, key: int = 2, shifts: Sequence[int] = tuple(range(16)),
                         d: int = 16, seed: int = 0, *, proj_scale: float = 3.0,
                         pe_scale: float | None = None, table_std: float | None = None,
                         t5_std: float = 1.0, shaw_k: int = 4, shaw_std: float = 0.5
                         ) -> dict[str, np.ndarray]:
    """The logit of ``words[query]`` → ``words[key]`` when ``s`` filler words are put in front.

    One toy head, four position schemes; every setting is an argument:

    * word vectors :func:`posenc_lib.course.toy.embed` (entries N(0, 1/d)); ``W_Q``, ``W_K`` from
      :func:`posenc_lib.course.toy.projections` with ``scale=proj_scale`` (entries N(0, proj_scale²/d));
      logits divided by √d (:func:`posenc_lib.maths.relative.logits`);
    * sinusoidal: :func:`posenc_lib.maths.encodings.sinusoidal` ``(L, d)`` times ``pe_scale`` added to
      the input (default 1/√d, chapter 1's PE/√d: rows of norm 1/√2);
    * learned table: :func:`posenc_lib.maths.relative.learned_table` with standard deviation
      ``table_std`` (default 1/√(2d): rows of mean squared norm 1/2, like PE/√d), added to the
      input;
    * T5: 32 bucket values N(0, ``t5_std``²) (``default_rng([seed, 7])``), default buckets;
    * Shaw et al.: ``2 * shaw_k + 1`` key vectors N(0, ``shaw_std``²) (``default_rng([seed, 8])``).

    The filler words are the first ``s`` of :data:`FILLER`. Returns an array of logits per
    scheme, indexed like ``shifts``.
    """
    words = list(words)
    pe_scale = 1.0 / np.sqrt(d) if pe_scale is None else pe_scale
    table_std = 1.0 / np.sqrt(2 * d) if table_std is None else table_std
    w_q, w_k, _ = toy.projections(d, seed, scale=proj_scale)
    table = relative.learned_table(len(words) + len(FILLER), d, seed=seed, scale=table_std)
    t5_values = np.random.default_rng([seed, 7]).normal(0.0, t5_std, 32)
    shaw_keys = np.random.default_rng([seed, 8]).normal(0.0, shaw_std, (2 * shaw_k + 1, d))
    out: dict[str, list[float]] = {"sinusoidal (absolute)": [], "learned table (absolute)": [],
                                   "T5 bias (relative)": [], "Shaw et al. (relative)": []}
    for s in shifts:
        if s > len(FILLER):
            raise ValueError(f"shifts must be at most {len(FILLER)}, got {s}")
        sentence = list(FILLER[:s]) + words
        x = toy.embed(sentence, d, seed)
        L = len(sentence)
        i, j = s + query, s + key
        out["sinusoidal (absolute)"].append(
            relative.logits(x, w_q, w_k, absolute=pe_scale * encodings.sinusoidal(L, d))[i, j])
        out["learned table (absolute)"].append(
            relative.logits(x, w_q, w_k, absolute=table[:L])[i, j])
        out["T5 bias (relative)"].append(
            relative.logits(x, w_q, w_k, bias=relative.t5_bias(L, t5_values))[i, j])
        out["Shaw et al. (relative)"].append(
            relative.shaw_scores(x @ w_q, x @ w_k, shaw_keys, shaw_k)[i, j])
    return {name: np.array(v) for name, v in out.items()}


def pair_logit_terms(words: Sequence[str] = ("a", "man", "threw", "a", "ball"),
                     query: int = 1, key: int = 2, shifts: Sequence[int] = tuple(range(16)),
                     d: int = 16, seed: int = 0, *, proj_scale: float = 3.0,
                     pe_scale: float | None = None) -> dict[str, np.ndarray]:
    r"""The sinusoidal logit of :func:`pair_logits_by_shift` split into its four terms.

    With :math:`p_i` = ``pe_scale`` · PE(i) (default 1/√d), :math:`q = (x_i + p_i) W_Q` and
    :math:`k = (x_j + p_j) W_K`, the logit :math:`q\cdot k/\sqrt{d}` is content–content
    :math:`x_iW_Q\cdot x_jW_K`, the two mixed terms :math:`x_iW_Q\cdot p_jW_K` and
    :math:`p_iW_Q\cdot x_jW_K`, and position–position :math:`p_iW_Q\cdot p_jW_K` (each divided
    by :math:`\sqrt{d}`). Returns one array per term, indexed like ``shifts``.
    """
    pe_scale = 1.0 / np.sqrt(d) if pe_scale is None else pe_scale
    w_q, w_k, _ = toy.projections(d, seed, scale=proj_scale)
    names = ("content–content", "content–position", "position–content", "position–position")
    out: dict[str, list[float]] = {name: [] for name in names}
    for s in shifts:
        if s > len(FILLER):
            raise ValueError(f"shifts must be at most {len(FILLER)}, got {s}")
        sentence = list(FILLER[:s]) + list(words)
        x = toy.embed(sentence, d, seed)
        p = pe_scale * encodings.sinusoidal(len(sentence), d)
        i, j = s + query, s + key
        for name, (a, b) in zip(names, ((x[i], x[j]), (x[i], p[j]), (p[i], x[j]), (p[i], p[j]))):
            out[name].append(float((a @ w_q) @ (b @ w_k)) / np.sqrt(d))
    return {name: np.array(v) for name, v in out.items()}


def pair_shift_figure(fig: Figure, curves: dict[str, np.ndarray], shifts: Sequence[int],
                      label: str = "man → threw") -> None:
    """Line plot of :func:`pair_logits_by_shift`: absolute schemes wander, relative ones stay flat."""
    ax = fig.subplots()
    styles = [("o", "-"), ("s", "--"), ("^", "-"), ("D", ":")]
    for (name, values), color, (marker, ls) in zip(curves.items(), OKABE_ITO, styles):
        ax.plot(shifts, values, marker=marker, linestyle=ls, color=color, label=name,
                markersize=4)
    ax.set_xlabel("number of words put in front of the sentence")
    ax.set_ylabel(f"attention logit {label}")
    ax.set_title(f"Same two words, same distance: the logit {label} as the pair moves right")
    ax.grid(True)
    # outside the axes, below: inside, it would hide part of a flat line whatever the data
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, ncols=2)
