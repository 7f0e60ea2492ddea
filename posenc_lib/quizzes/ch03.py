"""Quick check of chapter 3."""

from __future__ import annotations

from .. import quiz

QUIZ = quiz.quiz(
    quiz.question(
        "Why are sin(p) and sin(q) never exactly equal for two different whole numbers p and q?",
        quiz.option("Because the sine is not periodic.", False,
                    "It is periodic, with period 2π. The point is that 2π is not a whole number of positions."),
        quiz.option("Because equality needs q − p = 2πm or p + q = (2m+1)π, and π is irrational.", True,
                    "Those are the only two ways two angles can share a sine. A whole number can never equal an irrational one — but it can come very close, which is what collisions are."),
        quiz.option("Because computers store sines with limited precision.", False,
                    "Limited precision works the other way: it makes different values look the same. The exact values differ for a mathematical reason."),
    ),
    quiz.question(
        "sin(2) ≈ sin(353). What relation between 2 and 353 explains it?",
        quiz.option("353 − 2 = 351 is almost a whole number of turns.", False,
                    "351/(2π) ≈ 55.86 — not close to a whole number. Check the other symmetry of the sine."),
        quiz.option("2 + 353 = 355 is almost an odd multiple of π (355 ≈ 113π), and sin x = sin(π − x).", True,
                    "It is a mirror pair. That is why the cosines have opposite signs (cos 2 ≈ −0.416, cos 353 ≈ +0.416) — a fact chapter 4 uses."),
        quiz.option("Both are prime numbers.", False,
                    "2 and 353 are prime, but so are 3 and 5, whose sines differ. Primality plays no role in sin."),
    ),
    quiz.question(
        "You encode positions with one number rounded to 3 decimals, in [−1, 1]. How long can a sequence be before two positions must share a value, whatever function you use?",
        quiz.option("2001 positions", True,
                    "There are 2001 distinct values from −1.000 to 1.000; a 2002nd position must reuse one (pigeonhole principle). The sine does much worse: its first collision comes far earlier."),
        quiz.option("No limit if the function is chosen well", False,
                    "The limit comes from counting, not from the function: 2001 values cannot label more than 2001 positions."),
        quiz.option("About 6 positions, the wavelength of sin(pos)", False,
                    "Positions 6.28 apart are close but not equal (sin 0 = 0, sin 6 ≈ −0.279). The question asks about any function."),
    ),
    quiz.question(
        "Lowering ω from 1 to 0.01 reduces the collision count at 3 decimals. Why is that still not a good encoding?",
        quiz.option("Because neighbouring positions get almost the same value.", True,
                    "With ω = 0.01 one step changes the angle by 0.01 radian, so sin changes by at most 0.01. The wave separates far positions but blurs near ones — the reverse trade-off of a fast wave."),
        quiz.option("Because a slow sine is no longer bounded.", False,
                    "Every sine stays in [−1, 1], whatever its frequency."),
        quiz.option("Because it collides more often for long sequences than ω = 1 does.", False,
                    "Not the issue measured here; the problem is visible already on short sequences: adjacent positions are nearly indistinguishable."),
    ),
)
