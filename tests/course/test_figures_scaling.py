"""posenc_lib.course.figures.scaling (chapter 11): pair categories, the static figures, the scaling explorer
(every method, its titles, blitting) and the dynamic-NTK figure."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from posenc_lib.course.figures import scaling as scaling_figures
from posenc_lib.display import explorer
from posenc_lib.display.plotting import new_figure, png_bytes
from posenc_lib.maths import encodings, rope_scaling


# -- figures ------------------------------------------------------------------------------------
def test_pair_categories():
    cats = scaling_figures.pair_categories(np.array([1.0, 1.5, 3.9999, 4.0, 4.0]), 4.0)
    assert list(cats) == ["kept", "between", "between", "interpolated", "interpolated"]
    assert set(scaling_figures.pair_categories(np.ones(3), 1.0)) == {"kept"}
    # what the methods do, by category (d = 128, n = 10000, L = 2048, s = 8)
    counts = {}
    for method in rope_scaling.SCALING_METHODS:
        omega, _ = rope_scaling.scaled_frequencies(128, 8.0, method)
        cats = scaling_figures.pair_categories(encodings.frequencies(128) / omega, 8.0)
        counts[method] = tuple(int(np.sum(cats == c)) for c in ("kept", "between",
                                                                 "interpolated"))
    assert counts["linear"] == (0, 0, 64)
    assert counts["ntk"] == (1, 62, 1)
    low, high = rope_scaling.yarn_correction_range(128, 10000.0, 2048)  # (16, 41)
    assert (low, high) == (16, 41)
    assert counts["yarn"] == (low + 1, high - low - 1, 64 - high)


def _n_axes_with_data(fig) -> int:
    return sum(1 for ax in fig.axes if ax.lines or ax.collections or ax.patches)


def test_static_figures_draw():
    fig = new_figure(7.0, 5.0)
    scaling_figures.angle_coverage(fig, pairs=(0, 56), factor=2.0)
    assert len(fig.axes) == 4 and _n_axes_with_data(fig) == 4
    titles = [ax.get_title() for ax in fig.axes]
    assert "326 turns in training" in titles[0] and "0.103 turns" in titles[1]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["angles seen in training (offsets 0 … 2047)",
                      "angles of the offsets 2048 … 4095 at inference"]

    rng = np.random.default_rng(0)
    dist = np.arange(129.0)
    y = rng.uniform(-1, 1, dist.size)
    q, k = rope_scaling.fit_score_curve(dist, y, 16)
    fig = new_figure(8.0, 3.0)
    scaling_figures.score_extrapolation(fig, q, k, dist, y, 128, 2.0, zoom=(50, 53))
    assert len(fig.axes) == 3 and _n_axes_with_data(fig) == 3
    assert "extrapolated to 2L" in fig.axes[1].get_title()

    acc = {(m, n, t): 0.5 for m in (None, "linear", "ntk", "yarn") for n in (32, 64, 128)
           for t in (False, True)}
    fig = new_figure(7.5, 3.2)
    scaling_figures.lab_results(fig, acc, chance=1 / 16)
    assert len(fig.axes) == 2 and all(len(ax.lines) >= 4 for ax in fig.axes)


def test_explorer_titles_report_the_counts():
    ex = scaling_figures.scaling_explorer()
    fig = ex.draw(s=8.0, d=128, n=10000.0, method="ntk")
    left, right = fig.axes
    assert "23 of 64 pairs" in left.get_title()
    assert right.get_title() == "kept 1, in between 62,\ninterpolated 1"
    fig = ex.draw(s=8.0, d=128, n=10000.0, method="yarn")
    assert fig.axes[1].get_title() == "kept 17, in between 24,\ninterpolated 23"


def test_yarn_ramps_figure_draws():
    fig = new_figure(8.0, 3.4)
    scaling_figures.yarn_ramps(fig)
    assert len(fig.axes) == 2 and all(len(ax.lines) >= 2 for ax in fig.axes)
    assert fig.axes[0].get_title() == "d = 128, n = 10000, L = 2048, s = 8"


def test_explorer_blitting_matches_a_fresh_drawing():
    """Updates that keep d blit only the changed artists; they must draw what a new figure draws."""
    import io

    from PIL import Image

    from posenc_lib.display.plotting import png_bytes

    def pixels(png: bytes) -> np.ndarray:
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)

    live = scaling_figures.scaling_explorer()
    live.render_png()
    for values in (dict(s=2.0), dict(s=32.0, method="yarn"), dict(n=500000.0, method="ntk"),
                   dict(s=1.0, method="yarn")):
        fast = pixels(live.render_png(**values))
        assert live._background is not None  # the blitting path was taken
        fresh = scaling_figures.scaling_explorer()
        full = pixels(png_bytes(fresh.draw(**values), dpi=fresh.dpi))
        assert fast.shape == full.shape
        assert np.abs(fast - full).max() <= 2, values


# -- the explorer ---------------------------------------------------------------------------------
def test_explorer_offers_five_methods_within_the_frame_budget():
    ex = scaling_figures.scaling_explorer()
    methods = next(p for p in ex.params if p.name == "method")
    assert tuple(methods.grid) == scaling_figures.EXPLORER_METHODS
    assert set(scaling_figures.EXPLORER_METHODS) == set(rope_scaling.SCALING_METHODS)
    assert math.prod(len(p.grid) for p in ex.params) <= explorer.MAX_FRAMES


@pytest.mark.parametrize("s", [1.0, 2.0, 3.3, 8.0, 32.0])
@pytest.mark.parametrize("d", [8, 64, 128, 256])
def test_explorer_dynamic_is_ntk_at_the_full_length(s, d):
    # dynamic NTK with factor 1 on an input of sL tokens is NTK-aware scaling with s (L = 2048,
    # so sL is a whole number for every s on the slider's grid; 3.3 * 2048 is rounded)
    L = 2048
    got = scaling_figures.explorer_frequencies(d, s, 10000.0, "dynamic", L)
    want, _ = rope_scaling.scaled_frequencies(d, round(s * L) / L, "ntk", original_max_len=L)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("method", ["linear", "ntk", "yarn", "llama3"])
def test_explorer_other_methods_are_the_library(method):
    got = scaling_figures.explorer_frequencies(64, 4.0, 500000.0, method, 4096)
    want, _ = rope_scaling.scaled_frequencies(64, 4.0, method, base=500000.0,
                                              original_max_len=4096)
    np.testing.assert_array_equal(got, want)


def test_explorer_titles_for_the_new_methods():
    ex = scaling_figures.scaling_explorer()
    fig = ex.draw(s=8.0, d=128, n=10000.0, method="dynamic")
    left, right = fig.axes
    assert left.get_title().startswith("dynamic NTK at ℓ = sL, d = 128")
    assert right.get_title() == "kept 1, in between 62,\ninterpolated 1"   # as NTK-aware
    fig = ex.draw(s=8.0, d=128, n=500000.0, method="llama3")
    omega, _ = rope_scaling.scaled_frequencies(128, 8.0, "llama3", base=500000.0)
    cats = scaling_figures.pair_categories(encodings.frequencies(128, 500000.0) / omega, 8.0)
    k, b, i = (int(np.sum(cats == c)) for c in ("kept", "between", "interpolated"))
    assert fig.axes[1].get_title() == f"kept {k}, in between {b},\ninterpolated {i}"
    assert fig.axes[0].get_title().startswith("Llama 3.1, d = 128, n = 500000")
    assert "Llama 3.1 scaling" in ex.alt_text(s=8.0, d=128, n=500000.0, method="llama3")


@pytest.mark.parametrize("method", ["linear", "ntk", "dynamic", "yarn", "llama3"])
def test_explorer_dotted_line_is_the_methods_keep_threshold(method):
    # llama3 keeps wavelengths up to L / high_freq_factor = L / 4; YaRN (and the line drawn for the
    # methods without a threshold) up to L / 32; the line, its label and the alt text agree
    k = scaling_figures.explorer_keep_threshold(method)
    assert k == (4 if method == "llama3" else 32)
    L = 2048
    ex = scaling_figures.scaling_explorer(original_max_len=L)
    fig = ex.draw(s=8.0, d=128, n=500000.0, method=method)
    left = fig.axes[0]
    dotted = [ln for ln in left.get_lines() if ln.get_linestyle() == ":"]
    assert len(dotted) == 1 and np.allclose(dotted[0].get_ydata(), L / k)
    assert f"L / {k}" in [t.get_text() for t in left.texts]
    assert f"dotted one at L/{k}." in ex.alt_text(s=8.0, d=128, n=500000.0, method=method)
    if method == "llama3":   # the pairs it keeps are exactly those below its dotted line
        omega, _ = rope_scaling.scaled_frequencies(128, 8.0, "llama3", base=500000.0,
                                                   original_max_len=L)
        kept = omega == encodings.frequencies(128, 500000.0)
        np.testing.assert_array_equal(kept, encodings.wavelengths(128, 500000.0) <= L / k)


def test_explorer_keep_threshold_validation():
    with pytest.raises(ValueError, match="method"):
        scaling_figures.explorer_keep_threshold("cubic")


def test_explorer_blitting_matches_for_the_new_methods():
    from PIL import Image

    def pixels(png: bytes) -> np.ndarray:
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)

    live = scaling_figures.scaling_explorer()
    live.render_png()
    for values in (dict(method="dynamic"), dict(s=2.0, method="llama3"),
                   dict(n=500000.0, method="llama3"), dict(s=1.0, method="dynamic"),
                   dict(s=4.0, method="llama3"), dict(s=4.0, method="yarn")):
        fast = pixels(live.render_png(**values))
        fresh = scaling_figures.scaling_explorer()
        full = pixels(png_bytes(fresh.draw(**values), dpi=fresh.dpi))
        assert fast.shape == full.shape
        assert np.abs(fast - full).max() <= 2, values


# -- the dynamic-NTK figure ------------------------------------------------------------------------
def test_dynamic_stretch_curves():
    fig = new_figure(6.8, 3.4)
    curves = scaling_figures.dynamic_stretch(fig, factor=4.0)
    ratio = curves["ratio"]
    assert len(fig.axes) == 1 and len(fig.axes[0].lines) == 4
    short = ratio <= 1.0
    np.testing.assert_allclose(curves["dynamic NTK, factor 1"], curves["needed"], rtol=1e-9)
    assert np.all(curves["dynamic NTK, factor 4"][short] == 1.0)
    np.testing.assert_allclose(curves["fixed, s = 4 (NTK-aware or PI)"], 4.0, rtol=1e-12)
    # HF's running factor 4 l / L - 3 (l rounded to whole tokens)
    lengths = np.maximum(1, np.round(ratio * 2048).astype(int))
    want = np.where(lengths > 2048, 4 * lengths / 2048 - 3, 1.0)
    np.testing.assert_allclose(curves["dynamic NTK, factor 4"], want, rtol=1e-9)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[0] == "least stretch needed: max(1, ℓ/L)"
