"""posenc_lib.lab.textlm: the real-text corpus, its tasks, the two perplexity protocols and the
passkey accuracy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib import lab
from posenc_lib.lab import textlm

PRINTABLE = st.text(alphabet=st.sampled_from(textlm.VOCAB), max_size=200)


# -- corpus ---------------------------------------------------------------------------------


def test_corpus_is_large_enough_and_split_by_document():
    sizes = {s: len(textlm.corpus_text(s)) for s in textlm.SPLITS}
    assert sum(sizes.values()) >= 500_000
    assert sizes["train"] > 4 * (sizes["valid"] + sizes["test"]) / 2
    paragraphs = {s: set(textlm.corpus_text(s).split("\n")) - {""} for s in textlm.SPLITS}
    # no paragraph of a held-out document is in the training text
    assert not paragraphs["train"] & paragraphs["test"]
    assert not paragraphs["train"] & paragraphs["valid"]
    assert (textlm.CORPUS_DIR / "LICENSE").read_text().count("Python Software Foundation") >= 2
    readme = (textlm.CORPUS_DIR / "README.md").read_text()
    for s in textlm.SPLITS:  # the README states every split's size
        assert f"{sizes[s]:,}" in readme


def test_vocabulary_is_newline_plus_printable_ascii():
    assert textlm.VOCAB[0] == "\n" and textlm.VOCAB[1] == " " and textlm.VOCAB[-1] == "~"
    assert len(textlm.VOCAB) == len(set(textlm.VOCAB)) == 96
    assert set(textlm.corpus_text("train")) <= set(textlm.VOCAB)
    assert "@" not in textlm.corpus_text("test")  # the passkey marker (train has two, replaced)


@given(PRINTABLE)
def test_encode_decode_round_trip(text):
    ids = textlm.encode(text)
    assert ids.dtype == np.int64 and len(ids) == len(text)
    assert textlm.decode(ids) == text
    assert all(textlm.VOCAB[i] == c for i, c in zip(ids, text))


@pytest.mark.parametrize("text, index", [("café", 3), ("tab\there", 3), ("\u00a0x", 0)])
def test_encode_names_the_first_character_outside_the_vocabulary(text, index):
    with pytest.raises(ValueError, match=f"at index {index}"):
        textlm.encode(text)


def test_bad_inputs_get_clear_errors():
    with pytest.raises(TypeError, match="text must be a str"):
        textlm.encode(b"abc")
    with pytest.raises(ValueError, match=r"ids must lie in \[0, 96\)"):
        textlm.decode([0, 96])
    with pytest.raises(TypeError, match="ids must be integers"):
        textlm.decode([0.5])
    with pytest.raises(ValueError, match="split must be one of"):
        textlm.TextTask("dev")
    with pytest.raises(ValueError, match="depth must be None or a number"):
        textlm.PasskeyTask(depth=1.5)
    with pytest.raises(ValueError, match="length must be >= 9"):
        textlm.PasskeyTask(n_digits=4).sample(np.random.default_rng(0), 2, 8)


# -- tasks ----------------------------------------------------------------------------------


def test_text_task_windows_are_corpus_text_and_targets_are_the_next_character():
    tokens, targets, mask = textlm.TextTask("valid").sample(np.random.default_rng(3), 5, 40)
    assert tokens.shape == targets.shape == mask.shape == (5, 40) and mask.all()
    np.testing.assert_array_equal(tokens[:, 1:], targets[:, :-1])
    text = textlm.corpus_text("valid")
    for t, y in zip(tokens, targets):
        assert textlm.decode(np.append(t, y[-1])) in text


def test_text_task_is_reproducible_and_named_by_its_text():
    a = textlm.TextTask().sample(np.random.default_rng(1), 4, 16)
    b = textlm.TextTask().sample(np.random.default_rng(1), 4, 16)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert "corpus=" in repr(textlm.TextTask()) and repr(textlm.TextTask()) != repr(
        textlm.TextTask("test"))


@pytest.mark.parametrize("n_digits", [1, 4])
def test_passkey_asks_for_the_digits_after_the_first_marker(n_digits):
    task = textlm.PasskeyTask(n_digits=n_digits)
    tokens, targets, mask = task.sample(np.random.default_rng(0), 50, 48)
    marker = textlm.encode("@")[0]
    for t, y, m in zip(tokens, targets, mask):
        full = np.append(t, y[-1])  # the whole sequence of 49 characters
        where = np.flatnonzero(full == marker)
        assert len(where) == 2 and where[1] == len(full) - n_digits - 1
        key = full[where[0] + 1: where[0] + 1 + n_digits]
        assert textlm.decode(key).isdigit()
        assert m.sum() == n_digits and m[-n_digits:].all()
        np.testing.assert_array_equal(y[m], key)  # the scored targets are the key's digits


@pytest.mark.parametrize("depth, start", [(0.0, 0), (1.0, 49 - 2 * 5), (0.5, round(0.5 * 39))])
def test_passkey_depth_places_the_key(depth, start):
    tokens, _, _ = textlm.PasskeyTask(depth=depth).sample(np.random.default_rng(2), 6, 48)
    marker = textlm.encode("@")[0]
    assert (tokens[:, start] == marker).all()


# -- perplexity protocols -------------------------------------------------------------------

CONFIG = lab.LabConfig(vocab_size=96, n_outputs=96, position="alibi", d_model=16, n_heads=2,
                       n_layers=1, d_mlp=0, max_len=64)


PARAMS = lab.init_params(CONFIG, 0)


def _reference_nll(window: np.ndarray, config=CONFIG, params=PARAMS) -> np.ndarray:
    """Loss of each next character of one window, with scipy-free log-sum-exp by hand."""
    logits = lab.forward(params, window[None, :-1], config)[0]
    out = []
    for row, target in zip(logits, window[1:]):
        m = row.max()
        out.append(m + math.log(np.exp(row - m).sum()) - row[target])
    return np.array(out)


def test_nonoverlapping_nll_scores_consecutive_windows():
    ids = textlm.corpus_tokens("test")
    nll = textlm.nonoverlapping_nll(PARAMS, CONFIG, length=16, n_tokens=40)
    assert nll.shape == (2, 16)  # 40 // 16 windows
    np.testing.assert_allclose(nll[1], _reference_nll(ids[16:33]), rtol=1e-10)


def test_sliding_nll_scores_the_same_characters_at_every_length():
    ids = textlm.corpus_tokens("test")
    for length in (8, 16, 32):
        nll = textlm.sliding_nll(PARAMS, CONFIG, length=length, stride=8, n_scored=16, offset=40)
        assert nll.shape == (2, 8)
        # window 1 predicts characters 49..56 from the `length` characters ending at 48
        window = ids[40 + 16 - length: 40 + 16 + 1]
        np.testing.assert_allclose(nll[1], _reference_nll(window)[-8:], rtol=1e-10)


def test_sliding_with_stride_equal_to_length_is_nonoverlapping():
    a = textlm.nonoverlapping_nll(PARAMS, CONFIG, length=16, n_tokens=64)
    b = textlm.sliding_nll(PARAMS, CONFIG, length=16, stride=16, n_scored=64, offset=0)
    np.testing.assert_array_equal(a, b)


def test_perplexity_is_exp_of_the_mean_loss():
    assert textlm.perplexity([math.log(2.0), math.log(8.0)]) == pytest.approx(4.0)
    # a uniform guess over the vocabulary has perplexity = vocabulary size
    assert textlm.perplexity(np.full(10, math.log(96))) == pytest.approx(96)
    with pytest.raises(ValueError, match="non-empty array of finite"):
        textlm.perplexity([])
    with pytest.raises(ValueError, match="non-empty array of finite"):
        textlm.perplexity([1.0, np.inf])


def test_protocol_arguments_are_checked():
    with pytest.raises(ValueError, match="stride must be <= length=16"):
        textlm.sliding_nll(PARAMS, CONFIG, length=16, stride=32)
    with pytest.raises(ValueError, match="offset must be >= length - stride = 8"):
        textlm.sliding_nll(PARAMS, CONFIG, length=16, stride=8, offset=4)
    with pytest.raises(ValueError, match="n_tokens must hold at least one window"):
        textlm.nonoverlapping_nll(PARAMS, CONFIG, length=16, n_tokens=8)
    with pytest.raises(ValueError, match="n_scored must hold"):
        textlm.sliding_nll(PARAMS, CONFIG, length=16, stride=16, n_scored=10**7)
    learned = lab.LabConfig(**{**CONFIG.__dict__, "position": "learned", "max_len": 16})
    with pytest.raises(ValueError, match="max_len=16"):
        textlm.nonoverlapping_nll(lab.init_params(learned, 0), learned, length=32, n_tokens=64)
    bidirectional = lab.LabConfig(**{**CONFIG.__dict__, "causal": False})
    with pytest.raises(ValueError, match="causal character model"):
        textlm.nonoverlapping_nll(PARAMS, bidirectional, length=16, n_tokens=64)


def test_a_causal_model_scores_a_window_prefix_the_same_at_any_length():
    """Causality: the first 16 predictions of a 64-token window are those of its 16-token
    prefix, for a scheme that only sees offsets (ALiBi) -- the non-overlapping protocol's
    early tokens are the same predictions at every length."""
    long = textlm.nonoverlapping_nll(PARAMS, CONFIG, length=64, n_tokens=64)
    short = textlm.nonoverlapping_nll(PARAMS, CONFIG, length=16, n_tokens=16)
    np.testing.assert_allclose(long[0, :16], short[0], rtol=1e-10)


def test_passkey_accuracy_is_the_share_of_inputs_with_every_digit_right():
    """Recomputed with lab.forward on the same inputs: a key counts only if both digits are
    the argmax; and a model that knows nothing finds about none."""
    config = textlm.lm_config("alibi")
    params = lab.init_params(config, 3)
    tokens, targets, mask = textlm.PasskeyTask(2, split="test").sample(
        np.random.default_rng(5), 40, 32)
    logits = lab.forward(params, tokens, config)
    right = logits.argmax(-1) == targets
    expected = np.mean([r[m].all() for r, m in zip(right, mask)])
    assert textlm.passkey_accuracy(params, config, length=32, n=40) == expected
    assert expected <= 0.1
    with pytest.raises(ValueError, match="causal character model"):
        textlm.passkey_accuracy(lab.init_params(CONFIG, 0),
                                lab.LabConfig(**{**CONFIG.__dict__, "causal": False}), length=32)
