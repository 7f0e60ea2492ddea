"""Chapter 11: turns per pair, NTK-aware frequencies, YaRN's frequencies (written with loops)."""

import math

import numpy as np


def _theta(d, base):
    return np.array([base ** (-2.0 * i / d) for i in range(d // 2)])


def turns_per_pair(d, base, L):
    return np.array([L * base ** (-2.0 * i / d) / (2 * math.pi) for i in range(d // 2)])


def ntk_frequencies(d, base, factor):
    new_base = base * factor ** (d / (d - 2))
    return np.array([new_base ** (-2.0 * i / d) for i in range(d // 2)])


def _i_of(beta, d, base, L):
    # pair index that turns exactly beta times over L: L * base**(-2i/d) / (2 pi) = beta
    return d * math.log(L / (2 * math.pi * beta)) / (2 * math.log(base))


def yarn_by_parts(d, factor, base, L, low=None, high=None, ramp=None, blend=None):
    low = math.floor(_i_of(32.0, d, base, L)) if low is None else low
    high = math.ceil(_i_of(1.0, d, base, L)) if high is None else high
    out = []
    for i in range(d // 2):
        theta = base ** (-2.0 * i / d)
        rho = ramp(i, low, high) if ramp else min(1.0, max(0.0, (i - low) / (high - low)))
        if blend == "wavelengths":
            out.append(1.0 / ((1 - rho) / theta + rho * factor / theta))
        elif blend == "geometric":
            out.append(theta * factor ** (-rho))
        else:
            out.append((1 - rho) * theta + rho * theta / factor)
    return np.array(out)


def _yarn_hard_switch(d, factor, base, L):
    out = []
    for i in range(d // 2):
        theta = base ** (-2.0 * i / d)
        out.append(theta if L * theta / (2 * math.pi) >= 1 else theta / factor)
    return np.array(out)


def yarn_paper(d, factor, base, L, reversed_gamma=False):
    """The paper's ramp (gamma = 1 keeps the pair); ``reversed_gamma`` reads gamma as the share
    interpolated, the usual mix-up."""
    out = []
    for i in range(d // 2):
        theta = base ** (-2.0 * i / d)
        r = L * theta / (2 * math.pi)
        gamma = 0.0 if r < 1 else 1.0 if r > 32 else (r - 1) / 31
        if reversed_gamma:
            gamma = 1 - gamma
        out.append((1 - gamma) * theta / factor + gamma * theta)
    return np.array(out)


CASES = {
    "check_turns_per_pair": {
        "correct": turns_per_pair,
        "wrong": [
            (lambda d, b, L: L * _theta(d, b), "divide by 2*pi"),
            (lambda d, b, L: L * _theta(d, b) / math.pi, "2*pi radians, not pi"),
            (lambda d, b, L: L * _theta(d, b) / 360, "not degrees"),
            (lambda d, b, L: 2 * np.pi / (_theta(d, b) * L), "the inverse"),
            (lambda d, b, L: 2 * np.pi / _theta(d, b), "those are the wavelengths"),
            (lambda d, b, L: L * b ** (-np.arange(d // 2) / d) / (2 * np.pi), "uses 2i, not i"),
            (lambda d, b, L: L * b ** (-2.0 * np.arange(0, d, 2) / d) / (2 * np.pi),
             "already counts 0, 2, 4"),
            (lambda d, b, L: L * b ** (2.0 * np.arange(d // 2) / d) / (2 * np.pi),
             "the exponent is negative"),
            (lambda d, b, L: (L - 1) * _theta(d, b) / (2 * np.pi), "L positions"),
            (lambda d, b, L: int(np.sum(turns_per_pair(d, b, L) < 1)), "expected shape"),
            (lambda d, b, L: np.array([L * b ** (-2.0 * i / d) / (2 * math.pi)
                                       for i in range(1, d // 2 + 1)]), "not from 1"),
            (lambda d, b, L: turns_per_pair(d, b, L)[::-1], "reverse order"),
            (lambda d, b, L: np.array([int(x) for x in turns_per_pair(d, b, L)]),
             "not a count of whole turns"),
            (lambda d, b, L: np.array([L * b ** (-2.0 * j / d) / (2 * math.pi) for j in range(d)]),
             "one value per pair"),
        ],
        # float32 arithmetic is within the checker's tolerance: it passes without a note
    },
    "check_ntk_frequencies": {
        "correct": ntk_frequencies,
        "wrong": [
            (lambda d, b, s: (b * s ** (d / (d - 2))) ** (-2.0 * np.arange(d // 2) / (d - 2)),
             "not in the frequencies' exponent"),
            (lambda d, b, s: _theta(d, b * s), "not by s"),
            (lambda d, b, s: _theta(d, b * s ** (d // (d - 2))), "integer division"),
            (lambda d, b, s: _theta(d, b * s ** ((d - 2) / d)), "the exponent is d / (d - 2)"),
            (lambda d, b, s: _theta(d, (b * s) ** (d / (d - 2))), "only s is raised"),
            (lambda d, b, s: _theta(d, b) / s, "linear Position Interpolation"),
            (lambda d, b, s: _theta(d, b / s ** (d / (d - 2))), "do not speed them up"),
            (lambda d, b, s: (b * s ** (d / (d - 2))) ** (-np.arange(d // 2) / d),
             "uses 2i, not i"),
            (lambda d, b, s: (ntk_frequencies(d, b, s), 1.0), "return only the array"),
            (lambda d, b, s: np.array([2 * math.pi / x for x in ntk_frequencies(d, b, s)]),
             "those are wavelengths"),
            (lambda d, b, s: _theta(d, b), "the original frequencies"),
            (lambda d, b, s: _theta(d, b ** (d / (d - 2)) * s), "only s is raised"),
            (lambda d, b, s: np.array([x for x in ntk_frequencies(d, b, s) for _ in (0, 1)]),
             "one frequency per pair"),
        ],
        # the per-pair form theta_i * s ** (-2i / (d - 2)) is the same numbers: it passes
    },
    "check_yarn_by_parts": {
        "correct": yarn_by_parts,
        "wrong": [
            (lambda d, s, b, L: yarn_paper(d, s, b, L, reversed_gamma=True),
             "the paper's ramp the wrong way round"),
            (_yarn_hard_switch, "there is no ramp"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, low=int(_i_of(32.0, d, b, L)),
                                              high=int(_i_of(1.0, d, b, L))), "high rounds up"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, low=math.floor(_i_of(32.0, d / 2, b, L)),
                                              high=math.ceil(_i_of(1.0, d / 2, b, L))),
             "not the number of pairs d/2"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, ramp=lambda i, lo, hi: (i - lo) / (hi - lo)),
             "clip the ramp"),
            (lambda d, s, b, L: yarn_by_parts(
                d, s, b, L, ramp=lambda i, lo, hi: 1 - min(1, max(0, (i - lo) / (hi - lo)))),
             "wrong way round"),
            (lambda d, s, b, L: yarn_by_parts(d, 1 / s, b, L), "not multiplying"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, blend="wavelengths"),
             "not the wavelengths"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, blend="geometric"), "geometric blend"),
            (lambda d, s, b, L: _theta(d, b) / s, "plain Position Interpolation"),
            (lambda d, s, b, L: ntk_frequencies(d, b, s), "NTK-aware frequencies"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, low=_i_of(32.0, d, b, L),
                                              high=_i_of(1.0, d, b, L)), "round the boundaries"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, low=math.ceil(_i_of(32.0, d, b, L)),
                                              high=math.floor(_i_of(1.0, d, b, L))),
             "round the boundaries outward"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, low=round(_i_of(32.0, d, b, L)),
                                              high=round(_i_of(1.0, d, b, L))),
             "not to the nearest integer"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, s * L), "original training length"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, 2 * math.pi * L), "the 2*pi is missing"),
            (lambda d, s, b, L: yarn_by_parts(
                d, s, b, L, ramp=lambda i, lo, hi: min(1, max(0, (2 * i - lo) / (hi - lo)))),
             "gives 2i"),
            (lambda d, s, b, L: yarn_by_parts(
                d, s, b, L, ramp=lambda i, lo, hi: min(1, max(0, (i + 1 - lo) / (hi - lo)))),
             "not from 1"),
            (lambda d, s, b, L: yarn_by_parts(
                d, s, b, L, ramp=lambda i, lo, hi: min(1, max(0, (i - lo) / (hi - lo + 1)))),
             "no + 1 in the denominator"),
            (lambda d, b, s, L: yarn_by_parts(d, s, b, L), "you swapped factor and base"),
            (lambda d, s, b, L: (yarn_by_parts(d, s, b, L), 0.1 * math.log(s) + 1),
             "return only the array"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L, low=math.floor(_i_of(1.0, d, b, L)),
                                              high=math.ceil(_i_of(32.0, d, b, L))),
             "swapped the two thresholds"),
            (lambda d, s, b, L: yarn_by_parts(d, s, b, L) * (0.1 * math.log(s) + 1),
             "not part of the frequencies"),
            (lambda d, s, b, L: yarn_by_parts(
                d, s, b, L,
                low=math.floor(d * math.log(L / (2 * math.pi * 32)) / (2 * math.log10(b))),
                high=math.ceil(d * math.log(L / (2 * math.pi)) / (2 * math.log10(b)))),
             "same logarithm"),
        ],
        "notes": [
            (yarn_paper, "as the YaRN paper defines it"),
        ],
    },
}
