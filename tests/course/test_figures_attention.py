"""posenc_lib.course.figures.attention (chapters 1 and 2): the highlighted attention heatmap and the word plus
position panels."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from posenc_lib.course import toy
from posenc_lib.course.figures import attention as attention_figures
from posenc_lib.maths import encodings

# -- figures ------------------------------------------------------------------------------------
_WORDS = "the brown dog chased the black dog".split()


def test_highlighted_heatmap_outlines_rows_and_columns():
    _, w = toy.self_attention(_WORDS)
    fig = Figure()
    attention_figures.highlighted_heatmap(fig, _WORDS, w, rows=(2, 6), cols=(2, 6, 0), title="t")
    ax = fig.axes[0]
    frames = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(frames) == 5
    assert [t.get_text() for t in ax.get_yticklabels()][2] == "dog (2)"
    assert np.array_equal(ax.images[0].get_array(), w)
    assert len(ax.texts) == 49
    # the docstring's colours: solid orange rows, dashed bluish-green columns (Okabe–Ito)
    from matplotlib.colors import to_hex
    solid = [p for p in frames if p.get_linestyle() == "solid"]
    dashed = [p for p in frames if p.get_linestyle() == "--"]
    assert len(solid) == 2 and len(dashed) == 3
    assert {to_hex(p.get_edgecolor()) for p in solid} == {"#e69f00"}
    assert {to_hex(p.get_edgecolor()) for p in dashed} == {"#009e73"}


@pytest.mark.parametrize("kwargs", [dict(weights=np.zeros((3, 3))), dict(rows=(7,)), dict(cols=(-1,))])
def test_highlighted_heatmap_rejects_bad_input(kwargs):
    args = dict(weights=np.full((7, 7), 1 / 7)) | kwargs
    with pytest.raises(ValueError):
        attention_figures.highlighted_heatmap(Figure(), _WORDS, **args)


def test_word_plus_position_draws_the_sum():
    e = toy.embed(_WORDS, 16)
    p = encodings.sinusoidal(7, 16) / 4
    fig = Figure()
    attention_figures.word_plus_position(fig, _WORDS, e, p, rows=(2, 6))
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 3
    for ax, m in zip(panels, (e, p, e + p)):
        np.testing.assert_allclose(ax.images[0].get_array(), m)
        assert len([q for q in ax.patches if isinstance(q, Rectangle)]) == 2
    lims = {ax.images[0].get_clim() for ax in panels}
    assert len(lims) == 1                              # one shared colour scale
    (lo, hi), = lims
    assert hi == -lo == pytest.approx(np.abs(e + p).max().item())
    assert [t.get_text() for t in panels[0].texts + panels[1].texts] == ["+", "="]
    fig = Figure()
    attention_figures.word_plus_position(fig, _WORDS, e, p, titles=("A", "B", "C"))
    assert [ax.get_title() for ax in fig.axes if ax.images] == ["A", "B", "C"]


@pytest.mark.parametrize("kwargs", [dict(position_vectors=np.zeros((7, 8))), dict(rows=(9,)),
                                    dict(limit=0.0), dict(titles=("a", "b"))])
def test_word_plus_position_rejects_bad_input(kwargs):
    args = dict(word_vectors=np.zeros((7, 16)), position_vectors=np.ones((7, 16))) | kwargs
    with pytest.raises(ValueError):
        attention_figures.word_plus_position(Figure(), _WORDS, **args)
