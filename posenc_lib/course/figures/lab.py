"""Figures for chapter 10: trained lab models, their accuracies and where their attention goes.

Every scheme has one colour, one marker and one line style everywhere (:data:`SCHEME_STYLE`),
so each plot reads without colour too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import PowerNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, NullLocator

from ... import lab
from ...display.explorer import Explorer, Param, choice_param, explore
from ...display.plotting import OKABE_ITO, SEQUENTIAL, fixed_axes
from ...lab import extrapolation, schemes

__all__ = [
    "SCHEME_LABEL",
    "SCHEME_STYLE",
    "log2_axis",
    "scheme_style",
    "accuracy_by_position_plot",
    "accuracy_vs_length",
    "attention_map_grid",
    "copy_offsets_plot",
    "extrapolation_explorer",
    "order_accuracy_bars",
]

#: colour, marker, line style per scheme, from :data:`posenc_lib.lab.schemes.REGISTRY` (Okabe–Ito
#: colours; markers and dashes for greyscale).
SCHEME_STYLE: dict[str, tuple[str, str, Any]] = {
    s.name: (s.colour, s.marker, s.linestyle) for s in schemes.REGISTRY.values()}
#: How the book names each scheme in legends.
SCHEME_LABEL: dict[str, str] = {s.name: s.label for s in schemes.REGISTRY.values()}
_ATTN_NORM: dict[str, Any] = dict(gamma=0.5, vmin=0.0, vmax=1.0)  # square-root colour scale: faint mass shows


def scheme_style(scheme: str) -> dict[str, Any]:
    colour, marker, ls = SCHEME_STYLE[scheme]
    return {"color": colour, "marker": marker, "ls": ls, "label": SCHEME_LABEL[scheme]}


def log2_axis(ax: Axes, lengths: Sequence[float]) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(list(lengths)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(n) for n in lengths])


def _bar_values(r: extrapolation.SweepResult | extrapolation.SeedSweep, scheme: str
                ) -> tuple[float, float | None, float | None]:
    """Height (the mean over seeds, or the one accuracy) and the lowest and highest seed."""
    if isinstance(r, extrapolation.SeedSweep):
        return r.mean[scheme][0], r.low[scheme][0], r.high[scheme][0]
    return r.accuracy[scheme][0], None, None


def order_accuracy_bars(fig: Figure,
                        plain: extrapolation.SweepResult | extrapolation.SeedSweep,
                        bos: extrapolation.SweepResult | extrapolation.SeedSweep,
                        band: tuple[float, float]) -> dict[str, tuple[float, float]]:
    """Grouped bars: order-task accuracy per scheme without and with a start token (BOS).

    ``band`` (from :func:`~posenc_lib.lab.extrapolation.chance_band`) is shaded: a bar inside it is
    no better than a coin flip. For a :class:`~posenc_lib.lab.extrapolation.SeedSweep` a bar is the
    mean over the seeds and a black line spans the lowest to the highest seed. Returns
    ``{scheme: (plain, bos)}``, the plotted bar heights.
    """
    if plain.positions != bos.positions:
        raise ValueError(f"plain and bos must cover the same schemes, got {plain.positions} "
                         f"and {bos.positions}")
    ax = fig.subplots()
    x = np.arange(len(plain.positions))
    width = 0.38
    out = {}
    ax.axhspan(band[0], band[1], color="#dddddd", lw=0, zorder=0,
               label=f"chance band ({band[0]:.2f}–{band[1]:.2f})")
    ax.axhline(0.5, color="black", ls=":", lw=1)
    ranged = False
    for s, p in enumerate(plain.positions):
        (a, a_lo, a_hi), (b, b_lo, b_hi) = _bar_values(plain, p), _bar_values(bos, p)
        out[p] = (a, b)
        bars = ax.bar([s - width / 2, s + width / 2], [a, b], width,
                      color=[OKABE_ITO[0], OKABE_ITO[1]], hatch=["", "//"], edgecolor="white",
                      label=None)
        for xc, lo, hi in ((s - width / 2, a_lo, a_hi), (s + width / 2, b_lo, b_hi)):
            if lo is not None and hi is not None:
                ax.plot([xc, xc], [lo, hi], color="black", lw=1.5, marker="_", ms=6)
                ranged = True
        if a_lo is None and b_lo is None:
            ax.bar_label(bars, labels=[f"{a:.2f}", f"{b:.2f}"], fontsize=7, padding=1)
        else:  # the range lines reach above the bars: write the value inside, near the base
            for bar, v in zip(bars, (a, b)):
                ax.text(bar.get_x() + bar.get_width() / 2, 0.03, f"{v:.2f}", ha="center",
                        va="bottom", fontsize=6.5, color="black",
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
    # legend proxies for the two bar kinds
    ax.bar([0], [0], color=OKABE_ITO[0], label="plain sequences")
    ax.bar([0], [0], color=OKABE_ITO[1], hatch="//", edgecolor="white",
           label="with a start token (BOS)")
    if ranged:
        ax.plot([], [], color="black", lw=1.5, marker="_", ms=6,
                label="lowest to highest seed (bar: mean)")
    ax.set_xticks(x, [SCHEME_LABEL[p] for p in plain.positions])
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("accuracy")
    ax.grid(True, axis="y")
    ax.legend(loc="upper center", ncol=2, fontsize=8, bbox_to_anchor=(0.5, -0.1))
    ax.set_title(f"Does A come before B? Bidirectional model, length {plain.train_length}")
    return out


def accuracy_vs_length(fig: Figure, sweep: extrapolation.SweepResult,
                       chance: float | None = None,
                       spread: extrapolation.SeedSweep | None = None) -> None:
    """Accuracy against test length (log-2 axis), one line per scheme; unseen lengths shaded.

    A scheme that cannot run at a length (``nan``) simply has no point there; ``chance`` draws
    the level of a model that guesses. ``spread`` (same lengths) adds, for each of its schemes,
    a pale band from the lowest to the highest seed.
    """
    ax = fig.subplots()
    lengths = sweep.lengths
    if spread is not None:
        if spread.lengths != lengths:
            raise ValueError(f"spread must have the lengths of sweep, {lengths}, got "
                             f"{spread.lengths}")
        for p in spread.positions:
            ax.fill_between(lengths, spread.low[p], spread.high[p], color=SCHEME_STYLE[p][0],
                            alpha=0.25, lw=0, zorder=1)
        seeds = ", ".join(str(s) for s in spread.seeds)
        ax.fill_between([], [], [], color="#999999", alpha=0.4, lw=0,
                        label=f"range over seeds {seeds}")
    for p in sweep.positions:
        acc = np.array(sweep.accuracy[p], dtype=float)
        style = scheme_style(p)
        if np.isnan(acc).any():  # a scheme that cannot run everywhere: a big hollow marker on top
            runs = [n for n, a in zip(lengths, acc) if not np.isnan(a)]
            style["label"] = f"{style['label']} (n/a past {max(runs)})" if runs else \
                f"{style['label']} (n/a)"
            ax.plot(lengths, acc, ms=13, lw=1.8, mfc="none", mew=2, zorder=5, **style)
        else:
            ax.plot(lengths, acc, ms=7, lw=1.8, **style)
    if len(lengths) > 1 and lengths[-1] > sweep.train_length:
        ax.axvspan(sweep.train_length * 1.05, lengths[-1] * 1.15, color="#eeeeee", lw=0,
                   zorder=0)
        ax.text(sweep.train_length * 1.1, 0.5, "longer than\nany training\nsequence",
                fontsize=8, color="#555555", va="center")
    if chance is not None:
        ax.axhline(chance, color="black", lw=1, ls=(0, (1, 3)))
        ax.text(lengths[-1] * 1.12, chance + 0.02, f"chance {chance:.3g}", fontsize=8,
                ha="right", va="bottom")
    log2_axis(ax, lengths)
    ax.set_xlim(lengths[0] / 1.15, lengths[-1] * 1.15)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("test length (tokens, log scale)")
    ax.set_ylabel("accuracy")
    ax.grid(True)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    task = extrapolation.TASK_LABEL.get(sweep.task, sweep.task)
    ax.set_title(f"{task[0].upper()}{task[1:]}: trained at {sweep.train_length} tokens, "
                 "tested longer")


def _binned(values: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of consecutive blocks of ``width`` positions (nan ignored): centres and means."""
    n = len(values)
    starts = np.arange(0, n, width)
    means = np.array([np.nanmean(values[s:s + width]) if np.any(np.isfinite(values[s:s + width]))
                      else np.nan for s in starts])
    return starts + (np.minimum(starts + width, n) - starts - 1) / 2, means


def accuracy_by_position_plot(fig: Figure, curves: Mapping[str, np.ndarray], train_length: int,
                              width: int = 8, chance: float | None = None) -> None:
    """Accuracy at each position of long inputs (blocks of ``width`` positions), per scheme.

    The line at ``train_length`` separates positions a causal model met in training (left:
    identical computations) from positions it never saw (right).
    """
    ax = fig.subplots()
    length = 0
    for p, acc in curves.items():
        centres, means = _binned(np.asarray(acc, dtype=float), width)
        length = max(length, len(acc))
        ax.plot(centres, means, ms=4, lw=1.5, markevery=max(1, len(centres) // 8), **scheme_style(p))
    ax.axvline(train_length - 0.5, color="black", lw=1.2)
    ax.text(train_length + 2, 1.02, f"← positions seen in training (0–{train_length - 1})",
            fontsize=8, va="bottom")
    if chance is not None:
        ax.axhline(chance, color="black", lw=1, ls=(0, (1, 3)))
    ax.set_xlim(0, length)
    ax.set_ylim(0, 1.1)
    ax.set_xlabel(f"position in a {length}-token input")
    ax.set_ylabel(f"accuracy (mean over blocks of {width})")
    ax.grid(True)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.set_title("Where the errors are: accuracy along the input")


def copy_offsets_plot(fig: Figure, profiles: Mapping[int, Mapping[str, np.ndarray]], k: int,
                      vocab_size: int) -> None:
    """Which earlier token each model outputs (:func:`~posenc_lib.lab.extrapolation.copy_offsets`).

    ``profiles[length][scheme]`` is the fraction of outputs equal to the token ``j`` back, for
    ``j = 0, 1, ...``; one panel per length. The target offset ``k`` and the chance level
    ``1/vocab_size`` are marked.
    """
    axes = fig.subplots(1, len(profiles), sharey=True, squeeze=False)[0]
    for ax, (length, by_scheme) in zip(axes, profiles.items()):
        for p, prof in by_scheme.items():
            j = np.arange(len(prof))
            ax.plot(j, prof, ms=5, lw=1.4, **scheme_style(p))
        ax.axvline(k, color="#999999", lw=6, alpha=0.3, zorder=0)
        ax.axhline(1 / vocab_size, color="black", lw=1, ls=(0, (1, 3)))
        ax.set_xticks(np.arange(len(prof)))
        ax.set_xlabel("j: output equals the token j steps back")
        ax.set_ylim(0, 1.05)
        ax.grid(True)
        ax.set_title(f"input length {length}")
    axes[0].set_ylabel("fraction of outputs")
    axes[-1].legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(f"What the models output (target: j = {k}; dotted: chance 1/{vocab_size})",
                 fontsize=10)


def _attention_panel(ax: Axes, weights: np.ndarray, train_length: int, title: str):
    img = ax.imshow(weights, cmap=SEQUENTIAL, norm=PowerNorm(**_ATTN_NORM),
                    interpolation="antialiased")
    n = weights.shape[0]
    if n > train_length:
        ax.add_patch(Rectangle((-0.5, -0.5), train_length, train_length, fill=False,
                               edgecolor=OKABE_ITO[1], lw=1.5, ls="--"))
    ticks = [0, n // 2, n - 1] if n > 8 else list(range(n))
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_title(title, fontsize=9)
    return img


def attention_map_grid(fig: Figure, maps: Sequence[Sequence[tuple[str, np.ndarray]]],
                       train_length: int) -> None:
    """Heatmaps of attention weights: ``maps[row][col] = (title, (T, T) weights)``.

    Square-root colour scale, so weak but widespread attention is visible. On maps longer than
    ``train_length`` a dashed square marks the part a model of that length ever saw.
    """
    rows, cols = len(maps), max(len(r) for r in maps)
    axes = fig.subplots(rows, cols, squeeze=False)
    img = None
    for r, row in enumerate(maps):
        for c in range(cols):
            ax = axes[r][c]
            if c >= len(row):
                ax.set_axis_off()
                continue
            title, w = row[c]
            img = _attention_panel(ax, np.asarray(w), train_length, title)
            if c == 0:
                ax.set_ylabel("query i")
            if r == rows - 1:
                ax.set_xlabel("key j")
    if img is not None:
        fig.colorbar(img, ax=axes, shrink=0.7, label="attention weight (√ scale)")


# -- explorer -----------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _explorer_frame(scheme: str, length: int, seed: int) -> dict[str, Any]:
    """What one explorer frame shows, computed once per (scheme, length)."""
    model = extrapolation.trained_model(scheme, "copy_back", seed, progress=False)
    config = model.config
    assert config is not None
    longest = config.scheme.max_length(config)
    if longest is not None and length > longest:
        return {"runs": False}
    layer, head = extrapolation.copy_head(model.params, config)
    tokens = np.random.default_rng(7).integers(0, config.vocab_size, size=(1, length))
    weights = lab.attention_maps(model.params, tokens, config)[layer][0, head]
    acc = extrapolation.accuracy_by_position(model.params, config, "copy_back", length=length,
                                             n_sequences=32)
    return {"runs": True, "layer": layer, "head": head, "weights": weights, "acc": acc,
            "mean": float(np.nanmean(acc))}


def extrapolation_explorer(seed: int = 0) -> Explorer:
    """Explorer: a trained copy-back model (scheme × test length) — attention and accuracy.

    Left: the attention map of the head that copies (largest weight 3 steps back at the
    training length) on one random input. Right: accuracy at each position of that length.
    Models are trained once per scheme (and shared with
    :func:`~posenc_lib.lab.extrapolation.length_sweep`).
    """
    train_length = lab.default_training("copy_back")["length"]
    lengths = (32, 64, 128, 256)

    def plot(fig: Figure, scheme: str, length: int) -> Callable[..., Any]:
        # Drawn once; a slider move changes the data, limits and texts of these artists. A
        # fixed layout (not one fitted to the first frame's tick labels), so that every frame is
        # laid out alike however the reader reaches it.
        # Every frame is computed here, once (1-2 s): a slider move then only draws.
        for s, n in itertools.product(extrapolation.SCHEMES, lengths):
            _explorer_frame(s, n, seed)
        left, right = fixed_axes(fig, (0.085, 0.15, 0.30, 0.68), (0.555, 0.15, 0.43, 0.68))
        img = left.imshow(np.zeros((max(lengths), max(lengths))), cmap=SEQUENTIAL,
                          norm=PowerNorm(**_ATTN_NORM), interpolation="antialiased")
        square = left.add_patch(Rectangle((-0.5, -0.5), train_length, train_length, fill=False,
                                          edgecolor=OKABE_ITO[1], lw=1.5, ls="--"))
        left_title = left.set_title("", fontsize=9)
        left.set_xlabel("key j")
        left.set_ylabel("query i")
        bar = fig.colorbar(img, cax=fig.add_axes((0.40, 0.21, 0.014, 0.56)),
                           label="weight (√ scale)")
        curve, = right.plot([], [], ms=4)
        levels = [right.axvline(train_length - 0.5, color="black", lw=1.2),
                  right.axhline(1 / 16, color="black", lw=1, ls=(0, (1, 3)))]
        right.set_xlim(0, max(lengths))
        right.set_ylim(0, 1.08)
        right.set_xlabel("position (blocks of 8)")
        right.set_ylabel("accuracy")
        right.grid(True)
        right_title = right.set_title("", fontsize=9)
        note = fig.text(0.08, 0.5, "", ha="left", va="center", fontsize=10)
        title = fig.suptitle("", fontsize=11)

        def update(scheme: str, length: int) -> list[Artist] | None:
            frame = _explorer_frame(scheme, length, seed)
            runs = bool(frame["runs"])
            for ax in (left, right, bar.ax):
                ax.set_visible(runs)
            note.set_visible(not runs)
            if not runs:
                note.set_text(f"learned positions: the table has {train_length} rows.\n"
                              f"There is no position vector for positions "
                              f"{train_length}–{length - 1},\n"
                              "so the model cannot even run on this input.")
                title.set_text(f"{SCHEME_LABEL[scheme]} at length {length}: cannot run")
                return None   # panels hidden: the explorer draws the whole figure
            w = np.asarray(frame["weights"])
            n = w.shape[0]
            img.set_data(w)
            img.set_extent((-0.5, n - 0.5, n - 0.5, -0.5))
            left.set_xlim(-0.5, n - 0.5)
            left.set_ylim(n - 0.5, -0.5)
            square.set_visible(n > train_length)
            ticks = [0, n // 2, n - 1] if n > 8 else list(range(n))
            left.set_xticks(ticks)
            left.set_yticks(ticks)
            left_title.set_text(f"layer {frame['layer'] + 1}, head {frame['head'] + 1} "
                                "(most weight 3 back)")
            centres, means = _binned(np.asarray(frame["acc"]), 8)
            colour, marker, ls = SCHEME_STYLE[scheme]
            curve.set_data(centres, means)
            curve.set(color=colour, marker=marker, linestyle=ls)
            right_title.set_text(f"mean accuracy {frame['mean']:.2f}")
            title.set_text(f"{SCHEME_LABEL[scheme]}, trained at {train_length}, "
                           f"tested at {length}")
            # what changes; the colour bar and the right panel's axes stay in the background
            return [img, square, left.xaxis, left.yaxis, left_title, curve, *levels,
                    right_title, title]

        update(scheme, length)
        return update

    def alt(scheme: str, length: int) -> str:
        if schemes.get(scheme).has_max_length and length > train_length:
            return (f"Text only: a learned-position model trained at {train_length} tokens has no "
                    f"position vectors beyond them and cannot run on {length} tokens.")
        frame = _explorer_frame(scheme, length, seed)
        return (f"Left: heatmap of the attention weights of the head that attends most to the "
                f"token 3 back, in the {SCHEME_LABEL[scheme]} model trained at {train_length} "
                f"tokens, on a random "
                f"{length}-token input, square-root colour scale; a dashed square marks the "
                f"first {train_length} positions. Right: accuracy along the input in blocks of 8 "
                f"positions, mean {frame['mean']:.2f}, with a vertical line at the training "
                "length and a dotted line at chance, 1/16.")

    return explore(
        plot,
        Param("scheme", "scheme", "choice", "rope", extrapolation.SCHEMES,
              fmt=lambda s: SCHEME_LABEL[s], description="position scheme"),
        choice_param("length", "test length", lengths, 128,
                     description="tokens in the test input"),
        title="A trained model on inputs longer than its training: attention and accuracy",
        alt=alt, figsize=(7.6, 3.4),
    )
