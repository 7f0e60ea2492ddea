"""Chapter 8: RoPE with the rotate-half pairing, the adjacent -> rotate-half layout change, and
the same change for a multi-head nn.Linear weight.

The correct answers are written from the formulas with Python loops (scalar ``math.cos`` and
``math.sin``), not with the library.
"""

import math

import numpy as np


def rope_half(x, positions, base=10000.0, *, theta_of=None, pos_of=None, degrees=False,
              to_degrees=False, sign=1.0, swap_sin_cos=False, adjacent=False,
              repeat_tables=False):
    """Rotate-half RoPE, one coordinate at a time; the keywords make the typical mistakes."""
    x = np.asarray(x, dtype=float)
    seq, d = x.shape
    h = d // 2
    out = np.empty_like(x)
    for r in range(seq):
        p = positions[r] if pos_of is None else pos_of(r, positions[r])
        for j in range(d):
            if adjacent:
                i, first, partner = j // 2, j % 2 == 0, j ^ 1
            else:
                i, first, partner = j % h, j < h, (j + h) % d
            table_i = j // 2 if repeat_tables else i  # which angle the cos/sin tables hold at j
            theta = base ** (-2 * table_i / d) if theta_of is None else theta_of(table_i, d, base)
            angle = sign * p * theta
            if degrees:  # the angle read as degrees (np.deg2rad)
                angle = math.radians(angle)
            if to_degrees:  # the angle converted to degrees (np.degrees)
                angle = math.degrees(angle)
            c, s = math.cos(angle), math.sin(angle)
            if swap_sin_cos:
                c, s = s, c
            other = -x[r, partner] if first else x[r, partner]
            out[r, j] = x[r, j] * c + other * s
    return out


def to_rotate_half(x):
    """Build the output vector by vector: first every even coordinate, then every odd one."""
    x = np.asarray(x, dtype=float)
    flat = x.reshape(-1, x.shape[-1])
    rows = [[v[2 * i] for i in range(len(v) // 2)] + [v[2 * i + 1] for i in range(len(v) // 2)]
            for v in flat]
    return np.array(rows).reshape(x.shape)


def _rope_float32(x, positions, base=10000.0):
    x = np.asarray(x, dtype=np.float32)
    d = x.shape[-1]
    theta = np.float32(base) ** (-2 * np.arange(d // 2, dtype=np.float32) / np.float32(d))
    ang = np.outer(np.asarray(positions, dtype=np.float32), theta)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    rotated = np.concatenate([-x[..., d // 2:], x[..., : d // 2]], axis=-1)
    return x * cos + rotated * sin


def _rotate_adjacent_then_permute(x, positions, base=10000.0):
    out = rope_half(x, positions, base, adjacent=True)
    return np.concatenate([out[:, 0::2], out[:, 1::2]], axis=-1)


def _theta_from_arange_step_2(x, positions, base=10000.0):
    """The HF way (np.arange(0, d, 2) is already 2i) mixed with the chapter's formula (2 * ...)."""
    d = x.shape[-1]
    theta = base ** (-2.0 * np.arange(0, d, 2) / d)  # exponent 4i/d
    return rope_half(x, positions, base, theta_of=lambda i, d, base: theta[i])


def _d_from_rows(x, positions, base=10000.0):
    """d = x.shape[0] (the number of tokens) in the exponent; the pairs still span the last axis."""
    rows = np.shape(x)[0]
    return rope_half(x, positions, base, theta_of=lambda i, d, base: base ** (-2 * i / rows))


def _theta_from_linspace(x, positions, base=10000.0):
    """Exponents from np.linspace(0, 1, d // 2): 0 .. 1 inclusive, i.e. 2i/(d - 2)."""
    d = np.shape(x)[-1]
    exps = np.linspace(0, 1, d // 2)
    return rope_half(x, positions, base, theta_of=lambda i, d, base: base ** -exps[i])


def _swap_without_minus(x, positions, base=10000.0):
    """x * cos + [x2, x1] * sin: the halves swapped, the minus sign forgotten."""
    x = np.asarray(x, dtype=float)
    h = x.shape[-1] // 2
    theta = base ** (-2 * np.arange(h) / x.shape[-1])
    ang = np.outer(positions, theta)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    return x * cos + np.concatenate([x[:, h:], x[:, :h]], axis=1) * sin


def _float16_angles(x, positions, base=10000.0):
    """The angles computed in float16 (as the chapter's pitfall warns), the rest in float64."""
    x = np.asarray(x, dtype=float)
    h = x.shape[-1] // 2
    theta = (np.float16(base) ** (-2 * np.arange(h, dtype=np.float16) / np.float16(x.shape[-1])))
    ang = (np.asarray(positions, dtype=np.float16)[:, None] * theta).astype(float)
    cos, sin = np.tile(np.cos(ang), 2), np.tile(np.sin(ang), 2)
    return x * cos + np.concatenate([-x[:, h:], x[:, :h]], axis=1) * sin


def _in_place(x, positions, base=10000.0):  # a correct answer that overwrites its input
    x[...] = rope_half(x, positions, base)
    return x


def weight_to_half(w, n_heads, *, direction="to_half", heads=None, axis=0, swap=False):
    """Per-head conversion of an nn.Linear weight written with lists; keywords make mistakes.

    ``heads`` overrides the number of blocks (``1``: one permutation over all rows), ``axis=1``
    permutes the columns instead of the rows, ``direction="to_adjacent"`` is the inverse
    permutation, ``swap=True`` puts the b rows first.
    """
    w = np.asarray(w, dtype=float)
    if axis == 1:
        w = w.T
    blocks = n_heads if heads is None else heads
    hd = w.shape[0] // blocks
    out = []
    for h in range(blocks):
        rows = [w[h * hd + j] for j in range(hd)]
        if direction == "to_half":
            evens, odds = rows[0::2], rows[1::2]
            out += (odds + evens) if swap else (evens + odds)
        else:  # [a0 .. a_{h-1}, b0 .. b_{h-1}] read as the rotate-half layout, put back adjacent
            half = hd // 2
            out += [rows[j // 2 + (j % 2) * half] for j in range(hd)]
    out = np.array(out)
    return out.T if axis == 1 else out


def _weight_strided_heads(w, n_heads):
    """Head h taken as rows h, h + n_heads, h + 2 n_heads, ... (a wrong reshape order)."""
    w = np.asarray(w, dtype=float)
    hd = w.shape[0] // n_heads
    out = np.empty_like(w)
    for h in range(n_heads):
        rows = [h + n_heads * j for j in range(hd)]
        new = rows[0::2] + rows[1::2]
        for dst, src in zip(rows, new):
            out[dst] = w[src]
    return out


def _weight_head_dim_from_columns(w, n_heads):
    w = np.asarray(w, dtype=float)
    return weight_to_half(w, n_heads, heads=w.shape[0] // (w.shape[1] // n_heads))


CASES = {
    "check_rope_half": {
        "correct": rope_half,
        "wrong": [
            (lambda x, p, b: rope_half(x, p, b, adjacent=True), "you paired adjacent"),
            (lambda x, p, b: rope_half(x, p, b, sign=-1.0), "wrong sign of the sin term"),
            (lambda x, p, b: rope_half(x, p, b, degrees=True), "radians already"),
            (lambda x, p, b: rope_half(x, p, b, to_degrees=True), "radians already"),
            (lambda x, p, b: rope_half(x, p, b, theta_of=lambda i, d, base: base ** (-i / d)),
             "uses 2i, not i"),
            (lambda x, p, b: rope_half(x, p, b,
                                       theta_of=lambda i, d, base: base ** (-2 * i / (d // 2))),
             "not by d/2"),
            (_theta_from_arange_step_2, "your exponent is 4i/d"),
            (_d_from_rows, "your theta used `x.shape[0]`"),
            (lambda x, p, b: rope_half(x, p, b,
                                       theta_of=lambda i, d, base: base ** (-2 * (i + 1) / d)),
             "counted the frequencies from i = 1"),
            (lambda x, p, b: rope_half(x, p, b, pos_of=lambda r, pos: pos + 1),
             "not (pos+1)*theta"),
            (lambda x, p, b: rope_half(x, p, b, swap_sin_cos=True), "sin and cos are swapped"),
            (_theta_from_linspace, "np.linspace(0, 1, d // 2)"),
            (_swap_without_minus, "dropped the minus sign"),
            (_float16_angles, "computed in float16"),
            (lambda x, p, b: rope_half(x, p, b, repeat_tables=True), "np.repeat"),
            (lambda x, p, b: rope_half(x, p), "you ignored the argument `base`"),
            (lambda x, p, b: rope_half(x, p, b, pos_of=lambda r, pos: r),
             "you ignored the argument `positions`"),
            (lambda x, p, b: np.array(x, dtype=float), "you returned x unchanged"),
            (_rotate_adjacent_then_permute, "rotated with adjacent pairs and then permuted"),
            (lambda x, p, b: rope_half(x, p, b).T, "expected shape"),
            (lambda x, p, b: rope_half(x, p, b) + 5j, "complex"),
        ],
        # float32 arithmetic (angles up to 40 rad) is within the checker's 1e-5 tolerance and
        # passes without a note, as the exercise text says (tests/chapters/test_ch08.py).
    },
    "check_to_rotate_half": {
        "correct": to_rotate_half,
        "wrong": [
            (lambda x: x[..., [k // 2 + (k % 2) * (x.shape[-1] // 2) for k in range(x.shape[-1])]],
             "inverse permutation"),
            (lambda x: np.asarray(x).reshape(*np.shape(x)[:-1], 2, -1).swapaxes(-1, -2)
             .reshape(np.shape(x)), "inverse permutation"),
            (lambda x: np.concatenate([x[..., 1::2], x[..., 0::2]], axis=-1), "halves are swapped"),
            (lambda x: np.concatenate([x[0::2], x[1::2]], axis=0), "along the first axis"),
            (lambda x: np.concatenate([x[:, 0::2], x[:, 1::2]], axis=1), "x[..., 0::2]"),
            (lambda x: np.concatenate([-x[..., x.shape[-1] // 2:], x[..., :x.shape[-1] // 2]],
                                      axis=-1), "rotate-half swap"),
            (lambda x: np.array(x), "returned x unchanged"),
            (lambda x: np.stack([x[..., 0::2], x[..., 1::2]]), "expected shape"),
            (lambda x: np.concatenate([x[..., 0::2], x[..., 1::2]]), "pass `axis=-1`"),
        ],
    },
    "check_to_rotate_half_weight": {
        "correct": weight_to_half,
        "wrong": [
            (lambda w, n: weight_to_half(w, n, heads=1), "one permutation to all"),
            (lambda w, n: weight_to_half(w, n, direction="to_adjacent"), "opposite direction"),
            (lambda w, n: weight_to_half(w, n, axis=1), "permuted the columns"),
            (lambda w, n: weight_to_half(w, n, heads=1, axis=1), "permuted the columns"),
            (lambda w, n: weight_to_half(w, n, swap=True), "halves are swapped"),
            (_weight_head_dim_from_columns, "divided the number of columns"),
            (_weight_strided_heads, "not (head_dim, n_heads, d_model)"),
            (lambda w, n: np.array(w, dtype=float), "returned w unchanged"),
            (lambda w, n: weight_to_half(w, n).T, "expected shape"),
        ],
    },
}
