"""Quick check of chapter 4."""

from __future__ import annotations

from .. import quiz

QUIZ = quiz.quiz(
    quiz.question(
        "Why does adding cos(pos) remove the collision between positions 2 and 353?",
        quiz.option("Because cos(2) and cos(353) have opposite signs: the two points are mirror images on the circle.", True,
                    "2 + 353 ≈ 113π, so 353 ≈ π − 2 + (whole turns): same sine, opposite cosine. The pair tells the two angles apart."),
        quiz.option("Because the cosine has a longer period than the sine.", False,
                    "Both have period 2π. The cosine helps because it breaks the mirror symmetry sin θ = sin(π − θ), not because of its period."),
        quiz.option("Because two coordinates always collide half as often as one.", False,
                    "The count fell from 1141 to 266, not by half; and the pairs 710 apart still collide, because both coordinates nearly repeat there."),
    ),
    quiz.question(
        "PE(p) = (sin p, cos p). Which statement about the matrix R(k) with PE(p + k) = R(k) PE(p) is true?",
        quiz.option("R(k) depends on p, so each position needs its own matrix.", False,
                    "Expand sin(p + k) and cos(p + k): the coefficients are cos k and sin k only. That independence from p is the whole point."),
        quiz.option("R(k) is a rotation by k radians and depends only on k.", True,
                    "It is orthogonal with determinant 1 and contains only cos k and sin k. One matrix moves every position k steps on."),
        quiz.option("R(k) only exists for k > 0.", False,
                    "It works for every real k; R(−k) is the inverse rotation, R(k) transposed."),
    ),
    quiz.question(
        "With the alternating encoding at d = 16 (one frequency), how many independent numbers describe a position?",
        quiz.option("16", False,
                    "The 16 dimensions hold 8 copies of (sin, cos). The matrix of encodings has rank 2."),
        quiz.option("2", True,
                    "sin(ω pos) and cos(ω pos) — and even those are tied together by sin² + cos² = 1, so really one angle. Chapter 5 gives each pair its own frequency."),
        quiz.option("8", False,
                    "8 is the number of (sin, cos) pairs, but they are identical: together they carry no more than one pair."),
    ),
    quiz.question(
        "With one frequency ω = 1, PE(p)·PE(q) = cos(p − q). What does this mean for an attention head that wants to favour nearby words?",
        quiz.option("It works: the dot product is largest for nearby words.", False,
                    "It is largest at offset 0, but also nearly as large at offsets 44, 333, 710… (near whole turns): near and far look alike."),
        quiz.option("It cannot use this signal alone: cos(p − q) comes back to almost 1 at offsets like 44 and 710.", True,
                    "A single frequency measures the offset modulo 2π only. Telling near from far needs slower waves too — chapter 5."),
        quiz.option("It works only if the head is trained long enough.", False,
                    "Training cannot change the encoding here: cos(44) ≈ 0.9998 is a property of the signal, not of the weights."),
    ),
)
