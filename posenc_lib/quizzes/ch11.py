"""Quick check of chapter 11."""

from __future__ import annotations

from .. import quiz

QUIZ = quiz.quiz(
    quiz.question(
        "A RoPE model with d = 128, base 10000 is trained on 2048 tokens and run, unchanged, on 8192. Which pairs meet angles they never met in training?",
        quiz.option("The slow pairs, whose wavelength is longer than 2048 positions.", True,
                    "They turned less than once during training, so offsets beyond 2048 move them onto the unseen part of their circle. The fast pairs went round many times: every angle they can take was already seen."),
        quiz.option("The fast pairs, because they turn the most.", False,
                    "Turning a lot is what protects them: after many full turns every angle on the circle has been seen, so longer offsets bring nothing new for these pairs."),
        quiz.option("All pairs equally, since every angle grows with the offset.", False,
                    "Every angle grows, but angles wrap around the circle. What matters is whether the pair completed a turn within the training context, and that differs enormously between pairs."),
    ),
    quiz.question(
        "You stretch a model by s = 4 with linear Position Interpolation. What happens to the angle between neighbouring tokens in the fastest pair?",
        quiz.option("It shrinks from 1 radian to 1/4 radian, so neighbours become harder to tell apart.", True,
                    "PI divides every frequency by s, including θ_0 = 1. All positions fit into the trained range, but they are packed s times closer together."),
        quiz.option("It stays 1 radian: PI only changes the slow pairs.", False,
                    "That describes NTK-aware scaling or YaRN, which keep the fast pairs. Linear PI divides every pair by s."),
        quiz.option("It grows to 4 radians, because the context is 4 times longer.", False,
                    "Stretching slows the rotation down (angles per position get smaller), so that positions up to 4L produce the angles of positions up to L."),
    ),
    quiz.question(
        "NTK-aware scaling multiplies the base by s^(d/(d−2)) instead of simply by s. Why?",
        quiz.option("So that the slowest pair, i = d/2 − 1, ends up divided by exactly s.", True,
                    "Its frequency is n^(−(d−2)/d). Multiplying n by s^(d/(d−2)) divides it by s^((d−2)/(d−2)) = s. With n·s it would be divided only by s^((d−2)/d), a little less than s."),
        quiz.option("So that the fastest pair keeps θ_0 = 1.", False,
                    "Any change of base keeps θ_0 = n^0 = 1. The exponent is about the other end, the slowest pair."),
        quiz.option("It makes no difference: d/(d−2) is almost 1.", False,
                    "It is close to 1 for large d, but the slowest pair is then divided by s^((d−2)/d) instead of s: it ends slightly short of the trained range, which is the whole point of stretching."),
    ),
    quiz.question(
        "In the lab, linear PI at 64 tokens (s = 2) turns the copy-3-back model into a copy-6-back model. Why?",
        quiz.option("With frequencies θ_i/2, the offset 6 produces exactly the angles that offset 3 produced in training.", True,
                    "The head learned to find the key whose rotation angles are 3θ_i away. After PI that key sits 6 positions back, so the model faithfully fetches the wrong token."),
        quiz.option("Because the model never saw sequences of 64 tokens.", False,
                    "Plain RoPE never saw 64 tokens either, and it still copies three back almost perfectly. The failure is specific to what PI does to short offsets."),
        quiz.option("Because YaRN's attention scale sharpens the softmax too much.", False,
                    "Linear PI has no attention scale (it is 1). The effect comes from the frequencies alone."),
    ),
)
