"""Quick check of chapter 6. Every number in the feedback is computed here with the library."""

from __future__ import annotations

import numpy as np

from ...display import quiz
from ...display.numbers import below
from ...maths import encodings, periodicity, similarity

# Q1: wavelengths of d = 12 (pair 2; the chapter works d = 4 and d = 8), and the usual mistakes
_D1, _I1 = 12, 2
_LAM12 = encodings.wavelengths(_D1)
_LAM_I_OVER_D = 2 * np.pi * 10000.0 ** (_I1 / _D1)            # exponent i/d
_LAM_DIM_INDEX = 2 * np.pi * 10000.0 ** (2 * (2 * _I1) / _D1)  # dimension index 4 used as i
_LAM_I_PLUS_1 = 2 * np.pi * 10000.0 ** (2 * (_I1 + 1) / _D1)   # pairs counted from 1
assert _LAM_I_OVER_D < _LAM12[_I1] < _LAM_I_PLUS_1 < _LAM_DIM_INDEX   # ascending, as shown

# Q3: base 10 over a 512-token window, d = 512
_LAM_MAX_10 = float(encodings.wavelengths(512, 10.0)[-1])
_REPEAT_10 = int(np.ceil(_LAM_MAX_10))  # every pair has completed a turn within this many tokens
_HALF_10 = similarity.first_offset_below(0.5, 512, 10.0)
_MIN_DIST_10 = float(np.min(similarity.offset_distance(np.arange(1, 512), 512, 10.0)))
_FROZEN_10 = similarity.window_census(512, 512, 10.0)["frozen"]
_FROZEN_1E5 = similarity.window_census(512, 512, 100000.0)["frozen"]

# Q4: a fairseq-style checkpoint (positions from padding_idx + 1 = 2) run with positions from 0
_D4 = 512
_POS4 = np.arange(50)
_T2T = similarity.sinusoidal_tensor2tensor(np.arange(52), _D4)
_SHIFT_GAP = float(np.min(np.linalg.norm(_T2T[2:] - _T2T[:50], axis=1)))   # every input moves
_DOT_FROM_2 = _T2T[2:] @ _T2T[2:].T
_DOT_FROM_0 = _T2T[:50] @ _T2T[:50].T
_DOTS_SAME = below(float(np.max(np.abs(_DOT_FROM_2 - _DOT_FROM_0))), 1e-9)   # offsets only
assert _SHIFT_GAP > 1.0
_M2 = similarity.shift_matrix(2, _D4)                  # PE(p + 2) = M(2) PE(p), interleaved
_PE_INT = encodings.sinusoidal(52, _D4)
assert np.allclose(_PE_INT[2:], _PE_INT[:50] @ _M2.T, atol=1e-9)

# Q5: an all-float32 encoding at positions 2^25 … 2^25 + 99, where float32 integers are 4 apart
_P25 = 2 ** 25 + np.arange(100)
_DISTINCT_25 = len(np.unique(similarity.sinusoidal_float32(_P25, 512), axis=0))
_DISTINCT_24 = len(np.unique(similarity.sinusoidal_float32(2 ** 24 + np.arange(100), 512), axis=0))
assert _DISTINCT_25 == len(np.unique(_P25.astype(np.float32))) == 26
assert np.spacing(np.float32(2 ** 25)) == 4 and _DISTINCT_24 == 51

# Q6: pairs that never complete a turn in a 512-token training window
_CENSUS = similarity.window_census(512, 512, 10000.0)
_UNSEEN = _CENSUS["ruler"] + _CENSUS["frozen"]

# Q7: the FFT of column 3 (the cosine of pair 1) of a d = 6 encoding over 2^16 positions
_L_FFT = 2 ** 16
_OMEGA_1 = float(encodings.frequencies(6)[1])                 # 10000^(-2/6)
_PEAK_3 = float(periodicity.peak_frequencies(encodings.sinusoidal(_L_FFT, 6)[:, 3])[0])
assert abs(_PEAK_3 - _OMEGA_1 / (2 * np.pi)) <= 0.5 / _L_FFT
_LAM_1 = float(encodings.wavelengths(6)[1])

# Q8: d = 4, positions 0 and 63: the fast pair has turned 63 radians, about ten whole turns
_PE63 = encodings.sinusoidal(64, 4)
_GAP_FAST = float(np.linalg.norm(_PE63[63, :2] - _PE63[0, :2]))
_GAP_SLOW = float(np.linalg.norm(_PE63[63, 2:] - _PE63[0, 2:]))
_TURNS_FAST = 63 / (2 * np.pi)
_MISS_FAST = float(63 - 2 * np.pi * round(_TURNS_FAST))       # past 10 whole turns
_TURN_SLOW = float(63 * encodings.frequencies(4)[1])
assert _GAP_SLOW > 3 * _GAP_FAST > 0 and round(_TURNS_FAST) == 10

QUIZ = quiz.quiz(
    quiz.question(
        f"For d = {_D1} and n = 10000, what is the wavelength of pair i = {_I1} (dimensions 4 "
        "and 5), in positions?",
        quiz.option(f"About {_LAM_I_OVER_D:.1f}", False,
                    f"That is 2π·n^(i/d) = 2π·10000^(2/12) ≈ {_LAM_I_OVER_D:.1f}: the exponent lost "
                    "its factor 2. The wavelength is λ_i = 2π·n^(2i/d)."),
        quiz.option(f"About {_LAM12[_I1]:.1f}", True,
                    f"λ_2 = 2π·10000^(4/12) = 2π·10000^(1/3) ≈ {_LAM12[_I1]:.1f}. At d = 12 each pair "
                    f"is n^(2/d) = 10000^(1/6) ≈ {10000 ** (2 / _D1):.2f} times slower than the "
                    "previous one, so the six wavelengths are "
                    f"{', '.join(f'{x:,.1f}' for x in _LAM12)}."),
        quiz.option(f"About {_LAM_I_PLUS_1:,.1f}", False,
                    f"That is 2π·10000^(2·3/12) ≈ {_LAM_I_PLUS_1:,.1f}, the wavelength of pair 3: "
                    "you counted the pairs from 1. Pair 0 is the fastest (λ_0 = 2π), so pair 2 "
                    "has the exponent 2·2/12."),
        quiz.option(f"About {_LAM_DIM_INDEX:,.1f}", False,
                    "That puts the *dimension* index 4 where the pair index i = 2 belongs: "
                    f"2π·10000^(2·4/12) ≈ {_LAM_DIM_INDEX:,.1f}, which is the wavelength of pair 4."),
        kind="compute", ordered=True,  # the wavelengths in ascending order, as on a ladder
    ),
    quiz.question(
        "PE(m)·PE(p) depends only on m − p. Does the attention score "
        "(e_m + PE(m)) W_QK (e_p + PE(p))ᵀ, with W_QK = W_Q W_Kᵀ, therefore depend on position "
        "only through m − p?",
        quiz.option("Yes: positions enter the score only through dot products, which see offsets.",
                    False,
                    "The position–position term is PE(m) W_QK PE(p)ᵀ, not PE(m)·PE(p). For a random "
                    "W_QK the same offset gives different scores (computed in the chapter), and "
                    "the cross terms e_m W_QK PE(p)ᵀ and PE(m) W_QK e_pᵀ see p and m themselves."),
        quiz.option("Yes, provided the model uses the paper's interleaved layout, not concat.", False,
                    "The layout is a fixed permutation of dimensions; a permuted W_QK computes exactly "
                    "the same scores. It changes nothing about which functions of position a head "
                    "can compute."),
        quiz.option("No: the content–position terms see absolute positions, as can PE·W_QK·PE.",
                    True,
                    "Right. The cross terms e_m W_QK PE(p)ᵀ and PE(m) W_QK e_pᵀ change with p and m "
                    "themselves, and even PE(m) W_QK PE(p)ᵀ is offset-only only when W_QK is "
                    "block-diagonal with a scaled rotation on each pair. The sinusoids make "
                    "offset-based scoring *possible*, not automatic; RoPE (chapter 8) makes it "
                    "automatic."),
        kind="concept",
    ),
    quiz.question(
        "You change the base from n = 10000 to n = 10, keeping d = 512. What happens to the "
        "encodings of positions 0…511?",
        quiz.option(f"Every pair repeats within {_REPEAT_10} tokens: the positions stay "
                    "distinct, distances blur.", True,
                    f"Right: the longest wavelength is 2π·10^(510/512) ≈ {_LAM_MAX_10:.1f}, so by "
                    f"{_REPEAT_10} tokens every pair has turned at least once. The "
                    f"similarity falls to 0.5 within {_HALF_10} tokens and then hovers around 0, so "
                    "a 50-token and a 400-token gap look alike. The encodings remain different "
                    f"(no two are closer than {_MIN_DIST_10:.1f}) because the pairs' wavelengths "
                    "are unrelated."),
        quiz.option("Most pairs barely move across 512 tokens, so the encoding is nearly constant.",
                    False,
                    "That is the large-base problem: slow pairs that hardly move (frozen). With "
                    f"n = 10 every pair is fast: {_FROZEN_10} frozen pairs, against {_FROZEN_1E5} "
                    "for n = 100000."),
        quiz.option("Far positions get identical encodings, since every wave repeats inside the window.",
                    False,
                    "Each pair repeats, but at its own wavelength, and these wavelengths are "
                    "unrelated, so the combination does not repeat: no two of the 512 encodings "
                    f"come closer than {_MIN_DIST_10:.1f}. What is lost is distance information, "
                    "not distinctness."),
        kind="concept",
    ),
    quiz.question(
        "A translation model trained with fairseq numbers its first token's position 2 "
        "(padding_idx + 1). Your port reproduces its table exactly but numbers the positions from "
        "0. What happens?",
        quiz.option("Nothing: the encoding only sees offsets, which are unchanged.", False,
                    "The dot products between encodings only see offsets: they agree to within "
                    f"{_DOTS_SAME:.0e}. But the model adds PE(p) to each token's embedding, and "
                    "every added vector is now another one, at least "
                    f"{_SHIFT_GAP:.1f} away, and the content–position terms see p itself."),
        quiz.option("Every token gets the vector of two positions later: outputs change.", False,
                    "The other way round: the checkpoint expects PE(p + 2) for the token at p and "
                    "now gets PE(p), the vector of two positions *earlier*. Either way every "
                    "input moves, and with it every output."),
        quiz.option("Every input changes, though position dot products stay the same.", True,
                    "Each token gets PE(p) where the checkpoint learned PE(p + 2), the vector two "
                    "positions later (a fixed rotation of PE(p), as the chapter showed), at least "
                    f"{_SHIFT_GAP:.1f} away at d = {_D4}. The dot "
                    "products between two encodings depend only on offsets, so they agree to "
                    f"within {_DOTS_SAME:.0e}, but a trained model reads more than those: the "
                    "content–position terms see p itself. Reproduce the positions too, not only "
                    "the table."),
        quiz.option("Only the first two tokens change; later ones are fine.", False,
                    "Every token shifts by the same two positions: the token at p gets PE(p) "
                    "instead of PE(p + 2), from the first to the last."),
        kind="predict",
    ),
    quiz.question(
        "From 2²⁴ on, float32 has no odd integers; from 2²⁵ on, consecutive float32 integers are "
        "4 apart. An all-float32 implementation (d = 512) encodes positions 2²⁵, 2²⁵ + 1, …, "
        "2²⁵ + 99. How many *different* vectors does it produce?",
        quiz.option("25", False,
                    "100 positions 4 apart would give 25, but each position is rounded to the "
                    "*nearest* multiple of 4, and 2²⁵ + 99 rounds up to 2²⁵ + 100: the values "
                    f"2²⁵ + 0, 4, …, 100 are {_DISTINCT_25}."),
        quiz.option(f"{_DISTINCT_25}", True,
                    "Before the sine is taken, the position itself is stored in float32 and rounded "
                    "to the nearest multiple of 4: 2²⁵ + 0, 4, 8, …, 100, which are "
                    f"{_DISTINCT_25} numbers (2²⁵ + 99 rounds up). Equal stored positions give "
                    "equal vectors in every dimension. Between 2²⁴ and 2²⁵, where the step is 2, "
                    f"the same 100 positions give {_DISTINCT_24}."),
        quiz.option(f"{_DISTINCT_24}", False,
                    f"That is the count just above 2²⁴, where float32 integers are 2 apart. From "
                    f"2²⁵ on they are 4 apart: {_DISTINCT_25}."),
        quiz.option("100", False,
                    "Only if float32 could store every integer. Above 2²⁵ it stores only "
                    "multiples of 4, and a rounded position gives the rounded position's vector: "
                    f"{_DISTINCT_25} different vectors."),
        kind="compute", ordered=True,
    ),
    quiz.question(
        "A model with sinusoidal encodings (d = 512) was trained on 512-token sequences. "
        "What can you say about 2,000-token inputs?",
        quiz.option("Encodings exist, but slow pairs reach angles unseen in training: measure it.",
                    True,
                    f"Right: {_UNSEEN} of the 256 pairs never completed a turn within 512 tokens, "
                    "so beyond that their angles are new to every weight that reads them. How much "
                    "quality drops has to be measured (chapter 10); ALiBi and scaled RoPE were "
                    "designed to do better."),
        quiz.option("Nothing changes: every position has an encoding, and dot products see offsets.",
                    False,
                    "Existing is not working: the model was fitted on a finite range of angles, "
                    f"and {_UNSEEN} slow pairs leave it beyond 512 tokens. Offset-only dot products "
                    "help only if the heads learned to use them, which nothing forces."),
        quiz.option("It fails: like a learned table, the encoding has no vector past 512 tokens.",
                    False,
                    "That is true of learned position embeddings (BERT, GPT-2), not of sinusoids: "
                    "sin and cos can be evaluated at any position."),
        kind="concept",
    ),
    quiz.question(
        f"Take column 3 of a d = 6 sinusoidal encoding (the *cosine* of pair 1, "
        f"ω = {_OMEGA_1:.4f}) over {_L_FFT:,} positions and compute its Fourier spectrum. Where "
        "is its peak, in cycles per position?",
        quiz.option(f"At about {_OMEGA_1:.4f}, the frequency ω itself", False,
                    "ω is in radians per position; a spectrum counts whole cycles, and one cycle is "
                    f"2π radians, so the peak sits at ω/2π ≈ {_OMEGA_1 / (2 * np.pi):.5f}."),
        quiz.option(f"At about {_OMEGA_1 / (2 * np.pi):.5f} cycles, that is ω/2π", True,
                    "A cosine is the same wave as a sine, a quarter turn later, so it has the same "
                    "single frequency: ω/2π cycles per position, one per wavelength "
                    f"({_LAM_1:.1f} positions). The FFT's peak is at {_PEAK_3:.5f}, within half a "
                    f"grid step of it (the grid step is 1/{_L_FFT:,})."),
        quiz.option(f"At about {_LAM_1:.0f}, the pair's wavelength", False,
                    f"{_LAM_1:.0f} is the number of positions per cycle, the inverse of the "
                    "frequency; no frequency above 0.5 cycles per position even appears on the "
                    "FFT's axis."),
        quiz.option("At 0: a cosine starts at its peak", False,
                    "Starting at 1 is a matter of phase, not of frequency: the column still "
                    f"oscillates once every {_LAM_1:.1f} positions, and its spectrum peaks at "
                    f"ω/2π ≈ {_OMEGA_1 / (2 * np.pi):.5f}, not at 0."),
        kind="compute",
    ),
    quiz.question(
        "With d = 4 (pair 0 turns 1 radian per position, pair 1 turns 0.01), a word appears at "
        "positions 0 and 63. Which pair of dimensions tells the two positions apart more?",
        quiz.option("Pair 0, the fast one (dimensions 0 and 1)", False,
                    f"It turned 63 radians, but that is {_TURNS_FAST:.2f} turns: only "
                    f"{_MISS_FAST:.2f} radian past 10 whole turns, so its two points are "
                    f"{_GAP_FAST:.2f} apart. The slow pair turned {_TURN_SLOW:.2f} radian: "
                    f"{_GAP_SLOW:.2f} apart."),
        quiz.option("Pair 1, the slow one (dimensions 2 and 3)", True,
                    f"Pair 1 turned {_TURN_SLOW:.2f} radian, so its two points are "
                    f"{_GAP_SLOW:.2f} apart. Pair 0 turned 63 radians, {_TURNS_FAST:.2f} turns, and "
                    f"ended only {_MISS_FAST:.2f} radian past where it started: {_GAP_FAST:.2f} "
                    "apart. A fast pair measures offsets only modulo its wavelength; a slow one "
                    "keeps far positions apart."),
        quiz.option("Neither: the same word gets the same vector", False,
                    "The word vector is the same, but the position vector added to it is not: "
                    "PE(0) = (0, 1, 0, 1) and PE(63) differs in both pairs."),
        quiz.option("Both equally, as all pairs have norm 1", False,
                    "Each pair is a point on the unit circle, but how far apart its two points are "
                    "depends on how far it turned, modulo whole turns: "
                    f"{_GAP_FAST:.2f} for pair 0, {_GAP_SLOW:.2f} for pair 1."),
        kind="predict",
    ),
)
