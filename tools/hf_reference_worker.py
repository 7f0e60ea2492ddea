"""Runs inside .venv-hf (torch + a pinned transformers): computes golden numbers with transformers' own code.

Called by tools/hf_reference.py as ``python hf_reference_worker.py CONFIG.json OUT.json NAME``; never
imported by the book or its tests (it needs torch). It does not import posenc_lib: every number here
comes from transformers' configuration classes, rotary-embedding modules, ROPE_INIT_FUNCTIONS,
attention modules and get_rope_index, run on the released configuration as transformers reads it.

Two precisions are stored. The modules compute in float32 (what the model uses): ``inv_freq32``,
``cos``/``sin`` and the temperature. The same code is also run once more with ``torch.float``/
``torch.float32`` resolved to float64 inside the rotary modules (a stand-in ``torch`` module
object, float64 as the default dtype, and ``Tensor.float()`` casting to float64 while it runs),
which gives the reference *formulas* in float64:
``inv_freq64`` — the numbers the library must match to ~1e-12.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import sys
import types
from collections.abc import Iterator
from typing import Any

import torch
import transformers
from transformers import AutoConfig, modeling_rope_utils

SIG = 12  # significant digits kept in the golden files


def rnd(x: Any) -> Any:
    """Round floats (and nested lists of them) to SIG significant digits."""
    if isinstance(x, torch.Tensor):
        x = x.detach().to("cpu").tolist()
    if isinstance(x, list):
        return [rnd(v) for v in x]
    if isinstance(x, float):
        return float(f"{x:.{SIG}g}")
    return x


class _Float64Torch(types.ModuleType):
    """``torch`` with ``float``/``float32`` meaning float64; everything else is torch itself."""

    def __init__(self) -> None:
        super().__init__("torch")

    def __getattr__(self, name: str) -> Any:
        if name in ("float", "float32"):
            return torch.float64
        return getattr(torch, name)


@contextlib.contextmanager
def float64(*modules: types.ModuleType) -> Iterator[None]:
    """Run the rotary code of ``modules`` (and modeling_rope_utils) with float64 for float32."""
    mods = (modeling_rope_utils, *modules)
    saved = [m.torch for m in mods]  # type: ignore[attr-defined]
    default = torch.get_default_dtype()
    to_float = torch.Tensor.float  # LongRoPE's exponents go through Tensor.float()
    for m in mods:
        m.torch = _Float64Torch()  # type: ignore[attr-defined]
    torch.set_default_dtype(torch.float64)
    torch.Tensor.float = lambda self, *a, **k: self.to(torch.float64)  # type: ignore[method-assign]
    try:
        yield
    finally:
        for m, t in zip(mods, saved):
            m.torch = t  # type: ignore[attr-defined]
        torch.set_default_dtype(default)
        torch.Tensor.float = to_float  # type: ignore[method-assign]


ROTARY = {  # text model_type -> (modeling module, rotary class, returns complex freqs_cis)
    "gpt_neox": ("gpt_neox", "GPTNeoXRotaryEmbedding", False),
    "llama": ("llama", "LlamaRotaryEmbedding", False),
    "mistral": ("mistral", "MistralRotaryEmbedding", False),
    "qwen2": ("qwen2", "Qwen2RotaryEmbedding", False),
    "qwen2_5_vl_text": ("qwen2_5_vl", "Qwen2_5_VLRotaryEmbedding", False),
    "gemma3_text": ("gemma3", "Gemma3RotaryEmbedding", False),
    "gemma4_text": ("gemma4", "Gemma4TextRotaryEmbedding", False),
    "phi3": ("phi3", "Phi3RotaryEmbedding", False),
    "deepseek_v2": ("deepseek_v2", "DeepseekV2RotaryEmbedding", True),
    "smollm3": ("smollm3", "SmolLM3RotaryEmbedding", False),
    "llama4_text": ("llama4", "Llama4TextRotaryEmbedding", True),
}


def modeling(name: str) -> types.ModuleType:
    return importlib.import_module(f"transformers.models.{name}.modeling_{name}")


def slots(n: int, keep: int = 32) -> list[int]:
    """At most ``keep`` evenly spread slot indices (first and last included) to keep files small."""
    if n <= keep:
        return list(range(n))
    return sorted({round(k * (n - 1) / (keep - 1)) for k in range(keep)})


def sequences(text: Any) -> dict[str, list[int]]:
    """A short sequence inside the original context and a long one beyond it (position lists)."""
    rp = text.rope_parameters
    some = next(iter(rp.values())) if rp and isinstance(next(iter(rp.values())), dict) else rp
    original = (some or {}).get("original_max_position_embeddings") or text.max_position_embeddings
    beyond = 2 * original if text.max_position_embeddings <= original else min(
        2 * original, text.max_position_embeddings - 1)
    if (some or {}).get("rope_type") == "dynamic":
        beyond = int(2.5 * original)
    return {"short": [0, 1, 7, 100, original - 1], "long": [0, 1, 7, 100, original - 1, beyond]}


def rotary_goldens(text: Any) -> dict[str, Any]:
    mod_name, cls_name, is_complex = ROTARY[text.model_type]
    mod = modeling(mod_name)
    cls = getattr(mod, cls_name)
    per_type = text.model_type in ("gemma3_text", "gemma4_text")
    kinds = sorted(set(text.layer_types)) if per_type else [None]
    vl = text.model_type == "qwen2_5_vl_text"
    out: dict[str, Any] = {}
    for kind in kinds:
        key = kind or "all"
        buf = f"{kind}_inv_freq" if kind else "inv_freq"
        scale_attr = f"{kind}_attention_scaling" if kind else "attention_scaling"
        with float64(mod):
            inv64 = getattr(cls(text), buf).clone()
        inv32 = getattr(cls(text), buf).clone()
        entry: dict[str, Any] = {"inv_freq64": rnd(inv64), "inv_freq32": rnd(inv32.double()),
                                 "attention_factor": getattr(cls(text), scale_attr), "cases": {}}
        n = inv32.shape[0]
        keep = slots(n)
        entry["slots"] = keep
        for label, pos in sequences(text).items():
            position_ids = torch.tensor([pos])
            if vl:
                position_ids = position_ids[None].expand(3, 1, -1)
            args = (kind,) if kind else ()
            with float64(mod):
                emb64 = cls(text)
                emb64(torch.zeros(1, dtype=torch.float64), position_ids, *args)
                inv_at = getattr(emb64, buf).clone()
            emb = cls(text)
            res = emb(torch.zeros(1, dtype=torch.float32), position_ids, *args)
            if is_complex:  # freqs_cis = a e^{i p w}, one complex number per pair
                cos, sin = res.real[0], res.imag[0]
            else:  # (cos, sin) of shape (1, T, 2 n) = cat(per-slot, per-slot)
                cos, sin = res[0][0, :, :n], res[1][0, :, :n]
            same = torch.equal(inv_at, inv64)
            entry["cases"][label] = {
                "positions": pos, "seq_len": max(pos) + 1, "inv_freq64": None if same else rnd(inv_at),
                "attention_factor": getattr(emb, scale_attr),
                "cos": rnd(cos[:, keep].double()), "sin": rnd(sin[:, keep].double())}
        if text.model_type == "gemma4_text":  # head_dim is per layer type (global_head_dim)
            head_dim = text.per_layer_config[kind].head_dim
        else:
            head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
        entry["partners"] = partners(text, mod, cls, kind, max(2 * n, head_dim))
        out[key] = entry
    return out


def partners_of(rotated: Any) -> list[int]:
    """Row k = feature k's unit vector after the model's rotation: which other feature it moved to."""
    dim = rotated.shape[0]
    out = []
    for k in range(dim):
        row = rotated[k].abs().clone()
        row[k] = 0.0
        j = int(row.argmax())
        out.append(j if float(row[j]) > 1e-12 else -1)
    return out


def partners(text: Any, mod: types.ModuleType, cls: Any, kind: str | None, width: int) -> list[int]:
    """Feed the unit vectors of the rotated width through the model's own apply function at p = 1."""
    emb = cls(text)
    position_ids = torch.tensor([[1]])
    eye = torch.eye(width, dtype=torch.float64)
    if text.model_type == "llama4_text":  # (batch, seq, heads, dim), freqs_cis (batch, seq, dim/2)
        out, _ = mod.apply_rotary_emb(eye[None, None], eye[None, None], emb(eye, position_ids))
        return partners_of(out[0, 0])
    if text.model_type == "deepseek_v2":  # (batch, heads, seq, dim)
        out, _ = mod.apply_rotary_emb(eye[None, :, None], eye[None, :, None], emb(eye, position_ids))
        return partners_of(out[0, :, 0])
    if text.model_type == "qwen2_5_vl_text":
        position_ids = position_ids[None].expand(3, 1, 1)
    cos, sin = emb(eye, position_ids, *((kind,) if kind else ()))
    x = eye[None, :, None]  # (batch, heads = one per unit vector, seq, dim)
    if text.model_type == "gemma4_text":
        out = mod.apply_rotary_pos_emb(x, cos, sin)
    else:
        out, _ = mod.apply_rotary_pos_emb(x, x, cos, sin)
    return partners_of(out[0, :, 0])


def gptj_goldens(text: Any) -> dict[str, Any]:
    mod = modeling("gptj")
    r = text.rotary_dim
    n = r // 2
    with float64(mod):
        table64 = mod.create_sinusoidal_positions(2, r)  # row 1 = sin(w), cos(w): recover w exactly
    inv64 = torch.atan2(table64[1, :n], table64[1, n:])
    pos = [0, 1, 7, 100, text.n_positions - 1]
    table = mod.create_sinusoidal_positions(text.n_positions, r)  # (n_positions, r) = [sin | cos]
    rows = table[pos]
    inv32 = 1.0 / (10000 ** (torch.arange(0, r, 2, dtype=torch.int64) / r))  # the line in the function
    # GPT-J's attention rotates query[..., :rotary_dim] (shape batch, seq, heads, dim) and passes
    # the rest; apply_rotary_pos_emb does the rotation
    d = text.n_embd // text.n_head
    eye = torch.eye(d, dtype=torch.float64)[None, None]
    sin1, cos1 = torch.split(table[[1]][None].double(), n, dim=-1)
    turned = torch.cat([mod.apply_rotary_pos_emb(eye[..., :r], sin1, cos1), eye[..., r:]], dim=-1)
    return {"all": {"inv_freq64": rnd(inv64), "inv_freq32": rnd(inv32.double()), "attention_factor": 1.0,
                    "slots": list(range(n)), "partners": partners_of(turned[0, 0]),
                    "cases": {"short": {"positions": pos, "seq_len": max(pos) + 1, "inv_freq64": rnd(inv64),
                                        "attention_factor": 1.0, "cos": rnd(rows[:, n:].double()),
                                        "sin": rnd(rows[:, :n].double())}}}}


def layer_goldens(text: Any) -> dict[str, Any]:
    """Per-layer facts as the configuration class (and, for NoPE flags, the attention module) sets them."""
    n = text.num_hidden_layers
    out: dict[str, Any] = {"num_hidden_layers": n,
                           "layer_types": list(getattr(text, "layer_types", None) or []) or None,
                           "sliding_window": getattr(text, "sliding_window", None),
                           "attention_chunk_size": getattr(text, "attention_chunk_size", None)}
    if text.model_type in ("llama4_text", "smollm3"):
        mod = modeling("llama4" if text.model_type == "llama4_text" else "smollm3")
        attn = getattr(mod, "Llama4TextAttention" if text.model_type == "llama4_text" else "SmolLM3Attention")
        with torch.device("meta"):
            out["use_rope"] = [bool(attn(text, i).use_rope) for i in range(n)]
    if text.model_type == "gemma4_text":
        out["head_dim_per_layer"] = [text.per_layer_config[i].head_dim for i in range(n)]
    return out


def temperature_goldens(text: Any) -> dict[str, Any]:
    """Llama 4's attention temperature, read off the queries that reach the attention function."""
    from transformers import AttentionInterface

    mod = modeling("llama4")
    layer = next(i for i, u in enumerate(text.no_rope_layers) if not u)
    small = type(text)(hidden_size=4, num_attention_heads=1, num_key_value_heads=1, head_dim=4,
                       num_hidden_layers=text.num_hidden_layers, no_rope_layers=list(text.no_rope_layers),
                       attn_temperature_tuning=text.attn_temperature_tuning, floor_scale=text.floor_scale,
                       attn_scale=text.attn_scale, attention_chunk_size=text.attention_chunk_size,
                       intermediate_size=8, intermediate_size_mlp=8, vocab_size=8)
    seen: list[float] = []

    def capture(module: Any, query: Any, key: Any, value: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(float(query[0, 0, -1, 0]))
        return torch.zeros(query.shape[0], query.shape[2], query.shape[1], value.shape[-1]), None

    AttentionInterface.register("posenc_capture", capture)
    small._attn_implementation = "posenc_capture"
    attn = mod.Llama4TextAttention(small, layer)
    with torch.no_grad():
        attn.q_proj.weight.fill_(0.25)  # q = 1 for x = ones(4)

    class Cache:  # only what the attention module asks of a cache: the tokens already seen
        def __init__(self, seen_tokens: int):
            self.n = seen_tokens

        def get_seq_length(self, layer_idx: int = 0) -> int:
            return self.n

        def update(self, k: Any, v: Any, layer_idx: int, **kwargs: Any) -> tuple[Any, Any]:
            return k, v

    positions = [0, 1, 8190, 8191, 8192, 16383, 16384, 100000, 1000000, 10000000]
    for p in positions:
        attn(torch.ones(1, 1, 4), None, None, cache=Cache(p))
    return {"layer": layer, "positions": positions, "scale": rnd(seen)}


def mrope_goldens(cfg: Any, text: Any) -> dict[str, Any]:
    """Qwen2.5-VL's get_rope_index on text + two still images (ids of the tokens are what it needs)."""
    mod = modeling("qwen2_5_vl")
    fake = types.SimpleNamespace(config=cfg)
    fake.get_vision_position_ids = lambda *a, **k: mod.Qwen2_5_VLModel.get_vision_position_ids(fake, *a, **k)
    segments = [("text", 3), ("image", (1, 4, 6)), ("text", 2), ("image", (1, 6, 2)), ("text", 4)]
    ids: list[int] = []
    kinds: list[int] = []
    grids = []
    m = cfg.vision_config.spatial_merge_size
    for kind, value in segments:
        if kind == "text":
            ids += [1] * value  # any text token
            kinds += [0] * value
        else:
            t, h, w = value
            count = t * (h // m) * (w // m)
            ids += [cfg.image_token_id] * count
            kinds += [1] * count
            grids.append(list(value))
    pos, delta = mod.Qwen2_5_VLModel.get_rope_index(
        fake, torch.tensor([ids]), torch.tensor([kinds]), image_grid_thw=torch.tensor(grids))
    position_ids = pos[:, 0, :]
    emb = mod.Qwen2_5_VLRotaryEmbedding(text)
    cos, sin = emb(torch.zeros(1), pos)
    n = emb.inv_freq.shape[0]
    keep = slots(n)
    return {"segments": [[k, v if k == "text" else list(v)] for k, v in segments],
            "position_ids": position_ids.tolist(), "delta": int(delta[0, 0]), "slots": keep,
            "cos": rnd(cos[0, :, keep].double()), "sin": rnd(sin[0, :, keep].double())}


def mask_goldens() -> dict[str, Any]:
    """The meaning of a window: transformers' own mask functions, with small sizes (w = 3, c = 4)."""
    from transformers import masking_utils as mu

    n = 10
    rules = {"full": mu.causal_mask_function,
             "sliding": mu.and_masks(mu.causal_mask_function, mu.sliding_window_overlay(3)),
             "chunked": mu.and_masks(mu.causal_mask_function,
                                     mu.chunked_overlay(4, torch.zeros(1, dtype=torch.long)))}
    return {"seq_len": n, "sliding_window": 3, "chunk": 4,
            **{k: [[bool(f(*map(torch.tensor, (0, 0, i, j)))) for j in range(n)] for i in range(n)]
               for k, f in rules.items()}}


def main() -> None:
    cfg_path, out_path, name = sys.argv[1:4]
    with open(cfg_path, encoding="utf-8") as f:
        raw = json.load(f)
    fields = {k: v for k, v in raw.items() if k != "model_type"}
    cfg = AutoConfig.for_model(raw["model_type"], **fields)
    text = cfg.get_text_config()
    gold: dict[str, Any] = {"name": name, "transformers": transformers.__version__,
                            "torch": torch.__version__, "config_class": type(cfg).__name__,
                            "model_type": text.model_type, "layers": layer_goldens(text)}
    kinds = {"sliding_attention", "chunked_attention"} & set(getattr(text, "layer_types", None) or [])
    if kinds or getattr(text, "sliding_window", None):
        gold["masks"] = mask_goldens()
    if text.model_type == "bloom":
        mod = modeling("bloom")
        heads = text.n_head
        mask = torch.ones(1, 2)
        with float64(mod):
            alibi64 = mod.build_alibi_tensor(mask, heads, torch.float64)
        alibi32 = mod.build_alibi_tensor(mask, heads, torch.float32)
        gold["alibi_slopes64"] = rnd(alibi64[:, 0, 1].double())
        gold["alibi_slopes32"] = rnd(alibi32[:, 0, 1].double())
    elif text.model_type == "gptj":
        gold["rope"] = gptj_goldens(text)
    else:
        gold["rope"] = rotary_goldens(text)
    if text.model_type == "deepseek_v2":
        mod = modeling("deepseek_v2")
        with torch.device("meta"):
            attn = mod.DeepseekV2Attention(text, 0)
        gold["softmax_scale"] = attn.scaling
        gold["qk_head_dim"] = attn.qk_head_dim
        gold["softmax_scale_factor"] = attn.scaling * math.sqrt(attn.qk_head_dim)
    if text.model_type == "llama4_text":
        gold["temperature"] = temperature_goldens(text)
    if text.model_type == "qwen2_5_vl_text":
        gold["mrope"] = mrope_goldens(cfg, text)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(gold, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
