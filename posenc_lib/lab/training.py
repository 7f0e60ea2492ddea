"""Training and evaluating lab models (:mod:`posenc_lib.lab`): Adam, the chapters' settings,
:func:`train` and :func:`evaluate`."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from ..checks import (
    check_bool,
    check_choice,
    check_finite_real,
    check_nonneg_int,
    check_positive_int,
)
from ..maths import rope_scaling
from .model import (
    POSITIONS,
    LabConfig,
    check_config,
    check_length,
    check_params,
    forward_pass,
    init_params,
    loss_and_grads,
    rows_per_chunk,
)
from .tasks import TASKS, Task, check_task, get_task

# --------------------------------------------------------------------------------------------
# Optimiser
# --------------------------------------------------------------------------------------------


class Adam:
    r"""Adam with bias correction (Kingma & Ba 2015), updating a parameter dict in place.

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g,\quad
        v \leftarrow \beta_2 v + (1-\beta_2) g^2,\quad
        \theta \leftarrow \theta
            - \eta\,\frac{m / (1-\beta_1^t)}{\sqrt{v / (1-\beta_2^t)} + \epsilon}
    """

    def __init__(self, params: dict[str, np.ndarray], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
        if not isinstance(params, dict):
            raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
        self.lr = check_finite_real("lr", lr, minimum=0.0, strict=True)
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise TypeError(f"betas must be a pair of floats, got {betas!r}")
        for i, beta in enumerate(betas):
            check_finite_real(f"betas[{i}]", beta, minimum=0.0)
            if not beta < 1.0:
                raise ValueError(f"betas[{i}] must be < 1, got {beta!r}")
        self.beta1, self.beta2 = float(betas[0]), float(betas[1])
        self.eps = check_finite_real("eps", eps, minimum=0.0, strict=True)
        self.t = 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray],
             lr: float | None = None) -> None:
        """One update of every array in ``params`` (in place); ``lr`` overrides ``self.lr``."""
        if set(grads) != set(self.m) or set(params) != set(self.m):
            raise ValueError("params and grads must have the keys Adam was created with")
        lr = self.lr if lr is None else check_finite_real("lr", lr, minimum=0.0)
        self.t += 1
        c1 = 1.0 - self.beta1**self.t  # bias corrections
        c2 = 1.0 - self.beta2**self.t
        for k, g in grads.items():
            self.m[k] = self.beta1 * self.m[k] + (1.0 - self.beta1) * g
            self.v[k] = self.beta2 * self.v[k] + (1.0 - self.beta2) * g * g
            params[k] -= lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + self.eps)




# --------------------------------------------------------------------------------------------
# Blessed settings, training and evaluation
# --------------------------------------------------------------------------------------------

_DEFAULT_TRAINING: dict[str, dict[str, Any]] = {
    "order": {"steps": 300, "batch_size": 32, "lr": 5e-3, "length": 32},
    "copy_back": {"steps": 400, "batch_size": 32, "lr": 5e-3, "length": 32},
    "latest_signal": {"steps": 400, "batch_size": 32, "lr": 5e-3, "length": 32},
}


def default_training(task_name: str) -> dict[str, Any]:
    """The chapter's training settings for a built-in task: ``steps, batch_size, lr, length``."""
    task_name = check_choice("task_name", task_name, tuple(TASKS))
    return dict(_DEFAULT_TRAINING[task_name])


def default_config(position: str, task_name: str) -> LabConfig:
    """The chapter's model for ``position`` on a built-in task (same size for every scheme).

    ``order``: bidirectional, mean readout, 1 layer. ``copy_back`` and ``latest_signal``: causal,
    token readout, 2 layers. All: ``d_model=32``, 2 heads of dimension 16, MLP width 64,
    vocabulary 16, and a learned table exactly as long as the training sequences (so a learned
    model cannot even be run on longer ones).
    """
    position = check_choice("position", position, POSITIONS)
    task = get_task(task_name)
    length = _DEFAULT_TRAINING[task.name]["length"]
    common = dict(vocab_size=task.vocab_size, n_outputs=task.n_outputs, position=position,
                  d_model=32, n_heads=2, d_mlp=64, max_len=length)
    if task.name == "order":
        return LabConfig(**common, n_layers=1, causal=False, readout="mean")
    return LabConfig(**common, n_layers=2, causal=True, readout="token")


def rope_scaled(config: LabConfig, method: rope_scaling.Method | None, factor: float = 1.0
                ) -> LabConfig:
    """``config`` with its RoPE stretched: ``method`` ``"linear"``/``"ntk"``/``"yarn"`` (or
    ``None`` for plain RoPE) and factor :math:`s` = ``factor``. The trained context :math:`L` is
    ``config.max_len``; parameters trained with ``config`` fit the new config unchanged."""
    config = check_config(config)
    if config.position != "rope":
        raise ValueError(f"config must use position='rope', got position={config.position!r}")
    if method is None:
        return replace(config, rope_scaling=None, rope_factor=1.0)
    return replace(config, rope_scaling=method, rope_factor=factor)


@dataclass
class TrainResult:
    """What :func:`train` returns: final ``params``, the loss of every step, wall-clock seconds."""

    params: dict[str, np.ndarray]
    losses: list[float]
    seconds: float
    config: LabConfig | None = field(default=None, repr=False)


def train(config: LabConfig, task: Task | str, *, steps: int, batch_size: int, lr: float,
          seed: int = 0, length: int, progress: bool = True,
          init: dict[str, np.ndarray] | None = None, stop_after: int | None = None) -> TrainResult:
    r"""Train a fresh model on fresh batches of ``task`` at sequence length ``length``.

    Adam at learning rate ``lr`` with a linear warm-up over the first 5% of the steps and a
    cosine decay to 0 after it; gradients clipped to global norm 1. ``seed`` fixes both the
    initial parameters and the data stream, so a seed reproduces the losses bit for bit.

    ``init`` (optional): start from these parameters instead of :func:`init_params` — a
    *fine-tune* of a trained model, e.g. with a stretched-RoPE ``config`` at a longer
    ``length``. They are copied (the dict passed in is not changed); ``seed`` then only drives
    the data stream.

    ``stop_after`` (optional): stop after that many of the ``steps`` (the learning-rate schedule
    is still the one of ``steps``), so the first losses of a long run can be reproduced
    quickly: the tests compare them with the stored models' to show the training numerics
    have not changed.
    """
    config = check_config(config)
    task = check_task(task, config)
    steps = check_positive_int("steps", steps)
    batch_size = check_positive_int("batch_size", batch_size)
    lr = check_finite_real("lr", lr, minimum=0.0, strict=True)
    seed = check_nonneg_int("seed", seed)
    length = check_positive_int("length", length)
    check_bool("progress", progress)
    run = steps if stop_after is None else min(steps, check_positive_int("stop_after", stop_after))
    check_length(config, length, 0)
    if init is None:
        params = init_params(config, seed)
    else:
        params = {k: np.array(v, dtype=np.float64) for k, v in check_params(init, config).items()}
    data_rng = np.random.default_rng([seed, 1])  # independent of the init stream
    opt = Adam(params, lr=lr)
    warmup = max(1, steps // 20)
    losses: list[float] = []
    start = time.perf_counter()
    # mininterval: at most one redraw per second. In Jupyter each redraw is a few widget
    # messages; faster redraws can flood the kernel's output channel, which drops messages
    # beyond its queue limit (and then a test runner such as nbval waits in vain).
    bar = tqdm(range(run), disable=not progress, desc=f"{config.position} · {task.name}",
               leave=False, mininterval=1.0)
    for step in bar:
        tokens, targets, mask = task.sample(data_rng, batch_size, length)
        loss, grads = loss_and_grads(params, tokens, targets, config, mask)
        norm = math.sqrt(sum(float(np.vdot(g, g)) for g in grads.values()))
        if norm > 1.0:  # clip the global gradient norm to 1
            grads = {k: g / norm for k, g in grads.items()}
        if step < warmup:
            step_lr = lr * (step + 1) / warmup
        else:
            step_lr = 0.5 * lr * (1.0 + math.cos(math.pi * (step - warmup) / (steps - warmup)))
        opt.step(params, grads, lr=step_lr)
        losses.append(loss)
        if progress and (step % 25 == 0 or step == steps - 1):
            bar.set_postfix(loss=f"{loss:.3f}", refresh=False)  # shown at the next redraw
    bar.close()
    return TrainResult(params=params, losses=losses, seconds=time.perf_counter() - start,
                       config=config)


def evaluate(params: dict[str, np.ndarray], config: LabConfig, task: Task | str, *, length: int,
             n_sequences: int = 256, seed: int = 1234) -> float:
    """Accuracy (argmax = target, over the counted targets) on ``n_sequences`` fresh sequences.

    Batched so that the attention scores never take much memory, even at length 256.
    A learned model raises ``ValueError`` when ``length`` exceeds its ``max_len``.
    """
    config = check_config(config)
    params = check_params(params, config)
    task = check_task(task, config)
    length = check_positive_int("length", length)
    n_sequences = check_positive_int("n_sequences", n_sequences)
    seed = check_nonneg_int("seed", seed)
    check_length(config, length, 0)
    rng = np.random.default_rng(seed)
    chunk = rows_per_chunk(n_sequences, config.n_heads, length, budget=2**20)
    correct = counted = 0
    for start in range(0, n_sequences, chunk):
        tokens, targets, mask = task.sample(rng, min(chunk, n_sequences - start), length)
        logits = forward_pass(params, tokens, config, 0)[0]
        hits = (logits.argmax(-1) == targets) & mask
        correct += int(hits.sum())
        counted += int(mask.sum())
    return correct / counted
