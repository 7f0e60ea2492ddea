"""Exercise checkers for chapter 12 (choosing a position encoding)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import catalogue as _catalogue
from ._core import TODO_MESSAGE, Report, call_student

__all__ = ["check_acts_where", "check_position_params"]

_WHERE_LIST = ", ".join(repr(w) for w in _catalogue.WHERE)
_SAME = "the same problem as above."


class _Messages:
    """Messages of a report, each said in full once; a repeat gets a short reference instead."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._said: set[str] = set()

    def add(self, name: str, text: str, short: str = _SAME, key: str | None = None) -> None:
        key = text if key is None else key
        self.lines.append(f"{name}: {short}" if key in self._said else f"{name}: {text}")
        self._said.add(key)


def _all_none_report(title: str, total: int, returns: str) -> Report:
    return Report(title, 0, total,
                  [f"Your function returned None: replace `...` with code that returns "
                   f"{returns} (did you forget `return`?)."])


_NONE_HERE = ("your function returned None here: a path through it ends without a `return` "
              "(the other cases did return something).")


# -- exercise 1: where does a layer inject position? ------------------------------------------

_ZERO_HINT = ("a RoPE-like layer only rotates what is there: feed x = 0 and its logits vanish "
              "for every position list. Test the zero input before comparing position effects.")
_WHERE_HINTS: dict[tuple[str, str], str] = {
    ("queries-keys", "input"): _ZERO_HINT,
    ("queries-keys", "scores"): _ZERO_HINT,
    ("input", "scores"):
        "an encoding added to the input also gives non-zero logits at x = 0, just like a "
        "bias. Tell them apart by whether the position effect depends on the content: compare "
        "layer(x, p) - layer(0, p) for two position lists p.",
    ("scores", "input"):
        "a bias added to the scores shifts the logits by the same matrix whatever the tokens: "
        "layer(x, p) - layer(0, p) is the same for every position list p. Test exactly that, "
        "with a tolerance (np.allclose; == fails on rounding errors). A property of layer(0, p) "
        "alone, such as a zero diagonal, cannot tell a bias from an added encoding.",
    ("input", "queries-keys"):
        "an added encoding still produces logits at x = 0 (PE meets PE inside W_Q and W_K): "
        "check that layer(0, p) is really all zeros, for two position lists.",
    ("scores", "queries-keys"):
        "a bias on the scores is there even when x = 0: check that layer(0, p) is really all "
        "zeros before answering 'queries-keys'.",
}
_NOWHERE_HINT = ("the logits did change with the positions here. A relative scheme cannot see "
                 "some changes: a shift p -> p + c keeps every distance; reversing the list "
                 "keeps every |j - i|, and a symmetric bias (the ALiBi layers here use "
                 "-m|j - i|) sees nothing else; and with a single token there is only one "
                 "logit, at distance 0. Use "
                 "several tokens and two position lists whose distances |j - i| differ, such as "
                 "[0, 1, 2, ...] and [0, 2, 5, 9, ...].")
_MISSED_NOWHERE_HINT = ("this layer ignores its positions: the logits are identical for two "
                        "different position lists. Check that first and answer 'nowhere'.")


def _where_cases() -> list[tuple[str, Callable[..., Any], str]]:
    layer = _catalogue.position_layer
    cases = [  # (name shown in the report, scheme, seed, slope)
        ("layer A (NoPE)", "none", 1, 0.25),
        ("layer B (sinusoidal)", "sinusoidal", 2, 0.25),
        ("layer C (learned table)", "learned", 3, 0.25),
        ("layer D (RoPE)", "rope", 4, 0.25),
        ("layer E (ALiBi)", "alibi", 5, 0.25),
        ("layer F (T5)", "t5", 6, 0.25),
        ("layer G (RoPE, another draw)", "rope", 7, 0.25),
        ("layer H (ALiBi, slope 1)", "alibi", 8, 1.0),
    ]
    return [(name, layer(scheme, seed=seed, slope=slope),
             _catalogue.method(scheme).acts_on)
            for name, scheme, seed, slope in cases]


def check_acts_where(student: Callable[[Callable[..., Any]], Any]) -> Report:
    """Exercise: ``acts_where(layer)`` returns where ``layer(x, positions)`` injects position.

    ``layer`` takes ``x`` of shape ``(L, 16)`` and ``L`` integer positions in ``0 .. 63`` and
    returns the ``(L, L)`` logits. The answer must be one of :data:`posenc_lib.course.catalogue.WHERE`.
    Case names reveal the scheme only in the report, after the learner's function has run. A
    function that returns None for some layers only gets a message for those layers; a message
    that would repeat (the same exception on every layer, say) is written out once.
    """
    title = "acts_where"
    if not callable(student):
        raise TypeError(f"pass your function itself (without calling it), got {student!r}")
    cases = _where_cases()
    results = []
    for name, layer, expected in cases:
        status, got = call_student(student, (layer,))
        if status == "todo":
            return Report(title, 0, len(cases), [TODO_MESSAGE])
        results.append((name, expected, status, got))
    if all(status == "ok" and (got is None or got is Ellipsis)
           for _, _, status, got in results):
        return _all_none_report(title, len(cases), f"one of {_WHERE_LIST}")
    passed, out = 0, _Messages()
    for name, expected, status, got in results:
        if status == "raised":
            out.add(name, f"your function raised {got}")
            continue
        if got is None or got is Ellipsis:
            out.add(name, _NONE_HERE, "your function returned None here too.")
            continue
        if isinstance(got, str) and got == expected:
            passed += 1
            continue
        if not isinstance(got, str) or got not in _catalogue.WHERE:
            out.add(name, f"got {got!r}; return one of {_WHERE_LIST} (a string).",
                    f"got {got!r} (the same problem as above).",
                    key="type" if not isinstance(got, str) else f"str:{got}")
            continue
        if expected == "nowhere":
            hint = _MISSED_NOWHERE_HINT
        elif got == "nowhere":
            hint = _NOWHERE_HINT
        else:
            hint = _WHERE_HINTS.get((expected, got), "")
        text = f"you said {got!r}, the layer acts on {expected!r}."
        out.add(name, text + (" Hint: " + hint if hint else ""),
                text + (" (Same hint as above.)" if hint else ""), key=hint or text)
    return Report(title, passed, len(cases), out.lines)


# -- exercise 2: counting learned position parameters ----------------------------------------

_T5_BUCKETS = 32


def _params_ref(scheme: str, max_len: int, d: int, n_heads: int, n_layers: int, k: int) -> int:
    return _catalogue.position_parameters(scheme, max_len, d, n_heads, n_layers,
                                          shaw_k=k, t5_buckets=_T5_BUCKETS)


#: The cases, as (name, (scheme, max_len, d, n_heads, n_layers, k)). Heads and layers differ in
#: most of them, so that a count using the wrong one fails; the Shaw cases use two clipping
#: distances and two head sizes (64 and 96), so that a hard-coded k or head size fails.
_PARAM_CASES: list[tuple[str, tuple[str, int, int, int, int, int]]] = [
    ("learned, BERT-base size (512, 768, 12 heads, 12 layers)",
     ("learned", 512, 768, 12, 12, 16)),
    ("learned, GPT-2 small size (1024, 768, 12, 12)", ("learned", 1024, 768, 12, 12, 16)),
    ("learned, Transformer-base size (512, 512, 8 heads, 6 layers)",
     ("learned", 512, 512, 8, 6, 16)),
    ("t5, T5-base decoder size (512, 768, 12 heads, 12 layers)", ("t5", 512, 768, 12, 12, 16)),
    ("t5, T5-small decoder size (512, 512, 8 heads, 6 layers)", ("t5", 512, 512, 8, 6, 16)),
    ("shaw, Transformer-base size (512, 512, 8 heads, 6 layers, k = 16)",
     ("shaw", 512, 512, 8, 6, 16)),
    ("shaw, Transformer-big size (1024, 1024, 16 heads, 6 layers, k = 8)",
     ("shaw", 1024, 1024, 16, 6, 8)),
    ("shaw, heads of 96 (512, 768, 8 heads, 12 layers, k = 16)",
     ("shaw", 512, 768, 8, 12, 16)),
    ("rope, LLaMA-7B size (2048, 4096, 32 heads, 32 layers)", ("rope", 2048, 4096, 32, 32, 16)),
    ("alibi, BLOOM-7B1 size (2048, 4096, 32 heads, 30 layers)",
     ("alibi", 2048, 4096, 32, 30, 16)),
    ("sinusoidal, Transformer-base size (512, 512, 8, 6)", ("sinusoidal", 512, 512, 8, 6, 16)),
]

_ROPE_HINT = ("RoPE's frequencies theta_i are computed from a formula, not learned: RoPE adds no "
              "parameters.")
_ALIBI_HINT = "ALiBi's slopes are fixed before training (2^(-8h/H)): nothing is learned."
_SHAW_FULL_HINT = (
    "2(2k+1)·d per layer is what you get with vectors of the full width d, or with a separate "
    "pair of tables for every head (H heads × d/H each), as in Shaw et al.'s base model. This "
    "exercise, like chapter 7's shared option, counts tables shared by the heads of a layer, "
    "each vector of one head's size d/H.")

_Wrong = Callable[[int, int, int, int, int], int]

#: Typical wrong counts: (scheme, wrong count as a function of (L, d, H, layers, k), hint).
_PARAM_MISTAKES: list[tuple[str, _Wrong, str]] = [
    ("t5", lambda L, d, h, n, k: n * h * _T5_BUCKETS,
     "T5 computes its bias table once and shares it with every layer of the stack: H x 32, not "
     "H x 32 per layer."),
    ("t5", lambda L, d, h, n, k: n * _T5_BUCKETS,
     "T5 learns one scalar per head and bucket: use the number of heads, not of layers."),
    ("t5", lambda L, d, h, n, k: 2 * h * _T5_BUCKETS,
     "count one stack: T5's encoder and decoder each have their own table, and the exercise "
     "asks for one decoder stack."),
    ("t5", lambda L, d, h, n, k: h * _T5_BUCKETS * (d // h),
     "T5's bias is one scalar per head and bucket, not a vector."),
    ("shaw", lambda L, d, h, n, k: n * (2 * k + 1) * (d // h),
     "Shaw et al. learn two tables per layer: one added to the keys and one to the values."),
    ("shaw", lambda L, d, h, n, k: n * 2 * (2 * k + 1) * d, _SHAW_FULL_HINT),
    ("shaw", lambda L, d, h, n, k: n * 2 * (2 * k + 1) * d * h,
     "the vectors have one head's size d/H, not d, and the heads of a layer share them."),
    ("shaw", lambda L, d, h, n, k: n * 2 * (2 * k) * (d // h),
     "offsets -k ... k are 2k + 1 values: count the offset 0 too."),
    ("shaw", lambda L, d, h, n, k: n * 2 * (k + 1) * (d // h),
     "offsets run from -k to +k: 2k + 1 of them, since j - i can be negative."),
    ("shaw", lambda L, d, h, n, k: n * 2 * (2 * 16 + 1) * (d // h),
     "use the clipping distance k your function receives: this case has k = 8 (Shaw et al.'s "
     "big model), not 16."),
    ("shaw", lambda L, d, h, n, k: n * 2 * (2 * 8 + 1) * (d // h),
     "use the clipping distance k your function receives: 8 is the big model's, this case has "
     "k = 16."),
    ("shaw", lambda L, d, h, n, k: n * 2 * (2 * k + 1) * 64,
     "one head's size is d/H: 64 in both of Shaw et al.'s models, but not in this case. "
     "Compute it from d and H."),
    ("shaw", lambda L, d, h, n, k: 2 * (2 * k + 1) * (d // h),
     "each layer has its own Shaw tables: multiply by the number of layers."),
    ("shaw", lambda L, d, h, n, k: h * 2 * (2 * k + 1) * (d // n),
     "you swapped the number of heads and the number of layers."),
    ("rope", lambda L, d, h, n, k: d // 2, _ROPE_HINT),
    ("rope", lambda L, d, h, n, k: (d // h) // 2, _ROPE_HINT),
    ("rope", lambda L, d, h, n, k: n * (d // h) // 2, _ROPE_HINT),
    ("alibi", lambda L, d, h, n, k: h, _ALIBI_HINT),
    ("alibi", lambda L, d, h, n, k: n * h, _ALIBI_HINT),
    ("learned", lambda L, d, h, n, k: n * L * d,
     "the learned table is added once, to the input embeddings, not in every layer."),
    ("learned", lambda L, d, h, n, k: h * L * d,
     "the learned table is one table for the whole model, not one per head: each position "
     "has one row of the model's full width d."),
    ("learned", lambda L, d, h, n, k: L * (d // h),
     "the learned table holds one vector of the model's full width d per position, not of one "
     "head's width."),
    ("sinusoidal", lambda L, d, h, n, k: L * d,
     "the sinusoids are computed from a formula: a fixed table, nothing learned."),
]


def _as_count(got: Any) -> tuple[float | None, str]:
    """The learner's result as a float (None if it is not a single real number) and its kind."""
    if isinstance(got, (bool, np.bool_)):
        return None, "a bool"
    if isinstance(got, numbers.Integral):
        return float(int(got)), "int"
    if isinstance(got, numbers.Real):
        return float(got), "float"
    if isinstance(got, np.ndarray) and got.ndim == 0 and got.dtype.kind in "iuf":
        return float(got), "int" if got.dtype.kind in "iu" else "float"
    if isinstance(got, np.ndarray):
        return None, f"an array of shape {got.shape}"
    return None, f"a {type(got).__name__}"


def _explaining(matched: list[tuple[_Wrong, str]], scheme: str,
                counts: dict[tuple[Any, ...], int]) -> list[str]:
    """The hints of ``matched`` mistakes, keeping, when several match, those that also reproduce
    the learner's counts in the other cases of the same scheme (so that a coincidence in one
    case, such as 2(k+1) for k = 16 = 2(2k+1) for k = 8, does not give a wrong hint)."""
    if len(matched) > 1:
        others = [(args, c) for args, c in counts.items() if args[0] == scheme]
        consistent = [(w, h) for w, h in matched
                      if all(w(*args[1:]) == c for args, c in others)]
        if consistent:
            matched = consistent
    return list(dict.fromkeys(h for _, h in matched))


def check_position_params(student: Callable[..., Any]) -> Report:
    """Exercise: ``position_params(scheme, max_len, d, n_heads, n_layers, k)``, learned parameters.

    Schemes: ``"sinusoidal"``, ``"learned"``, ``"shaw"`` (clipping distance ``k``, a key and a
    value table per layer, vectors of one head's size shared by the heads), ``"t5"`` (32
    buckets per head), ``"rope"``, ``"alibi"``; one decoder stack of ``n_layers`` layers. ``k``
    is passed as the sixth positional argument in every case (16, or 8 for the big model).

    A count is compared exactly. A float with a whole value (``25344.0``) passes with a note; a
    value that is not a whole number, NaN or inf does not. When several typical mistakes explain
    one wrong count, the hint keeps those that also explain the other cases of that scheme.
    """
    title = "position_params"
    if not callable(student):
        raise TypeError(f"pass your function itself (without calling it), got {student!r}")
    results = []
    for name, args in _PARAM_CASES:
        status, got = call_student(student, args)
        if status == "todo":
            return Report(title, 0, len(_PARAM_CASES), [TODO_MESSAGE])
        results.append((name, args, status, got))
    if all(status == "ok" and (got is None or got is Ellipsis) for *_, status, got in results):
        return _all_none_report(title, len(_PARAM_CASES), "the number of parameters")
    # first pass: every whole-number count, for the cross-case diagnosis
    counts: dict[tuple[Any, ...], int] = {}
    for _, args, status, got in results:
        if status == "ok":
            value, _ = _as_count(got)
            if value is not None and math.isfinite(value) and value == math.floor(value):
                counts[args] = int(value)
    passed, out, notes = 0, _Messages(), []
    for name, args, status, got in results:
        expected = _params_ref(*args)
        if status == "raised":
            out.add(name, f"your function raised {got}")
            continue
        if got is None or got is Ellipsis:
            out.add(name, _NONE_HERE + (" Which schemes have no learned parameters?"
                                        if expected == 0 else ""),
                    "your function returned None here too.", key="none")
            continue
        value, kind = _as_count(got)
        if value is None:
            out.add(name, f"your function returned {kind}; return a number of parameters "
                    "(an int).")
            continue
        if not math.isfinite(value):
            out.add(name, f"your function returned {value}; a number of parameters is a finite "
                    "whole number.")
            continue
        if value != math.floor(value):
            out.add(name, f"got {value}, which is not a whole number. A number of parameters is "
                    "one: did a division (/) leave a fraction, or did you add something that is "
                    "not a count?", f"got {value}, not a whole number either.", key="fraction")
            continue
        count = int(value)
        if count == expected:
            passed += 1
            if kind == "float":
                note = ("your function returns a float with a whole value (accepted). A number "
                        "of parameters is an integer: use // for d/H, or int(...).")
                if note not in notes:
                    notes.append(note)
            continue
        matched = [(wrong, hint) for scheme, wrong, hint in _PARAM_MISTAKES
                   if scheme == args[0] and wrong(*args[1:]) == count]
        if matched:
            text = " Or: ".join(_explaining(matched, args[0], counts))
            out.add(name, f"got {count:,}. Hint: {text}",
                    f"got {count:,} (the same mistake as above).", key=text)
            continue
        out.add(name, f"expected {expected:,}, got {count:,}.")
    return Report(title, passed, len(_PARAM_CASES), out.lines, notes)
