"""posenc_lib.lab.training: determinism, learning each task, Adam, the default settings,
fine-tuning from given weights, stretched RoPE's configurations, the progress bar and argument
validation."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from helpers import jittered_params, tiny

from posenc_lib import lab
from posenc_lib.lab import training as lab_train

# ------------------------------------------------------------------------------------------
# Determinism
# ------------------------------------------------------------------------------------------


def _short_run(seed: int) -> lab.TrainResult:
    config = lab.LabConfig(vocab_size=8, n_outputs=8, position="t5", d_model=16, n_heads=2,
                           n_layers=1, d_mlp=16, max_len=12)
    task = lab.CopyBackTask(k=2, vocab_size=8)
    return lab.train(config, task, steps=6, batch_size=4, lr=1e-2, seed=seed, length=12,
                     progress=False)


def test_same_seed_same_losses_and_accuracy():
    a, b = _short_run(3), _short_run(3)
    assert a.losses == b.losses
    assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)
    acc = [lab.evaluate(r.params, r.config, lab.CopyBackTask(k=2, vocab_size=8), length=12,
                        n_sequences=8, seed=5) for r in (a, b)]
    assert acc[0] == acc[1]


def test_different_seeds_differ():
    a, b = _short_run(3), _short_run(4)
    assert a.losses != b.losses


# ------------------------------------------------------------------------------------------
# Optimiser, learning and the default settings
# ------------------------------------------------------------------------------------------


def test_training_learns_latest_signal():
    task = lab.LatestSignalTask(n_signals=4, vocab_size=8, p_signal=0.25)
    config = lab.LabConfig(vocab_size=8, n_outputs=4, position="alibi", d_model=16, n_heads=2,
                           n_layers=2, d_mlp=32, max_len=16)
    result = lab.train(config, task, steps=200, batch_size=16, lr=1e-2, seed=0, length=16,
                       progress=False)
    assert np.mean(result.losses[:5]) > 1.2  # about log 4 = 1.39 at the start
    assert lab.evaluate(result.params, config, task, length=16, n_sequences=64) > 0.9


def test_adam_first_step_is_bias_corrected():
    params = {"w": np.array([1.0, -2.0, 3.0])}
    opt = lab.Adam(params, lr=0.1)
    opt.step(params, {"w": np.array([0.5, -4.0, 1e-3])})
    # after bias correction m/sqrt(v) = g/|g| on the first step: every entry moves by lr
    np.testing.assert_allclose(params["w"], [0.9, -1.9, 2.9], rtol=1e-6)


def test_training_learns_copy_back():
    config = lab.LabConfig(vocab_size=8, n_outputs=8, position="rope", d_model=16, n_heads=2,
                           n_layers=1, d_mlp=0, max_len=16)
    task = lab.CopyBackTask(k=2, vocab_size=8)
    result = lab.train(config, task, steps=150, batch_size=16, lr=2e-2, seed=0, length=16,
                       progress=False)
    first, last = np.mean(result.losses[:5]), np.mean(result.losses[-5:])
    assert first > 1.8  # about log 8 = 2.08 at the start
    assert last < first / 4, (first, last)
    assert lab.evaluate(result.params, config, task, length=16, n_sequences=32) > 0.9


def test_training_learns_order_with_positions_but_not_without():
    accuracy = {}
    for position in ("sinusoidal", "none"):
        config = lab.LabConfig(vocab_size=8, n_outputs=2, position=position, d_model=16,
                               n_heads=2, n_layers=1, d_mlp=16, max_len=8, causal=False,
                               readout="mean")
        task = lab.OrderTask(vocab_size=8)
        result = lab.train(config, task, steps=150, batch_size=32, lr=1e-2, seed=0, length=8,
                           progress=False)
        accuracy[position] = lab.evaluate(result.params, config, task, length=8,
                                          n_sequences=400)
    assert accuracy["sinusoidal"] > 0.85
    assert abs(accuracy["none"] - 0.5) < 0.08


def test_default_settings_are_consistent():
    for task_name, position in itertools.product(lab.TASKS, lab.POSITIONS):
        config = lab.default_config(position, task_name)
        task = lab.get_task(task_name)
        training = lab.default_training(task_name)
        assert set(training) == {"steps", "batch_size", "lr", "length"}
        assert config.max_len >= training["length"]
        assert config.position == position
        assert config.readout == ("token" if task.per_token else "mean")
        assert config.causal == (task_name != "order")


# ------------------------------------------------------------------------------------------
# Validation
# ------------------------------------------------------------------------------------------


def test_training_argument_validation():
    config = lab.default_config("rope", "copy_back")
    run = dict(steps=1, batch_size=2, lr=1e-3, seed=0, length=8, progress=False)
    with pytest.raises(ValueError, match=r"steps must be a positive integer, got 0"):
        lab.train(config, "copy_back", **{**run, "steps": 0})
    with pytest.raises(ValueError, match=r"lr must be > 0, got -0.1"):
        lab.train(config, "copy_back", **{**run, "lr": -0.1})
    with pytest.raises(TypeError, match=r"batch_size must be a positive integer, got 2.0"):
        lab.train(config, "copy_back", **{**run, "batch_size": 2.0})
    with pytest.raises(TypeError, match=r"progress must be a bool, got 'no'"):
        lab.train(config, "copy_back", **{**run, "progress": "no"})
    with pytest.raises(ValueError, match=r"task 'order' needs readout='mean', got "
                                         r"readout='token'"):
        lab.train(dataclasses.replace(config, n_outputs=2), "order", **run)
    with pytest.raises(ValueError, match=r"task 'copy_back' has 16 classes but the config has "
                                         r"n_outputs=2"):
        lab.train(dataclasses.replace(config, n_outputs=2), "copy_back", **run)
    with pytest.raises(ValueError, match=r"task 'copy_back' uses 32 tokens but the config has "
                                         r"vocab_size=16"):
        lab.train(dataclasses.replace(config, n_outputs=32), lab.CopyBackTask(vocab_size=32),
                  **run)
    with pytest.raises(TypeError, match=r"task must be a task object .* got int"):
        lab.train(config, 3, **run)
    with pytest.raises(ValueError, match=r"task_name must be one of 'order', 'copy_back', "
                                         r"'latest_signal', got 'sort'"):
        lab.train(config, "sort", **run)
    params = lab.init_params(config, 0)
    with pytest.raises(ValueError, match=r"n_sequences must be a positive integer, got 0"):
        lab.evaluate(params, config, "copy_back", length=8, n_sequences=0)
    with pytest.raises(ValueError, match=r"position must be one of .*got 'absolute'"):
        lab.default_config("absolute", "order")
    with pytest.raises(ValueError, match=r"task_name must be one of .*got 'copy'"):
        lab.default_training("copy")
    with pytest.raises(ValueError, match=r"lr must be > 0, got 0"):
        lab.Adam(params, lr=0)
    with pytest.raises(ValueError, match=r"betas\[1\] must be < 1, got 1.0"):
        lab.Adam(params, betas=(0.9, 1.0))


# ------------------------------------------------------------------------------------------
# Stretched RoPE (chapter 11): unchanged by default, fine-tuning with init=, rope_scaled
# ------------------------------------------------------------------------------------------


def test_default_rope_is_unchanged_bit_for_bit():
    """Golden values computed with lab.py as it was before rope_scaling existed."""
    config = lab.default_config("rope", "copy_back")
    assert config.rope_scaling is None and config.rope_factor == 1.0
    run = lab.train(config, "copy_back", steps=5, batch_size=4, lr=5e-3, length=12, seed=11,
                    progress=False)
    golden = [3.310136717136989, 2.878757176349053, 3.241454820638819, 3.065859404731147,
              2.8608301294053264]
    np.testing.assert_allclose(run.losses, golden, rtol=1e-10)  # bit-equal on the reference box
    tokens = np.random.default_rng(5).integers(0, 16, (2, 40))
    logits = lab.forward(run.params, tokens, config)
    assert float(logits.sum()) == pytest.approx(85.00055234521297, rel=1e-10)
    assert float((logits**2).sum()) == pytest.approx(1028.3461817638258, rel=1e-10)
    np.testing.assert_allclose(logits[1, 37, :4], [-0.10469964699031567, -0.0004000584522757312,
                                                   -0.011661839293624975, 0.47970022788692074],
                               rtol=1e-9)


def test_train_from_init_is_a_fine_tune():
    config = tiny("rope", d_model=16)
    task = lab.CopyBackTask(k=2, vocab_size=5)
    start = jittered_params(config, seed=4)
    snapshot = {k: v.copy() for k, v in start.items()}
    stretched = lab.rope_scaled(config, "yarn", 2.0)
    run = lab.train(stretched, task, steps=3, batch_size=4, lr=1e-2, seed=9, length=12,
                    progress=False, init=start)
    assert all(np.array_equal(start[k], snapshot[k]) for k in start)  # the input is not touched
    assert any(not np.array_equal(run.params[k], start[k]) for k in start)
    # step 0 is evaluated at the given parameters, on the first batch of the seed's data stream
    tokens, targets, mask = task.sample(np.random.default_rng([9, 1]), 4, 12)
    first, _ = lab.loss_and_grads(start, tokens, targets, stretched, mask)
    assert run.losses[0] == first
    again = lab.train(stretched, task, steps=3, batch_size=4, lr=1e-2, seed=9, length=12,
                      progress=False, init=start)
    assert again.losses == run.losses
    with pytest.raises(ValueError, match=r"missing \['embed'\]"):
        lab.train(stretched, task, steps=1, batch_size=2, lr=1e-3, length=12, progress=False,
                  init={k: v for k, v in start.items() if k != "embed"})


def test_rope_scaled_helper():
    config = lab.default_config("rope", "copy_back")
    yarn = lab.rope_scaled(config, "yarn", 4.0)
    assert (yarn.rope_scaling, yarn.rope_factor, yarn.max_len) == ("yarn", 4.0, config.max_len)
    assert lab.rope_scaled(yarn, None) == config
    theta, mult = yarn.rope_frequencies()
    assert mult == pytest.approx((0.1 * math.log(4.0) + 1.0) ** 2)
    assert theta[0] == 1.0 and theta[-1] == pytest.approx(config.rope_frequencies()[0][-1] / 4)
    with pytest.raises(ValueError, match=r"config must use position='rope', got "
                                         r"position='alibi'"):
        lab.rope_scaled(lab.default_config("alibi", "copy_back"), "linear", 2.0)
    with pytest.raises(ValueError, match=r"rope_scaling must be one of"):
        lab.rope_scaled(config, "dynamic", 2.0)


# ------------------------------------------------------------------------------------------
# Progress
# ------------------------------------------------------------------------------------------


def test_progress_bar_redraws_rarely(monkeypatch):
    """Each redraw of a Jupyter progress bar is a few kernel messages; a flood of them overflows
    the kernel's output queue and made nbval time out. At most one redraw per second."""
    seen = {}

    class RecordingBar:
        def __init__(self, iterable, **kwargs):
            seen["kwargs"] = kwargs
            self.iterable = iterable

        def __iter__(self):
            return iter(self.iterable)

        def set_postfix(self, *args, **kwargs):
            seen.setdefault("postfix_refresh", set()).add(kwargs.get("refresh", True))

        def close(self):
            seen["closed"] = True

    monkeypatch.setattr(lab_train, "tqdm", RecordingBar)   # where train() looks it up
    config = lab.default_config("rope", "copy_back")
    lab.train(config, "copy_back", steps=3, batch_size=2, lr=1e-3, length=8, progress=True)
    assert seen["kwargs"]["mininterval"] >= 1.0
    assert seen["postfix_refresh"] == {False} and seen["closed"]
