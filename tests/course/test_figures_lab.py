"""posenc_lib.course.figures.lab (chapter 10): the schemes' styles, accuracy against length, the order bars,
per-position accuracy, copy offsets, attention grids and the extrapolation explorer, on small
hand-made results (quick, and their content is known)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import toy_seed_sweep, toy_sweep

from posenc_lib.course.figures import lab as figs
from posenc_lib.display.plotting import new_figure, png_bytes
from posenc_lib.lab import extrapolation as X


def test_scheme_styles_are_distinct_without_colour():
    combos = {(m, str(ls)) for _, m, ls in figs.SCHEME_STYLE.values()}
    assert len(combos) == len(X.SCHEMES)
    assert len({m for _, m, _ in figs.SCHEME_STYLE.values()}) == len(X.SCHEMES)
    assert set(figs.SCHEME_STYLE) == set(figs.SCHEME_LABEL) == set(X.SCHEMES)


def test_accuracy_vs_length_draws_one_line_per_scheme_on_a_log2_axis():
    fig = new_figure(7.5, 3.6)
    sweep = toy_sweep()
    figs.accuracy_vs_length(fig, sweep, chance=1 / 16)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    labels = [figs.SCHEME_LABEL[p] for p in X.SCHEMES]
    labels[1] = "learned (n/a past 32)"  # learned cannot run past its table
    assert [ln.get_label() for ln in lines] == labels
    assert lines[1].get_markerfacecolor() == "none"  # drawn hollow, on top of the others
    rope = lines[X.SCHEMES.index("rope")]
    np.testing.assert_allclose(rope.get_ydata(), sweep.accuracy["rope"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["32", "64", "128", "256"]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    assert png_bytes(fig)[:4] == b"\x89PNG"


def test_accuracy_vs_length_titles_name_the_task():
    for task, start in (("copy_back", "Copy the token 3 back: trained at 32 tokens"),
                        ("latest_signal", "Name the latest signal: trained at 32 tokens")):
        fig = new_figure(7.5, 3.6)
        figs.accuracy_vs_length(fig, toy_sweep(task), chance=1 / 8)
        assert fig.axes[0].get_title().startswith(start)


def test_order_bars_return_what_they_plot_and_check_their_inputs():
    plain = toy_sweep("order", (32,))
    bos = toy_sweep("order_bos", (32,))
    fig = new_figure(7.5, 3.6)
    out = figs.order_accuracy_bars(fig, plain, bos, X.chance_band(256))
    assert out["rope"] == (plain.accuracy["rope"][0], bos.accuracy["rope"][0])
    heights = sorted(round(b.get_height(), 6) for b in fig.axes[0].patches if b.get_height() > 0
                     and b.get_width() < 0.5)
    expected = sorted(round(v, 6) for pair in out.values() for v in pair)
    assert heights == expected
    other = X.SweepResult("order_bos", 32, (32,), ("rope",), {"rope": (1.0,)}, {"rope": 1.0})
    with pytest.raises(ValueError, match="plain and bos must cover the same schemes"):
        figs.order_accuracy_bars(new_figure(), plain, other, (0.4, 0.6))


def test_accuracy_by_position_plot_bins_the_curves():
    fig = new_figure(7.5, 3.6)
    curve = np.r_[np.full(3, np.nan), np.ones(29), np.zeros(32)]
    figs.accuracy_by_position_plot(fig, {"rope": curve}, train_length=32, width=8)
    line = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "RoPE"][0]
    np.testing.assert_allclose(line.get_ydata(), [1, 1, 1, 1, 0, 0, 0, 0])
    np.testing.assert_allclose(line.get_xdata()[:2], [3.5, 11.5])


def test_copy_offsets_plot_and_attention_grid_render():
    fig = new_figure(8, 3.4)
    prof = np.r_[0.05, 0.05, 0.05, 1.0, np.full(5, 0.05)]
    figs.copy_offsets_plot(fig, {32: {"rope": prof}, 256: {"rope": prof / 2}}, k=3,
                           vocab_size=16)
    assert len(fig.axes) == 2 and fig.axes[1].get_title() == "input length 256"
    fig = new_figure(6, 5)
    w = np.tril(np.ones((8, 8)))
    w /= w.sum(-1, keepdims=True)
    figs.attention_map_grid(fig, [[("a", w[:4, :4]), ("b", w)], [("c", w)]], train_length=4)
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["a", "b", "c"]
    assert len(axes[1].patches) == 1 and len(axes[0].patches) == 0  # the training square
    assert png_bytes(fig)[:4] == b"\x89PNG"


def test_explorer_shows_the_learned_table_limit_as_text():
    ex = figs.extrapolation_explorer()
    assert {p.name for p in ex.params} == {"scheme", "length"}
    fig = ex.draw(scheme="learned", length=64)
    texts = " ".join(t.get_text() for t in [*fig.texts, *(t for ax in fig.axes for t in ax.texts)]
                     if t.get_visible())
    assert "cannot even run" in texts
    assert not any(ax.get_visible() for ax in fig.axes)   # no stale panel from another frame
    fig = ex.draw(scheme="rope", length=64)
    assert all(ax.get_visible() for ax in fig.axes)
    assert not any(t.get_visible() and "cannot" in t.get_text() for t in fig.texts)
    assert "cannot run" in ex.alt_text(scheme="learned", length=64)
    assert "RoPE" in ex.alt_text(scheme="rope", length=32)


def test_accuracy_vs_length_draws_a_band_per_scheme_of_the_spread():
    fig = new_figure(7.5, 3.6)
    spread = toy_seed_sweep()
    figs.accuracy_vs_length(fig, toy_sweep(), chance=1 / 16, spread=spread)
    ax = fig.axes[0]
    bands = [c for c in ax.collections if c.get_label() and not c.get_label().startswith("_")]
    assert [c.get_label() for c in bands] == ["range over seeds 0, 1, 2"]
    assert len(ax.collections) == len(spread.positions) + 1
    with pytest.raises(ValueError, match="spread must have the lengths of sweep"):
        figs.accuracy_vs_length(new_figure(), toy_sweep(), spread=toy_seed_sweep(lengths=(32, 64)))


def test_order_bars_of_seed_sweeps_show_the_mean_and_the_range():
    plain = toy_seed_sweep("order", (32,), positions=X.SCHEMES)
    bos = toy_seed_sweep("order_bos", (32,), positions=X.SCHEMES)
    fig = new_figure(7.5, 3.6)
    out = figs.order_accuracy_bars(fig, plain, bos, X.chance_band(256))
    assert out["rope"] == pytest.approx((0.85, 0.85))
    whiskers = [ln for ln in fig.axes[0].get_lines() if len(ln.get_ydata()) == 2
                and ln.get_xdata()[0] == ln.get_xdata()[1]]
    assert len(whiskers) == 2 * len(X.SCHEMES)
    assert sorted(whiskers[0].get_ydata()) == pytest.approx([0.8, 0.9])
