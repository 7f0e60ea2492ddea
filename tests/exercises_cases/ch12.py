"""Chapter 12: where a layer injects position, and what position costs in parameters."""

import numpy as np


# -- exercise 1: acts_where ------------------------------------------------------------------
def _logits(layer, x, p):
    return np.asarray(layer(x, np.asarray(p)), dtype=float)


def acts_where(layer):
    """Written from scratch: other tokens, other lengths and other position lists than the
    library's probe."""
    x = np.random.default_rng(123).standard_normal((5, 16))
    zero = np.zeros_like(x)
    a, b = [0, 1, 2, 3, 4], [3, 4, 10, 30, 31]
    if np.allclose(_logits(layer, x, a), _logits(layer, x, b)):
        return "nowhere"
    if np.allclose(_logits(layer, zero, a), 0) and np.allclose(_logits(layer, zero, b), 0):
        return "queries-keys"
    effect_a = _logits(layer, x, a) - _logits(layer, zero, a)
    effect_b = _logits(layer, x, b) - _logits(layer, zero, b)
    return "scores" if np.allclose(effect_a, effect_b) else "input"


def _shift_probe(layer):
    """Compares p with p + 10: a relative layer looks as if it ignored its positions."""
    x = np.random.default_rng(0).standard_normal((6, 16))
    p = np.arange(6)
    if np.allclose(_logits(layer, x, p), _logits(layer, x, p + 10)):
        return "nowhere"
    return acts_where(layer)


def _no_zero_probe(layer):
    """Forgets the zero input: RoPE is filed with the encodings that mix with the content."""
    x = np.random.default_rng(0).standard_normal((6, 16))
    zero = np.zeros_like(x)
    p, q = np.arange(6), np.array([0, 2, 5, 9, 14, 20])
    if np.allclose(_logits(layer, x, p), _logits(layer, x, q)):
        return "nowhere"
    if np.allclose(_logits(layer, x, p) - _logits(layer, zero, p),
                   _logits(layer, x, q) - _logits(layer, zero, q)):
        return "scores"
    return "input"


def _exact_equality(layer):
    """Uses == (array_equal) where rounding errors need a tolerance."""
    x = np.random.default_rng(0).standard_normal((6, 16))
    zero = np.zeros_like(x)
    p, q = np.arange(6), np.array([0, 2, 5, 9, 14, 20])
    if np.array_equal(_logits(layer, x, p), _logits(layer, x, q)):
        return "nowhere"
    if not _logits(layer, zero, p).any() and not _logits(layer, zero, q).any():
        return "queries-keys"
    if np.array_equal(_logits(layer, x, p) - _logits(layer, zero, p),
                      _logits(layer, x, q) - _logits(layer, zero, q)):
        return "scores"
    return "input"


def _zero_diagonal(layer):
    """Tells a bias from an input encoding by the diagonal of layer(0, p) (true for ALiBi only)."""
    x = np.random.default_rng(0).standard_normal((6, 16))
    zero = np.zeros_like(x)
    p, q = np.arange(6), np.array([0, 2, 5, 9, 14, 20])
    if np.allclose(_logits(layer, x, p), _logits(layer, x, q)):
        return "nowhere"
    e0 = _logits(layer, zero, p)
    if np.allclose(e0, 0):
        return "queries-keys"
    return "scores" if np.allclose(np.diag(e0), 0) else "input"


def _one_token(layer):
    """A single token: one logit, at distance 0, which no relative scheme changes."""
    x = np.ones((1, 16))
    if np.allclose(_logits(layer, x, [0]), _logits(layer, x, [5])):
        return "nowhere"
    return "input"


def _reversed_list(layer):
    """Compares p with p reversed: a symmetric bias (this ALiBi, -m|j - i|) cannot see it."""
    x = np.random.default_rng(0).standard_normal((6, 16))
    p = np.arange(6)
    if np.allclose(_logits(layer, x, p), _logits(layer, x, p[::-1])):
        return "nowhere"
    return acts_where(layer)


def _forgot_return(layer):
    acts_where(layer)


def _none_for_scores(layer):
    """A forgotten `return` in one branch only: the 'scores' layers get None."""
    answer = acts_where(layer)
    if answer != "scores":
        return answer


def _always_raises(layer):
    raise RuntimeError("boom")


# -- exercise 2: position_params --------------------------------------------------------------
def position_params(scheme, max_len, d, n_heads, n_layers, k=16):
    """Counted table by table, with plain Python."""
    buckets = 32
    head = d // n_heads
    if scheme == "learned":
        return max_len * d                                # one row of width d per position
    if scheme == "shaw":
        tables_per_layer = 2                              # keys and values
        return n_layers * tables_per_layer * (2 * k + 1) * head
    if scheme == "t5":
        return n_heads * buckets                          # one table for the whole stack
    return 0


def _except(scheme, wrong):
    def fn(s, max_len, d, n_heads, n_layers, k=16):
        if s == scheme:
            return wrong(max_len, d, n_heads, n_layers, k)
        return position_params(s, max_len, d, n_heads, n_layers, k)
    return fn


def _no_return_for_free_schemes(scheme, max_len, d, n_heads, n_layers, k=16):
    """Forgets the final `return 0`: None for the parameter-free schemes."""
    if scheme in ("learned", "shaw", "t5"):
        return position_params(scheme, max_len, d, n_heads, n_layers, k)


CASES = {
    "check_acts_where": {
        "correct": acts_where,
        "wrong": [
            (_shift_probe, "a shift p -> p + c keeps every distance"),
            (_reversed_list, "reversing the list keeps every |j - i|"),
            (_no_zero_probe, "feed x = 0 and its logits vanish"),
            (_exact_equality, "== fails on rounding errors"),
            (_zero_diagonal, "such as a zero diagonal"),
            (_one_token, "with a single token there is only one logit"),
            (_forgot_return, "did you forget `return`"),
            (_none_for_scores, "layer E (ALiBi): your function returned None here"),
            (_always_raises, "layer B (sinusoidal): the same problem as above"),
            (lambda layer: "input", "this layer ignores its positions"),
            (lambda layer: acts_where(layer).replace("-", "_"), "return one of"),
        ],
    },
    "check_position_params": {
        "correct": position_params,
        "wrong": [
            (_except("t5", lambda L, d, h, n, k: n * h * 32), "shares it with every layer"),
            (_except("t5", lambda L, d, h, n, k: n * 32), "the number of heads, not of layers"),
            (_except("t5", lambda L, d, h, n, k: 2 * h * 32), "count one stack"),
            (_except("shaw", lambda L, d, h, n, k: n * 2 * (2 * k + 1) * (d // h) * h),
             "a separate pair of tables for every head"),
            (_except("shaw", lambda L, d, h, n, k: n * (2 * k + 1) * (d // h)),
             "one added to the keys and one to the values"),
            (_except("shaw", lambda L, d, h, n, k: n * 2 * 2 * k * (d // h)),
             "count the offset 0"),
            (_except("shaw", lambda L, d, h, n, k: n * 2 * (k + 1) * (d // h)),
             "since j - i can be negative"),
            (_except("shaw", lambda L, d, h, n, k: n * 2 * 17 * (d // h)),
             "8 is the big model's"),
            (_except("shaw", lambda L, d, h, n, k: n * 2 * 33 * (d // h)),
             "this case has k = 8"),
            (_except("shaw", lambda L, d, h, n, k: n * 2 * (2 * k + 1) * 64),
             "compute it from d and h"),
            (_except("learned", lambda L, d, h, n, k: n * L * d), "not in every layer"),
            (_except("learned", lambda L, d, h, n, k: h * L * d), "not one per head"),
            (_except("rope", lambda L, d, h, n, k: d // 2), "RoPE adds no parameters"),
            (_except("alibi", lambda L, d, h, n, k: n * h), "fixed before training"),
            (_no_return_for_free_schemes, "Which schemes have no learned parameters?"),
            (lambda *a: position_params(*a) + 0.5, "is not a whole number"),
            (lambda *a: float("nan"), "finite whole number"),
            (lambda *a: str(position_params(*a)), "return a number of parameters"),
            (lambda *a: None, "did you forget `return`"),
        ],
        "notes": [
            (lambda *a: float(position_params(*a)), "a float with a whole value"),
            (lambda *a: np.float64(position_params(*a)), "use // for d/H"),
        ],
    },
}
