"""posenc_lib.course.toy: seeded toy data (word vectors, a clustered vocabulary), PCA, cluster
scores and toy self-attention."""

import itertools
import math

import numpy as np
import pytest

from posenc_lib.course import toy


# -- toy clusters, PCA and cluster scores ----------------------------------------------------
def test_clustered_vocabulary_shape_and_determinism():
    words, labels, x = toy.clustered_vocabulary(d=16)
    assert len(words) == 18 and x.shape == (18, 16)
    assert labels.tolist() == [0] * 6 + [1] * 6 + [2] * 6
    words2, _, x2 = toy.clustered_vocabulary(d=16)
    np.testing.assert_array_equal(x, x2)
    assert words == words2
    assert not np.allclose(x, toy.clustered_vocabulary(d=16, seed=1)[2])


def test_clusters_are_visible_in_the_toy_vocabulary():
    _, labels, x = toy.clustered_vocabulary(d=16)
    within = [np.linalg.norm(x[i] - x[j]) for i, j in itertools.combinations(range(18), 2)
              if labels[i] == labels[j]]
    between = [np.linalg.norm(x[i] - x[j]) for i, j in itertools.combinations(range(18), 2)
               if labels[i] != labels[j]]
    assert max(within) < min(between)
    assert toy.nearest_neighbour_agreement(x, labels) == 1.0


def test_pca_agrees_with_covariance_eigenvectors():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 6)) @ np.diag([5, 3, 2, 1, 0.5, 0.1]) + 7.0
    res = toy.pca(x, 3)
    # independent computation: eigen-decomposition of the covariance matrix
    xc = x - x.mean(axis=0)
    evals, evecs = np.linalg.eigh(xc.T @ xc)
    order = np.argsort(evals)[::-1]
    for j in range(3):
        v = evecs[:, order[j]]
        assert abs(abs(v @ res.components[j]) - 1) < 1e-10        # same direction up to sign
        np.testing.assert_allclose(np.abs(res.scores[:, j]), np.abs(xc @ v), atol=1e-9)
    np.testing.assert_allclose(res.explained, evals[order[:3]] / evals.sum(), rtol=1e-10)
    np.testing.assert_allclose(res.components @ res.components.T, np.eye(3), atol=1e-12)
    # sign convention: the largest-magnitude loading of each direction is positive
    for c in res.components:
        assert c[np.argmax(np.abs(c))] > 0


def test_pca_of_points_on_a_line():
    t = np.arange(5.0)
    x = np.stack([t, 2 * t, -t], axis=1)            # all on the line through 0 along (1, 2, -1)
    res = toy.pca(x, 1)
    np.testing.assert_allclose(res.explained, [1.0])
    np.testing.assert_allclose(np.abs(res.components[0]), np.array([1, 2, 1]) / math.sqrt(6))
    np.testing.assert_allclose(np.abs(res.scores[:, 0]), np.abs(t - 2) * math.sqrt(6))


def test_nearest_neighbour_agreement_by_hand():
    x = np.array([[0.0], [0.1], [5.0], [5.2], [2.4]])
    labels = np.array([0, 0, 1, 1, 0])
    # neighbours: 0->1 (same), 1->0 (same), 2->3 (same), 3->2 (same), 4->1 at 2.3 vs 2 at 2.6 (same)
    assert toy.nearest_neighbour_agreement(x, labels) == 1.0
    labels = np.array([0, 1, 1, 0, 0])
    # 0->1 diff, 1->0 diff, 2->3 diff, 3->2 diff, 4->1 diff
    assert toy.nearest_neighbour_agreement(x, labels) == 0.0


def test_silhouette_matches_a_loop_over_the_definition():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((12, 3))
    labels = np.array([0, 1, 2] * 4)
    expected = []
    for i in range(12):
        dist = [math.dist(x[i], x[j]) for j in range(12)]
        a = np.mean([dist[j] for j in range(12) if labels[j] == labels[i] and j != i])
        b = min(np.mean([dist[j] for j in range(12) if labels[j] == c])
                for c in {0, 1, 2} - {labels[i]})
        expected.append((b - a) / max(a, b))
    assert toy.silhouette(x, labels) == pytest.approx(np.mean(expected), abs=1e-12)


def test_silhouette_two_tight_clusters_is_near_one():
    x = np.array([[0.0], [0.01], [10.0], [10.01]])
    assert toy.silhouette(x, np.array([0, 0, 1, 1])) == pytest.approx(1 - 0.01 / 10, abs=1e-3)


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: toy.pca(np.zeros(5)), ValueError, "x must be a 2-D array with at least 2 rows"),
    (lambda: toy.pca(np.zeros((4, 3)), 4), ValueError, "k must be at most min"),
    (lambda: toy.pca(np.zeros((4, 3)), 0), ValueError, "k must be a positive integer, got 0"),
    (lambda: toy.silhouette(np.zeros((4, 2)), np.array([0, 0, 0, 1])), ValueError,
     "at least 2 clusters of at least 2 points"),
    (lambda: toy.nearest_neighbour_agreement(np.zeros((3, 2)), [0, 1]), ValueError,
     "labels must be 3 integers"),
    (lambda: toy.clustered_vocabulary(spread=-1.0), ValueError, "spread must be >= 0"),
    (lambda: toy.clustered_vocabulary(clusters={"a": ("x",), "b": ("x",)}), ValueError,
     "every word must appear in one cluster only"),
    (lambda: toy.clustered_vocabulary(clusters={"a": "dog"}), ValueError,
     "cluster 'a' must be a non-empty sequence"),
])
def test_toy_validation(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


# -- word vectors and toy self-attention -----------------------------------------------------
def test_word_vectors_depend_only_on_word():
    a = toy.embed(["dog", "bites", "man"], 16)
    b = toy.embed(["man", "bites", "dog"], 16)
    np.testing.assert_array_equal(a[0], b[2])
    assert not np.allclose(toy.word_vector("dog", 16), toy.word_vector("cat", 16))
    assert not np.allclose(toy.word_vector("dog", 16, seed=1), toy.word_vector("dog", 16))
    # stable across runs: a hash of the word, not Python's randomised hash()
    assert toy.word_vector("dog", 4)[0] == toy.word_vector("Dog", 4)[0]


def test_toy_self_attention_ties_repeated_words():
    words = "the brown dog chased the black dog".split()
    out, w = toy.self_attention(words)
    np.testing.assert_allclose(out[2], out[6], atol=1e-12)
    pe = np.random.default_rng(0).standard_normal((7, 16))
    out2, _ = toy.self_attention(words, encoding=pe)
    assert not np.allclose(out2[2], out2[6])
    with pytest.raises(ValueError, match=r"encoding must have shape \(7, 16\)"):
        toy.self_attention(words, encoding=np.zeros((3, 16)))
    with pytest.raises(TypeError, match="sequence of words"):
        toy.embed("dog bites man", 4)
