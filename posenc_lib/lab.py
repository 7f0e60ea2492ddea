r"""A tiny transformer you can read: numpy only, hand-written backward pass, pluggable positions.

This is the model behind the chapter "what extrapolates, measured". It is small enough to train
on a laptop CPU in seconds and plain enough to read in one sitting. The position scheme is a
plug-in chosen by ``LabConfig.position``:

================  ==========================================================================
``"none"``        NoPE: no position signal (a causal mask still leaks some: row ``i`` of a
                  causal model averages over ``i + 1`` tokens)
``"learned"``     a trained table :math:`P \in \mathbb{R}^{L_{\max} \times d}` added to the tokens
``"sinusoidal"``  the Transformer's fixed sinusoids added to the tokens
``"rope"``        queries and keys rotated by :math:`pos\,\theta_i` in every head
``"alibi"``       :math:`-m_h\,|i-j|` added to the attention scores of head :math:`h`
``"t5"``          a learned scalar per head and *bucket* of the offset :math:`j-i` (T5)
================  ==========================================================================

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

The names a configuration takes: ``POSITIONS`` (the schemes, :data:`posenc_lib.schemes.NAMES`),
``READOUTS`` (``"token"``: a prediction per position; ``"mean"``: one per sequence, from the mean
over positions), ``LAB_ROPE_SCALINGS`` (the RoPE stretchings a lab model takes: ``"linear"``,
``"ntk"``, ``"yarn"``) and ``TASKS`` (the built-in tasks by name).

The code sits in three files, along its seams: ``lab_model.py`` (configuration, parameters, the
forward and the backward pass), ``lab_tasks.py`` (the tasks) and ``lab_train.py`` (Adam,
training, evaluation). This module gathers them: write ``lab.train``, ``lab.LabConfig`` and so
on.
"""

from __future__ import annotations

# Besides the public API, the private checks and forward pass that other modules of the library
# use as lab._check_config, lab._forward, ... (hence the noqa: imported, not used here).
from .lab_model import (  # noqa: F401
    LAB_ROPE_SCALINGS,
    LN_EPS,
    POSITIONS,
    READOUTS,
    T5_MAX_DISTANCE,
    T5_NUM_BUCKETS,
    LabConfig,
    _check_config,
    _check_length,
    _check_params,
    _forward,
    attention_maps,
    forward,
    init_params,
    loss_and_grads,
    param_shapes,
    rows_per_chunk,
)
from .lab_tasks import (  # noqa: F401
    TASKS,
    CopyBackTask,
    LatestSignalTask,
    OrderTask,
    Task,
    _check_rng,
    _check_task,
    get_task,
)
from .lab_train import (
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
    "default_config",
    "default_training",
    "evaluate",
    "forward",
    "get_task",
    "init_params",
    "loss_and_grads",
    "param_shapes",
    "rope_scaled",
    "rows_per_chunk",
    "train",
]
