"""Chapter 12 additions: RoPE variants and scaling in the catalogue, the new methods, the longer
timeline, and the numbers the new quiz questions quote."""

import re
from pathlib import Path

import numpy as np
import pytest

from posenc_lib.course import catalogue, quizzes
from posenc_lib.course.figures import summary as figs
from posenc_lib.course.quizzes import ch12 as ch12_quiz
from posenc_lib.display.plotting import new_figure, png_bytes
from posenc_lib.maths import encodings, rope, rope_scaling

ROOT = Path(__file__).resolve().parents[1]
BIB_KEYS = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text(),
                          re.M))


# -- the new methods -----------------------------------------------------------------------------
def test_new_methods_are_rope_variants_with_sources():
    axial, dynamic, llama3 = (catalogue.method(k) for k in ("axial", "dynamic", "llama3"))
    assert axial.acts_on == dynamic.acts_on == llama3.acts_on == "queries-keys"
    assert axial.relative and dynamic.relative and llama3.relative
    assert (axial.chapter, dynamic.chapter, llama3.chapter) == (8, 11, 11)
    assert axial.extends is None and dynamic.extends == llama3.extends == "rope"
    assert (axial.year, axial.month, axial.arxiv, axial.venue) == (2024, 3, "2403.13298", "ECCV")
    assert (dynamic.year, dynamic.month, dynamic.cite) == (2023, 6, "emozilla2023dynamic")
    assert (llama3.year, llama3.month, llama3.arxiv) == (2024, 7, "2407.21783")
    assert dynamic.models == ("Qwen",) and llama3.models == ("Llama 3.1",)
    assert catalogue.method("ntk").models == ()  # Qwen's scaling is the dynamic variant
    for key in ("axial", "dynamic", "llama3"):
        assert catalogue.position_parameters(key, 2048, 4096, 32, 32) == 0
        assert catalogue.method(key).lab_scheme is None


def test_timeline_order_puts_dynamic_ntk_after_ntk_and_ends_in_2024():
    cites = [e.cite for e in catalogue.TIMELINE]
    assert cites.index("bloc97ntk") < cites.index("emozilla2023dynamic") < cites.index(
        "roziere2023codellama")
    assert cites[-2:] == ["heo2024ropevit", "dubey2024llama3"]
    # 2-D RoPE was used (EVA-02, March 2023) before Heo et al.'s study
    assert cites.index("fang2023eva02") < cites.index("heo2024ropevit")
    eva = next(e for e in catalogue.TIMELINE if e.cite == "fang2023eva02")
    assert (eva.year, eva.month, eva.kind) == (2023, 3, "model")
    assert "Axial 2-D RoPE studied for ViTs (Heo et al.)" in [e.label for e in catalogue.TIMELINE]


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


def test_comparison_caption_uses_the_partial_rotary_data():
    caption = catalogue.table().caption
    assert "GPT-J and GPT-NeoX-20B rotate only part of each head (64 of 256 and 24 of 96" in caption
    assert "Axial 2-D RoPE is relative in the offset" in caption
    assert "n the RoPE base (chapter 8 calls it b" in caption
    assert "EVA-02 used it before Heo et al." in caption
    assert catalogue.method("axial").models == ("EVA-02",)
    assert "Meta's released code" in caption
    short = catalogue.table(keys=["rope", "alibi"]).caption
    assert "Axial" not in short and "Llama 3.1" not in short


# -- released settings -------------------------------------------------------------------------
def test_partial_rotary_settings_agree_with_the_configurations():
    width, heads, rot, setting, cite = catalogue.PARTIAL_ROTARY["GPT-J"]
    assert (width // heads, rot, setting, cite) == (256, 64, "rotary_dim = 64", "wang2021gptj")
    width, heads, rot, setting, cite = catalogue.PARTIAL_ROTARY["GPT-NeoX-20B"]
    pct = float(setting.split("=")[1])
    assert (width // heads, pct * (width // heads), rot) == (96, 24.0, 24)
    assert cite == "black2022gptneox"


def test_partial_rotary_with_the_library_is_relative_and_leaves_the_rest():
    width, heads, rot, _, _ = catalogue.PARTIAL_ROTARY["GPT-NeoX-20B"]
    x = np.random.default_rng(1).standard_normal((6, width // heads))
    for pairing in rope.PAIRINGS:
        out = rope.apply(x, np.arange(6) * 13, pairing=pairing, rotary_dim=rot)
        np.testing.assert_array_equal(out[:, rot:], x[:, rot:])
        head = rope.apply(x[:, :rot], np.arange(6) * 13, pairing=pairing)
        np.testing.assert_allclose(out[:, :rot], head, atol=1e-12)


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


def test_dynamic_ntk_running_factor():
    base = encodings.frequencies(128, 10000.0)
    for ell, expected in ((4096, 1.0), (8192, 3.0), (16384, 7.0)):
        theta, _ = rope_scaling.scaled_frequencies(128, 2.0, "dynamic", 10000.0,
                                                   original_max_len=4096, seq_len=ell)
        assert base[-1] / theta[-1] == pytest.approx(expected, rel=1e-12)
        assert theta[0] == base[0]
        assert expected >= ell / 4096  # at or above the stretch


# -- the variants table ------------------------------------------------------------------------
def test_variants_are_consistent_and_cited():
    keys = [v.key for v in catalogue.ROPE_VARIANTS]
    assert keys == ["pairing", "partial", "axial", "base", "linear", "dynamic", "yarn", "llama3"]
    cites = {v.cite for v in catalogue.ROPE_VARIANTS if v.cite}
    cites |= {k for v in catalogue.ROPE_VARIANTS for k in v.model_cites}
    cites |= {m.cite for m in catalogue.METHODS} | {"xiao2024streamingllm"}
    assert cites <= BIB_KEYS, sorted(cites - BIB_KEYS)
    for v in catalogue.ROPE_VARIANTS:
        assert len(v.models) == len(v.model_cites)
        assert v.chapter in (8, 11)
        # every library call the table names exists
        for call in re.findall(r"(rope(?:_scaling)?|encodings)\.(\w+)\(", v.library):
            module = {"rope": rope, "rope_scaling": rope_scaling, "encodings": encodings}[call[0]]
            assert hasattr(module, call[1]), (v.key, call)
    scaling = {v.key for v in catalogue.ROPE_VARIANTS} & set(rope_scaling.SCALING_METHODS)
    assert scaling == {"linear", "dynamic", "yarn", "llama3"}
    with pytest.raises(ValueError, match="one citation key per model"):
        catalogue.Variant("k", "n", 8, "c", "s", ("A",), (), None, "rope.apply(x)")


def test_variants_table_renders_with_the_released_settings():
    t = catalogue.variants_table()
    assert t.header == ["variant, chapter", "what changes",
                        "setting (configuration, code or paper)", "examples", "in posenc_lib"]
    assert len(t.rows) == len(catalogue.ROPE_VARIANTS)
    text = t.text()
    assert "GPT-J: rotary_dim = 64 (64 of 256 features per head)" in text
    assert "GPT-NeoX-20B: rotary_pct = 0.25 (24 of 96 features per head)" in text
    assert ('rope_scaling type "llama3", factor 8, low_freq_factor 1, high_freq_factor 4, '
            "original_max_position_embeddings 8192; rope_theta 500,000") in text
    assert "rope_theta: 10,000 (Llama 2), 1,000,000 (Code Llama), 500,000 (Llama 3)" in text
    # review fixes: no blanket "quoted from released configurations"; Qwen's own switch;
    # DeepSeek-V2's own attention factor; n and ℓ defined
    assert "quoted from the released configurations" not in t.caption
    assert "n is the RoPE base (chapter 8 calls it b" in t.caption and "ℓ the length" in t.caption
    dyn = {r[0]: r for r in t.rows}["Dynamic NTK, ch. 11"]
    assert "use_dynamic_ntk = true" in dyn[2] and dyn[3] == "Qwen"
    yarn = {r[0]: r for r in t.rows}["YaRN, ch. 11"]
    assert "by default" in yarn[1] and "DeepSeek-V2" in yarn[2] and "mscale" in yarn[2]
    axial = {r[0]: r for r in t.rows}["Axial 2-D RoPE, ch. 8"]
    assert "base 100" in axial[2] and axial[3] == "EVA-02"
    bundle = t._repr_mimebundle_()
    assert bundle["text/html"].count("<tr>") == len(t.rows) + 1
    sub = catalogue.variants_table(["partial", "llama3"])
    assert [r[0] for r in sub.rows] == ["Partial rotary, ch. 8", "Llama 3.1 scaling, ch. 11"]
    with pytest.raises(ValueError, match="key must be one of"):
        catalogue.variants_table(["xpos"])


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
