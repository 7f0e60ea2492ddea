"""Seeded toy data: word embeddings and projection matrices with no model download.

A word's vector depends only on the word, ``d`` and ``seed`` (never on which other words are in
the sentence), so "dog" is the same vector in every sentence of a chapter — exactly the property
of a real embedding table that makes attention blind to order.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..checks import as_array, check_finite_real, check_nonneg_int, check_positive_int

__all__ = ["CLUSTERS", "PCAResult", "clustered_vocabulary", "embed", "nearest_neighbour_agreement",
           "pca", "projections", "silhouette", "word_vector"]


def word_vector(word: str, d: int, seed: int = 0) -> NDArray[np.float64]:
    """A standard-normal vector of length ``d`` scaled by ``1/sqrt(d)`` (unit norm on average).

    Seeded by a CRC-32 of the word, so it is stable across runs, machines and Python versions.
    """
    if not isinstance(word, str) or not word:
        raise ValueError(f"word must be a non-empty string, got {word!r}")
    d = check_positive_int("d", d)
    seed = check_nonneg_int("seed", seed)
    rng = np.random.default_rng([zlib.crc32(word.lower().encode("utf-8")), seed])
    return rng.standard_normal(d) / np.sqrt(d)


def embed(words: Sequence[str], d: int, seed: int = 0) -> NDArray[np.float64]:
    """Stack the vectors of ``words`` into an ``(len(words), d)`` matrix (a "sentence")."""
    if isinstance(words, str):
        raise TypeError("words must be a sequence of words, e.g. 'dog bites man'.split()")
    return np.stack([word_vector(w, d, seed) for w in words]) if len(words) else np.zeros((0, d))


def projections(d: int, seed: int = 0, scale: float = 1.0
                ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    r"""Random query, key and value matrices :math:`W_Q, W_K, W_V \in \mathbb{R}^{d\times d}`.

    Entries are :math:`\mathcal{N}(0, \text{scale}^2/d)`, so projected vectors keep their norm on
    average. Untrained, but the point of chapter 1 holds for *any* weights.
    """
    d = check_positive_int("d", d)
    seed = check_nonneg_int("seed", seed)
    rng = np.random.default_rng([seed, 1234])
    w = rng.standard_normal((3, d, d)) * scale / np.sqrt(d)
    return w[0], w[1], w[2]


def self_attention(words: Sequence[str], d: int = 16, seed: int = 0,
                   encoding: NDArray[np.floating] | None = None, causal: bool = False,
                   scale: float = 3.0) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    r"""One untrained attention head over a toy sentence.

    :math:`X = E + \mathrm{PE}` (``encoding``, shape ``(L, d)``, optional), then
    :math:`\mathrm{Attention}(XW_Q, XW_K, XW_V)` with :func:`projections` of the given ``scale``
    (3 makes the untrained head opinionated enough to see its weights). Returns
    ``(output (L, d), weights (L, L))``.
    """
    from ..maths.attention import attention

    x = embed(words, d, seed)
    if encoding is not None:
        enc = np.asarray(encoding, dtype=np.float64)
        if enc.shape != x.shape:
            raise ValueError(f"encoding must have shape {x.shape} (words × d), got {enc.shape}")
        x = x + enc
    wq, wk, wv = projections(d, seed, scale)
    return attention(x @ wq, x @ wk, x @ wv, causal=causal)



# -- a vocabulary with visible meaning (chapter 2) --------------------------------------------
CLUSTERS: dict[str, tuple[str, ...]] = {
    "animals": ("dog", "cat", "horse", "cow", "sheep", "mouse"),
    "foods": ("bread", "cheese", "apple", "rice", "soup", "cake"),
    "colours": ("red", "green", "blue", "yellow", "purple", "grey"),
}


def clustered_vocabulary(d: int = 16, spread: float = 0.35, seed: int = 0,
                         clusters: dict[str, Sequence[str]] | None = None
                         ) -> tuple[tuple[str, ...], NDArray[np.int64], NDArray[np.float64]]:
    r"""Toy embeddings whose words group by meaning, like a trained embedding table.

    Each cluster ``c`` gets a random centre :math:`\mu_c` (a :func:`word_vector` of the cluster's
    name) and each word ``w`` in it the vector
    :math:`(\mu_c + \text{spread}\cdot u_w)/\sqrt{1+\text{spread}^2}`, with :math:`u_w` the word's
    own :func:`word_vector`. Both have norm close to 1, so every embedding has norm close to 1 and
    words of one cluster lie about ``spread`` × √2 apart, words of different clusters about √2.

    Returns ``(words, labels, vectors)``: the words in cluster order, the cluster number of each
    word (its index in ``clusters``), and the ``(len(words), d)`` matrix. Deterministic for a given
    ``seed``.
    """
    d = check_positive_int("d", d)
    seed = check_nonneg_int("seed", seed)
    spread = check_finite_real("spread", spread, minimum=0.0)
    groups: Mapping[str, Sequence[str]] = CLUSTERS if clusters is None else clusters
    if not isinstance(groups, dict) or not groups:
        raise ValueError(f"clusters must be a non-empty dict of name -> words, got {groups!r}")
    words: list[str] = []
    labels: list[int] = []
    rows: list[NDArray[np.float64]] = []
    for label, (name, members) in enumerate(groups.items()):
        if isinstance(members, str) or len(members) == 0:
            raise ValueError(f"cluster {name!r} must be a non-empty sequence of words, "
                             f"got {members!r}")
        centre = word_vector(f"cluster:{name}", d, seed)
        for w in members:
            rows.append((centre + spread * word_vector(w, d, seed)) / np.sqrt(1 + spread ** 2))
            words.append(w)
            labels.append(label)
    if len(set(words)) != len(words):
        raise ValueError(f"every word must appear in one cluster only, got {words}")
    return tuple(words), np.asarray(labels, dtype=np.int64), np.stack(rows)


class PCAResult(NamedTuple):
    """Output of :func:`pca`: coordinates, directions and the share of variance they explain."""

    scores: NDArray[np.float64]      # (N, k): the centred points in the new coordinates
    components: NDArray[np.float64]  # (k, d): orthonormal principal directions, as rows
    explained: NDArray[np.float64]   # (k,): fraction of the total variance along each direction


def pca(x: NDArray[np.floating], k: int = 2) -> PCAResult:
    r"""Principal component analysis by the singular value decomposition.

    Centre the rows, :math:`X_c = X - \bar x`, and factor :math:`X_c = U S V^\top`. The first ``k``
    rows of :math:`V^\top` are the directions of largest variance; the scores are
    :math:`X_c V_k = U_k S_k`, and direction ``j`` explains :math:`s_j^2 / \sum_l s_l^2` of the
    variance. Signs are fixed so that each direction's largest-magnitude entry is positive
    (an SVD may return either sign), which makes plots reproducible.
    """
    arr = as_array("x", x)
    if arr.ndim != 2 or arr.shape[0] < 2:
        raise ValueError(f"x must be a 2-D array with at least 2 rows, got shape {arr.shape}")
    k = check_positive_int("k", k)
    if k > min(arr.shape):
        raise ValueError(f"k must be at most min(x.shape) = {min(arr.shape)}, got {k}")
    xc = arr - arr.mean(axis=0)
    _, s, vt = np.linalg.svd(xc, full_matrices=False)
    comps = vt[:k].copy()
    flip = np.sign(comps[np.arange(k), np.argmax(np.abs(comps), axis=1)])
    comps *= flip[:, None]
    total = float(np.sum(s ** 2))
    explained = (s[:k] ** 2 / total) if total > 0 else np.zeros(k)
    return PCAResult(xc @ comps.T, comps, explained)


def _pairwise_distances(x: NDArray[np.floating]) -> NDArray[np.float64]:
    # direct differences (not |a|^2 + |b|^2 - 2ab, which cancels badly for close points)
    return np.sqrt(np.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1))


def _check_points_labels(x: Any, labels: Any) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    arr = as_array("x", x, min_ndim=2)
    lab = np.asarray(labels)
    if arr.ndim != 2:
        raise ValueError(f"x must be a 2-D array (points × features), got shape {arr.shape}")
    if lab.shape != (arr.shape[0],) or not np.issubdtype(lab.dtype, np.integer):
        raise ValueError(f"labels must be {arr.shape[0]} integers (one per row of x), "
                         f"got {labels!r}")
    if arr.shape[0] < 2:
        raise ValueError(f"x needs at least 2 points, got {arr.shape[0]}")
    return arr.astype(np.float64), lab.astype(np.int64)


def nearest_neighbour_agreement(x: NDArray[np.floating], labels: Any) -> float:
    """Fraction of points whose nearest *other* point (Euclidean) has the same label.

    1.0 when every word's closest word shares its cluster; with clusters of equal size ``m`` among
    ``N`` points, random placement gives about ``(m - 1) / (N - 1)``.
    """
    arr, lab = _check_points_labels(x, labels)
    dist = _pairwise_distances(arr)
    np.fill_diagonal(dist, np.inf)
    return float(np.mean(lab[np.argmin(dist, axis=1)] == lab))


def silhouette(x: NDArray[np.floating], labels: Any) -> float:
    r"""Mean silhouette score, a standard cluster-separation measure in :math:`[-1, 1]`.

    For point :math:`i`, :math:`a_i` is its mean distance to the other points of its cluster and
    :math:`b_i` the smallest mean distance to the points of another cluster; its score is
    :math:`(b_i - a_i)/\max(a_i, b_i)`. Near 1: tight, well separated clusters; near 0 or below:
    clusters overlap. Needs at least two clusters, each with at least two points.
    """
    arr, lab = _check_points_labels(x, labels)
    names, counts = np.unique(lab, return_counts=True)
    if len(names) < 2 or np.any(counts < 2):
        raise ValueError(f"labels must name at least 2 clusters of at least 2 points each, "
                         f"got cluster sizes {dict(zip(names.tolist(), counts.tolist()))}")
    dist = _pairwise_distances(arr)
    scores = np.empty(len(arr))
    for i in range(len(arr)):
        same = lab == lab[i]
        a = dist[i, same].sum() / (same.sum() - 1)          # excludes the zero distance to itself
        b = min(dist[i, lab == c].mean() for c in names if c != lab[i])
        scores[i] = (b - a) / max(a, b)
    return float(scores.mean())
