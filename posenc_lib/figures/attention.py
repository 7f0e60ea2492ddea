"""Figures for chapter 1: attention without and with positions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .. import encodings, toy
from ..explorer import Explorer, base_param, dim_param, explore
from ..plotting import OKABE_ITO, SEQUENTIAL

__all__ = ["attention_heatmaps", "twin_tokens", "twin_tokens_explorer"]


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


def twin_tokens(words: Sequence[str], word: str, d: int, n: float, seed: int = 0,
                scale: float = 1.0) -> dict[str, Any]:
    """Attention of the first two occurrences of ``word`` with a sinusoidal encoding added.

    ``scale=0`` means no encoding. Returns the two weight rows, the two output rows, and the
    relative difference :math:`\\|o_a - o_b\\| / \\|o_a\\|` of the outputs.
    """
    idx = [i for i, w in enumerate(words) if w == word]
    if len(idx) < 2:
        raise ValueError(f"word {word!r} must occur at least twice in words, got {list(words)}")
    a, b = idx[:2]
    pe = scale * encodings.sinusoidal(len(words), d, n) / np.sqrt(d)
    out, w = toy.self_attention(words, d, seed, encoding=pe)
    return {
        "index": (a, b),
        "weights": (w[a], w[b]),
        "outputs": (out[a], out[b]),
        "rel_diff": float(np.linalg.norm(out[a] - out[b]) / np.linalg.norm(out[a])),
    }


def twin_tokens_explorer(words: Sequence[str] = tuple("the brown dog chased the black dog".split()),
                         word: str = "dog") -> Explorer:
    """Explorer: the two "dog" queries' attention rows, with a sinusoidal encoding of (d, n)."""
    words = tuple(words)

    def plot(fig: Figure, d: int, n: float) -> Callable[..., list]:
        ax = fig.subplots()
        x = np.arange(len(words))
        width = 0.38
        r = twin_tokens(words, word, d, n)
        a, b = r["index"]
        bars_a = ax.bar(x - width / 2, r["weights"][0], width, color=OKABE_ITO[0],
                        label=f"query: {word} at position {a}")
        bars_b = ax.bar(x + width / 2, r["weights"][1], width, color=OKABE_ITO[1], hatch="//",
                        edgecolor="white", label=f"query: {word} at position {b}")
        ax.set_xticks(x, [f"{w}\n({i})" for i, w in enumerate(words)])
        ax.set_ylabel("attention weight")
        ax.set_xlabel("key (position)")
        ax.set_ylim(0, 0.7)
        ax.grid(True, axis="y")
        ax.legend(loc="upper left")
        title = ax.set_title("")

        def update(d: int, n: float) -> list:
            r = twin_tokens(words, word, d, n)
            for bar, h in zip(bars_a, r["weights"][0]):
                bar.set_height(h)
            for bar, h in zip(bars_b, r["weights"][1]):
                bar.set_height(h)
            title.set_text(f"d = {d}, n = {n:g}: outputs of the two '{word}' tokens differ by "
                           f"{100 * r['rel_diff']:.1f}%")
            return [*bars_a, *bars_b, title]  # only these change: the explorer can blit

        update(d, n)
        return update

    return explore(
        plot, dim_param(default=16, grid=(4, 8, 16, 32, 64, 128)), base_param(),
        title=f"Two '{word}' tokens, now with a sinusoidal position encoding",
        alt=(lambda d, n: f"Bar chart: attention weights of the two '{word}' queries over the "
             f"{len(words)} keys of '{' '.join(words)}', with a sinusoidal encoding of dimension "
             f"d={d} and base n={n:g} added; the two bars of each key now differ."),
        figsize=(7.0, 3.4),
    )
