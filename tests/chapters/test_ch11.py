"""Chapter 11 (stretching RoPE): the chapter's claims on YaRN's two ramps (the chapter's head, the
toy head's clamp, Llama 3.1 as the paper's ramp) and its quiz questions on dynamic NTK and
Llama 3.1. The exercise checkers are tested in tests/course/test_checkers.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import chapter_question

from posenc_lib.maths import encodings, rope_scaling


def _llama31_loops(d, factor=8.0, base=500000.0, old_context_len=8192, low_freq_factor=1.0,
                   high_freq_factor=4.0):
    """Llama 3.1's frequency scaling, written as Meta's released ``apply_scaling`` writes it:
    keep wavelengths below L / 4, divide those above L by s, blend in between with
    smooth = (L / wavelength - 1) / (4 - 1)."""
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    out = []
    for i in range(d // 2):
        freq = base ** (-2.0 * i / d)
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            out.append(freq)
        elif wavelen > low_freq_wavelen:
            out.append(freq / factor)
        else:
            smooth = (old_context_len / wavelen - low_freq_factor) / (
                high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * freq / factor + smooth * freq)
    return np.array(out)


def test_llama31_scaling_is_the_turns_ramp_with_thresholds_1_and_4():
    """The chapter's claim: Llama 3.1's scaling is the paper's ramp form (linear in the turns)
    with alpha = 1, beta = 4; on d = 128 it keeps pairs 0..28, ramps 29..34, divides 35..63."""
    got = rope_scaling.yarn_paper_frequencies(128, 8.0, 500000.0, 8192, alpha=1.0, beta=4.0)
    np.testing.assert_allclose(got, _llama31_loops(128), rtol=1e-12)
    theta = encodings.frequencies(128, 500000.0)
    kept = np.flatnonzero(got == theta)
    divided = np.flatnonzero(np.isclose(got, theta / 8, rtol=1e-12, atol=0))
    assert (kept[0], kept[-1], divided[0], divided[-1]) == (0, 28, 35, 63)


def test_the_two_ramps_differ_on_the_chapter_head():
    """d = 128, n = 10000, L = 2048, s = 8: the share interpolated at pairs 20, 25, 30."""
    theta = encodings.frequencies(128)
    code, _ = rope_scaling.scaled_frequencies(128, 8.0, "yarn")
    paper, _ = rope_scaling.scaled_frequencies(128, 8.0, "yarn", ramp="turns")
    share = lambda x: (theta - x) / (theta - theta / 8)  # noqa: E731
    # code: (i - 16) / 25; paper: 1 - (r_i - 1) / 31
    r = rope_scaling.turns(128)
    for i in (20, 25, 30):
        assert share(code)[i] == pytest.approx((i - 16) / 25, rel=1e-12)
        assert share(paper)[i] == pytest.approx(1 - (r[i] - 1) / 31, rel=1e-12)
    assert round(float(share(code)[30]), 2) == 0.56 and round(float(share(paper)[30]), 2) == 0.89


def test_the_toy_head_shows_the_clamp():
    """d = 16, L = 32: no pair turns 32 times; the code keeps pair 0 (low clamped at 0), the
    paper interpolates it most of the way."""
    r = rope_scaling.turns(16, 10000.0, 32)
    assert r.max() < 32 and rope_scaling.yarn_correction_range(16, 10000.0, 32)[0] == 0
    code, _ = rope_scaling.scaled_frequencies(16, 2.0, "yarn", original_max_len=32)
    paper, _ = rope_scaling.scaled_frequencies(16, 2.0, "yarn", original_max_len=32, ramp="turns")
    assert code[0] == 1.0
    assert paper[0] == pytest.approx(1 - (1 - (r[0] - 1) / 31) / 2, rel=1e-12)


def test_ch11_quiz_dynamic_and_llama3_questions():
    q = chapter_question(11, "A model trained on L = 2048 tokens (d = 128, base 10000) is set up with")
    right = [o for o in q.options if o.correct]
    assert len(right) == 1 and right[0].text.startswith("Not at all on 1024 tokens; by 5 on 4096")
    q = chapter_question(11, "Llama 3.1's configuration reads")
    right = [o for o in q.options if o.correct]
    kept = np.flatnonzero(encodings.wavelengths(128, 500000.0) <= 8192 / 4)
    assert len(right) == 1 and right[0].text.startswith(f"Pairs 0 to {kept[-1]}:")
    # no length cue: the right option is not the longest one
    assert len(right[0].text) <= max(len(o.text) for o in q.options if not o.correct)
