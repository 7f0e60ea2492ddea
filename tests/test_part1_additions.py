"""Additions to chapters 1 and 6: the spectrum of an encoding's columns, and three figures.

Expected values come from closed forms (a whole number of cycles, a counter's bits) written here,
never from the code under test.
"""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from posenc_lib.course import toy
from posenc_lib.course.figures import attention as attention_figures
from posenc_lib.course.figures import sinusoidal as sinusoidal_figures
from posenc_lib.maths import encodings, periodicity


# -- periodicity.spectrum / peak_frequencies --------------------------------------------------
@pytest.mark.parametrize("cycles, length", [(5, 100), (1, 64), (37, 1000)])
def test_spectrum_of_a_whole_number_of_cycles_is_one_spike(cycles, length):
    pos = np.arange(length)
    for wave in (np.sin, np.cos):
        freqs, amps = periodicity.spectrum(wave(2 * math.pi * cycles * pos / length))
        assert freqs[cycles] == pytest.approx(cycles / length)
        assert amps[cycles, 0] == pytest.approx(1.0, abs=1e-12)
        assert np.delete(amps[:, 0], cycles).max() < 1e-12


def test_spectrum_constant_and_nyquist_and_shapes():
    freqs, amps = periodicity.spectrum(np.full(8, 0.25))
    assert amps[0, 0] == pytest.approx(0.25) and amps[1:, 0].max() < 1e-15
    _, amps = periodicity.spectrum((-1.0) ** np.arange(8))          # 0.5 cycles per position
    assert amps[-1, 0] == pytest.approx(1.0) and freqs[-1] == 0.5
    freqs, amps = periodicity.spectrum(np.zeros((10, 3)))
    assert freqs.shape == (6,) and amps.shape == (6, 3)


@pytest.mark.parametrize("bad", [[1.0], np.zeros((2, 2, 2)), [0.0, np.nan, 1.0], [0.0, np.inf]])
def test_spectrum_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        periodicity.spectrum(bad)


@pytest.mark.parametrize("d, length", [(4, 2**14), (8, 2**16), (16, 2**20)])
def test_peak_frequencies_of_the_sinusoidal_columns(d, length):
    pe = encodings.sinusoidal(length, d)
    peaks = periodicity.peak_frequencies(pe)
    for j in range(d):
        expected = 10000.0 ** (-2 * (j // 2) / d) / (2 * math.pi)  # by hand: ω_i / 2π
        assert abs(peaks[j] - expected) <= 0.5 / length, (j, peaks[j], expected)


def test_peak_frequencies_few_turns_may_be_a_step_off():
    # 6.5 turns of sin(0.01 pos) in 4096 positions: the peak is one grid step off, not half
    peak = periodicity.peak_frequencies(encodings.sinusoidal(4096, 4)[:, 2])[0]
    assert 0.5 / 4096 < abs(peak - 0.01 / (2 * math.pi)) <= 1.5 / 4096


def test_peak_frequencies_of_a_binary_counter():
    bits = (np.arange(1024)[:, None] >> np.arange(5)) & 1
    assert periodicity.peak_frequencies(bits).tolist() == [0.5, 0.25, 0.125, 0.0625, 0.03125]


def test_peak_frequencies_ignores_the_constant_part():
    x = 5.0 + 0.1 * np.sin(2 * math.pi * 3 * np.arange(50) / 50)
    assert periodicity.peak_frequencies(x).tolist() == [3 / 50]


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
