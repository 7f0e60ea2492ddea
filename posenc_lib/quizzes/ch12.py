"""Quick check of chapter 12."""

from __future__ import annotations

from .. import quiz

QUIZ = quiz.quiz(
    quiz.question(
        "You must run a RoPE model trained on 4k-token inputs on 32k-token inputs, without retraining it. What do you change?",
        quiz.option("Nothing: RoPE is relative, so it extrapolates.", False,
                    "Relative means the score depends on j - i, not that every j - i works. Distances beyond 4k make the slow pairs turn through angles the model never saw; chapter 10's lab and the table above show RoPE losing accuracy on longer inputs."),
        quiz.option("Its rotation frequencies (PI, NTK-aware scaling or YaRN).", True,
                    "The new frequencies make long inputs produce angles like those seen in training. Only the angles change, so the trained weights stay usable. PI divides every frequency by 8, NTK-aware raises the base, YaRN interpolates only the slow pairs; a short fine-tune helps all of them."),
        quiz.option("Add a learned table for positions 4k to 32k.", False,
                    "Those rows would be untrained, and a RoPE model has no place that reads an added table: its weights expect rotated queries and keys."),
        quiz.option("Switch the model to ALiBi.", False,
                    "ALiBi extrapolates, but this model's weights were trained with rotated queries and keys. Changing the encoding means training again."),
    ),
    quiz.question(
        "A mystery layer gives exactly the same logits for positions [0, 1, ..., 5] and [10, 11, ..., 15]. What can you conclude?",
        quiz.option("It has no position encoding.", False,
                    "That is one possibility, but a relative scheme (RoPE, ALiBi, T5) also ignores a shift of all positions: every distance j - i is the same in both lists. Compare lists with different distances."),
        quiz.option("It is relative, or it has no position encoding at all.", True,
                    "An absolute input encoding would almost surely change the logits. A shift keeps every distance, so relative schemes cannot see it. To separate them from NoPE, try positions such as [0, 2, 5, 9, ...] whose distances differ."),
        quiz.option("It uses a learned table that repeats after 10 positions.", False,
                    "A learned table gives every position its own vector; nothing makes rows 0 and 10 equal."),
    ),
    quiz.question(
        "You train a decoder on 1k-token documents. Later it must read 4k-token documents, with no fine-tuning, and above all it must not break. Which encoding do you pick now?",
        quiz.option("A learned absolute table of 1024 rows.", False,
                    "Position 1024 has no row: the model cannot read the longer documents at all."),
        quiz.option("Sinusoids: they are defined at every position.", False,
                    "Defined, but the model has only seen positions below 1024; in chapter 10's lab the sinusoidal model lost most of its accuracy on longer inputs."),
        quiz.option("ALiBi, then measure it on the task.", True,
                    "A score bias defined at every distance (ALiBi, or T5's buckets) meets nothing unseen: far keys simply get more of the same penalty. The price is that distant tokens get little weight, and the method still has to fit the task, so measure."),
    ),
    quiz.question(
        "Which of these methods makes the number of learned parameters grow with the longest input the model can read?",
        quiz.option("T5's bucketed bias.", False,
                    "T5 learns one scalar per head and bucket (32 buckets), whatever the length: far offsets share the last bucket."),
        quiz.option("A learned absolute table.", True,
                    "It needs one d-dimensional vector per position, L_max times d numbers, and nothing at all for positions beyond L_max."),
        quiz.option("RoPE.", False,
                    "RoPE's angles pos * theta_i come from a formula: no learned parameters at any length."),
        quiz.option("ALiBi.", False,
                    "ALiBi's slopes are fixed before training; the bias -m|i - j| needs no table."),
    ),
)
