r"""What extrapolates, measured: train every position scheme once, test it on longer inputs.

The chapter "What extrapolates, measured" (and the summary chapter) run the same experiment:
train the lab model of :mod:`posenc_lib.lab` with each position scheme at one length
:math:`L_{\text{train}}`, then measure its accuracy at :math:`L_{\text{test}} = f\,L_{\text{train}}`
for a few factors :math:`f`. :func:`length_sweep` does exactly that and remembers the result, so a
notebook (or a test) that asks twice trains once; :func:`seed_sweep` repeats it with several
seeds, to show how much a number moves from one training run to the next. The other functions
look inside the trained models to explain the numbers:

* :func:`masked_accuracy` — the score itself, counting only the positions that have a target;
* :func:`chance_band` — how far from chance a *guessing* model can land by luck;
* :func:`accuracy_by_position` — *where* in a long input the predictions go wrong;
* :func:`copy_offsets` — which earlier token the model actually outputs;
* :func:`attention_by_distance`, :func:`attention_mass_beyond` and :func:`copy_head` — where the
  attention goes;
* :func:`reverse_positions` — the score bias a reversed sequence sees (why bidirectional ALiBi
  cannot tell left from right).

Everything random is seeded: the same arguments give bit-identical accuracies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import lab
from ..checks import (
    as_array,
    check_bool,
    check_choice,
    check_finite_real,
    check_nonneg_int,
    check_positive_int,
)
from . import schemes
from . import storage as storage

__all__ = [
    "PRESS2022_WIKITEXT103",
    "SCHEMES",
    "TASK_LABEL",
    "TASK_NAMES",
    "SeedSweep",
    "SweepResult",
    "accuracy_by_position",
    "attention_by_distance",
    "attention_mass_beyond",
    "chance_band",
    "clear_cache",
    "copy_head",
    "copy_offsets",
    "length_sweep",
    "make_task",
    "masked_accuracy",
    "reverse_positions",
    "seed_sweep",
    "trained_model",
]

#: The position schemes compared, in the order of the book (:data:`posenc_lib.lab.schemes.NAMES`).
SCHEMES: tuple[str, ...] = schemes.NAMES

#: Tasks :func:`length_sweep` knows: the lab's three built-in tasks, plus ``"order_bos"``, the
#: order task with a fixed start token at position 0 (``lab.OrderTask(bos=True)``).
TASK_NAMES: tuple[str, ...] = ("order", "order_bos", "copy_back", "latest_signal")

#: How the book names each task in figure titles and tables.
TASK_LABEL: dict[str, str] = {
    "order": "does A come before B?",
    "order_bos": "does A come before B? (with a start token)",
    "copy_back": "copy the token 3 back",
    "latest_signal": "name the latest signal",
}

#: Perplexities quoted from the ALiBi paper (Press, Smith & Lewis, ICLR 2022, appendix Table 2):
#: a 16-layer transformer language model trained on WikiText-103 with ``L = 512`` tokens per
#: input and evaluated on the validation set with longer inputs (``L_valid``). Lower is better;
#: ``None`` means the paper reports "OOM" (out of GPU memory). These are the paper's numbers, not
#: measured here.
PRESS2022_WIKITEXT103: dict[str, Any] = {
    "train_length": 512,
    "lengths": (512, 1012, 3512, 15512),
    "perplexity": {
        "sinusoidal": (20.05, 43.54, 178.97, 406.01),
        "rotary": (20.07, 21.37, 35.54, 79.25),
        "T5 bias": (19.65, 18.79, 22.91, None),
        "ALiBi": (19.73, 18.73, 18.40, 18.31),
    },
}


# --------------------------------------------------------------------------------------------
# Tasks and trained models (memoised)
# --------------------------------------------------------------------------------------------


def make_task(task_name: str) -> lab.Task:
    """The task called ``task_name`` (one of :data:`TASK_NAMES`) with the chapter's settings."""
    task_name = check_choice("task_name", task_name, TASK_NAMES)
    if task_name == "order_bos":
        return lab.OrderTask(bos=True)
    return lab.get_task(task_name)


def _lab_name(task_name: str) -> str:
    """The built-in lab task whose model and training settings ``task_name`` uses."""
    return "order" if task_name == "order_bos" else task_name


_MODELS: dict[tuple[str, str, int, int | None, bool], lab.TrainResult] = {}
_SWEEPS: dict[tuple[Any, ...], SweepResult] = {}


def clear_cache() -> None:
    """Forget every trained model and sweep (the next call trains again)."""
    _MODELS.clear()
    _SWEEPS.clear()


def _check_steps(steps: Any) -> int | None:
    return None if steps is None else check_positive_int("steps", steps)


def _check_store(store: Any, steps: int | None) -> bool:
    if store is None:
        return steps is None
    if not isinstance(store, (bool, np.bool_)):
        raise TypeError(f"store must be a bool or None, got {store!r}")
    return bool(store)


def trained_model(position: str, task_name: str = "copy_back", seed: int = 0, *,
                  steps: int | None = None, progress: bool = True,
                  store: bool | None = None) -> lab.TrainResult:
    """The lab model for ``position`` trained on ``task_name`` (memoised; stored on disk by
    :func:`posenc_lib.lab.storage.train`, so it is trained once and then read back).

    Model and training settings are :func:`~posenc_lib.lab.default_config` and
    :func:`~posenc_lib.lab.default_training` of the task; ``steps`` overrides the number of
    steps (a shortened run for quick tests, or a longer one). ``store``: read and write the
    model through :func:`posenc_lib.lab.storage.train` (weights rounded to float32). The default,
    ``None``, stores the models at the default settings and trains the others afresh; pass
    ``store=True`` for a longer run that a chapter quotes. The returned
    :class:`~posenc_lib.lab.TrainResult` carries its ``config``; ``seconds`` is the wall-clock
    training time of the first call.
    """
    position = check_choice("position", position, SCHEMES)
    task_name = check_choice("task_name", task_name, TASK_NAMES)
    seed = check_nonneg_int("seed", seed)
    steps = _check_steps(steps)
    progress = check_bool("progress", progress)
    stored = _check_store(store, steps)
    key = (position, task_name, seed, steps, stored)
    if key not in _MODELS:
        config, settings = _model_settings(position, task_name, seed, steps)
        trainer = storage.train if stored else lab.train
        _MODELS[key] = trainer(config, make_task(task_name), progress=progress, **settings)
    return _MODELS[key]


def _model_settings(position: str, task_name: str, seed: int,
                    steps: int | None) -> tuple[lab.LabConfig, dict[str, Any]]:
    """The configuration and training settings of :func:`trained_model` (validated args)."""
    name = _lab_name(task_name)
    settings = {**lab.default_training(name), "seed": seed}
    if steps is not None:
        settings["steps"] = steps
    return lab.default_config(position, name), settings


def _accuracies(model: lab.TrainResult, task: lab.Task, lengths: tuple[int, ...],
                n_sequences: int) -> list[float]:
    """``lab.evaluate`` of ``model`` at each length it can run (a learned table stops at its
    ``max_len``)."""
    assert model.config is not None
    return [lab.evaluate(model.params, model.config, task, length=length,
                         n_sequences=n_sequences)
            for length in lengths if _runs(model.config, length)]


def _runs(config: lab.LabConfig, length: int) -> bool:
    """Can a model with ``config`` run inputs of ``length`` tokens (a learned table cannot run
    past its ``max_len`` rows)?"""
    longest = config.scheme.max_length(config)
    return longest is None or length <= longest


def _stored_accuracies(model: lab.TrainResult, task: lab.Task, task_name: str, seed: int,
                       steps: int | None, lengths: tuple[int, ...],
                       n_sequences: int) -> list[float]:
    """:func:`_accuracies` of the stored ``model`` (``trained_model(..., store=True)``), itself
    stored beside the model (:func:`posenc_lib.lab.storage.stored_result`): evaluating 256
    sequences of 256 tokens takes seconds per model, and a chapter's sweeps evaluate dozens."""
    assert model.config is not None
    config, settings = _model_settings(model.config.position, task_name, seed, steps)
    spec = {"model": storage.model_name(config, task, **settings), "task": repr(task),
            "lengths": list(lengths), "n_sequences": n_sequences}
    return storage.stored_result(
        "accuracy", spec, lambda: _accuracies(model, task, lengths, n_sequences))


# --------------------------------------------------------------------------------------------
# The sweep
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepResult:
    """Accuracies of every scheme at every test length, from :func:`length_sweep`.

    ``accuracy[scheme][k]`` is the accuracy at ``lengths[k]`` (``math.nan`` where the scheme
    cannot run: the learned table has no row beyond ``train_length``). ``seconds`` holds the
    training wall-clock time per scheme: machine-dependent, so :meth:`table` leaves it out.
    """

    task: str
    train_length: int
    lengths: tuple[int, ...]
    positions: tuple[str, ...]
    accuracy: dict[str, tuple[float, ...]]
    seconds: dict[str, float]

    def table(self, digits: int = 2) -> str:
        """A fixed-width text table: one row per scheme, one column per test length.

        Accuracies are rounded to ``digits`` decimals and ``n/a`` marks a scheme that cannot run
        at that length. Deterministic for a seed (no timings), so a notebook can print it.
        """
        digits = check_nonneg_int("digits", digits)
        width = max(5, digits + 3)
        name_w = max(len("scheme"), *(len(p) for p in self.positions))
        head = f"{'scheme':<{name_w}}" + "".join(f"{n:>{width + 1}}" for n in self.lengths)
        lines = [f"{self.task}: accuracy at each test length (trained at {self.train_length})",
                 head, "-" * len(head)]
        for p in self.positions:
            cells = "".join(
                f"{'n/a' if math.isnan(a) else f'{a:.{digits}f}':>{width + 1}}"
                for a in self.accuracy[p])
            lines.append(f"{p:<{name_w}}" + cells)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.table()


def _check_positions(positions: Any) -> tuple[str, ...]:
    if isinstance(positions, str) or not isinstance(positions, Sequence):
        raise TypeError(f"positions must be a sequence of scheme names, got {positions!r}")
    out = tuple(check_choice(f"positions[{i}]", p, SCHEMES) for i, p in enumerate(positions))
    if not out:
        raise ValueError("positions must name at least one scheme, got ()")
    if len(set(out)) != len(out):
        raise ValueError(f"positions must not repeat a scheme, got {positions!r}")
    return out


def _check_factors(factors: Any) -> tuple[int, ...]:
    if isinstance(factors, str) or not isinstance(factors, Sequence):
        raise TypeError(f"factors must be a sequence of positive integers, got {factors!r}")
    out = tuple(check_positive_int(f"factors[{i}]", f) for i, f in enumerate(factors))
    if not out:
        raise ValueError("factors must hold at least one factor, got ()")
    if any(b <= a for a, b in zip(out, out[1:])):
        raise ValueError(f"factors must be strictly increasing, got {factors!r}")
    return out


def length_sweep(task_name: str = "copy_back", positions: Sequence[str] = SCHEMES,
                 factors: Sequence[int] = (1, 2, 4, 8), seed: int = 0,
                 n_sequences: int = 256, *, steps: int | None = None,
                 store: bool | None = None) -> SweepResult:
    r"""Train each scheme once at the task's training length, test at every ``factor`` times it.

    For each scheme in ``positions``: :func:`trained_model` (a progress bar while it trains),
    then :func:`~posenc_lib.lab.evaluate` on ``n_sequences`` fresh sequences of length
    :math:`f \cdot L_{\text{train}}` for each :math:`f` in ``factors``. A learned table cannot run
    past its :math:`L_{\text{train}}` rows: its accuracy there is ``math.nan``.

    Memoised on all arguments; ``steps`` (default: the task's own) shortens training for tests
    or lengthens it, and ``store`` is passed on to :func:`trained_model`. The accuracies of a
    stored model are stored too (:func:`posenc_lib.lab.storage.stored_result`, keyed by the
    model, the lengths and ``n_sequences``), so a chapter reads them instead of evaluating.
    """
    task_name = check_choice("task_name", task_name, TASK_NAMES)
    positions = _check_positions(positions)
    factors = _check_factors(factors)
    seed = check_nonneg_int("seed", seed)
    n_sequences = check_positive_int("n_sequences", n_sequences)
    steps = _check_steps(steps)
    stored = _check_store(store, steps)
    key = (task_name, positions, factors, seed, n_sequences, steps, stored)
    if key in _SWEEPS:
        return _SWEEPS[key]
    for (t, ps, fs, sd, n, st, so), r in list(_SWEEPS.items()):  # a sweep of more schemes
        if (t, fs, sd, n, st, so) == key[:1] + key[2:] and set(positions) <= set(ps):
            result = SweepResult(task=r.task, train_length=r.train_length, lengths=r.lengths,
                                 positions=positions,
                                 accuracy={p: r.accuracy[p] for p in positions},
                                 seconds={p: r.seconds[p] for p in positions})
            _SWEEPS[key] = result
            return result
    task = make_task(task_name)
    train_length = lab.default_training(_lab_name(task_name))["length"]
    lengths = tuple(f * train_length for f in factors)
    accuracy: dict[str, tuple[float, ...]] = {}
    seconds: dict[str, float] = {}
    for p in positions:
        model = trained_model(p, task_name, seed, steps=steps, store=stored)
        accs = (_stored_accuracies(model, task, task_name, seed, steps, lengths, n_sequences)
                if stored else _accuracies(model, task, lengths, n_sequences))
        # no learned position vector beyond max_len: nan at those lengths
        accuracy[p] = tuple(accs) + (math.nan,) * (len(lengths) - len(accs))
        seconds[p] = model.seconds
    result = SweepResult(task=task_name, train_length=train_length, lengths=lengths,
                         positions=positions, accuracy=accuracy, seconds=seconds)
    _SWEEPS[key] = result
    return result


@dataclass(frozen=True)
class SeedSweep:
    """:func:`length_sweep` repeated with several seeds: how much each accuracy moves between
    training runs that differ only in their random initialisation and data.

    ``runs[i]`` is the :class:`SweepResult` of ``seeds[i]``; ``per_seed[scheme][i]`` its
    accuracies. ``low``, ``high`` and ``mean`` map each scheme to one value per test length: the
    smallest, largest and mean accuracy over the seeds (``math.nan`` where the scheme cannot
    run).
    """

    task: str
    train_length: int
    lengths: tuple[int, ...]
    positions: tuple[str, ...]
    seeds: tuple[int, ...]
    runs: tuple[SweepResult, ...]

    def values(self, scheme: str) -> NDArray[np.float64]:
        """The accuracies of ``scheme``: shape ``(len(seeds), len(lengths))``."""
        scheme = check_choice("scheme", scheme, self.positions)
        return np.array([r.accuracy[scheme] for r in self.runs], dtype=np.float64)

    @property
    def per_seed(self) -> dict[str, tuple[tuple[float, ...], ...]]:
        """``per_seed[scheme][i][k]``: the accuracy with ``seeds[i]`` at ``lengths[k]``."""
        return {p: tuple(r.accuracy[p] for r in self.runs) for p in self.positions}

    def _reduce(self, how: Any) -> dict[str, tuple[float, ...]]:
        out = {}
        for p in self.positions:
            v = self.values(p)
            out[p] = tuple(math.nan if np.isnan(col).any() else float(how(col)) for col in v.T)
        return out

    @property
    def low(self) -> dict[str, tuple[float, ...]]:
        """Smallest accuracy over the seeds, per scheme and test length."""
        return self._reduce(np.min)

    @property
    def high(self) -> dict[str, tuple[float, ...]]:
        """Largest accuracy over the seeds, per scheme and test length."""
        return self._reduce(np.max)

    @property
    def mean(self) -> dict[str, tuple[float, ...]]:
        """Mean accuracy over the seeds, per scheme and test length."""
        return self._reduce(np.mean)

    def table(self, digits: int = 2) -> str:
        """A fixed-width text table: for each scheme and test length, ``low–high`` over the
        seeds (one number when they agree to ``digits`` decimals; ``n/a`` where it cannot run)."""
        digits = check_nonneg_int("digits", digits)
        low, high = self.low, self.high
        cells = {p: [("n/a" if math.isnan(a) else
                      f"{a:.{digits}f}" if f"{a:.{digits}f}" == f"{b:.{digits}f}" else
                      f"{a:.{digits}f}–{b:.{digits}f}") for a, b in zip(low[p], high[p])]
                 for p in self.positions}
        width = max(len(c) for row in cells.values() for c in row) + 2
        name_w = max(len("scheme"), *(len(p) for p in self.positions))
        head = f"{'scheme':<{name_w}}" + "".join(f"{n:>{width}}" for n in self.lengths)
        seeds = ", ".join(str(s) for s in self.seeds)
        lines = [f"{self.task}: lowest–highest accuracy over seeds {seeds} "
                 f"(trained at {self.train_length})", head, "-" * len(head)]
        lines += [f"{p:<{name_w}}" + "".join(f"{c:>{width}}" for c in cells[p])
                  for p in self.positions]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.table()


def seed_sweep(task_name: str = "copy_back", positions: Sequence[str] = SCHEMES,
               factors: Sequence[int] = (1, 2, 4, 8), seeds: Sequence[int] = (0, 1, 2),
               n_sequences: int = 256, *, steps: int | None = None,
               store: bool | None = None) -> SeedSweep:
    """:func:`length_sweep` once per seed in ``seeds`` (same test sequences for every seed, so
    the spread is the spread between training runs). Each run is memoised and stored as in
    :func:`length_sweep`."""
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
        raise TypeError(f"seeds must be a sequence of non-negative integers, got {seeds!r}")
    seeds = tuple(check_nonneg_int(f"seeds[{i}]", s) for i, s in enumerate(seeds))
    if not seeds:
        raise ValueError("seeds must hold at least one seed, got ()")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must not repeat, got {seeds!r}")
    runs = tuple(length_sweep(task_name, positions, factors, s, n_sequences, steps=steps,
                              store=store) for s in seeds)
    first = runs[0]
    return SeedSweep(task=first.task, train_length=first.train_length, lengths=first.lengths,
                     positions=first.positions, seeds=seeds, runs=runs)


# --------------------------------------------------------------------------------------------
# Scores and the noise in them
# --------------------------------------------------------------------------------------------


def masked_accuracy(logits: ArrayLike, targets: ArrayLike, mask: ArrayLike) -> float:
    r"""Fraction of *counted* predictions that are right.

    .. math::
        \mathrm{acc} = \frac{\sum_n [n \in M]\,[\arg\max_c z_{n,c} = y_n]}{|M|}

    ``logits`` has shape ``(..., C)``, ``targets`` (class indices) and ``mask`` (bool: does
    this position have a target?) the shape ``(...)``. Positions outside the mask count neither
    as right nor as wrong.
    """
    z = as_array("logits", logits, min_ndim=1)
    y = np.asarray(targets)
    if y.dtype == bool or not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"targets must be an integer array, got dtype {y.dtype}")
    m = np.asarray(mask)
    if m.dtype != bool:
        raise TypeError(f"mask must be a bool array, got dtype {m.dtype}")
    if y.shape != z.shape[:-1] or m.shape != y.shape:
        raise ValueError(f"targets and mask must have shape {z.shape[:-1]} (logits without its "
                         f"last axis), got {y.shape} and {m.shape}")
    counted = int(m.sum())
    if counted == 0:
        raise ValueError("mask must select at least one position, got none")
    return int(((z.argmax(-1) == y) & m).sum()) / counted


def chance_band(n: int, p: float = 0.5, z: float = 3.0) -> tuple[float, float]:
    r"""Where the accuracy of a model that guesses (right with probability ``p``) lands.

    Out of ``n`` independent predictions the number right is binomial, with standard deviation
    :math:`\sqrt{n p (1-p)}`; as a fraction, :math:`\sigma = \sqrt{p(1-p)/n}`. The band is
    :math:`p \pm z\sigma`, clipped to :math:`[0, 1]`. With ``z = 3`` a guesser falls outside it
    about 3 times in 1000 (normal approximation).
    """
    n = check_positive_int("n", n)
    p = check_finite_real("p", p, minimum=0.0)
    if p > 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    z = check_finite_real("z", z, minimum=0.0)
    sigma = math.sqrt(p * (1.0 - p) / n)
    return max(0.0, p - z * sigma), min(1.0, p + z * sigma)


# --------------------------------------------------------------------------------------------
# Looking inside a trained model
# --------------------------------------------------------------------------------------------


def _check_model(params: Any, config: Any, task: Any) -> tuple[lab.LabConfig, lab.Task]:
    config = lab.check_config(config)
    if isinstance(task, str):
        task = make_task(task)
    if not isinstance(task, lab.Task):
        raise TypeError(f"task must be a task object or a task name, got {type(task).__name__}")
    lab.check_params(params, config)
    return config, task


def accuracy_by_position(params: dict[str, np.ndarray], config: lab.LabConfig,
                         task: lab.Task | str, *, length: int, n_sequences: int = 64,
                         seed: int = 1234) -> NDArray[np.float64]:
    r"""Accuracy at each position :math:`t` of ``n_sequences`` fresh sequences of ``length``.

    :math:`\mathrm{acc}_t = \frac{1}{B}\sum_b [\arg\max_c z_{b,t,c} = y_{b,t}]`; ``nan`` at the
    positions without a target (:math:`t < k` for copy-back). Needs a per-token task. In a causal
    model position :math:`t` sees only tokens :math:`0..t`, so its accuracy does not depend on how
    long the sequence goes on after it.
    """
    config, task = _check_model(params, config, task)
    if not task.per_token:
        raise ValueError(f"task must make a prediction per token, got task {task.name!r}")
    length = check_positive_int("length", length)
    n_sequences = check_positive_int("n_sequences", n_sequences)
    seed = check_nonneg_int("seed", seed)
    tokens, targets, mask = task.sample(np.random.default_rng(seed), n_sequences, length)
    pred = lab.forward(params, tokens, config).argmax(-1)
    hits = ((pred == targets) & mask).sum(0).astype(np.float64)
    counted = mask.sum(0)
    return np.where(counted > 0, hits / np.maximum(counted, 1), np.nan)


def copy_offsets(params: dict[str, np.ndarray], config: lab.LabConfig, *, length: int,
                 max_offset: int = 8, n_sequences: int = 64, seed: int = 1234,
                 start: int | None = None) -> NDArray[np.float64]:
    r"""How often the model's output equals the token :math:`j` steps back, :math:`j = 0..J`.

    :math:`P_j = \frac{1}{|S|}\sum_{(b,t) \in S} [\hat y_{b,t} = x_{b,t-j}]` over the positions
    :math:`t \ge` ``start`` (default ``max_offset``) of ``n_sequences`` random sequences of
    uniform tokens (vocabulary ``config.vocab_size``). A perfect copy-back-:math:`k` model has
    :math:`P_k = 1` and :math:`P_j \approx 1/V` elsewhere (chance coincidences); a model that only
    knows "recently" spreads its outputs over several small :math:`j`.
    """
    config = lab.check_config(config)
    max_offset = check_nonneg_int("max_offset", max_offset)
    length = check_positive_int("length", length)
    start = max_offset if start is None else check_nonneg_int("start", start)
    if start < max_offset or start >= length:
        raise ValueError(f"start must lie in [max_offset, length) = [{max_offset}, {length}), "
                         f"got {start}")
    n_sequences = check_positive_int("n_sequences", n_sequences)
    seed = check_nonneg_int("seed", seed)
    tokens = np.random.default_rng(seed).integers(0, config.vocab_size,
                                                  size=(n_sequences, length))
    pred = lab.forward(params, tokens, config).argmax(-1)[:, start:]
    return np.array([np.mean(pred == tokens[:, start - j:length - j])
                     for j in range(max_offset + 1)])


def attention_by_distance(params: dict[str, np.ndarray], config: lab.LabConfig,
                          tokens: ArrayLike, *, min_query: int = 0) -> NDArray[np.float64]:
    r"""Mean attention weight at each distance back, per layer and head: shape ``(layers, H, T)``.

    Entry :math:`[l, h, \delta]` averages :math:`a^{(l,h)}_{i,\,i-\delta}` over the batch and the
    queries :math:`i \ge \max(\delta, \text{min\_query})` of a causal model. A head that copies
    the token :math:`k` back has a value near 1 at :math:`\delta = k`; the values of one row need
    not sum to 1 (each :math:`\delta` averages over different queries). ``nan`` where no query
    qualifies.
    """
    config = lab.check_config(config)
    if not config.causal:
        raise ValueError("attention_by_distance needs a causal model (config.causal=True), "
                         "got causal=False")
    min_query = check_nonneg_int("min_query", min_query)
    maps = lab.attention_maps(params, tokens, config)
    length = maps[0].shape[-1]
    out = np.full((len(maps), config.n_heads, length), np.nan)
    for layer, a in enumerate(maps):
        for delta in range(length):
            first = max(delta, min_query)
            if first >= length:
                continue
            q = np.arange(first, length)
            out[layer, :, delta] = a[:, :, q, q - delta].mean(axis=(0, 2))
    return out


def copy_head(params: dict[str, np.ndarray], config: lab.LabConfig, *, k: int = 3,
              length: int = 32, n_sequences: int = 16, seed: int = 1234) -> tuple[int, int]:
    """``(layer, head)`` with the largest mean attention at distance ``k`` (the copying head).

    Measured on ``n_sequences`` random sequences of ``length`` tokens with
    :func:`attention_by_distance`. Every model has a maximiser; whether it really copies is for
    the caller to check (its weight at distance ``k`` near 1).
    """
    k = check_positive_int("k", k)
    length = check_positive_int("length", length)
    if k >= length:
        raise ValueError(f"k must be < length={length}, got {k}")
    n_sequences = check_positive_int("n_sequences", n_sequences)
    seed = check_nonneg_int("seed", seed)
    tokens = np.random.default_rng(seed).integers(0, config.vocab_size, size=(n_sequences, length))
    prof = attention_by_distance(params, config, tokens)[:, :, k]
    layer, head = np.unravel_index(int(np.argmax(prof)), prof.shape)
    return int(layer), int(head)


def reverse_positions(bias: ArrayLike) -> NDArray[np.float64]:
    r"""The score bias seen by the *reversed* sequence: :math:`R B R^\top`.

    Reversing the tokens moves position :math:`i` to :math:`L-1-i`, a permutation :math:`R` that
    acts on both the query and the key axis: :math:`(RBR^\top)_{ij} = B_{L-1-i,\,L-1-j}`. A
    bias with :math:`RBR^\top = B` (bidirectional ALiBi: :math:`|i-j|` is unchanged) cannot tell a
    sequence from its reverse. Works on the last two axes, so ``(H, L, L)`` stacks are fine.
    """
    b = as_array("bias", bias, min_ndim=2, finite=False)
    if b.shape[-1] != b.shape[-2]:
        raise ValueError(f"bias must be square in its last two axes, got shape {b.shape}")
    return b[..., ::-1, ::-1].copy()


def attention_mass_beyond(params: dict[str, np.ndarray], config: lab.LabConfig,
                          tokens: ArrayLike, *, distance: int,
                          min_query: int = 0) -> NDArray[np.float64]:
    r"""Share of attention on keys at least ``distance`` back, per layer and head: ``(layers, H)``.

    :math:`\frac{1}{|Q|}\sum_{i \in Q} \sum_{j \le i - D} a_{ij}` averaged over the batch, for the
    queries :math:`Q = \{i \ge \max(D, \text{min\_query})\}`. With :math:`D = L_{\text{train}}`
    it measures how much attention goes to distances the model never met in training.
    """
    config = lab.check_config(config)
    distance = check_positive_int("distance", distance)
    min_query = check_nonneg_int("min_query", min_query)
    maps = lab.attention_maps(params, tokens, config)
    length = maps[0].shape[-1]
    first = max(distance, min_query)
    if first >= length:
        raise ValueError(f"no query lies at or after max(distance, min_query) = {first} in "
                         f"inputs of length {length}")
    i = np.arange(length)
    far = (i[:, None] - i[None, :]) >= distance  # (T, T): key j at least `distance` back
    return np.stack([(a * far).sum(-1)[..., first:].mean(axis=(0, 2)) for a in maps])
