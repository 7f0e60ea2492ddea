"""posenc_lib.course.figures.realtext (chapter 10b): the loss explorer's legend."""

from __future__ import annotations


def test_loss_explorer_legend_names_and_draws_the_scheme_shown():
    """The explorer changes its one legend in place (so it can blit): after a move, the entry
    for the scheme carries that scheme's name, colour, marker and line style."""
    from matplotlib.colors import to_hex

    from posenc_lib.course.figures.lab import SCHEME_LABEL, SCHEME_STYLE
    from posenc_lib.course.figures.realtext import loss_explorer

    ex = loss_explorer()
    for scheme in ("t5", "rope", "alibi"):
        fig = ex.draw(scheme=scheme)
        legend = fig.axes[0].get_legend()
        assert [t.get_text() for t in legend.get_texts()][1] == SCHEME_LABEL[scheme]
        handle = legend.legend_handles[1]
        colour, marker, _ = SCHEME_STYLE[scheme]
        assert to_hex(handle.get_color()) == to_hex(colour) and handle.get_marker() == marker
        assert handle.get_linestyle() == fig.axes[0].lines[1].get_linestyle()
