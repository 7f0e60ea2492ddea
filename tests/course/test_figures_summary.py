"""posenc_lib.course.figures.summary (chapter 12): the where-diagram, the timeline, and the same-token figure
and explorer."""

import numpy as np

from posenc_lib.course import catalogue
from posenc_lib.course.figures import summary as figs
from posenc_lib.display.plotting import new_figure, png_bytes


# -- figures ------------------------------------------------------------------------------------
def _texts(fig):
    return " ".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_where_diagram_names_every_place_and_method():
    fig = new_figure(4.6, 6.4)
    figs.where_diagram(fig)
    text = _texts(fig)
    for word in ("INPUT", "QUERIES & KEYS", "SCORES", "NOWHERE", "sinusoidal", "learned", "RoPE",
                 "YaRN", "Shaw", "T5", "ALiBi", "NoPE", "softmax"):
        assert word in text, word
    assert png_bytes(fig)[:4] == b"\x89PNG"


def test_timeline_is_labelled():
    fig = new_figure(5.6, 6.8)
    figs.timeline(fig)
    ax = fig.axes[0]
    assert ax.get_ylabel() and ax.get_title()
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # time runs down
    labels = [t.get_text() for t in ax.texts]
    assert len(labels) == len(catalogue.TIMELINE)
    assert any("Jun 2017" in t and "Vaswani" in t for t in labels)
    assert fig.legends and len(fig.legends[0].get_texts()) == 6
    png_bytes(fig)


def test_same_token_figure():
    fig = new_figure(7.0, 5.0)
    grids = figs.same_token_logits(fig, seq_len=24, train_len=16)
    assert set(grids) == set(catalogue.LAYER_SCHEMES)
    learned = grids["learned"]
    assert np.isnan(learned[16:, :]).all() and np.isnan(learned[:, 16:]).all()
    assert np.isfinite(learned[:16, :16]).all()
    assert catalogue.diagonal_spread(grids["rope"]) < 1e-12
    axes = fig.axes
    assert len(axes) == 6 and all(ax.get_title() for ax in axes)
    assert all(ax.get_xlabel() == "key position j" for ax in axes[3:])
    assert all(ax.get_ylabel() == "query position i" for ax in axes[::3])
    png_bytes(fig)


def test_same_token_explorer_is_discovered_and_small():
    assert "same_token_explorer" in figs.__all__
    ex = figs.same_token_explorer()
    assert [p.name for p in ex.params] == ["seq_len"]
    assert ex.params[0].grid[-1] == 64 and ex.params[0].default == 32


def test_timeline_figure_keeps_every_event_on_the_axis():
    fig = new_figure(5.6, 7.4)
    figs.timeline(fig)
    ax = fig.axes[0]
    bottom, top = ax.get_ylim()
    dates = [e.year + (e.month - 0.5) / 12 for e in catalogue.TIMELINE]
    assert top < min(dates) and max(dates) < bottom
    assert ax.get_title().endswith("2024")
    assert len(ax.texts) == len(catalogue.TIMELINE)
    assert "to the end of 2024 at the bottom" in figs.timeline_alt()
    assert "July 2024 Llama 3.1 scaling (Dubey et al.)" in figs.timeline_alt()
    png_bytes(fig)
