"""Quick check of chapter 1: permutations, repeated words, the causal mask and pooling.

Every number quoted in the feedback is computed here with the chapter's toy head
(:func:`posenc_lib.toy.self_attention`, d = 16, seed 0).
"""

from __future__ import annotations

import numpy as np

from .. import quiz, toy
from ..numbers import below

_A = "dog bites man".split()
_B = "man bites dog".split()             # first and last word swapped
_C = "man dog bites".split()             # order = [2, 0, 1]: not its own inverse
_TWINS = "the brown dog chased the black dog".split()

_out_a, _w_a = toy.self_attention(_A)
_out_b, _ = toy.self_attention(_B)
_, _w_c = toy.self_attention(_C)
_out_causal, _ = toy.self_attention(_TWINS, causal=True)

# Q1: the middle word's output row is the same in both sentences
_MIDDLE_TOL = below(np.max(np.abs(_out_a[1] - _out_b[1])), 1e-12)
# Q2: A'[r, c] = A[order[r], order[c]]; query 'dog' (0) on key 'man' (2) in A
_ORDER = [2, 0, 1]
_A_DOG_MAN = float(_w_a[0, 2])
assert np.isclose(_w_c[1, 0], _A_DOG_MAN, atol=1e-12)
assert np.allclose(_w_c, _w_a[np.ix_(_ORDER, _ORDER)], atol=1e-12)
# Q4: with a causal mask the two dogs see different prefixes
_DOG_1, _DOG_2 = [i for i, w in enumerate(_TWINS) if w == "dog"]   # positions 2 and 6
_CAUSAL_GAP = float(np.linalg.norm(_out_causal[_DOG_1] - _out_causal[_DOG_2])
                    / np.linalg.norm(_out_causal[_DOG_1]))
assert _CAUSAL_GAP > 0.05
# Q5: the mean of the output rows does not depend on the order
_POOL_TOL = below(np.max(np.abs(_out_a.mean(axis=0) - _out_b.mean(axis=0))), 1e-12)


def _entry(r: int, c: int) -> str:
    return f"{_w_c[r, c]:.3f}"


QUIZ = quiz.quiz(
    quiz.question(
        "You swap the first and last word of a three-word sentence and run the same attention "
        "head (no position encoding, no mask). What happens to the output vector of the middle "
        "word?",
        quiz.option("It changes, because its neighbours are now different words.", False,
                    "Attention has no notion of neighbours: every token meets every other "
                    "token, with no distances involved. The middle word still meets the same "
                    "three keys and values."),
        quiz.option("It moves to another row of the output matrix.", False,
                    "Rows move only with the tokens that moved: Attention(PX) = P·Attention(X), "
                    "and this P leaves the middle row where it is."),
        quiz.option("It stays the same, up to floating-point rounding.", True,
                    "Its query meets the same keys and values, only listed in another order, "
                    "and a weighted sum does not depend on the order of its terms (in floating "
                    "point the last bit may change). In the toy head of Experiment 1, the row "
                    f"of *bites* changes by less than {_MIDDLE_TOL:.0e}."),
        kind="predict",
    ),
    quiz.question(
        "Reorder *dog bites man* into *man dog bites* (`order = [2, 0, 1]`). A holds the "
        "weights of the first sentence, A′ those of the second, for the same head. Which entry "
        "of A′ equals A[0, 2], the weight of the query *dog* on the key *man*?",
        quiz.option("A′[0, 2], the same entry as in A", False,
                    "The weights move with their tokens: *dog* is no longer at position 0, nor "
                    f"*man* at position 2. (In the toy head A′[0, 2] is {_entry(0, 2)}, "
                    f"A[0, 2] is {_A_DOG_MAN:.3f}.)"),
        quiz.option("A′[2, 1], row 2 and column 1", False,
                    "That reads `order` backwards: `order[r]` is the old position of the token "
                    "that lands at position r, not the new position of token r. Using it the "
                    "wrong way round is the transpose mistake, PᵀAP instead of PAPᵀ. "
                    f"(In the toy head A′[2, 1] is {_entry(2, 1)}.)"),
        quiz.option("A′[0, 1], row and column swapped", False,
                    "The row is always the query and the column the key: A′[0, 1] is the "
                    f"query *man* on the key *dog* ({_entry(0, 1)} in the toy head)."),
        quiz.option("A′[1, 0], in row 1 and column 0", True,
                    "*dog* now stands at position 1 and *man* at position 0, and A′ = PAPᵀ "
                    "moves row and column with their tokens: A′[1, 0] = A[order[1], order[0]] "
                    f"= A[0, 2] ({_A_DOG_MAN:.3f} in the toy head)."),
        kind="compute",
    ),
    quiz.question(
        "In *the brown dog chased the black dog*, why do both *dog* tokens get identical "
        "outputs?",
        quiz.option("The head is untrained; trained weights would separate them.", False,
                    "Training changes W_Q, W_K and W_V but not the argument: equal inputs give "
                    "equal rows for *any* weights."),
        quiz.option("Their inputs are equal, and a head sees the tokens as a bag.", True,
                    "Both rows compute softmax(q Kᵀ/√d_k) V with the same q and the same K and "
                    "V. K and V are the bag (multiset) of all tokens: which tokens, how many "
                    "times each, but not where."),
        quiz.option("The softmax rounds close scores to one and the same value.", False,
                    "Nothing is rounded: the two rows are computed from identical numbers, so "
                    "they are identical (up to floating-point noise)."),
    ),
    quiz.question(
        "Same sentence, same head, but now with a causal mask (each token sees itself and the "
        "tokens before it). Do the two *dog* tokens still get identical outputs?",
        quiz.option("Yes: the mask cannot tell two equal tokens apart.", False,
                    "The mask does not look at the tokens, only at positions: it decides which "
                    "keys each query may see, and the two dogs stand at different positions."),
        quiz.option("No: the mask gives each dog a different query vector.", False,
                    "The queries are still equal (q = x·W_Q, and the two x are equal). What "
                    "differs is the set of keys each query may see."),
        quiz.option(f"No: the first sees {_DOG_1 + 1} tokens, and the second all {_DOG_2 + 1}.",
                    True,
                    f"The first dog attends over *{' '.join(_TWINS[:_DOG_1 + 1])}*, the second over "
                    "the whole sentence, so their weighted averages differ: in the toy head the outputs "
                    f"differ by {100 * _CAUSAL_GAP:.0f}%. The mask itself carries position."),
        kind="predict",
    ),
    quiz.question(
        "A classifier averages the output rows of one head (no positions, no mask) into a "
        "single vector. How does that vector for *man bites dog* compare with the one for "
        "*dog bites man*?",
        quiz.option("It is the same vector (up to rounding errors).", True,
                    "The rows are the same rows in another order (equivariance), and a mean "
                    "does not depend on the order: the pooled model is *invariant*. In the toy "
                    f"head the two means differ by less than {_POOL_TOL:.0e}."),
        quiz.option("Same entries, in a different order.", False,
                    "The permutation acts on the rows (tokens), not on the entries of each "
                    "vector; averaging over the rows removes it completely."),
        quiz.option("It differs: each row was computed in another order.", False,
                    "Each row is computed from the same query and the same bag of keys and "
                    "values, so it is the same row, only at another place; the mean of the "
                    "same rows is the same vector."),
        kind="predict",
    ),
)
