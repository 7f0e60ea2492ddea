"""Quick check of chapter 12.

Every number the feedback quotes is computed here with the library: the stretch factor, YaRN's
scale, the T5 parameter counts, the lab's training budget, the same-token spread of the
chapter's sinusoidal head, the rows a whole-width pairing permutation moves between heads, and
GPT-NeoX-20B's rotating pairs.
"""

from __future__ import annotations

import numpy as np

from ... import lab
from ...display import quiz
from ...maths import rope, rope_scaling
from .. import catalogue

# Q1: a RoPE model trained on 4096 tokens, run on 32768.
_TRAIN, _TARGET = 4096, 32768
_S = _TARGET // _TRAIN                                                    # 8
_, _YARN_QK = rope_scaling.scaled_frequencies(128, _S, "yarn", 10000.0,
                                              original_max_len=_TRAIN)   # 0.1 ln 8 + 1
_YARN_LOGITS = _YARN_QK ** 2                                              # on q·k: squared

# Q3: T5's bias in a 6-layer, 8-head decoder stack of width 512.
_T5_ARGS = ("t5", 512, 512, 8, 6)
_T5_COUNT = catalogue.position_parameters(*_T5_ARGS, t5_buckets=32)       # 8 · 32
_T5_HEADS, _T5_LAYERS = _T5_ARGS[3], _T5_ARGS[4]
_T5_PER_LAYER = _T5_COUNT * _T5_LAYERS
_T5_HALF = _T5_HEADS * 32 // 2

# Q4: the lab's training budget (chapter 10).
_STEPS = lab.default_training("copy_back")["steps"]                       # 400

# Q5: the chapter's same-token test on the sinusoidal head (d = 16, L = 24, seed 0).
_token = np.random.default_rng(1).standard_normal(16)
_SIN_SPREAD = catalogue.diagonal_spread(
    catalogue.position_layer("sinusoidal", d=16, seed=0)(np.tile(_token, (24, 1)), np.arange(24)))

# Q6: converting a 32-head checkpoint with one permutation over all rows of W_Q.
_CONV_HEADS, _CONV_HEAD_DIM = 32, 128
_CONV_ROWS = _CONV_HEADS * _CONV_HEAD_DIM
_perm_all = rope.pairing_permutation(_CONV_ROWS)
_CONV_MOVED = int(np.sum(_perm_all // _CONV_HEAD_DIM != np.arange(_CONV_ROWS) // _CONV_HEAD_DIM))

# Q7: GPT-NeoX-20B's partial rotary.
_NEOX_WIDTH, _NEOX_HEADS, _NEOX_ROT, _NEOX_SETTING, _neox_note = catalogue.PARTIAL_ROTARY[
    "GPT-NeoX-20B"]
_NEOX_HEAD = _NEOX_WIDTH // _NEOX_HEADS                                   # 96
_NEOX_PCT = _NEOX_ROT / _NEOX_HEAD                                        # 0.25
_NEOX_PAIRS = _NEOX_ROT // 2                                              # 12
_NEOX_WIDTH_PAIRS = int(_NEOX_PCT * _NEOX_WIDTH) // 2                     # 768: pct of the model

QUIZ = quiz.quiz(
    quiz.question(
        f"A RoPE model trained on {_TRAIN:,}-token inputs must now read {_TARGET:,}-token "
        "inputs, *without any fine-tuning*. What do you change?",
        quiz.option("Nothing: RoPE is relative, so every length works fine.", False,
                    "Relative means the score depends on j − i, not that every j − i works. "
                    f"Beyond {_TRAIN:,} tokens the slow pairs turn through angles the model never "
                    "saw; chapter 10's lab and the table above show RoPE losing accuracy on "
                    "longer inputs."),
        quiz.option("Its frequencies, with NTK-aware scaling or YaRN.", True,
                    f"Both bring the angles of a {_TARGET:,}-token input back towards those seen "
                    "in training while keeping the fast pairs sharp. NTK-aware scaling raises the "
                    f"base so that the slowest pair is divided by exactly {_S}; YaRN keeps the "
                    f"fast pairs, divides the slow ones by {_S}, ramps in between, and multiplies "
                    f"q and k by {_YARN_QK:.3f} each, so every logit grows by {_YARN_QK:.3f}² ≈ "
                    f"{_YARN_LOGITS:.2f}. Both helped chapter 11's lab model without any "
                    "training. On real models they extend the context only somewhat without "
                    "fine-tuning (NTK is best set for a factor above the stretch, or recomputed "
                    "per length), and a short fine-tune improves them."),
        quiz.option(f"Divide every frequency by {_S}, as PI does.", False,
                    "Position interpolation maps every new position into the trained range, but "
                    f"packs neighbours {_S} times closer, and the model has to relearn them: PI "
                    "needs fine-tuning. Without it, chapter 11's lab model fell to chance, and "
                    "the short fine-tune that repaired the other methods was not enough for PI."),
        quiz.option("Replace RoPE by ALiBi, which extrapolates.", False,
                    "This model's weights were trained with rotated queries and keys; with "
                    "another encoding they no longer fit. Changing the encoding means training "
                    "again, which the question rules out."),
    ),
    quiz.question(
        "A mystery layer gives the same logits (up to rounding) for positions [0, 1, ..., 5] "
        "and [10, 11, ..., 15], but different logits for [0, 2, 5, 9, 14, 20]. What can you "
        "conclude?",
        quiz.option("It has no position encoding at all.", False,
                    "A layer without position would give the same logits for *every* position "
                    "list, including [0, 2, 5, 9, 14, 20]. The second list changed them, so "
                    "position is in there."),
        quiz.option("It adds a learned absolute table to the input.", False,
                    "An absolute encoding gives positions 0–5 and 10–15 different vectors, so the "
                    "logits would almost surely change under the shift. Only a table whose rows "
                    "happened to repeat could pass, and a learned table has no reason to."),
        quiz.option("It is relative: it sees only distances.", True,
                    "The shift keeps every distance j − i and changed nothing; the second list "
                    "has other distances and changed the logits. That is the signature of a "
                    "relative scheme (RoPE, ALiBi, T5). Exercise 1 adds the zero input to tell "
                    "RoPE (whose logits vanish) from the two biases."),
        quiz.option("It must be RoPE: only a rotation ignores a shift.", False,
                    "ALiBi and T5 add a bias that depends on j − i only, so they ignore a shift "
                    "just as well. To tell RoPE from them, feed x = 0: only RoPE's logits "
                    "vanish."),
    ),
    quiz.question(
        f"A decoder stack has {_T5_LAYERS} layers of {_T5_HEADS} heads (d = 512) and uses T5's "
        "bucketed bias with 32 buckets. How many learned position parameters does the stack "
        "hold? (Pen and paper, or `catalogue.position_parameters`.)",
        quiz.option(str(_T5_HALF), False,
                    "In a bidirectional encoder T5 gives half of its buckets to each direction, "
                    f"but the table still holds 32 scalars per head: {_T5_HEADS} × 32 = "
                    f"{_T5_COUNT}."),
        quiz.option(str(_T5_LAYERS * 32), False,
                    f"That is {_T5_LAYERS} × 32: the number of layers in place of the number of "
                    "heads. The table has one row per head, and all layers of the stack share "
                    f"it: {_T5_HEADS} × 32 = {_T5_COUNT}."),
        quiz.option(str(_T5_COUNT), True,
                    f"One scalar per head and bucket, {_T5_HEADS} × 32 = {_T5_COUNT}, computed "
                    "once and shared by every layer of the stack. The count does not depend on "
                    "the input length."),
        quiz.option(f"{_T5_PER_LAYER:,}", False,
                    f"That is a table in every layer: {_T5_LAYERS} × {_T5_HEADS} × 32. T5 "
                    "computes its bias once and shares it with all layers of the stack: "
                    f"{_T5_HEADS} × 32 = {_T5_COUNT}."),
        kind="compute",
    ),
    quiz.question(
        "You train a decoder on 1k-token documents. Later it must read 4k-token documents, with "
        "no fine-tuning, and above all it must not break. Which encoding do you pick now?",
        quiz.option("ALiBi: a fixed penalty at every distance.", True,
                    "ALiBi's bias −m·|i − j| is a fixed formula with fixed slopes: a far key "
                    "meets no learned number that training never reached, it simply gets a "
                    "larger penalty. Still measure on your task: in chapter 10's lab ALiBi held "
                    "up best on longer inputs of the latest-signal task, but on the copy task its "
                    f"{_STEPS} training steps gave only a recency guess (ten times longer training taught "
                    "it only in part), and far tokens get little weight."),
        quiz.option("A learned absolute table of 1024 rows.", False,
                    "Position 1024 has no row: the model cannot read the longer documents at "
                    "all."),
        quiz.option("Sinusoids: they are defined at every position.", False,
                    "Defined, but the model has only seen positions below 1024; in chapter 10's "
                    "lab the sinusoidal model lost most of its accuracy on longer inputs."),
        quiz.option("RoPE, then stretch it with PI when needed.", False,
                    "Plain RoPE lost accuracy beyond its training length in chapter 10's lab, "
                    "and PI without fine-tuning fell to chance in chapter 11's; the question "
                    "rules out fine-tuning."),
    ),
    quiz.question(
        "In the same-token test, one token stands at every position of a head that adds a "
        "sinusoidal encoding to its input. Predict the logits along one diagonal j − i = r.",
        quiz.option("Constant: the sinusoids depend only on i − j.", False,
                    "PE(i)·PE(j) alone depends only on i − j (chapter 6), but the head computes "
                    "(x + p_i)ᵀ W (x + p_j) with W = W_Q W_Kᵀ between them: the cross terms "
                    "with the content, and p_iᵀ W p_j itself, change with the absolute "
                    "positions."),
        quiz.option("All equal: one repeated token carries no order.", False,
                    "The token is the same, but each copy gets the encoding of its own "
                    "position added before W_Q and W_K, so the logits differ from pair to pair."),
        quiz.option("They vary with the absolute positions i and j.", True,
                    "The logit is (x + p_i)ᵀ W (x + p_j)/√d_k: the cross terms xᵀ W p_j and "
                    "p_iᵀ W x move with the absolute positions, and so does p_iᵀ W p_j once W "
                    f"sits between the encodings. In this chapter's test they varied by "
                    f"{_SIN_SPREAD:.2f} along a diagonal."),
        kind="predict",
    ),
    quiz.question(
        f"A checkpoint has {_CONV_HEADS} heads of {_CONV_HEAD_DIM} that use adjacent pairs. To run "
        "it in rotate-half code, you permute the rows of W_Q and W_K with one adjacent → "
        f"rotate-half permutation of size {_CONV_ROWS:,}, the full model width. What happens?",
        quiz.option("Nothing changes: that is the right permutation.", False,
                    "The pairs live inside each head: pair i of a head moves from (2i, 2i + 1) to "
                    f"(i, i + {_CONV_HEAD_DIM // 2}) of *that head*. A permutation of all "
                    f"{_CONV_ROWS:,} rows treats the model as one head of {_CONV_ROWS:,}: it moves "
                    f"{_CONV_MOVED:,} rows into another head's block. Permute each head's "
                    f"{_CONV_HEAD_DIM} rows instead (`rope.convert_qk_weight`)."),
        quiz.option("Scores change silently: rows move between heads.", True,
                    f"{_CONV_MOVED:,} of the {_CONV_ROWS:,} rows land in another head's block, so "
                    "queries and keys are rotated with the wrong pairs and frequencies. Shapes "
                    "are unchanged and nothing raises; only the attention is wrong. Permute head "
                    "by head, as `rope.convert_qk_weight` and Hugging Face's Llama conversion do."),
        quiz.option("It fails with a shape error at the first attention layer.", False,
                    "A permutation of rows keeps the shape of W_Q and W_K, so nothing complains. "
                    f"The damage is silent: {_CONV_MOVED:,} rows end up in another head's block. "
                    "That is what makes this mistake dangerous: test scores against the original "
                    "model after converting."),
        kind="predict",
    ),
    quiz.question(
        f"GPT-NeoX-20B has width {_NEOX_WIDTH:,} and {_NEOX_HEADS} heads, and its configuration "
        f"says `{_NEOX_SETTING}`. How many pairs of coordinates rotate in each head?",
        quiz.option(f"{_NEOX_PAIRS} pairs", True,
                    f"A head has {_NEOX_WIDTH:,}/{_NEOX_HEADS} = {_NEOX_HEAD} features; "
                    f"{_NEOX_PCT:g} of them, {_NEOX_ROT}, rotate, and that is {_NEOX_PAIRS} pairs, "
                    f"with the frequencies of a {_NEOX_ROT}-dimensional RoPE. The other "
                    f"{_NEOX_HEAD - _NEOX_ROT} features carry no position."),
        quiz.option(f"{_NEOX_ROT} pairs", False,
                    f"{_NEOX_ROT} is the number of rotated *features*; they form pairs, so "
                    f"{_NEOX_PAIRS} pairs rotate."),
        quiz.option(f"{_NEOX_HEAD // 2} pairs", False,
                    f"That would be every pair of a {_NEOX_HEAD}-feature head. `rotary_pct` "
                    f"rotates only a share of it: {_NEOX_PCT:g} × {_NEOX_HEAD} = {_NEOX_ROT} "
                    f"features, {_NEOX_PAIRS} pairs."),
        quiz.option(f"{_NEOX_WIDTH_PAIRS} pairs", False,
                    f"That applies {_NEOX_PCT:g} to the whole model width. RoPE acts on each head "
                    f"separately: {_NEOX_PCT:g} × {_NEOX_HEAD} = {_NEOX_ROT} features per head, "
                    f"{_NEOX_PAIRS} pairs."),
        kind="compute",
    ),
    quiz.question(
        "What did Kazemnejad et al. find about decoders with no position encoding (NoPE)?",
        quiz.option("Without positions, a decoder is a bag of words.", False,
                    "That holds for attention without a mask (chapter 1). With a causal mask a "
                    "token sees only the tokens before it, so it can count them: Kazemnejad et "
                    "al. proved that such a decoder can represent absolute and relative "
                    "positions."),
        quiz.option("It learns their synthetic tasks as well as the explicit encodings they "
                    "tested, but breaks down on inputs longer than those of training.", False,
                    "On their small synthetic tasks it was the other way round: NoPE generalised "
                    "to longer inputs better than the explicit encodings they tested. (In this "
                    "book's smaller lab, at the training length, NoPE trailed every encoding "
                    "that learned the tasks: the result depends on the setup.)"),
        quiz.option("It can represent position, and on their synthetic tasks it generalised to "
                    "longer inputs better than the encodings they tested.", True,
                    "A causal decoder can recover positions from the mask alone, and on their "
                    "synthetic reasoning and arithmetic tasks NoPE generalised to longer inputs "
                    "better than the explicit encodings they tested. Their tasks and models were "
                    "small: measure before you drop the encoding of a large model."),
    ),
)
