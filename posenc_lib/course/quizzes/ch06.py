"""Quick check of chapter 6. Every number in the feedback is computed here with the library."""

from __future__ import annotations

import numpy as np

from ...display import quiz
from ...maths import encodings, periodicity, similarity

# Q1: wavelengths of d = 8 (pair 2), and the two usual exponent mistakes
_LAM8 = encodings.wavelengths(8)
_LAM_I_OVER_D = 2 * np.pi * 10000.0 ** (2 / 8)      # exponent i/d with i = 2
_LAM_DIM_INDEX = 2 * np.pi * 10000.0 ** (2 * 4 / 8)  # dimension index 4 used as i
_LAM_I_PLUS_1 = 2 * np.pi * 10000.0 ** (2 * 3 / 8)   # pairs counted from 1: i + 1 = 3

# Q3: base 10 over a 512-token window, d = 512
_LAM_MAX_10 = float(encodings.wavelengths(512, 10.0)[-1])
_REPEAT_10 = int(np.ceil(_LAM_MAX_10))  # every pair has completed a turn within this many tokens
_HALF_10 = similarity.first_offset_below(0.5, 512, 10.0)
_MIN_DIST_10 = float(np.min(similarity.offset_distance(np.arange(1, 512), 512, 10.0)))
_FROZEN_10 = similarity.window_census(512, 512, 10.0)["frozen"]
_FROZEN_1E5 = similarity.window_census(512, 512, 100000.0)["frozen"]

# Q4: tensor2tensor against the paper, d = 512, positions 0..511
_POS = np.arange(512)
_T2T_GAP = float(np.max(np.abs(similarity.sinusoidal_tensor2tensor(_POS, 512)
                               - encodings.sinusoidal(512, 512, layout="concat"))))
# only the first frequency is shared, so no column order can make the tables equal
_SHARED = int(np.sum(np.isclose(similarity.tensor2tensor_frequencies(512)[:, None],
                                encodings.frequencies(512)[None, :], rtol=1e-9, atol=0.0)))
_LAM_T2T = float(2 * np.pi / similarity.tensor2tensor_frequencies(512)[-1])
_LAM_PAPER = float(encodings.wavelengths(512)[-1])

# Q5: float32 near position 15 million (past the crossing, below 2^24), as in the chapter
_HALF_GAP = float(similarity.offset_distance(1, 512)) / 2
_P15 = 15_000_000 + np.arange(50)
_ST, _EX = similarity.sinusoidal_float32(_P15, 512).astype(float), encodings.sinusoidal_at(_P15, 512)
_ERR_15 = float(np.median(np.linalg.norm(_ST - _EX, axis=1)))
_ANGLE_ERR = np.abs(np.angle(np.exp(1j * (np.arctan2(_ST[:, 2:64:2], _ST[:, 3:64:2])
                                          - np.arctan2(_EX[:, 2:64:2], _EX[:, 3:64:2])))))
_FAST_MEDIAN = float(np.median(_ANGLE_ERR))  # pairs 1-31
_FAST_MAX = float(_ANGLE_ERR.max())
_OFFS = np.arange(-100, 101)
_OWN_15 = sum(int(_OFFS[np.argmin(np.linalg.norm(encodings.sinusoidal_at(p + _OFFS, 512) - v, axis=1))]
                  == 0) for p, v in zip(_P15, _ST))

# Q6: pairs that never complete a turn in a 512-token training window
_CENSUS = similarity.window_census(512, 512, 10000.0)
_UNSEEN = _CENSUS["ruler"] + _CENSUS["frozen"]

# Q7: the FFT of column 4 of a d = 8 encoding over 2^16 positions (the chapter's Fourier view)
_L_FFT = 2 ** 16
_OMEGA_2 = float(encodings.frequencies(8)[2])                 # pair 2: dims 4 and 5
_PEAK_4 = float(periodicity.peak_frequencies(encodings.sinusoidal(_L_FFT, 8)[:, 4])[0])
assert abs(_PEAK_4 - _OMEGA_2 / (2 * np.pi)) <= 0.5 / _L_FFT
_LAM_2 = float(encodings.wavelengths(8)[2])

# Q8: "the cat sat on the mat", d = 4: the two "the" (positions 0 and 4), pair by pair
_PE_SENT = encodings.sinusoidal(6, 4)
_GAP_FAST = float(np.linalg.norm(_PE_SENT[4, :2] - _PE_SENT[0, :2]))
_GAP_SLOW = float(np.linalg.norm(_PE_SENT[4, 2:] - _PE_SENT[0, 2:]))
_TURN_SLOW = float(4 * encodings.frequencies(4)[1])             # pair 1 over positions 0 to 4
assert _GAP_FAST > 10 * _GAP_SLOW > 0

QUIZ = quiz.quiz(
    quiz.question(
        "For d = 8 and n = 10000, what is the wavelength of pair i = 2 (dimensions 4 and 5), "
        "in positions?",
        quiz.option(f"About {_LAM_I_OVER_D:.1f} (that is 2π·10)", False,
                    f"That is 2π·n^(i/d) = 2π·10000^(2/8) ≈ {_LAM_I_OVER_D:.1f}: the exponent lost "
                    "its factor 2. The wavelength is λ_i = 2π·n^(2i/d)."),
        quiz.option(f"About {_LAM8[2]:.1f} (that is 2π·100)", True,
                    f"Right: λ_2 = 2π·10000^(4/8) = 2π·100 ≈ {_LAM8[2]:.1f}. At d = 8 each pair is "
                    f"n^(2/d) = {10000 ** (2 / 8):.0f} times slower than the previous one, so the "
                    f"four wavelengths are {', '.join(f'{x:,.1f}' for x in _LAM8)}."),
        quiz.option(f"About {_LAM_I_PLUS_1:,.1f} (that is 2π·1000)", False,
                    f"That is 2π·10000^(2·3/8) ≈ {_LAM_I_PLUS_1:,.1f}, the wavelength of pair 3: "
                    "you counted the pairs from 1. Pair 0 is the fastest (λ_0 = 2π), so pair 2 "
                    "has the exponent 2·2/8."),
        quiz.option(f"About {_LAM_DIM_INDEX:,.0f} (that is 2π·10000)", False,
                    "That puts the *dimension* index 4 where the pair index i = 2 belongs: "
                    f"2π·10000^(2·4/8) ≈ {_LAM_DIM_INDEX:,.0f}. No pair of d = 8 is that slow; the "
                    f"slowest, i = 3, has λ ≈ {_LAM8[3]:,.0f}."),
        kind="compute", ordered=True,  # the wavelengths in ascending order, as on a ladder
    ),
    quiz.question(
        "PE(m)·PE(p) depends only on m − p. Does the attention score "
        "(e_m + PE(m))ᵀ W_Qᵀ W_K (e_p + PE(p)) therefore depend on position only through m − p?",
        quiz.option("Yes: positions enter the score only through dot products, which see offsets.",
                    False,
                    "The position–position term is PE(m)ᵀ A PE(p) with A = W_Qᵀ W_K, not PE(m)·PE(p). "
                    "For a random A the same offset gives different scores (computed in the "
                    "chapter), and the cross terms e_mᵀ A PE(p) and PE(m)ᵀ A e_p see p and m "
                    "themselves."),
        quiz.option("Yes, provided the model uses the paper's interleaved layout, not concat.", False,
                    "The layout is a fixed permutation of dimensions; a permuted A computes exactly "
                    "the same scores. It changes nothing about which functions of position a head "
                    "can compute."),
        quiz.option("No: the content–position terms see absolute positions, and so can PE·A·PE.",
                    True,
                    "Right. The cross terms e_mᵀ A PE(p) and PE(m)ᵀ A e_p change with p and m "
                    "themselves, and even PE(m)ᵀ A PE(p) is offset-only only when A is "
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
        kind="predict",
    ),
    quiz.question(
        "A checkpoint trained with tensor2tensor's encoding (all sines, then all cosines) is run "
        "by code that builds the paper's interleaved table. Does permuting dimensions fix it?",
        quiz.option("Yes: both tables hold the same numbers, so one fixed permutation maps them.",
                    False,
                    "That holds for the paper's formula stored in the concat layout, not for "
                    "tensor2tensor: it spaces its frequencies as n^(−i/(d/2−1)), not n^(−2i/d). "
                    f"For d = 512 the two tables differ by up to {_T2T_GAP:.2f} within 512 "
                    f"positions, and as they share only {_SHARED} of their 256 frequencies, no "
                    "order of the columns can make them equal."),
        quiz.option("No: tensor2tensor also spaces its frequencies differently from the paper.",
                    True,
                    "Right: its frequencies are n^(−i/(d/2−1)), reaching exactly 1/n, so its "
                    f"slowest wavelength is {_LAM_T2T:,.0f} against the paper's {_LAM_PAPER:,.0f}. "
                    "Only the first pair agrees. Reproduce its table exactly (fairseq uses the "
                    "same one), then no permutation is needed."),
        quiz.option("No need: the first layer is linear, so the model adapts to any dimension order.",
                    False,
                    "A linear layer can *absorb* a permutation if its weights are permuted too; "
                    "a trained checkpoint's weights are fixed, so it reads the wrong features. "
                    "And here a permutation would not even be enough: the frequencies differ."),
        kind="concept",
    ),
    quiz.question(
        "A model computes its encoding entirely in float32 (d = 512). Near position 15 million "
        f"the error ‖PE₃₂(p) − PE(p)‖ (about {_ERR_15:.1f}) exceeds half the gap between "
        f"neighbours ({_HALF_GAP:.2f}). What follows?",
        quiz.option("Each stored vector is now closer to a neighbour's true encoding than to its own.",
                    False,
                    "A long error is not enough. To sit nearer PE(p+1), every hand would have to "
                    "be pushed forward by its own step ω_i, all together; the rounding errors push "
                    "some hands forward and others back, at random. Measured in the chapter, the "
                    "float32 vector's nearest true encoding is still its own. Neighbours merge "
                    f"only from 2²⁴ = {2 ** 24:,}, where float32 has no odd integers."),
        quiz.option("Nothing: float32 keeps 7 digits, plenty for values between −1 and 1.", False,
                    "The values are fine; the *angles* are not. The angle p·ω_i of a fast pair is "
                    "millions of radians, where float32 numbers are half a radian or a whole radian "
                    "apart, so rounding the product alone can move it by half a radian; the "
                    "rounded ω_i, multiplied by the position, adds an error of the same size. "
                    f"Measured in the chapter: pairs 1–31 are off by {_FAST_MEDIAN:.2f} radian in "
                    f"the median, up to {_FAST_MAX:.2f}."),
        quiz.option("The fast pairs' angles are badly off, but the vector is still nearest its own.",
                    True,
                    f"Right: the fast pairs 1–31 point the wrong way by {_FAST_MEDIAN:.2f} radian "
                    f"in the median and up to {_FAST_MAX:.2f} (pair 0's angle is exact), so a model "
                    "cannot rely on them. Their errors go forward and back at random, so "
                    "the vector does not "
                    f"drift towards a neighbour: in {_OWN_15} of the {len(_P15)} positions measured, "
                    "it is still nearest its own true encoding. Neighbours merge only from "
                    f"2²⁴ = {2 ** 24:,}. Computing the angles in float64 avoids all of it."),
        kind="predict",
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
        f"Take column 4 of a d = 8 sinusoidal encoding (the sine of pair 2, ω = {_OMEGA_2:g}) over "
        f"{_L_FFT:,} positions and compute its Fourier spectrum. Where is its peak, in cycles "
        "per position?",
        quiz.option(f"At about {_OMEGA_2 / (2 * np.pi):.5f}: ω/2π, one cycle per wavelength", True,
                    "Right: the column is the pure wave sin(pos·ω), which turns ω/2π times per "
                    f"position; the FFT's peak is at {_PEAK_4:.5f}, within half a grid step of it "
                    f"(the grid step is 1/{_L_FFT:,})."),
        quiz.option(f"At {_OMEGA_2:g}, the frequency ω itself", False,
                    "ω is in radians per position; a spectrum counts whole cycles, and one cycle is "
                    f"2π radians, so the peak sits at ω/2π ≈ {_OMEGA_2 / (2 * np.pi):.5f}."),
        quiz.option(f"At about {_LAM_2:.0f}, the pair's wavelength", False,
                    f"{_LAM_2:.0f} is the number of positions per cycle, the inverse of the "
                    "frequency; no frequency above 0.5 cycles per position even appears on the "
                    "FFT's axis."),
        quiz.option("Everywhere: a column of an encoding contains all frequencies", False,
                    "Each column is one sine or cosine of a single frequency, so its spectrum has "
                    "one peak (with a little leakage around it, because the window holds no "
                    "whole number of turns)."),
        kind="compute",
    ),
    quiz.question(
        "In the d = 4 table of *the cat sat on the mat*, the two *the* stand at positions 0 and 4. "
        "Which pair of dimensions tells them apart more?",
        quiz.option("Pair 0, the fast one (dimensions 0 and 1)", True,
                    "Right: it turns one radian per position, so four positions move it far "
                    f"(distance {_GAP_FAST:.2f} between the two points), while the slow pair "
                    f"turns by {_TURN_SLOW:.2f} radian in total (distance {_GAP_SLOW:.2f})."),
        quiz.option("Pair 1, the slow one (dimensions 2 and 3)", False,
                    "The slow pair turns by pos/100 radian: over four positions it moves by "
                    f"only {_GAP_SLOW:.2f}, against {_GAP_FAST:.2f} for the fast pair. Slow pairs "
                    "tell far-apart positions apart, not neighbours."),
        quiz.option("Neither: the same word gets the same vector", False,
                    "The word vector is the same, but the position vector added to it is not: "
                    "row 0 is (0, 1, 0, 1) and row 4 is not, so the model's inputs differ."),
        quiz.option("Both equally, as all pairs have norm 1", False,
                    "Each pair is a point on the unit circle, but the two points of a pair "
                    "are far apart only if the pair turns fast: "
                    f"{_GAP_FAST:.2f} for pair 0, {_GAP_SLOW:.2f} for pair 1."),
        kind="predict",
    ),
)
