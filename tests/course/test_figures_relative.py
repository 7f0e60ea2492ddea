"""posenc_lib.course.figures.relative (chapter 7): the man -> threw demo's logits and their four
terms."""

import numpy as np
import pytest

from posenc_lib.course.figures import relative as relative_figures


# -- the man -> threw demo (figures.relative) -------------------------------------------------------
def test_pair_logit_terms_add_up_to_the_sinusoidal_logit():
    shifts = list(range(0, 16, 3))
    terms = relative_figures.pair_logit_terms(shifts=shifts)
    logits = relative_figures.pair_logits_by_shift(shifts=shifts)["sinusoidal (absolute)"]
    np.testing.assert_allclose(sum(terms.values()), logits, atol=1e-12)
    assert np.ptp(terms["content–content"]) == 0.0


def test_pair_logits_by_shift_rejects_too_many_fillers():
    with pytest.raises(ValueError, match="shifts must be at most 20, got 21"):
        relative_figures.pair_logits_by_shift(shifts=(21,))


def test_pair_logit_terms_scale_with_the_encoding():
    # scaling the encoding by c: mixed terms times c, position–position times c², content fixed
    base = relative_figures.pair_logit_terms(shifts=(0, 2, 5), seed=3, pe_scale=0.5)
    big = relative_figures.pair_logit_terms(shifts=(0, 2, 5), seed=3, pe_scale=1.5)
    for name, power in (("content–content", 0), ("content–position", 1),
                        ("position–content", 1), ("position–position", 2)):
        np.testing.assert_allclose(big[name], 3.0 ** power * base[name], atol=1e-12)
