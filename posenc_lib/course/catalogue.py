r"""The book's position encodings side by side: a table of facts as data, and probes.

Chapter 12 compares every method of the book. The facts live here, once, as a tuple of frozen
dataclasses (:data:`METHODS`), so the comparison table, the timeline and the tests all read the
same source. Each :class:`Method` records

* **where** position enters one attention head (:data:`WHERE`):

  - ``"input"`` — a vector added to the token embedding, :math:`x_i + \PE(i)`;
  - ``"queries-keys"`` — each query and key is changed by its own position (RoPE rotates them);
  - ``"scores"`` — a term that depends on the *pair* of positions is added to the logit
    :math:`q_i\cdot k_j/\sqrt{d}` (Shaw et al., T5, ALiBi);
  - ``"nowhere"`` — no position signal at all (NoPE; a causal mask still leaks order);

* whether the logit sees the two positions only through their distance (**relative**);
* the number of **learned position parameters**, as a formula (:func:`position_parameters`);
* well-documented **models** that use it, and the **key paper** the book follows (year and month
  of its first public version, citation key, and where it was published later).

RoPE comes in several variants in released models. :data:`ROPE_VARIANTS` lists them as
:class:`Variant` rows (which features rotate, how they pair up, one axis or two, which base, which
scaling rule at long inputs), each with the setting a released configuration uses and the
``posenc_lib`` call that computes it; :func:`variants_table` shows them. :data:`PARTIAL_ROTARY`
and :data:`LLAMA31_ROPE` hold the numbers of two released configurations.

Two probes make "where" and "relative" measurable on any one-head layer
``layer(x, positions) -> logits`` (:func:`position_layer` builds one per scheme):
:func:`classify_layer` finds where a layer injects position, and :func:`diagonal_spread`
measures how far its logits are from depending on :math:`j - i` only.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import (
    as_array,
    check_choice,
    check_even_dim,
    check_finite_real,
    check_nonneg_int,
    check_positive_int,
)
from ..lab import schemes
from ..maths import alibi, encodings, relative, rope

__all__ = [
    "LAYER_SCHEMES",
    "LLAMA31_ROPE",
    "METHODS",
    "PARTIAL_ROTARY",
    "ROPE_BASES",
    "ROPE_CONTEXTS",
    "ROPE_REPORTED_REACH",
    "ROPE_VARIANTS",
    "TIMELINE",
    "WHERE",
    "Event",
    "Method",
    "Table",
    "Variant",
    "classify_layer",
    "diagonal_spread",
    "method",
    "position_layer",
    "position_parameters",
    "table",
    "variants_table",
]

#: Where a method injects position into one attention head (see the module docstring).
WHERE: tuple[str, ...] = schemes.WHERE


@dataclass(frozen=True)
class Method:
    """One row of the comparison: the facts about a position encoding.

    ``acts_on`` is one of :data:`WHERE`; ``relative`` is ``True`` when the logit depends on the
    positions, and only through :math:`j - i` (for axial 2-D RoPE: only through the offset
    between two image patches, (Δrow, Δcol)); ``False`` when it depends on absolute positions;
    ``None`` for NoPE, which has no position at all (its logit is trivially shift-invariant, so
    "relative" would be true but empty). ``params`` is the learned-parameter count as text
    (:func:`position_parameters` computes it); ``extends`` names the method a context-extension
    trick modifies. ``paper`` is the *key* paper the book follows (not always the earliest idea:
    see the chapter's history); ``year``/``month`` date its first public version (arXiv v1 where
    there is one, ``arxiv`` its identifier); ``cite`` is its key in ``book/references.bib``;
    ``venue``/``venue_year`` say where and when it was published after that, if it was.
    ``lab_scheme`` is the name of the scheme in ``lab.POSITIONS``, or ``None``
    if the book's lab does not train it. ``beyond`` says what happens past the training length.
    ``event`` replaces the timeline label made from ``name`` and ``paper`` when the key paper is
    not where the idea started (axial 2-D RoPE: used in EVA-02 before Heo et al. studied it).
    """

    key: str
    name: str
    chapter: int
    acts_on: str
    relative: bool | None
    params: str
    models: tuple[str, ...]
    model_cites: tuple[str, ...]
    paper: str
    year: int
    month: int
    cite: str
    arxiv: str | None
    lab_scheme: str | None
    beyond: str
    extends: str | None = None
    venue: str | None = None
    venue_year: int | None = None
    event: str | None = None

    def __post_init__(self) -> None:
        check_choice("acts_on", self.acts_on, WHERE)
        if self.lab_scheme is not None and self.lab_scheme != self.key:
            raise ValueError(f"a method the lab trains has the lab's name for it: key "
                             f"{self.key!r}, lab_scheme {self.lab_scheme!r}")
        if self.lab_scheme is not None and schemes.get(self.lab_scheme).acts_on != self.acts_on:
            raise ValueError(f"{self.key} acts on {self.acts_on}, but the lab's "
                             f"{self.lab_scheme!r} acts on {schemes.get(self.lab_scheme).acts_on}")
        if not 1 <= self.month <= 12:
            raise ValueError(f"month must be in 1..12, got {self.month}")
        if (self.venue is None) != (self.venue_year is None):
            raise ValueError("give both venue and venue_year, or neither")
        if self.venue_year is not None and self.venue_year < self.year:
            raise ValueError(f"venue_year {self.venue_year} is before the first version "
                             f"({self.year})")


#: Every method the book teaches, in the order of the comparison table.
METHODS: tuple[Method, ...] = (
    Method(
        key="sinusoidal", name="Sinusoidal", chapter=6, acts_on="input", relative=False,
        params="none", models=("Transformer (2017)",), model_cites=("vaswani2017attention",),
        paper="Vaswani et al.", year=2017, month=6, cite="vaswani2017attention",
        arxiv="1706.03762", lab_scheme="sinusoidal",
        beyond="defined for any position, but the model never saw those vectors",
        venue="NeurIPS", venue_year=2017),
    Method(
        key="learned", name="Learned absolute table", chapter=7, acts_on="input", relative=False,
        params="L_max·d", models=("GPT", "BERT", "GPT-2"),
        model_cites=("radford2018gpt", "devlin2019bert", "radford2019gpt2"),
        paper="Gehring et al.", year=2017, month=5, cite="gehring2017convs2s",
        arxiv="1705.03122", lab_scheme="learned",
        beyond="impossible: there is no row for position L_max (new rows must be made and "
               "trained)", venue="ICML", venue_year=2017),
    Method(
        key="shaw", name="Shaw et al. relative", chapter=7, acts_on="scores", relative=True,
        params="2·(2k+1)·d/H per layer, heads sharing (×H if each head has its own)",
        models=(), model_cites=(),
        paper="Shaw et al.", year=2018, month=3, cite="shaw2018self", arxiv="1803.02155",
        lab_scheme=None, beyond="runs; all offsets beyond ±k share one vector",
        venue="NAACL", venue_year=2018),
    Method(
        key="t5", name="T5 bucketed bias", chapter=7, acts_on="scores", relative=True,
        params="H·buckets (shared by all layers)", models=("T5",), model_cites=("raffel2020t5",),
        paper="Raffel et al.", year=2019, month=10, cite="raffel2020t5", arxiv="1910.10683",
        lab_scheme="t5",
        beyond="runs; all far offsets share the last bucket (buckets stay untrained only if "
               "no training input reached their distances)",
        venue="JMLR", venue_year=2020),
    Method(
        key="rope", name="RoPE (rotary)", chapter=8, acts_on="queries-keys", relative=True,
        params="none", models=("GPT-J", "GPT-NeoX-20B", "PaLM", "LLaMA"),
        model_cites=("wang2021gptj", "black2022gptneox", "chowdhery2022palm",
                     "touvron2023llama"),
        paper="Su et al.", year=2021, month=4, cite="su2021roformer", arxiv="2104.09864",
        lab_scheme="rope", beyond="defined; angle combinations never seen in training",
        venue="Neurocomputing", venue_year=2024),
    Method(
        key="axial", name="Axial 2-D RoPE", chapter=8, acts_on="queries-keys",
        relative=True, params="none", models=("EVA-02",), model_cites=("fang2023eva02",),
        paper="Heo et al.", year=2024, month=3, cite="heo2024ropevit", arxiv="2403.13298",
        lab_scheme=None,
        beyond="runs on larger patch grids (higher image resolutions); offsets never seen in "
               "training are new, as in 1-D", venue="ECCV", venue_year=2024,
        event="Axial 2-D RoPE studied for ViTs (Heo et al.)"),
    Method(
        key="alibi", name="ALiBi", chapter=9, acts_on="scores", relative=True,
        params="none (fixed slopes)", models=("BLOOM", "MPT"),
        model_cites=("bigscience2022bloom", "mosaicml2023mpt"),
        paper="Press et al.", year=2021, month=8, cite="press2022alibi", arxiv="2108.12409",
        lab_scheme="alibi", beyond="runs; far keys get more of the same penalty",
        venue="ICLR", venue_year=2022),
    Method(
        key="none", name="NoPE (no encoding)", chapter=10, acts_on="nowhere", relative=None,
        params="none", models=(), model_cites=(),
        paper="Haviv et al.", year=2022, month=3, cite="haviv2022nope", arxiv="2203.16634",
        lab_scheme="none", beyond="runs; order comes only from the causal mask",
        venue="Findings of EMNLP", venue_year=2022),
    Method(
        key="pi", name="Position Interpolation", chapter=11, acts_on="queries-keys",
        relative=True, params="none (RoPE with θ_i/s)", models=("LLaMA at 32k (in the paper)",),
        model_cites=("chen2023pi",),
        paper="Chen et al.", year=2023, month=6, cite="chen2023pi", arxiv="2306.15595",
        lab_scheme=None,
        beyond="stretches a trained RoPE model, then needs fine-tuning (without it, it fell to "
               "chance in chapter 11's lab, and a short fine-tune was not enough)",
        extends="rope"),
    Method(
        key="ntk", name="NTK-aware scaling", chapter=11, acts_on="queries-keys", relative=True,
        params="none (RoPE base n·s^(d/(d−2)))", models=(), model_cites=(),
        paper="bloc97", year=2023, month=6, cite="bloc97ntk", arxiv=None, lab_scheme=None,
        beyond="stretches a trained RoPE model, even without fine-tuning (a larger base "
               "matched to the stretch)", extends="rope"),
    Method(
        key="dynamic", name="Dynamic NTK", chapter=11, acts_on="queries-keys", relative=True,
        params="none (the NTK base, recomputed for the current length)", models=("Qwen",),
        model_cites=("bai2023qwen",),
        paper="emozilla", year=2023, month=6, cite="emozilla2023dynamic", arxiv=None,
        lab_scheme=None,
        beyond="stretches a trained RoPE model without fine-tuning; inputs up to the training "
               "length are read exactly as in training", extends="rope"),
    Method(
        key="abf", name="Larger RoPE base", chapter=11, acts_on="queries-keys", relative=True,
        params="none (a new base n)", models=("Code Llama", "Llama 2 Long"),
        model_cites=("roziere2023codellama", "xiong2023effective"),
        paper="Rozière et al.", year=2023, month=8, cite="roziere2023codellama",
        arxiv="2308.12950", lab_scheme=None,
        beyond="long-context fine-tuning with the slower frequencies; the fine-tuned model "
               "then runs past its fine-tuning length", extends="rope"),
    Method(
        key="yarn", name="YaRN", chapter=11, acts_on="queries-keys", relative=True,
        params="none (per-pair ramp + attention scale)", models=("DeepSeek-V2", "Qwen2.5"),
        model_cites=("deepseek2024v2", "qwen2024qwen25"),
        paper="Peng et al.", year=2023, month=8, cite="peng2024yarn", arxiv="2309.00071",
        lab_scheme=None,
        beyond="stretches a trained RoPE model, with or without a short fine-tune",
        extends="rope", venue="ICLR", venue_year=2024),
    Method(
        key="llama3", name="Llama 3.1 scaling", chapter=11, acts_on="queries-keys",
        relative=True, params="none (per-pair blend of θ_i and θ_i/s by wavelength)",
        models=("Llama 3.1",), model_cites=("dubey2024llama3",),
        paper="Dubey et al.", year=2024, month=7, cite="dubey2024llama3", arxiv="2407.21783",
        lab_scheme=None,
        beyond="keeps the fast pairs, divides the slow ones by s, blends in between; Llama 3.1 "
               "was released with it after long-context pretraining from 8K to 128K tokens",
        extends="rope"),
)

_BY_KEY = {m.key: m for m in METHODS}

#: RoPE bases :math:`n` of well-documented models (model name → (base, citation key)): the
#: original value, the larger bases used for long-context fine-tuning, and Llama 3's, a larger
#: base chosen for pretraining.
ROPE_BASES: dict[str, tuple[float, str]] = {
    "LLaMA": (10_000.0, "touvron2023llama"),
    "Llama 2": (10_000.0, "touvron2023llama2"),
    "Llama 2 Long": (500_000.0, "xiong2023effective"),
    "Code Llama": (1_000_000.0, "roziere2023codellama"),
    "Llama 3": (500_000.0, "dubey2024llama3"),
}

#: The sequence length each model of :data:`ROPE_BASES` was trained (or long-context fine-tuned)
#: on, with the citation key: LLaMA 2048, Llama 2 4096 (same base as LLaMA), Llama 2 Long's
#: continual pretraining 32,768 (its 7B and 13B models; the 34B and 70B used 16,384), Code
#: Llama's long-context fine-tuning 16,384.
ROPE_CONTEXTS: dict[str, tuple[int, str]] = {
    "LLaMA": (2048, "touvron2023llama"),
    "Llama 2": (4096, "touvron2023llama2"),
    "Llama 2 Long": (32_768, "xiong2023effective"),
    "Code Llama": (16_384, "roziere2023codellama"),
}

#: How far past its fine-tuning length a long-context model is reported to work (model →
#: (tokens, citation key)): Code Llama, fine-tuned on 16,384 tokens, "shows improvements on
#: inputs with up to 100k tokens" (quoted from the paper, not measured here).
ROPE_REPORTED_REACH: dict[str, tuple[int, str]] = {
    "Code Llama": (100_000, "roziere2023codellama"),
}

#: Partial rotary in two released models (model → (model width, heads, rotated features per head,
#: the configuration's setting, citation key)). Only the first ``rotary_dim`` features of each
#: head rotate (:func:`posenc_lib.maths.rope.apply` with ``rotary_dim``): GPT-J's heads have 4096/16 =
#: 256 features and ``rotary_dim = 64``; GPT-NeoX-20B's have 6144/64 = 96 and
#: ``rotary_pct = 0.25``, so 24 (as in their Hugging Face configurations).
PARTIAL_ROTARY: dict[str, tuple[int, int, int, str, str]] = {
    "GPT-J": (4096, 16, 64, "rotary_dim = 64", "wang2021gptj"),
    "GPT-NeoX-20B": (6144, 64, 24, "rotary_pct = 0.25", "black2022gptneox"),
}

#: Llama 3.1's RoPE settings as its released configuration spells them (Hugging Face
#: ``rope_scaling`` with ``rope_type="llama3"``, ``rope_theta`` and the longest input,
#: ``max_position_embeddings``), with the citation key of
#: the paper that describes the models. :func:`posenc_lib.maths.rope_scaling.scaled_frequencies` with
#: ``method="llama3"`` computes the frequencies from them.
LLAMA31_ROPE: dict[str, Any] = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
    "max_position_embeddings": 131_072,
    "rope_theta": 500_000.0,
    "cite": "dubey2024llama3",
}


@dataclass(frozen=True)
class Variant:
    """One row of the RoPE variants table: a choice that released RoPE models make differently.

    ``changes`` says what differs from plain RoPE (every feature of a head, adjacent pairs, one
    axis, base 10000, no scaling); ``setting`` how a released configuration or code base spells
    it; ``models``/``model_cites`` examples with their citation keys; ``cite`` the source the
    book follows (``None`` when the models themselves are the source); ``library`` the
    ``posenc_lib`` call that computes it; ``chapter`` where the book builds it.
    """

    key: str
    name: str
    chapter: int
    changes: str
    setting: str
    models: tuple[str, ...]
    model_cites: tuple[str, ...]
    cite: str | None
    library: str

    def __post_init__(self) -> None:
        if len(self.models) != len(self.model_cites):
            raise ValueError(f"{self.key}: give one citation key per model, got "
                             f"{len(self.models)} models and {len(self.model_cites)} keys")


def _partial_setting() -> str:
    parts = []
    for name, (width, heads, rot, setting, _) in PARTIAL_ROTARY.items():
        parts.append(f"{name}: {setting} ({rot} of {width // heads} features per head)")
    return "; ".join(parts)


#: The RoPE variants of released models, in the order of the variants table. They say which
#: features rotate, how they pair up, one axis or two, which base, and which scaling rules a
#: configuration can name (Hugging Face ``rope_scaling``; fixed NTK-aware scaling has no type of
#: its own there).
ROPE_VARIANTS: tuple[Variant, ...] = (
    Variant(
        key="pairing", name="Pairing convention", chapter=8,
        changes="which two features form pair i: adjacent (2i, 2i+1) or rotate-half (i, i+d/2); "
                "the same maths in permuted features",
        setting="adjacent: GPT-J, Meta's LLaMA code; rotate-half: GPT-NeoX, Hugging Face Llama. "
                "Converting a checkpoint permutes the rows of W_Q and W_K head by head",
        models=("GPT-J", "LLaMA", "GPT-NeoX-20B"),
        model_cites=("wang2021gptj", "touvron2023llama", "black2022gptneox"),
        cite="su2021roformer",
        library="rope.apply(..., pairing=...), rope.convert_qk_weight(w, n_heads)"),
    Variant(
        key="partial", name="Partial rotary", chapter=8,
        changes="only the first r features of each head rotate (with the frequencies of an "
                "r-dimensional RoPE); the others carry no position",
        setting=_partial_setting(),
        models=tuple(PARTIAL_ROTARY), model_cites=tuple(v[4] for v in PARTIAL_ROTARY.values()),
        cite=None, library="rope.apply(x, rotary_dim=r)"),
    Variant(
        key="axial", name="Axial 2-D RoPE", chapter=8,
        changes="half of the features turn with an image patch's row, half with its column: "
                "the score depends on the 2-D offset",
        setting="RoPE-Axial of Heo et al., who use base 100 (their RoPE-Mixed learns "
                "frequencies that mix the two axes); EVA-02 used 2-D RoPE before them",
        models=("EVA-02",), model_cites=("fang2023eva02",), cite="heo2024ropevit",
        library="rope.axial_apply(x, rows, cols), rope.grid_positions(h, w)"),
    Variant(
        key="base", name="Base n", chapter=11,
        changes="slower frequencies θ_i = n^(−2i/d) for a larger base",
        setting="rope_theta: " + ", ".join(
            f"{b:,.0f} ({name})" for name, (b, _) in ROPE_BASES.items()
            if name in ("Llama 2", "Llama 3", "Code Llama")),
        models=("Llama 2", "Code Llama", "Llama 3"),
        model_cites=tuple(ROPE_BASES[k][1] for k in ("Llama 2", "Code Llama", "Llama 3")),
        cite=None, library="encodings.frequencies(d, base)"),
    Variant(
        key="linear", name="Position interpolation", chapter=11,
        changes="every θ_i divided by s; needs fine-tuning",
        setting="rope_scaling type \"linear\", factor s", models=(), model_cites=(),
        cite="chen2023pi", library='rope_scaling.scaled_frequencies(d, s, "linear")'),
    Variant(
        key="dynamic", name="Dynamic NTK", chapter=11,
        changes="the NTK-aware base, recomputed for the current length ℓ > L with the factor "
                "s·ℓ/L − (s − 1); unchanged up to L",
        setting="Hugging Face: rope_scaling type \"dynamic\", factor s. Qwen: "
                "use_dynamic_ntk = true, with a factor rule of its own (no s)",
        models=("Qwen",), model_cites=("bai2023qwen",), cite="emozilla2023dynamic",
        library='rope_scaling.scaled_frequencies(d, s, "dynamic", seq_len=ℓ)'),
    Variant(
        key="yarn", name="YaRN", chapter=11,
        changes="keep the fast pairs, divide the slow ones by s, ramp in between; q and k each "
                "× (0.1 ln s + 1) by default",
        setting="rope_scaling type \"yarn\", factor s, original_max_position_embeddings L "
                "(DeepSeek-V2 adds keys of its own and sets its own attention factor, mscale)",
        models=("DeepSeek-V2", "Qwen2.5"), model_cites=("deepseek2024v2", "qwen2024qwen25"),
        cite="peng2024yarn", library='rope_scaling.scaled_frequencies(d, s, "yarn")'),
    Variant(
        key="llama3", name="Llama 3.1 scaling", chapter=11,
        changes="keep pairs of 4 or more turns in L, divide pairs of 1 turn or fewer by s, "
                "blend linearly in the turns between; no logit factor",
        setting=(f"rope_scaling type \"{LLAMA31_ROPE['rope_type']}\", factor "
                 f"{LLAMA31_ROPE['factor']:g}, low_freq_factor "
                 f"{LLAMA31_ROPE['low_freq_factor']:g}, high_freq_factor "
                 f"{LLAMA31_ROPE['high_freq_factor']:g}, original_max_position_embeddings "
                 f"{LLAMA31_ROPE['original_max_position_embeddings']}; rope_theta "
                 f"{LLAMA31_ROPE['rope_theta']:,.0f}"),
        models=("Llama 3.1",), model_cites=(LLAMA31_ROPE["cite"],), cite=None,
        library='rope_scaling.scaled_frequencies(d, s, "llama3")'),
)

_VARIANTS_BY_KEY = {v.key: v for v in ROPE_VARIANTS}


def method(key: str) -> Method:
    """The :class:`Method` called ``key`` (e.g. ``"rope"``)."""
    return _BY_KEY[check_choice("key", key, tuple(_BY_KEY))]


# --------------------------------------------------------------------------------------------
# Learned parameters
# --------------------------------------------------------------------------------------------


def position_parameters(key: str, max_len: int, d: int, n_heads: int, n_layers: int,
                        shaw_k: int = 16, t5_buckets: int = 32,
                        shaw_per_head: bool = False) -> int:
    r"""Learned position parameters of one decoder stack that uses method ``key``.

    =============================  ==============================================================
    ``learned``                    :math:`L_{\max}\cdot d` (one vector per position)
    ``shaw``                       :math:`2\,(2k+1)\,d_h` per layer, :math:`d_h = d/H`: a key and
                                   a value table of :math:`2k+1` vectors of one head's size
                                   each, shared by the heads of the layer (the option of Shaw
                                   et al.'s sections 3.1 and 3.3, used for their big model);
                                   with ``shaw_per_head=True``, one pair of tables per head,
                                   :math:`H` times as many (their base model: "unique edge
                                   representations per layer and head", section 4.1)
    ``t5``                         :math:`H\cdot B` (``t5_buckets``), one scalar per head and
                                   bucket, shared by all layers of the stack
    everything else                0: sinusoids, RoPE (and its stretched versions) and ALiBi use
                                   fixed formulas; NoPE has nothing
    =============================  ==============================================================

    ``max_len`` is :math:`L_{\max}`, ``shaw_k`` the clipping distance :math:`k`. ``n_heads`` must
    divide ``d`` (only Shaw et al. needs :math:`d_h`, but the check applies to all). Only
    self-attention is counted (Shaw et al. add nothing to encoder-decoder attention).
    """
    key = method(key).key
    max_len = check_positive_int("max_len", max_len)
    d = check_positive_int("d", d)
    n_heads = check_positive_int("n_heads", n_heads)
    n_layers = check_positive_int("n_layers", n_layers)
    shaw_k = check_nonneg_int("shaw_k", shaw_k)
    t5_buckets = check_positive_int("t5_buckets", t5_buckets)
    if not isinstance(shaw_per_head, (bool, np.bool_)):
        raise TypeError(f"shaw_per_head must be True or False, got {shaw_per_head!r}")
    if d % n_heads:
        raise ValueError(f"n_heads must divide d, got n_heads={n_heads} and d={d}")
    if key == "learned":
        return max_len * d
    if key == "shaw":
        per_layer = 2 * (2 * shaw_k + 1) * (d // n_heads)  # key + value table, one head's size
        return n_layers * per_layer * (n_heads if shaw_per_head else 1)
    if key == "t5":
        return n_heads * t5_buckets
    return 0


# --------------------------------------------------------------------------------------------
# The comparison table
# --------------------------------------------------------------------------------------------


def _fmt_accuracy(values: Sequence[float]) -> str:
    return " / ".join("—" if not math.isfinite(v) else f"{v:.2f}" for v in values)


class Table:
    """A comparison table that displays as HTML (website, Jupyter) and as plain text (nbval).

    ``header`` is a list of column titles and ``rows`` a list of rows of strings.
    """

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]],
                 caption: str = "") -> None:
        self.header = [str(h) for h in header]
        self.rows = [[str(c) for c in r] for r in rows]
        for r in self.rows:
            if len(r) != len(self.header):
                raise ValueError(f"every row needs {len(self.header)} cells, got {len(r)}: {r}")
        self.caption = caption

    def text(self) -> str:
        """Fixed-width plain text, one line per row (stable: nbval compares it)."""
        widths = [max(len(h), *(len(r[c]) for r in self.rows)) if self.rows else len(h)
                  for c, h in enumerate(self.header)]
        def line(cells: Sequence[str]) -> str:
            return " | ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

        out = [line(self.header), "-+-".join("-" * w for w in widths)]
        out += [line(r) for r in self.rows]
        if self.caption:
            out.append(self.caption)
        return "\n".join(out)

    def markdown(self) -> str:
        def esc(s: str) -> str:
            return s.replace("|", "\\|")

        out = ["| " + " | ".join(esc(h) for h in self.header) + " |",
               "|" + "---|" * len(self.header)]
        out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in self.rows]
        return "\n".join(out) + (f"\n\n{self.caption}\n" if self.caption else "\n")

    def html(self) -> str:
        head = "".join(f'<th style="text-align:left;vertical-align:bottom">{html.escape(h)}</th>'
                       for h in self.header)
        body = "".join(
            "<tr>" + "".join(f'<td style="vertical-align:top">{html.escape(c)}</td>' for c in r)
            + "</tr>" for r in self.rows)
        cap = (f'<caption style="caption-side:bottom;text-align:left;font-size:0.9em">'
               f"{html.escape(self.caption)}</caption>" if self.caption else "")
        # The wrapper scrolls sideways on its own, so a phone never scrolls the whole page.
        return (f'<div class="posenc-table" style="max-width:100%;overflow-x:auto">'
                f'<table class="table" style="font-size:0.85em">{cap}<thead><tr>{head}</tr>'
                f"</thead><tbody>{body}</tbody></table></div>")

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": self.html(), "text/markdown": self.markdown(),
                "text/plain": self.text()}


#: Short task names for the measured columns of :func:`table`.
_TASK_SHORT: dict[str, str] = {"copy_back": "copy", "latest_signal": "latest-signal"}


def _partial_caption() -> str:
    counts = [f"{rot} of {width // heads}" for width, heads, rot, _, _ in PARTIAL_ROTARY.values()]
    return (f"{' and '.join(PARTIAL_ROTARY)} rotate only part of each head ("
            f"{' and '.join(counts)} features).")


def table(sweep: Any | None = None, keys: Sequence[str] | None = None) -> Table:
    """The comparison table of the methods ``keys`` (default: all of :data:`METHODS`).

    With ``sweep`` — a :class:`posenc_lib.lab.extrapolation.SweepResult` (anything with ``.task``,
    ``.positions``, ``.lengths`` and ``.accuracy[scheme]``), or a sequence of them — one last
    column per sweep gives the accuracy measured in the book's lab at each evaluation length
    (``—`` where a scheme cannot run, "not trained" for methods the lab has no model of).
    """
    chosen = [m.key for m in METHODS] if keys is None else [method(k).key for k in keys]
    sweeps: list[Any] = [] if sweep is None else (
        list(sweep) if isinstance(sweep, (list, tuple)) else [sweep])
    for k, sw in enumerate(sweeps):
        if not all(hasattr(sw, a) for a in ("task", "positions", "lengths", "accuracy")):
            raise TypeError(f"sweep[{k}] must be a SweepResult (task, positions, lengths, "
                            f"accuracy), got {type(sw).__name__}")
    header = ["method, chapter", "where", "relative?", "learned parameters",
              "used by (examples)", "key paper"]
    caption = ("Key paper: the one the book follows, dated by its first public version (arXiv "
               "v1 where there is one); some ideas are older (see the history below). "
               "relative? n/a: NoPE has no position at all. Learned parameters: d is the "
               "model width (in the RoPE rows, the width of one head), H the number of heads, "
               "k Shaw's clipping distance, s the stretch factor, n the RoPE base (chapter 8 "
               "calls it b, because there n is a key position), θ_i RoPE's frequency of pair "
               "i. " + _partial_caption())
    if "axial" in chosen:
        caption += (" Axial 2-D RoPE is relative in the offset between two image patches (rows "
                    "and columns); EVA-02 used it before Heo et al. studied it systematically.")
    if "llama3" in chosen:
        caption += (" Llama 3.1 scaling: the paper describes the models; the rule itself is in "
                    "Meta's released code and configuration (see the RoPE variants table).")
    if sweeps:
        names = [_TASK_SHORT.get(sw.task, sw.task) for sw in sweeps]
        for name, sw in zip(names, sweeps):
            lengths = " / ".join(str(int(x)) for x in sw.lengths)
            header.append(f"toy {name} task: accuracy at L = {lengths}")
        train_lens = {getattr(sw, "train_length", None) for sw in sweeps}
        train_len = train_lens.pop() if len(train_lens) == 1 else None
        tasks = " and ".join(names) + (" task" if len(names) == 1 else " tasks")
        caption += (f" Last column{'s' if len(sweeps) > 1 else ''}: this book's toy {tasks} "
                    "(chapter 10), one small model per scheme"
                    + (f" trained at L = {int(train_len)}" if train_len else "")
                    + ", one seed; — = cannot run at that length.")
    rows = []
    for key in chosen:
        m = _BY_KEY[key]
        rel = "n/a" if m.relative is None else ("yes" if m.relative else "no")
        row = [f"{m.name}, ch. {m.chapter}", m.acts_on, rel, m.params,
               ", ".join(m.models) if m.models else "—", f"{m.paper} {m.year}"]
        for sw in sweeps:
            if m.lab_scheme is not None and m.lab_scheme in sw.positions:
                row.append(_fmt_accuracy(sw.accuracy[m.lab_scheme]))
            else:
                row.append("not trained")
        rows.append(row)
    return Table(header, rows, caption=caption)


def variants_table(keys: Sequence[str] | None = None) -> Table:
    """The RoPE variants table: the rows ``keys`` of :data:`ROPE_VARIANTS` (default: all)."""
    if keys is None:
        chosen = list(ROPE_VARIANTS)
    else:
        chosen = [_VARIANTS_BY_KEY[check_choice("key", k, tuple(_VARIANTS_BY_KEY))]
                  for k in keys]
    header = ["variant, chapter", "what changes", "setting (configuration, code or paper)",
              "examples", "in posenc_lib"]
    rows = [[f"{v.name}, ch. {v.chapter}", v.changes, v.setting,
             ", ".join(v.models) if v.models else "—", v.library] for v in chosen]
    caption = ("Plain RoPE rotates every feature of a head in adjacent pairs, along one axis, "
               "with base 10,000 and no scaling; each row changes one of these choices. n is the "
               "RoPE base (chapter 8 calls it b, because there n is a key position), s the "
               "stretch factor, L the training length, ℓ the length of the current input, r the "
               "rotated features, d the width of one head. Settings are spelled as in Hugging "
               "Face configurations where they have a name there; the pairing row names code "
               "bases, the axial row a paper's method. Examples are models that use the "
               "variant, not always with the same settings.")
    return Table(header, rows, caption=caption)


# --------------------------------------------------------------------------------------------
# Timeline
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """A dated event of the timeline: ``kind`` is ``"method"``, ``"model"`` or ``"study"``."""

    year: int
    month: int
    label: str
    cite: str
    kind: str
    acts_on: str


#: Methods (first papers) plus the adoptions and studies the chapter mentions, in date order.
def _event_label(m: Method) -> str:
    author = m.paper.split()[0]
    if m.event is not None:
        return m.event
    return m.name if m.name.startswith(author) else f"{m.name} ({m.paper})"


TIMELINE: tuple[Event, ...] = tuple(sorted(  # a stable sort: same-month events keep list order
    [Event(m.year, m.month, _event_label(m), m.cite, "method", m.acts_on) for m in METHODS]
    + [Event(2018, 6, "GPT: learned positions", "radford2018gpt", "model", "input"),
       Event(2018, 10, "BERT: learned positions", "devlin2019bert", "model", "input"),
       Event(2019, 2, "GPT-2: learned positions", "radford2019gpt2", "model", "input"),
       Event(2023, 3, "EVA-02: 2-D RoPE in a ViT", "fang2023eva02", "model", "queries-keys"),
       Event(2023, 5, "NoPE length study (Kazemnejad et al.)", "kazemnejad2023nope", "study",
             "nowhere")],
    key=lambda e: (e.year, e.month)))


# --------------------------------------------------------------------------------------------
# Probing a layer: where does position enter, and is the result relative?
# --------------------------------------------------------------------------------------------

#: The schemes :func:`position_layer` can build (the lab's six, :data:`posenc_lib.lab.schemes.NAMES`).
LAYER_SCHEMES: tuple[str, ...] = schemes.NAMES
_T5_CONFIG: dict[str, Any] = {"bidirectional": True, "num_buckets": 16, "max_distance": 32}


def _positions_arg(positions: ArrayLike, seq_len: int, max_len: int | None) -> NDArray[np.int64]:
    pos = as_array("positions", positions, floating=False)
    if pos.ndim != 1 or pos.shape[0] != seq_len:
        raise ValueError(f"positions must be a 1-D array with one entry per row of x "
                         f"(length {seq_len}), got shape {pos.shape}")
    if not np.issubdtype(pos.dtype, np.integer):
        raise TypeError(f"positions must be integers, got dtype {pos.dtype}")
    if pos.size and pos.min() < 0:
        raise ValueError(f"positions must be >= 0, got {int(pos.min())}")
    if max_len is not None and pos.size and pos.max() >= max_len:
        raise ValueError(f"position {int(pos.max())} is out of range for a learned table with "
                         f"max_len={max_len} (valid positions 0..{max_len - 1})")
    return pos.astype(np.int64)


def position_layer(scheme: str, d: int = 16, seed: int = 0, max_len: int = 64,
                   slope: float = 0.25) -> Callable[[ArrayLike, ArrayLike], NDArray[np.float64]]:
    r"""One untrained attention head with position scheme ``scheme``, as ``layer(x, positions)``.

    ``x`` is ``(L, d)`` (the token vectors), ``positions`` ``L`` non-negative integers; the
    result is the ``(L, L)`` matrix of logits :math:`e_{ij}` (query ``i``, key ``j``, no mask).
    :math:`W_Q, W_K \sim \mathcal N(0, 1/d)` are drawn from ``seed``, and

    ==============  ==========================================================================
    ``none``        :math:`e_{ij} = (x_iW_Q)\cdot(x_jW_K)/\sqrt d` (no position at all)
    ``sinusoidal``  the same with :math:`x_i + \PE(pos_i)` (:func:`~posenc_lib.maths.encodings.sinusoidal_at`)
    ``learned``     the same with :math:`x_i + P_{pos_i}`, a table of ``max_len`` rows
                    :math:`\sim\mathcal N(0, 1)`, drawn after (and independently of)
                    :math:`W_Q, W_K` (:func:`~posenc_lib.maths.relative.lookup`)
    ``rope``        :math:`(R(pos_i)W_Q^\top x_i)\cdot(R(pos_j)W_K^\top x_j)/\sqrt d`
                    (:func:`~posenc_lib.maths.rope.apply`)
    ``alibi``       content logit :math:`-\,m\,|pos_i - pos_j|` with slope ``slope``
                    (:func:`~posenc_lib.maths.alibi.bias`, symmetric)
    ``t5``          content logit :math:`+\,b_{\mathrm{bucket}(pos_j - pos_i)}`, 16 buckets up to
                    distance 32, :math:`b \sim \mathcal N(0, 1)` (:func:`~posenc_lib.maths.relative.t5_bias`)
    ==============  ==========================================================================

    The values are illustrative (nothing is trained); the *structure* — what depends on what —
    is exactly that of each scheme.
    """
    scheme = check_choice("scheme", scheme, LAYER_SCHEMES)
    d = check_even_dim("d", d)
    seed = check_nonneg_int("seed", seed)
    max_len = check_positive_int("max_len", max_len)
    slope = check_finite_real("slope", slope, minimum=0.0)
    rng = np.random.default_rng(seed)
    w_q = rng.standard_normal((d, d)) / math.sqrt(d)
    w_k = rng.standard_normal((d, d)) / math.sqrt(d)
    buckets = rng.standard_normal(_T5_CONFIG["num_buckets"])
    table_ = rng.standard_normal((max_len, d))  # the same stream: independent of w_q, w_k

    def layer(x: ArrayLike, positions: ArrayLike) -> NDArray[np.float64]:
        xa = as_array("x", x, min_ndim=2)
        if xa.ndim != 2 or xa.shape[1] != d:
            raise ValueError(f"x must have shape (L, {d}), got {xa.shape}")
        pos = _positions_arg(positions, xa.shape[0],
                             max_len if schemes.get(scheme).has_max_length else None)
        if scheme == "sinusoidal":
            return relative.logits(xa, w_q, w_k, absolute=encodings.sinusoidal_at(pos, d))
        if scheme == "learned":
            return relative.logits(xa, w_q, w_k, absolute=relative.lookup(table_, pos))
        if scheme == "rope":
            q = rope.apply(xa @ w_q, pos)  # rotate pair i of each query by pos * theta_i
            k = rope.apply(xa @ w_k, pos)
            return q @ k.T / math.sqrt(d)  # (L, L)
        if scheme in ("alibi", "t5"):
            n = int(pos.max()) + 1 if pos.size else 0
            if scheme == "alibi":
                full: np.ndarray = alibi.bias(n, slope, causal=False)  # -m|a - b|, a, b < n
            else:
                full = relative.t5_bias(n, buckets, **_T5_CONFIG)  # b_bucket(b - a)
            return relative.logits(xa, w_q, w_k, bias=full[np.ix_(pos, pos)])
        return relative.logits(xa, w_q, w_k)

    layer.d = d  # type: ignore[attr-defined]
    return layer


def _probe_inputs(d: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((6, d))
    p1 = np.arange(6)
    p2 = np.array([0, 2, 5, 9, 14, 20])  # every pairwise distance changes
    return x, p1, p2


def classify_layer(layer: Callable[[np.ndarray, np.ndarray], Any], d: int = 16, seed: int = 0,
                   atol: float = 1e-9) -> str:
    r"""Where ``layer(x, positions)`` injects position, found by probing it; one of :data:`WHERE`.

    With random tokens :math:`x`, the zero input :math:`0`, and two position lists
    :math:`p, p'` whose pairwise distances differ:

    1. logits equal for :math:`p` and :math:`p'` → ``"nowhere"``;
    2. logits of the zero input vanish for both → ``"queries-keys"`` (a rotation of
       :math:`0` is :math:`0`: position only *modifies* content);
    3. the position effect does not depend on content,
       :math:`e(x, p) - e(0, p) = e(x, p') - e(0, p')` → ``"scores"`` (an added bias);
    4. otherwise → ``"input"`` (an added encoding meets the content inside :math:`W_Q, W_K`).

    A per-pair term that multiplies the query (Shaw et al.'s :math:`q_i\cdot a_{j-i}`) also
    vanishes at :math:`x = 0`, so this probe files it under ``"queries-keys"``.
    """
    d = check_even_dim("d", d)
    x, p1, p2 = _probe_inputs(d, check_nonneg_int("seed", seed))
    zero = np.zeros_like(x)
    e = {(name, tag): np.asarray(layer(inp, p), dtype=float)
         for name, inp in (("x", x), ("0", zero)) for tag, p in (("p", p1), ("p'", p2))}
    def same(a: np.ndarray, b: np.ndarray | float) -> bool:
        return bool(np.allclose(a, b, atol=atol, rtol=0.0))

    if same(e["x", "p"], e["x", "p'"]):
        return "nowhere"
    if same(e["0", "p"], 0.0) and same(e["0", "p'"], 0.0):
        return "queries-keys"
    if same(e["x", "p"] - e["0", "p"], e["x", "p'"] - e["0", "p'"]):
        return "scores"
    return "input"


def diagonal_spread(logits: ArrayLike) -> float:
    r"""How far a square logit matrix is from depending on :math:`j - i` alone.

    The largest, over all diagonals :math:`j - i = r`, of (max − min) of the entries on that
    diagonal; 0 for a relative scheme fed the same token at every position (a Toeplitz matrix).
    ``NaN`` entries (positions a scheme cannot represent) are ignored.
    """
    a = as_array("logits", logits, min_ndim=2, finite=False)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"logits must be a square 2-D array, got shape {a.shape}")
    if np.isinf(a).any():
        raise ValueError("logits must not contain inf (mask with NaN instead)")
    spread = 0.0
    for r in range(-a.shape[0] + 1, a.shape[0]):
        diag = np.diagonal(a, offset=r)
        diag = diag[np.isfinite(diag)]
        if diag.size > 1:
            spread = max(spread, float(diag.max() - diag.min()))
    return spread
