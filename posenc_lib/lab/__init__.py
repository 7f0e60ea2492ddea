r"""A tiny transformer you can read: numpy only, hand-written backward pass, pluggable positions.

This is the model behind the chapter "what extrapolates, measured". It is small enough to train
on a laptop CPU in seconds and plain enough to read in one sitting. The position scheme is a
plug-in chosen by ``LabConfig.position``: one of the schemes of :mod:`posenc_lib.lab.schemes`
(NoPE, a learned table, sinusoids, RoPE, ALiBi, T5 buckets), each of which says there what it
adds to the tokens, rotates or adds to the scores.

The network (pre-LayerNorm, residual), for tokens :math:`t_1 \dots t_T`:

.. math::
    x^{(0)}_i &= E[t_i] \;(+\, P_i \text{ for learned/sinusoidal}) \\
    x &\leftarrow x + \mathrm{MHA}(\mathrm{LN}(x)) \\
    x &\leftarrow x + W_2\,\mathrm{ReLU}(W_1\,\mathrm{LN}(x) + b_1) + b_2
        \quad\text{(if } d_{\mathrm{mlp}} > 0) \\
    \text{logits} &= \mathrm{LN}(x)\,W_{\mathrm{out}} + b_{\mathrm{out}}
        \quad\text{per token, or after a mean over positions}

and in each attention head, with head dimension :math:`d_h = d/H`,

.. math::
    s_{ij} = \frac{\tilde q_i \cdot \tilde k_j}{\sqrt{d_h}} + B_{ij}, \qquad
    a_{ij} = \mathrm{softmax}_j(s_{ij}), \qquad o_i = \sum_j a_{ij} v_j,

where :math:`\tilde q, \tilde k` are the RoPE-rotated :math:`q, k` (or just :math:`q, k`) and
:math:`B` holds the ALiBi or T5 bias and the causal mask (:math:`-\infty` for :math:`j > i`).

Parameters live in a plain ``dict`` of float64 arrays; :func:`loss_and_grads` returns gradients
in a dict with the same keys, computed by hand (no autograd) and checked against finite
differences in the tests. :class:`Adam` and :func:`train` do the rest; :func:`evaluate` measures
accuracy at any length. Three tasks are built in (:class:`OrderTask`, :class:`CopyBackTask`,
:class:`LatestSignalTask`);
anything with ``name``, ``vocab_size``, ``n_outputs``, ``per_token`` and
``sample(rng, batch, length)`` is a task too.

Everything random takes a seed and uses its own ``np.random.default_rng``: the same seed gives
bit-identical losses and accuracies.

The names a configuration takes: ``POSITIONS`` (the schemes, :data:`posenc_lib.lab.schemes.NAMES`),
``READOUTS`` (``"token"``: a prediction per position; ``"mean"``: one per sequence, from the mean
over positions), ``LAB_ROPE_SCALINGS`` (the RoPE stretchings a lab model takes: ``"linear"``,
``"ntk"``, ``"yarn"``) and ``TASKS`` (the built-in tasks by name).

The package's modules, along its seams: ``model`` (configuration, parameters, the forward and
the backward pass), :mod:`~posenc_lib.lab.schemes` (the position schemes: what each adds,
rotates or biases, and its parameters' gradients), ``tasks`` (the tasks), ``training`` (Adam,
training, evaluation), :mod:`~posenc_lib.lab.storage` (the stored models and results), and the
experiments :mod:`~posenc_lib.lab.extrapolation` and :mod:`~posenc_lib.lab.textlm`. This module gathers the
model, tasks and training: write ``lab.train``, ``lab.LabConfig`` and so on.
"""

from __future__ import annotations

from .model import (
    LAB_ROPE_SCALINGS,
    LN_EPS,
    POSITIONS,
    READOUTS,
    T5_MAX_DISTANCE,
    T5_NUM_BUCKETS,
    LabConfig,
    attention_maps,
    check_config,
    check_length,
    check_params,
    forward,
    forward_pass,
    init_params,
    loss_and_grads,
    param_shapes,
    rows_per_chunk,
)
from .tasks import (
    TASKS,
    CopyBackTask,
    LatestSignalTask,
    OrderTask,
    Task,
    check_rng,
    check_task,
    get_task,
)
from .training import (
    Adam,
    TrainResult,
    default_config,
    default_training,
    evaluate,
    rope_scaled,
    train,
)

__all__ = [
    "LAB_ROPE_SCALINGS",
    "LN_EPS",
    "POSITIONS",
    "READOUTS",
    "T5_MAX_DISTANCE",
    "T5_NUM_BUCKETS",
    "TASKS",
    "Adam",
    "CopyBackTask",
    "LabConfig",
    "LatestSignalTask",
    "OrderTask",
    "Task",
    "TrainResult",
    "attention_maps",
    "check_config",
    "check_length",
    "check_params",
    "check_rng",
    "check_task",
    "default_config",
    "default_training",
    "evaluate",
    "forward",
    "forward_pass",
    "get_task",
    "init_params",
    "loss_and_grads",
    "param_shapes",
    "rope_scaled",
    "rows_per_chunk",
    "train",
]
