r"""The position schemes the lab trains and probes: what each one is, and what it does, in one place.

Each scheme is one object of this registry. It carries how the book names and draws it (a label,
an Okabe–Ito colour, a marker and a line style, so plots read without colour too), where it
injects position into an attention head (:data:`WHERE`), what it can do (a maximum length,
whether it rotates queries and keys), and its part of the lab model's computation — its
parameters and their initial values, what it adds to the token vectors, the frequencies it
rotates with, the bias it adds to the attention scores, and the gradients of its parameters.
The model (``posenc_lib.lab.model``) calls these hooks and names no scheme; every list of
schemes in the library (``lab.POSITIONS``, the sweeps of :mod:`~posenc_lib.lab.extrapolation`,
the catalogue's probing layers, the figures' legends) reads :data:`NAMES`. Adding a scheme is
adding one object here.

================  ==========================================================================
``"none"``        NoPE: no position signal (a causal mask still leaks some: row ``i`` of a
                  causal model averages over ``i + 1`` tokens)
``"learned"``     a trained table :math:`P \in \mathbb{R}^{L_{\max} \times d}` added to the tokens
``"sinusoidal"``  the Transformer's fixed sinusoids added to the tokens
``"rope"``        queries and keys rotated by :math:`pos\,\theta_i` in every head
``"alibi"``       :math:`-m_h\,|i-j|` added to the attention scores of head :math:`h`
``"t5"``          a learned scalar per head and *bucket* of the offset :math:`j-i` (T5)
================  ==========================================================================

>>> from posenc_lib.lab import schemes
>>> schemes.NAMES
('none', 'learned', 'sinusoidal', 'rope', 'alibi', 't5')
>>> schemes.get("rope").label, schemes.get("rope").acts_on
('RoPE', 'queries-keys')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..checks import check_choice
from ..maths import alibi, encodings, relative, rope_scaling

if TYPE_CHECKING:
    from .model import LabConfig

__all__ = ["NAMES", "REGISTRY", "T5_MAX_DISTANCE", "T5_NUM_BUCKETS", "WHERE", "Layer", "Scheme", "get"]

#: The places where a scheme injects position into one attention head. ``input`` means added
#: to the token vectors, ``queries-keys`` rotating queries and keys, ``scores`` added to the
#: attention logits, ``nowhere`` not at all.
WHERE: tuple[str, ...] = ("input", "queries-keys", "scores", "nowhere")

T5_NUM_BUCKETS = 32  # T5's defaults (relative.t5_bucket): far offsets share the last bucket
T5_MAX_DISTANCE = 128

Params = dict[str, np.ndarray]


@dataclass(frozen=True)
class Layer:
    """What one layer of a model does with position, as its scheme decides: whether its queries
    and keys are rotated, and the sliding window its keys are limited to (``None``: every key
    the mask allows)."""

    rotates: bool
    window: int | None = None


@dataclass(frozen=True)
class Scheme:
    """One position scheme: its name in code, how figures name it, where it acts and how it is
    drawn; its subclasses say what it computes in the lab model (these defaults: nothing).

    ``rotates`` says whether it rotates queries and keys (only such a scheme takes a RoPE
    stretching, chapter 11); :meth:`max_length` whether inputs have a longest length.
    """

    name: str
    label: str
    long_label: str
    acts_on: str
    colour: str
    marker: str
    linestyle: str | tuple[int, tuple[int, ...]]

    #: Whether queries and keys are rotated (RoPE).
    rotates = False
    #: Whether inputs have a longest length (a learned table has ``max_len`` rows; see
    #: :meth:`max_length`).
    has_max_length = False

    def __post_init__(self) -> None:
        check_choice("acts_on", self.acts_on, WHERE)

    # -- what the scheme can do ----------------------------------------------------------------

    def max_length(self, config: LabConfig) -> int | None:
        """The longest input a model with this scheme can run (``None``: any length)."""
        return None

    def layers(self, config: LabConfig) -> tuple[Layer, ...]:
        """What each of the ``config.n_layers`` layers does with position: by default every layer
        alike, rotating if the scheme rotates, with no window."""
        return (Layer(self.rotates),) * config.n_layers

    # -- its parameters ------------------------------------------------------------------------

    def param_shapes(self, config: LabConfig) -> dict[str, tuple[int, ...]]:
        """Name → shape of the parameters the scheme adds to the model (none by default)."""
        return {}

    def init_param(self, name: str, shape: tuple[int, ...], rng: np.random.Generator,
                   config: LabConfig) -> np.ndarray:
        """The initial value of the scheme's parameter ``name``, drawn from ``rng``."""
        raise KeyError(f"the {self.name!r} scheme has no parameter {name!r}")

    # -- the forward pass ----------------------------------------------------------------------

    def input(self, params: Params, positions: np.ndarray, config: LabConfig) -> np.ndarray | None:
        """What is added to the token vectors at ``positions`` (``(T, d)``), or ``None``."""
        return None

    def frequencies(self, config: LabConfig) -> tuple[np.ndarray, float] | None:
        """``(theta, score_multiplier)`` the queries and keys are rotated with (``theta`` of
        shape ``(d_h / 2,)``), or ``None`` for a scheme that does not rotate."""
        return None

    def score_bias(self, params: Params, config: LabConfig,
                   seq_len: int) -> tuple[np.ndarray | None, Any]:
        """The bias added to every layer's attention scores (``(T, T)`` or ``(H, T, T)``, before
        the causal mask), or ``None``; and what :meth:`bias_grads` needs later."""
        return None, None

    # -- the backward pass ---------------------------------------------------------------------

    def input_grads(self, dx: np.ndarray, params: Params, offset: int,
                    config: LabConfig) -> Params:
        """Gradients of the scheme's parameters from ``dx`` (``(T, d)``, the gradient of the
        model's input summed over the batch) for positions ``offset ... offset + T - 1``."""
        return {}

    def bias_grads(self, dbias: np.ndarray, state: Any, config: LabConfig) -> Params:
        """Gradients of the scheme's parameters from ``dbias`` (``(H, T, T)``, the gradient of
        the attention scores summed over the batch and the layers). The rotation needs no
        hook: it is orthogonal, so the model undoes it with the opposite angles."""
        return {}


@dataclass(frozen=True)
class _Learned(Scheme):
    """A trained table of ``max_len`` position vectors, added to the tokens."""

    has_max_length = True

    def max_length(self, config: LabConfig) -> int | None:
        return config.max_len

    def param_shapes(self, config: LabConfig) -> dict[str, tuple[int, ...]]:
        return {"pos_embed": (config.max_len, config.d_model)}

    def init_param(self, name: str, shape: tuple[int, ...], rng: np.random.Generator,
                   config: LabConfig) -> np.ndarray:
        # N(0, 1): the same scale per coordinate as the token embeddings and the sinusoids
        return rng.standard_normal(shape)

    def input(self, params: Params, positions: np.ndarray, config: LabConfig) -> np.ndarray:
        offset = int(positions[0])
        return params["pos_embed"][offset:offset + len(positions)]

    def input_grads(self, dx: np.ndarray, params: Params, offset: int,
                    config: LabConfig) -> Params:
        grad = np.zeros_like(params["pos_embed"])
        grad[offset:offset + dx.shape[0]] = dx  # each row is added at one position
        return {"pos_embed": grad}


@dataclass(frozen=True)
class _Sinusoidal(Scheme):
    """The Transformer's sinusoids (base ``config.base``), added to the tokens."""

    def input(self, params: Params, positions: np.ndarray, config: LabConfig) -> np.ndarray:
        return encodings.sinusoidal_at(positions, config.d_model, config.base)


@dataclass(frozen=True)
class _Rope(Scheme):
    r"""Queries and keys rotated pair by pair: :math:`\theta_i = n^{-2i/d_h}`, or the stretched
    frequencies of ``config.rope_scaling`` (chapter 11) with YaRN's score multiplier."""

    rotates = True

    def frequencies(self, config: LabConfig) -> tuple[np.ndarray, float]:
        if config.rope_scaling is None:
            return encodings.frequencies(config.head_dim, config.base), 1.0
        theta, scale = rope_scaling.scaled_frequencies(
            config.head_dim, config.rope_factor, config.rope_scaling, base=config.base,
            original_max_len=config.max_len)
        return theta, scale * scale


@dataclass(frozen=True)
class _Alibi(Scheme):
    """:math:`-m_h\\,|i - j|` on the scores of head :math:`h`, with the ALiBi paper's slopes."""

    def score_bias(self, params: Params, config: LabConfig,
                   seq_len: int) -> tuple[np.ndarray, None]:
        # -m_h |i - j| per head (the model adds the causal mask)                  (H, T, T)
        return alibi.bias(seq_len, alibi.slopes(config.n_heads), causal=False), None


@dataclass(frozen=True)
class _T5(Scheme):
    """A learned scalar per head and bucket of the offset, shared by all layers as in T5."""

    def param_shapes(self, config: LabConfig) -> dict[str, tuple[int, ...]]:
        return {"t5_bias": (config.n_heads, T5_NUM_BUCKETS)}

    def init_param(self, name: str, shape: tuple[int, ...], rng: np.random.Generator,
                   config: LabConfig) -> np.ndarray:
        return rng.standard_normal(shape) / math.sqrt(config.d_model)  # as in the T5 code

    def score_bias(self, params: Params, config: LabConfig,
                   seq_len: int) -> tuple[np.ndarray, np.ndarray]:
        idx = np.arange(seq_len)
        # bucket of the offset j - i for query i and key j                        (T, T)
        buckets = relative.t5_bucket(idx[None, :] - idx[:, None], bidirectional=not config.causal,
                                     num_buckets=T5_NUM_BUCKETS, max_distance=T5_MAX_DISTANCE)
        return params["t5_bias"][:, buckets], buckets  # b_{h, bucket(j - i)}      (H, T, T)

    def bias_grads(self, dbias: np.ndarray, state: Any, config: LabConfig) -> Params:
        buckets = state  # each bucket's bias is added at all pairs in that bucket
        return {"t5_bias": np.stack([
            np.bincount(buckets.ravel(), weights=dbias[h].ravel(), minlength=T5_NUM_BUCKETS)
            for h in range(config.n_heads)])}


#: The schemes in the book's order (the order of chapters 7-9 and of the lab's tables).
REGISTRY: dict[str, Scheme] = {s.name: s for s in (
    Scheme("none", "NoPE", "NoPE", "nowhere", "#000000", "o", ":"),
    _Learned("learned", "learned", "learned table", "input", "#CC79A7", "s", "-."),
    _Sinusoidal("sinusoidal", "sinusoidal", "sinusoidal", "input", "#E69F00", "^", "--"),
    _Rope("rope", "RoPE", "RoPE", "queries-keys", "#0072B2", "D", "-"),
    _Alibi("alibi", "ALiBi", "ALiBi", "scores", "#009E73", "v", (0, (6, 2, 1, 2, 1, 2))),
    _T5("t5", "T5 bias", "T5 buckets", "scores", "#D55E00", "P", (0, (1, 1))),
)}

#: The scheme names, in the book's order.
NAMES: tuple[str, ...] = tuple(REGISTRY)


def get(name: str) -> Scheme:
    """The :class:`Scheme` called ``name`` (one of :data:`NAMES`); a clear error otherwise."""
    return REGISTRY[check_choice("scheme", name, NAMES)]
