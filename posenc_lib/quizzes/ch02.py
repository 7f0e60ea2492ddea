"""Quick check of chapter 2: the size of the integer encoding, rescaling, normalising by the
length, and what the nearest-word score measures.

Every number quoted in the feedback is computed here with the library: the chapter's toy
vocabulary (:func:`posenc_lib.toy.clustered_vocabulary`, d = 16, seed 0) and its shuffled
18-word sentence.
"""

from __future__ import annotations

import math

import numpy as np

from .. import encodings, quiz, toy

# Q1: the position part of the token at position 10, d = 64
_D1, _POS1 = 64, 10
_ROW = encodings.integer(_POS1 + 1, _D1)[_POS1]
_NORM1 = float(np.linalg.norm(_ROW))            # pos · √d = 80
_SUM1 = float(np.sum(_ROW))                     # pos · d = 640
_SQ1 = float(np.sum(_ROW ** 2))                 # pos² · d = 6400 (the norm without its root)
assert math.isclose(_NORM1, _POS1 * math.sqrt(_D1))

# Q2: from which position does s · pos outgrow an average word? (s = 0.001, d = 16)
_D, _S = 16, 0.001
_words, _labels, _vectors = toy.clustered_vocabulary(d=_D)
_WORD_NORM = float(np.mean(np.linalg.norm(_vectors, axis=1)))


def _first_position_above(level: float) -> int:
    """The first integer position strictly above the crossing ``level``."""
    return math.floor(level) + 1


_EXACT2 = _WORD_NORM / (_S * math.sqrt(_D))     # 208.9: the crossing
_CROSS2 = _first_position_above(_EXACT2)         # 209
_NO_ROOT2 = _first_position_above(_WORD_NORM / _S)          # forgot √d: 836
_BY_D2 = _first_position_above(_WORD_NORM / (_S * _D))      # divided by d, not √d: 53
assert _BY_D2 < _CROSS2 < _NO_ROOT2
assert _S * _CROSS2 * math.sqrt(_D) > _WORD_NORM > _S * (_CROSS2 - 1) * math.sqrt(_D)

# Q3: which position has the value 0.25 in sentences of 5, 9 and 401 tokens?
_VALUE3 = 0.25


def _position_of(value: float, seq_len: int) -> int:
    values = encodings.normalized_integer(seq_len, 1)[:, 0]
    hits = np.flatnonzero(np.isclose(values, value, atol=1e-12))
    assert len(hits) == 1
    return int(hits[0])


_P5, _P9, _P401 = (_position_of(_VALUE3, n) for n in (5, 9, 401))   # 1, 2, 100

# Q4: the chapter's sentence with integer positions 0..17, then 1000..1017
_order = np.random.default_rng(0).permutation(len(_words))
_sent, _sent_labels = _vectors[_order], _labels[_order]
_L = len(_order)
_pe = encodings.integer(_L, _D)
_AGREE_0 = toy.nearest_neighbour_agreement(_sent + _pe, _sent_labels)
_AGREE_1000 = toy.nearest_neighbour_agreement(_sent + 1000 + _pe, _sent_labels)
assert _AGREE_0 == _AGREE_1000
_RATIO_1000 = 1000 * math.sqrt(_D) / _WORD_NORM                 # position part / average word
_dist = np.linalg.norm(_vectors[:, None] - _vectors[None], axis=-1)
_same = (_labels[:, None] == _labels[None]) & ~np.eye(len(_words), dtype=bool)
_WITHIN = float(_dist[_same].mean())
_BETWEEN = float(_dist[_labels[:, None] != _labels[None]].mean())
_STEP = math.sqrt(_D)                          # distance between neighbouring position parts

QUIZ = quiz.quiz(
    quiz.question(
        f"With the integer encoding and d = {_D1}, how long (Euclidean norm) is the position "
        f"part of the token at position {_POS1}?",
        quiz.option(f"{_NORM1:.0f}", True,
                    f"‖pos·1‖ = pos·√d = {_POS1} × {math.sqrt(_D1):.0f}. The factor √d means a "
                    "wider model makes the problem worse, as long as its word embeddings keep "
                    "the same norm."),
        quiz.option(f"{_SUM1:.0f}", False,
                    f"That is pos × d = {_SUM1:.0f}, the *sum* of the {_D1} coordinates. The "
                    "Euclidean norm is the square root of the sum of squares: "
                    f"√({_D1} × {_POS1}²) = {_NORM1:.0f}."),
        quiz.option(f"{_SQ1:.0f}", False,
                    f"That is the sum of squares, {_D1} × {_POS1}² = {_SQ1:.0f}, the *squared* "
                    f"norm. Take its square root: {_NORM1:.0f}."),
        kind="compute",
    ),
    quiz.question(
        f"You scale the integer encoding by s = {_S:g} to keep it small. With d = {_D} and "
        f"words of average norm {_WORD_NORM:.2f}, from which position on is the position part "
        "longer than an average word?",
        quiz.option(f"{_BY_D2}", False,
                    f"That divides by d = {_D} instead of √d = {math.sqrt(_D):.0f}. The norm of "
                    f"s·pos·1 is s·pos·√d, so the crossing is {_WORD_NORM:.2f} / "
                    f"({_S:g} × {math.sqrt(_D):.0f}) = {_EXACT2:.1f}."),
        quiz.option(f"{_CROSS2}", True,
                    f"s·pos·√d > ‖e‖ once pos > {_WORD_NORM:.2f} / ({_S:g} × "
                    f"{math.sqrt(_D):.0f}) = {_EXACT2:.1f}, so from position {_CROSS2} on. A "
                    "smaller s only moves this position further out: no constant scale keeps "
                    "an unbounded signal small at every length."),
        quiz.option(f"{_NO_ROOT2}", False,
                    f"That is ‖e‖ / s = {_WORD_NORM / _S:.0f}: it compares one coordinate, "
                    f"s·pos, with the whole word. All {_D} coordinates carry s·pos, so the "
                    f"position part has norm s·pos·√d and outgrows the word at {_EXACT2:.1f}."),
        kind="compute",
    ),
    quiz.question(
        "With the normalised encoding pos/(L−1), what does the value 0.25 tell the model about "
        "a token?",
        quiz.option("It is the second token, whatever the length.", False,
                    f"Only if L = 5 (position {_P5}). In a 9-token sentence 0.25 is position "
                    f"{_P9}, in a 401-token one position {_P401}."),
        quiz.option("It is a quarter of a token after the first token.", False,
                    "Positions count whole tokens, and 0.25 is not a distance in tokens: it is a "
                    "fraction of the sentence, 0.25·(L − 1) tokens after the first one."),
        quiz.option("It is a quarter of the way through its sentence.", True,
                    "The encoding measures progress through the sentence. Which position that is "
                    f"depends on L: {_P5} at L = 5, {_P9} at L = 9, {_P401} at L = 401. The same "
                    "value, and the same gap between two tokens, means different things in "
                    "different sentences, which breaks requirement 3."),
    ),
    quiz.question(
        f"The chapter's 18-word sentence with integer positions 0 to 17 has a nearest-word "
        f"score of {100 * _AGREE_0:.0f}%. You number the same tokens 1000 to 1017 instead. "
        "What happens to the score?",
        quiz.option("It stays the same, since distances ignore the shift.", True,
                    f"It stays at {100 * _AGREE_1000:.0f}%. The score compares distances, and in "
                    "x_i − x_j the common 1000·1 cancels. What scrambles the clusters is the "
                    f"*difference* between neighbouring positions, √d = {_STEP:.0f}, next to "
                    f"words about {_WITHIN:.2f} apart within a cluster and {_BETWEEN:.2f} "
                    "between clusters."),
        quiz.option("It drops, since the position parts are far longer.", False,
                    f"They are longer (about {_RATIO_1000:.0f} times an average word), but the "
                    "nearest-word score only sees differences between tokens, and those have "
                    f"not changed: it stays at {100 * _AGREE_1000:.0f}%. Size matters "
                    "elsewhere, in the attention scores."),
        quiz.option("It recovers, since every token now looks alike.", False,
                    "The tokens do not become more alike: every difference x_i − x_j is exactly "
                    f"what it was, so the score stays at {100 * _AGREE_1000:.0f}%."),
        kind="predict",
    ),
)
