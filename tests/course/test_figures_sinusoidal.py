"""posenc_lib.course.figures.sinusoidal (chapter 6): the static figures, the float32 figure and the column
spectra."""

import math

import numpy as np
import pytest
from helpers import pe_loop
from matplotlib.figure import Figure

from posenc_lib.course.figures import sinusoidal as figs
from posenc_lib.course.figures import sinusoidal as sinusoidal_figures
from posenc_lib.display.plotting import new_figure
from posenc_lib.maths import encodings, similarity


def test_column_spectra_one_curve_and_one_marker_per_pair():
    fig = Figure()
    sinusoidal_figures.column_spectra(fig, d=8, seq_len=4096)
    waves, spectra = fig.axes
    assert len(waves.lines) == 4
    # 4 spectra and 4 dotted vertical lines, at ω_i / 2π
    assert len(spectra.lines) == 8
    marks = sorted(line.get_xdata()[0] for line in spectra.lines if line.get_linestyle() == ":"
                   and len(line.get_xdata()) == 2 and line.get_xdata()[0] == line.get_xdata()[1])
    np.testing.assert_allclose(marks, sorted(10.0 ** (-np.arange(4)) / (2 * math.pi)))


# -- figures ----------------------------------------------------------------------------------------
def test_static_figures_draw_titled_axes():
    cases = [
        (lambda f: figs.clock_faces(f, [0, 1, 7], d=8), 12),
        (lambda f: figs.wavelength_ladder(f), 1),
        (lambda f: figs.shift_matrix_heatmap(f, 3, 8), 3),
        (lambda f: figs.layout_heatmaps(f), 3),
        (lambda f: figs.norm_comparison(f, dims=(16, 64)), 1),
    ]
    for draw, n_axes in cases:
        fig = new_figure()
        draw(fig)
        assert len(fig.axes) == n_axes


def test_float32_figure_returns_the_measured_errors():
    fig = new_figure()
    out = figs.float32_error(fig, [10.0, 1e4, 1e7], d=64)
    exact = encodings.sinusoidal_at([10.0, 1e4, 1e7], 64)
    np.testing.assert_allclose(
        out["error"], np.linalg.norm(similarity.sinusoidal_float32([10.0, 1e4, 1e7], 64) - exact,
                                     axis=1), rtol=1e-6)
    assert np.all(out["error_cast"] < 1e-6)  # float64 angles: only the final rounding
    assert float(out["half_gap"]) == pytest.approx(np.linalg.norm(pe_loop(1, 64) - pe_loop(0, 64)) / 2)


def test_clock_faces_needs_positions():
    with pytest.raises(ValueError, match="positions must hold at least one"):
        figs.clock_faces(new_figure(), [])


def test_dials_turn_counter_clockwise_from_the_right_like_chapter_4s_circle():
    """Each hand points to (cos, sin) of its angle: right at position 0, then counter-clockwise."""
    fig = new_figure(6.4, 5.0)
    figs.clock_faces(fig, positions=[0, 1], d=4)
    hands = [next(line for line in ax.get_lines() if line.get_linewidth() == 2.2)
             for ax in fig.axes]
    tips = [(h.get_xdata()[-1], h.get_ydata()[-1]) for h in hands]
    omega = encodings.frequencies(4)
    assert np.allclose(tips[0], (0.8, 0.0)) and np.allclose(tips[1], (0.8, 0.0))   # position 0
    for (x, y), w in zip(tips[2:], omega):                                         # position 1
        assert np.allclose((x, y), (0.8 * np.cos(w), 0.8 * np.sin(w)))
        assert y > 0                                    # turned counter-clockwise


def test_encoding_heatmaps_put_dimension_0_at_the_top():
    fig = new_figure(7.0, 3.0)
    figs.layout_heatmaps(fig, seq_len=16, d=8)
    for ax in fig.axes[:2]:
        bottom, top = ax.get_ylim()
        assert bottom > top
