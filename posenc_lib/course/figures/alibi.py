"""Figures for chapter 9: ALiBi's bias, the exponential decay it causes, and per-head slopes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.artist import Artist
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, NullLocator

from ...display.explorer import Explorer, choice_param, explore, int_param, slope_param
from ...display.plotting import OKABE_ITO, SEQUENTIAL
from ...maths import alibi

__all__ = [
    "alibi_explorer",
    "exponential_not_linear",
    "extrapolation_profile",
    "head_slopes_explorer",
    "last_row_bars",
    "sign_comparison",
    "slope_rules",
]

_BIAS_FLOOR = 4.0  # colour scale of the bias heatmap: [-4, 0]
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINESTYLES = ("-", "--", ":", "-.")


def _slope_text(m: float) -> str:
    inv = 1.0 / m if m else float("inf")
    if m > 0 and abs(inv - round(inv)) < 1e-9 and inv >= 2:
        return f"1/{inv:.0f}"
    return f"{m:.3g}"


def exponential_not_linear(fig: Figure, slope: float = 0.125, seq_len: int = 24) -> None:
    """ALiBi's real weight profile next to a "linear decay", on a linear and on a log axis.

    Both panels plot the weights of the last query of a causal sequence against distance.
    On the log axis ALiBi's weights lie on a straight line of slope :math:`-m` (natural log), the
    signature of exponential decay; the linear-decay curve bends and hits zero at :math:`1/m`.
    """
    k = np.arange(seq_len)
    exp_w = alibi.distance_profile(seq_len, slope, kind="exponential")
    lin_w = alibi.distance_profile(seq_len, slope, kind="linear")
    axes = fig.subplots(1, 2)
    for ax, log in zip(axes, (False, True)):
        ax.plot(k, exp_w, marker="o", ms=4, color=OKABE_ITO[0], ls="-",
                label="ALiBi: softmax of −m·dist")
        lin_plot = np.where(lin_w > 0, lin_w, np.nan) if log else lin_w
        ax.plot(k, lin_plot, marker="s", ms=4, color=OKABE_ITO[1], ls="--",
                label="a linear decay (not ALiBi)")
        ax.set_xlabel("distance to the query |i − j|")
        ax.grid(True)
        if log:
            ax.set_yscale("log")
            ax.set_ylim(float(exp_w.min()) / 3, 0.5)
            ax.set_title("log axis: ALiBi is a straight line")
        else:
            ax.set_ylim(0, 1.15 * float(max(exp_w.max(), lin_w.max())))
            ax.set_title("linear axis: both fall")
    axes[0].set_ylabel("attention weight")
    axes[0].legend(loc="upper right")
    fig.suptitle(f"Last query of {seq_len} tokens, slope m = {_slope_text(slope)}, equal content "
                 "scores", fontsize=10)


def last_row_bars(fig: Figure, seq_len: int = 5, slopes: Sequence[float] = (0.5, 0.1)
                        ) -> dict[float, np.ndarray]:
    """Grouped bars: the last token's weights over the keys for each slope (equal content).

    Returns the weights per slope, so the chapter can print the same numbers it plots.
    """
    ax = fig.subplots()
    j = np.arange(seq_len)
    width = 0.8 / len(slopes)
    out = {}
    hatches = ("", "//", "..", "xx")
    for s, m in enumerate(slopes):
        w = alibi.weights(seq_len, m, causal=True)[-1]
        out[m] = w
        bars = ax.bar(j + (s - (len(slopes) - 1) / 2) * width, w, width,
                      color=OKABE_ITO[s], hatch=hatches[s % len(hatches)], edgecolor="white",
                      label=f"m = {m:g}")
        ax.bar_label(bars, labels=[f"{v:.3f}" for v in w], fontsize=7, padding=1)
    ax.axhline(1 / seq_len, color="black", ls=":", lw=1,
               label=f"m = 0 (no position): 1/{seq_len}")
    ax.set_xticks(j, [f"key {jj}\n(dist {seq_len - 1 - jj})" for jj in j])
    ax.set_ylabel("attention weight")
    ax.set_ylim(0, 0.5)
    ax.grid(True, axis="y")
    ax.legend(loc="upper left")
    ax.set_title(f"Weights of the last token (position {seq_len - 1}), equal content scores")
    return out


def sign_comparison(fig: Figure, seq_len: int = 8, slope: float = 0.5) -> dict[str, np.ndarray]:
    """Last-query weights when the penalty is subtracted (ALiBi), absent (m = 0) or added."""
    ax = fig.subplots()
    j = np.arange(seq_len)
    cases = {
        f"subtract m·dist (ALiBi, m = {slope:g})": slope,
        "m = 0: no position at all": 0.0,
        f"add m·dist (m = −{slope:g})": -slope,
    }
    width = 0.27
    out = {}
    for s, (label, m) in enumerate(cases.items()):
        w = alibi.weights(seq_len, m, causal=True)[-1]
        out[label] = w
        ax.bar(j + (s - 1) * width, w, width, color=OKABE_ITO[(0, 7, 3)[s]],
               hatch=("", "..", "//")[s], edgecolor="white", label=label)
    ax.set_xticks(j, [f"{jj}" for jj in j])
    ax.set_xlabel(f"key position j (the query is position {seq_len - 1})")
    ax.set_ylabel("attention weight")
    ax.set_ylim(0, 0.5)
    ax.grid(True, axis="y")
    ax.legend(loc="upper center")
    ax.set_title("Subtracting favours near keys; adding favours the farthest ones")
    return out


def slope_rules(fig: Figure, num_heads: int = 12) -> None:
    """Slopes per head: the naive :math:`2^{-8h/H}` against the reference rule, on a log2 axis.

    Left: in head order (what a pretrained checkpoint expects). Right: sorted, with the
    power-of-two grid :math:`2^{-1}, ..., 2^{-8}` marked, to show where the extra heads fall.
    """
    ref = alibi.slopes(num_heads)
    naive = alibi.geometric_slopes(num_heads)
    h = np.arange(1, num_heads + 1)
    left, right = fig.subplots(1, 2)
    for ax in (left, right):
        ax.set_yscale("log", base=2)
        ax.set_ylim(2 ** -8.6, 1.0)
        ax.yaxis.set_major_locator(FixedLocator([2.0 ** -k for k in range(0, 9)]))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_yticklabels(["1"] + [f"1/{2 ** k}" for k in range(1, 9)])
        ax.grid(True, axis="y")
    left.plot(h, ref, marker="o", ls="-", color=OKABE_ITO[0], label="reference rule")
    left.plot(h, naive, marker="s", ls="--", color=OKABE_ITO[1], label="naive 2^(−8h/H)")
    left.set_xlabel("head h")
    left.set_ylabel("slope m")
    left.set_xticks(h)
    left.set_title("in head order")
    left.legend(loc="lower left")
    rank = np.arange(1, num_heads + 1)
    right.plot(rank, np.sort(ref)[::-1], marker="o", ls="-", color=OKABE_ITO[0])
    right.plot(rank, np.sort(naive)[::-1], marker="s", ls="--", color=OKABE_ITO[1])
    right.set_xlabel("rank (largest slope first)")
    right.set_xticks(rank)
    right.set_title("sorted")
    fig.suptitle(f"ALiBi slopes for {num_heads} heads", fontsize=10)


def extrapolation_profile(fig: Figure, train_len: int = 64, factor: int = 4,
                          slopes: Sequence[float] = (0.5, 1 / 16, 1 / 256)
                          ) -> dict[float, float]:
    """Relative weight :math:`e^{-m\\,\\mathrm{dist}}` over distances up to ``factor·train_len``.

    The region beyond the training length is shaded: the bias there is the same straight line,
    continued, which is why ALiBi has nothing new to show the model at unseen distances.
    Returns, per slope, the distance at which its line leaves the bottom of the axis
    (``inf`` if it stays inside), so the chapter's alt text can say which lines reach the
    shaded region.
    """
    ax = fig.subplots()
    dist = np.arange(factor * train_len + 1)
    for s, m in enumerate(slopes):
        ax.plot(dist, np.exp(-m * dist), ls=_LINESTYLES[s % 4], color=OKABE_ITO[s],
                marker=_MARKERS[s], markevery=max(1, len(dist) // 8), ms=5,
                label=f"m = {_slope_text(m)}")
    ax.axvspan(train_len, dist[-1], color="#dddddd", alpha=0.6, lw=0)
    ax.text(train_len * 1.05, 2e-6, "distances never seen\nin training", fontsize=8, va="bottom")
    floor = 1e-6
    ax.set_yscale("log")
    ax.set_ylim(floor, 2)
    ax.set_xlim(0, dist[-1])
    ax.set_xlabel("distance |i − j|")
    ax.set_ylabel("weight relative to distance 0")
    ax.grid(True)
    ax.legend(loc="upper right")
    ax.set_title(f"Trained on {train_len} tokens, run on {factor * train_len}: "
                 "the same penalty, continued")
    leaves = {float(m): float(np.log(1 / floor) / m) for m in slopes}
    return {m: (d if d <= dist[-1] else float("inf")) for m, d in leaves.items()}


# -- explorers ----------------------------------------------------------------------------
def alibi_explorer(seq_len: int = 12) -> Explorer:
    """Explorer: the bias matrix -m|i-j| (left) and one query's weights (right), over m and mask."""

    def query_of(mask: str) -> int:
        return seq_len - 1 if mask == "causal" else seq_len // 2

    def plot(fig: Figure, m: float, mask: str) -> Callable[..., Any]:
        left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.25]})
        cmap = colormaps[SEQUENTIAL].with_extremes(bad="#bbbbbb")
        # A fixed colour scale, clipped at -4 (where the factor e^bias is below 2%), so the map
        # darkens as m grows and a tiny m really looks like "almost no bias".
        img = left.imshow(np.zeros((seq_len, seq_len)), cmap=cmap, vmin=-_BIAS_FLOOR, vmax=0)
        cbar = fig.colorbar(img, ax=left, shrink=0.85, extend="min")
        cbar.set_label(f"bias (clipped at −{_BIAS_FLOOR:g})")
        ticks = np.arange(0, seq_len, 2)
        left.set_xticks(ticks)
        left.set_yticks(ticks)
        left.set_xlabel("key j")
        left.set_ylabel("query i")
        row_box = Rectangle((-0.5, -0.5), seq_len, 1.0, fill=False, edgecolor=OKABE_ITO[3],
                            lw=2.2)
        left.add_patch(row_box)
        left_title = left.set_title("")

        j = np.arange(seq_len)
        bars = right.bar(j, np.zeros(seq_len), color=OKABE_ITO[0], edgecolor="white")
        uniform = right.axhline(0, color="black", ls=":", lw=1.2, label="m = 0 (uniform)")
        marker, = right.plot([], [], ls="none", marker="v", ms=9, color=OKABE_ITO[3],
                             label="the query itself")
        right.set_ylim(0, 0.75)
        right.set_xlim(-0.6, seq_len - 0.4)
        right.set_xticks(ticks)
        right.set_xlabel("key j")
        right.set_ylabel("attention weight")
        right.grid(True, axis="y")
        right.set_axisbelow(True)  # grid behind the bars, also when only the bars are redrawn
        right.legend(loc="upper left", fontsize=8)
        right_title = right.set_title("")

        def update(m: float, mask: str) -> list[Artist]:
            causal = mask == "causal"
            b = alibi.bias(seq_len, m, causal=causal)
            img.set_data(np.ma.masked_invalid(b))
            q = query_of(mask)
            row_box.set_y(q - 0.5)
            w = alibi.weights(seq_len, m, causal=causal)[q]
            for bar, h in zip(bars, w):
                bar.set_height(h)
            visible = q + 1 if causal else seq_len
            uniform.set_ydata([1 / visible, 1 / visible])
            marker.set_data([q], [min(float(w[q]) + 0.04, 0.72)])
            left_title.set_text(f"{mask} bias, m = {_slope_text(m)}\n(grey = masked)"
                                if causal else f"{mask} bias, m = {_slope_text(m)}\n"
                                "(nothing masked)")
            right_title.set_text(f"weights of query {q}: largest {w.max():.3f},\n"
                                 f"farthest key {w[0]:.2g}")
            # the artists that change: the explorer redraws only these over the rest
            return [img, *left.spines.values(), row_box, *bars, uniform, marker, left_title,
                    right_title]

        update(m, mask)
        return update

    return explore(
        plot, slope_param(default=0.25), choice_param("mask", "mask", ("causal", "symmetric")),
        title="ALiBi: the bias matrix and the attention weights it produces",
        alt=lambda m, mask: (
            f"Left: heatmap of the {mask} ALiBi bias -m|i-j| for {seq_len} tokens with slope "
            f"m={m:.3g}, zero on the diagonal and most negative in the far corner"
            + (", keys after the query greyed out as masked" if mask == "causal" else "")
            + ", the query's row outlined. Right: bar chart of the attention weights of query "
            f"{query_of(mask)} with equal "
            "content scores; the bars shrink by the factor exp(-m) per step away from the query, "
            "compared with a dotted uniform level."),
        figsize=(7.0, 3.3),
    )


def head_slopes_explorer(max_heads: int = 64) -> Explorer:
    """Explorer: per-head slopes (left) and each head's decay e^{-m·dist} (right), by rule."""
    rules = {"reference": alibi.slopes, "naive 2^(-8h/H)": alibi.geometric_slopes}
    dist = np.arange(0, 257)
    norm = Normalize(vmin=-8.5, vmax=0)  # colour = log2 of the slope
    cmap = colormaps["viridis"]

    def plot(fig: Figure, heads: int, rule: str) -> Callable[..., Any]:
        left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.3]})
        left.set_yscale("log", base=2)
        left.set_ylim(2 ** -8.8, 1.3)
        left.yaxis.set_major_locator(FixedLocator([2.0 ** -k for k in range(0, 9, 2)]))
        left.yaxis.set_minor_locator(NullLocator())
        left.set_yticklabels(["1", "1/4", "1/16", "1/64", "1/256"])
        left.set_xlabel("head h")
        left.set_ylabel("slope m")
        left.grid(True, axis="y")
        stems = left.scatter([], [], s=30, marker="o", c=[], cmap=cmap, norm=norm,
                             edgecolors="black", linewidths=0.4)
        left_title = left.set_title("")

        lines = [right.plot([], [], lw=1.2)[0] for _ in range(max_heads)]
        right.set_yscale("log")
        right.set_ylim(1e-4, 1.5)
        right.set_xlim(0, dist[-1])
        # levels and their labels: redrawn over the heads' lines on every move, as a full draw does
        levels = [right.axhline(np.exp(-1), color="black", ls=":", lw=1),
                  right.axhline(0.01, color="black", ls="-.", lw=1),
                  right.text(dist[-1], np.exp(-1) * 1.15, "1/e", ha="right", va="bottom",
                             fontsize=8),
                  right.text(dist[-1], 0.0115, "1%", ha="right", va="bottom", fontsize=8)]
        right.set_xlabel("distance |i − j|")
        right.set_ylabel("weight relative to distance 0")
        right.grid(True)
        right_title = right.set_title("")

        def update(heads: int, rule: str) -> list[Artist]:
            m = rules[rule](heads)
            h = np.arange(1, heads + 1)
            stems.set_offsets(np.column_stack([h, m]))
            stems.set_array(np.log2(m))
            left.set_xlim(0.3, heads + 0.7)
            step = max(1, int(np.ceil(heads / 8)))
            left.set_xticks(np.arange(1, heads + 1, step))
            left_title.set_text(f"{heads} heads, {rule.split()[0]} rule")
            for k, line in enumerate(lines):
                if k < heads:
                    line.set_data(dist, np.exp(-m[k] * dist))
                    line.set_color(cmap(norm(np.log2(m[k]))))
                    line.set_visible(True)
                else:
                    line.set_visible(False)
            spans = np.asarray(alibi.span(m, 0.01))
            right_title.set_text(f"1% span: {spans.min():.1f} to {spans.max():.0f} tokens")
            # only the head axis moves (with H); hidden lines are skipped when drawn
            return [stems, left.xaxis, left_title, *lines, *levels, right_title]

        update(heads, rule)
        return update

    return explore(
        plot, int_param("heads", "heads H", 1, max_heads, 12, (4, 6, 8, 12, 16, 24, 32),
                        description="number of attention heads"),
        choice_param("rule", "rule", tuple(rules)),
        title="Per-head slopes and how far each head looks",
        alt=lambda heads, rule: (
            f"Left: the ALiBi slopes of {heads} heads by the {rule} rule on a log2 axis from 1 "
            "to 1/256. Right: each head's relative weight exp(-m*dist) against distance on a "
            "log axis, one straight line per head, coloured by slope, with the 1/e and 1% levels "
            "marked."),
        figsize=(7.0, 3.3),
    )
