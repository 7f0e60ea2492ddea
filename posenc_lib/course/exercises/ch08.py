"""Exercise checkers for chapter 8 (RoPE)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...maths import encodings as _encodings
from ...maths import rope as _rope
from ._core import Diagnosis, Report, run_checks

__all__ = ["check_rope_half", "check_to_rotate_half", "check_to_rotate_half_weight",
           "convert_weight_loop"]

# An answer computed in float32 is off by up to a few 1e-6 at the positions used here (angles
# up to 40 rad): accepted. Every typical mistake below is off by more than 1e-2.
_ROPE_TOL = 1e-5


def _theta(d: int, base: float, exponent: Callable[[np.ndarray, int], np.ndarray] | None = None
           ) -> np.ndarray:
    i = np.arange(d // 2)
    return base ** (-(2.0 * i / d if exponent is None else exponent(i, d)))


def _angles16(positions: np.ndarray, d: int, base: float) -> np.ndarray:
    """pos * theta with theta and the product in float16 (a low-precision recipe)."""
    theta = np.float16(base) ** (-2 * np.arange(d // 2, dtype=np.float16) / np.float16(d))
    return np.asarray(positions, dtype=np.float16)[:, None] * theta


def _half(x: np.ndarray, ang: np.ndarray, *, layout: str = "concatenate",
          swap_sin_cos: bool = False, minus: bool = True, dtype: type = np.float64) -> np.ndarray:
    """Rotate-half RoPE for angles ``(seq, d/2)``: ``x * cos + [-x2, x1] * sin``.

    ``layout="repeat"`` lays cos/sin out as ``[c0, c0, c1, c1, …]`` (the adjacent-pairs layout)
    instead of ``[c0, c1, …, c0, c1, …]``; ``swap_sin_cos`` exchanges the two tables;
    ``minus=False`` forgets the sign of ``-x2``; ``dtype`` is the type cos and sin are taken in.
    """
    h = x.shape[-1] // 2
    ang = np.asarray(ang).astype(dtype)
    if layout == "repeat":
        cos, sin = np.repeat(np.cos(ang), 2, axis=-1), np.repeat(np.sin(ang), 2, axis=-1)
    else:
        cos = np.concatenate([np.cos(ang), np.cos(ang)], axis=-1)
        sin = np.concatenate([np.sin(ang), np.sin(ang)], axis=-1)
    if swap_sin_cos:
        cos, sin = sin, cos
    rotated = np.concatenate([-x[..., h:] if minus else x[..., h:], x[..., :h]], axis=-1)
    return x * cos + rotated * sin


def check_rope_half(student: Callable[..., Any]) -> Report:
    """Exercise: ``rope_half(x, positions, base)``, RoPE with the rotate-half pairing.

    Answers computed in float32 pass (tolerance 1e-5).
    """
    rng = np.random.default_rng(8)
    cases = [
        ("d=4, positions 0..4", (rng.standard_normal((5, 4)), np.arange(5.0), 10000.0)),
        # base 2000, not 1000: 1000 ** (-2i/6) = 10 ** -i = 10000 ** (-2i/8) would make a
        # theta built with np.linspace(0, 1, d // 2) look like an ignored base here
        ("d=8, positions 0..9, base 2000",
         (rng.standard_normal((10, 8)), np.arange(10.0), 2000.0)),
        ("d=16, positions 3, 17, 40, base 500",
         (rng.standard_normal((3, 16)), np.array([3.0, 17.0, 40.0]), 500.0)),
        # 5 rows, so that the number of rows is none of d, d/2, d - 2: a d taken from the wrong
        # axis differs from every other mistake here
        ("d=6, positions 7, 2, 11, 5, 0",
         (rng.standard_normal((5, 6)), np.array([7.0, 2.0, 11.0, 5.0, 0.0]), 10000.0)),
    ]

    def ref(x: np.ndarray, pos: np.ndarray, base: float) -> np.ndarray:
        return _rope.apply(x, pos, base, pairing="half")

    def with_theta(exponent: Callable[[np.ndarray, int], np.ndarray]) -> Callable[..., Any]:
        return lambda x, p, b: _half(x, np.outer(p, _theta(x.shape[-1], b, exponent)))

    def degrees(convert: Callable[[np.ndarray], np.ndarray]) -> Callable[..., Any]:
        return lambda x, p, b: _half(x, convert(_rope.angles(p, x.shape[-1], b)))

    def d_from_rows(x: np.ndarray, pos: np.ndarray, base: float) -> np.ndarray:
        """theta_i = base ** (-2i/d) with d = x.shape[0] (the number of rows), i < x.shape[-1]/2."""
        i = np.arange(x.shape[-1] // 2)
        return _half(x, np.outer(pos, base ** (-2.0 * i / x.shape[0])))

    float16_hint = ("your angles were computed in float16 (about 3 significant digits): at "
                    "angles of tens of radians that moves cos and sin by up to ~1e-2. Compute "
                    "the angles in float32 or float64 (see the pitfall on low precision).")
    radians_hint = ("the angles pos*theta are radians already: use np.cos(angle) directly, "
                    "without any conversion between degrees and radians.")

    diagnoses = [
        Diagnosis(lambda x, p, b: _rope.apply(x, p, b, pairing="interleaved"),
                  "you paired adjacent coordinates (2i, 2i+1); rotate-half pairs i with i + d/2."),
        Diagnosis(lambda x, p, b: _rope.apply(x, -p, b, pairing="half"),
                  "wrong sign of the sin term: the first half gets -x2*sin, the second +x1*sin."),
        Diagnosis(degrees(np.deg2rad), radians_hint),
        Diagnosis(degrees(np.rad2deg), radians_hint),
        Diagnosis(with_theta(lambda i, d: i / d),
                  "theta_i = base ** (-2i/d): the exponent uses 2i, not i."),
        # 4i/d: np.arange(0, d, 2) (already 2i) times another 2, or 2i divided by d/2
        Diagnosis(with_theta(lambda i, d: 4.0 * i / d),
                  "your exponent is 4i/d instead of 2i/d. `np.arange(0, d, 2)` already is 2i "
                  "(0, 2, 4, ...): divide it by d with no extra factor 2. Starting from "
                  "`np.arange(d // 2)` (i itself), multiply by 2 and divide by d, not by d/2."),
        # np.linspace(0, 1, d // 2) includes 1: exponents 2i/(d - 2), the slowest pair at 1/base
        Diagnosis(with_theta(lambda i, d: 2.0 * i / (d - 2) if d > 2 else 0.0 * i),
                  "your exponents run from 0 to 1 inclusive (as `np.linspace(0, 1, d // 2)` "
                  "gives): 2i/d stops at (d-2)/d, so the slowest pair turns by base ** "
                  "(-(d-2)/d), not 1/base. Use `np.arange(d // 2) * 2 / d`."),
        Diagnosis(d_from_rows,
                  "d is the head dimension, the last axis `x.shape[-1]`; your theta used "
                  "`x.shape[0]`, the number of rows (tokens)."),
        Diagnosis(with_theta(lambda i, d: 2.0 * (i + 1) / d),
                  "the pairs are numbered from i = 0, so theta_0 = base ** 0 = 1: you counted "
                  "the frequencies from i = 1 (np.arange(d // 2) starts at 0)."),
        Diagnosis(lambda x, p, b: _rope.apply(x, p + 1, b, pairing="half"),
                  "rotate the token at position pos by pos*theta, not (pos+1)*theta: the first "
                  "token (pos 0) is not rotated."),
        Diagnosis(lambda x, p, b: _half(x, _rope.angles(p, x.shape[-1], b), minus=False),
                  "rotate_half(x) is [-x2, x1]: you swapped the halves but dropped the minus "
                  "sign on the second half (x2 = x[..., d/2:])."),
        Diagnosis(lambda x, p, b: _half(x, _angles16(p, x.shape[-1], b)), float16_hint),
        Diagnosis(lambda x, p, b: _half(x.astype(np.float16), _angles16(p, x.shape[-1], b),
                                        dtype=np.float16), float16_hint),
        Diagnosis(lambda x, p, b: _half(x, _rope.angles(p, x.shape[-1], b), swap_sin_cos=True),
                  "sin and cos are swapped: x * cos(angle) + rotate_half(x) * sin(angle)."),
        Diagnosis(lambda x, p, b: _half(x, _rope.angles(p, x.shape[-1], b), layout="repeat"),
                  "your cos and sin tables repeat each angle twice in a row "
                  "([c0, c0, c1, c1, ...], the adjacent-pairs layout, e.g. np.repeat). "
                  "Rotate-half needs [c0, c1, ..., c0, c1, ...]: concatenate the angle table "
                  "with itself."),
        Diagnosis(lambda x, p, b: _rope.apply(x, p, 10000.0, pairing="half"),
                  "you ignored the argument `base` (always 10000): use base ** (-2i/d)."),
        Diagnosis(lambda x, p, b: _rope.apply(x, np.arange(float(x.shape[0])), b, pairing="half"),
                  "you ignored the argument `positions` (you used 0, 1, 2, ...): row `row` of x "
                  "is turned by `positions[row] * theta_i`."),
        Diagnosis(lambda x, p, b: x, "you returned x unchanged: nothing was rotated."),
        Diagnosis(lambda x, p, b: _rope.apply(x, p, b, pairing="interleaved")[
                      ..., _encodings.split_permutation(x.shape[-1])],
                  "you rotated with adjacent pairs and then permuted: rotate the half-pairs "
                  "of x itself."),
    ]
    return run_checks("rope_half", student, ref, cases, diagnoses, atol=_ROPE_TOL)


def check_to_rotate_half(student: Callable[[np.ndarray], Any]) -> Report:
    """Exercise: ``to_rotate_half(x)`` reorders adjacent-pair vectors into the rotate-half layout.

    Every case has d >= 6: for d = 4 the reordering [0, 2, 1, 3] is its own inverse, so it could
    not tell the answer from the opposite conversion.
    """
    rng = np.random.default_rng(9)
    cases = [
        # not sorted, so that sorting (or any order-keeping answer) is not mistaken for "unchanged"
        ("d=8, one vector [a0, b0, a1, b1, a2, b2, a3, b3] = [10, 11, 40, 41, 20, 21, 30, 31]",
         (np.array([10.0, 11.0, 40.0, 41.0, 20.0, 21.0, 30.0, 31.0]),)),
        ("d=6, 3 vectors", (rng.standard_normal((3, 6)),)),
        ("d=8, batch of shape (3, 4, 8)", (rng.standard_normal((3, 4, 8)),)),
    ]

    def ref(x: np.ndarray) -> np.ndarray:
        return x[..., _rope.pairing_permutation(x.shape[-1], "interleaved", "half")]

    def half_swap(x: np.ndarray) -> np.ndarray:
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)

    def second_axis(x: np.ndarray) -> np.ndarray:
        return np.concatenate([x[:, 0::2], x[:, 1::2]], axis=1)

    diagnoses = [
        Diagnosis(lambda x: x[..., _rope.pairing_permutation(x.shape[-1], "half", "interleaved")],
                  "that is the inverse permutation (rotate-half -> adjacent). The first half of "
                  "the result must hold the first coordinates a_i = x[2i] of every pair."),
        Diagnosis(lambda x: np.concatenate([x[..., 1::2], x[..., 0::2]], axis=-1),
                  "the halves are swapped: first all a_i = x[0::2], then all b_i = x[1::2]."),
        Diagnosis(lambda x: np.concatenate([x[0::2], x[1::2]], axis=0),
                  "you reordered along the first axis: the pairs run along the last axis, so "
                  "index it with x[..., 0::2] and concatenate with axis=-1."),
        Diagnosis(lambda x: np.concatenate([x[..., 0::2], x[..., 1::2]]),
                  "np.concatenate joins along the first axis unless told otherwise (the same "
                  "as the last axis only for 1-D x): pass `axis=-1`."),
        Diagnosis(second_axis,
                  "x[:, 0::2] slices the second axis, which is the last one only for 2-D x: "
                  "write x[..., 0::2] to work on the last axis whatever the number of axes."),
        Diagnosis(half_swap,
                  "that is the rotate-half swap [-x2, x1] used inside the rotation. Here only "
                  "reorder the coordinates (no minus sign): first all a_i = x[0::2], then all "
                  "b_i = x[1::2]."),
        Diagnosis(lambda x: x, "you returned x unchanged: the coordinates still sit in the "
                               "adjacent layout."),
    ]
    return run_checks("to_rotate_half", student, ref, cases, diagnoses)


def convert_weight_loop(w: np.ndarray, n_heads: int) -> np.ndarray:
    """The slow, obviously correct conversion of an ``nn.Linear`` query/key weight (rows = output
    features, ``n_heads`` blocks of ``head_dim`` rows) from adjacent pairs to rotate-half.

    One row at a time: in head ``h``, pair ``i`` sits in rows ``(2i, 2i+1)`` of the block and
    moves to rows ``(i, i + head_dim/2)``. The checker compares answers with this loop (the
    chapter's tests check that it equals :func:`posenc_lib.maths.rope.convert_qk_weight`).
    """
    w = np.asarray(w, dtype=float)
    head_dim = w.shape[0] // n_heads
    out = np.empty_like(w)
    for h in range(n_heads):
        start = h * head_dim
        for i in range(head_dim // 2):
            out[start + i] = w[start + 2 * i]                     # a_i: first half of the head
            out[start + head_dim // 2 + i] = w[start + 2 * i + 1]  # b_i: second half
    return out


def _per_head(w: np.ndarray, n_heads: int, perm_of: Callable[[int], np.ndarray],
              axis: int = 0) -> np.ndarray:
    """Apply ``perm_of(head_dim)`` inside each of ``n_heads`` blocks along ``axis``."""
    w = np.asarray(w, dtype=float)
    size = w.shape[axis]
    head_dim = size // n_heads
    if head_dim * n_heads != size or head_dim % 2:
        raise ValueError("blocks do not fit")
    order = np.concatenate([h * head_dim + perm_of(head_dim) for h in range(n_heads)])
    return np.take(w, order, axis=axis)


def _weight_cases() -> list[tuple[str, tuple[np.ndarray, int]]]:
    """The four cases of :func:`check_to_rotate_half_weight`: two square weights, one with more
    rows than ``d_model`` and one with fewer."""
    rng = np.random.default_rng(12)
    return [
        ("2 heads of dimension 6, d_model = 12 (w of shape (12, 12))",
         (rng.standard_normal((12, 12)), 2)),
        ("4 heads of dimension 8, d_model = 32 (w of shape (32, 32))",
         (rng.standard_normal((32, 32)), 4)),
        # more rows than columns, as when n_heads * head_dim > d_model: head_dim is rows / n_heads
        ("2 heads of dimension 8, d_model = 8 (w of shape (16, 8))",
         (rng.standard_normal((16, 8)), 2)),
        ("3 heads of dimension 6, d_model = 24 (w of shape (18, 24))",
         (rng.standard_normal((18, 24)), 3)),
    ]


def check_to_rotate_half_weight(student: Callable[..., Any]) -> Report:
    """Exercise: ``to_rotate_half_weight(w, n_heads)`` converts a query (or key) projection in
    ``nn.Linear`` layout, shape ``(n_heads * head_dim, d_model)``, from adjacent pairs to
    rotate-half, head by head. (With grouped-query attention a key projection has
    ``n_kv_heads`` heads, and ``n_heads`` is then that number.)

    The answer is compared with :func:`convert_weight_loop`, a loop over heads and pairs. Every
    case has ``head_dim >= 6`` (for ``head_dim = 4`` the reordering is its own inverse, so the
    wrong direction would pass) and more than one head.
    """
    cases = _weight_cases()

    def to_half(head_dim: int) -> np.ndarray:
        return _rope.pairing_permutation(head_dim, "interleaved", "half")

    def to_adjacent(head_dim: int) -> np.ndarray:
        return _rope.pairing_permutation(head_dim, "half", "interleaved")

    def halves_swapped(head_dim: int) -> np.ndarray:
        return np.concatenate([np.arange(1, head_dim, 2), np.arange(0, head_dim, 2)])

    def whole(w: np.ndarray, n_heads: int) -> np.ndarray:
        return np.asarray(w, dtype=float)[to_half(np.shape(w)[0])]

    def head_dim_from_columns(w: np.ndarray, n_heads: int) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        blocks = w.shape[0] // (w.shape[1] // n_heads)
        if blocks == n_heads:
            raise ValueError("same as the right answer here")
        return _per_head(w, blocks, to_half)

    def heads_strided(w: np.ndarray, n_heads: int) -> np.ndarray:
        """reshape(head_dim, n_heads, -1): head h taken as rows h, h + n_heads, ..."""
        w = np.asarray(w, dtype=float)
        head_dim = w.shape[0] // n_heads
        return w.reshape(head_dim, n_heads, -1)[to_half(head_dim)].reshape(w.shape)

    rows_hint = ("an nn.Linear weight has shape (out_features, in_features): the heads and "
                 "their pairs run along the rows (axis 0). You permuted the columns, which "
                 "belong to the input (d_model) and must stay where they are.")
    diagnoses = [
        Diagnosis(whole,
                  "you applied one permutation to all n_heads * head_dim rows at once. That "
                  "moves rows from one head into another: permute the head_dim rows of each "
                  "head on their own (rows h*head_dim ... (h+1)*head_dim - 1 for head h)."),
        Diagnosis(lambda w, n: _per_head(w, n, to_adjacent),
                  "that is the opposite direction (rotate-half -> adjacent). In each head, the "
                  "first half of the rows must hold the first rows a_i = row 2i of every pair, "
                  "the second half the rows b_i = row 2i + 1."),
        Diagnosis(lambda w, n: _per_head(w, n, to_half, axis=1), rows_hint),
        Diagnosis(lambda w, n: np.asarray(w, dtype=float)[:, to_half(np.shape(w)[1])],
                  rows_hint),
        Diagnosis(lambda w, n: _per_head(w, n, halves_swapped),
                  "in each head the halves are swapped: first the rows 2i (a_i), then the "
                  "rows 2i + 1 (b_i)."),
        Diagnosis(head_dim_from_columns,
                  "head_dim is the number of rows divided by n_heads (w.shape[0] // n_heads); "
                  "you divided the number of columns (d_model), which need not be "
                  "n_heads * head_dim."),
        Diagnosis(heads_strided,
                  "head h owns the contiguous block of rows h*head_dim ... (h+1)*head_dim - 1: "
                  "reshape to (n_heads, head_dim, d_model), not (head_dim, n_heads, d_model)."),
        Diagnosis(lambda w, n: np.asarray(w, dtype=float),
                  "you returned w unchanged: the rows still sit in the adjacent layout."),
    ]
    return run_checks("to_rotate_half_weight", student, convert_weight_loop, cases, diagnoses)
