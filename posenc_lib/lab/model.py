"""The lab model (:mod:`posenc_lib.lab`): configuration, parameters, the forward pass and its
hand-written backward pass, with each position scheme plugged in."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..checks import (
    check_base,
    check_bool,
    check_choice,
    check_even_dim,
    check_finite_real,
    check_nonneg_int,
    check_positive_int,
)
from ..maths import rope, rope_scaling
from ..maths.attention import causal_mask, softmax, window_mask
from . import schemes

Params = dict[str, np.ndarray]  # parameter (or gradient) name -> float64 array

#: The position schemes a :class:`LabConfig` can plug in.
POSITIONS: tuple[str, ...] = schemes.NAMES
#: ``"token"``: a prediction per position; ``"mean"``: one per sequence, from the mean over
#: positions.
READOUTS: tuple[str, ...] = ("token", "mean")
#: The RoPE stretchings a lab model takes (chapter 11's; "dynamic" needs a length per call and
#: "llama3" a long original context, so the lab leaves them to ``rope_scaling``).
LAB_ROPE_SCALINGS: tuple[str, ...] = ("linear", "ntk", "yarn")

LN_EPS = 1e-5  # LayerNorm epsilon
T5_NUM_BUCKETS = schemes.T5_NUM_BUCKETS  # T5's bucket settings (the T5 scheme's, as T5 has them)
T5_MAX_DISTANCE = schemes.T5_MAX_DISTANCE


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LabConfig:
    """Shape and wiring of a lab model. Every field is checked when the config is made.

    ``vocab_size`` input tokens, ``n_outputs`` classes per prediction; ``d_model`` (even) split
    over ``n_heads`` heads of dimension ``d_model // n_heads`` (even for RoPE); ``n_layers``
    blocks with an MLP of width ``d_mlp`` (0 = attention only); ``position`` one of
    ``POSITIONS``; ``max_len`` rows of the learned table (longer inputs are rejected; other
    schemes ignore it); ``causal`` hides keys after the query; ``readout`` ``"token"`` (a
    prediction per position) or ``"mean"`` (mean over positions, then one prediction);
    ``base`` the frequency base :math:`n` of the sinusoidal and RoPE angles.

    Stretching RoPE (chapter 11): ``rope_scaling`` ``None`` (plain RoPE, the default) or one of
    ``LAB_ROPE_SCALINGS`` (``"linear"``, ``"ntk"``, ``"yarn"``), with
    ``rope_factor`` :math:`s \\ge 1`. The heads then rotate with
    :func:`~posenc_lib.maths.rope_scaling.scaled_frequencies` ``(d_h, s, method, base,
    original_max_len=max_len)`` — ``max_len`` is the trained context :math:`L` — and multiply
    the scores by ``attention_scale**2`` (YaRN's :math:`1/t`; 1 for the other methods). Only for
    ``position="rope"``; :func:`rope_scaled` makes such a config from a trained one.
    """

    vocab_size: int
    n_outputs: int
    position: str = "rope"
    d_model: int = 64
    n_heads: int = 2
    n_layers: int = 2
    d_mlp: int = 128
    max_len: int = 32
    causal: bool = True
    readout: str = "token"
    base: float = 10000.0
    rope_scaling: rope_scaling.Method | None = None
    rope_factor: float = 1.0

    def __post_init__(self) -> None:
        check_positive_int("vocab_size", self.vocab_size)
        check_positive_int("n_outputs", self.n_outputs)
        check_choice("position", self.position, POSITIONS)
        check_even_dim("d_model", self.d_model)
        check_positive_int("n_heads", self.n_heads)
        if self.d_model % self.n_heads:
            raise ValueError(
                f"n_heads must divide d_model, got n_heads={self.n_heads} and "
                f"d_model={self.d_model}"
            )
        if self.scheme.rotates and self.head_dim % 2:
            raise ValueError(
                f"RoPE rotates pairs, so the head dimension d_model // n_heads must be even, "
                f"got {self.d_model} // {self.n_heads} = {self.head_dim}"
            )
        check_positive_int("n_layers", self.n_layers)
        check_nonneg_int("d_mlp", self.d_mlp)
        check_positive_int("max_len", self.max_len)
        check_bool("causal", self.causal)
        check_choice("readout", self.readout, READOUTS)
        check_base("base", self.base)
        check_finite_real("rope_factor", self.rope_factor, minimum=1.0)
        if self.rope_scaling is None:
            if self.rope_factor != 1.0:
                raise ValueError(
                    f"rope_factor={self.rope_factor!r} needs a rope_scaling method (one of "
                    f"{', '.join(repr(m) for m in LAB_ROPE_SCALINGS)}), got None"
                )
        else:
            check_choice("rope_scaling", self.rope_scaling, LAB_ROPE_SCALINGS)
            if not self.scheme.rotates:
                raise ValueError(f"rope_scaling={self.rope_scaling!r} needs a scheme that rotates "
                                 f"queries and keys (position='rope'), got "
                                 f"position={self.position!r}")

    @property
    def head_dim(self) -> int:
        """:math:`d_h = d_{\\mathrm{model}} / H`."""
        return self.d_model // self.n_heads

    @property
    def scheme(self) -> schemes.Scheme:
        """The registry's object for ``position``, which says what the scheme adds, rotates or
        biases (:mod:`~posenc_lib.lab.schemes`)."""
        return schemes.get(self.position)

    def rope_frequencies(self) -> tuple[np.ndarray, float]:
        r"""``(theta, score_multiplier)`` of the RoPE heads: :math:`\theta_i = n^{-2i/d_h}` and 1
        without ``rope_scaling``; else the scaled frequencies and ``attention_scale**2``."""
        rotation = self.scheme.frequencies(self)
        if rotation is None:
            raise ValueError(f"position={self.position!r} does not rotate queries and keys")
        return rotation


def check_config(config: Any) -> LabConfig:
    if not isinstance(config, LabConfig):
        raise TypeError(f"config must be a LabConfig, got {type(config).__name__}")
    return config


# --------------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------------


def param_shapes(config: LabConfig) -> dict[str, tuple[int, ...]]:
    """Name → shape of every parameter array of a model with this ``config``.

    ``embed`` ``(V, d)``; then the scheme's own (:meth:`~posenc_lib.lab.schemes.Scheme.param_shapes`:
    ``pos_embed`` ``(max_len, d)`` for learned, ``t5_bias`` ``(H, 32)`` for T5, shared by all
    layers as in T5); per block ``b``:
    ``block{b}.ln1.g/.b``, ``block{b}.attn.wq/wk/wv/wo`` ``(d, d)``, and with an MLP
    ``block{b}.ln2.g/.b``, ``block{b}.mlp.w1`` ``(d, d_mlp)``, ``.b1``, ``.w2`` ``(d_mlp, d)``,
    ``.b2``; then ``ln_f.g/.b`` and ``head.w`` ``(d, n_outputs)``, ``head.b``.
    """
    config = check_config(config)
    d, m = config.d_model, config.d_mlp
    shapes: dict[str, tuple[int, ...]] = {"embed": (config.vocab_size, d)}
    shapes.update(config.scheme.param_shapes(config))
    for b in range(config.n_layers):
        p = f"block{b}."
        shapes[p + "ln1.g"] = (d,)
        shapes[p + "ln1.b"] = (d,)
        for name in ("wq", "wk", "wv", "wo"):
            shapes[p + "attn." + name] = (d, d)
        if m:
            shapes[p + "ln2.g"] = (d,)
            shapes[p + "ln2.b"] = (d,)
            shapes[p + "mlp.w1"] = (d, m)
            shapes[p + "mlp.b1"] = (m,)
            shapes[p + "mlp.w2"] = (m, d)
            shapes[p + "mlp.b2"] = (d,)
    shapes["ln_f.g"] = (d,)
    shapes["ln_f.b"] = (d,)
    shapes["head.w"] = (d, config.n_outputs)
    shapes["head.b"] = (config.n_outputs,)
    return shapes


def init_params(config: LabConfig, seed: int = 0) -> dict[str, np.ndarray]:
    r"""Fresh parameters for ``config``, drawn from ``np.random.default_rng(seed)``.

    Token embeddings :math:`\sim \mathcal N(0, 1)` (the same scale per coordinate as the
    sinusoids they compete with); every weight matrix :math:`\sim \mathcal N(0, 1/\text{fan\_in})`,
    with the two matrices that write back into the residual stream (``wo``, ``w2``) further
    scaled by :math:`1/\sqrt{2L}`; LayerNorm gains 1, biases 0; the scheme's own parameters as
    the scheme draws them (learned table :math:`\mathcal N(0, 1)`, T5 biases
    :math:`\mathcal N(0, 1/d)` as in the T5 code).
    """
    config = check_config(config)
    seed = check_nonneg_int("seed", seed)
    rng = np.random.default_rng(seed)
    residual_scale = 1.0 / math.sqrt(2 * config.n_layers)
    own = config.scheme.param_shapes(config)
    params: dict[str, np.ndarray] = {}
    for name, shape in param_shapes(config).items():  # a fixed order, so a fixed draw
        leaf = name.rsplit(".", 1)[-1]
        if name == "embed":
            value = rng.standard_normal(shape)
        elif name in own:
            value = config.scheme.init_param(name, shape, rng, config)
        elif leaf in ("g",):
            value = np.ones(shape)
        elif leaf in ("b", "b1", "b2"):
            value = np.zeros(shape)
        else:  # a weight matrix (fan_in, fan_out)
            value = rng.standard_normal(shape) / math.sqrt(shape[0])
            if leaf in ("wo", "w2"):
                value *= residual_scale
        params[name] = value.astype(np.float64)
    return params


def check_params(params: Any, config: LabConfig) -> Params:
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
    shapes = param_shapes(config)
    missing = sorted(set(shapes) - set(params))
    extra = sorted(set(params) - set(shapes))
    if missing or extra:
        raise ValueError(
            f"params do not match the config (position={config.position!r}, "
            f"n_layers={config.n_layers}, d_mlp={config.d_mlp}): missing {missing}, "
            f"unexpected {extra}"
        )
    for name, shape in shapes.items():
        arr = params[name]
        if not isinstance(arr, np.ndarray) or arr.shape != shape:
            got = arr.shape if isinstance(arr, np.ndarray) else type(arr).__name__
            raise ValueError(f"params[{name!r}] must be an array of shape {shape}, got {got}")
    return params


def _check_tokens(name: str, tokens: Any, high: int, ndim: int) -> NDArray[np.int64]:
    arr = np.asarray(tokens)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= high):
        raise ValueError(
            f"{name} must lie in [0, {high}), got values from {arr.min()} to {arr.max()}"
        )
    return arr.astype(np.int64, copy=False)


# --------------------------------------------------------------------------------------------
# Building blocks, each a forward (returning a cache) and a backward
# --------------------------------------------------------------------------------------------


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, tuple]:
    r""":math:`y = g \odot (x - \mu) / \sqrt{\sigma^2 + \epsilon} + b` over the last axis."""
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    inv = 1.0 / np.sqrt(var + LN_EPS)
    xhat = (x - mu) * inv
    return xhat * g + b, (xhat, inv, g)


def _layer_norm_back(dy: np.ndarray, cache: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Backward of :func:`_layer_norm`. With :math:`\hat g = dy \odot g` and bars for means
    over the last axis:
    :math:`dx = \big(\hat g - \overline{\hat g} - \hat x\,\overline{\hat g \hat x}\big)/\sigma`."""
    xhat, inv, g = cache
    dg = (dy * xhat).reshape(-1, xhat.shape[-1]).sum(0)
    db = dy.reshape(-1, xhat.shape[-1]).sum(0)
    dxhat = dy * g
    dx = inv * (dxhat - dxhat.mean(-1, keepdims=True)
                - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    return dx, dg, db


def _relu(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""ReLU :math:`\max(0, x)` and its derivative :math:`[x > 0]`."""
    positive = x > 0
    return x * positive, positive


def _weight_grad(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    r""":math:`\sum_{b,t} a_{bt}^\top g_{bt}`: the gradient of a weight used as ``a @ W``.

    Done as a batch of small ``(d_in, T) @ (T, d_out)`` products summed over the batch rather
    than one big product: small products run single-threaded in BLAS, which on a busy 2-core
    machine is several times faster than a threaded one.
    """
    return (a.swapaxes(-1, -2) @ g).sum(0)  # (B, d_in, d_out) -> (d_in, d_out)


def _split_heads(z: np.ndarray, n_heads: int) -> np.ndarray:
    b, t, d = z.shape
    return z.reshape(b, t, n_heads, d // n_heads).transpose(0, 2, 1, 3)  # (B, H, T, hd)


def _merge_heads(z: np.ndarray) -> np.ndarray:
    b, h, t, hd = z.shape
    return z.transpose(0, 2, 1, 3).reshape(b, t, h * hd)  # (B, T, D)


@dataclass
class _Context:
    """What the heads of one layer use in a forward pass: positions, the additive score bias and
    the rotation of queries and keys (layers share these objects unless the scheme gives a layer
    a window or leaves it unrotated)."""

    positions: np.ndarray  # (T,) float64
    bias: np.ndarray | None  # (T, T) or (H, T, T): the scheme's bias and/or the causal mask
    bias_state: Any = None  # what the scheme's bias_grads needs (T5: the bucket of each pair)
    theta: np.ndarray | None = None  # (d_h/2,) rotation frequencies (RoPE only)
    score_multiplier: float = 1.0  # YaRN's 1/t on the logits (1 otherwise)


def _attention(p: Params, prefix: str, h: np.ndarray, config: LabConfig,
               ctx: _Context) -> tuple[np.ndarray, tuple]:
    r"""Multi-head attention
    :math:`\mathrm{softmax}(\tilde Q \tilde K^\top/\sqrt{d_h} + B)\,V\,W_O`, heads concatenated."""
    nh, hd = config.n_heads, config.head_dim
    q = _split_heads(h @ p[prefix + "wq"], nh)  # (B, H, T, hd)
    k = _split_heads(h @ p[prefix + "wk"], nh)  # (B, H, T, hd)
    v = _split_heads(h @ p[prefix + "wv"], nh)  # (B, H, T, hd)
    if ctx.theta is not None:  # RoPE: rotate pair i by pos * theta_i
        q = rope.apply(q, ctx.positions, frequencies=ctx.theta)
        k = rope.apply(k, ctx.positions, frequencies=ctx.theta)
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(hd)  # (B, H, T, T)
    if ctx.score_multiplier != 1.0:  # YaRN: logits times attention_scale^2 = 1/t
        scores = scores * ctx.score_multiplier
    if ctx.bias is not None:
        scores = scores + ctx.bias
    probs = softmax(scores, axis=-1)  # (B, H, T, T), rows sum to 1
    o = _merge_heads(probs @ v)  # (B, T, D)
    out = o @ p[prefix + "wo"]  # (B, T, D)
    return out, (h, q, k, v, probs, o)


def _attention_back(dout: np.ndarray, cache: tuple, p: Params, prefix: str, config: LabConfig,
                    ctx: _Context, grads: Params) -> tuple[np.ndarray, np.ndarray]:
    """Backward of :func:`_attention`; returns ``(dh, dscores summed over the batch)``.

    Softmax: :math:`ds_{ij} = a_{ij}(da_{ij} - \\sum_k a_{ik}\\,da_{ik})`. RoPE: the rotation
    :math:`R(pos)` is orthogonal, so its backward is :math:`R(pos)^\\top = R(-pos)`.
    """
    h, q, k, v, probs, o = cache
    nh, hd = config.n_heads, config.head_dim
    grads[prefix + "wo"] = _weight_grad(o, dout)
    do = _split_heads(dout @ p[prefix + "wo"].T, nh)  # (B, H, T, hd)
    dprobs = do @ v.swapaxes(-1, -2)  # (B, H, T, T)
    dv = probs.swapaxes(-1, -2) @ do  # (B, H, T, hd)
    dscores = probs * (dprobs - (dprobs * probs).sum(-1, keepdims=True))  # (B, H, T, T)
    dq = dscores @ k / math.sqrt(hd)  # (B, H, T, hd), w.r.t. the rotated q
    dk = dscores.swapaxes(-1, -2) @ q / math.sqrt(hd)
    if ctx.score_multiplier != 1.0:  # scores = multiplier * q.k / sqrt(hd)
        dq = dq * ctx.score_multiplier
        dk = dk * ctx.score_multiplier
    if ctx.theta is not None:  # R(pos)^T = R(-pos)
        dq = rope.apply(dq, -ctx.positions, frequencies=ctx.theta)
        dk = rope.apply(dk, -ctx.positions, frequencies=ctx.theta)
    dh = np.zeros_like(h)
    for name, dz in (("wq", dq), ("wk", dk), ("wv", dv)):
        dz = _merge_heads(dz)  # (B, T, D)
        grads[prefix + name] = _weight_grad(h, dz)
        dh += dz @ p[prefix + name].T
    return dh, dscores.sum(0)


def _mlp(p: Params, prefix: str, h: np.ndarray) -> tuple[np.ndarray, tuple]:
    r""":math:`\mathrm{ReLU}(h W_1 + b_1) W_2 + b_2`."""
    a, da = _relu(h @ p[prefix + "w1"] + p[prefix + "b1"])  # (B, T, d_mlp)
    return a @ p[prefix + "w2"] + p[prefix + "b2"], (h, a, da)


def _mlp_back(dout: np.ndarray, cache: tuple, p: Params, prefix: str,
              grads: Params) -> np.ndarray:
    h, a, da = cache
    grads[prefix + "w2"] = _weight_grad(a, dout)
    grads[prefix + "b2"] = dout.sum((0, 1))
    dpre = (dout @ p[prefix + "w2"].T) * da  # (B, T, d_mlp)
    grads[prefix + "w1"] = _weight_grad(h, dpre)
    grads[prefix + "b1"] = dpre.sum((0, 1))
    return dpre @ p[prefix + "w1"].T


# --------------------------------------------------------------------------------------------
# Position signals
# --------------------------------------------------------------------------------------------


def _context(params: Params, config: LabConfig, seq_len: int, offset: int) -> list[_Context]:
    """For each layer: positions ``offset .. offset+T-1``, the score bias (the scheme's, the causal
    mask, and a sliding window where the scheme gives the layer one) and the rotation of queries
    and keys (where the scheme rotates in that layer)."""
    positions = np.arange(offset, offset + seq_len, dtype=np.float64)
    bias, state = config.scheme.score_bias(params, config, seq_len)
    if config.causal:
        mask = causal_mask(seq_len)  # (T, T): -inf where the key comes after the query
        bias = mask if bias is None else bias + mask
    rotation = config.scheme.frequencies(config)
    theta, multiplier = (None, 1.0) if rotation is None else rotation
    shared = _Context(positions, bias, state, theta, multiplier)
    out = []
    for layer in config.scheme.layers(config):
        if layer.rotates == (theta is not None) and layer.window is None:
            out.append(shared)
            continue
        local = bias
        if layer.window is not None:  # keys window or more tokens away: -inf
            band = window_mask(seq_len, layer.window)
            local = band if bias is None else bias + band
        out.append(_Context(positions, local, state, theta if layer.rotates else None,
                            multiplier if layer.rotates else 1.0))
    return out


def check_length(config: LabConfig, seq_len: int, offset: int = 0) -> None:
    """Raise ``ValueError`` if the scheme cannot run positions ``offset … offset + seq_len - 1``
    (a learned table has no vector beyond its ``max_len`` rows)."""
    longest = config.scheme.max_length(config)
    if longest is not None and offset + seq_len > longest:
        where = f"offset {offset} + sequence length {seq_len}" if offset else \
            f"sequence length {seq_len}"
        raise ValueError(
            f"{where} exceeds the learned table's max_len={longest}: there is no learned "
            f"position vector for positions >= {longest}"
        )


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------


def forward_pass(params: Params, tokens: np.ndarray, config: LabConfig,
                 offset: int) -> tuple[np.ndarray, dict]:
    """The forward pass on checked arguments: ``(logits, cache)``, the cache holding what the
    backward pass needs. :func:`forward` checks its arguments and calls this."""
    batch, seq_len = tokens.shape
    check_length(config, seq_len, offset)
    ctx = _context(params, config, seq_len, offset)  # one per layer
    x = params["embed"][tokens]  # (B, T, D)
    added = config.scheme.input(params, ctx[0].positions, config)  # learned, sinusoidal: (T, D)
    if added is not None:
        x = x + added
    blocks = []
    for b in range(config.n_layers):
        pre = f"block{b}."
        h, ln1 = _layer_norm(x, params[pre + "ln1.g"], params[pre + "ln1.b"])
        a, att = _attention(params, pre + "attn.", h, config, ctx[b])
        x = x + a
        ln2 = mlp = None
        if config.d_mlp:
            h, ln2 = _layer_norm(x, params[pre + "ln2.g"], params[pre + "ln2.b"])
            m, mlp = _mlp(params, pre + "mlp.", h)
            x = x + m
        blocks.append((ln1, att, ln2, mlp))
    y, lnf = _layer_norm(x, params["ln_f.g"], params["ln_f.b"])  # (B, T, D)
    feats = y.mean(1) if config.readout == "mean" else y  # (B, D) or (B, T, D)
    logits = feats @ params["head.w"] + params["head.b"]  # (B, n_out) or (B, T, n_out)
    cache = {"tokens": tokens, "offset": offset, "ctx": ctx, "blocks": blocks, "lnf": lnf,
             "feats": feats}
    return logits, cache


def _backward(dlogits: np.ndarray, params: Params, config: LabConfig, cache: dict) -> Params:
    grads: Params = {}
    feats, ctx = cache["feats"], cache["ctx"]
    if config.readout == "mean":  # feats (B, D), dlogits (B, n_out)
        grads["head.w"] = feats.T @ dlogits
        grads["head.b"] = dlogits.sum(0)
    else:  # feats (B, T, D), dlogits (B, T, n_out)
        grads["head.w"] = _weight_grad(feats, dlogits)
        grads["head.b"] = dlogits.sum((0, 1))
    dfeats = dlogits @ params["head.w"].T
    if config.readout == "mean":  # feats = mean_t y  =>  dy_t = dfeats / T
        seq_len = cache["tokens"].shape[1]
        dy = np.repeat(dfeats[:, None, :] / seq_len, seq_len, axis=1)  # (B, T, D)
    else:
        dy = dfeats
    dx, grads["ln_f.g"], grads["ln_f.b"] = _layer_norm_back(dy, cache["lnf"])
    dbias = None  # d loss / d (score bias), summed over batch and layers   (H, T, T)
    for b in reversed(range(config.n_layers)):
        pre = f"block{b}."
        ln1, att, ln2, mlp = cache["blocks"][b]
        if config.d_mlp:  # x = x + MLP(LN2(x))
            dh = _mlp_back(dx, mlp, params, pre + "mlp.", grads)
            dh, grads[pre + "ln2.g"], grads[pre + "ln2.b"] = _layer_norm_back(dh, ln2)
            dx = dx + dh
        dh, dscores = _attention_back(dx, att, params, pre + "attn.", config, ctx[b], grads)
        dbias = dscores if dbias is None else dbias + dscores
        dh, grads[pre + "ln1.g"], grads[pre + "ln1.b"] = _layer_norm_back(dh, ln1)
        dx = dx + dh
    assert dbias is not None
    grads.update(config.scheme.bias_grads(dbias, ctx[0].bias_state, config))  # T5's table
    grads.update(config.scheme.input_grads(dx.sum(0), params, cache["offset"], config))  # learned
    grads["embed"] = np.zeros_like(params["embed"])
    np.add.at(grads["embed"], cache["tokens"], dx)  # scatter-add rows of repeated tokens
    return {name: grads[name] for name in params}  # same key order as params


def forward(params: dict[str, np.ndarray], tokens: Any, config: LabConfig, *,
            offset: int = 0) -> NDArray[np.float64]:
    r"""Logits of the model for integer ``tokens`` of shape ``(batch, seq)``.

    Returns ``(batch, seq, n_outputs)`` for ``readout="token"`` and ``(batch, n_outputs)`` for
    ``readout="mean"``. Token ``t`` sits at position ``offset + t`` (default 0): shifting every
    position by a constant is how the tests show that RoPE and ALiBi only see offsets. A learned
    model raises ``ValueError`` when ``offset + seq`` exceeds ``max_len``.
    """
    config = check_config(config)
    params = check_params(params, config)
    tokens = _check_tokens("tokens", tokens, config.vocab_size, ndim=2)
    offset = check_nonneg_int("offset", offset)
    if tokens.shape[1] < 1:
        raise ValueError(f"tokens must hold at least one position, got shape {tokens.shape}")
    return forward_pass(params, tokens, config, offset)[0]


def rows_per_chunk(n_rows: int, n_heads: int, length: int, budget: int = 2**21) -> int:
    """How many of ``n_rows`` sequences of ``length`` tokens to run through the model at once, so
    that one layer's attention weights (rows × heads × length × length numbers) stay within
    ``budget`` numbers: at least 1, at most ``n_rows``. Evaluating long inputs in such chunks
    keeps memory bounded (:func:`evaluate` and the text models' evaluations use it)."""
    return max(1, min(n_rows, budget // (n_heads * length * length)))


def attention_maps(params: dict[str, np.ndarray], tokens: Any, config: LabConfig, *,
                   offset: int = 0) -> list[NDArray[np.float64]]:
    r"""The attention weights :math:`a_{ij}` of every layer: a list of ``(batch, H, T, T)`` arrays.

    Row ``i`` of head ``h`` is the distribution over keys ``j`` that query ``i`` attends with
    (it sums to 1; keys after ``i`` get exactly 0 in a causal model).
    """
    config = check_config(config)
    params = check_params(params, config)
    tokens = _check_tokens("tokens", tokens, config.vocab_size, ndim=2)
    offset = check_nonneg_int("offset", offset)
    if tokens.shape[1] < 1:
        raise ValueError(f"tokens must hold at least one position, got shape {tokens.shape}")
    cache = forward_pass(params, tokens, config, offset)[1]
    return [att[4] for _, att, _, _ in cache["blocks"]]  # att = (h, q, k, v, probs, o)


def loss_and_grads(params: dict[str, np.ndarray], tokens: Any, targets: Any, config: LabConfig,
                   mask: Any = None) -> tuple[float, dict[str, np.ndarray]]:
    r"""Mean cross-entropy over the counted targets, and its gradient for every parameter.

    .. math::
        \mathcal L = -\frac{1}{|M|} \sum_{n \in M} \log \mathrm{softmax}(z_n)_{y_n},
        \qquad \frac{\partial \mathcal L}{\partial z_n} =
        \frac{\mathrm{softmax}(z_n) - \mathrm{onehot}(y_n)}{|M|}\;[n \in M]

    ``targets`` has shape ``(batch, seq)`` (token readout) or ``(batch,)`` (mean readout), with
    class indices in ``[0, n_outputs)``; ``mask`` (bool, same shape, default all true) marks the
    targets :math:`M` that count. The backward pass is written out by hand, layer by layer.
    """
    config = check_config(config)
    params = check_params(params, config)
    tokens = _check_tokens("tokens", tokens, config.vocab_size, ndim=2)
    if tokens.shape[1] < 1:
        raise ValueError(f"tokens must hold at least one position, got shape {tokens.shape}")
    tshape = tokens.shape if config.readout == "token" else tokens.shape[:1]
    targets = _check_tokens("targets", targets, config.n_outputs, ndim=len(tshape))
    if targets.shape != tshape:
        raise ValueError(
            f"targets must have shape {tshape} for readout={config.readout!r}, "
            f"got {targets.shape}"
        )
    if mask is None:
        mask = np.ones(tshape, dtype=bool)
    else:
        mask = np.asarray(mask)
        if mask.dtype != bool:
            raise TypeError(f"mask must be a bool array, got dtype {mask.dtype}")
        if mask.shape != tshape:
            raise ValueError(f"mask must have shape {tshape}, got {mask.shape}")
    n_counted = int(mask.sum())
    if n_counted == 0:
        raise ValueError("mask must select at least one target, got none")

    logits, cache = forward_pass(params, tokens, config, 0)
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))  # log-softmax
    picked = np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]
    loss = -float(picked[mask].sum()) / n_counted
    dlogits = np.exp(logp)  # softmax(z)
    np.put_along_axis(dlogits, targets[..., None],
                      np.take_along_axis(dlogits, targets[..., None], axis=-1) - 1.0, axis=-1)
    dlogits *= mask[..., None] / n_counted
    return loss, _backward(dlogits, params, config, cache)
