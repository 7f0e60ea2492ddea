"""Chapter 10: the exercise checkers and the figures of posenc_lib.figures.lab."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.lines import Line2D

from posenc_lib import exercises, extrapolation as X
from posenc_lib.exercises import ch10
from posenc_lib.figures import lab as figs
from posenc_lib.plotting import new_figure, png_bytes


# ------------------------------------------------------------------------------------------
# Exercise checkers
# ------------------------------------------------------------------------------------------


def _stub(*args):
    ...


def test_checkers_are_re_exported():
    for name in ch10.__all__:
        assert getattr(exercises, name) is getattr(ch10, name)


@pytest.mark.parametrize("checker, reference", [
    (ch10.check_masked_accuracy, X.masked_accuracy),
    (ch10.check_chance_band, X.chance_band),
    (ch10.check_reverse_positions, X.reverse_positions),
])
def test_checkers_accept_the_reference_and_report_a_stub_kindly(checker, reference):
    report = checker(reference)
    assert report.ok, report.text()
    stub = checker(_stub)  # the notebook's `...` body: a report, not an exception
    assert not stub.ok and "replace `...`" in stub.text()


# masked_accuracy: an independent solution and each usual mistake with its hint
def _accuracy_loop(logits, targets, mask):
    hits = counted = 0
    for idx in np.ndindex(mask.shape):
        if mask[idx]:
            counted += 1
            hits += int(np.argmax(logits[idx]) == targets[idx])
    return hits / counted


@pytest.mark.parametrize("wrong, hint", [
    (lambda z, y, m: float(np.mean(z.argmax(-1) == y)), "you averaged over every position"),
    (lambda z, y, m: float(((z.argmax(-1) == y) & m).sum() / m.size),
     "you divided by the number of all positions"),
    (lambda z, y, m: float(np.mean(((z.argmax(-1) == y) & m).sum(-1) / m.sum(-1))),
     "you averaged per sequence"),
    (lambda z, y, m: float(((z.argmax(-1) == y) & m).sum()), "that is the number of hits"),
])
def test_masked_accuracy_checker_names_the_mistake(wrong, hint):
    assert ch10.check_masked_accuracy(_accuracy_loop).ok
    report = ch10.check_masked_accuracy(wrong)
    assert not report.ok
    assert hint in report.text()


def _band_by_hand(n, p, z):
    half = z * (p * (1 - p) / n) ** 0.5
    return (max(0.0, p - half), min(1.0, p + half))


@pytest.mark.parametrize("wrong, hint", [
    (lambda n, p, z: (max(0.0, p - z * p * (1 - p) / n), min(1.0, p + z * p * (1 - p) / n)),
     "is the variance of the fraction"),
    (lambda n, p, z: (max(0.0, p - z * math.sqrt(p * (1 - p))),
                      min(1.0, p + z * math.sqrt(p * (1 - p)))),
     "shrinks with the number of predictions"),
    (lambda n, p, z: (max(0.0, p - z * math.sqrt(n * p * (1 - p))),
                      min(1.0, p + z * math.sqrt(n * p * (1 - p)))),
     "spread of the *number* right"),
    (lambda n, p, z: (p - z * math.sqrt(p * (1 - p) / n), p + z * math.sqrt(p * (1 - p) / n)),
     "clip the band"),
])
def test_chance_band_checker_names_the_mistake(wrong, hint):
    assert ch10.check_chance_band(_band_by_hand).ok
    report = ch10.check_chance_band(wrong)
    assert not report.ok and hint in report.text()


@pytest.mark.parametrize("wrong, hint", [
    (lambda b: np.asarray(b)[..., ::-1, :], "you reversed the queries only"),
    (lambda b: np.asarray(b)[..., :, ::-1], "you reversed the keys only"),
    (lambda b: np.swapaxes(b, -1, -2), "reversal is not transposition"),
    (lambda b: np.asarray(b)[::-1, ::-1], "flip the *last* two axes"),
])
def test_reverse_positions_checker_names_the_mistake(wrong, hint):
    def by_permutation(b):
        b = np.asarray(b)
        r = np.eye(b.shape[-1])[::-1]
        return r @ b @ r.T
    assert ch10.check_reverse_positions(by_permutation).ok
    report = ch10.check_reverse_positions(wrong)
    assert not report.ok and hint in report.text()


def test_checker_reports_an_exception_instead_of_raising():
    def broken(logits, targets, mask):
        raise KeyError("oops")
    report = ch10.check_masked_accuracy(broken)
    assert not report.ok and "your function raised KeyError" in report.text()


# ------------------------------------------------------------------------------------------
# Figures (on small hand-made results, so they are quick and their content is known)
# ------------------------------------------------------------------------------------------


def _sweep(task="copy_back", lengths=(32, 64, 128, 256)):
    acc = {p: tuple(np.linspace(0.9, 0.2 + 0.1 * i, len(lengths)))
           for i, p in enumerate(X.SCHEMES)}
    acc["learned"] = (1.0,) + (math.nan,) * (len(lengths) - 1)
    return X.SweepResult(task, lengths[0], tuple(lengths), X.SCHEMES, acc,
                         {p: 1.0 for p in X.SCHEMES})


def test_scheme_styles_are_distinct_without_colour():
    combos = {(m, str(ls)) for _, m, ls in figs.SCHEME_STYLE.values()}
    assert len(combos) == len(X.SCHEMES)
    assert len({m for _, m, _ in figs.SCHEME_STYLE.values()}) == len(X.SCHEMES)
    assert set(figs.SCHEME_STYLE) == set(figs.SCHEME_LABEL) == set(X.SCHEMES)


def test_accuracy_vs_length_draws_one_line_per_scheme_on_a_log2_axis():
    fig = new_figure(7.5, 3.6)
    sweep = _sweep()
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
        figs.accuracy_vs_length(fig, _sweep(task), chance=1 / 8)
        assert fig.axes[0].get_title().startswith(start)


def test_order_bars_return_what_they_plot_and_check_their_inputs():
    plain = _sweep("order", (32,))
    bos = _sweep("order_bos", (32,))
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
    texts = " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "cannot even run" in texts
    assert "cannot run" in ex.alt_text(scheme="learned", length=64)
    assert "RoPE" in ex.alt_text(scheme="rope", length=32)
