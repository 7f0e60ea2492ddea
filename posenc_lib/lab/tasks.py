"""The lab's tasks (:mod:`posenc_lib.lab`): what a task provides, and the three built-in ones."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from ..checks import check_bool, check_choice, check_finite_real, check_positive_int
from .model import LabConfig

# --------------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------------


@runtime_checkable
class Task(Protocol):
    """What :func:`train` and :func:`evaluate` need from a task.

    ``sample(rng, batch, length)`` returns ``(tokens (B, T) int, targets, mask)`` with
    ``targets``/``mask`` of shape ``(B, T)`` if ``per_token`` else ``(B,)``.
    """

    # read-only: a task may hold them as class variables, fields or properties
    @property
    def name(self) -> str: ...

    @property
    def vocab_size(self) -> int: ...

    @property
    def n_outputs(self) -> int: ...

    @property
    def per_token(self) -> bool: ...

    def sample(self, rng: np.random.Generator, batch: int,
               length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


def check_rng(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    return rng


@dataclass(frozen=True)
class OrderTask:
    """"Does A come before B?" — one label per sequence.

    Filler tokens with exactly one ``A = 0`` and one ``B = 1`` at two distinct random
    positions; the label is 1 if A precedes B, else 0. A bag of tokens says nothing about the
    answer: only position does.

    ``bos=True`` puts a fixed start token ``BOS = 2`` at position 0 (A and B then sit at
    positions ``1 .. T-1``). A NoPE model is still blind to order, but a scheme that only
    sees distances, such as bidirectional ALiBi, gets an anchor that tells left from right.
    Fillers are the tokens after the special ones, up to ``vocab_size - 1``.
    """

    vocab_size: int = 16
    bos: bool = False
    name: ClassVar[str] = "order"
    n_outputs: ClassVar[int] = 2
    per_token: ClassVar[bool] = False
    A: ClassVar[int] = 0
    B: ClassVar[int] = 1
    BOS: ClassVar[int] = 2

    def __post_init__(self) -> None:
        check_positive_int("vocab_size", self.vocab_size)
        check_bool("bos", self.bos)
        special = 3 if self.bos else 2
        if self.vocab_size <= special:
            raise ValueError(f"vocab_size must be >= {special + 1} (A, B"
                             f"{', BOS' if self.bos else ''} and a filler), got {self.vocab_size}")

    def sample(self, rng: np.random.Generator, batch: int,
               length: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        """``(tokens (B, T), labels (B,), mask (B,) all true)``."""
        rng = check_rng(rng)
        batch = check_positive_int("batch", batch)
        length = check_positive_int("length", length)
        first = 1 if self.bos else 0  # first position A or B may take
        if length - first < 2:
            raise ValueError(f"length must be >= {first + 2} to hold "
                             f"{'BOS, ' if self.bos else ''}A and B, got {length}")
        tokens = rng.integers(2 + first, self.vocab_size, size=(batch, length))
        # two distinct random positions per row: the first two of a random permutation
        first_two = first + np.argsort(rng.random((batch, length - first)), axis=1)[:, :2]
        pos_a, pos_b = first_two[:, 0], first_two[:, 1]
        rows = np.arange(batch)
        tokens[rows, pos_a] = self.A
        tokens[rows, pos_b] = self.B
        if self.bos:
            tokens[:, 0] = self.BOS
        labels = (pos_a < pos_b).astype(np.int64)
        return tokens.astype(np.int64), labels, np.ones(batch, dtype=bool)


@dataclass(frozen=True)
class CopyBackTask:
    """Predict the token ``k`` steps back: target at ``t`` is ``tokens[t - k]`` for ``t >= k``.

    Tokens are uniform over the vocabulary; positions ``t < k`` have no target (masked out).
    """

    k: int = 3
    vocab_size: int = 16
    name: ClassVar[str] = "copy_back"
    per_token: ClassVar[bool] = True

    def __post_init__(self) -> None:
        check_positive_int("k", self.k)
        check_positive_int("vocab_size", self.vocab_size)

    @property
    def n_outputs(self) -> int:
        return self.vocab_size

    def sample(self, rng: np.random.Generator, batch: int,
               length: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        """``(tokens (B, T), targets (B, T), mask (B, T))`` with ``mask[:, :k]`` false."""
        rng = check_rng(rng)
        batch = check_positive_int("batch", batch)
        length = check_positive_int("length", length)
        if length <= self.k:
            raise ValueError(f"length must be > k={self.k}, got {length}")
        tokens = rng.integers(0, self.vocab_size, size=(batch, length)).astype(np.int64)
        targets = np.zeros_like(tokens)
        targets[:, self.k:] = tokens[:, :-self.k]
        mask = np.zeros(tokens.shape, dtype=bool)
        mask[:, self.k:] = True
        return tokens, targets, mask


@dataclass(frozen=True)
class LatestSignalTask:
    """Name the most recent *signal* token: target at ``t`` is the last signal at or before ``t``.

    Tokens ``0 .. n_signals - 1`` are signals, the others fillers. Each position holds a
    signal with probability ``p_signal`` (uniform over the signals), else a uniform filler. The
    target at position ``t`` is the signal at the largest ``j <= t`` with a signal; positions
    before the first signal have no target (masked out). The classes are the ``n_signals``
    signal tokens.

    The rule is about *recency*, not about an exact offset or an absolute position, and it is
    the same at every length: the gaps between signals follow the same geometric law in a
    sequence of 32 tokens and in one of 256.
    """

    n_signals: int = 8
    vocab_size: int = 16
    p_signal: float = 0.15
    name: ClassVar[str] = "latest_signal"
    per_token: ClassVar[bool] = True

    def __post_init__(self) -> None:
        check_positive_int("n_signals", self.n_signals)
        check_positive_int("vocab_size", self.vocab_size)
        if self.vocab_size <= self.n_signals:
            raise ValueError(f"vocab_size must exceed n_signals={self.n_signals} (at least one "
                             f"filler token), got {self.vocab_size}")
        p = check_finite_real("p_signal", self.p_signal)
        if not 0.0 < p <= 1.0:
            raise ValueError(f"p_signal must be a probability in (0, 1], got {self.p_signal!r}")

    @property
    def n_outputs(self) -> int:
        return self.n_signals

    def sample(self, rng: np.random.Generator, batch: int,
               length: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]:
        """``(tokens (B, T), targets (B, T), mask (B, T))``; ``mask`` false before the first
        signal of a row (and the target there is 0, never counted)."""
        rng = check_rng(rng)
        batch = check_positive_int("batch", batch)
        length = check_positive_int("length", length)
        fillers = rng.integers(self.n_signals, self.vocab_size, size=(batch, length))
        signals = rng.integers(0, self.n_signals, size=(batch, length))
        is_signal = rng.random((batch, length)) < self.p_signal
        tokens = np.where(is_signal, signals, fillers).astype(np.int64)
        # index of the latest signal at or before t (-1: none yet), by a running maximum
        latest = np.maximum.accumulate(np.where(is_signal, np.arange(length), -1), axis=1)
        mask = latest >= 0
        targets = np.where(mask, np.take_along_axis(tokens, np.maximum(latest, 0), axis=1), 0)
        return tokens, targets.astype(np.int64), mask


#: The built-in tasks by name (each class builds the task with its default settings).
TASKS: dict[str, Callable[[], Any]] = {"order": OrderTask, "copy_back": CopyBackTask,
                                       "latest_signal": LatestSignalTask}


def get_task(name: str) -> Task:
    """The built-in task called ``name`` (one of ``TASKS``) with its default settings."""
    return TASKS[check_choice("task_name", name, tuple(TASKS))]()


def check_task(task: Any, config: LabConfig | None = None) -> Task:
    if isinstance(task, str):
        task = get_task(task)
    if not isinstance(task, Task):
        raise TypeError(f"task must be a task object (name, vocab_size, n_outputs, per_token, "
                        f"sample) or a task name, got {type(task).__name__}")
    if config is not None:
        if task.vocab_size > config.vocab_size:
            raise ValueError(f"task {task.name!r} uses {task.vocab_size} tokens but the config "
                             f"has vocab_size={config.vocab_size}")
        if task.n_outputs != config.n_outputs:
            raise ValueError(f"task {task.name!r} has {task.n_outputs} classes but the config "
                             f"has n_outputs={config.n_outputs}")
        wanted = "token" if task.per_token else "mean"
        if config.readout != wanted:
            raise ValueError(f"task {task.name!r} needs readout={wanted!r}, got "
                             f"readout={config.readout!r}")
    return task
