"""Quick check of chapter 5."""

from __future__ import annotations

from .. import quiz

QUIZ = quiz.quiz(
    quiz.question(
        "Why does this book divide by i + 1 instead of writing sin(pos/2i)?",
        quiz.option("With i = 0 the divisor 2i is zero: position 0 gives 0/0 = NaN and other positions divide by zero.", True,
                    "Counting pairs from 1 keeps pair 0 as chapter 4's circle (wavelength 2π) and every other pair slower."),
        quiz.option("Because i + 1 gives higher frequencies.", False,
                    "1/(i+1) is lower than 1/i for every i ≥ 1; the change is about avoiding division by zero, not about speed."),
        quiz.option("It makes no difference; it is a matter of taste.", False,
                    "It makes the difference between a number and NaN for pair 0."),
    ),
    quiz.question(
        "A variant uses sin(pos/1), cos(pos/2), sin(pos/3), cos(pos/4), …: each dimension its own frequency. What does it lose?",
        quiz.option("Boundedness: values can exceed 1.", False,
                    "Every value is still a sine or cosine, so it stays in [−1, 1]."),
        quiz.option("The rotation rule PE(p + k) = R(k) PE(p).", True,
                    "A rotation needs a sine and a cosine of the same angle. With different frequencies no fixed matrix shifts every position (the least-squares fit above shows it)."),
        quiz.option("Nothing: more different frequencies can only help.", False,
                    "Measured above: the best linear shift fails, so attention can no longer turn 'k positions back' into one fixed map."),
    ),
    quiz.question(
        "With the linear schedule at d = 512, the effective number of octaves is about 4. What does that mean?",
        quiz.option("Most pairs crowd into a few octaves, so many dimensions carry nearly the same scale.", True,
                    "Octave b holds 2^b pairs: about half of all pairs share one octave. Extra dimensions become near-copies of the slowest waves."),
        quiz.option("The encoding can only distinguish 4 positions.", False,
                    "It distinguishes thousands of positions; octaves measure which *scales* (wavelengths) are covered, not how many positions."),
        quiz.option("The wavelengths range from 2π to 2π · 4.", False,
                    "The range is 2π to 2π · 256 (8 octaves); 4 is how many octaves are *effectively* used, given how unevenly the pairs are spread."),
    ),
    quiz.question(
        "The linear encoding with d = 64 gives similarity near 0 for every offset beyond about 100. Why is that a problem?",
        quiz.option("Attention cannot tell 150 positions back from 5000 back through this signal.", True,
                    "All far offsets look equally dissimilar. The slowest pair has wavelength πd ≈ 201, so nothing measures longer distances."),
        quiz.option("It is not a problem: far words should be ignored anyway.", False,
                    "Many dependencies are long (a pronoun and its antecedent, a closing bracket). A model should at least be able to measure them."),
        quiz.option("It means the encoding is no longer relative.", False,
                    "It is still relative — the similarity depends only on the offset. The problem is how much that function says about large offsets."),
    ),
)
