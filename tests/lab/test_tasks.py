"""posenc_lib.lab.tasks: the order, copy-back and latest-signal tasks: labels and targets,
statistics, seeding and validation."""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib import lab


def test_task_samples_are_seeded():
    for task in (lab.OrderTask(), lab.CopyBackTask()):
        x = task.sample(np.random.default_rng(9), 4, 10)
        y = task.sample(np.random.default_rng(9), 4, 10)
        assert all(np.array_equal(p, q) for p, q in zip(x, y))


# ------------------------------------------------------------------------------------------
# Tasks
# ------------------------------------------------------------------------------------------


def test_order_task_labels():
    tokens, labels, mask = lab.OrderTask(vocab_size=10).sample(np.random.default_rng(0), 200, 9)
    assert mask.all() and mask.shape == (200,)
    for row, label in zip(tokens, labels):
        assert (row == 0).sum() == 1 and (row == 1).sum() == 1
        assert label == int(np.argmax(row == 0) < np.argmax(row == 1))
    assert 0.35 < labels.mean() < 0.65


def test_copy_back_targets():
    task = lab.CopyBackTask(k=3, vocab_size=12)
    tokens, targets, mask = task.sample(np.random.default_rng(0), 5, 10)
    assert not mask[:, :3].any() and mask[:, 3:].all()
    np.testing.assert_array_equal(targets[:, 3:], tokens[:, :-3])


def _latest_signal_by_loop(row, n_signals):
    """The latest signal at or before each position, by a plain loop (None before the first)."""
    out, last = [], None
    for token in row:
        if token < n_signals:
            last = int(token)
        out.append(last)
    return out


def test_latest_signal_targets_match_a_plain_loop():
    task = lab.LatestSignalTask(n_signals=3, vocab_size=7, p_signal=0.3)
    tokens, targets, mask = task.sample(np.random.default_rng(0), 50, 20)
    assert tokens.min() >= 0 and tokens.max() < 7
    for row, target_row, mask_row in zip(tokens, targets, mask):
        expected = _latest_signal_by_loop(row, 3)
        assert list(mask_row) == [e is not None for e in expected]
        assert [int(t) for t, m in zip(target_row, mask_row) if m] == \
            [e for e in expected if e is not None]


def test_latest_signal_statistics_do_not_depend_on_length():
    task = lab.LatestSignalTask()  # 8 signals, p = 0.15
    assert task.n_outputs == 8 and task.name == "latest_signal" and task.per_token
    for length in (32, 256):
        tokens, targets, mask = task.sample(np.random.default_rng(1), 400, length)
        signal_rate = (tokens < 8).mean()
        assert abs(signal_rate - 0.15) < 0.01, (length, signal_rate)
        # every signal value is equally likely among the signals
        counts = np.bincount(tokens[tokens < 8], minlength=8) / (tokens < 8).sum()
        assert np.abs(counts - 1 / 8).max() < 0.02
        # the first position has a target exactly when it holds a signal
        np.testing.assert_array_equal(mask[:, 0], tokens[:, 0] < 8)


def test_latest_signal_is_reproducible_and_validated():
    a = lab.LatestSignalTask().sample(np.random.default_rng(5), 4, 12)
    b = lab.LatestSignalTask().sample(np.random.default_rng(5), 4, 12)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match=r"vocab_size must exceed n_signals=8 .*got 8"):
        lab.LatestSignalTask(vocab_size=8)
    with pytest.raises(ValueError, match=r"p_signal must be a probability in \(0, 1\], got 1.5"):
        lab.LatestSignalTask(p_signal=1.5)
    with pytest.raises(ValueError, match=r"p_signal must be a probability in \(0, 1\], got 0.0"):
        lab.LatestSignalTask(p_signal=0.0)
    with pytest.raises(ValueError, match=r"n_signals must be a positive integer, got 0"):
        lab.LatestSignalTask(n_signals=0)


def test_task_argument_validation():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"length must be > k=3, got 3"):
        lab.CopyBackTask(k=3).sample(rng, 2, 3)
    with pytest.raises(ValueError, match=r"k must be a positive integer, got 0"):
        lab.CopyBackTask(k=0)
    with pytest.raises(ValueError, match=r"vocab_size must be >= 3 \(A, B and a filler\), got 2"):
        lab.OrderTask(vocab_size=2)
    with pytest.raises(ValueError, match=r"length must be >= 2 to hold A and B, got 1"):
        lab.OrderTask().sample(rng, 2, 1)
    with pytest.raises(ValueError, match=r"batch must be a positive integer, got 0"):
        lab.OrderTask().sample(rng, 0, 5)
    with pytest.raises(TypeError, match=r"rng must be a numpy Generator .* got int"):
        lab.OrderTask().sample(0, 2, 5)
