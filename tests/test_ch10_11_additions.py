"""Chapters 10 and 11, the additions: the scaling explorer's dynamic NTK and Llama 3.1 frames,
the dynamic-NTK figure, and the quiz questions on NoPE, attention sinks, dynamic NTK and
Llama 3.1's configuration."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from posenc_lib.course import quizzes
from posenc_lib.course.figures import scaling as scaling_figures
from posenc_lib.display import explorer, quiz
from posenc_lib.display.plotting import new_figure, png_bytes
from posenc_lib.maths import attention, encodings, rope_scaling


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


# -- the quizzes ------------------------------------------------------------------------------------
def _question(number: int, start: str, **values) -> quiz.Question:
    q = quizzes.chapter(number, **values) if values else quizzes.chapter(number)
    hits = [x for x in q.questions if x.prompt.startswith(start)]
    assert len(hits) == 1, start
    return hits[0]


def test_ch11_quiz_dynamic_and_llama3_questions():
    q = _question(11, "A model trained on L = 2048 tokens (d = 128, base 10000) is set up with")
    right = [o for o in q.options if o.correct]
    assert len(right) == 1 and right[0].text.startswith("Not at all on 1024 tokens; by 5 on 4096")
    q = _question(11, "Llama 3.1's configuration reads")
    right = [o for o in q.options if o.correct]
    kept = np.flatnonzero(encodings.wavelengths(128, 500000.0) <= 8192 / 4)
    assert len(right) == 1 and right[0].text.startswith(f"Pairs 0 to {kept[-1]}:")
    # no length cue: the right option is not the longest one
    assert len(right[0].text) <= max(len(o.text) for o in q.options if not o.correct)


def test_the_nope_counter_of_the_ch10_quiz():
    # the causal head with equal scores outputs 1/(t+1) on a start-token indicator, the
    # bidirectional one 1/L: the numbers the quiz question quotes
    v = np.zeros((16, 1))
    v[0] = 1.0
    q = np.zeros((16, 2))
    causal = attention.attention(q, q, v, causal=True)[0][:, 0]
    bidir = attention.attention(q, q, v, causal=False)[0][:, 0]
    np.testing.assert_allclose(causal, 1 / np.arange(1, 17), rtol=1e-12)
    np.testing.assert_allclose(bidir, 1 / 16, rtol=1e-12)


def test_the_sink_question_of_the_ch10_quiz_has_no_length_cue_and_says_on_average():
    import inspect
    from types import SimpleNamespace

    from posenc_lib.course.quizzes import ch10

    class _Any(float):  # stands in for any result the quiz reads (an accuracy of 0.5)
        def __new__(cls):
            return super().__new__(cls, 0.5)

        def __getitem__(self, key):
            return _Any()

        def __iter__(self):
            return iter([_Any()] * 4)

    class _Results(SimpleNamespace):
        def __getattr__(self, name):
            return _Any()

    values = {k: _Results() for k in inspect.signature(ch10.build).parameters}
    q = _question(10, "Xiao et al. found that many heads", **values)
    right = [o for o in q.options if o.correct]
    assert len(right) == 1 and right[0].text.startswith("Both put position before content")
    # no length cue: the right option is neither the longest nor the shortest one
    lengths = sorted(len(o.text) for o in q.options)
    assert lengths[0] < len(right[0].text) < lengths[-1], [len(o.text) for o in q.options]
    # the 1% statement is about the average over the last 32 queries, not single queries
    assert "averaged over the last 32 queries" in right[0].feedback
