r"""Real text: a character-level corpus, language-model tasks, and perplexity at any length.

The corpus is the prose of the Python 3.11 documentation (tutorial, HOWTOs, FAQ, glossary),
stored in ``posenc_lib/lab/corpus/`` with a fixed train / validation / test split by document (see
the README there for the source and the licence). Text becomes tokens one character at a time:
the vocabulary :data:`VOCAB` is the newline and the 95 printable ASCII characters.

Two tasks plug into :func:`posenc_lib.lab.train` like the lab's synthetic ones:

* :class:`TextTask` — next-character prediction on random windows of a split (a language model);
* :class:`PasskeyTask` — a number hidden in filler text and asked for at the end (the
  passkey-retrieval test of long-context papers), loss only on the answer digits.

And two ways to score a language model on text longer than it was trained on, the two the ALiBi
paper discusses (Press et al., 2022):

* :func:`nonoverlapping_nll` — cut the text into windows of ``length`` tokens and score every
  token; early tokens of each window see little context;
* :func:`sliding_nll` — windows of ``length`` tokens that advance by ``stride``; only the last
  ``stride`` predictions of each window are scored, so every scored token is predicted from at
  least ``length - stride + 1`` tokens.

Perplexity is :math:`\exp` of the mean negative log-likelihood per character (nats).

>>> decode(encode("RoPE\n"))
'RoPE\n'
>>> len(VOCAB)
96
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from .. import lab
from ..checks import check_choice, check_nonneg_int, check_positive_int
from . import schemes
from . import storage as storage

__all__ = [
    "CORPUS_DIR",
    "LM_FACTORS",
    "LM_LENGTH",
    "LM_SEEDS",
    "LM_TRAINING",
    "NONOVERLAP_TOKENS",
    "PASSKEY_DEPTHS",
    "PASSKEY_DEPTH_LENGTHS",
    "PASSKEY_DIGITS",
    "PASSKEY_TESTS",
    "PASSKEY_TRAINING",
    "SLIDING_OFFSET",
    "SLIDING_SCORED",
    "SPLITS",
    "VOCAB",
    "PasskeyTask",
    "TextTask",
    "corpus_text",
    "corpus_tokens",
    "decode",
    "encode",
    "length_curves",
    "lm_config",
    "nonoverlapping_nll",
    "passkey_accuracy",
    "passkey_results",
    "perplexity",
    "sliding_nll",
    "trained_lm",
    "trained_passkey",
]

#: The folder of the corpus (``train.txt``, ``valid.txt``, ``test.txt`` and a README).
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
#: The fixed splits (whole documents each; no document is in two splits).
SPLITS: tuple[str, ...] = ("train", "valid", "test")
#: The 96 tokens, the newline (index 0) then the printable ASCII characters ``" "`` to ``"~"``.
VOCAB: str = "\n" + "".join(chr(c) for c in range(32, 127))

_LOOKUP = np.full(128, -1, dtype=np.int64)
_LOOKUP[[ord(c) for c in VOCAB]] = np.arange(len(VOCAB))


def encode(text: str) -> NDArray[np.int64]:
    """Token ids of ``text``, one per character; a character outside :data:`VOCAB` is an error."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    ids = np.where(codes < 128, _LOOKUP[np.minimum(codes, 127)], -1)
    bad = np.flatnonzero(ids < 0)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"text has a character outside the vocabulary at index {i}: "
                         f"{text[i]!r} (the vocabulary is the newline and printable ASCII)")
    return ids


def decode(ids: Any) -> str:
    """The text of token ids (the inverse of :func:`encode`)."""
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"ids must be integers, got dtype {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= len(VOCAB)):
        raise ValueError(f"ids must lie in [0, {len(VOCAB)}), got values from {ids.min()} "
                         f"to {ids.max()}")
    return "".join(VOCAB[i] for i in ids.ravel())


@cache
def corpus_text(split: str) -> str:
    """The text of one split (``"train"``, ``"valid"`` or ``"test"``)."""
    split = check_choice("split", split, SPLITS)
    return (CORPUS_DIR / f"{split}.txt").read_text(encoding="ascii")


@cache
def corpus_tokens(split: str) -> NDArray[np.int64]:
    """The token ids of one split (read-only; shared by every caller)."""
    ids = encode(corpus_text(split))
    ids.flags.writeable = False
    return ids


@cache
def _fingerprint(split: str) -> str:
    return hashlib.sha256(corpus_text(split).encode()).hexdigest()[:12]


def _windows(rng: np.random.Generator, ids: np.ndarray, batch: int,
             length: int) -> NDArray[np.int64]:
    if length + 1 > len(ids):
        raise ValueError(f"length must be < {len(ids)} (the split's size), got {length}")
    starts = rng.integers(0, len(ids) - length, size=batch)
    return ids[starts[:, None] + np.arange(length + 1)]


@dataclass(frozen=True)
class TextTask:
    """Next-character prediction on random windows of one split of the corpus.

    ``sample(rng, batch, length)`` draws ``batch`` windows of ``length + 1`` characters at
    uniform random offsets: the tokens are the first ``length``, the targets the last
    ``length`` (each token's next character); every target counts.
    """

    split: str = "train"
    name: ClassVar[str] = "text"
    #: The code that makes the training data (hashed into the keys of stored models).
    CODE: ClassVar[tuple[Any, ...]] = (_windows, encode, corpus_tokens)
    vocab_size: ClassVar[int] = len(VOCAB)
    n_outputs: ClassVar[int] = len(VOCAB)
    per_token: ClassVar[bool] = True

    def __post_init__(self) -> None:
        check_choice("split", self.split, SPLITS)

    def __repr__(self) -> str:  # names the text itself, so a changed corpus changes the key
        return f"TextTask(split={self.split!r}, corpus={_fingerprint(self.split)})"

    def sample(self, rng: np.random.Generator, batch: int,
               length: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        """``(tokens (B, T), targets (B, T), mask (B, T) all true)``."""
        rng = lab.check_rng(rng)
        batch = check_positive_int("batch", batch)
        length = check_positive_int("length", length)
        w = _windows(rng, corpus_tokens(self.split), batch, length)
        return w[:, :-1], w[:, 1:], np.ones((batch, length), dtype=bool)


@dataclass(frozen=True)
class PasskeyTask:
    """A number hidden in text, asked for at the end: the passkey-retrieval test in miniature.

    A sequence of ``length + 1`` characters is a window of corpus text (the *filler*) with the
    marker ``"@"`` and ``n_digits`` random digits (the key) written over it at a random place,
    and the marker and the same digits again at the very end. The model reads the tokens (all
    but the last character) and is scored only on the ``n_digits`` targets that are the key's
    digits at the end: after the final ``"@"`` it must recall the digits that followed the
    first one. The marker never occurs in the filler.

    ``depth`` (``None`` = uniform at random) fixes where the key sits, from 0 (the start) to
    1 (just before the question), as in "needle in a haystack" grids.
    """

    n_digits: int = 4
    split: str = "train"
    depth: float | None = None
    name: ClassVar[str] = "passkey"
    CODE: ClassVar[tuple[Any, ...]] = (_windows, encode, corpus_tokens)
    vocab_size: ClassVar[int] = len(VOCAB)
    n_outputs: ClassVar[int] = len(VOCAB)
    per_token: ClassVar[bool] = True
    MARKER: ClassVar[str] = "@"

    def __post_init__(self) -> None:
        check_positive_int("n_digits", self.n_digits)
        check_choice("split", self.split, SPLITS)
        if self.depth is not None:
            if isinstance(self.depth, bool) or not isinstance(self.depth, (int, float)) \
                    or not 0.0 <= float(self.depth) <= 1.0:
                raise ValueError(f"depth must be None or a number in [0, 1], got {self.depth!r}")

    def __repr__(self) -> str:
        return (f"PasskeyTask(n_digits={self.n_digits}, split={self.split!r}, "
                f"depth={self.depth!r}, corpus={_fingerprint(self.split)})")

    def sample(self, rng: np.random.Generator, batch: int,
               length: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        """``(tokens (B, T), targets (B, T), mask (B, T))``; ``mask`` is true at the last
        ``n_digits`` positions only (their targets are the key's digits)."""
        rng = lab.check_rng(rng)
        batch = check_positive_int("batch", batch)
        length = check_positive_int("length", length)
        block = self.n_digits + 1  # marker + digits
        room = length + 1 - 2 * block  # where the first copy may start: 0 .. room
        if room < 0:
            raise ValueError(f"length must be >= {2 * block - 1} to hold the key twice "
                             f"(n_digits={self.n_digits}), got {length}")
        w = _windows(rng, corpus_tokens(self.split), batch, length).copy()
        marker = int(encode(self.MARKER)[0])
        w[w == marker] = int(encode(" ")[0])
        digits = rng.integers(0, 10, size=(batch, self.n_digits)) + int(encode("0")[0])
        key = np.concatenate([np.full((batch, 1), marker), digits], axis=1)
        if self.depth is None:
            starts = rng.integers(0, room + 1, size=batch)
        else:
            starts = np.full(batch, int(round(float(self.depth) * room)))
        rows = np.arange(batch)[:, None]
        w[rows, starts[:, None] + np.arange(block)] = key
        w[:, -block:] = key
        mask = np.zeros((batch, length), dtype=bool)
        mask[:, -self.n_digits:] = True
        return w[:, :-1], w[:, 1:], mask


def _check_model(params: Any, config: Any) -> lab.LabConfig:
    config = lab.check_config(config)
    lab.check_params(params, config)
    if config.vocab_size != len(VOCAB) or config.n_outputs != len(VOCAB) \
            or config.readout != "token" or not config.causal:
        raise ValueError("config must be a causal character model: vocab_size = n_outputs = "
                         f"{len(VOCAB)}, readout='token', causal=True")
    return config


def _token_nll(params: dict[str, np.ndarray], config: lab.LabConfig,
               windows: np.ndarray) -> NDArray[np.float64]:
    """Negative log-likelihood (nats) of each next character: ``windows`` (B, T + 1) ->
    (B, T). Batched so that the attention scores stay small."""
    n, t = windows.shape[0], windows.shape[1] - 1
    chunk = lab.rows_per_chunk(n, config.n_heads, t)
    out = np.empty((n, t))
    for s in range(0, n, chunk):
        w = windows[s:s + chunk]
        logits = lab.forward_pass(params, w[:, :-1], config, 0)[0]
        z = logits - logits.max(-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
        out[s:s + chunk] = -np.take_along_axis(logp, w[:, 1:, None], axis=-1)[..., 0]
    return out


def nonoverlapping_nll(params: dict[str, np.ndarray], config: lab.LabConfig, *, length: int,
                       n_tokens: int = 32768, split: str = "test") -> NDArray[np.float64]:
    """Loss of every character when the first ``n_tokens`` characters of ``split`` (plus one,
    the last target) are cut into ``n_tokens // length`` windows of ``length`` tokens.

    Returns ``(n_windows, length)``: row ``w`` column ``i`` is the loss (nats) of predicting
    character ``i + 1`` of window ``w`` from the ``i + 1`` characters before it in the window.
    The mean over columns per position shows how loss depends on position; the mean of
    everything is the non-overlapping evaluation's loss.
    """
    config = _check_model(params, config)
    length = check_positive_int("length", length)
    n_tokens = check_positive_int("n_tokens", n_tokens)
    ids = corpus_tokens(check_choice("split", split, SPLITS))
    n_windows = n_tokens // length
    if n_windows < 1 or n_windows * length + 1 > len(ids):
        raise ValueError(f"n_tokens must hold at least one window of length {length} and fit "
                         f"in the {split} split ({len(ids)} characters), got {n_tokens}")
    lab.check_length(config, length, 0)
    starts = np.arange(n_windows) * length
    windows = ids[starts[:, None] + np.arange(length + 1)]
    return _token_nll(params, config, windows)


def sliding_nll(params: dict[str, np.ndarray], config: lab.LabConfig, *, length: int,
                stride: int, n_scored: int = 8192, offset: int = 1024,
                split: str = "test") -> NDArray[np.float64]:
    """Loss of the ``n_scored`` characters after character ``offset`` of ``split``, each
    predicted from at least ``length - stride + 1`` characters: windows of ``length``
    tokens end every ``stride`` characters and only their last ``stride`` predictions count.

    Returns ``(n_scored // stride, stride)``. The scored characters do not depend on ``length``
    (only on ``offset`` and ``n_scored``), so losses at different lengths compare like with like;
    ``offset`` must be at least ``length - stride``. With ``stride == length`` it is the
    non-overlapping evaluation of those characters; a smaller stride costs ``length / stride``
    times more and gives each character more context.
    """
    config = _check_model(params, config)
    length = check_positive_int("length", length)
    stride = check_positive_int("stride", stride)
    if stride > length:
        raise ValueError(f"stride must be <= length={length}, got {stride}")
    n_scored = check_positive_int("n_scored", n_scored)
    offset = check_nonneg_int("offset", offset)
    if offset < length - stride:
        raise ValueError(f"offset must be >= length - stride = {length - stride} (the first "
                         f"window needs that much text before the scored characters), got {offset}")
    ids = corpus_tokens(check_choice("split", split, SPLITS))
    n_windows = n_scored // stride
    if n_windows < 1 or offset + n_windows * stride + 1 > len(ids):
        raise ValueError(f"n_scored must hold at least one stride ({stride}) and fit in the "
                         f"{split} split ({len(ids)} characters) after offset {offset}, "
                         f"got {n_scored}")
    lab.check_length(config, length, 0)
    # window w predicts targets offset + 1 + w*stride ... offset + (w+1)*stride with its last
    # stride positions; its tokens end at index offset + (w+1)*stride - 1
    starts = offset + (np.arange(n_windows) + 1) * stride - length
    windows = ids[starts[:, None] + np.arange(length + 1)]
    return _token_nll(params, config, windows)[:, -stride:]


def perplexity(nll: Any) -> float:
    """:math:`\\exp` of the mean loss (nats per character)."""
    nll = np.asarray(nll, dtype=np.float64)
    if nll.size == 0 or not np.all(np.isfinite(nll)):
        raise ValueError("nll must be a non-empty array of finite losses")
    return math.exp(float(nll.mean()))


# --------------------------------------------------------------------------------------------
# The chapter's experiment: one small language model per scheme, tested longer
# --------------------------------------------------------------------------------------------

#: Training length :math:`L` of the language models (characters).
LM_LENGTH = 64
#: Inference lengths as multiples of :data:`LM_LENGTH` (64 … 1024 characters).
LM_FACTORS: tuple[int, ...] = (1, 2, 4, 8, 16)
#: Seeds of the three models trained per scheme (initial weights and data order).
LM_SEEDS: tuple[int, ...] = (0, 1, 2)
#: How every language model is trained (Adam, warm-up then cosine decay, by ``lab.train``).
LM_TRAINING: dict[str, Any] = {"steps": 450, "batch_size": 16, "lr": 3e-3, "length": LM_LENGTH}
#: How many characters each protocol scores at every length. The non-overlapping evaluation
#: cuts the first ``NONOVERLAP_TOKENS`` test characters into windows; the sliding one scores
#: ``SLIDING_SCORED`` characters after ``SLIDING_OFFSET`` with stride :data:`LM_LENGTH`.
NONOVERLAP_TOKENS = 16384
SLIDING_SCORED = 4096
SLIDING_OFFSET = LM_LENGTH * (max(LM_FACTORS) - 1)


def lm_config(position: str) -> lab.LabConfig:
    """The language model for one scheme: 2 layers, ``d_model = 64``, 4 heads of 16, MLP 256,
    the 96-character vocabulary, causal. ``max_len`` is ``16 L`` = 1024 for every scheme, so
    the learned table has rows for every test length — rows 64 to 1023 are never trained and
    keep their random initial values."""
    return lab.LabConfig(vocab_size=len(VOCAB), n_outputs=len(VOCAB), position=position,
                         d_model=64, n_heads=4, n_layers=2, d_mlp=256,
                         max_len=LM_LENGTH * max(LM_FACTORS), causal=True, readout="token")


def trained_lm(position: str, seed: int = 0, *, progress: bool = True) -> lab.TrainResult:
    """The language model for ``position`` and ``seed`` (stored in ``posenc_lib/lab/trained/``;
    trained and stored on first use)."""
    seed = check_nonneg_int("seed", seed)
    return storage.train(lm_config(position), TextTask("train"), seed=seed,
                             progress=progress, **LM_TRAINING)


def _round(values: Any, digits: int = 4) -> list[float]:
    return [round(float(v), digits) for v in np.asarray(values, dtype=np.float64).ravel()]


def _curves_for(position: str, seed: int) -> dict[str, Any]:
    """The evaluations of one language model (stored: a model and its results travel together)."""
    spec = {"scheme": position, "seed": seed, "factors": list(LM_FACTORS),
            "training": {k: repr(v) for k, v in LM_TRAINING.items()},
            "config": repr(lm_config(position)), "task": repr(TextTask("train")),
            "nonoverlap": NONOVERLAP_TOKENS, "sliding": [SLIDING_SCORED, SLIDING_OFFSET]}

    def compute() -> dict[str, Any]:
        model = trained_lm(position, seed, progress=False)
        config = model.config
        assert config is not None
        out: dict[str, Any] = {
            "seconds": model.seconds, "nonoverlapping": [], "sliding": [],
            "valid": perplexity(nonoverlapping_nll(model.params, config, length=LM_LENGTH,
                                                   n_tokens=NONOVERLAP_TOKENS, split="valid")),
            "position_loss": {}}
        for factor in LM_FACTORS:
            n = LM_LENGTH * factor
            nll = nonoverlapping_nll(model.params, config, length=n, n_tokens=NONOVERLAP_TOKENS)
            out["nonoverlapping"].append(perplexity(nll))
            out["sliding"].append(perplexity(sliding_nll(
                model.params, config, length=n, stride=LM_LENGTH, n_scored=SLIDING_SCORED,
                offset=SLIDING_OFFSET)))
            # the loss along the input, in blocks of 8 positions
            out["position_loss"][str(n)] = _round(nll.mean(0).reshape(-1, 8).mean(1))
        return out

    return storage.stored_result("realtext-lm", spec, compute)


def length_curves() -> dict[str, Any]:
    """Perplexity against inference length for every scheme and seed, both protocols.

    ``result["schemes"][scheme]`` is a list over :data:`LM_SEEDS` of dicts: ``"valid"``
    (validation perplexity at the training length), ``"nonoverlapping"`` and ``"sliding"``
    (test perplexity at each length of :data:`LM_FACTORS`), ``"seconds"`` (training time) and
    ``"position_loss"`` (mean loss per block of 8 positions at each length, from the
    non-overlapping windows). Each model's results are stored in ``posenc_lib/lab/trained/``
    beside it, so this reads 18 small files.
    """
    return {"lengths": [LM_LENGTH * f for f in LM_FACTORS],
            "schemes": {p: [_curves_for(p, s) for s in LM_SEEDS] for p in schemes.NAMES}}


# --------------------------------------------------------------------------------------------
# Passkey retrieval
# --------------------------------------------------------------------------------------------

#: Digits in the chapter's passkey.
PASSKEY_DIGITS = 2
#: Training of the passkey models (one per scheme and seed, from scratch, at :data:`LM_LENGTH`).
PASSKEY_TRAINING: dict[str, Any] = {"steps": 600, "batch_size": 32, "lr": 3e-3,
                                    "length": LM_LENGTH}
#: Inputs per length (and per depth) in the passkey evaluation.
PASSKEY_TESTS = 128


def trained_passkey(position: str, seed: int = 0, *, progress: bool = True) -> lab.TrainResult:
    """The passkey model for ``position`` and ``seed``: :func:`lm_config`'s network trained on
    :class:`PasskeyTask` (stored like every lab model)."""
    seed = check_nonneg_int("seed", seed)
    return storage.train(lm_config(position), PasskeyTask(PASSKEY_DIGITS), seed=seed,
                             progress=progress, **PASSKEY_TRAINING)


def passkey_accuracy(params: dict[str, np.ndarray], config: lab.LabConfig, *, length: int,
                     n: int = PASSKEY_TESTS, depth: float | None = None,
                     n_digits: int = PASSKEY_DIGITS, seed: int = 5) -> float:
    """Share of ``n`` test inputs (filler from the *test* split) whose every key digit is the
    model's most likely next character — exactly when greedy decoding would write the key."""
    config = _check_model(params, config)
    n = check_positive_int("n", n)
    task = PasskeyTask(n_digits, split="test", depth=depth)
    tokens, targets, mask = task.sample(np.random.default_rng(seed), n, length)
    lab.check_length(config, length, 0)
    hits = np.ones(n, dtype=bool)
    chunk = lab.rows_per_chunk(n, config.n_heads, length)
    for s in range(0, n, chunk):
        logits = lab.forward_pass(params, tokens[s:s + chunk], config, 0)[0]
        right = (logits.argmax(-1) == targets[s:s + chunk]) | ~mask[s:s + chunk]
        hits[s:s + chunk] = right.all(axis=1)
    return float(hits.mean())


#: Depths of the key in the depth-by-length grid (0 = at the start, 1 = just before the question).
PASSKEY_DEPTHS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Input lengths of the depth-by-length grid.
PASSKEY_DEPTH_LENGTHS: tuple[int, ...] = (256, 1024)


def _passkey_for(position: str, seed: int) -> dict[str, Any]:
    lengths = [LM_LENGTH * f for f in LM_FACTORS]
    spec = {"scheme": position, "seed": seed, "lengths": lengths,
            "training": {k: repr(v) for k, v in PASSKEY_TRAINING.items()},
            "task": repr(PasskeyTask(PASSKEY_DIGITS)), "n": PASSKEY_TESTS,
            "depths": list(PASSKEY_DEPTHS), "depth_lengths": list(PASSKEY_DEPTH_LENGTHS),
            "config": repr(lm_config(position))}

    def compute() -> dict[str, Any]:
        model = trained_passkey(position, seed, progress=False)
        config = model.config
        assert config is not None
        out: dict[str, Any] = {"seconds": model.seconds, "accuracy": [
            passkey_accuracy(model.params, config, length=n) for n in lengths]}
        if seed == LM_SEEDS[0]:
            out["depth"] = [[passkey_accuracy(model.params, config, length=n, depth=d)
                             for n in PASSKEY_DEPTH_LENGTHS] for d in PASSKEY_DEPTHS]
        return out

    return storage.stored_result("realtext-passkey", spec, compute)


def passkey_results() -> dict[str, Any]:
    """Passkey accuracy per scheme, seed and length: ``result["schemes"][scheme]`` is a list
    over seeds of accuracies at ``result["lengths"]``; ``result["depth"][scheme]`` is, for seed
    0, a grid over ``result["depths"]`` (rows) and ``result["depth_lengths"]`` (columns);
    ``result["seconds"][scheme]`` the training times. Stored per
    model in ``posenc_lib/lab/trained/``."""
    runs = {p: [_passkey_for(p, s) for s in LM_SEEDS] for p in schemes.NAMES}
    return {"lengths": [LM_LENGTH * f for f in LM_FACTORS], "n_digits": PASSKEY_DIGITS,
            "depths": list(PASSKEY_DEPTHS), "depth_lengths": list(PASSKEY_DEPTH_LENGTHS),
            "schemes": {p: [r["accuracy"] for r in rs] for p, rs in runs.items()},
            "depth": {p: rs[0]["depth"] for p, rs in runs.items()},
            "seconds": {p: [r["seconds"] for r in rs] for p, rs in runs.items()}}
