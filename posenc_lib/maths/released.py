r"""Read a released model's configuration and say how every layer uses position.

A released checkpoint's ``config.json`` (as Hugging Face transformers reads it) decides, layer by
layer, how far a token can look (full attention, a sliding window of :math:`w` keys, or chunks of
:math:`c` tokens) and how position enters (RoPE, no position at all — "NoPE" —, ALiBi, or learned
absolute vectors). :func:`plan` turns such a configuration into a :class:`PositionPlan`:

* ``plan.layers[i]`` is a :class:`LayerPlan` — ``.attention`` (:data:`ATTENTION_KINDS`),
  ``.window``, ``.method`` (:data:`POSITION_METHODS`), ``.rope`` (a :class:`RopeSpec` or ``None``)
  and ``.temperature`` (a :class:`Temperature` or ``None``);
* ``plan.inv_freq(i, seq_len)`` and ``plan.attention_factor(i, seq_len)`` are the inverse
  frequencies :math:`\omega_j` and the cos/sin multiplier that layer ``i`` uses for a sequence of
  ``seq_len`` tokens (some scalings depend on it: dynamic NTK, LongRoPE's short/long switch);
* ``plan.cos_sin(i, positions)`` gives :math:`a\cos(p\,\omega_j)` and :math:`a\sin(p\,\omega_j)`
  per frequency slot :math:`j` (M-RoPE: one of three position rows per slot);
* ``plan.temperature(i, positions)`` is Llama 4's query multiplier on its NoPE layers,
  ``plan.softmax_scale_factor`` DeepSeek's extra softmax multiplier (YaRN's ``mscale_all_dim``),
  ``plan.alibi_slopes()`` BLOOM's slopes and ``plan.mrope_position_ids(...)`` the (3, T) position
  ids of Qwen2-VL/Qwen2.5-VL for a short image-plus-text sequence.

The frequency, scaling and slope formulas live in the modules that teach them
(:mod:`posenc_lib.maths.encodings`, :mod:`posenc_lib.maths.rope_scaling`,
:mod:`posenc_lib.maths.alibi`); this module reads configurations and adds only what is specific
to released models (Llama 4's temperature, DeepSeek's softmax factor, M-RoPE's position ids and
frequency-to-axis assignment).
Reading is strict: an unknown ``model_type`` or ``rope_type``, a field of the wrong type or value,
a missing required field, or a position field this reader does not use for that model raises a
``ValueError``/``TypeError`` naming the field. Where the reference configuration class supplies a
default for an absent field (Llama 2's ``config.json`` has no ``rope_theta``: the class's 10000 is
used), the plan records it in ``PositionPlan.defaulted``.

The configurations of :data:`MODELS` ship with the library (:func:`load`); their sources are listed
in ``posenc_lib/maths/released_configs/README.md``. ``tools/hf_reference.py`` runs transformers'
own code on the same files and stores golden numbers that ``tests/maths/test_released.py`` compares
with.

What is *not* position and is left out: Gemma's ``query_pre_attn_scalar`` (a constant softmax
scale), logit soft-capping, key/value sharing, mixture-of-experts routing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..checks import as_array, check_choice, check_nonneg_int, check_positive_int
from . import alibi, rope_scaling
from .encodings import frequencies
from .rope import Pairing, Partial

__all__ = ["ATTENTION_KINDS", "MODELS", "POSITION_FIELDS", "POSITION_METHODS", "ROPE_TYPES",
           "LayerPlan", "PositionPlan", "RopeSpec", "Temperature", "load", "plan"]

Attention = Literal["full", "sliding", "chunked"]
PositionMethod = str  # one of POSITION_METHODS
#: How far a layer's queries look (every earlier key, the last ``window`` keys, or the keys of the
#: same chunk of ``window`` tokens, Llama 4's ``attention_chunk_size``).
ATTENTION_KINDS: tuple[Attention, ...] = ("full", "sliding", "chunked")
#: How position enters a layer, with the names the lab's scheme registry gives the same methods
#: (:data:`posenc_lib.lab.schemes.NAMES`; a test holds them to it): ``"rope"``, ``"alibi"``,
#: ``"learned"`` (absolute vectors) and ``"none"`` (NoPE: no position at all; the causal mask
#: still leaks order).
POSITION_METHODS: tuple[str, ...] = ("rope", "alibi", "learned", "none")
#: The ``rope_type`` values the reader knows (Hugging Face's names; ``"default"`` is plain RoPE).
ROPE_TYPES: tuple[str, ...] = ("default", "linear", "dynamic", "yarn", "longrope", "llama3",
                               "proportional")

#: The shipped configurations, by file name (``posenc_lib/maths/released_configs/<name>.json``).
MODELS: tuple[str, ...] = (
    "gpt-j-6b", "gpt-neox-20b", "bloom-560m", "llama-2-7b", "llama-3.1-8b", "llama-4-scout-17b-16e",
    "mistral-7b-v0.1", "qwen2.5-7b-yarn", "qwen2.5-vl-7b-instruct", "gemma-3-1b-it", "gemma-4-31b",
    "phi-3.5-mini-instruct", "deepseek-v2-lite", "smollm3-3b",
)

#: Top-level configuration fields that affect position. One that is present but not read for the
#: configuration's ``model_type`` is an error (the reader would otherwise ignore it silently).
POSITION_FIELDS: frozenset[str] = frozenset({
    "rope_theta", "rope_scaling", "rope_parameters", "rotary_pct", "rotary_emb_base", "rotary_dim",
    "rotary", "partial_rotary_factor", "sliding_window", "use_sliding_window", "max_window_layers",
    "layer_types", "sliding_window_pattern", "no_rope_layers", "no_rope_layer_interval",
    "attention_chunk_size", "attn_temperature_tuning", "floor_scale", "attn_scale",
    "rope_local_base_freq", "alibi", "position_embedding_type", "mrope_section", "qk_rope_head_dim",
    "qk_nope_head_dim", "rope_interleave", "global_head_dim", "original_max_position_embeddings",
    "use_mrope", "use_bidirectional_attention", "attn_config", "learned_pos_emb", "head_dim",
})

_MISSING: Any = object()


# ----------------------------------------------------------------------------------------------
# The plan's pieces
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RopeSpec:
    r"""One layer's rotary embedding, as the configuration sets it.

    ``head_dim`` :math:`d` is the number of query/key features the rotation acts on (for MLA, the
    decoupled rotary part ``qk_rope_head_dim``; ``decoupled_nope_dim`` then counts the head's other,
    never-rotated features, which sit *before* the rotated ones). ``rotary_dim`` :math:`r \le d`
    features rotate, by the convention ``partial`` (:data:`posenc_lib.maths.rope.PARTIAL_CONVENTIONS`):
    ``"leading"`` — an :math:`r`-dimensional RoPE on the first :math:`r` features, frequencies
    :math:`n^{-2j/r}`; ``"proportional"`` — :math:`d/2` frequency slots, the first :math:`r/2` equal to
    :math:`n^{-2j/d}` and the rest 0. ``pairing`` says which features form a pair among the
    :math:`2 \times` ``num_slots`` features the rotation spans (``"half"``: :math:`(j, j + m)` with
    :math:`m` = ``num_slots``, ``"interleaved"``: :math:`(2j, 2j+1)`). ``base`` is
    :math:`n`; ``rope_type`` (:data:`ROPE_TYPES`) and the fields after it are the scaling's
    parameters, named as in the configuration. ``max_len`` is ``max_position_embeddings`` (dynamic
    NTK's threshold). ``mrope_section`` (M-RoPE) splits the frequency slots into temporal, height
    and width groups; ``mrope_interleaved`` is Qwen3-VL's layout (slots cycle t, h, w).
    """

    head_dim: int
    rotary_dim: int
    pairing: Pairing
    partial: Partial
    base: float
    rope_type: str = "default"
    factor: float = 1.0
    original_max_len: int | None = None
    max_len: int | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    truncate: bool = True
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor_value: float | None = None
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None
    mrope_section: tuple[int, ...] | None = None
    mrope_interleaved: bool = False
    decoupled_nope_dim: int = 0

    @property
    def num_slots(self) -> int:
        """The number of frequency slots, :math:`r/2` (``"leading"``) or :math:`d/2` (``"proportional"``)."""
        return self.head_dim // 2 if self.partial == "proportional" else self.rotary_dim // 2

    def inv_freq(self, seq_len: int | None = None) -> NDArray[np.float64]:
        r"""The inverse frequencies :math:`\omega_j` for a sequence of ``seq_len`` tokens.

        By ``rope_type``, with :math:`r` the rotary dimension: ``"default"`` :math:`n^{-2j/r}`;
        ``"linear"`` that over :math:`s`; ``"dynamic"``, ``"yarn"``, ``"llama3"`` as
        :func:`posenc_lib.maths.rope_scaling.scaled_frequencies` (dynamic NTK's threshold is
        ``max_len``); ``"longrope"`` :func:`~posenc_lib.maths.rope_scaling.longrope_frequencies` (long
        factors when ``seq_len`` :math:`>` ``original_max_len``); ``"proportional"``
        :func:`~posenc_lib.maths.rope_scaling.proportional_frequencies`. ``seq_len=None`` means the
        reference's value at start-up (no dynamic growth, LongRoPE's short factors).
        """
        if seq_len is not None:
            seq_len = check_positive_int("seq_len", seq_len)
        r, t = self.rotary_dim, self.rope_type
        if t == "proportional":
            return rope_scaling.proportional_frequencies(self.head_dim, r, self.base, self.factor)
        if t == "default":
            return frequencies(r, self.base)
        if t == "linear":
            return frequencies(r, self.base) / self.factor
        if t == "longrope":
            assert self.short_factor is not None and self.long_factor is not None
            assert self.original_max_len is not None
            return rope_scaling.longrope_frequencies(r, self.base, self.short_factor, self.long_factor,
                                                     self.original_max_len, seq_len)
        if t == "dynamic":
            assert self.max_len is not None
            return rope_scaling.scaled_frequencies(r, self.factor, "dynamic", self.base,
                                                   original_max_len=self.max_len, seq_len=seq_len)[0]
        assert self.original_max_len is not None
        if t == "llama3":
            return rope_scaling.scaled_frequencies(
                r, self.factor, "llama3", self.base, original_max_len=self.original_max_len,
                low_freq_factor=self.low_freq_factor, high_freq_factor=self.high_freq_factor)[0]
        return rope_scaling.scaled_frequencies(  # yarn
            r, self.factor, "yarn", self.base, original_max_len=self.original_max_len,
            beta_fast=self.beta_fast, beta_slow=self.beta_slow, truncate=self.truncate)[0]

    def partners(self) -> NDArray[np.intp]:
        r"""Which feature turns with which: ``partners()[k]`` is the feature that forms a rotating
        pair with feature ``k`` of the ``head_dim`` features, or -1 if feature ``k`` never turns
        (beyond ``rotary_dim`` in the ``"leading"`` convention, or in a pair whose frequency is 0 in
        the ``"proportional"`` one). ``"half"`` pairs :math:`(j, j + m)` with :math:`m` =
        ``num_slots``; ``"interleaved"`` pairs :math:`(2j, 2j + 1)`.
        """
        out = np.full(self.head_dim, -1, dtype=np.intp)
        m = self.num_slots
        moving = self.inv_freq() != 0
        for j in np.flatnonzero(moving):
            a, b = (2 * j, 2 * j + 1) if self.pairing == "interleaved" else (j, j + m)
            out[a], out[b] = b, a
        return out

    def attention_factor(self, seq_len: int | None = None) -> float:
        r"""The factor :math:`a` that multiplies cos and sin (so the logit grows by :math:`a^2`).

        ``"yarn"``: :func:`~posenc_lib.maths.rope_scaling.yarn_attention_factor` (DeepSeek's
        ``mscale``/``mscale_all_dim`` ratio); ``"longrope"``: the configuration's
        ``attention_factor`` or :func:`~posenc_lib.maths.rope_scaling.longrope_attention_factor` of
        :math:`s` (the ``factor`` field, else ``max_position_embeddings / original``) — the same for
        short and long inputs, as in the reference; 1 for every other type. ``seq_len`` is accepted
        for symmetry with :meth:`inv_freq` and checked; no released scaling makes :math:`a` depend on it.
        """
        if seq_len is not None:
            check_positive_int("seq_len", seq_len)
        if self.rope_type == "yarn":
            return rope_scaling.yarn_attention_factor(self.factor, self.mscale, self.mscale_all_dim,
                                                      self.attention_factor_value)
        if self.rope_type == "longrope":
            if self.attention_factor_value is not None:
                return self.attention_factor_value
            assert self.original_max_len is not None
            return rope_scaling.longrope_attention_factor(self.factor, self.original_max_len)
        return 1.0


@dataclass(frozen=True)
class Temperature:
    r"""Llama 4's attention temperature on its NoPE layers (``attn_temperature_tuning``): the query
    at position :math:`p` (0-based) is multiplied by

    .. math:: \tau(p) = 1 + \texttt{attn\_scale}\;\ln\!\big(1 + \lfloor (p + 1)/\texttt{floor\_scale}
        \rfloor\big),

    which is 1 for the first ``floor_scale - 1`` positions and grows like :math:`\ln p` after
    (transformers' ``Llama4TextAttention``; the idea is Nakanishi 2025, "Scalable-Softmax").
    """

    floor_scale: int
    attn_scale: float

    def scale(self, positions: ArrayLike) -> NDArray[np.float64]:
        """:math:`\\tau(p)` for every position in ``positions`` (non-negative)."""
        pos = as_array("positions", positions).astype(np.float64)
        if np.any(pos < 0):
            raise ValueError("positions must be >= 0")
        return 1.0 + self.attn_scale * np.log1p(np.floor((pos + 1.0) / self.floor_scale))


@dataclass(frozen=True)
class LayerPlan:
    """How layer ``index`` attends and where its position comes from.

    ``attention`` is one of :data:`ATTENTION_KINDS` and ``window`` its size (``None`` for
    ``"full"``); ``method`` one of :data:`POSITION_METHODS`; ``rope`` the :class:`RopeSpec` of a
    ``"rope"`` layer (else ``None``); ``temperature`` a :class:`Temperature` where the model scales
    that layer's queries by position.
    """

    index: int
    attention: Attention
    window: int | None
    method: PositionMethod
    rope: RopeSpec | None = None
    temperature: Temperature | None = None

    def mask(self, seq_len: int) -> NDArray[np.bool_]:
        r"""Which keys each query sees: ``mask[i, j]`` is true when query :math:`i` attends key
        :math:`j`, shape ``(seq_len, seq_len)``. Always causal (:math:`j \le i`); ``"sliding"``
        adds :math:`i - j < w` (the query and the :math:`w - 1` keys before it), ``"chunked"``
        adds :math:`\lfloor i/c \rfloor = \lfloor j/c \rfloor` (the same chunk of :math:`c`
        tokens), as transformers' ``masking_utils`` defines them (``sliding_window_overlay``,
        ``chunked_overlay`` without padding).
        """
        n = check_positive_int("seq_len", seq_len)
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        seen = j <= i
        if self.attention == "sliding":
            assert self.window is not None
            seen &= i - j < self.window
        elif self.attention == "chunked":
            assert self.window is not None
            seen &= i // self.window == j // self.window
        return seen


@dataclass(frozen=True)
class PositionPlan:
    """The position plan of a whole model (see the module docstring).

    ``model_type`` is the configuration's (for a multimodal wrapper, its text model's);
    ``max_position_embeddings`` the context it declares (``None`` if it declares none);
    ``num_heads`` the query heads (ALiBi's slopes depend on it); ``softmax_scale_factor`` the factor
    by which the model multiplies its usual :math:`1/\\sqrt{d_{qk}}` softmax scale for position's
    sake (DeepSeek's YaRN ``mscale_all_dim``: :math:`\\mathrm{mscale}(s, m_{all})^2`; 1 elsewhere);
    ``spatial_merge_size`` M-RoPE's vision merge (``None`` without M-RoPE); ``defaulted`` the fields
    the configuration did not give and that were taken from the reference configuration class.
    """

    model_type: str
    layers: tuple[LayerPlan, ...]
    max_position_embeddings: int | None
    num_heads: int
    softmax_scale_factor: float = 1.0
    spatial_merge_size: int | None = None
    defaulted: tuple[str, ...] = ()

    def _layer(self, layer: int) -> LayerPlan:
        i = check_nonneg_int("layer", layer)
        if i >= len(self.layers):
            raise ValueError(f"layer must be < {len(self.layers)} (the number of layers), got {layer!r}")
        return self.layers[i]

    def _rope(self, layer: int) -> RopeSpec:
        lp = self._layer(layer)
        if lp.rope is None:
            what = "no position (NoPE)" if lp.method == "none" else repr(lp.method)
            raise ValueError(f"layer {layer} uses {what}, not RoPE: it has no frequencies")
        return lp.rope

    def inv_freq(self, layer: int, seq_len: int | None = None) -> NDArray[np.float64]:
        """Layer ``layer``'s inverse frequencies at ``seq_len`` (:meth:`RopeSpec.inv_freq`)."""
        return self._rope(layer).inv_freq(seq_len)

    def attention_factor(self, layer: int, seq_len: int | None = None) -> float:
        """Layer ``layer``'s cos/sin multiplier (:meth:`RopeSpec.attention_factor`); 1 without RoPE."""
        lp = self._layer(layer)
        return 1.0 if lp.rope is None else lp.rope.attention_factor(seq_len)

    def cos_sin(self, layer: int, positions: ArrayLike, seq_len: int | None = None
                ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        r"""``(a cos(p ω_j), a sin(p ω_j))``, shape ``(T, num_slots)``, per frequency slot :math:`j`.

        ``positions`` has shape ``(T,)``, or ``(3, T)`` (temporal, height, width rows) for an M-RoPE
        layer, where slot :math:`j` takes its row from ``mrope_section`` (sections: the first
        ``section[0]`` slots temporal, the next height, the last width; Qwen3-VL's interleaved
        layout: t, h, w cycling). ``seq_len`` defaults to ``max(positions) + 1``, as the reference
        derives it. The model's full cos/sin tensors repeat these per its pairing.
        """
        spec = self._rope(layer)
        pos = as_array("positions", positions).astype(np.float64)
        if spec.mrope_section is not None:
            if pos.ndim == 1:
                pos = np.broadcast_to(pos, (3, pos.shape[0]))
            if pos.ndim != 2 or pos.shape[0] != 3:
                raise ValueError(f"positions must have shape (T,) or (3, T) for M-RoPE, got {pos.shape}")
        elif pos.ndim != 1:
            raise ValueError(f"positions must be 1-D, got shape {pos.shape}")
        if seq_len is None:
            seq_len = int(np.max(pos)) + 1 if pos.size else None
        omega = spec.inv_freq(seq_len)
        a = spec.attention_factor(seq_len)
        if spec.mrope_section is None:
            ang = pos[:, None] * omega
        else:
            axis = _mrope_axes(spec.mrope_section, omega.shape[0], spec.mrope_interleaved)
            ang = pos[axis, :].T * omega  # (T, slots): slot j uses row axis[j]
        return a * np.cos(ang), a * np.sin(ang)

    def temperature(self, layer: int, positions: ArrayLike) -> NDArray[np.float64]:
        """The query multiplier of layer ``layer`` at ``positions`` (ones where it has none)."""
        lp = self._layer(layer)
        pos = as_array("positions", positions).astype(np.float64)
        return np.ones_like(pos) if lp.temperature is None else lp.temperature.scale(pos)

    def alibi_slopes(self) -> NDArray[np.float64]:
        """ALiBi's per-head slopes (:func:`posenc_lib.maths.alibi.slopes`); an error without ALiBi."""
        if not any(lp.method == "alibi" for lp in self.layers):
            raise ValueError(f"{self.model_type} does not use ALiBi")
        return alibi.slopes(self.num_heads)

    def mrope_position_ids(self, segments: Sequence[tuple[str, Any]]) -> NDArray[np.int64]:
        r"""M-RoPE's (3, T) position ids (temporal, height, width) for text and still images.

        ``segments`` is a sequence of ``("text", n)`` (``n`` tokens) and ``("image", (t, h, w))``
        (the vision encoder's patch grid). As transformers' Qwen2-VL/Qwen2.5-VL ``get_rope_index``:
        a text token at running position :math:`p` gets :math:`(p, p, p)`; an image of grid
        :math:`(t, h, w)` becomes :math:`t \cdot (h/m)(w/m)` tokens (:math:`m` =
        ``spatial_merge_size``) with ids :math:`(p, p + y, p + x)` for row :math:`y < h/m` and column
        :math:`x < w/m` (a still image's temporal id stays :math:`p`), after which
        :math:`p \mathrel{+}= \max(h, w)/m`.
        """
        if self.spatial_merge_size is None:
            raise ValueError(f"{self.model_type} does not use M-RoPE")
        m = self.spatial_merge_size
        cols: list[NDArray[np.int64]] = []
        p = 0
        for k, seg in enumerate(segments):
            if not (isinstance(seg, tuple) and len(seg) == 2):
                raise TypeError(f"segments[{k}] must be a (kind, value) tuple, got {seg!r}")
            kind, value = seg
            kind = check_choice(f"segments[{k}] kind", kind, ("text", "image"))
            if kind == "text":
                n = check_positive_int(f"segments[{k}] text length", value)
                cols.append(np.tile(np.arange(p, p + n), (3, 1)))
                p += n
                continue
            if not (isinstance(value, tuple) and len(value) == 3):
                raise TypeError(f"segments[{k}] image grid must be a (t, h, w) tuple, got {value!r}")
            t, h, w = (check_positive_int(f"segments[{k}] grid {n}", v) for n, v in zip("thw", value))
            if h % m or w % m:
                raise ValueError(f"segments[{k}] grid h and w must be multiples of spatial_merge_size "
                                 f"= {m}, got {(t, h, w)}")
            gt, gh, gw = np.meshgrid(np.arange(t), np.arange(h // m), np.arange(w // m), indexing="ij")
            cols.append(np.stack([gt.ravel() + p, gh.ravel() + p, gw.ravel() + p]))
            p += max(h, w) // m
        if not cols:
            raise ValueError("segments must not be empty")
        return np.concatenate(cols, axis=1).astype(np.int64)


def _mrope_axes(section: tuple[int, ...], slots: int, interleaved: bool) -> NDArray[np.intp]:
    """Which position row (0 t, 1 h, 2 w) each frequency slot reads."""
    if interleaved:  # Qwen3-VL: slots 1, 4, 7, ... (< 3 * section[1]) height; 2, 5, ... width
        axis = np.zeros(slots, dtype=np.intp)
        for row in (1, 2):
            axis[row: 3 * section[row]: 3] = row
        return axis
    return np.repeat(np.arange(3), section)


# ----------------------------------------------------------------------------------------------
# Reading a configuration
# ----------------------------------------------------------------------------------------------

class _Reader:
    """Reads fields of one configuration dict, checking types and remembering what it read."""

    def __init__(self, cfg: Mapping[str, Any], where: str):
        if not isinstance(cfg, Mapping):
            raise TypeError(f"{where} must be a dict (a model's config.json), got {type(cfg).__name__}")
        self.cfg, self.where, self.read = cfg, where, {"model_type"}
        self.defaulted: list[str] = []

    def name(self, key: str) -> str:
        return key if self.where == "config" else f"{self.where}.{key}"

    def has(self, key: str) -> bool:
        return key in self.cfg and self.cfg[key] is not None

    def get(self, key: str, kind: str, default: Any = _MISSING, *, record: bool = True) -> Any:
        """Field ``key`` of ``kind`` ("int", "pos_int", "float", "bool", "list", "dict", "str"),
        ``default`` when absent or null (then recorded in ``defaulted``), an error if required."""
        self.read.add(key)
        if not self.has(key):
            if default is _MISSING:
                raise ValueError(f"{self.name(key)} is required for model_type "
                                 f"{self.cfg.get('model_type')!r} but is missing")
            if record and default is not None:
                self.defaulted.append(f"{self.name(key)}={default!r}")
            return default
        return _check_kind(self.name(key), self.cfg[key], kind)

    def finish(self, consumed_ok: frozenset[str] = frozenset()) -> None:
        for key in sorted(self.cfg):
            if key in POSITION_FIELDS and key not in self.read and key not in consumed_ok \
                    and self.cfg[key] is not None:
                raise ValueError(f"{self.name(key)}={self.cfg[key]!r} affects position but is not "
                                 f"understood for model_type {self.cfg.get('model_type')!r}")


def _check_kind(name: str, value: Any, kind: str) -> Any:
    if kind in ("int", "pos_int"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be an integer, got {value!r}")
        if kind == "pos_int" and value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
        return value
    if kind in ("float", "pos_float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(f"{name} must be a finite number, got {value!r}")
        if kind == "pos_float" and not value > 0:
            raise ValueError(f"{name} must be > 0, got {value!r}")
        return float(value)
    types = {"bool": bool, "list": list, "dict": dict, "str": str}
    if not isinstance(value, types[kind]):
        raise TypeError(f"{name} must be a {kind}, got {value!r}")
    return value


_ROPE_KEYS: dict[str, frozenset[str]] = {
    "default": frozenset(),
    "linear": frozenset({"factor"}),
    "dynamic": frozenset({"factor"}),
    "yarn": frozenset({"factor", "original_max_position_embeddings", "attention_factor", "beta_fast",
                       "beta_slow", "mscale", "mscale_all_dim", "truncate"}),
    "longrope": frozenset({"short_factor", "long_factor", "original_max_position_embeddings",
                           "attention_factor", "factor"}),
    "llama3": frozenset({"factor", "original_max_position_embeddings", "low_freq_factor",
                         "high_freq_factor"}),
    "proportional": frozenset({"factor"}),
}
_ROPE_REQUIRED: dict[str, frozenset[str]] = {
    "linear": frozenset({"factor"}), "dynamic": frozenset({"factor"}),
    "longrope": frozenset({"short_factor", "long_factor"}),
    "llama3": frozenset({"factor", "low_freq_factor", "high_freq_factor"}),
}


def _rope_spec(scaling: Mapping[str, Any] | None, where: str, *, head_dim: int, rotary_dim: int,
               pairing: Pairing, base: float, max_len: int | None, top_original: int | None = None,
               partial: Partial = "leading", allow_mrope: bool = False,
               decoupled_nope_dim: int = 0) -> RopeSpec:
    """A :class:`RopeSpec` from a ``rope_scaling``/``rope_parameters`` dict (``None``: plain RoPE)."""
    if rotary_dim < 2 or rotary_dim % 2 or rotary_dim > head_dim:
        raise ValueError(f"the rotary dimension of {where} must be an even number between 2 and "
                         f"head_dim = {head_dim}, got {rotary_dim}")
    base_kw: dict[str, Any] = dict(head_dim=head_dim, rotary_dim=rotary_dim, pairing=pairing,
                                   partial=partial, base=base, max_len=max_len,
                                   decoupled_nope_dim=decoupled_nope_dim)
    if scaling is None:
        return RopeSpec(**base_kw)
    rd = _Reader(scaling, where)
    rd.read.update({"rope_theta", "partial_rotary_factor"})  # handled by the caller
    if "rope_type" in scaling and "type" in scaling and scaling["rope_type"] != scaling["type"]:
        raise ValueError(f"{where} has rope_type={scaling['rope_type']!r} and type={scaling['type']!r}")
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    rd.read.update({"rope_type", "type"})
    if allow_mrope and rope_type == "mrope":  # Qwen2-VL's old name for plain M-RoPE
        rope_type = "default"
    if not isinstance(rope_type, str) or rope_type not in ROPE_TYPES:
        raise ValueError(f"{where}.rope_type must be one of {', '.join(map(repr, ROPE_TYPES))}, "
                         f"got {rope_type!r}")
    allowed = set(_ROPE_KEYS[rope_type])
    if allow_mrope:
        allowed |= {"mrope_section", "mrope_interleaved"}
    for key in scaling:
        if key not in allowed and key not in rd.read:
            raise ValueError(f"{where}.{key}={scaling[key]!r} is not a parameter of rope_type "
                             f"{rope_type!r} (known: {', '.join(sorted(allowed)) or 'none'})")
    for key in _ROPE_REQUIRED.get(rope_type, frozenset()):
        rd.get(key, "list" if key.endswith("_factor") and rope_type == "longrope" else "float")
    kw: dict[str, Any] = {"rope_type": rope_type}
    if rope_type in ("yarn", "llama3", "longrope"):
        if top_original is not None:  # Phi-3: the top-level field wins, as in the reference
            original = top_original
        else:
            original = rd.get("original_max_position_embeddings", "pos_int",
                              max_len if max_len is not None else _MISSING)
        kw["original_max_len"] = original
    if "factor" in scaling and scaling["factor"] is not None:
        kw["factor"] = rd.get("factor", "pos_float")
        if kw["factor"] < 1.0 and rope_type != "proportional":
            raise ValueError(f"{where}.factor must be >= 1, got {scaling['factor']!r}")
    elif rope_type in ("yarn", "longrope"):
        if max_len is None:
            raise ValueError(f"{where}.factor is missing and max_position_embeddings is not set")
        kw["factor"] = max_len / kw["original_max_len"]  # the reference's implicit factor
    if rope_type == "yarn":
        for key in ("beta_fast", "beta_slow"):
            if rd.has(key) and rd.get(key, "float") != 0:  # the reference: `get(key) or default`
                kw[key] = rd.get(key, "pos_float")
        kw["truncate"] = rd.get("truncate", "bool", True, record=False)
        for key in ("mscale", "mscale_all_dim"):
            kw[key] = rd.get(key, "float", None)
    if rope_type in ("yarn", "longrope"):
        kw["attention_factor_value"] = rd.get("attention_factor", "float", None)
    if rope_type == "llama3":
        kw["low_freq_factor"] = rd.get("low_freq_factor", "float")
        kw["high_freq_factor"] = rd.get("high_freq_factor", "float")
        if not kw["high_freq_factor"] > kw["low_freq_factor"]:
            raise ValueError(f"{where}.high_freq_factor must be > low_freq_factor, got "
                             f"{kw['high_freq_factor']} and {kw['low_freq_factor']}")
    if rope_type == "longrope":
        for key in ("short_factor", "long_factor"):
            values = rd.get(key, "list")
            if len(values) != rotary_dim // 2:
                raise ValueError(f"{where}.{key} must have rotary_dim/2 = {rotary_dim // 2} entries, "
                                 f"got {len(values)}")
            kw[key] = tuple(_check_kind(f"{where}.{key}[{j}]", v, "pos_float") for j, v in enumerate(values))
    if allow_mrope and rd.has("mrope_section"):
        section = rd.get("mrope_section", "list")
        section = tuple(_check_kind(f"{where}.mrope_section[{j}]", v, "pos_int")
                        for j, v in enumerate(section))
        if len(section) != 3 or sum(section) != rotary_dim // 2:
            raise ValueError(f"{where}.mrope_section must be 3 sizes summing to rotary_dim/2 = "
                             f"{rotary_dim // 2}, got {list(section)}")
        kw["mrope_section"] = section
        kw["mrope_interleaved"] = rd.get("mrope_interleaved", "bool", False, record=False)
    spec = RopeSpec(**base_kw, **kw)
    if rope_type == "proportional" and partial != "proportional":
        raise ValueError(f"{where}: rope_type 'proportional' needs the proportional convention")
    try:  # compute once, so that inconsistent parameters fail here, with the config's name
        spec.inv_freq()
        spec.attention_factor()
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from exc
    return spec


def _head_dim(rd: _Reader, hidden: str = "hidden_size", heads: str = "num_attention_heads") -> int:
    """``head_dim`` if given, else ``hidden_size // num_attention_heads`` (the reference's rule)."""
    h = rd.get(hidden, "pos_int")
    n = rd.get(heads, "pos_int")
    if rd.has("head_dim"):
        return int(rd.get("head_dim", "pos_int"))
    rd.read.add("head_dim")
    if h % n:
        raise ValueError(f"{rd.name(hidden)}={h} is not a multiple of {rd.name(heads)}={n}")
    return h // n


def _rotary_dim(rd: _Reader, head_dim: int, factor: float, field: str) -> int:
    r = int(head_dim * factor)  # the reference's int(head_dim * partial_rotary_factor)
    if r < 2 or r % 2:
        raise ValueError(f"{rd.name(field)}={factor!r} gives {r} rotated features of head_dim "
                         f"{head_dim}; it must be an even number >= 2")
    return r


def _full(n: int) -> list[tuple[Attention, int | None]]:
    return [("full", None)] * n


def _plan_llama_like(rd: _Reader, model_type: str) -> PositionPlan:
    """Llama 2/3.x, Mistral, Qwen2/2.5, Qwen2-VL/2.5-VL, Phi-3, SmolLM3: one RoPE for all layers."""
    default_theta = {"qwen2_5_vl": 1e6, "qwen2_5_vl_text": 1e6, "qwen2_vl": 1e6, "qwen2_vl_text": 1e6,
                     "smollm3": 2e6}.get(model_type, 10000.0)
    head_dim = _head_dim(rd)
    n_layers = rd.get("num_hidden_layers", "pos_int")
    max_len = rd.get("max_position_embeddings", "pos_int")
    base = rd.get("rope_theta", "pos_float", default_theta)
    pfactor = rd.get("partial_rotary_factor", "pos_float", None) if model_type == "phi3" else None
    rotary_dim = head_dim if pfactor is None else _rotary_dim(rd, head_dim, pfactor, "partial_rotary_factor")
    top_original = (rd.get("original_max_position_embeddings", "pos_int", None)
                    if model_type == "phi3" else None)
    vl = model_type.startswith(("qwen2_vl", "qwen2_5_vl"))
    scaling = rd.get("rope_scaling", "dict", None)
    spec = _rope_spec(scaling, rd.name("rope_scaling"), head_dim=head_dim, rotary_dim=rotary_dim,
                      pairing="half", base=base, max_len=max_len, top_original=top_original,
                      allow_mrope=vl)
    spatial = None
    if vl:
        if spec.mrope_section is None:
            raise ValueError(f"{rd.name('rope_scaling')}.mrope_section is required for {model_type}")
        vision = rd.get("vision_config", "dict", _MISSING)
        spatial = _check_kind("vision_config.spatial_merge_size", vision.get("spatial_merge_size"), "pos_int")
    layers = _full(n_layers)
    methods: list[PositionMethod] = ["rope"] * n_layers
    if model_type in ("mistral", "phi3"):  # every layer: the same window (None: full)
        w = rd.get("sliding_window", "pos_int", None, record=False)
        layers = [("sliding", w) if w is not None else ("full", None)] * n_layers
    elif model_type in ("qwen2",) or vl:
        if rd.get("use_sliding_window", "bool", False, record=False):
            w = rd.get("sliding_window", "pos_int")
            first = rd.get("max_window_layers", "int")
            layers = [("sliding", w) if i >= first else ("full", None) for i in range(n_layers)]
        else:
            rd.read.update({"sliding_window", "max_window_layers"})  # unused when switched off
        if rd.has("use_mrope") and rd.get("use_mrope", "bool") and not vl:
            raise ValueError(f"use_mrope=True is not supported for model_type {model_type!r}")
    elif model_type == "smollm3":
        uses = rd.get("no_rope_layers", "list", None, record=False)
        interval = rd.get("no_rope_layer_interval", "pos_int", 4, record=uses is None)
        if uses is None:
            uses = [int((i + 1) % interval != 0) for i in range(n_layers)]
        methods = _rope_flags(uses, n_layers, rd.name("no_rope_layers"))
        if rd.get("use_sliding_window", "bool", False, record=False):
            w = rd.get("sliding_window", "pos_int")
            layers = [("sliding", w) if m == "none" else ("full", None) for m in methods]
        else:
            rd.read.add("sliding_window")
    if (model_type in ("qwen2", "smollm3") or vl) and rd.has("layer_types"):
        layers = _layer_types(rd, n_layers, rd.cfg.get("sliding_window"))
    rd.finish()
    plan_layers = tuple(LayerPlan(i, a, w, m, spec if m == "rope" else None)
                        for i, ((a, w), m) in enumerate(zip(layers, methods)))
    return PositionPlan(model_type, plan_layers, max_len, rd.get("num_attention_heads", "pos_int"),
                        spatial_merge_size=spatial, defaulted=tuple(rd.defaulted))


def _rope_flags(uses: list[Any], n_layers: int, name: str) -> list[PositionMethod]:
    """``no_rope_layers``: 1 = the layer uses RoPE, 0 = NoPE, method ``"none"`` (despite the
    field's name; the reference's rule)."""
    if len(uses) < n_layers:
        raise ValueError(f"{name} must have an entry per layer ({n_layers}), got {len(uses)}")
    out: list[PositionMethod] = []
    for i, u in enumerate(uses[:n_layers]):
        if u not in (0, 1) or isinstance(u, float):
            raise ValueError(f"{name}[{i}] must be 0 (NoPE) or 1 (RoPE), got {u!r}")
        out.append("rope" if u else "none")
    return out


def _layer_types(rd: _Reader, n_layers: int, window: Any) -> list[tuple[Attention, int | None]]:
    types = rd.get("layer_types", "list")
    if len(types) != n_layers:
        raise ValueError(f"{rd.name('layer_types')} must have {n_layers} entries, got {len(types)}")
    out: list[tuple[Attention, int | None]] = []
    for i, t in enumerate(types):
        if t == "full_attention":
            out.append(("full", None))
        elif t == "sliding_attention":
            out.append(("sliding", _check_kind(rd.name("sliding_window"), window, "pos_int")))
        else:
            raise ValueError(f"{rd.name('layer_types')}[{i}] must be 'full_attention' or "
                             f"'sliding_attention', got {t!r}")
    return out


def _plan_gptj(rd: _Reader) -> PositionPlan:
    head_dim = _head_dim(rd, "n_embd", "n_head")
    if rd.has("rotary") and not rd.get("rotary", "bool"):
        raise ValueError("rotary=False is not supported: the reference GPT-J always rotates")
    r = rd.get("rotary_dim", "pos_int")
    spec = _rope_spec(None, "config", head_dim=head_dim, rotary_dim=r, pairing="interleaved",
                      base=10000.0, max_len=rd.get("n_positions", "pos_int", None, record=False))
    n = rd.get("n_layer", "pos_int")
    rd.finish()
    return PositionPlan("gptj", tuple(LayerPlan(i, "full", None, "rope", spec) for i in range(n)),
                        spec.max_len, rd.get("n_head", "pos_int"), defaulted=tuple(rd.defaulted))


def _plan_gpt_neox(rd: _Reader) -> PositionPlan:
    head_dim = _head_dim(rd)
    pct = rd.get("rotary_pct", "pos_float", 0.25)
    base = rd.get("rotary_emb_base", "pos_float", 10000.0)
    max_len = rd.get("max_position_embeddings", "pos_int")
    spec = _rope_spec(rd.get("rope_scaling", "dict", None), rd.name("rope_scaling"), head_dim=head_dim,
                      rotary_dim=_rotary_dim(rd, head_dim, pct, "rotary_pct"), pairing="half",
                      base=base, max_len=max_len)
    n = rd.get("num_hidden_layers", "pos_int")
    rd.finish()
    return PositionPlan("gpt_neox", tuple(LayerPlan(i, "full", None, "rope", spec) for i in range(n)),
                        max_len, rd.get("num_attention_heads", "pos_int"), defaulted=tuple(rd.defaulted))


def _plan_bloom(rd: _Reader) -> PositionPlan:
    heads_key = "n_head" if rd.has("n_head") else "num_attention_heads"
    layers_key = "n_layer" if rd.has("n_layer") else "num_hidden_layers"
    heads = rd.get(heads_key, "pos_int")
    n = rd.get(layers_key, "pos_int")
    rd.finish()
    return PositionPlan("bloom", tuple(LayerPlan(i, "full", None, "alibi") for i in range(n)), None, heads,
                        defaulted=tuple(rd.defaulted))


def _plan_llama4(rd: _Reader) -> PositionPlan:
    head_dim = _head_dim(rd)
    n_layers = rd.get("num_hidden_layers", "pos_int")
    max_len = rd.get("max_position_embeddings", "pos_int")
    base = rd.get("rope_theta", "pos_float", 500000.0)
    spec = _rope_spec(rd.get("rope_scaling", "dict", None), rd.name("rope_scaling"), head_dim=head_dim,
                      rotary_dim=head_dim, pairing="interleaved", base=base, max_len=max_len)
    uses = rd.get("no_rope_layers", "list", None, record=False)
    interval = rd.get("no_rope_layer_interval", "pos_int", 4, record=not uses)
    if not uses:  # the reference: an empty or missing list means "every interval-th layer is NoPE"
        uses = [int((i + 1) % interval != 0) for i in range(n_layers)]
    methods = _rope_flags(uses, n_layers, rd.name("no_rope_layers"))
    chunk = rd.get("attention_chunk_size", "pos_int", None, record=False)
    tuning = rd.get("attn_temperature_tuning", "bool", True)
    temp = Temperature(rd.get("floor_scale", "pos_int", 8192), rd.get("attn_scale", "float", 0.1)) \
        if tuning else None
    layers = tuple(
        LayerPlan(i, "chunked", chunk, "rope", spec) if m == "rope" and chunk is not None
        else LayerPlan(i, "full", None, m, spec if m == "rope" else None, None if m == "rope" else temp)
        for i, m in enumerate(methods))
    rd.finish()
    return PositionPlan(str(rd.cfg["model_type"]), layers, max_len, rd.get("num_attention_heads", "pos_int"),
                        defaulted=tuple(rd.defaulted))


def _plan_gemma3(rd: _Reader) -> PositionPlan:
    head_dim = rd.get("head_dim", "pos_int", 256)
    n_layers = rd.get("num_hidden_layers", "pos_int")
    max_len = rd.get("max_position_embeddings", "pos_int")
    window = rd.get("sliding_window", "pos_int", 4096)
    if rd.has("use_bidirectional_attention") and rd.get("use_bidirectional_attention", "bool"):
        raise ValueError("use_bidirectional_attention=True is not supported (it changes the window)")
    glob = _rope_spec(rd.get("rope_scaling", "dict", None), rd.name("rope_scaling"), head_dim=head_dim,
                      rotary_dim=head_dim, pairing="half",
                      base=rd.get("rope_theta", "pos_float", 1e6), max_len=max_len)
    local = _rope_spec(None, "config", head_dim=head_dim, rotary_dim=head_dim, pairing="half",
                       base=rd.get("rope_local_base_freq", "pos_float", 1e4), max_len=max_len)
    if rd.has("layer_types"):
        layers = _layer_types(rd, n_layers, window)
        rd.read.add("sliding_window_pattern")
    else:
        pattern = rd.get("sliding_window_pattern", "pos_int", 6)
        layers = [("sliding", window) if (i + 1) % pattern else ("full", None) for i in range(n_layers)]
    rd.finish()
    plan_layers = tuple(LayerPlan(i, a, w, "rope", local if a == "sliding" else glob)
                        for i, (a, w) in enumerate(layers))
    return PositionPlan("gemma3_text", plan_layers, max_len, rd.get("num_attention_heads", "pos_int"),
                        defaulted=tuple(rd.defaulted))


def _plan_gemma4(rd: _Reader) -> PositionPlan:
    head_dim = rd.get("head_dim", "pos_int", 256)
    global_head_dim = rd.get("global_head_dim", "pos_int", 512)
    n_layers = rd.get("num_hidden_layers", "pos_int")
    max_len = rd.get("max_position_embeddings", "pos_int", 131072)
    window = rd.get("sliding_window", "pos_int", 512)
    bidir = rd.get("use_bidirectional_attention", "str", None, record=False)
    if bidir not in (None, "vision"):
        raise ValueError(f"use_bidirectional_attention={bidir!r} is not supported (it changes the window)")
    if rd.has("layer_types"):
        layers = _layer_types(rd, n_layers, window)
    else:
        layers = [("sliding", window) if (i + 1) % 6 else ("full", None) for i in range(n_layers)]
        rd.defaulted.append("layer_types=5 sliding : 1 full")
    if layers[-1][0] != "full":  # the reference forces the last layer to full attention
        raise ValueError(f"{rd.name('layer_types')}[-1] must be 'full_attention' (the reference forces "
                         f"it), got {rd.cfg['layer_types'][-1]!r}")
    params = rd.get("rope_parameters", "dict", None)
    if params is None:
        params = {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                  "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                     "rope_theta": 1000000.0}}
        rd.defaulted.append("rope_parameters=(the Gemma4TextConfig default)")
    specs: dict[str, RopeSpec] = {}
    for kind, d in (("sliding_attention", head_dim), ("full_attention", global_head_dim)):
        where = f"{rd.name('rope_parameters')}.{kind}"
        sub = params.get(kind)
        if sub is None:
            raise ValueError(f"{where} is required for Gemma 4 but is missing")
        sub = _check_kind(where, sub, "dict")
        if "rope_theta" not in sub:
            raise ValueError(f"{where}.rope_theta is required but is missing")
        base = _check_kind(f"{where}.rope_theta", sub["rope_theta"], "pos_float")
        frac = _check_kind(f"{where}.partial_rotary_factor", sub.get("partial_rotary_factor", 1.0),
                           "pos_float")
        proportional = sub.get("rope_type", sub.get("type", "default")) == "proportional"
        # proportional: rope_angles = int(frac * d // 2) slots of n^{-2j/d}; else int(d * frac) leading
        r = 2 * int(frac * d // 2) if proportional else _rotary_dim(rd, d, frac, "partial_rotary_factor")
        specs[kind] = _rope_spec(sub, where, head_dim=d, rotary_dim=r, pairing="half", base=base,
                                 max_len=max_len, partial="proportional" if proportional else "leading")
    extra = set(params) - {"sliding_attention", "full_attention"}
    if extra:
        raise ValueError(f"{rd.name('rope_parameters')} has unknown layer types {sorted(extra)}")
    rd.finish()
    plan_layers = tuple(LayerPlan(i, a, w, "rope", specs["sliding_attention" if a == "sliding"
                                                          else "full_attention"])
                        for i, (a, w) in enumerate(layers))
    return PositionPlan("gemma4_text", plan_layers, max_len, rd.get("num_attention_heads", "pos_int"),
                        defaulted=tuple(rd.defaulted))


def _plan_deepseek(rd: _Reader, model_type: str) -> PositionPlan:
    rope_dim = rd.get("qk_rope_head_dim", "pos_int")
    nope_dim = rd.get("qk_nope_head_dim", "int")
    n_layers = rd.get("num_hidden_layers", "pos_int")
    max_len = rd.get("max_position_embeddings", "pos_int")
    if model_type == "deepseek_v3" and not rd.get("rope_interleave", "bool", True, record=False):
        raise ValueError("rope_interleave=False is not supported for deepseek_v3")
    rd.read.add("head_dim")
    scaling = rd.get("rope_scaling", "dict", None)
    spec = _rope_spec(scaling, rd.name("rope_scaling"), head_dim=rope_dim, rotary_dim=rope_dim,
                      pairing="interleaved", base=rd.get("rope_theta", "pos_float", 10000.0),
                      max_len=max_len, decoupled_nope_dim=nope_dim)
    softmax = 1.0
    if spec.rope_type != "default" and spec.mscale_all_dim:  # the reference's yarn_apply_mscale
        softmax = rope_scaling.yarn_mscale(spec.factor, spec.mscale_all_dim) ** 2
    rd.finish()
    return PositionPlan(model_type, tuple(LayerPlan(i, "full", None, "rope", spec) for i in range(n_layers)),
                        max_len, rd.get("num_attention_heads", "pos_int"), softmax_scale_factor=softmax,
                        defaulted=tuple(rd.defaulted))


_WRAPPERS = {"llama4": "llama4_text", "gemma3": "gemma3_text", "gemma4": "gemma4_text"}
_FAMILIES = ("gptj", "gpt_neox", "bloom", "llama", "mistral", "qwen2", "qwen2_vl", "qwen2_5_vl",
             "qwen2_vl_text", "qwen2_5_vl_text", "phi3", "smollm3", "llama4_text", "gemma3_text",
             "gemma4_text", "deepseek_v2", "deepseek_v3")


def plan(config: Mapping[str, Any]) -> PositionPlan:
    """The :class:`PositionPlan` of a configuration dict (a released ``config.json``).

    Multimodal wrappers (``llama4``, ``gemma3``, ``gemma4``) are read through their
    ``text_config``. Raises ``TypeError``/``ValueError`` naming the field for anything it cannot read.
    """
    rd = _Reader(config, "config")
    model_type = rd.get("model_type", "str")
    if model_type in _WRAPPERS:
        text = rd.get("text_config", "dict")
        inner = _check_kind("text_config.model_type", text.get("model_type", _WRAPPERS[model_type]), "str")
        if inner != _WRAPPERS[model_type]:
            raise ValueError(f"text_config.model_type must be {_WRAPPERS[model_type]!r}, got {inner!r}")
        rd.finish()
        rd = _Reader({**text, "model_type": inner}, "text_config")
        model_type = inner
    if model_type not in _FAMILIES:
        known = ", ".join(repr(m) for m in sorted(set(_FAMILIES) | set(_WRAPPERS)))
        raise ValueError(f"model_type must be one of {known}, got {model_type!r}")
    readers = {"gptj": _plan_gptj, "gpt_neox": _plan_gpt_neox, "bloom": _plan_bloom,
               "llama4_text": _plan_llama4, "gemma3_text": _plan_gemma3, "gemma4_text": _plan_gemma4}
    if model_type in readers:
        return readers[model_type](rd)
    if model_type.startswith("deepseek"):
        return _plan_deepseek(rd, model_type)
    return _plan_llama_like(rd, model_type)


def load(name: str) -> dict[str, Any]:
    """A shipped configuration (one of :data:`MODELS`) as a fresh dict."""
    name = check_choice("name", name, MODELS)
    folder = resources.files(__package__).joinpath("released_configs")
    text = folder.joinpath(f"{name}.json").read_text("utf-8")
    data = json.loads(text)
    assert isinstance(data, dict)
    return data

