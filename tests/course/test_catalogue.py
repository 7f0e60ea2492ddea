"""posenc_lib.course.catalogue: the summary chapter's facts as data: the methods, their sources,
dates and parameter counts, the comparison and variants tables, the timeline, RoPE's bases and
released settings, and the probes that find where a layer puts positions."""

import dataclasses
import math
import re

import numpy as np
import pytest
import yaml
from helpers import BIB_KEYS, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib import lab
from posenc_lib.course import catalogue
from posenc_lib.lab import extrapolation
from posenc_lib.maths import encodings, relative, rope, rope_scaling


def toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [ch["file"] for part in toc["parts"] for ch in part["chapters"]]


# -- the facts table ----------------------------------------------------------------------------
def test_every_method_points_to_a_chapter_in_the_toc():
    chapters = {int(m.group(1)): f for f in toc_files()
                if (m := re.match(r"notebooks/(\d\d)_", f))}
    for m in catalogue.METHODS:
        assert m.chapter in chapters, f"{m.key}: chapter {m.chapter} is not in _toc.yml"
        assert (ROOT / (chapters[m.chapter] + ".ipynb")).exists()


def test_every_cite_key_exists_in_references_bib():
    keys = {m.cite for m in catalogue.METHODS}
    keys |= {k for m in catalogue.METHODS for k in m.model_cites}
    keys |= {e.cite for e in catalogue.TIMELINE}
    keys |= {key for _, key in catalogue.ROPE_BASES.values()}
    missing = sorted(keys - BIB_KEYS)
    assert not missing, f"cite keys missing from book/references.bib: {missing}"


def test_method_fields_are_consistent():
    keys = [m.key for m in catalogue.METHODS]
    assert len(keys) == len(set(keys))
    for m in catalogue.METHODS:
        assert m.acts_on in catalogue.WHERE
        assert len(m.models) == len(m.model_cites)
        assert 2017 <= m.year <= 2024 and 1 <= m.month <= 12
        if m.extends is not None:
            base = catalogue.method(m.extends)
            assert base.extends is None and m.acts_on == base.acts_on and m.relative
        # "none ..." in the text exactly when nothing is learned
        assert m.params.startswith("none") == (
            catalogue.position_parameters(m.key, 512, 64, 4, 2) == 0), m.key
        # relative is "not applicable" exactly for the method without any position
        assert (m.relative is None) == (m.acts_on == "nowhere"), m.key
        assert m.relative is not True or m.acts_on in ("queries-keys", "scores"), m.key
        if m.venue_year is not None:
            assert m.venue and m.venue_year >= m.year


def test_every_lab_scheme_has_exactly_one_method():
    schemes = [m.lab_scheme for m in catalogue.METHODS if m.lab_scheme is not None]
    assert sorted(schemes) == sorted(lab.POSITIONS) == sorted(extrapolation.SCHEMES)
    assert sorted(schemes) == sorted(catalogue.LAYER_SCHEMES)


def test_model_lists_of_the_brief():
    assert catalogue.method("learned").models == ("GPT", "BERT", "GPT-2")
    assert catalogue.method("yarn").models == ("DeepSeek-V2", "Qwen2.5")
    assert catalogue.method("rope").venue_year == 2024  # Neurocomputing, three years after arXiv
    assert set(catalogue.method("rope").models) >= {"GPT-J", "GPT-NeoX-20B", "LLaMA", "PaLM"}
    assert set(catalogue.method("alibi").models) == {"BLOOM", "MPT"}
    assert catalogue.method("t5").models == ("T5",)


# arXiv identifiers start with yymm of the first version; YaRN was submitted on 31 Aug 2023 and
# numbered in September.
_ID_MONTH_EXCEPTIONS = {"yarn": (2023, 9)}


@pytest.mark.parametrize("m", [m for m in catalogue.METHODS if m.arxiv], ids=lambda m: m.key)
def test_dates_agree_with_arxiv_identifiers(m):
    yy, mm = int(m.arxiv[:2]), int(m.arxiv[2:4])
    expected = _ID_MONTH_EXCEPTIONS.get(m.key, (m.year, m.month))
    assert (2000 + yy, mm) == expected


def test_method_lookup_and_validation():
    assert catalogue.method("rope").acts_on == "queries-keys"
    assert catalogue.method("alibi").acts_on == "scores"
    with pytest.raises(ValueError, match="key must be one of .* got 'xpos'"):
        catalogue.method("xpos")
    with pytest.raises(ValueError, match="acts_on must be one of"):
        catalogue.Method("k", "n", 1, "values", True, "none", (), (), "p", 2020, 1, "c", None,
                         None, "b")
    with pytest.raises(ValueError, match="month must be in 1..12, got 13"):
        catalogue.Method("k", "n", 1, "input", True, "none", (), (), "p", 2020, 13, "c", None,
                         None, "b")
    with pytest.raises(ValueError, match="give both venue and venue_year"):
        catalogue.Method("k", "n", 1, "input", True, "none", (), (), "p", 2020, 1, "c", None,
                         None, "b", venue="ICLR")
    with pytest.raises(ValueError, match="venue_year 2019 is before the first version"):
        catalogue.Method("k", "n", 1, "input", True, "none", (), (), "p", 2020, 1, "c", None,
                         None, "b", venue="ICLR", venue_year=2019)


# -- parameter counts ---------------------------------------------------------------------------
def test_parameter_counts_known_values():
    assert catalogue.position_parameters("learned", 512, 768, 12, 12) == 393_216  # BERT-base
    assert catalogue.position_parameters("learned", 1024, 768, 12, 12) == 786_432  # GPT-2 small
    assert catalogue.position_parameters("t5", 512, 768, 12, 12) == 384
    # Shaw, heads sharing: 6 layers x (key + value) x 33 offsets x 64 = 25344
    assert catalogue.position_parameters("shaw", 512, 512, 8, 6) == 25_344
    # Shaw et al.'s base model: "unique edge representations per layer and head" (8 heads)
    assert catalogue.position_parameters("shaw", 512, 512, 8, 6, shaw_per_head=True) == 202_752
    # their big model: k = 8, d = 1024, 16 heads of 64, shared: 6 x 2 x 17 x 64
    assert catalogue.position_parameters("shaw", 512, 1024, 16, 6, shaw_k=8) == 13_056
    for key in ("sinusoidal", "rope", "alibi", "none", "pi", "ntk", "abf", "yarn"):
        assert catalogue.position_parameters(key, 2048, 4096, 32, 32) == 0


@given(st.integers(1, 4096), st.sampled_from([8, 16, 64, 128]), st.sampled_from([1, 2, 4, 8]),
       st.integers(1, 48))
def test_parameter_counts_scale_as_the_formulas_say(max_len, d, heads, layers):
    pp = catalogue.position_parameters
    assert pp("learned", max_len, d, heads, layers) == max_len * d
    assert pp("learned", max_len, d, heads, layers) == pp("learned", max_len, d, heads, 1)
    assert pp("t5", max_len, d, heads, layers) == pp("t5", 1, d, heads, 1) == heads * 32
    assert pp("shaw", max_len, d, heads, layers) == layers * pp("shaw", 7, d, heads, 1)
    assert pp("shaw", max_len, d, heads, layers, shaw_k=0) == layers * 2 * (d // heads)


def test_parameter_counts_agree_with_the_lab_and_relative_modules():
    # independent sources: the lab's own parameter shapes and the library's tables
    t5 = lab.LabConfig(vocab_size=8, n_outputs=8, position="t5", d_model=32, n_heads=4)
    assert math.prod(lab.param_shapes(t5)["t5_bias"]) == catalogue.position_parameters(
        "t5", 32, 32, 4, t5.n_layers, t5_buckets=lab.T5_NUM_BUCKETS)
    learned = lab.LabConfig(vocab_size=8, n_outputs=8, position="learned", d_model=32,
                            max_len=48)
    assert math.prod(lab.param_shapes(learned)["pos_embed"]) == catalogue.position_parameters(
        "learned", 48, 32, 2, 2)
    assert relative.learned_table(512, 768).size == catalogue.position_parameters(
        "learned", 512, 768, 12, 12)
    # Shaw: shaw_scores takes one (2k+1, d_h) table for the keys; values need a second one
    k, dh, heads, layers = 16, 64, 8, 6
    rng = np.random.default_rng(0)
    q = rng.standard_normal((5, dh))
    table = rng.standard_normal((2 * k + 1, dh))
    relative.shaw_scores(q, q, table, k)  # accepted shape
    assert 2 * table.size * layers == catalogue.position_parameters("shaw", 512, dh * heads,
                                                                    heads, layers)


@pytest.mark.parametrize("args, exc, msg", [
    (("xpos", 8, 8, 1, 1), ValueError, "key must be one of"),
    (("learned", 0, 8, 1, 1), ValueError, "max_len must be a positive integer, got 0"),
    (("learned", 8, 8, 3, 1), ValueError, "n_heads must divide d, got n_heads=3 and d=8"),
    (("learned", 8, 8.0, 1, 1), TypeError, "d must be a positive integer"),
    (("shaw", 8, 8, 1, 1, -1), ValueError, "shaw_k must be a non-negative integer, got -1"),
    (("t5", 8, 8, 1, 0), ValueError, "n_layers must be a positive integer, got 0"),
    (("shaw", 8, 8, 1, 1, 16, 32, "yes"), TypeError, "shaw_per_head must be True or False"),
])
def test_parameter_count_validation(args, exc, msg):
    with pytest.raises(exc, match=msg):
        catalogue.position_parameters(*args)


# -- the comparison table -----------------------------------------------------------------------
def fake_sweep():
    nan = math.nan
    return extrapolation.SweepResult(
        task="copy_back", train_length=32, lengths=(32, 64, 128, 256),
        positions=extrapolation.SCHEMES,
        accuracy={"none": (0.25, 0.2, 0.18, 0.15), "learned": (1.0, nan, nan, nan),
                  "sinusoidal": (1.0, 0.634, 0.35, 0.2), "rope": (1.0, 0.98, 0.864, 0.5),
                  "alibi": (0.25, 0.25, 0.24, 0.24), "t5": (1.0, 0.9, 0.6, 0.4)},
        seconds={s: 1.0 for s in extrapolation.SCHEMES})


def test_table_without_measurements():
    t = catalogue.table()
    assert len(t.rows) == len(catalogue.METHODS)
    assert t.header[:3] == ["method, chapter", "where", "relative?"]
    text = t.text()
    assert text.splitlines()[0].startswith("method, chapter ")
    assert "RoPE (rotary), ch. 8" in text and "Gehring et al. 2017" in text
    assert t.header[-2:] == ["used by (examples)", "key paper"]
    rel = {row[0].split(",")[0]: row[2] for row in t.rows}
    assert rel["NoPE (no encoding)"] == "n/a" and rel["RoPE (rotary)"] == "yes"
    assert rel["Sinusoidal"] == "no" and "n/a: NoPE has no position at all" in t.caption
    md = t.markdown().splitlines()
    assert all(line.count("|") == md[0].count("|") for line in md[:len(t.rows) + 2])
    bundle = t._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/markdown", "text/plain"}
    assert bundle["text/html"].count("<tr>") == len(t.rows) + 1
    assert "overflow-x:auto" in bundle["text/html"]  # scrolls by itself on a phone


def test_table_with_measurements():
    t = catalogue.table(fake_sweep())
    col = {row[0].split(",")[0]: row[-1] for row in t.rows}
    assert t.header[-1] == "toy copy task: accuracy at L = 32 / 64 / 128 / 256"
    assert col["Learned absolute table"] == "1.00 / — / — / —"
    assert col["RoPE (rotary)"] == "1.00 / 0.98 / 0.86 / 0.50"
    assert col["Sinusoidal"] == "1.00 / 0.63 / 0.35 / 0.20"
    assert col["Shaw et al. relative"] == col["YaRN"] == "not trained"
    assert "trained at L = 32" in t.caption and "this book's toy copy task" in t.caption


def test_table_with_two_measured_columns():
    copy = fake_sweep()
    latest = dataclasses.replace(copy, task="latest_signal", positions=("rope", "alibi"),
                                 accuracy={"rope": (1.0, 0.9, 0.8, 0.7),
                                           "alibi": (0.99, 0.98, 0.95, 0.94)})
    t = catalogue.table([copy, latest])
    assert t.header[-2:] == ["toy copy task: accuracy at L = 32 / 64 / 128 / 256",
                             "toy latest-signal task: accuracy at L = 32 / 64 / 128 / 256"]
    rows = {row[0].split(",")[0]: row[-2:] for row in t.rows}
    assert rows["ALiBi"] == ["0.25 / 0.25 / 0.24 / 0.24", "0.99 / 0.98 / 0.95 / 0.94"]
    assert rows["Sinusoidal"] == ["1.00 / 0.63 / 0.35 / 0.20", "not trained"]
    assert "Last columns: this book's toy copy and latest-signal tasks" in t.caption
    assert all(len(row) == len(t.header) for row in t.rows)
    with pytest.raises(TypeError, match=r"sweep\[1\] must be a SweepResult .*got str"):
        catalogue.table([copy, "latest"])


def test_table_subset_and_escaping():
    t = catalogue.table(keys=["rope", "alibi"])
    assert [r[0] for r in t.rows] == ["RoPE (rotary), ch. 8", "ALiBi, ch. 9"]
    html = catalogue.Table(["a<b"], [["x|y"]]).html()
    assert "a&lt;b" in html and "<td" in html
    assert "x\\|y" in catalogue.Table(["a"], [["x|y"]]).markdown()
    with pytest.raises(ValueError, match="every row needs 2 cells, got 1"):
        catalogue.Table(["a", "b"], [["x"]])


# -- timeline -----------------------------------------------------------------------------------
def test_timeline_is_in_date_order_and_complete():
    dates = [(e.year, e.month) for e in catalogue.TIMELINE]
    assert dates == sorted(dates)
    assert {m.cite for m in catalogue.METHODS} <= {e.cite for e in catalogue.TIMELINE}
    assert {"radford2018gpt", "devlin2019bert", "radford2019gpt2", "kazemnejad2023nope"} <= {
        e.cite for e in catalogue.TIMELINE}
    assert {e.kind for e in catalogue.TIMELINE} == {"method", "model", "study"}
    assert all(e.acts_on in catalogue.WHERE for e in catalogue.TIMELINE)
    first = catalogue.TIMELINE[0]
    assert (first.year, first.cite) == (2017, "gehring2017convs2s")
    # same month: position interpolation (27 June) is listed before the NTK-aware post
    order = [e.cite for e in catalogue.TIMELINE]
    assert order.index("chen2023pi") < order.index("bloc97ntk")


def test_rope_bases():
    bases = {k: b for k, (b, _) in catalogue.ROPE_BASES.items()}
    assert bases == {"LLaMA": 10_000.0, "Llama 2": 10_000.0, "Llama 2 Long": 500_000.0,
                     "Code Llama": 1_000_000.0, "Llama 3": 500_000.0}
    assert catalogue.ROPE_REPORTED_REACH == {"Code Llama": (100_000, "roziere2023codellama")}
    slowest = [encodings.wavelengths(128, b)[-1] for b in sorted(bases.values())]
    assert slowest == sorted(slowest)
    contexts = {k: n for k, (n, _) in catalogue.ROPE_CONTEXTS.items()}
    assert contexts == {"LLaMA": 2048, "Llama 2": 4096, "Llama 2 Long": 32_768,
                        "Code Llama": 16_384}
    # a larger base leaves more pairs under one turn, even at the longer training length
    from posenc_lib.maths import rope_scaling
    under = {k: int((rope_scaling.turns(128, bases[k], n) < 1).sum()) for k, n in contexts.items()}
    # (a count at each model's own length: past that length, every such pair leaves its trained
    # arc by the same factor whatever the base, so these counts do not rank the bases)
    assert under == {"LLaMA": 23, "Llama 2": 18, "Llama 2 Long": 22, "Code Llama": 27}


# -- probing layers -----------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", catalogue.LAYER_SCHEMES)
def test_probe_finds_where_each_scheme_acts(scheme):
    key = scheme
    for seed in (0, 3):
        layer = catalogue.position_layer(scheme, seed=seed)
        assert catalogue.classify_layer(layer) == catalogue.method(key).acts_on


@pytest.mark.parametrize("scheme", catalogue.LAYER_SCHEMES)
def test_same_token_logits_are_toeplitz_exactly_for_relative_schemes(scheme):
    layer = catalogue.position_layer(scheme, seed=1)
    token = np.random.default_rng(5).standard_normal(16)
    logits = layer(np.tile(token, (20, 1)), np.arange(20))
    spread = catalogue.diagonal_spread(logits)
    if scheme in ("none", "rope", "alibi", "t5"):
        assert spread < 1e-12
    else:
        assert spread > 0.5


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["rope", "alibi", "t5", "sinusoidal"]), st.integers(1, 30),
       st.integers(0, 1000))
def test_relative_layers_ignore_a_shift_of_all_positions(scheme, shift, seed):
    layer = catalogue.position_layer(scheme, seed=0)
    x = np.random.default_rng(seed).standard_normal((5, 16))
    p = np.array([0, 1, 3, 4, 8])
    same = np.allclose(layer(x, p), layer(x, p + shift), atol=1e-10)
    assert same == (scheme != "sinusoidal")


def test_learned_table_is_drawn_independently_of_the_weights():
    # the table must not repeat W_Q or W_K (an earlier version drew both from the same seed)
    layer = catalogue.position_layer("learned", seed=0)
    rng = np.random.default_rng(0)
    w_q = rng.standard_normal((16, 16)) / 4
    w_k = rng.standard_normal((16, 16)) / 4
    e = layer(np.zeros((16, 16)), np.arange(16))  # the table alone: (P W_Q)(P W_K)^T / 4
    p_repeating_wq = 4 * w_q                         # rows 0..15 if the table reused W_Q's draw
    assert not np.allclose(e, (p_repeating_wq @ w_q) @ (p_repeating_wq @ w_k).T / 4)


def test_layers_against_direct_formulas():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 16))
    p = np.array([0, 3, 4, 9])
    content = catalogue.position_layer("none", seed=7)(x, p)
    # ALiBi: the content logits minus m|p_i - p_j| (same seed, same W_Q and W_K)
    alibi_l = catalogue.position_layer("alibi", seed=7, slope=0.5)(x, p)
    np.testing.assert_allclose(alibi_l, content - 0.5 * np.abs(p[:, None] - p[None, :]),
                               atol=1e-12)
    # sinusoidal: the content logits of x + PE(p)
    sin_l = catalogue.position_layer("sinusoidal", seed=7)(x, p)
    shifted = catalogue.position_layer("none", seed=7)(x + encodings.sinusoidal_at(p, 16), p)
    np.testing.assert_allclose(sin_l, shifted, atol=1e-12)
    # RoPE at position 0 everywhere is no rotation at all
    rope_l = catalogue.position_layer("rope", seed=7)(x, np.zeros(4, dtype=int))
    np.testing.assert_allclose(rope_l, content, atol=1e-12)


def _shaw_layer(x, positions):
    """Shaw et al. scores for arbitrary positions (a term q_i . a_{clip(j - i)} per pair)."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((16, 16)) / 4
    a = rng.standard_normal((9, 16))
    q = x @ w
    rel = np.clip(positions[None, :] - positions[:, None], -4, 4) + 4
    return (q @ q.T + np.einsum("id,ijd->ij", q, a[rel])) / 4


def test_probe_on_hand_made_layers():
    w = np.random.default_rng(0).standard_normal((16, 16))
    def content(x):
        return x @ w @ x.T

    assert catalogue.classify_layer(lambda x, p: content(x)) == "nowhere"
    assert catalogue.classify_layer(
        lambda x, p: content(x) - np.abs(p[:, None] - p[None, :])) == "scores"
    assert catalogue.classify_layer(
        lambda x, p: content(x + np.sin(p)[:, None])) == "input"
    assert catalogue.classify_layer(
        lambda x, p: content(x * np.cos(p)[:, None] + 0.0)) == "queries-keys"
    # documented: Shaw et al.'s query-dependent pair term vanishes at x = 0 like RoPE
    assert catalogue.classify_layer(_shaw_layer) == "queries-keys"


def test_diagonal_spread_known_values():
    assert catalogue.diagonal_spread([[0.0, 1.0], [2.0, 3.0]]) == 3.0
    assert catalogue.diagonal_spread([[1.0, np.nan], [np.nan, 1.0]]) == 0.0
    assert catalogue.diagonal_spread([[5.0]]) == 0.0


@given(st.lists(st.floats(-5, 5), min_size=1, max_size=8), st.data())
def test_diagonal_spread_is_zero_for_toeplitz_matrices(first_row, data):
    n = len(first_row)
    first_col = [first_row[0]] + data.draw(st.lists(st.floats(-5, 5), min_size=n - 1,
                                                     max_size=n - 1))
    t = np.array([[first_row[j - i] if j >= i else first_col[i - j] for j in range(n)]
                  for i in range(n)])
    assert catalogue.diagonal_spread(t) == 0.0
    if n > 1:
        bumped = t.copy()
        bumped[0, 0] += 1.0
        assert catalogue.diagonal_spread(bumped) == pytest.approx(1.0)


def test_probe_and_layer_validation():
    with pytest.raises(ValueError, match="scheme must be one of .* got 'shaw'"):
        catalogue.position_layer("shaw")
    with pytest.raises(ValueError, match="d must be a positive even integer, got 7"):
        catalogue.position_layer("rope", d=7)
    with pytest.raises(ValueError, match="slope must be >= 0"):
        catalogue.position_layer("alibi", slope=-1.0)
    layer = catalogue.position_layer("learned", max_len=8)
    x = np.zeros((3, 16))
    with pytest.raises(ValueError, match=r"x must have shape \(L, 16\), got \(3, 4\)"):
        layer(np.zeros((3, 4)), [0, 1, 2])
    with pytest.raises(ValueError, match="positions must be a 1-D array with one entry per row"):
        layer(x, [0, 1])
    with pytest.raises(ValueError, match="positions must be >= 0, got -1"):
        layer(x, [-1, 0, 1])
    with pytest.raises(TypeError, match="positions must be integers"):
        layer(x, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="position 8 is out of range .* max_len=8"):
        layer(x, [0, 1, 8])
    with pytest.raises(ValueError, match="logits must be a square 2-D array"):
        catalogue.diagonal_spread(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="logits must not contain inf"):
        catalogue.diagonal_spread([[0.0, -np.inf], [0.0, 0.0]])


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
