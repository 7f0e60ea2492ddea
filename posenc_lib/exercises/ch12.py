"""Exercise checkers for chapter 12 (choosing a position encoding)."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from .. import catalogue as _catalogue
from ._core import TODO_MESSAGE, Diagnosis, Report, call_student, run_checks

__all__ = ["check_acts_where", "check_position_params"]

# -- exercise 1: where does a layer inject position? ------------------------------------------

_WHERE_HINTS: dict[tuple[str, str], str] = {
    ("queries-keys", "input"):
        "a RoPE-like layer only rotates what is there: feed x = 0 and its logits vanish for "
        "every position list. Test the zero input before comparing position effects.",
    ("queries-keys", "scores"):
        "a RoPE-like layer only rotates what is there: feed x = 0 and its logits vanish for "
        "every position list. Test the zero input before comparing position effects.",
    ("input", "scores"):
        "an encoding added to the input also gives non-zero logits at x = 0, just like a "
        "bias. Tell them apart by whether the position effect depends on the content: compare "
        "layer(x, p) - layer(0, p) for two position lists p.",
    ("scores", "input"):
        "a bias added to the scores shifts the logits by the same matrix whatever the tokens: "
        "layer(x, p) - layer(0, p) is the same for every position list p. Use a tolerance "
        "(np.allclose), not ==, to compare.",
    ("input", "queries-keys"):
        "an added encoding still produces logits at x = 0 (PE meets PE inside W_Q and W_K): "
        "check that layer(0, p) is really all zeros, for two position lists.",
    ("scores", "queries-keys"):
        "a bias on the scores is there even when x = 0: check that layer(0, p) is really all "
        "zeros before answering 'queries-keys'.",
}
_NOWHERE_HINT = ("the logits did change with the positions here. If you compared p with p + c, "
                 "a relative scheme cannot see that: use two position lists whose pairwise "
                 "distances differ, such as [0, 1, 2, ...] and [0, 2, 5, 9, ...].")
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
             _catalogue.method("nope" if scheme == "none" else scheme).acts_on)
            for name, scheme, seed, slope in cases]


def check_acts_where(student: Callable[[Callable[..., Any]], Any]) -> Report:
    """Exercise: ``acts_where(layer)`` returns where ``layer(x, positions)`` injects position.

    ``layer`` takes ``x`` of shape ``(L, 16)`` and ``L`` integer positions in ``0 .. 63`` and
    returns the ``(L, L)`` logits. The answer must be one of :data:`posenc_lib.catalogue.WHERE`.
    Case names reveal the scheme only in the report, after the learner's function has run.
    """
    title = "acts_where"
    if not callable(student):
        raise TypeError(f"pass your function itself (without calling it), got {student!r}")
    cases = _where_cases()
    passed, messages, hints_given = 0, [], set()
    for name, layer, expected in cases:
        status, got = call_student(student, (layer,))
        if status == "todo":
            return Report(title, 0, len(cases), [TODO_MESSAGE])
        if status == "raised":
            messages.append(f"{name}: your function raised {got}")
            continue
        if got is None or got is Ellipsis:
            return Report(title, 0, len(cases),
                          ["Not implemented yet: replace `...` with code that returns one of "
                           + ", ".join(repr(w) for w in _catalogue.WHERE) + "."])
        if got == expected:
            passed += 1
            continue
        if got not in _catalogue.WHERE:
            messages.append(f"{name}: got {got!r}; return one of "
                            + ", ".join(repr(w) for w in _catalogue.WHERE) + ".")
            continue
        if expected == "nowhere":
            hint = _MISSED_NOWHERE_HINT
        elif got == "nowhere":
            hint = _NOWHERE_HINT
        else:
            hint = _WHERE_HINTS.get((expected, got), "")
        text = f"{name}: you said {got!r}, the layer acts on {expected!r}."
        if hint and hint not in hints_given:
            text += " Hint: " + hint
            hints_given.add(hint)
        messages.append(text)
    return Report(title, passed, len(cases), messages)


# -- exercise 2: counting learned position parameters ----------------------------------------

_SHAW_K, _T5_BUCKETS = 16, 32


def _params_ref(scheme: str, max_len: int, d: int, n_heads: int, n_layers: int) -> int:
    return _catalogue.position_parameters(scheme, max_len, d, n_heads, n_layers,
                                          shaw_k=_SHAW_K, t5_buckets=_T5_BUCKETS)


def _except(scheme: str, wrong: Callable[..., int]) -> Callable[..., int]:
    """The reference everywhere except for ``scheme``, where ``wrong`` answers."""
    def fn(s: str, max_len: int, d: int, h: int, layers: int) -> int:
        return wrong(max_len, d, h, layers) if s == scheme else _params_ref(s, max_len, d, h,
                                                                           layers)
    return fn


def check_position_params(student: Callable[[str, int, int, int, int], Any]) -> Report:
    """Exercise: ``position_params(scheme, max_len, d, n_heads, n_layers)``, learned parameters.

    Schemes: ``"sinusoidal"``, ``"learned"``, ``"shaw"`` (clipping distance 16, key and value
    tables per layer), ``"t5"`` (32 buckets per head), ``"rope"``, ``"alibi"``; one decoder
    stack of ``n_layers`` layers.
    """
    cases = [
        ("learned, BERT-base size (512, 768, 12 heads, 12 layers)", ("learned", 512, 768, 12, 12)),
        ("learned, GPT-2 small size (1024, 768, 12, 12)", ("learned", 1024, 768, 12, 12)),
        ("t5, T5-base decoder size (512, 768, 12, 12)", ("t5", 512, 768, 12, 12)),
        ("shaw, Transformer-base size (512, 512, 8 heads, 6 layers)", ("shaw", 512, 512, 8, 6)),
        ("rope, LLaMA-7B size (2048, 4096, 32, 32)", ("rope", 2048, 4096, 32, 32)),
        ("alibi, (2048, 4096, 32, 32)", ("alibi", 2048, 4096, 32, 32)),
        ("sinusoidal, Transformer-base size (512, 512, 8, 6)", ("sinusoidal", 512, 512, 8, 6)),
    ]
    if not callable(student):
        raise TypeError(f"pass your function itself (without calling it), got {student!r}")
    status, first = call_student(student, cases[0][1])  # an exception is reported per case
    if status == "todo" or (status == "ok" and (first is None or first is Ellipsis)):
        return Report("position_params", 0, len(cases),
                      ["Not implemented yet: replace `...` with code that returns a number."])

    def numeric(*args: Any) -> Any:
        got = student(*args)
        if isinstance(got, bool) or not isinstance(got, numbers.Real):
            raise TypeError(f"return a number of parameters, got {got!r}")
        return got

    k2 = 2 * _SHAW_K + 1
    diagnoses = [
        Diagnosis(_except("t5", lambda L, d, h, n: n * h * _T5_BUCKETS),
                  "T5 computes its bias table once and shares it with every layer of the "
                  "stack: H x 32, not H x 32 per layer."),
        Diagnosis(_except("shaw", lambda L, d, h, n: n * k2 * (d // h)),
                  "Shaw et al. learn two tables per layer: one added to the keys and one to "
                  "the values."),
        Diagnosis(_except("shaw", lambda L, d, h, n: n * 2 * k2 * d),
                  "Shaw et al.'s relative vectors have the size of one head, d/H, and the "
                  "heads of a layer share them."),
        Diagnosis(_except("shaw", lambda L, d, h, n: n * 2 * (2 * _SHAW_K) * (d // h)),
                  "offsets -k ... k are 2k + 1 values: count the offset 0 too."),
        Diagnosis(_except("shaw", lambda L, d, h, n: 2 * k2 * (d // h)),
                  "each layer has its own Shaw tables: multiply by the number of layers."),
        Diagnosis(_except("rope", lambda L, d, h, n: d // 2),
                  "RoPE's frequencies theta_i are computed from a formula, not learned: RoPE "
                  "adds no parameters."),
        Diagnosis(_except("rope", lambda L, d, h, n: (d // h) // 2),
                  "RoPE's frequencies theta_i are computed from a formula, not learned: RoPE "
                  "adds no parameters."),
        Diagnosis(_except("alibi", lambda L, d, h, n: h),
                  "ALiBi's slopes are fixed before training (2^(-8h/H)): nothing is learned."),
        Diagnosis(_except("alibi", lambda L, d, h, n: n * h),
                  "ALiBi's slopes are fixed before training (2^(-8h/H)): nothing is learned."),
        Diagnosis(_except("learned", lambda L, d, h, n: n * L * d),
                  "the learned table is added once, to the input embeddings, not in every "
                  "layer."),
        Diagnosis(_except("sinusoidal", lambda L, d, h, n: L * d),
                  "the sinusoids are computed from a formula: a fixed table, nothing learned."),
    ]
    return run_checks("position_params", numeric, _params_ref, cases, diagnoses)
