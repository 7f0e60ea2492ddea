"""Quick check of chapter 10b: perplexity, the two protocols, untrained table rows, flat curves
and the passkey.

The feedback quotes the chapter's stored results: ``build(curves=..., passkey=...)`` takes
:func:`posenc_lib.lab.textlm.length_curves` and :func:`posenc_lib.lab.textlm.passkey_results`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...display import quiz
from ...lab import textlm

# Q1: probabilities 1/2, 1/2, 1/8, 1/8 of the right characters
_P1 = np.array([0.5, 0.5, 0.125, 0.125])
_PPL1 = textlm.perplexity(-np.log(_P1))
_ARITH1 = 1 / _P1.mean()
_INV1 = float(np.mean(1 / _P1))
assert abs(_PPL1 - 4.0) < 1e-12 and abs(_ARITH1 - 3.2) < 1e-12 and abs(_INV1 - 5.0) < 1e-12


def _median(curves: dict[str, Any], scheme: str, protocol: str) -> np.ndarray:
    return np.median([run[protocol] for run in curves["schemes"][scheme]], axis=0)


def build(curves: dict[str, Any], passkey: dict[str, Any]) -> quiz.Quiz:
    """The quiz, with numbers from the stored results."""
    lengths = curves["lengths"]
    rope_non, rope_sl = _median(curves, "rope", "nonoverlapping"), _median(curves, "rope",
                                                                             "sliding")
    learned_non = _median(curves, "learned", "nonoverlapping")
    # Q2: at 64 the two protocols score different text and agree within a few percent
    text_gap = abs(rope_sl[0] / rope_non[0] - 1)
    assert rope_sl[-1] > rope_non[-1] * 1.1 and text_gap < 0.05
    # the largest change of any ALiBi model, either protocol, at any length (as in the text)
    alibi_change = max(float(np.max(np.abs(np.asarray(run[proto]) / run[proto][0] - 1)))
                       for run in curves["schemes"]["alibi"]
                       for proto in ("nonoverlapping", "sliding"))
    pk_alibi = np.median(passkey["schemes"]["alibi"], axis=0)
    pk_none = np.median(passkey["schemes"]["none"], axis=0)
    assert pk_none[-1] > pk_alibi[-1] + 0.1 and pk_alibi[-1] < pk_alibi[0] - 0.3
    return quiz.quiz(
        quiz.question(
            "A model gives the characters that really came next the probabilities 1/2, 1/2, 1/8 "
            "and 1/8. What is its perplexity on these four characters?",
            quiz.option(f"{_PPL1:.0f}", True,
                        "Perplexity is 1 over the geometric mean: (½·½·⅛·⅛)^(−1/4) = (1/256)^(−1/4)"
                        " = 4. In bits: the mean of −log₂ p is (1+1+3+3)/4 = 2 bits, and 2² = 4."),
            quiz.option(f"{_ARITH1:.1f}", False,
                        "That is 1 over the arithmetic mean of the probabilities (0.3125). "
                        "Perplexity averages the logarithms: exp(−mean(ln p)) = 4."),
            quiz.option(f"{_INV1:.0f}", False,
                        "That is the mean of 1/p (2, 2, 8, 8). Average the logarithms first: "
                        "(1/256)^(−1/4) = 4."),
            quiz.option("2", False,
                        "2 is the loss in bits per character, −mean(log₂ p). Perplexity is 2 to "
                        "that power: 4."),
            kind="compute",
        ),
        quiz.question(
            f"The RoPE models score {rope_non[-1]:.1f} at {lengths[-1]} characters with "
            f"non-overlapping windows and {rope_sl[-1]:.1f} with a sliding window. Why is the "
            "sliding-window number worse?",
            quiz.option("It scores only each window's last 64 positions, where RoPE's loss is "
                        "highest.", True,
                        "The sliding window keeps the farthest positions of each window "
                        f"({lengths[-1] - 64} to {lengths[-1] - 1} at {lengths[-1]}); "
                        "non-overlapping windows average over all positions, near the start "
                        "included. RoPE meets more and more unseen rotation angles the farther a "
                        "query is from the start, so its loss rises along the window (the "
                        "chapter's position table)."),
            quiz.option("The protocols score different stretches of text; the sliding one's is "
                        "harder.", False,
                        "They do, but at 64 characters, where both score familiar positions, "
                        f"they agree to within {100 * text_gap:.0f}%. The gap at "
                        f"{lengths[-1]} is {100 * (rope_sl[-1] / rope_non[-1] - 1):.0f}%: it comes "
                        "from the positions, not the text."),
            quiz.option("A sliding window gives each character less context than a "
                        "non-overlapping one.", False,
                        "It gives more: every scored character sees at least length − stride "
                        "characters. Non-overlapping windows are the ones with little context "
                        "at their start (the early-token curse)."),
        ),
        quiz.question(
            f"The learned table has 1024 rows, so the learned model runs on {lengths[-1]}-"
            f"character windows. Its perplexity still rises from {learned_non[0]:.1f} to "
            f"{learned_non[1]:.1f} at {lengths[1]}. Why?",
            quiz.option("Rows 64 and beyond were never trained: they hold random values.", True,
                        "Training only ever used positions 0–63, so only those rows received "
                        "gradients. From position 64 on the model adds random vectors to its "
                        "token embeddings: it runs, and it reads noise."),
            quiz.option("1024 rows are too many parameters: the table overfits the text.", False,
                        "The unused rows cost nothing at the training length, where the learned "
                        "model is as good as it is; they only matter when a long input reaches "
                        "them — untrained."),
            quiz.option("A learned table cannot represent more than 64 positions.", False,
                        "A table could hold any positions. These rows simply never saw a "
                        "training example; a model trained on longer windows would fill them."),
        ),
        quiz.question(
            f"ALiBi's perplexity moves by at most {100 * alibi_change:.1f}% from 64 to "
            f"{lengths[-1]} characters (every seed, both protocols). Does that show the ALiBi "
            f"model uses {lengths[-1]} characters of context?",
            quiz.option("No: flat means the extra characters do no harm, not that they help.",
                        True,
                        "A model that only looks at the last few dozen characters also has a "
                        "flat curve. The ALiBi paper's own sliding-window analysis finds that "
                        "ALiBi mostly does not use context beyond its training length; the "
                        "passkey test asks the question directly (at "
                        f"{passkey['lengths'][-1]} characters our ALiBi models find the key in "
                        f"{pk_alibi[-1]:.2f} of the inputs, median of three seeds)."),
            quiz.option("Yes: if far context were ignored, the perplexity would rise.", False,
                        "Ignoring far context costs nothing when the near context predicts "
                        "most characters — and it does. A rise means something *harmful* "
                        "happens at new positions; flat means nothing harmful does."),
            quiz.option("Yes, because ALiBi's bias is defined at every distance, so every key "
                        "in the window can be reached.", False,
                        "Defined, yes — and at large distances it subtracts so much that those "
                        "keys get almost no weight. That is why long inputs are harmless, not "
                        "evidence that they are used."),
        ),
        quiz.question(
            "Predict: ALiBi has the flattest perplexity curve of all six schemes. In passkey "
            f"retrieval at {passkey['lengths'][-1]} characters (key at a random place), how does "
            "it compare with NoPE?",
            quiz.option("Less often than NoPE: its distance penalty also hides a far key.", True,
                        f"Median of three seeds: ALiBi {pk_alibi[-1]:.2f}, NoPE "
                        f"{pk_none[-1]:.2f} (at {passkey['lengths'][0]} characters: "
                        f"{pk_alibi[0]:.2f} and {pk_none[0]:.2f}). Retrieval is a content match; "
                        "NoPE puts nothing in its way, ALiBi subtracts m·distance from it."),
            quiz.option("More often: a flat perplexity curve means it copes with long inputs.",
                        False,
                        "Perplexity is dominated by nearby characters. In retrieval ALiBi drops "
                        f"from {pk_alibi[0]:.2f} to {pk_alibi[-1]:.2f}, below NoPE's "
                        f"{pk_none[-1]:.2f}: flat perplexity is not long context."),
            quiz.option("Neither finds it: at 16 times the training length no model can.",
                        False,
                        f"Both find many keys: ALiBi {pk_alibi[-1]:.2f} and NoPE "
                        f"{pk_none[-1]:.2f} of the inputs (chance: 0.01). Finding the earlier "
                        "'@' by its content needs no position; copying the character after it "
                        "needs only the local order that the causal mask gives even NoPE "
                        "(chapter 10)."),
            kind="predict",
        ),
    )
