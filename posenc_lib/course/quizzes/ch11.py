"""Quick check of chapter 11."""

from __future__ import annotations

import math

import numpy as np

from ...display import quiz
from ...maths import encodings, rope, rope_scaling

# The LLaMA-like head of the chapter
_D, _N, _L = 128, 10000.0, 2048
_R = rope_scaling.turns(_D, _N, _L)
_UNSEEN = int(np.sum(_R < 1))                       # 23 pairs under one turn
_FIRST = int(np.argmax(_R < 1))                     # pair 41
_THETA = encodings.frequencies(_D, _N)

# Q2: PI with s = 4, the step of the fastest pair
_S2 = 4
_STEPS = {k: math.degrees(1.0 * k) for k in (1 / 16, 1 / 4, 1, 4)}

# Q3: base * s instead of base * s^(d/(d-2)), d = 128, s = 8
_S = 8.0
_DIV = _S ** ((_D - 2) / _D)                        # 7.74: what the slowest pair is divided by
_OVER = _S ** (2 / _D)                              # 1.033: its overshoot at the new length
assert abs(_THETA[-1] / encodings.frequencies(_D, _N * _S)[-1] - _DIV) < 1e-9

# Q4: YaRN on a head the chapter does not use: d = 64, base 10000, L = 1024, s = 4
_D4, _N4, _L4, _S4 = 64, 10000.0, 1024, 4.0
_R4 = rope_scaling.turns(_D4, _N4, _L4)
_LOW4, _HIGH4 = rope_scaling.yarn_correction_range(_D4, _N4, _L4)
_THETA4 = encodings.frequencies(_D4, _N4)
_YARN4, _ = rope_scaling.scaled_frequencies(_D4, _S4, "yarn", base=_N4, original_max_len=_L4)
_DIV4 = np.flatnonzero(np.isclose(_YARN4, _THETA4 / _S4, rtol=1e-12, atol=0))
_UNDER4 = np.flatnonzero(_R4 < 1)
assert np.array_equal(_DIV4, _UNDER4) and _DIV4[0] == _HIGH4 and _DIV4[-1] == _D4 // 2 - 1
_KEPT4 = np.flatnonzero(_YARN4 == _THETA4)
assert _KEPT4[-1] == _LOW4 and np.all(_R4[_KEPT4] >= 32) and _R4[_LOW4 + 1] < 32
_NTK4, _ = rope_scaling.scaled_frequencies(_D4, _S4, "ntk", base=_N4, original_max_len=_L4)
_NTK4_OUT = int(np.sum((_S4 * _NTK4 / _THETA4)[_UNDER4] > 1 + 1e-9))
_NO_2PI = np.flatnonzero(_L4 * _THETA4 < 1)                # forgetting the 2π in r_i = Lθ_i/2π
assert _NO_2PI[0] > _HIGH4

# Q5: PI with s = 4 on the chapter's fitted score curve (offsets 0 .. L-1, random targets, seed 0)
_FIT_AT = np.arange(float(_L))
_TARGETS = np.random.default_rng(0).uniform(-1.0, 1.0, _FIT_AT.size)
_Q, _K = rope_scaling.fit_score_curve(_FIT_AT, _TARGETS, _D, _N)
_INSIDE = float(np.abs(rope.score_curve(_Q, _K, np.linspace(0, _L, 20001), _N)).max())
_S5, _DELTA5 = 4, 5001
_READ5 = _DELTA5 / _S5                                  # 1250.25
_LO5 = math.floor(_READ5)
_BOUND5 = float(rope_scaling.interpolation_bound(_Q, _K, _READ5, _N))
_BOUND5_UP = math.ceil(1e4 * _BOUND5) / 1e4              # quoted as "at most", rounded up
_A5 = rope.score_curve(_Q, _K, np.array([_LO5, _READ5, _LO5 + 1, _DELTA5]), _N)
_LINE5 = _A5[0] + (_READ5 - _LO5) * (_A5[2] - _A5[0])
_WRAP5 = _DELTA5 - 2 * _L                               # 905: "wrapping around" at 2L
assert abs(_A5[1] - _LINE5) <= _BOUND5 < 0.05 and abs(_A5[3]) > 20 * _INSIDE
_INSIDE_UP = math.ceil(100 * _INSIDE) / 100             # a bound quoted rounded up (0.38)
assert _INSIDE < _INSIDE_UP

# Q7: dynamic NTK (Hugging Face's formula) on the chapter's head, at L/2 and at 2L, factor 1 and 4
_SLOW = _THETA[-1]


def _slowest_stretch(method: rope_scaling.Method, factor: float, length: int) -> float:
    omega, _ = rope_scaling.scaled_frequencies(_D, factor, method, base=_N, original_max_len=_L,
                                               seq_len=length)
    return float(_SLOW / omega[-1])


_DYN_HALF = _slowest_stretch("dynamic", 4.0, _L // 2)             # 1: nothing changes below L
_FIX_HALF = _slowest_stretch("ntk", 4.0, _L // 2)                 # 4: a fixed factor always acts
_DYN1_2L = _slowest_stretch("dynamic", 1.0, 2 * _L)               # 2 = l / L
_DYN4_2L = _slowest_stretch("dynamic", 4.0, 2 * _L)               # 5 = 4 * 2 - 3
assert _DYN_HALF == 1.0 and abs(_FIX_HALF - 4) < 1e-12
assert abs(_DYN1_2L - 2) < 1e-9 and abs(_DYN4_2L - 5) < 1e-9

# Q8: Llama 3.1's configuration: factor 8, low_freq_factor 1, high_freq_factor 4, L = 8192,
# base 500000, d = 128 (the chapter's worked example 2)
_D8, _N8, _L8, _S8 = 128, 500000.0, 8192, 8.0
_R8 = rope_scaling.turns(_D8, _N8, _L8)
_T8 = encodings.frequencies(_D8, _N8)
_L3, _ = rope_scaling.scaled_frequencies(_D8, _S8, "llama3", base=_N8, original_max_len=_L8)
_KEPT8 = np.flatnonzero(_L3 == _T8)
_DIV8 = np.flatnonzero(np.isclose(_L3, _T8 / _S8, rtol=1e-12, atol=0))
_LAM8 = encodings.wavelengths(_D8, _N8)
assert np.array_equal(_KEPT8, np.flatnonzero(_LAM8 <= _L8 / 4))   # wavelength at most L/4
assert np.array_equal(_DIV8, np.flatnonzero(_LAM8 >= _L8))        # wavelength at least L
_YLOW8, _YHIGH8 = rope_scaling.yarn_correction_range(_D8, _N8, _L8)
assert _KEPT8[-1] > _YLOW8 and _DIV8[0] == _YHIGH8
_R8 = rope_scaling.turns(_D8, _N8, _L8)
assert np.all((_R8[_KEPT8[-1] + 1:_DIV8[0]] > 1) & (_R8[_KEPT8[-1] + 1:_DIV8[0]] < 4))  # blended

QUIZ = quiz.quiz(
    quiz.question(
        f"A RoPE model with d = {_D}, base {_N:g} is trained on {_L} tokens and run, unchanged, "
        f"on {4 * _L}. Which pairs meet angles they never met in training?",
        quiz.option(f"The slow pairs, whose wavelength exceeds {_L} positions.", True,
                    f"They made less than one turn in training ({_UNSEEN} pairs, numbers {_FIRST} "
                    f"to {_D // 2 - 1}, for this head), so offsets beyond {_L} move them onto "
                    f"the part of their circle they never reached. The fast pairs went round many "
                    f"times (pair 0: {_R[0]:.0f} turns): every angle they can take was seen."),
        quiz.option("The fast pairs, since they turn the most for every position.", False,
                    f"Turning a lot is what protects them: pair 0 went round {_R[0]:.0f} times in "
                    f"training, so every angle on its circle has been seen and longer offsets "
                    f"bring nothing new for it. The danger is at the other end."),
        quiz.option("Every pair, since every angle grows with the offset.", False,
                    "Every angle grows, but angles wrap around the circle. What matters is "
                    "whether the pair completed a turn within the training context, and that "
                    f"differs enormously between pairs: from {_R[0]:.0f} turns down to "
                    f"{_R[-1]:.3f}."),
        kind="concept",
    ),
    quiz.question(
        f"You stretch a model by s = {_S2} with linear Position Interpolation. Before, "
        f"neighbouring tokens differed by θ₀ = 1 radian in the fastest pair. By how much now?",
        quiz.option(f"1/16 radian ({_STEPS[1 / 16]:.2f}°)", False,
                    f"That is 1/s², as if the frequency were divided twice. PI divides every "
                    f"frequency once by s: 1/{_S2} radian."),
        quiz.option(f"1/4 radian ({_STEPS[1 / 4]:.1f}°)", True,
                    f"PI divides every frequency by s, θ₀ = 1 included: 1/{_S2} radian, "
                    f"{_STEPS[1 / 4]:.1f}° instead of {_STEPS[1]:.1f}°. All positions now fit "
                    f"into the trained range, but neighbours now differ by a {_S2} times smaller "
                    f"angle, so they are harder to tell apart."),
        quiz.option(f"1 radian ({_STEPS[1]:.1f}°)", False,
                    "That is what NTK-aware scaling and YaRN do: they keep the fastest pair. "
                    "Linear PI divides every pair by s, the fastest one too."),
        quiz.option(f"4 radians ({_STEPS[4]:.0f}°)", False,
                    f"Stretching slows the rotation down (fewer radians per position), so that "
                    f"positions up to {_S2}L produce the angles of positions up to L. "
                    f"Multiplying by s would do the opposite."),
        kind="compute",
    ),
    quiz.question(
        f"NTK-aware scaling multiplies the base by s^(d/(d−2)). What happens to the slowest pair "
        f"if you multiply the base by just s instead (d = {_D}, s = {_S:g})?",
        quiz.option("It is divided by exactly s anyway, since d/(d−2) is nearly 1.", False,
                    f"Nearly 1 is not 1. The slowest frequency is n^(−(d−2)/d), so the base n·s "
                    f"divides it by s^((d−2)/d) = {_DIV:.2f}, not {_S:g}, and at the new length "
                    f"it runs {100 * (_OVER - 1):.1f} % past its trained arc."),
        quiz.option("It turns faster, since every frequency grows with the base.", False,
                    "The other way round: θᵢ = n^(−2i/d) gets *smaller* when n grows (only "
                    "θ₀ = 1 stays). Both recipes slow the pairs down; they differ in how much."),
        quiz.option("It is divided by less than s and overshoots its trained arc.", True,
                    f"Its frequency is n^(−(d−2)/d), so n·s divides it by s^((d−2)/d) = "
                    f"{_DIV:.2f} instead of {_S:g}. At the new length s·L it then covers "
                    f"s^(2/d) = {_OVER:.3f} times its trained arc, {100 * (_OVER - 1):.1f} % "
                    f"beyond. The exponent d/(d−2) makes the division exactly s."),
        kind="predict",
    ),
    quiz.question(
        f"A head with d = {_D4} and base {_N4:g} was trained on L = {_L4} tokens. YaRN "
        f"stretches it by s = {_S4:g}. Pair i makes rᵢ = L·θᵢ/2π turns in L, with "
        f"θᵢ = {_N4:g}^(−2i/{_D4}). Which pairs does YaRN divide by exactly s?",
        quiz.option(f"Pairs {_HIGH4} to {_D4 // 2 - 1}", True,
                    f"YaRN divides by the full s every pair that made less than one turn in "
                    f"training: r_{_HIGH4 - 1} = {_R4[_HIGH4 - 1]:.2f} but r_{_HIGH4} = "
                    f"{_R4[_HIGH4]:.2f}, so pairs {_HIGH4} to {_D4 // 2 - 1}. Stretched by s, "
                    f"they end exactly at the end of their trained arcs at the new length s·L. "
                    f"(In the code's terms: high = ⌈i(1)⌉ = {_HIGH4}.)"),
        quiz.option(f"Pairs 0 to {_LOW4}", False,
                    f"Those are the pairs YaRN *keeps*: they turn at least 32 times in L "
                    f"(r_{_LOW4} = {_R4[_LOW4]:.1f}), so they have seen every angle already, "
                    f"and keeping them keeps neighbouring tokens distinct. The pairs divided by s "
                    f"are at the other end."),
        quiz.option(f"Pairs {_NO_2PI[0]} to {_D4 // 2 - 1}", False,
                    f"That is where L·θᵢ drops below 1, the count without the 2π. One turn is "
                    f"2π radians, so rᵢ = L·θᵢ/2π, and it drops below 1 already at pair "
                    f"{_HIGH4} (r_{_HIGH4} = {_R4[_HIGH4]:.2f})."),
        quiz.option(f"Only pair {_D4 // 2 - 1}", False,
                    f"That is NTK-aware scaling: it divides only the last pair by exactly s and "
                    f"the others by less, so on this head {_NTK4_OUT} of the {_UNDER4.size} pairs "
                    f"under one turn still run past their trained arcs. YaRN divides all "
                    f"{_UNDER4.size} of them by s."),
        kind="compute",
    ),
    quiz.question(
        f"A model trained on L = {_L} tokens is stretched by Position Interpolation with "
        f"s = {_S5}. A query attends to a key {_DELTA5} positions back. At which offset does the "
        f"head read its trained score curve a(Δ)?",
        quiz.option(f"At Δ = {_READ5:g}, between two trained offsets", True,
                    f"PI divides every frequency by s, so offset {_DELTA5} turns each pair by "
                    f"{_DELTA5}·θᵢ/{_S5} = {_READ5:g}·θᵢ. That is between the trained integers "
                    f"{_LO5} and {_LO5 + 1}, where the bound on |a''| holds: for the chapter's "
                    f"fit the curve is at most {_BOUND5_UP:.4f} from the straight line through "
                    f"a({_LO5}) and a({_LO5 + 1}). That is why PI is the safe stretch."),
        quiz.option(f"At Δ = {_DELTA5}, beyond the trained offsets", False,
                    f"That is plain RoPE, unstretched. Nothing constrained the curve there: the "
                    f"chapter's fit, below {_INSIDE_UP:.2f} in size on 0 … L, is "
                    f"{_A5[3]:.1f} at Δ = {_DELTA5}. PI avoids this by dividing the offset by s."),
        quiz.option(f"At Δ = {_LO5}, the nearest trained offset", False,
                    f"PI does not round. The angles {_DELTA5}·θᵢ/{_S5} are real numbers, so the "
                    f"head reads the curve at the fractional offset {_READ5:g}, between trained "
                    f"integers. That is why the chapter needs a bound for what happens between "
                    f"them."),
        quiz.option(f"At Δ = {_WRAP5}, since the offset wraps round after {2 * _L}", False,
                    f"Each pair's angle wraps round its own circle, but the pairs have different, "
                    f"unrelated wavelengths, so the whole curve a(Δ) does not repeat after "
                    f"{2 * _L} (or any other length). PI divides the offset by s instead: "
                    f"{_DELTA5}/{_S5} = {_READ5:g}."),
        kind="compute",
    ),
    quiz.question(
        "The lab model copies the token 3 back. Run it, without fine-tuning, at 64 tokens with "
        "linear PI (s = 2). What does it output?",
        quiz.option("The token 3 back, a bit less reliably than before.", False,
                    "That is roughly what plain RoPE, NTK and YaRN do: they leave the fastest "
                    "pairs (almost) alone. PI halves every angle, so offset 3 now looks like "
                    "offset 1.5 to the model."),
        quiz.option("Random tokens, since it never saw sequences of 64 tokens.", False,
                    "Plain RoPE never saw 64 tokens either, yet it still copies three back. "
                    "PI's failure is not random but systematic: it comes from what PI does to "
                    "short offsets."),
        quiz.option("The token 6 back, whose offset now has the angles of 3.", True,
                    "With frequencies θᵢ/2, the offset 6 produces exactly the angles 3θᵢ that "
                    "offset 3 produced in training. The head fetches the key whose rotation it "
                    "learned, and that key now sits six positions back. The chapter measures "
                    "exactly this."),
        kind="predict",
    ),
    quiz.question(
        f"A model trained on L = {_L} tokens (d = {_D}, base {_N:g}) is set up with Hugging "
        f"Face's dynamic NTK scaling, factor 4. How much does it stretch the slowest pair on an "
        f"input of {_L // 2} tokens, and on one of {2 * _L}?",
        quiz.option(f"Not at all on {_L // 2} tokens; by {_DYN4_2L:.0f} on {2 * _L}.", True,
                    f"Dynamic NTK recomputes the NTK-aware base for the input at hand, with the "
                    f"running factor 4·ℓ/L − 3: 1 for every input up to L (nothing changes), and "
                    f"4·2 − 3 = {_DYN4_2L:.0f} at ℓ = 2L. With factor 1 it would be exactly "
                    f"ℓ/L = {_DYN1_2L:.0f}, the least stretch that keeps the slowest pair inside "
                    f"its trained arc."),
        quiz.option(f"By {_FIX_HALF:.0f} on both inputs.", False,
                    f"That is a *fixed* factor 4 (NTK-aware or PI): it stretches every input, "
                    f"short ones too, so a {_L // 2}-token input no longer runs with the trained "
                    f"frequencies. Dynamic scaling starts only beyond L."),
        quiz.option(f"Not at all on {_L // 2} tokens; by 2 on {2 * _L}.", False,
                    f"2 = ℓ/L is dynamic NTK with factor 1. Hugging Face's running factor is "
                    f"factor·ℓ/L − (factor − 1), which with factor 4 gives {_DYN4_2L:.0f} at "
                    f"2L: more stretch than needed."),
        kind="compute",
    ),
    quiz.question(
        f"Llama 3.1's configuration reads rope_type \"llama3\", factor {_S8:g}, "
        f"low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings {_L8}, "
        f"rope_theta {_N8:g}, with d = {_D8}. Which pairs keep their frequency?",
        quiz.option(f"Pairs 0 to {_KEPT8[-1]}: wavelength at most L/4 = {_L8 // 4}.", True,
                    f"Llama 3.1 keeps every pair whose wavelength is at most L/high_freq_factor = "
                    f"{_L8}/4, that is, every pair that turns at least 4 times in L, divides by "
                    f"{_S8:g} those with a wavelength above L/low_freq_factor = {_L8} (pairs "
                    f"{_DIV8[0]} to {_D8 // 2 - 1}, under one turn) and blends the "
                    f"{_DIV8[0] - _KEPT8[-1] - 1} in between, linearly in the turns."),
        quiz.option(f"Pairs 0 to {_YLOW8}: at least 32 turns in L, as in YaRN.", False,
                    f"That is YaRN's rule, with β = 32. Llama 3.1's threshold is 4 turns "
                    f"(wavelength L/4), so it keeps more pairs: 0 to {_KEPT8[-1]}. Both divide "
                    f"the same pairs by s, those under one turn."),
        quiz.option(f"Pairs 0 to {_DIV8[0] - 1}: every pair with at least one turn.", False,
                    f"Only the pairs with at least 4 turns (wavelength at most L/4) are kept: "
                    f"0 to {_KEPT8[-1]}. The {_DIV8[0] - _KEPT8[-1] - 1} pairs {_KEPT8[-1] + 1} to "
                    f"{_DIV8[0] - 1}, with between 1 and 4 turns, are blended between kept and "
                    f"divided by {_S8:g}, linearly in the turns."),
        quiz.option(f"None: the factor {_S8:g} applies to every pair.", False,
                    "That is linear Position Interpolation. The llama3 rule keeps the fast pairs, "
                    "which went round many times in training, and divides only the slow ones by "
                    f"{_S8:g}."),
        kind="compute",
    ),
)
