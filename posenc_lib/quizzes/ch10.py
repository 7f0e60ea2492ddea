"""Quick check of chapter 10."""

from __future__ import annotations

from .. import quiz

def build(order, order_bos, latest, sweep) -> quiz.Quiz:
    return quiz.quiz(
        quiz.question(
            f"A bidirectional NoPE model with a mean read-out scores {order.accuracy['none'][0]:.2f} on the order task. Your colleague suggests training ten times longer. What will happen?",
            quiz.option("Nothing useful: the model is exactly invariant to permutations, so a sequence and its A/B-swapped twin always get the same answer, and one of the two is wrong.", True,
                        f"The symmetry holds for every value of the weights, so no amount of training breaks it. On the pairs the accuracy is exactly 0.5; {order.accuracy['none'][0]:.2f} is that plus sampling noise."),
            quiz.option("It will slowly climb towards 1, like the learned-position model.", False,
                        "The learned model has a position signal to learn from; NoPE has none. Swapping A and B is a permutation, and the output cannot change under it."),
            quiz.option(f"It will reach about {order.accuracy['t5'][0]:.2f}, like T5 after 300 steps.", False,
                        "T5's bias has separate buckets for keys before and after the query, so it can see direction. NoPE has no such signal; its ceiling is 0.5."),
        ),
        quiz.question(
            f"Bidirectional ALiBi is at chance on the order task, but reaches {order_bos.accuracy['alibi'][0]:.2f} when every sequence starts with a BOS token. Why does the start token help?",
            quiz.option("The distance to a fixed token at position 0 tells which of A and B comes first, and the reversed sequence (ending in BOS) is no longer an input of the task.", True,
                        "ALiBi still only sees distances, but now there is an anchor: A closer to the start means A first. The mirror-image argument needs the reversed input to be a possible input, and it no longer is."),
            quiz.option("The BOS token makes ALiBi's bias matrix asymmetric.", False,
                        "The bias is still −m|i−j|, unchanged under reversal. What changes is the input: reversing it moves BOS to the end."),
            quiz.option("The BOS token carries a learned position vector.", False,
                        "BOS is an ordinary token with an ordinary embedding. Its power comes from always being at the same place."),
        ),
        quiz.question(
            "A causal sinusoidal model trained on 32 tokens is tested on 256. Its accuracy on positions 0–31 of the long input is still 1.0. Why?",
            quiz.option("In a causal model position t sees only tokens 0..t, so the first 32 positions are computed exactly as in training.", True,
                        "Nothing after position t can influence it. Only positions 32 and later meet something new: sinusoids the model never saw."),
            quiz.option("Sinusoids are periodic, so positions repeat.", False,
                        "With many frequencies, including very slow ones, the encoding does not repeat within 256 positions; and the positions after 32 fail, so periodicity does not save them."),
            quiz.option("The model learned to ignore positions.", False,
                        "Copy-back cannot be solved without positions: the tokens are random. The model uses positions, and fails exactly where they are new."),
        ),
        quiz.question(
            f"In our copy-back runs ALiBi has the flattest accuracy line of all six schemes, at about {sweep.accuracy['alibi'][0]:.2f}. What is the right reading?",
            quiz.option("ALiBi's behaviour does not change with length, but the behaviour it learned — a recency-weighted guess among the last few tokens — does not solve the task.", True,
                        "Both halves come from the same penalty: it makes long inputs look like short ones, and it gives no way to single out the token exactly 3 back when content is random."),
            quiz.option("ALiBi extrapolates best, so it is the best scheme for this task.", False,
                        f"A flat line at {sweep.accuracy['alibi'][0]:.2f} is flat failure. Extrapolation is only worth having once the task is solved at the training length."),
            quiz.option("The ALiBi code in the lab must be broken.", False,
                        f"The same scheme gets {order_bos.accuracy['alibi'][0]:.2f} on the order task with a start token, and the outputs follow exactly the recency pattern ALiBi predicts: previous token most often, then 2 back, then 3 back."),
        ),
        quiz.question(
            "RoPE only sees relative distances. Why does its copy-back accuracy still fall on long inputs?",
            quiz.option("Its score is a function of the distance that training shaped only for distances up to 31; at larger distances the rotations produce score patterns it never saw, and some far keys score high by accident.", True,
                        "Relative is not the same as length-proof: a 256-token input contains distances up to 255. The stray stripes in the attention map are those accidental matches."),
            quiz.option("RoPE encodes absolute positions, like sinusoids.", False,
                        "The score after rotation depends only on the distance between query and key (chapter 8); shifting both changes nothing."),
            quiz.option("Softmax attention cannot handle more than 32 keys.", False,
                        "The same softmax works fine for ALiBi at 256 tokens. What matters is what the scores look like at unseen distances."),
        ),
        quiz.question(
            f"ALiBi scores {sweep.accuracy['alibi'][-1]:.2f} on copy-back at 256 tokens but {latest.accuracy['alibi'][-1]:.2f} on the latest-signal task, the best of all six schemes. What single property explains both numbers?",
            quiz.option("Its score penalty grows with distance in the same straight line at every length: it can rank keys by nearness, which is all the latest-signal task needs, but it cannot make a head peak at exactly 3 back.", True,
                        "On long inputs the steep head keeps its attention near, exactly as in training, so the latest-signal rule carries over unchanged. The same monotone penalty is why copy-back was never learned, even at 32 tokens."),
            quiz.option("ALiBi learns absolute positions more easily than the other schemes.", False,
                        "ALiBi has no absolute positions at all: its bias depends only on the distance i − j. That is part of why a long input looks like a short one to it."),
            quiz.option("The latest-signal task is easier, so every scheme extrapolates on it.", False,
                        f"Every scheme learns it at 32 tokens, but at 256 RoPE keeps only {latest.accuracy['rope'][-1]:.2f}, T5 {latest.accuracy['t5'][-1]:.2f} and sinusoidal {latest.accuracy['sinusoidal'][-1]:.2f}: their heads spread attention over distances they never saw."),
        ),
    )
