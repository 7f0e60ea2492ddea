"""Figures for chapter 1: attention without and with positions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ...display.explorer import Explorer, base_param, explore, float_param
from ...display.plotting import DIVERGING, OKABE_ITO, SEQUENTIAL
from ...maths import encodings
from .. import toy

__all__ = ["STRENGTHS", "attention_heatmaps", "highlighted_heatmap", "twin_tokens",
           "twin_tokens_explorer", "word_plus_position"]


def attention_heatmaps(fig: Figure, panels: Sequence[tuple[str, Sequence[str], np.ndarray]]
                       ) -> None:
    """Side-by-side heatmaps of attention weights, one per ``(title, tokens, weights)``.

    Rows are queries, columns keys; every cell is annotated with its weight.
    """
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (title, tokens, w) in zip(axes, panels):
        im = ax.imshow(w, cmap=SEQUENTIAL, vmin=0, vmax=float(np.max([p[2].max() for p in panels])))
        ax.set_xticks(range(len(tokens)), tokens, rotation=45, ha="right")
        ax.set_yticks(range(len(tokens)), tokens)
        ax.set_xlabel("key (attended to)")
        ax.set_ylabel("query (attending)")
        ax.set_title(title)
        for i in range(w.shape[0]):
            for j in range(w.shape[1]):
                ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center", fontsize=8,
                        color="black" if w[i, j] > 0.6 * w.max() else "white")
    fig.colorbar(im, ax=list(axes), label="attention weight", shrink=0.8)


def highlighted_heatmap(fig: Figure, tokens: Sequence[str], weights: np.ndarray,
                        rows: Sequence[int] = (), cols: Sequence[int] = (), *,
                        title: str = "") -> None:
    """One heatmap of attention weights with some query rows and key columns outlined.

    Rows are queries, columns keys, both labelled ``token (position)``; every cell is annotated
    with its weight (2 decimals). The rows in ``rows`` get a thick solid outline (Okabe–Ito
    orange, ``OKABE_ITO[1]``), the columns in ``cols`` a dashed one (Okabe–Ito bluish green,
    ``OKABE_ITO[2]``), so that equal rows or columns can be compared at a glance.
    """
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape != (len(tokens), len(tokens)):
        raise ValueError(f"weights must have shape ({len(tokens)}, {len(tokens)}) for "
                         f"{len(tokens)} tokens, got {w.shape}")
    for name, idx in (("rows", rows), ("cols", cols)):
        bad = [i for i in idx if not 0 <= i < len(tokens)]
        if bad:
            raise ValueError(f"{name} must be indices 0 to {len(tokens) - 1}, got {list(idx)}")
    ax = fig.subplots()
    im = ax.imshow(w, cmap=SEQUENTIAL, vmin=0, vmax=float(w.max()))
    labels = [f"{t} ({i})" for i, t in enumerate(tokens)]
    ax.set_xticks(range(len(tokens)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(tokens)), labels)
    ax.set_xlabel("key (attended to), with its position")
    ax.set_ylabel("query (attending)")
    if title:
        ax.set_title(title)
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center", fontsize=8,
                    color="black" if w[i, j] > 0.6 * w.max() else "white")
    n = len(tokens)
    for i in rows:
        ax.add_patch(Rectangle((-0.5, i - 0.5), n, 1, fill=False, edgecolor=OKABE_ITO[1],
                               linewidth=2.8, zorder=4, clip_on=False))
    for j in cols:
        ax.add_patch(Rectangle((j - 0.5, -0.5), 1, n, fill=False, edgecolor=OKABE_ITO[2],
                               linewidth=1.8, linestyle="--", zorder=3, clip_on=False))
    fig.colorbar(im, ax=ax, label="attention weight", shrink=0.85)


def word_plus_position(fig: Figure, tokens: Sequence[str], word_vectors: np.ndarray,
                       position_vectors: np.ndarray, *, rows: Sequence[int] = (),
                       limit: float | None = None,
                       titles: Sequence[str] = ("word vector $e$", "position vector PE(pos)/√d",
                                                "model input $x$")) -> None:
    """The input of the first layer as a sum of pictures: word vectors + position vectors = input.

    Three heatmaps side by side, one row per token (labelled ``token (position)``), one column
    per dimension, on one shared diverging colour scale (blue negative, red positive, white 0)
    from ``-limit`` to ``limit`` (default: the largest absolute entry of the three). The rows in
    ``rows`` (e.g. two copies of one word) are outlined in every panel; ``titles`` names the three
    panels.
    """
    e = np.asarray(word_vectors, dtype=float)
    p = np.asarray(position_vectors, dtype=float)
    if e.ndim != 2 or e.shape != p.shape or len(e) != len(tokens):
        raise ValueError(f"word_vectors and position_vectors must both have shape "
                         f"({len(tokens)}, d), got {e.shape} and {p.shape}")
    x = e + p
    lim = float(limit) if limit is not None else float(max(np.abs(m).max() for m in (e, p, x)))
    if not lim > 0:
        raise ValueError(f"limit must be positive, got {limit!r}")
    bad = [i for i in rows if not 0 <= i < len(tokens)]
    if bad:
        raise ValueError(f"rows must be indices 0 to {len(tokens) - 1}, got {list(rows)}")
    axes = fig.subplots(1, 3, sharey=True)
    labels = [f"{t} ({i})" for i, t in enumerate(tokens)]
    if len(titles) != 3:
        raise ValueError(f"titles must hold 3 panel titles, got {len(titles)}")
    for k, (ax, m, title) in enumerate(zip(axes, (e, p, x), titles)):
        im = ax.imshow(m, cmap=DIVERGING, vmin=-lim, vmax=lim, aspect="auto")
        ax.set_title(title)
        ax.set_xlabel("dimension")
        ax.set_xticks(range(0, m.shape[1], 5))
        if k == 0:
            ax.set_yticks(range(len(tokens)), labels)
        for i in rows:
            ax.add_patch(Rectangle((-0.5, i - 0.5), m.shape[1], 1, fill=False,
                                   edgecolor=OKABE_ITO[1], linewidth=2.2, zorder=4))
        if k < 2:                                     # the "+" and "=" between the panels
            ax.text(1.09, 0.5, "+" if k == 0 else "=", transform=ax.transAxes, fontsize=18,
                    ha="center", va="center")
    fig.colorbar(im, ax=list(axes), label="value", shrink=0.85)


def twin_tokens(words: Sequence[str], word: str, d: int, n: float, seed: int = 0,
                strength: float = 1.0) -> dict[str, Any]:
    r"""Attention of the first two occurrences of ``word`` with a sinusoidal encoding added.

    The head of :func:`posenc_lib.course.toy.self_attention` reads
    :math:`x_{pos} = e_{pos} + \text{strength}\cdot\mathrm{PE}(pos)/\sqrt d`. Divided by
    :math:`\sqrt d`, the encoding has norm :math:`1/\sqrt 2` for every ``d`` (the toy word
    vectors have norm about 1); ``strength=0`` means no encoding. Returns the two weight rows,
    the two output rows, the relative difference :math:`\|o_a - o_b\| / \|o_a\|` of the
    outputs and the largest difference between the two weight rows.
    """
    idx = [i for i, w in enumerate(words) if w == word]
    if len(idx) < 2:
        raise ValueError(f"word {word!r} must occur at least twice in words, got {list(words)}")
    a, b = idx[:2]
    pe = strength * encodings.sinusoidal(len(words), d, n) / np.sqrt(d)
    out, w = toy.self_attention(words, d, seed, encoding=pe)
    return {
        "index": (a, b),
        "weights": (w[a], w[b]),
        "outputs": (out[a], out[b]),
        "rel_diff": float(np.linalg.norm(out[a] - out[b]) / np.linalg.norm(out[a])),
        "max_weight_diff": float(np.max(np.abs(w[a] - w[b]))),
    }


STRENGTHS = (0.0, 0.25, 0.5, 1.0, 2.0)
"""The strengths the static explorer offers (its slider runs from 0 to 2)."""


def twin_tokens_explorer(words: Sequence[str] = tuple("the brown dog chased the black dog".split()),
                         word: str = "dog", d: int = 16) -> Explorer:
    """Explorer: the two "dog" queries' attention rows with a sinusoidal encoding added.

    Sliders: the encoding's ``strength`` (0 = no encoding) and its base ``n``. The head and the
    word vectors (dimension ``d``) stay the same, so only the encoding changes.
    """
    words = tuple(words)

    def plot(fig: Figure, strength: float, n: float) -> Callable[..., list]:
        ax = fig.subplots()
        x = np.arange(len(words))
        width = 0.38
        r = twin_tokens(words, word, d, n, strength=strength)
        a, b = r["index"]
        bars_a = ax.bar(x - width / 2, r["weights"][0], width, color=OKABE_ITO[0],
                        label=f"query: {word} at position {a}")
        bars_b = ax.bar(x + width / 2, r["weights"][1], width, color=OKABE_ITO[1], hatch="//",
                        edgecolor="white", label=f"query: {word} at position {b}")
        ax.set_xticks(x, [f"{w}\n({i})" for i, w in enumerate(words)])
        ax.set_ylabel("attention weight")
        ax.set_xlabel("key (position)")
        ax.set_ylim(0, 1)            # weights never exceed 1: no bar is ever clipped
        ax.grid(True, axis="y")
        ax.legend(loc="upper right")   # the right-hand keys stay below 0.3 for every setting
        title = ax.set_title("")

        def update(strength: float, n: float) -> list:
            r = twin_tokens(words, word, d, n, strength=strength)
            for bar, h in zip(bars_a, r["weights"][0]):
                bar.set_height(h)
            for bar, h in zip(bars_b, r["weights"][1]):
                bar.set_height(h)
            title.set_text(f"strength {strength:g}, n = {n:g}: the outputs of the two "
                           f"'{word}' tokens differ by {100 * r['rel_diff']:.1f}%")
            return [*bars_a, *bars_b, title]  # only these change: the explorer can blit

        update(strength, n)
        return update

    def alt(strength: float, n: float) -> str:
        r = twin_tokens(words, word, d, n, strength=strength)
        a, b = r["index"]
        head = (f"Bar chart: attention weights of the two '{word}' queries (positions {a} and "
                f"{b}) over the {len(words)} keys of '{' '.join(words)}', with a sinusoidal "
                f"encoding of strength {strength:g} and base n={n:g} added (d={d}). ")
        if r["max_weight_diff"] < 1e-12:
            return head + "The two bars of every key are equal: the two tokens cannot be told apart."
        return head + (f"The two bars of a key differ by at most {r['max_weight_diff']:.3f}; "
                       f"the two outputs differ by {100 * r['rel_diff']:.1f}%.")

    return explore(
        plot,
        float_param("strength", "strength", 0.0, 2.0, 1.0, STRENGTHS, step=0.05,
                    description="size of the added encoding (0 = none)"),
        base_param(),
        title=f"Two '{word}' tokens, now with a sinusoidal position encoding",
        alt=alt,
        figsize=(7.0, 3.4),
    )
