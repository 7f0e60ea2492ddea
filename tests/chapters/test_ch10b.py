"""Chapter 10b (real text): the chapter's experiment: one network for every scheme, the stored
perplexity curves and passkey results complete, and the RoPE model reproduced from scratch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc_lib import lab
from posenc_lib.lab import textlm


# -- the chapter's experiment: stored models and results --------------------------------------
def test_lm_config_is_the_same_network_for_every_scheme():
    shapes = {p: lab.param_shapes(textlm.lm_config(p)) for p in lab.POSITIONS}
    common = set.intersection(*(set(s) for s in shapes.values()))
    for p, s in shapes.items():
        assert {k: v for k, v in s.items() if k in common} == {
            k: v for k, v in shapes["none"].items() if k in common}
        assert set(s) - common <= {"pos_embed", "t5_bias"}, p
    assert shapes["learned"]["pos_embed"] == (1024, 64)


def test_stored_curves_are_complete_and_consistent():
    """Every scheme and seed is stored; the numbers obey what the protocols guarantee."""
    curves = textlm.length_curves()
    assert curves["lengths"] == [64, 128, 256, 512, 1024]
    for p in lab.POSITIONS:
        runs = curves["schemes"][p]
        assert len(runs) == len(textlm.LM_SEEDS)
        for run in runs:
            assert len(run["nonoverlapping"]) == len(run["sliding"]) == 5
            # every model beats a uniform guess by far, at every length
            assert max(run["nonoverlapping"] + run["sliding"]) < 96 / 2
            # the per-position losses average (over blocks) to the non-overlapping loss
            for n, ppl in zip(curves["lengths"], run["nonoverlapping"]):
                blocks = np.asarray(run["position_loss"][str(n)])
                assert len(blocks) == n // 8
                assert math.exp(blocks.mean()) == pytest.approx(ppl, rel=2e-4)


@pytest.mark.slow
def test_stored_lm_is_reproduced_from_scratch(monkeypatch):
    """Retrain the RoPE language model (seed 0) with the cache off: its losses and its test
    perplexity agree with the stored model's (up to another CPU's rounding)."""
    stored = textlm.trained_lm("rope", 0, progress=False)
    fresh = lab.train(textlm.lm_config("rope"), textlm.TextTask(), seed=0, progress=False,
                      **textlm.LM_TRAINING)
    assert fresh.losses[0] == pytest.approx(stored.losses[0], rel=1e-5)
    assert fresh.losses[-1] == pytest.approx(stored.losses[-1], abs=0.05)
    config = textlm.lm_config("rope")
    for n in (64, 256):
        a = textlm.perplexity(textlm.nonoverlapping_nll(stored.params, config, length=n,
                                                        n_tokens=4096))
        b = textlm.perplexity(textlm.nonoverlapping_nll(fresh.params, config, length=n,
                                                        n_tokens=4096))
        assert b == pytest.approx(a, rel=0.03), (n, a, b)
    stored_curve = textlm.length_curves()["schemes"]["rope"][0]["nonoverlapping"]
    assert textlm.perplexity(textlm.nonoverlapping_nll(
        stored.params, config, length=64, n_tokens=textlm.NONOVERLAP_TOKENS)) == pytest.approx(
        stored_curve[0], rel=1e-9)


def test_stored_passkey_results_are_complete():
    pk = textlm.passkey_results()
    assert pk["lengths"] == [64, 128, 256, 512, 1024] and pk["n_digits"] == 2
    for p in lab.POSITIONS:
        acc = np.asarray(pk["schemes"][p])
        assert acc.shape == (3, 5) and np.all((acc >= 0) & (acc <= 1))
        # accuracies are shares of 128 inputs
        np.testing.assert_allclose(acc * textlm.PASSKEY_TESTS,
                                   np.round(acc * textlm.PASSKEY_TESTS), atol=1e-9)
        grid = np.asarray(pk["depth"][p])
        assert grid.shape == (len(textlm.PASSKEY_DEPTHS), len(textlm.PASSKEY_DEPTH_LENGTHS))
