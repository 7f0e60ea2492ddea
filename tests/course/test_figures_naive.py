"""posenc_lib.course.figures.naive (chapters 2–5): the ratio lines, the cluster panels, the sine-pair zoom and
the linear explorer."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.course.figures import naive
from posenc_lib.display.plotting import new_figure


def test_ratio_lines_has_one_dotted_curve_and_a_solid_reference():
    positions = np.arange(1, 10)
    curves = {f"c{j}": positions * (j + 1.0) for j in range(4)}
    fig = new_figure(4, 3)
    ax = naive.ratio_lines(fig, positions, curves, title="t")
    dotted = [line.get_label() for line in ax.get_lines() if line.get_linestyle() == ":"]
    assert dotted == ["c3"]                       # the normalised curve in chapter 2


def test_cluster_panels_list_the_words_of_each_cluster_in_one_legend():
    words, labels = ("a", "b", "c", "d"), np.array([0, 1, 0, 1])
    xy = np.arange(8.0).reshape(4, 2)
    fig = new_figure(6, 3)
    naive.cluster_panels(fig, [("one", xy), ("two", -xy)], labels, words, ("first", "second"))
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == ["first: a, c", "second: b, d"]
    assert all(not ax.texts for ax in fig.axes)    # no point labels that could overlap


def test_sine_pair_zoom_starts_at_position_zero():
    fig = new_figure(7.0, 2.8)
    naive.sine_pair_zoom(fig, 2, 353)
    left = fig.axes[0]
    xs = np.concatenate([line.get_xdata() for line in left.get_lines()
                         if len(line.get_xdata()) > 2])
    assert xs.min() >= 0


@pytest.mark.parametrize("d", [4, 64, 512])
def test_linear_explorer_runs(d):
    from posenc_lib.display.plotting import new_figure

    fig = new_figure(7.6, 3.4)
    explorer = naive.linear_explorer()
    assert explorer is not None
    naive.wavelength_schedules(fig, d)


def test_encoding_heatmaps_put_dimension_0_at_the_top():
    """The book's one orientation for an encoding's heatmap (chapters 5 and 6): positions across,
    dimensions down, dimension 0 (the fastest pair) in the top row."""
    from posenc_lib.maths import encodings

    fig = new_figure(8.0, 3.2)
    naive.encoding_heatmaps(fig, [("linear", encodings.linear(50, 8))])
    ax = fig.axes[0]
    bottom, top = ax.get_ylim()
    assert bottom > top                                   # the y axis runs downwards
    image = ax.images[0].get_array()
    assert np.allclose(image[0], np.sin(np.arange(50)))   # row 0 of the image: dimension 0


def test_circle_is_drawn_cosine_across_sine_up():
    """The book's one orientation for a (sin, cos) pair (chapters 4-6): cosine across, sine up,
    so moving along the sequence turns the point counter-clockwise."""
    fig = new_figure(7.5, 3.4)
    naive.mirror_pair(fig, 2, 353, k=1)
    circle = fig.axes[1]
    assert circle.get_xlabel().startswith("cos") and circle.get_ylabel().startswith("sin")
    start = next(line for line in circle.get_lines() if line.get_label() == "positions 2 → 3")
    assert np.allclose([start.get_xdata()[0], start.get_ydata()[0]], [np.cos(2), np.sin(2)])
