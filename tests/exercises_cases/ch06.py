"""Chapter 6: the sinusoidal encoding, wavelengths and the shift matrix.

Correct answers are written from the paper's formula with plain loops (no library code); each
wrong answer is a mistake learners make, with a piece of the hint it must get.
"""

import math

import numpy as np


# -- exercise 1 ------------------------------------------------------------------------------
def _encoding(seq_len, d, base, *, sin=math.sin, cos=math.cos, first_pos=0, layout="interleaved",
              omega=None):
    """Row pos: sin and cos of pos*omega_i for each pair i, in the chosen layout."""
    omega = omega or (lambda i: base ** (-2 * i / d))
    rows = []
    for pos in range(first_pos, first_pos + seq_len):
        s = [sin(pos * omega(i)) for i in range(d // 2)]
        c = [cos(pos * omega(i)) for i in range(d // 2)]
        if layout == "interleaved":
            rows.append([v for pair in zip(s, c) for v in pair])
        else:
            rows.append(s + c)
    return np.array(rows)


def sinusoidal_encoding(seq_len, d, base=10000.0):
    return _encoding(seq_len, d, base)


def _t2t_omega(d, base):
    return lambda i: math.exp(-i * math.log(base) / max(d // 2 - 1, 1))


def _float32_recipe(seq_len, d, base=10000.0):
    """What PyTorch-style code computes: float32 positions and div_term = exp(2i * -ln(n)/d)."""
    pos = np.arange(seq_len, dtype=np.float32)[:, None]
    div_term = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-math.log(base) / d))
    pe = np.zeros((seq_len, d), dtype=np.float32)
    pe[:, 0::2] = np.sin(pos * div_term)
    pe[:, 1::2] = np.cos(pos * div_term)
    return pe


def _float32_power(seq_len, d, base=10000.0):
    """Another float32 variant: the angle pos / base**(2i/d), every step in float32."""
    pos = np.arange(seq_len, dtype=np.float32)[:, None]
    denom = np.float32(base) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))
    pe = np.empty((seq_len, d), dtype=np.float32)
    pe[:, 0::2] = np.sin(pos / denom)
    pe[:, 1::2] = np.cos(pos / denom)
    return pe


def _blog_loop(seq_len, d, base=10000.0):
    """A bug common in tutorials: i steps over the columns 0, 2, 4, ... and is still put into
    2*i/d, so pair i' gets the exponent 4i'/d in both of its columns."""
    pe = np.zeros((seq_len, d))
    for pos in range(seq_len):
        for i in range(0, d, 2):
            pe[pos, i] = math.sin(pos / base ** (2 * i / d))
            pe[pos, i + 1] = math.cos(pos / base ** (2 * i / d))
    return pe


def _constant_error(seq_len, d, base=10000.0):
    """Off by a constant 9e-5 everywhere: close, but not float32 rounding (rejected)."""
    return sinusoidal_encoding(seq_len, d, base) + 9e-5


# -- exercise 2 ------------------------------------------------------------------------------
def wavelength(i, d, base=10000.0):
    return 2 * math.pi * base ** (2 * i / d)


# -- exercise 3 ------------------------------------------------------------------------------
def shift_matrix(k, d, base=10000.0, *, angle=None, transpose=False):
    angle = angle or (lambda k, i: k * base ** (-2 * i / d))
    m = np.zeros((d, d))
    for i in range(d // 2):
        a = angle(k, i)
        block = [[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]]
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = np.array(block).T if transpose else block
    return m


def _shift_concat(k, d, base=10000.0):
    m = np.zeros((d, d))
    h = d // 2
    for i in range(h):
        a = k * base ** (-2 * i / d)
        m[i, i], m[i, i + h] = math.cos(a), math.sin(a)
        m[i + h, i], m[i + h, i + h] = -math.sin(a), math.cos(a)
    return m


CASES = {
    "check_sinusoidal_encoding": {
        "correct": sinusoidal_encoding,
        "wrong": [
            (lambda L, d, b: _encoding(L, d, b, sin=math.cos, cos=math.sin),
             "sine and cosine are swapped"),
            (lambda L, d, b: _encoding(L, d, b, omega=lambda i: b ** (-i / d)), "not i/d"),
            (lambda L, d, b: _encoding(L, d, b, first_pos=1), "positions start at 0"),
            (lambda L, d, b: _encoding(L, d, b, layout="concat"), "you built the concat layout"),
            (lambda L, d, b: _encoding(L, d, b, omega=_t2t_omega(d, b)),
             "spacing of tensor2tensor"),
            (lambda L, d, b: _encoding(L, d, b, omega=_t2t_omega(d, b), layout="concat"),
             "that is tensor2tensor's table"),
            (lambda L, d, b: _encoding(L, d, b, omega=lambda i: b ** (-2 * i / d) * math.pi / 180),
             "take radians"),
            (lambda L, d, b: _encoding(L, d, 10000.0), "ignores its base argument"),
            (lambda L, d, b: _encoding(L, d, b, sin=lambda a: -math.sin(a)), "wrong sign"),
            (lambda L, d, b: _encoding(L, d, b, cos=lambda a: 0.0), "cosine dimensions are empty"),
            (lambda L, d, b: _encoding(L, d, b, omega=lambda i: b ** (2 * i / d)),
             "you multiplied"),
            (lambda L, d, b: np.array([[math.sin(p / b ** (2 * (j - j % 2) / d)) if j % 2 == 0
                                        else math.cos(p / b ** (2 * j / d)) for j in range(d)]
                                       for p in range(L)]),
             "not the dimension index"),
            (_blog_loop, "your exponent is 4i/d"),
            (lambda L, d, b: _encoding(L, d, b, omega=lambda i: math.exp(-2 * i * math.log10(b) / d)),
             "not `np.log10`"),
            (lambda L, d, b: _encoding(L, d, b, cos=lambda a: -math.cos(a)),
             "the cosine has the wrong sign"),
            (_constant_error, "max error 9e-05"),
        ],
        "notes": [
            (_float32_recipe, "float32 rounding"),
            (_float32_power, "float32 rounding"),
        ],
    },
    "check_wavelength": {
        "correct": wavelength,
        "wrong": [
            (lambda i, d, b: b ** (2 * i / d), "multiply by 2π"),
            (lambda i, d, b: 1 / b ** (2 * i / d), "angular frequency"),
            (lambda i, d, b: 2 * math.pi * b ** (i / d), "not i/d"),
            (lambda i, d, b: math.pi * b ** (2 * i / d), "not π"),
            (lambda i, d, b: 2 * math.pi * b ** (2 * (2 * i) / d), "dimension index 2i"),
            (lambda i, d, b: 2 * math.pi * b ** (2 * (i + 1) / d), "pairs count from 0"),
            (lambda i, d, b: 2 * math.pi * b ** (i / (d // 2 - 1)), "tensor2tensor's spacing"),
            (lambda i, d, b: 360 * b ** (2 * i / d), "degrees"),
            (lambda i, d, b: 2 * math.pi * 10000 ** (2 * i / d), "ignores its base argument"),
            (lambda i, d, b: round(2 * math.pi * b ** (2 * i / d)), "wrong values"),
            (lambda i, d, b: 2 * math.pi * b ** (2 * i // d), "integer division"),
            (lambda i, d, b: 2 * math.pi * b ** ((2 * i + 1) / d), "(2i+1)/d"),
            (lambda i, d, b: 2 * math.pi * b ** (2 * (d // 2 - 1 - i) / d), "ladder runs backwards"),
        ],
    },
    "check_shift_matrix": {
        "correct": shift_matrix,
        "wrong": [
            (lambda k, d, b: shift_matrix(k, d, b, transpose=True), "turn the wrong way"),
            (lambda k, d, b: shift_matrix(abs(k), d, b), "drops the sign of k"),
            (lambda k, d, b: shift_matrix(k, d, b, angle=lambda k, i: k), "own angle"),
            (_shift_concat, "use the interleaved layout"),
            (lambda k, d, b: shift_matrix(k, d, b, angle=lambda k, i: k * b ** (-i / d)),
             "not i/d"),
            (lambda k, d, b: shift_matrix(k, d, b, angle=lambda k, i: math.radians(
                k * b ** (-2 * i / d))), "take radians"),
            (lambda k, d, b: shift_matrix(k, d, b, angle=lambda k, i: k * b ** (-4 * i / d)),
             "exponent 4i/d"),
            (lambda k, d, b: np.eye(d), "wrong values"),
        ],
    },
}
