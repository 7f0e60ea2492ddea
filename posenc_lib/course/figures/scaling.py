"""Figures for chapter 11 (stretching RoPE): which angles training covered, how each method
stretches each pair's wavelength, Position Interpolation's score picture, and the toy model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.ticker import FixedFormatter, FixedLocator, NullLocator

from ...checks import check_choice
from ...display.explorer import Explorer, base_param, choice_param, dim_param, explore, log_param
from ...display.plotting import OKABE_ITO
from ...maths import encodings, rope, rope_scaling

__all__ = [
    "EXPLORER_METHODS",
    "angle_coverage",
    "dynamic_stretch",
    "explorer_frequencies",
    "explorer_keep_threshold",
    "lab_results",
    "pair_categories",
    "scaling_explorer",
    "score_extrapolation",
    "yarn_ramps",
]

_GREY = "#9a9a9a"
_CATEGORY_STYLE = {  # label, colour, marker: colour *and* shape tell the categories apart
    "kept": ("kept (extrapolated)", OKABE_ITO[0], "o"),
    "between": ("in between", OKABE_ITO[1], "^"),
    "interpolated": ("interpolated (× s)", OKABE_ITO[3], "s"),
}
_METHOD_STYLE = {  # method -> (label, colour, marker, linestyle)
    None: ("plain RoPE", OKABE_ITO[7], "o", "-"),
    "linear": ("linear (PI)", OKABE_ITO[3], "s", "--"),
    "ntk": ("NTK-aware", OKABE_ITO[2], "^", "-."),
    "yarn": ("YaRN", OKABE_ITO[0], "D", ":"),
}


def pair_categories(stretch: np.ndarray, factor: float, rtol: float = 1e-9) -> np.ndarray:
    """Label each pair by its wavelength stretch :math:`\\lambda'_i/\\lambda_i` (1 … s).

    ``"kept"`` if the stretch is 1 (the pair extrapolates as before), ``"interpolated"`` if it is
    the full factor :math:`s`, ``"between"`` otherwise. With :math:`s = 1` every pair is kept.
    """
    stretch = np.asarray(stretch, dtype=float)
    out = np.full(stretch.shape, "between", dtype=object)
    if factor <= 1.0:
        out[:] = "kept"
        return out
    out[stretch >= factor * (1.0 - rtol)] = "interpolated"
    out[stretch <= 1.0 + rtol] = "kept"
    return out


# -- the problem: angles seen in training --------------------------------------------------------
def _arc(ax: Axes, start: float, stop: float, radius: float, **kw) -> None:
    """Draw the angles ``start .. stop`` (radians, unwrapped) as an arc; a full circle if longer."""
    span = min(stop - start, 2 * np.pi)
    t = start + np.linspace(0.0, span, 200)
    ax.plot(radius * np.cos(t), radius * np.sin(t), **kw)


def angle_coverage(fig: Figure, pairs: Sequence[int] = (0, 44, 56), d: int = 128,
                   base: float = 10000.0, original_max_len: int = 2048,
                   factor: float = 2.0) -> None:
    """Circles of the angles :math:`pos\\,\\omega_i` each pair reaches: in training
    (:math:`pos < L`) and beyond (:math:`L \\le pos < sL`), plain (top) and with Position
    Interpolation (bottom), for a few ``pairs``.

    Solid blue arc: the angles covered by training. Dashed vermillion arc (drawn a little inside):
    the angles the offsets :math:`L \\dots sL - 1` produce. A fast pair has gone round many times,
    so nothing is new; a slow pair's dashed arc leaves the solid one: new angles.
    """
    omega = encodings.frequencies(d, base)
    lam = encodings.wavelengths(d, base)
    turns = rope_scaling.turns(d, base, original_max_len)  # L * omega_i / (2 pi)
    L, s = original_max_len, factor
    axes = fig.subplots(2, len(pairs), squeeze=False)
    for col, i in enumerate(pairs):
        seen = turns[i]  # turns during training
        for row, stretch in enumerate((1.0, s)):  # PI divides omega by s
            ax = axes[row, col]
            w = omega[i] / stretch  # the frequency used at inference
            ax.add_patch(_circle_patch())
            _arc(ax, 0.0, L * omega[i], 1.0, color=OKABE_ITO[0], lw=3.0, solid_capstyle="butt")
            _arc(ax, L * w, s * L * w, 0.8, color=OKABE_ITO[3], lw=2.2, ls="--")
            ax.plot([0, 1.0], [0, 0], color="#bbbbbb", lw=0.8)
            ax.set_xlim(-1.25, 1.25)
            ax.set_ylim(-1.25, 1.25)
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
            for side in ("left", "bottom"):
                ax.spines[side].set_visible(False)
            if row == 0:
                ax.set_title(f"pair {i}: λ = {lam[i]:,.0f}\n{seen:.3g} turns in training",
                             fontsize=9)
                new_deg = min(360 * (s - 1) * seen, 360 * (1 - seen))  # unseen part of the arc
                words = "nothing new" if seen >= 1 else f"{new_deg:.0f}°\nnew"
            else:
                words = "inside"
            ax.text(0, -0.3, words, ha="center", va="center", fontsize=8)
    axes[0, 0].set_ylabel("plain RoPE", fontsize=9)
    axes[1, 0].set_ylabel(f"Position Interpolation\ns = {s:g}", fontsize=9)
    handles = [
        _line(OKABE_ITO[0], "-", 3.0, f"angles seen in training (offsets 0 … {L - 1})"),
        _line(OKABE_ITO[3], "--", 2.2, f"angles of the offsets {L} … {s * L - 1:g} at inference"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=1, fontsize=8.5,
               bbox_to_anchor=(0.5, 0.0))
    cast(ConstrainedLayoutEngine, fig.get_layout_engine()).set(rect=(0, 0.1, 1, 0.9))


def _circle_patch():
    from matplotlib.patches import Circle

    return Circle((0, 0), 1.0, fill=False, color="#dddddd", lw=1.0)


def _line(color: str, ls: str, lw: float, label: str):
    from matplotlib.lines import Line2D

    return Line2D([], [], color=color, ls=ls, lw=lw, label=label)


# -- THE explorer: wavelengths before and after, per pair ---------------------------------------
_LAMBDA_LIM = (2.0, 5e8)
_STRETCH_LIM = (0.8, 45.0)
#: The methods of the explorer, in the order of its buttons.
EXPLORER_METHODS: tuple[rope_scaling.Method, ...] = ("linear", "ntk", "dynamic", "yarn", "llama3")
_EXPLORER_LABEL = {"linear": "linear (PI)", "ntk": "NTK-aware", "dynamic": "dynamic NTK at ℓ = sL",
                   "yarn": "YaRN", "llama3": "Llama 3.1"}


def explorer_frequencies(d: int, factor: float, base: float, method: str,
                         original_max_len: int) -> np.ndarray:
    r"""The frequencies the explorer shows for ``method`` at the factor :math:`s` = ``factor``.

    ``"linear"``, ``"ntk"``, ``"yarn"`` and ``"llama3"``:
    :func:`~posenc_lib.maths.rope_scaling.scaled_frequencies` with that factor. ``"dynamic"`` has no
    fixed factor: it is shown on an input of :math:`\ell = sL` tokens, with Hugging Face's
    configured factor 1, so that its running factor is :math:`\ell/L = s` (the form of Peng
    et al., :math:`s = \max(1, \ell/L)`); at that length it equals NTK-aware scaling with
    :math:`s`, and below :math:`L` it changes nothing.
    """
    chosen = check_choice("method", method, EXPLORER_METHODS)
    if chosen == "dynamic":
        seq_len = max(original_max_len, int(round(factor * original_max_len)))
        omega, _ = rope_scaling.scaled_frequencies(d, 1.0, "dynamic", base=base,
                                                   original_max_len=original_max_len,
                                                   seq_len=seq_len)
        return omega
    omega, _ = rope_scaling.scaled_frequencies(d, factor, chosen, base=base,
                                               original_max_len=original_max_len)
    return omega


def explorer_keep_threshold(method: str) -> int:
    """The divisor :math:`k` of the explorer's dotted line :math:`L/k`: the wavelength up to which
    the method's rule keeps a pair. 4 for ``"llama3"`` (``high_freq_factor``), else 32 (YaRN's
    :math:`\\beta = 32` turns, also drawn for the methods without such a threshold)."""
    if method not in EXPLORER_METHODS:
        raise ValueError(f"method must be one of {EXPLORER_METHODS}, got {method!r}")
    return 4 if method == "llama3" else 32


def scaling_explorer(original_max_len: int = 2048) -> Explorer:
    """Explorer: each pair's wavelength before and after stretching, against the trained
    context :math:`L`, over the factor :math:`s`, the dimension :math:`d`, the base :math:`n`
    and the method (linear / NTK-aware / dynamic NTK / YaRN / Llama 3.1; see
    :func:`explorer_frequencies`)."""
    L = original_max_len

    def plot(fig: Figure, s: float, d: int, n: float, method: str) -> Callable[..., Any]:
        left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
        left.set_yscale("log")
        left.set_ylim(*_LAMBDA_LIM)
        trained = left.axhline(L, color="black", ls="--", lw=1.0)
        # the dotted line: the method's "keep" threshold (L/4 for llama3, YaRN's L/32 otherwise)
        keep_div = explorer_keep_threshold(method)
        keep_line = left.axhline(L / keep_div, color="black", ls=":", lw=1.0)
        trained_text = left.text(0.99, L * 1.3, f"L = {L}", transform=left.get_yaxis_transform(),
                                 ha="right", va="bottom", fontsize=8)
        keep_text = left.text(0.99, L / keep_div * 0.75, f"L / {keep_div}",
                              transform=left.get_yaxis_transform(), ha="right", va="top",
                              fontsize=8)
        before, = left.plot([], [], ls="none", marker="o", ms=3.5, mfc="none", mec=_GREY,
                            label="before (plain RoPE)", zorder=4)
        lines_l = {}
        lines_r = {}
        for key, (label, color, marker) in _CATEGORY_STYLE.items():
            lines_l[key], = left.plot([], [], ls="none", marker=marker, ms=3.5, color=color,
                                      label=label, zorder=4)
            lines_r[key], = right.plot([], [], ls="none", marker=marker, ms=3.5, color=color,
                                       zorder=4)
        left.set_xlabel("pair i")
        left.set_ylabel("wavelength λ (positions)")
        left.grid(True, which="major")
        left.legend(loc="upper left", fontsize=7.5, handletextpad=0.2, borderaxespad=0.2)
        left_title = left.set_title("", fontsize=9)

        right.set_yscale("log")
        right.set_ylim(*_STRETCH_LIM)
        right.yaxis.set_major_locator(FixedLocator([1, 2, 4, 8, 16, 32]))
        right.yaxis.set_major_formatter(FixedFormatter(["1", "2", "4", "8", "16", "32"]))
        right.yaxis.set_minor_locator(NullLocator())
        unit = right.axhline(1.0, color="black", lw=0.8)
        s_line = right.axhline(s, color=OKABE_ITO[3], ls="--", lw=1.0, zorder=4)
        s_text = right.text(0.02, s, "", transform=right.get_yaxis_transform(), ha="left",
                            va="bottom", fontsize=8, color="black", zorder=5)
        right.set_xlabel("pair i")
        right.set_ylabel("stretch λ′ / λ")
        right.grid(True, which="major")
        right_title = right.set_title("", fontsize=9)

        def update(s: float, d: int, n: float, method: str) -> list[Artist]:
            i = np.arange(d // 2)
            lam = encodings.wavelengths(d, n)
            omega_new = explorer_frequencies(d, s, n, method, L)
            lam_new = 2 * np.pi / omega_new
            stretch = lam_new / lam
            cats = pair_categories(stretch, s)
            before.set_data(i, lam)
            for key in _CATEGORY_STYLE:
                sel = cats == key
                lines_l[key].set_data(i[sel], lam_new[sel])
                lines_r[key].set_data(i[sel], stretch[sel])
            for ax in (left, right):
                ax.set_xlim(-1, d // 2)
            s_line.set_ydata([s, s])
            s_text.set_position((0.02, s * 1.06))
            s_text.set_text(f"s = {s:.3g}")
            unseen = int(np.sum(lam > L))
            left_title.set_text(f"{_EXPLORER_LABEL[method]}, d = {d}, n = {n:g}: {unseen} of "
                                f"{d // 2} pairs\n"
                                f"never complete a turn in L = {L} positions")
            counts = {key: int(np.sum(cats == key)) for key in _CATEGORY_STYLE}
            right_title.set_text(f"kept {counts['kept']}, in between {counts['between']},\n"
                                 f"interpolated {counts['interpolated']}")
            keep = explorer_keep_threshold(method)
            keep_line.set_ydata([L / keep, L / keep])
            keep_text.set_position((0.99, L / keep * 0.75))
            keep_text.set_text(f"L / {keep}")
            # What changes: the pair axes move with d (their grid lines are redrawn, so the lines
            # and labels drawn over them in a full draw are redrawn too); the wavelength axes stay.
            return [left.xaxis, right.xaxis, trained, trained_text, keep_line, keep_text, unit,
                    before, *lines_l.values(), *lines_r.values(), s_line, s_text, left_title,
                    right_title]

        update(s, d, n, method)
        return update

    return explore(
        plot,
        log_param("s", "factor s", 1.0, 32.0, 8.0, (2.0, 8.0, 32.0), step=0.05,
                  description="context extension factor (log scale)"),
        dim_param(default=128, grid=(64, 128), min=8, max=256),
        base_param(default=10000.0, grid=(10000.0, 500000.0), min=100.0, max=1000000.0),
        choice_param("method", "method", EXPLORER_METHODS),
        title=f"Stretching RoPE: each pair's wavelength before and after (trained context "
              f"L = {L})",
        alt=lambda s, d, n, method: (
            f"Left: the wavelengths of the {d // 2} RoPE pairs (d={d}, base n={n:g}) on a log "
            f"axis, grey before and coloured after {_EXPLORER_LABEL[method]} scaling with factor "
            f"s={s:.3g}, "
            f"against a dashed line at the trained context L={L} and a dotted one at "
            f"L/{explorer_keep_threshold(method)}. Right: the "
            f"stretch of each pair's wavelength, from 1 (kept, blue circles) to s "
            f"(interpolated, vermillion squares), with pairs in between as orange triangles."),
        figsize=(7.4, 3.4),
    )


# -- dynamic NTK: a stretch that follows the input length ---------------------------------------
def dynamic_stretch(fig: Figure, d: int = 128, base: float = 10000.0,
                    original_max_len: int = 2048, factor: float = 4.0,
                    max_ratio: float = 8.0) -> dict[str, np.ndarray]:
    r"""The stretch :math:`\theta_i/\theta'_i` of the slowest pair against the input length
    :math:`\ell`, for a fixed factor ``factor`` (NTK-aware; Position Interpolation stretches this
    pair by the same :math:`s`) and for dynamic NTK with Hugging Face's configured factor 1 and
    ``factor`` (:func:`~posenc_lib.maths.rope_scaling.scaled_frequencies` with ``seq_len`` :math:`=\ell`).

    The dashed line is :math:`\max(1, \ell/L)`: the least stretch that keeps the slowest pair
    (which makes less than one turn in :math:`L`) inside its trained arc up to offset
    :math:`\ell`. Returns the plotted curves, keyed by label, and ``"ratio"`` (:math:`\ell/L`).
    """
    L = original_max_len
    ratio = 2.0 ** np.linspace(-1.0, np.log2(max_ratio), 121)
    lengths = np.maximum(1, np.round(ratio * L).astype(int))
    theta_last = encodings.frequencies(d, base)[-1]

    def slowest(method: rope_scaling.Method, s: float, seq_len: int) -> float:
        omega, _ = rope_scaling.scaled_frequencies(d, s, method, base=base, original_max_len=L,
                                                   seq_len=seq_len)
        return float(theta_last / omega[-1])

    curves = {
        "needed": np.maximum(1.0, lengths / L),
        f"fixed, s = {factor:g} (NTK-aware or PI)": np.array(
            [slowest("ntk", factor, n) for n in lengths]),
        "dynamic NTK, factor 1": np.array([slowest("dynamic", 1.0, n) for n in lengths]),
        f"dynamic NTK, factor {factor:g}": np.array(
            [slowest("dynamic", factor, n) for n in lengths]),
    }
    # colour, dash, marker, line width, z-order: the "needed" line is drawn last, thin and black,
    # so that it stays visible where dynamic NTK with factor 1 lies exactly on it
    styles = [("black", (0, (3, 2)), None, 1.2, 5), (OKABE_ITO[3], "-", "s", 1.6, 3),
              (OKABE_ITO[0], "-", "o", 3.2, 2), (OKABE_ITO[2], "-.", "^", 1.6, 3)]
    ax = fig.subplots()
    ax.axvspan(ratio[0], 1.0, color="#eeeeee", lw=0)
    ax.text(0.71, 0.25, f"ℓ ≤ L = {L}", transform=ax.get_xaxis_transform(), ha="center",
            va="center", fontsize=8)
    for (label, y), (color, ls, marker, lw, z) in zip(curves.items(), styles):
        label = "least stretch needed: max(1, ℓ/L)" if label == "needed" else label
        ax.plot(ratio, y, color=color, ls=ls, lw=lw, marker=marker, markevery=12, ms=5,
                label=label, zorder=z)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ticks = [0.5, 1, 2, 4, 8]
    ax.set_xticks([t for t in ticks if t <= max_ratio], [f"{t:g}" for t in ticks if t <= max_ratio])
    top = float(max(np.max(y) for y in curves.values()))
    yticks = [2.0**k for k in range(int(np.ceil(np.log2(top))) + 1)]
    ax.set_yticks(yticks, [f"{t:g}" for t in yticks])
    ax.minorticks_off()
    ax.set_xlabel("input length ℓ / trained context L")
    ax.set_ylabel(f"stretch of the slowest pair\n(pair {d // 2 - 1}, θ / θ′)")
    ax.grid(True)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(f"d = {d}, n = {base:g}, L = {L}", fontsize=9)
    return {**curves, "ratio": ratio}


# -- YaRN's two ramps: the paper's (linear in turns) and the reference code's (in the pair index) --
def yarn_ramps(fig: Figure, d: int = 128, base: float = 10000.0, original_max_len: int = 2048,
               factor: float = 8.0, beta_fast: float = 32.0, beta_slow: float = 1.0) -> None:
    """The share of each pair that YaRN interpolates, :math:`(\\theta_i - \\theta'_i) /
    (\\theta_i - \\theta_i/s)` (0 = kept, 1 = divided by :math:`s`), with the reference code's
    ramp (linear in the pair index, :func:`~posenc_lib.maths.rope_scaling.yarn_ramp`) and the paper's
    (linear in the number of turns, :func:`~posenc_lib.maths.rope_scaling.yarn_turns_ramp`).

    Left: against the pair index :math:`i`, where the code's ramp is straight. Right: against
    the number of turns :math:`r_i` on a linear axis, where the paper's ramp is straight.
    """
    theta = encodings.frequencies(d, base)
    r = rope_scaling.turns(d, base, original_max_len)
    shares = {}
    for ramp in rope_scaling.YARN_RAMPS:
        new, _ = rope_scaling.scaled_frequencies(d, factor, "yarn", base=base,
                                                 original_max_len=original_max_len,
                                                 beta_fast=beta_fast, beta_slow=beta_slow,
                                                 ramp=ramp)
        shares[ramp] = (theta - new) / (theta - theta / factor)
    styles = {"index": ("reference code: linear in the pair index i", OKABE_ITO[0], "o", "-"),
              "turns": ("paper: linear in the number of turns r", OKABE_ITO[3], "s", "--")}
    left, right = fig.subplots(1, 2, sharey=True)
    i = np.arange(d // 2)
    for ramp, (label, color, marker, ls) in styles.items():
        left.plot(i, shares[ramp], color=color, marker=marker, ms=3.5, ls=ls, lw=1.2,
                  label=label)
        sel = r <= 1.25 * beta_fast
        right.plot(r[sel], shares[ramp][sel], color=color, marker=marker, ms=3.5, ls=ls, lw=1.2)
    low, high = rope_scaling.yarn_correction_range(d, base, original_max_len, beta_fast,
                                                   beta_slow)
    for edge, text in ((low, f"low = {low}"), (high, f"high = {high}")):
        left.axvline(edge, color=_GREY, lw=0.8, ls=":")
        left.text(edge, 1.04, text, ha="center", va="bottom", fontsize=8)
    for x, text in ((beta_slow, f"α = {beta_slow:g}"), (beta_fast, f"β = {beta_fast:g}")):
        right.axvline(x, color=_GREY, lw=0.8, ls=":")
        right.text(x, 1.04, text, ha="center", va="bottom", fontsize=8)
    left.set_xlabel("pair i")
    left.set_ylabel("share interpolated\n(0 kept, 1 divided by s)", fontsize=9)
    left.set_xlim(-1, d // 2)
    left.set_ylim(-0.05, 1.15)
    right.set_xlabel("turns r in the trained context L")
    right.set_xlim(0, 1.25 * beta_fast)
    for ax in (left, right):
        ax.grid(True)
    left.set_title(f"d = {d}, n = {base:g}, L = {original_max_len}, s = {factor:g}", fontsize=9)
    right.set_title(f"the same pairs against r (pairs with r ≤ {1.25 * beta_fast:g})",
                    fontsize=9)
    fig.legend(loc="lower center", ncol=2, fontsize=8, bbox_to_anchor=(0.5, 0.0))
    cast(ConstrainedLayoutEngine, fig.get_layout_engine()).set(rect=(0, 0.08, 1, 0.92))


# -- Position Interpolation's central picture ---------------------------------------------------
def score_extrapolation(fig: Figure, q: np.ndarray, k: np.ndarray, fit_distances: np.ndarray,
                        targets: np.ndarray, original_max_len: int, factor: float,
                        zoom: tuple[int, int] = (1000, 1004), base: float = 10000.0) -> None:
    """Three panels on one fitted score curve :math:`a(\\Delta) = q^\\top R(\\Delta)k`.

    Left: the curve over the training range with (a sample of) the targets it was fitted to.
    Middle: the same curve continued to :math:`sL` — extrapolation. Right: a few integer offsets
    close up, the curve between them (where Position Interpolation evaluates it), the straight
    line through the integer values and the band that
    :func:`~posenc_lib.maths.rope_scaling.interpolation_bound` allows around it.
    """
    L, s = original_max_len, factor
    inside = np.linspace(0, L, 8001)
    beyond = np.linspace(0, s * L, 16001)
    a_in = rope.score_curve(q, k, inside, base)
    a_all = rope.score_curve(q, k, beyond, base)
    left, mid, right = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 1]})

    step = max(1, len(fit_distances) // 200)
    left.plot(fit_distances[::step], targets[::step], ls="none", marker=".", ms=3, color=_GREY,
              label="targets (a sample)")
    left.plot(inside, a_in, color=OKABE_ITO[0], lw=0.8, label="fitted score")
    left.set_xlim(0, L)
    left.set_ylim(-1.1, 1.7)
    left.set_xlabel("relative position Δ")
    left.set_ylabel("score a(Δ)")
    left.set_title(f"fitted on 0 … L = {L}", fontsize=9)
    left.legend(loc="upper center", fontsize=7.5, ncol=2, handletextpad=0.2, columnspacing=0.8,
                frameon=True, framealpha=0.9, edgecolor="white")
    left.grid(True)

    mid.axvspan(L, s * L, color="#eeeeee", lw=0)
    mid.plot(beyond, a_all, color=OKABE_ITO[3], lw=0.8)
    peak_in = float(np.max(np.abs(a_in)))
    mid.axhline(peak_in, color=OKABE_ITO[0], ls="--", lw=1.0)
    mid.axhline(-peak_in, color=OKABE_ITO[0], ls="--", lw=1.0)
    mid.set_xlim(0, s * L)
    mid.set_xlabel("relative position Δ")
    mid.set_title(f"extrapolated to {s:g}L: largest |a| {np.max(np.abs(a_all)):.0f}", fontsize=9)
    mid.text(L * 1.05, 0.93, "beyond L", transform=mid.get_xaxis_transform(), fontsize=8,
             va="top")
    mid.text(0.03 * L, 0.8, f"dashed: ±{peak_in:.2f},\nthe largest |a|\non 0 … L",
             transform=mid.get_xaxis_transform(), fontsize=8, va="top", color=OKABE_ITO[0])
    mid.grid(True)

    lo, hi = zoom
    fine = np.linspace(lo, hi, 401)
    ints = np.arange(lo, hi + 1, dtype=float)
    a_fine = rope.score_curve(q, k, fine, base)
    a_int = rope.score_curve(q, k, ints, base)
    straight = np.interp(fine, ints, a_int)
    band = rope_scaling.interpolation_bound(q, k, fine, base)
    right.fill_between(fine, straight - band, straight + band, color=OKABE_ITO[5], alpha=0.35,
                       lw=0, label="allowed by the bound")
    right.plot(fine, straight, color=_GREY, lw=1.0, ls="--", label="straight lines")
    right.plot(fine, a_fine, color=OKABE_ITO[0], lw=1.4, label="score between integers")
    right.plot(ints, a_int, ls="none", marker="o", ms=5, color="black", label="integer offsets")
    right.set_xlabel("relative position Δ")
    right.set_xticks(ints)
    right.set_title(f"interpolated: Δ = {lo} … {hi}", fontsize=9)
    right.legend(loc="best", fontsize=7)
    right.grid(True)


# -- the toy model ----------------------------------------------------------------------------
def lab_results(fig: Figure, accuracy: Mapping[tuple[str | None, int, bool], float],
                lengths: Sequence[int] = (32, 64, 128), train_len: int = 32,
                chance: float | None = None) -> None:
    """Accuracy of the trained toy model against the test length, per method: left without
    fine-tuning, right after the short fine-tune at the test length.

    ``accuracy[(method, length, fine_tuned)]`` with ``method`` ``None`` (plain RoPE),
    ``"linear"``, ``"ntk"`` or ``"yarn"``. The training length is marked.
    """
    axes = fig.subplots(1, 2, sharey=True)
    for ax, tuned in zip(axes, (False, True)):
        for rank, (method, (label, color, marker, ls)) in enumerate(_METHOD_STYLE.items()):
            xs = [n for n in lengths if (method, n, tuned) in accuracy]
            ys = [accuracy[(method, n, tuned)] for n in xs]
            nudge = 2.0 ** (0.035 * (rank - 1.5))  # side by side where the points coincide
            if xs:
                ax.plot(np.array(xs) * nudge, ys, color=color, marker=marker, ls=ls, lw=1.6,
                        ms=6, label=label)
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(lengths), [str(n) for n in lengths])
        ax.minorticks_off()
        ax.axvline(train_len, color="black", lw=0.8, ls=":")
        if chance is not None:
            ax.axhline(chance, color=_GREY, lw=1.0, ls="-.")
            ax.text(lengths[0], chance + 0.02, "chance", fontsize=8, color="black")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("test length (trained at 32)")
        ax.grid(True)
        ax.set_title("after a short fine-tune at the test length" if tuned else
                     "no fine-tuning (factor s = length / 32)", fontsize=9)
    axes[0].set_ylabel("copy-back accuracy")
    axes[0].legend(loc="center left", fontsize=8)
