"""posenc_lib.course.figures.rope (chapter 8): the partial-rotary and axial explorers draw what the library
computes, with small static grids and fast updates."""

import itertools
import time

import numpy as np
import pytest

from posenc_lib.course.figures import rope as rope_figures


def test_partial_rotary_figure_parts():
    ex = rope_figures.partial_rotary_explorer()
    rng = np.random.default_rng(0)
    q, k_other = rng.standard_normal((2, 128))
    for fraction, content in itertools.product((0.125, 0.25, 0.5, 1.0),
                                               rope_figures.PARTIAL_CONTENTS):
        fig = ex.draw(fraction=fraction, content=content)
        ax = fig.axes[0]
        total, rotated, free, _expected = ax.lines[:4]
        r = int(128 * fraction)
        k = q if content == rope_figures.PARTIAL_CONTENTS[0] else k_other
        np.testing.assert_allclose(free.get_ydata(), q[r:] @ k[r:] / 128, atol=1e-12)
        np.testing.assert_allclose(total.get_ydata(),
                                   np.asarray(rotated.get_ydata()) + free.get_ydata(), atol=1e-12)
        assert f"rotary_dim = {r} of d = 128" in ax.get_title()


def test_axial_figure_offset_map_is_the_same_for_every_query():
    ex = rope_figures.axial_explorer()
    maps = []
    for row, col in itertools.product((0, 2, 4, 7), repeat=2):
        fig = ex.draw(query_row=row, query_col=col)
        grid_img, offset_img = fig.axes[0].images[0], fig.axes[1].images[0]
        scores = np.asarray(grid_img.get_array())
        assert np.unravel_index(np.argmax(scores), scores.shape) == (row, col)   # k = q
        maps.append(np.ma.filled(np.asarray(offset_img.get_array(), dtype=float), np.nan))
    stacked = np.stack(maps)
    spread = np.nanmax(stacked, axis=0) - np.nanmin(stacked, axis=0)
    assert np.nanmax(spread) < 1e-12


@pytest.mark.parametrize("make", [rope_figures.partial_rotary_explorer,
                                  rope_figures.axial_explorer])
def test_new_explorers_are_small_and_fast(make):
    ex = make()
    grids = [p.grid for p in ex.params]
    assert np.prod([len(g) for g in grids]) <= 24
    fig = ex.draw(**ex.defaults)
    for combo in itertools.product(*grids):
        values = dict(zip([p.name for p in ex.params], combo))
        start = time.perf_counter()
        ex._update(ex._full(values))
        assert time.perf_counter() - start < 0.05, values
        assert "base n" not in ex.alt_text(**values)
    assert fig is not None


def test_axial_query_reaches_one_block_of_offsets():
    ex = rope_figures.axial_explorer()
    for row, col in itertools.product((0, 2, 4, 7), repeat=2):
        fig = ex.draw(query_row=row, query_col=col)
        offsets = np.ma.filled(np.asarray(fig.axes[1].images[0].get_array(), dtype=float), np.nan)
        defined = np.argwhere(~np.isnan(offsets))
        assert len(defined) == 64
        assert np.ptp(defined[:, 0]) == 7 and np.ptp(defined[:, 1]) == 7   # one 8 x 8 block
        assert "blank border" not in ex.alt_text(query_row=row, query_col=col)
