"""Figures for chapter 10b: language models on real text, tested longer than they were trained.

Schemes keep their colour, marker and line style from :data:`posenc_lib.lab.schemes.REGISTRY`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from ...display.explorer import Explorer, Param, choice_param, explore
from ...display.plotting import fixed_axes
from ...lab import schemes, textlm
from .lab import SCHEME_LABEL, SCHEME_STYLE, log2_axis, scheme_style

__all__ = [
    "PAPER_L512",
    "length_axis",
    "loss_explorer",
    "passkey_plot",
    "perplexity_curves",
    "relative_to_paper",
]

#: WikiText-103 validation perplexity of the models trained on L = 512 tokens, at inference
#: lengths 512, 1012, 2512, 4512 and 8512 tokens (Press, Smith & Lewis 2022, appendix Table 2;
#: non-overlapping evaluation). Rotary is the paper's name for RoPE.
PAPER_L512: dict[str, Any] = {
    "lengths": (512, 1012, 2512, 4512, 8512),
    "sinusoidal": (20.05, 43.54, 132.41, 209.37, 305.65),
    "rope": (20.07, 21.37, 31.58, 39.15, 54.98),
    "t5": (19.65, 18.79, 20.41, 25.91, 43.08),
    "alibi": (19.73, 18.73, 18.41, 18.41, 18.34),
}


def length_axis(ax: Axes, lengths: Sequence[float], labels: Sequence[str] | None = None) -> None:
    """Chapter 10's log-2 x axis (ticks exactly at ``lengths``), with optional tick ``labels``
    and a margin on both sides."""
    log2_axis(ax, lengths)
    if labels is not None:
        ax.set_xticklabels(list(labels))
    ax.set_xlim(min(lengths) / 1.2, max(lengths) * 1.2)


def _log_y(ax: Axes, ticks: Sequence[float]) -> None:
    """A log y axis labelled with plain numbers at ``ticks``."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(FixedLocator(list(ticks)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def _seed_values(curves: Mapping[str, Any], scheme: str, protocol: str) -> np.ndarray:
    """(seeds, lengths) perplexities of one scheme."""
    return np.array([run[protocol] for run in curves["schemes"][scheme]], dtype=float)


def perplexity_curves(fig: Figure, curves: Mapping[str, Any],
                      protocols: Sequence[str] = ("nonoverlapping", "sliding"),
                      ymax: float = 40.0) -> dict[str, dict[str, np.ndarray]]:
    """Test perplexity against inference length, one panel per protocol, one line per scheme.

    A line is the median of the seeds, the pale band spans the lowest to the highest seed.
    Perplexities above ``ymax`` are drawn at the top edge with an arrow (the value is in the
    alt text and the table). Returns ``{protocol: {scheme: median per length}}``.
    """
    lengths = curves["lengths"]
    train = lengths[0]
    axes = fig.subplots(1, len(protocols), sharey=True, squeeze=False)[0]
    out: dict[str, dict[str, np.ndarray]] = {}
    titles = {"nonoverlapping": "non-overlapping windows",
              "sliding": f"sliding window, stride {train}"}
    for ax, protocol in zip(axes, protocols):
        out[protocol] = {}
        for p in schemes.NAMES:
            v = _seed_values(curves, p, protocol)
            med = np.median(v, axis=0)
            out[protocol][p] = med
            colour = SCHEME_STYLE[p][0]
            ax.fill_between(lengths, np.minimum(v.min(0), ymax), np.minimum(v.max(0), ymax),
                            color=colour, alpha=0.2, lw=0)
            ax.plot(lengths, np.minimum(med, ymax), ms=5, lw=1.6, **scheme_style(p))
            for n, m in zip(lengths, med):
                if m > ymax:
                    ax.annotate("", (n, ymax), (n, ymax * 0.9),
                                arrowprops=dict(arrowstyle="->", color=colour, lw=1.2))
        ax.axvspan(train * 1.08, lengths[-1] * 1.2, color="#eeeeee", lw=0, zorder=0)
        length_axis(ax, lengths)
        _log_y(ax, [t for t in (5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 60, 80) if t <= ymax])
        ax.set_ylim(None, ymax * 1.02)
        ax.set_xlabel("inference length (characters, log scale)")
        ax.grid(True, which="both", alpha=0.5)
        ax.set_title(titles.get(protocol, protocol), fontsize=10)
    axes[0].set_ylabel("test perplexity per character (log)")
    axes[-1].legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.suptitle(f"Trained on {train} characters, read longer (line: median of 3 seeds; "
                 "band: lowest to highest)", fontsize=10)
    return out


def relative_to_paper(fig: Figure, curves: Mapping[str, Any],
                      paper: Mapping[str, Any] = PAPER_L512) -> None:
    """Perplexity divided by its value at the training length, against length / training
    length: our character models (median of seeds, non-overlapping) beside the paper's
    247M-parameter word-level models (:data:`PAPER_L512`)."""
    left, right = fig.subplots(1, 2, sharey=True)
    lengths = np.asarray(curves["lengths"], dtype=float)
    ratios = lengths / lengths[0]
    for p in schemes.NAMES:
        med = np.median(_seed_values(curves, p, "nonoverlapping"), axis=0)
        left.plot(ratios, med / med[0], ms=5, lw=1.6, **scheme_style(p))
    plens = np.asarray(paper["lengths"], dtype=float)
    for p in schemes.NAMES:
        if p in paper:
            v = np.asarray(paper[p], dtype=float)
            right.plot(plens / plens[0], v / v[0], ms=5, lw=1.6, **scheme_style(p))
    for ax, title in ((left, f"this chapter: characters, L = {int(lengths[0])}"),
                      (right, f"Press et al. (2022): words, L = {int(plens[0])}")):
        _log_y(ax, (0.9, 1, 1.25, 1.5, 2, 3, 4, 6, 10, 15))
        ax.axhline(1.0, color="black", lw=0.8)
        length_axis(ax, [1, 2, 4, 8, 16], ["1", "2", "4", "8", "16"])
        ax.set_xlabel("inference length / training length")
        ax.grid(True, which="both", alpha=0.5)
        ax.set_title(title, fontsize=10)
    left.set_ylabel("perplexity / perplexity at L")
    left.legend(fontsize=7, loc="upper left")


def passkey_plot(fig: Figure, results: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Passkey accuracy (all digits right) against input length, one line per scheme (median of
    the seeds, band from lowest to highest seed). Returns the medians."""
    ax = fig.subplots()
    lengths = results["lengths"]
    out = {}
    for p in schemes.NAMES:
        v = np.array(results["schemes"][p], dtype=float)  # (seeds, lengths)
        med = np.median(v, axis=0)
        out[p] = med
        ax.fill_between(lengths, v.min(0), v.max(0), color=SCHEME_STYLE[p][0], alpha=0.2, lw=0)
        ax.plot(lengths, med, ms=6, lw=1.6, **scheme_style(p))
    chance = 10.0 ** -results["n_digits"]
    ax.axhline(chance, color="black", lw=1, ls=(0, (1, 3)))
    ax.axvspan(lengths[0] * 1.08, lengths[-1] * 1.2, color="#eeeeee", lw=0, zorder=0)
    length_axis(ax, lengths)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("input length (characters, log scale)")
    ax.set_ylabel("passkey found (share of inputs)")
    ax.grid(True, alpha=0.5)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    ax.set_title(f"Passkey retrieval: trained at {lengths[0]}, tested longer", fontsize=10)
    return out


def loss_explorer() -> Explorer:
    """Explorer: loss along the input for one scheme (seed 0) at one inference length.

    The loss of each character, averaged over the non-overlapping test windows and over blocks
    of 8 positions; a vertical line marks the training length. The grey line is the same model
    at the training length, for reference.
    """
    curves = textlm.length_curves()
    lengths = tuple(curves["lengths"])
    train = lengths[0]
    top = max(max(max(v) for v in run[0]["position_loss"].values())
              for run in curves["schemes"].values())
    ymax = float(min(6.0, np.ceil(top)))

    def plot(fig: Figure, scheme: str, length: int) -> Callable[..., list[Artist]]:
        ax, = fixed_axes(fig, (0.085, 0.155, 0.9, 0.745))
        centres = np.arange(max(lengths) // 8) * 8 + 3.5
        reference, = ax.plot([], [], color="#999999", lw=3, label=f"read at {train}")
        line, = ax.plot([], [], lw=1.6, ms=3)
        wall = ax.axvline(train, color="black", lw=1.2)
        ax.set_xlim(0, max(lengths))
        ax.set_ylim(0.8, ymax)
        ax.set_xlabel("position in the window (blocks of 8 characters)")
        ax.set_ylabel("loss (nats per character)")
        ax.grid(True, alpha=0.5)
        title = ax.set_title("", fontsize=10)
        line.set(**scheme_style(scheme))
        legend = ax.legend(loc="upper right", fontsize=8)

        def update(scheme: str, length: int) -> list[Artist]:
            run = curves["schemes"][scheme][0]
            loss = np.asarray(run["position_loss"][str(length)])
            base = np.asarray(run["position_loss"][str(train)])
            reference.set_data(centres[:len(base)], base)
            line.set_data(centres[:len(loss)], np.minimum(loss, ymax))
            style = scheme_style(scheme)
            line.set(markevery=max(1, len(loss) // 16), **style)
            # the legend's entry for the scheme follows its line (one legend, changed in place,
            # so the saved background stays valid from one move to the next)
            legend.get_texts()[1].set_text(style.pop("label"))
            handle = legend.legend_handles[1]
            assert handle is not None
            handle.set(**style)
            title.set_text(f"{SCHEME_LABEL[scheme]} (seed 0), windows of {length}: perplexity "
                           f"{run['nonoverlapping'][lengths.index(length)]:.2f}")
            # and the legend; the axes never move. The training-length line is redrawn over
            # the curves, as a full draw does
            return [reference, line, wall, title]

        update(scheme, length)
        return update

    def alt(scheme: str, length: int) -> str:
        run = curves["schemes"][scheme][0]
        loss = np.asarray(run["position_loss"][str(length)])
        inside, beyond = loss[: train // 8].mean(), loss[train // 8:]
        tail = (f"; beyond it the mean is {beyond.mean():.2f} nats, the last block "
                f"{beyond[-1]:.2f}") if beyond.size else ""
        return (f"Line chart of the loss per character along {length}-character windows for "
                f"the {SCHEME_LABEL[scheme]} model, in blocks of 8 positions, with a vertical line "
                f"at the training length {train} and a grey line for windows of {train}. Mean loss "
                f"on positions 0-{train - 1}: {inside:.2f} nats{tail}.")

    return explore(
        plot,
        Param("scheme", "scheme", "choice", "alibi", schemes.NAMES,
              fmt=lambda s: SCHEME_LABEL[s], description="position scheme"),
        choice_param("length", "window", lengths, lengths[2],
                     description="inference length (characters)"),
        title="Where in a long window does each model lose track?",
        alt=alt, figsize=(7.2, 3.2),
    )
