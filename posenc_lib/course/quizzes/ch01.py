"""Quick check of chapter 1: permutations, repeated words, the causal mask and the readout.

Every number quoted in the feedback is computed here with the chapter's toy head
(:func:`posenc_lib.course.toy.self_attention`, d = 16, seed 0).
"""

from __future__ import annotations

import numpy as np

from ...display import quiz
from ...display.numbers import below
from .. import toy

_A = "dog bites man".split()
_B = "man bites dog".split()             # first and last word swapped
_C = "man dog bites".split()             # order = [2, 0, 1]: not its own inverse
_TWINS = "the brown dog chased the black dog".split()
_SAW = "the dog saw the dog".split()     # two 'the' keys, two 'dog' keys

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
# Q3: equal keys get equal weights, and a row sums to 1
_, _w_saw = toy.self_attention(_SAW)
_ROW = _w_saw[2]                                       # the query 'saw'
assert np.isclose(_ROW[0], _ROW[3], atol=1e-12) and np.isclose(_ROW[1], _ROW[4], atol=1e-12)
_W_SELF, _W_DOG = round(float(_ROW[2]), 3), round(float(_ROW[1]), 3)   # as the prompt shows them
_REST = 1 - _W_SELF - 2 * _W_DOG                       # what the two 'the' keys share
_W_THE = _REST / 2
assert round(_W_THE, 2) == round(float(_ROW[0]), 2)   # the rounded prompt gives the true answer
_NO_HALF = _REST                                       # forgot the second 'the'
_ONE_DOG = (1 - _W_SELF - _W_DOG) / 2                  # forgot the second 'dog'
assert len({round(x, 2) for x in (_W_THE, _NO_HALF, _ONE_DOG)}) == 3
# Q5: reading the last row: it is now the output of another token
_LAST_GAP = float(np.linalg.norm(_out_b[-1] - _out_a[-1]) / np.linalg.norm(_out_a[-1]))
_MOVED_TOL = below(np.max(np.abs(_out_b[-1] - _out_a[0])), 1e-12)   # B's last row = A's first
_POOL_TOL = below(np.max(np.abs(_out_a.mean(axis=0) - _out_b.mean(axis=0))), 1e-12)
assert _LAST_GAP > 0.1


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
        "The same toy head reads *the dog saw the dog* (no positions, no mask). The query *saw* "
        f"gives weight {_W_SELF:.3f} to itself and {_W_DOG:.3f} to the first *dog*. What weight "
        "does it give to the first *the*?",
        quiz.option(f'About {_W_THE:.2f}: the two "the" share the rest', True,
                    "Equal keys get equal scores, hence equal weights: the second *dog* also "
                    f"gets {_W_DOG:.3f}, and the two *the* share what is left, "
                    f"(1 − {_W_SELF:.3f} − 2·{_W_DOG:.3f})/2 ≈ {_W_THE:.2f}. Attention sees "
                    "the keys as a bag: which tokens, how many of each, not where."),
        quiz.option(f'About {_NO_HALF:.2f}: the first "the" takes the rest', False,
                    "The second *the* is the same word, so the same key vector, the same score "
                    f"and the same weight as the first: the {_NO_HALF:.2f} left is shared by "
                    "the two of them."),
        quiz.option(f'About {_ONE_DOG:.2f}: half of what "saw" and one "dog" leave', False,
                    "The second *dog* is the same key as the first: it also gets "
                    f"{_W_DOG:.3f}. Subtract it too before sharing the rest between the two "
                    "*the*."),
        quiz.option("It cannot be known without the scores", False,
                    "The scores are not needed: the two *the* are the same vector, so *saw* "
                    "gives them equal scores and equal weights, and every row of weights sums "
                    "to 1. That fixes their share."),
        kind="compute",
    ),
    quiz.question(
        "Without a mask, the two *dog* tokens of *the brown dog chased the black dog* get "
        "identical outputs. Now the same head uses a causal mask (each token sees itself and "
        "the tokens before it). Do the two *dog* tokens still get identical outputs?",
        quiz.option("Yes: the two dogs still have equal queries.", False,
                    "Their queries are equal, but the mask does not look at the tokens, only "
                    "at positions: it decides which keys each query may see, and the two dogs "
                    "stand at different positions."),
        quiz.option("No: the mask gives each dog a different query vector.", False,
                    "The queries are still equal (q = x·`W_Q`, and the two x are equal). What "
                    "differs is the set of keys each query may see."),
        quiz.option(f"No: the first sees {_DOG_1 + 1} tokens, and the second all {_DOG_2 + 1}.",
                    True,
                    f"The first dog attends over *{' '.join(_TWINS[:_DOG_1 + 1])}*, the second "
                    "over the whole sentence, so their weighted averages differ: in the toy head "
                    f"the outputs differ by {100 * _CAUSAL_GAP:.0f}%. The mask itself carries "
                    "position."),
        kind="predict",
    ),
    quiz.question(
        "A classifier reads the output row of the *last* token of one head (no positions, no "
        "mask). How does the vector it reads for *man bites dog* compare with the one for *dog "
        "bites man*?",
        quiz.option("The same vector: the head cannot see word order.", False,
                    "The head is *equivariant*, not invariant: outputs move with their tokens. "
                    "What is the same is the set of rows; averaging them would give the same "
                    f"vector (the two means differ by less than {_POOL_TOL:.0e})."),
        quiz.option('Another vector: the output of "dog", not of "man".', True,
                    "Equivariance moves each output row with its token, so the last row is now "
                    "the output of *dog*: it equals the first row for *dog bites man* (difference "
                    f"below {_MOVED_TOL:.0e}), and it differs from the old last row by "
                    f"{100 * _LAST_GAP:.0f}%. The head did not see the order; the readout did, by "
                    "picking a position from outside."),
        quiz.option("Another vector: reordering changes every output row.", False,
                    "No row changes its value: each token's query meets the same bag of keys "
                    "and values. The rows only change places, and the last place now holds "
                    "another token."),
        kind="predict",
    ),
    quiz.question(
        "The toy recurrent network of this chapter updates its state with "
        "h_t = tanh(h_(t−1)·W_h + x_t·W_x), one token after another. Which part of the update "
        "can be computed for all positions of a sentence at once, before the loop over the tokens?",
        quiz.option("x_t·W_x, for every t", True,
                    "Right: x_t·W_x uses only the input, so a single product gives it for every "
                    "position (the chapter's code does exactly that). The rest waits for the "
                    "previous state, so standard training runs the L steps of this nonlinear "
                    "recurrence in order. Attention has no such chain: all L output rows come "
                    "from a few matrix products."),
        quiz.option("h_(t−1)·W_h, for every t", False,
                    "This term needs h_(t−1), which exists only once step t − 1 is done: it is "
                    "exactly the part that forces the steps to run in order."),
        quiz.option("The tanh, for every t: it acts on each entry separately", False,
                    "It does act entry by entry, but its argument contains h_(t−1)·W_h, which "
                    "waits for the previous step. Because of the tanh the steps cannot simply be "
                    "combined, as those of a linear recurrence can (with a parallel scan), so "
                    "standard training runs them in order."),
        quiz.option("Nothing: every part of step t waits for step t − 1", False,
                    "x_t·W_x does not involve the state at all: one matrix product gives it for "
                    "every position before the loop starts. Only the recurrent part waits."),
        kind="concept",
    ),
)
