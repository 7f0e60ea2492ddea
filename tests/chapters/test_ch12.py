"""Chapter 12 (summary): the sources it cites, the counts it quotes, its quiz questions' numbers
and its exercise checkers."""

import re

import numpy as np
import pytest
from helpers import BIB_KEYS, ROOT

from posenc_lib.course import catalogue, exercises, quizzes
from posenc_lib.course.quizzes import ch12 as ch12_quiz
from posenc_lib.maths import encodings, rope, rope_scaling


def test_the_chapter_cites_only_known_keys():
    text = (ROOT / "notebooks" / "12_summary.ipynb").read_text()
    cited = {k.strip() for group in re.findall(r"\{cite\}`([^`]+)`", text)
             for k in group.split(",")}
    assert cited and cited <= BIB_KEYS, sorted(cited - BIB_KEYS)


# -- exercise checkers --------------------------------------------------------------------------
def good_acts_where(layer):
    return catalogue.classify_layer(layer)


def shift_probe(layer):
    """The usual mistake: compare p with p + c, which relative schemes cannot see."""
    x = np.random.default_rng(0).standard_normal((6, 16))
    p = np.arange(6)
    if np.allclose(layer(x, p), layer(x, p + 7)):
        return "nowhere"
    return catalogue.classify_layer(layer)


def no_zero_probe(layer):
    """Skips the zero-input test, so RoPE looks like an input encoding."""
    found = catalogue.classify_layer(layer)
    return "input" if found == "queries-keys" else found


@pytest.mark.parametrize("student, expect", [
    (good_acts_where, "all 8 checks passed"),
    (shift_probe, "a shift p -> p + c keeps every distance"),
    (no_zero_probe, "feed x = 0 and its logits vanish"),
    (lambda layer: "scores" if good_acts_where(layer) == "input" else good_acts_where(layer),
     "Tell them apart by whether the position effect depends on the content"),
    (lambda layer: "input" if good_acts_where(layer) == "scores" else good_acts_where(layer),
     "shifts the logits by the same matrix whatever the tokens"),
    (lambda layer: "input" if good_acts_where(layer) == "nowhere" else good_acts_where(layer),
     "this layer ignores its positions"),
    (lambda layer: "rotary", "return one of 'input', 'queries-keys', 'scores', 'nowhere'"),
    (lambda layer: None, "did you forget `return`"),
    (lambda layer: layer(np.zeros((3, 5)), np.arange(3)), "your function raised ValueError"),
])
def test_acts_where_checker(student, expect):
    report = exercises.check_acts_where(student)
    assert expect in report.text()
    assert report.ok == (student is good_acts_where)


def test_acts_where_stub_and_bad_argument():
    def acts_where(layer):
        ...  # the notebook's stub

    assert "returned None" in exercises.check_acts_where(acts_where).text()
    with pytest.raises(TypeError, match="pass your function itself"):
        exercises.check_acts_where("input")


def good_params(scheme, max_len, d, n_heads, n_layers, k=16):
    return {"learned": max_len * d, "shaw": n_layers * 2 * (2 * k + 1) * (d // n_heads),
            "t5": n_heads * 32}.get(scheme, 0)


def _patched(scheme, fn):
    return lambda s, L, d, h, n, k=16: (fn(L, d, h, n) if s == scheme
                                        else good_params(s, L, d, h, n, k))


@pytest.mark.parametrize("student, expect", [
    (good_params, "all 11 checks passed"),
    (_patched("t5", lambda L, d, h, n: n * h * 32), "shares it with every layer"),
    (_patched("shaw", lambda L, d, h, n: n * 33 * (d // h)), "one added to the keys and one to"),
    (_patched("shaw", lambda L, d, h, n: n * 2 * 33 * d), "as in Shaw et al.'s base model"),
    (_patched("shaw", lambda L, d, h, n: n * 2 * 32 * (d // h)), "count the offset 0 too"),
    (_patched("shaw", lambda L, d, h, n: 2 * 33 * (d // h)), "multiply by the number of layers"),
    (_patched("rope", lambda L, d, h, n: d // 2), "RoPE adds no parameters"),
    (_patched("alibi", lambda L, d, h, n: h), "fixed before training"),
    (_patched("learned", lambda L, d, h, n: n * L * d), "added once, to the input"),
    (_patched("sinusoidal", lambda L, d, h, n: L * d), "computed from a formula"),
    (lambda *a: None, "did you forget `return`"),
    (lambda s, *a: "many" if s == "t5" else good_params(s, *a), "return a number of parameters"),
    (_patched("t5", lambda L, d, h, n: n * 32), "not of layers"),
    (lambda *a: good_params(*a) + 0.5, "not a whole number"),
    (lambda s, L, d, h, n, k=16: good_params(s, L, d, h, n, 16), "this case has k = 8"),
    (lambda s, L, d, h, n, k=16: (n * 2 * (2 * k + 1) * 64 if s == "shaw"
                                  else good_params(s, L, d, h, n, k)), "Compute it from d and H"),
])
def test_position_params_checker(student, expect):
    report = exercises.check_position_params(student)
    assert expect in report.text()
    assert report.ok == (student is good_params)


def test_llama31_configuration_reproduces_the_chapter_counts():
    cfg = catalogue.LLAMA31_ROPE
    assert (cfg["rope_type"], cfg["factor"], cfg["low_freq_factor"], cfg["high_freq_factor"],
            cfg["original_max_position_embeddings"], cfg["rope_theta"]) == (
        "llama3", 8.0, 1.0, 4.0, 8192, 500_000.0)
    assert cfg["max_position_embeddings"] == 16 * cfg["original_max_position_embeddings"]
    assert catalogue.ROPE_BASES["Llama 3"][0] == cfg["rope_theta"]
    theta, scale = rope_scaling.scaled_frequencies(
        128, cfg["factor"], "llama3", cfg["rope_theta"],
        original_max_len=cfg["original_max_position_embeddings"],
        low_freq_factor=cfg["low_freq_factor"], high_freq_factor=cfg["high_freq_factor"])
    ratio = encodings.frequencies(128, cfg["rope_theta"]) / theta
    kept, full = np.isclose(ratio, 1.0), np.isclose(ratio, cfg["factor"])
    assert (kept.sum(), (~(kept | full)).sum(), full.sum(), scale) == (29, 6, 29, 1.0)
    paper = rope_scaling.yarn_paper_frequencies(128, 8.0, 500_000.0, 8192, alpha=1.0, beta=4.0)
    np.testing.assert_allclose(paper, theta, rtol=1e-12)


# -- the chapter -------------------------------------------------------------------------------
def test_the_chapter_cites_the_new_sources():
    text = (ROOT / "notebooks" / "12_summary.ipynb").read_text()
    for key in ("heo2024ropevit", "xiao2024streamingllm", "emozilla2023dynamic",
                "kazemnejad2023nope", "dubey2024llama3"):
        assert key in text, key
    assert "catalogue.variants_table()" in text
    assert "fang2023eva02" in text and "use_dynamic_ntk" in text and "kv_mixed_gap" in text
    assert "In 2024 RoPE also went two-dimensional" not in text


# -- the new quiz questions --------------------------------------------------------------------
def test_whole_width_permutation_moves_rows_between_heads():
    heads, head_dim = ch12_quiz._CONV_HEADS, ch12_quiz._CONV_HEAD_DIM
    perm = rope.pairing_permutation(heads * head_dim)
    same_head = perm // head_dim == np.arange(heads * head_dim) // head_dim
    assert ch12_quiz._CONV_MOVED == int((~same_head).sum()) == 3968
    # the right conversion permutes inside every head, as the feedback says
    w = np.random.default_rng(0).standard_normal((heads * head_dim, 8))
    per_head = np.concatenate([h[rope.pairing_permutation(head_dim)]
                               for h in np.split(w, heads)])
    np.testing.assert_array_equal(rope.convert_qk_weight(w, heads), per_head)
    assert not np.array_equal(w[perm], per_head)


def test_gpt_neox_quiz_numbers():
    assert (ch12_quiz._NEOX_HEAD, ch12_quiz._NEOX_ROT, ch12_quiz._NEOX_PAIRS,
            ch12_quiz._NEOX_WIDTH_PAIRS) == (96, 24, 12, 768)
    q = quizzes.chapter(12)
    assert len(q.questions) == 8
    prompts = " ".join(x.prompt for x in q.questions)
    assert "rotary_pct = 0.25" in prompts and "Kazemnejad" in prompts
    nope = q.questions[7]
    right = nope.options[nope.correct_indices[0]].text
    assert "on their synthetic tasks" in right and "than the encodings they tested" in right


def _qwen_ntk_alpha(seq_len: int, train_len: int) -> int:
    """Qwen's released modelling code: ``2 ** ceil(log2(seq_len / seq_length) + 1) - 1``, at least 1."""
    import math

    return max(2 ** math.ceil(math.log(seq_len / train_len, 2) + 1) - 1, 1)


def test_qwen_dynamic_factor_is_the_s2_rule_rounded_up_to_powers_of_two():
    """The chapter's sentence: Qwen's factor equals the dynamic rule with s = 2 at L, 2L, 4L, ...,
    and at any other length the factor of the next of these lengths (never below the s = 2 one)."""
    L = 8192
    for k in range(0, 5):
        ell = L * 2 ** k
        assert _qwen_ntk_alpha(ell, L) == 2 * ell / L - 1
    for ell in (L // 2, L, L + 1, 3 * L, 5 * L, 16 * L - 1):
        hf = max(2 * ell / L - 1, 1)
        nxt = L * 2 ** max(0, int(np.ceil(np.log2(ell / L))))     # next power-of-two multiple
        assert _qwen_ntk_alpha(ell, L) == max(2 * nxt / L - 1, 1) >= hf
