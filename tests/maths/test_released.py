"""posenc_lib.maths.released against transformers' own numbers (tests/golden/released, made by
tools/hf_reference.py, whose own tests are in tests/tools/test_hf_reference.py), plus unit tests.
No torch here.

Tolerances. ``inv_freq64`` and ``inv_freq`` after a length change are the reference formulas run in
float64 (see tools/hf_reference_worker.py) and stored to 12 significant digits: relative 1e-10.
``inv_freq32``, cos/sin and Llama 4's temperature come from the modules as the model runs them, in
float32: frequencies to 1e-6 relative (a few float32 ulps, 2**-24 = 6e-8); cos/sin to
``a * 2**-20 * (1 + p * w)`` absolute, the float32 error of an angle p*w (rounding of w and of the
product) plus that of cos itself — larger at large positions, as it is in the model.
Python floats (attention factors, softmax scale): 1e-12 relative.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest
from helpers import golden
from hypothesis import given, settings
from hypothesis import strategies as st
from tool_loader import load_tool

from posenc_lib.lab import schemes
from posenc_lib.maths import encodings, released, rope, rope_scaling

tool = load_tool("hf_reference")
CASES = tool.cases()


REL64 = 1e-10
REL32 = 1e-6
PY = 1e-12


def rel_err(a: Any, b: Any) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    scale = np.maximum(np.abs(b), 1e-300)
    return float(np.max(np.where(b == 0, np.abs(a), np.abs(a - b) / scale))) if a.size else 0.0


def layer_for(p: released.PositionPlan, key: str) -> int:
    """A layer whose RoPE the golden entry ``key`` describes ('all', or a layer type)."""
    for lp in p.layers:
        if lp.rope is None:
            continue
        if key == "all" or (key == "sliding_attention") == (lp.attention == "sliding"):
            return lp.index
    raise AssertionError(key)


# ----------------------------------------------------------------------------------------------
# Golden comparisons
# ----------------------------------------------------------------------------------------------

ROPE_CASES = [n for n in CASES if "rope" in golden(n)]


@pytest.mark.parametrize("name", ROPE_CASES)
def test_inverse_frequencies_match_the_reference(name):
    p = released.plan(CASES[name])
    for key, entry in golden(name)["rope"].items():
        layer = layer_for(p, key)
        assert rel_err(p.inv_freq(layer), entry["inv_freq64"]) < REL64, key
        assert rel_err(p.inv_freq(layer), entry["inv_freq32"]) < REL32, key
        for case in entry["cases"].values():
            if case["inv_freq64"] is not None:  # the frequencies changed with the length
                assert rel_err(p.inv_freq(layer, case["seq_len"]), case["inv_freq64"]) < REL64


@pytest.mark.parametrize("name", ROPE_CASES)
def test_which_features_rotate_together_matches_the_reference(name):
    """The pairing and partial-rotation conventions, probed with unit vectors through the model's
    own apply function (GPT-J's leading interleaved 64 of 256, GPT-NeoX's leading half 24 of 96,
    Gemma 4's proportional pairs (j, j + 256) for j < 64, DeepSeek's interleaved rotary part, ...)."""
    p = released.plan(CASES[name])
    for key, entry in golden(name)["rope"].items():
        spec = p.layers[layer_for(p, key)].rope
        assert spec is not None
        assert spec.partners().tolist() == entry["partners"], key


@pytest.mark.parametrize("name", ROPE_CASES)
def test_attention_factor_matches_the_reference(name):
    p = released.plan(CASES[name])
    for key, entry in golden(name)["rope"].items():
        layer = layer_for(p, key)
        assert abs(p.attention_factor(layer) - entry["attention_factor"]) <= PY * entry["attention_factor"]
        for case in entry["cases"].values():
            got = p.attention_factor(layer, case["seq_len"])
            assert abs(got - case["attention_factor"]) <= PY * case["attention_factor"]


@pytest.mark.parametrize("name", ROPE_CASES)
def test_cos_sin_match_the_reference_to_float32_accuracy(name):
    p = released.plan(CASES[name])
    for key, entry in golden(name)["rope"].items():
        layer = layer_for(p, key)
        slots = entry["slots"]
        for case in entry["cases"].values():
            pos = np.array(case["positions"], dtype=float)
            cos, sin = p.cos_sin(layer, pos)
            a = p.attention_factor(layer, case["seq_len"])
            w = p.inv_freq(layer, case["seq_len"])[slots]
            bound = a * 2.0**-20 * (1.0 + pos[:, None] * w)
            assert np.all(np.abs(cos[:, slots] - case["cos"]) <= bound)
            assert np.all(np.abs(sin[:, slots] - case["sin"]) <= bound)


def test_cos_sin_bound_is_tight_enough_to_catch_a_wrong_frequency():
    # the float32 bound must still fail a frequency off by one part in 10^5 (at position 8191)
    p = released.plan(CASES["llama-3.1-8b"])
    entry = golden("llama-3.1-8b")["rope"]["all"]
    case = entry["cases"]["short"]
    pos = np.array(case["positions"], dtype=float)
    w = p.inv_freq(0)[entry["slots"]] * (1 + 1e-5)
    bound = 2.0**-20 * (1.0 + pos[:, None] * w)
    assert np.any(np.abs(np.cos(pos[:, None] * w) - case["cos"]) > bound)


@pytest.mark.parametrize("name", list(CASES))
def test_layers_match_the_reference(name):
    """Attention span and RoPE-or-not per layer, as the reference configuration class sets them."""
    p = released.plan(CASES[name])
    g = golden(name)["layers"]
    assert len(p.layers) == g["num_hidden_layers"]
    types = g["layer_types"] or [None] * len(p.layers)
    uses = g.get("use_rope") or [None] * len(p.layers)
    for lp, t, use in zip(p.layers, types, uses):
        if t == "sliding_attention":
            assert (lp.attention, lp.window) == ("sliding", g["sliding_window"])
        elif t == "chunked_attention":
            assert (lp.attention, lp.window) == ("chunked", g["attention_chunk_size"])
        elif t == "full_attention":
            assert (lp.attention, lp.window) == ("full", None)
        elif g["sliding_window"] is not None:  # no layer_types: every attention module gets the window
            assert (lp.attention, lp.window) == ("sliding", g["sliding_window"])
        else:
            assert (lp.attention, lp.window) == ("full", None)
        if use is not None:
            assert lp.method == ("rope" if use else "none")
        if lp.method == "none":
            assert lp.rope is None
    if "head_dim_per_layer" in g:
        assert [lp.rope.head_dim for lp in p.layers if lp.rope] == g["head_dim_per_layer"]


MASK_CASES = [n for n in CASES if "masks" in golden(n)]


@pytest.mark.parametrize("name", MASK_CASES)
def test_window_meaning_matches_the_reference_masks(name):
    """transformers' causal, sliding-window and chunked mask functions at w = 3, c = 4 (T = 10)."""
    g = golden(name)["masks"]
    n, w, c = g["seq_len"], g["sliding_window"], g["chunk"]
    for lp, key in ((released.LayerPlan(0, "full", None, "rope"), "full"),
                    (released.LayerPlan(0, "sliding", w, "rope"), "sliding"),
                    (released.LayerPlan(0, "chunked", c, "rope"), "chunked")):
        assert lp.mask(n).tolist() == g[key], key
    kinds = {lp.attention for lp in released.plan(CASES[name]).layers}
    assert kinds & {"sliding", "chunked"}  # the masks were stored because the model has such layers


def test_bloom_alibi_slopes_match_the_reference():
    g = golden("bloom-560m")
    p = released.plan(CASES["bloom-560m"])
    assert {lp.method for lp in p.layers} == {"alibi"}
    assert rel_err(p.alibi_slopes(), g["alibi_slopes64"]) < REL64
    assert rel_err(p.alibi_slopes(), g["alibi_slopes32"]) < REL32


def test_deepseek_softmax_scale_matches_the_reference():
    g = golden("deepseek-v2-lite")
    p = released.plan(CASES["deepseek-v2-lite"])
    assert abs(p.softmax_scale_factor - g["softmax_scale_factor"]) < 1e-12 * g["softmax_scale_factor"]
    # and by hand: mscale(40, 0.707)^2 = (0.0707 ln 40 + 1)^2; the cos/sin factor is their ratio, 1
    assert p.softmax_scale_factor == pytest.approx((0.0707 * math.log(40) + 1) ** 2, rel=1e-15)
    assert p.attention_factor(0) == 1.0
    spec = p.layers[0].rope
    assert spec is not None
    assert (spec.rotary_dim, spec.decoupled_nope_dim, spec.pairing) == (64, 128, "interleaved")


def test_llama4_temperature_matches_the_reference():
    g = golden("llama-4-scout-17b-16e")["temperature"]
    p = released.plan(CASES["llama-4-scout-17b-16e"])
    assert p.layers[g["layer"]].method == "none"
    assert rel_err(p.temperature(g["layer"], g["positions"]), g["scale"]) < REL32
    assert np.all(p.temperature(0, g["positions"]) == 1.0)  # RoPE layers: no temperature


def test_mrope_position_ids_and_cos_sin_match_get_rope_index():
    g = golden("qwen2.5-vl-7b-instruct")["mrope"]
    p = released.plan(CASES["qwen2.5-vl-7b-instruct"])
    segments = [(k, v if k == "text" else tuple(v)) for k, v in g["segments"]]
    ids = p.mrope_position_ids(segments)
    assert ids.tolist() == g["position_ids"]
    assert int(ids.max()) + 1 - ids.shape[1] == g["delta"]
    cos, sin = p.cos_sin(0, ids)
    w = p.inv_freq(0)[g["slots"]]
    bound = 2.0**-20 * (1.0 + ids.max() * w)
    assert np.all(np.abs(cos[:, g["slots"]] - g["cos"]) <= bound)
    assert np.all(np.abs(sin[:, g["slots"]] - g["sin"]) <= bound)


# ----------------------------------------------------------------------------------------------
# Known values by hand
# ----------------------------------------------------------------------------------------------

def test_gpt_neox_partial_versus_gemma4_proportional_by_hand():
    # GPT-NeoX-20B: head 96, rotary_pct 0.25 -> r = 24, an r-dimensional RoPE: w_j = 10000^(-2j/24)
    neox = released.plan(CASES["gpt-neox-20b"])
    assert neox.inv_freq(0).tolist() == pytest.approx([10000.0 ** (-2 * j / 24) for j in range(12)],
                                                      rel=1e-15)
    # Gemma 4 global layers: d = 512, factor 0.25 -> 64 slots of 10^6^(-2j/512), then 192 zeros
    gemma = released.plan(CASES["gemma-4-31b"])
    w = gemma.inv_freq(5)
    assert w.shape == (256,)
    assert w[:64].tolist() == pytest.approx([1e6 ** (-2 * j / 512) for j in range(64)], rel=1e-15)
    assert np.all(w[64:] == 0.0)
    assert w[63] == pytest.approx(1e6 ** (-126 / 512)) and w[63] > 0.03  # far above 1/n = 1e-6
    assert gemma.inv_freq(0).shape == (128,) and gemma.layers[0].rope.base == 10000.0  # type: ignore[union-attr]


def test_partial_conventions_rotate_different_features():
    x = np.arange(1.0, 9.0)[None, :]  # one token, d = 8
    lead = rope.apply(x, [3.0], pairing="half", rotary_dim=4, partial="leading")
    prop = rope.apply(x, [3.0], pairing="half", rotary_dim=4, partial="proportional")
    assert np.array_equal(lead[0, 4:], x[0, 4:])  # leading: features 4..7 untouched
    moved = np.flatnonzero(~np.isclose(prop[0], x[0]))
    assert moved.tolist() == [0, 1, 4, 5]  # proportional, half pairing: pairs (0, 4) and (1, 5)
    # by hand, pair (1, 5) turns by 3 * 100^(-2/8)
    t = 3.0 * 100.0 ** (-0.25)
    expected = rope.apply(x, [3.0], base=100.0, pairing="half", rotary_dim=4, partial="proportional")
    assert expected[0, 1] == pytest.approx(2 * math.cos(t) - 6 * math.sin(t))
    with pytest.raises(ValueError, match="partial"):
        rope.apply(x, [3.0], rotary_dim=4, partial="middle")  # type: ignore[arg-type]


def test_phi3_longrope_switch_and_attention_factor_by_hand():
    p = released.plan(CASES["phi-3.5-mini-instruct"])
    cfg = CASES["phi-3.5-mini-instruct"]["rope_scaling"]
    base = encodings.frequencies(96, 10000.0)
    assert np.allclose(p.inv_freq(0, 4096), base / np.array(cfg["short_factor"]), rtol=1e-15)
    assert np.allclose(p.inv_freq(0, 4097), base / np.array(cfg["long_factor"]), rtol=1e-15)
    assert p.attention_factor(0) == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


def test_llama4_layers_by_hand():
    p = released.plan(CASES["llama-4-scout-17b-16e"])
    assert [lp.method for lp in p.layers[:4]] == ["rope", "rope", "rope", "none"]
    assert (p.layers[0].attention, p.layers[0].window) == ("chunked", 8192)
    assert (p.layers[3].attention, p.layers[3].temperature) == ("full", released.Temperature(8192, 0.1))
    assert p.temperature(3, [8191])[0] == pytest.approx(1 + 0.1 * math.log(2))


def test_smollm3_every_fourth_layer_is_nope():
    p = released.plan(CASES["smollm3-3b"])
    assert [i for i, lp in enumerate(p.layers) if lp.method == "none"] == list(range(3, 36, 4))


def test_defaults_are_recorded_not_silent():
    assert released.plan(CASES["llama-2-7b"]).defaulted == ("rope_theta=10000.0",)
    assert released.plan(CASES["llama-3.1-8b"]).defaulted == ()


# ----------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(half=st.integers(1, 128), base=st.floats(2.0, 1e7))
def test_plain_rope_frequencies_positive_and_decreasing(half, base):
    cfg = {"model_type": "llama", "hidden_size": 2 * half, "num_attention_heads": 1,
           "num_hidden_layers": 1, "max_position_embeddings": 4096, "rope_theta": base}
    w = released.plan(cfg).inv_freq(0)
    assert w[0] == 1.0 and np.all(w > 0) and np.all(np.diff(w) < 0)


@settings(max_examples=60, deadline=None)
@given(half=st.integers(1, 64), quarter=st.integers(1, 4), base=st.floats(2.0, 1e7))
def test_proportional_is_the_first_slots_of_the_full_head(half, quarter, base):
    d = 8 * half
    r = 2 * quarter * half  # r/d = quarter/4
    full = encodings.frequencies(d, base)
    prop = rope_scaling.proportional_frequencies(d, r, base)
    assert np.array_equal(prop[: r // 2], full[: r // 2]) and np.all(prop[r // 2:] == 0)


@settings(max_examples=40, deadline=None)
@given(text=st.integers(1, 5), t=st.integers(1, 2), h=st.integers(1, 4), w=st.integers(1, 4))
def test_mrope_ids_of_text_only_are_plain_positions_and_images_advance_by_their_longer_side(text, t, h, w):
    p = released.plan(CASES["qwen2.5-vl-7b-instruct"])
    assert p.mrope_position_ids([("text", text)]).tolist() == [list(range(text))] * 3
    ids = p.mrope_position_ids([("text", text), ("image", (t, 2 * h, 2 * w)), ("text", 1)])
    assert ids.shape == (3, text + t * h * w + 1)
    assert ids[:, -1].tolist() == [text + max(h, w)] * 3


# ----------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------

def _with(name: str, path: tuple[str, ...], value: Any) -> dict[str, Any]:
    cfg = copy.deepcopy(CASES[name])
    d = cfg
    for key in path[:-1]:
        d = d[key]
    if value is _DELETE:
        del d[path[-1]]
    else:
        d[path[-1]] = value
    return cfg


_DELETE = object()


BAD = [
    ("llama-3.1-8b", ("model_type",), "llama9", ValueError, "model_type"),
    ("llama-3.1-8b", ("rope_scaling", "rope_type"), "llama5", ValueError, "rope_type"),
    ("llama-3.1-8b", ("rope_scaling", "smoothing"), 2.0, ValueError, "smoothing"),
    ("llama-3.1-8b", ("rope_scaling", "low_freq_factor"), _DELETE, ValueError, "low_freq_factor"),
    ("llama-3.1-8b", ("rope_scaling", "factor"), "8", TypeError, "factor"),
    ("llama-3.1-8b", ("rope_scaling", "factor"), 0.5, ValueError, "factor"),
    ("llama-3.1-8b", ("rope_theta",), -1.0, ValueError, "rope_theta"),
    ("llama-3.1-8b", ("num_hidden_layers",), _DELETE, ValueError, "num_hidden_layers"),
    ("llama-3.1-8b", ("hidden_size",), 4096.0, TypeError, "hidden_size"),
    ("llama-3.1-8b", ("sliding_window",), 4096, ValueError, "sliding_window"),
    ("llama-3.1-8b", ("no_rope_layers",), [1, 0], ValueError, "no_rope_layers"),
    ("gpt-j-6b", ("rotary_dim",), 63, ValueError, "rotary dimension"),
    ("gpt-j-6b", ("rope_scaling",), {"rope_type": "linear", "factor": 2.0}, ValueError, "rope_scaling"),
    ("gpt-neox-20b", ("rotary_pct",), 0.01, ValueError, "rotary_pct"),
    ("phi-3.5-mini-instruct", ("rope_scaling", "long_factor"), [1.0] * 47, ValueError, "long_factor"),
    ("phi-3.5-mini-instruct", ("rope_scaling", "short_factor"), _DELETE, ValueError, "short_factor"),
    ("qwen2.5-vl-7b-instruct", ("rope_scaling", "mrope_section"), [16, 24, 23], ValueError, "mrope_section"),
    ("qwen2.5-vl-7b-instruct", ("vision_config",), _DELETE, ValueError, "vision_config"),
    ("gemma-4-31b", ("text_config", "rope_parameters", "full_attention", "rope_type"), "p-rope", ValueError,
     "rope_type"),
    ("gemma-4-31b", ("text_config", "layer_types"), ["sliding_attention"] * 60, ValueError, "layer_types"),
    ("gemma-4-31b", ("text_config", "use_bidirectional_attention"), "all", ValueError,
     "use_bidirectional_attention"),
    ("gemma-4-31b", ("text_config", "model_type"), "gemma3_text", ValueError, "text_config.model_type"),
    ("gemma-3-1b-it", ("sliding_window",), 0, ValueError, "sliding_window"),
    ("llama-4-scout-17b-16e", ("text_config", "no_rope_layers"), [1, 2] * 24, ValueError, "no_rope_layers"),
    ("llama-4-scout-17b-16e", ("text_config", "attn_temperature_tuning"), 4, TypeError,
     "attn_temperature_tuning"),
    ("deepseek-v2-lite", ("qk_rope_head_dim",), _DELETE, ValueError, "qk_rope_head_dim"),
    ("deepseek-v2-lite", ("rope_scaling", "truncate"), "yes", TypeError, "truncate"),
    ("deepseek-v2-lite", ("rope_scaling", "beta_slow"), 64, ValueError, "beta_fast must be > beta_slow"),
    ("smollm3-3b", ("no_rope_layers",), [1] * 10, ValueError, "no_rope_layers"),
    ("bloom-560m", ("alibi",), False, ValueError, "alibi"),
]


@pytest.mark.parametrize("name, path, value, exc, field", BAD,
                         ids=[f"{n}:{'.'.join(p)}" for n, p, *_ in BAD])
def test_bad_fields_raise_errors_naming_them(name, path, value, exc, field):
    with pytest.raises(exc, match=field):
        released.plan(_with(name, path, value))


def test_bad_arguments_raise_clear_errors():
    p = released.plan(CASES["llama-4-scout-17b-16e"])
    with pytest.raises(ValueError, match="layer"):
        p.inv_freq(48)
    with pytest.raises(ValueError, match="NoPE|nope"):
        p.inv_freq(3)
    with pytest.raises(ValueError, match="seq_len"):
        p.inv_freq(0, 0)
    with pytest.raises(ValueError, match="ALiBi"):
        p.alibi_slopes()
    with pytest.raises(ValueError, match="M-RoPE"):
        p.mrope_position_ids([("text", 3)])
    with pytest.raises(TypeError, match="dict"):
        released.plan([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name"):
        released.load("gpt-5")
    vl = released.plan(CASES["qwen2.5-vl-7b-instruct"])
    with pytest.raises(ValueError, match="spatial_merge_size"):
        vl.mrope_position_ids([("image", (1, 3, 4))])
    with pytest.raises(ValueError, match="kind"):
        vl.mrope_position_ids([("video", 3)])


@pytest.mark.parametrize("name", released.MODELS)
def test_every_shipped_config_reads_and_its_layers_are_consistent(name):
    p = released.plan(released.load(name))
    assert p.layers and all(lp.index == i for i, lp in enumerate(p.layers))
    for lp in p.layers:
        assert lp.attention in released.ATTENTION_KINDS and lp.method in released.POSITION_METHODS
        assert (lp.window is None) == (lp.attention == "full")
        assert (lp.rope is not None) == (lp.method == "rope")


# ----------------------------------------------------------------------------------------------
# Pieces the shipped files do not exercise
# ----------------------------------------------------------------------------------------------

def test_qwen3_vl_interleaved_mrope_layout_by_hand():
    # transformers' Qwen3-VL recomposition: every slot temporal, then slots 1, 4, ... (< 3 * 24) height
    # and 2, 5, ... (< 3 * 24) width. With sections (16, 24, 24) and 64 slots, slot j reads row j % 3.
    cfg = copy.deepcopy(CASES["qwen2.5-vl-7b-instruct"])
    cfg["rope_scaling"]["mrope_interleaved"] = True
    p = released.plan(cfg)
    rows = np.array([[3.0], [50.0], [700.0]])  # t, h, w of one token
    cos, sin = p.cos_sin(0, rows, seq_len=1)
    angle = np.arctan2(sin[0], cos[0])
    w = p.inv_freq(0)
    used = [rows[k, 0] for k in ([0, 1, 2] * 22)[:64]]
    assert np.allclose(np.cos(angle), np.cos(np.array(used) * w))
    plain = released.plan(CASES["qwen2.5-vl-7b-instruct"])
    cos2, _ = plain.cos_sin(0, rows, seq_len=1)
    assert np.allclose(cos2[0], np.cos(np.repeat([3.0, 50.0, 700.0], [16, 24, 24]) * w))


def test_yarn_truncate_false_keeps_fractional_bounds():
    d, base, length = 128, 1e6, 32768
    lo, hi = rope_scaling.yarn_correction_bounds(d, base, length, 32.0, 1.0, truncate=False)
    assert lo == pytest.approx(d * math.log(length / (32 * 2 * math.pi)) / (2 * math.log(base)))
    assert hi == pytest.approx(d * math.log(length / (2 * math.pi)) / (2 * math.log(base)))
    assert rope_scaling.yarn_correction_bounds(d, base, length, 32.0, 1.0) == (math.floor(lo), math.ceil(hi))
    cfg = _with("qwen2.5-7b-yarn", ("rope_scaling", "truncate"), False)
    w = released.plan(cfg).inv_freq(0)
    assert np.allclose(w, rope_scaling.yarn_frequencies(d, 4.0, lo, hi, base), rtol=1e-15)
    assert not np.allclose(w, released.plan(CASES["qwen2.5-7b-yarn"]).inv_freq(0), rtol=1e-9)


def test_new_frequency_functions_reject_bad_input():
    with pytest.raises(ValueError, match="rotary_dim"):
        rope_scaling.proportional_frequencies(8, 10)
    with pytest.raises(ValueError, match="long_factor"):
        rope_scaling.longrope_frequencies(8, 1e4, [1.0] * 4, [1.0] * 3, 4096)
    with pytest.raises(ValueError, match="short_factor"):
        rope_scaling.longrope_frequencies(8, 1e4, [1.0, 0.0, 1.0, 1.0], [1.0] * 4, 4096)
    with pytest.raises(TypeError, match="truncate"):
        rope_scaling.yarn_correction_bounds(64, truncate=1)  # type: ignore[arg-type]
    assert rope_scaling.yarn_mscale(1.0, 0.707) == 1.0
    assert rope_scaling.yarn_attention_factor(4.0) == pytest.approx(0.1 * math.log(4.0) + 1.0)
    assert rope_scaling.yarn_attention_factor(40.0, 1.0, None) == pytest.approx(0.1 * math.log(40) + 1)
    assert rope_scaling.longrope_attention_factor(1.0, 4096) == 1.0


def test_catalogue_facts_agree_with_the_shipped_configs():
    """The chapter-12 catalogue states some released numbers itself; they must match the files."""
    from posenc_lib import catalogue

    llama = CASES["llama-3.1-8b"]
    facts = catalogue.LLAMA31_ROPE
    for key in ("rope_type", "factor", "low_freq_factor", "high_freq_factor",
                "original_max_position_embeddings"):
        assert facts[key] == llama["rope_scaling"][key]
    assert (facts["rope_theta"], facts["max_position_embeddings"]) == (
        llama["rope_theta"], llama["max_position_embeddings"])
    for label, name in (("GPT-J", "gpt-j-6b"), ("GPT-NeoX-20B", "gpt-neox-20b")):
        width, heads, rotated = catalogue.PARTIAL_ROTARY[label][:3]
        p = released.plan(CASES[name])
        spec = p.layers[0].rope
        assert spec is not None
        assert (spec.head_dim * p.num_heads, p.num_heads, spec.rotary_dim) == (width, heads, rotated)


def test_methods_carry_the_lab_schemes_names():
    """One name per scheme everywhere: a released model's method is named as the lab names it."""
    assert set(released.POSITION_METHODS) <= set(schemes.NAMES)
