"""Quick check of chapter 10 (what extrapolates, measured).

``build`` takes the chapter's results: ``order`` and ``order_bos`` (:class:`SeedSweep` of the
order task without and with a start token), ``sweep`` and ``latest`` (seed-0
:class:`SweepResult` of copy-back and latest-signal), ``copy_seeds`` (:class:`SeedSweep` of
copy-back) and ``alibi_long`` (the ALiBi copy-back model trained ten times longer). Every number in
a prompt or in feedback is computed from them or with the library.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import lab
from ...display import quiz
from ...lab import extrapolation
from ...maths import alibi, attention


def build(order: Any, order_bos: Any, latest: Any, sweep: Any, copy_seeds: Any,
          alibi_long: Any) -> quiz.Quiz:
    low, high = extrapolation.chance_band(256)
    steps_order = lab.default_training("order")["steps"]
    steps = lab.default_training("copy_back")["steps"]
    none_lo, none_hi = order.low["none"][0], order.high["none"][0]
    t5_lo, t5_hi = order.low["t5"][0], order.high["t5"][0]
    bos = order_bos.per_seed["alibi"]  # one tuple per seed
    bos_txt = ", ".join(f"{a[0]:.2f}" for a in bos)
    alibi_lo, alibi_hi = copy_seeds.low["alibi"], copy_seeds.high["alibi"]
    long32, long256 = alibi_long.accuracy["alibi"][0], alibi_long.accuracy["alibi"][-1]
    # a causal head with equal scores and value 1 on the start token, 0 elsewhere, at t = 9
    t9, n9 = 9, 16
    ones = np.zeros((n9, 1))
    ones[0] = 1.0
    out_c = attention.attention(np.zeros((n9, 2)), np.zeros((n9, 2)), ones, causal=True)[0][:, 0]
    out_b = attention.attention(np.zeros((n9, 2)), np.zeros((n9, 2)), ones, causal=False)[0][:, 0]
    assert abs(out_c[t9] - 1 / (t9 + 1)) < 1e-12 and np.allclose(out_b, 1 / n9)
    m_steep, m_gentle = (float(m) for m in alibi.slopes(2))
    steep, base2, gentle = math.exp(-100 * m_steep), 2.0 ** (-100 * m_steep), \
        math.exp(-100 * m_gentle)
    return quiz.quiz(
        quiz.question(
            f"A bidirectional NoPE model with a mean read-out scores {none_lo:.2f}–{none_hi:.2f} "
            f"on the order task (three seeds, {steps_order} steps each). A colleague suggests "
            "training it "
            "ten times longer. What do you predict?",
            quiz.option("It stays at chance: a sequence and its A/B-swapped twin get the same output.",
                        True,
                        "The model is exactly invariant to permutations, for every value of the "
                        "weights, so no amount of training breaks the tie: of each pair of twins "
                        "exactly one is answered right, an accuracy of exactly 0.5 in "
                        f"expectation. {none_lo:.2f}–{none_hi:.2f} is that 0.5 plus the noise of "
                        "256 test sequences."),
            quiz.option("It slowly climbs towards 1, as the learned-position model did in "
                        f"{steps_order} steps.", False,
                        "The learned model has a position signal to learn from; NoPE has none. "
                        "Swapping A and B is a permutation of the input, and the output of a "
                        "mean-read-out model *without positions* cannot change under it."),
            quiz.option(f"With enough steps it reaches T5's range, {t5_lo:.2f}–{t5_hi:.2f}, or "
                        "even better than that.", False,
                        "T5's bias has separate buckets for keys before and after the query, so "
                        "it can see direction, and one of its seeds solved the task. NoPE has no "
                        "such signal: its expected accuracy is 0.5 whatever the training."),
            kind="predict",
        ),
        quiz.question(
            "With a start token at position 0, bidirectional ALiBi reached "
            f"{bos_txt} on the order task with seeds 0, 1 and 2 (chance band "
            f"{low:.2f}–{high:.2f}). What does the start token change?",
            quiz.option("It makes the task learnable: distance to a fixed first token reveals the "
                        "order.", True,
                        "Without it, a sequence and its reverse get the same output, and one of "
                        "the two is wrong. With it, the reverse (ending in the start token) is "
                        "no longer an input of the task, and *A nearer the start* means *A "
                        "first*. Learnable is not learned, though: one seed is still inside the "
                        f"chance band after {steps_order} steps."),
            quiz.option("It makes ALiBi's bias matrix asymmetric, so that reversing the input "
                        "changes it.", False,
                        "The bias is still −m·|i − j|, unchanged under reversal. What changes is "
                        "the input: reversing it moves the start token to the end, and such an "
                        "input never occurs."),
            quiz.option("It guarantees success: every seed now solves the task within the "
                        f"{steps_order} steps.",
                        False,
                        f"Look at the numbers: {bos_txt}, against a chance band of "
                        f"{low:.2f}–{high:.2f}. The start token removes the symmetry that forced "
                        "chance; how fast a model finds the rule still depends on the seed."),
        ),
        quiz.question(
            "A causal sinusoidal model trained on 32 tokens scores "
            f"{sweep.accuracy['sinusoidal'][-1]:.2f} on 256-token inputs. What accuracy do you "
            "predict on positions 3–31 of those long inputs?",
            quiz.option(f"About {sweep.accuracy['sinusoidal'][-1]:.2f}, the same as over the "
                        "whole input.", False,
                        "The average over 256 positions mixes the first 32, which are fine, with "
                        "224 new ones, most of them wrong. Position by position the picture is "
                        "very different."),
            quiz.option(f"About {sweep.accuracy['sinusoidal'][0]:.2f}, exactly as on the 32-token "
                        "inputs.",
                        True,
                        "In a causal model position t sees only tokens 0..t, so the first 32 "
                        "positions of a long input are computed exactly as in training. Only "
                        "positions 32 and later meet sinusoids the model never saw."),
            quiz.option(f"About 1/16 ≈ {1 / 16:.2f}: the model has stopped copying at all.",
                        False,
                        "Nothing after position t can reach position t through a causal mask: "
                        "appending 224 tokens cannot spoil the first 32 predictions."),
            kind="predict",
        ),
        quiz.question(
            f"After {steps} steps ALiBi's copy-back accuracy stays between {min(alibi_lo):.2f} and "
            f"{max(alibi_hi):.2f} at every length from 32 to 256 tokens, with all three seeds: "
            f"the flattest line of all. Trained {10 * steps} steps, the same model scores "
            f"{long32:.2f} "
            f"at 32 tokens and {long256:.2f} at 256. How should you read the flat line?",
            quiz.option("ALiBi extrapolates best on copy-back: its score does not depend on the "
                        "length.", False,
                        f"A flat line at {max(alibi_hi):.2f} is flat failure: the model never "
                        "solved the task at 32 tokens, so there was nothing to keep. Once it "
                        f"partly learns the task ({10 * steps} steps) its line falls too, from "
                        f"{long32:.2f} to "
                        f"{long256:.2f}."),
            quiz.option(f"ALiBi's penalty rules out an exact offset, so {steps} steps were its "
                        "best.",
                        False,
                        "The penalty rules it out only for a *first-layer* head, whose attention "
                        "can only fade with distance. A second layer reads what the first wrote, "
                        f"and with ten times the steps ALiBi reaches {long32:.2f} and outputs "
                        "the token 3 back most often."),
            quiz.option("It never learned the rule: a guess among the last few tokens scores the "
                        "same at any length.",
                        True,
                        f"In {steps} steps ALiBi (like NoPE) settled on *one of the last few "
                        "tokens*. "
                        "That guess works the same on any length, hence the flat line; it says "
                        "nothing about how a learned rule would extrapolate. With "
                        f"{10 * steps} steps "
                        f"ALiBi learns the task in part, and then its accuracy falls from "
                        f"{long32:.2f} to {long256:.2f}."),
        ),
        quiz.question(
            "RoPE only sees relative distances. Why does its copy-back accuracy still fall on "
            "long inputs?",
            quiz.option("Its scores were shaped only at distances up to 31; far keys can score "
                        "high.", True,
                        "Relative is not the same as length-proof: a 256-token input contains "
                        "distances up to 255, and at those the rotations produce score patterns "
                        "the model never saw. The stray stripes in the attention map are such "
                        "accidental matches."),
            quiz.option("RoPE really encodes absolute positions, just like the sinusoidal vectors "
                        "do.", False,
                        "After the rotation, a query–key score depends only on the distance "
                        "between them (chapter 8): shifting both positions changes nothing."),
            quiz.option("Softmax attention over more than 32 keys cannot stay sharp enough to "
                        "copy.", False,
                        "More keys alone do not blur a softmax whose target scores clearly "
                        "highest: what matters is whether other keys score as high. In RoPE's "
                        "copying head on 256-token inputs, some far keys, at distances never "
                        "seen in training, draw weight away from the key 3 back: the stray "
                        "stripes in the attention map."),
        ),
        quiz.question(
            f"ALiBi's steep head has slope m = 1/{round(1 / m_steep)}. Two keys have the same "
            "content score; one is the query itself (distance 0), the other 100 tokens back. "
            "By what factor is the far key's unnormalised weight exp(score) smaller?",
            quiz.option(f"≈ {steep:.4f}", True,
                        f"The bias is −m·100 = −{100 * m_steep:.2f}, and exp(−{100 * m_steep:.2f})"
                        f" ≈ {steep:.4f}. Far keys hardly count for this head, so a long input "
                        "looks like a short one to it: that is why the latest-signal rule "
                        "carries over to long inputs "
                        f"({latest.accuracy['alibi'][-1]:.2f} at 256 tokens)."),
            quiz.option(f"≈ {base2:.4f}", False,
                        f"That is 2^(−{100 * m_steep:.2f}). The slopes are powers of 2, but the "
                        "bias is added to the score, and the softmax exponentiates with base e: "
                        f"exp(−{100 * m_steep:.2f})."),
            quiz.option(f"≈ {gentle:.4f}", False,
                        f"That is the gentle head, m = 1/{round(1 / m_gentle)}: "
                        f"exp(−100/{round(1 / m_gentle)}) ≈ {gentle:.4f}. Such a head still "
                        "spreads most of its attention over far keys on long inputs."),
            kind="compute",
        ),
        quiz.question(
            f"A causal decoder without positional encoding reads inputs of {n9} tokens that begin "
            "with a start token. One head gives every key the same score; its value is 1 on the "
            f"start token and 0 on every other token. What does it output at position {t9} (the "
            f"{t9 + 1}th token)?",
            quiz.option(f"1/{t9 + 1} = {out_c[t9]:.2f}: a later layer can read the position "
                        "from it.", True,
                        f"With equal scores the head averages the values of the keys it sees, "
                        f"positions 0 to {t9}: {t9 + 1} values, one of them 1. So it outputs "
                        f"1/(t+1), a different number at every position — the first step of "
                        "Kazemnejad et al.'s proof that a causal model without positional "
                        "encoding can represent absolute positions."),
            quiz.option(f"1/{n9} = {out_b[t9]:.4f}, the same at every position.", False,
                        f"That is the same head *without* the causal mask: it averages all "
                        f"{n9} values everywhere and carries no position, which is why a "
                        "bidirectional NoPE model cannot solve the order task. The mask limits "
                        f"position {t9} to keys 0 to {t9}."),
            quiz.option("0, since the start token is far away and the head has no position "
                        "signal.", False,
                        "With equal scores distance plays no part: the start token is one of "
                        f"the {t9 + 1} keys position {t9} sees, and it gets the same weight as "
                        "each of the others."),
            quiz.option("1, the start token's value.", False,
                        f"Only position 0 sees the start token alone. Position {t9} sees "
                        f"{t9 + 1} keys with equal weight, so the start token's 1 is averaged "
                        f"with {t9} zeros."),
            kind="compute",
        ),
        quiz.question(
            "Xiao et al. found that many heads of large language models put a large share of "
            "their attention on the first few tokens, whatever those tokens say (\"attention "
            "sinks\"). On long inputs, this chapter's T5 and RoPE models also sent much of their "
            "attention to keys far back. How are the two related?",
            quiz.option("Both put position before content, but sinks are learned in "
                        "distribution, while our far keys sit at distances that training never "
                        "showed.",
                        True,
                        "A sink is in-distribution behaviour: the first tokens are there in "
                        "every training input, the softmax has to put its weight somewhere, and "
                        "the model learns to park it there — evict them and it breaks. Our far "
                        "keys are out of distribution: their scores come from untrained buckets "
                        "or unseen angles, and there are more of them the longer the input. Our "
                        "small models have no sinks: averaged over the last 32 queries of a "
                        "256-token input, no head gives key 0 even 1% of its attention, and "
                        "inside the training length (queries 16 to 31 of 32-token inputs) no "
                        "head gives it more, on average, than a uniform head would."),
            quiz.option("They are one effect: in a long input the first tokens are also the "
                        "farthest keys, so both are attention lost to distance.", False,
                        "Sinks appear within the training length too, at positions every "
                        "training input has, and the model relies on them: window attention that "
                        "evicts them breaks down. The chapter's far keys get their attention "
                        "because training never shaped their scores at those distances."),
            quiz.option("Both are extrapolation failures, but of different sizes: keeping every "
                        "distance inside the trained range would remove sinks as well as our "
                        "far keys.", False,
                        "Keeping distances inside the trained range is the cure for *our* far "
                        "keys (chapter 11). Sinks are learned behaviour inside the training "
                        "length; StreamingLLM keeps the first tokens in its cache precisely "
                        "because the model needs them."),
            kind="concept",
        ),
    )
