"""posenc_lib.course.figures.alibi (chapter 9): the figures draw the library's numbers."""

import numpy as np

from posenc_lib.course.figures import alibi as figs
from posenc_lib.display.plotting import new_figure
from posenc_lib.maths import alibi


# -- figures return the numbers they draw -------------------------------------------------------
def test_figures_draw_the_library_numbers():
    out = figs.last_row_bars(new_figure())
    np.testing.assert_allclose(out[0.5], alibi.weights(5, 0.5)[-1], atol=0)
    sign = figs.sign_comparison(new_figure(), seq_len=8, slope=0.5)
    assert np.argmax(list(sign.values())[2]) == 0 and np.argmax(list(sign.values())[0]) == 7
    for fn in (figs.exponential_not_linear, figs.slope_rules, figs.extrapolation_profile):
        fig = new_figure()
        fn(fig)
        assert all(ax.get_xlabel() for ax in fig.axes if ax.get_label() != "<colorbar>")
