"""posenc_lib.lab.extrapolation: the length sweep, its scores and the tools that look inside models."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib import lab
from posenc_lib.lab import extrapolation as X
from posenc_lib.maths import alibi, relative

TINY = 8  # training steps for the cheap tests: enough to run every code path


# ------------------------------------------------------------------------------------------
# Tasks and the memoised models
# ------------------------------------------------------------------------------------------


def test_schemes_and_tasks():
    assert X.SCHEMES == lab.POSITIONS
    assert isinstance(X.make_task("order"), lab.OrderTask) and not X.make_task("order").bos
    assert X.make_task("order_bos") == lab.OrderTask(bos=True)
    assert X.make_task("copy_back") == lab.CopyBackTask()
    assert X.make_task("latest_signal") == lab.LatestSignalTask()
    assert set(X.TASK_LABEL) == set(X.TASK_NAMES)
    latest = X.trained_model("alibi", "latest_signal", steps=TINY, progress=False)
    assert latest.config == lab.default_config("alibi", "latest_signal")
    assert latest.config.causal and latest.config.n_outputs == 8
    with pytest.raises(ValueError, match="task_name must be one of .*got 'copy'"):
        X.make_task("copy")


def test_trained_model_is_memoised_and_uses_the_default_settings():
    a = X.trained_model("rope", "copy_back", steps=TINY, progress=False)
    b = X.trained_model("rope", "copy_back", steps=TINY, progress=False)
    assert a is b
    assert a.config == lab.default_config("rope", "copy_back")
    assert len(a.losses) == TINY
    bos = X.trained_model("alibi", "order_bos", steps=TINY, progress=False)
    assert bos.config == lab.default_config("alibi", "order")


# ------------------------------------------------------------------------------------------
# The sweep, cheap: tiny training, every code path
# ------------------------------------------------------------------------------------------


def test_cheap_sweep_structure_table_and_nan_for_learned():
    r = X.length_sweep("copy_back", positions=("learned", "alibi"), factors=(1, 2),
                       n_sequences=4, steps=TINY)
    assert r.task == "copy_back" and r.train_length == 32 and r.lengths == (32, 64)
    assert r.positions == ("learned", "alibi")
    assert math.isnan(r.accuracy["learned"][1]) and not math.isnan(r.accuracy["learned"][0])
    assert all(0.0 <= a <= 1.0 for a in r.accuracy["alibi"])
    assert set(r.seconds) == {"learned", "alibi"} and all(s > 0 for s in r.seconds.values())
    lines = r.table().splitlines()
    assert lines[0] == "copy_back: accuracy at each test length (trained at 32)"
    assert lines[1].split() == ["scheme", "32", "64"]
    assert lines[3].split()[0] == "learned" and lines[3].split()[2] == "n/a"
    assert lines[4].split()[1] == f"{r.accuracy['alibi'][0]:.2f}"
    assert r.table(3).splitlines()[4].split()[1] == f"{r.accuracy['alibi'][0]:.3f}"
    assert len({len(line) for line in lines[1:]}) == 1  # fixed width
    assert repr(r) == r.table()
    # memoised: the same object comes back
    assert X.length_sweep("copy_back", positions=("learned", "alibi"), factors=(1, 2),
                          n_sequences=4, steps=TINY) is r


def test_same_seed_reproduces_bit_for_bit_and_another_seed_differs():
    args = dict(positions=("none", "sinusoidal", "t5"), factors=(1, 2), n_sequences=16,
                steps=TINY)
    first = X.length_sweep("copy_back", seed=3, **args)
    X.clear_cache()  # really train again
    again = X.length_sweep("copy_back", seed=3, **args)
    assert again is not first
    assert again.accuracy == first.accuracy
    losses = X.trained_model("t5", "copy_back", 3, steps=TINY).losses
    other = X.trained_model("t5", "copy_back", 4, steps=TINY).losses
    assert losses != other


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(task_name="sort"), ValueError, "task_name must be one of"),
    (dict(positions="rope"), TypeError, "positions must be a sequence of scheme names"),
    (dict(positions=("rope", "nope")), ValueError, r"positions\[1\] must be one of .*'nope'"),
    (dict(positions=()), ValueError, "positions must name at least one scheme"),
    (dict(positions=("rope", "rope")), ValueError, "positions must not repeat"),
    (dict(factors=(1, 0)), ValueError, r"factors\[1\] must be a positive integer, got 0"),
    (dict(factors=(2, 1)), ValueError, "factors must be strictly increasing"),
    (dict(factors=(1.5,)), TypeError, r"factors\[0\] must be a positive integer"),
    (dict(factors=()), ValueError, "factors must hold at least one factor"),
    (dict(seed=-1), ValueError, "seed must be a non-negative integer, got -1"),
    (dict(n_sequences=0), ValueError, "n_sequences must be a positive integer, got 0"),
    (dict(steps=0), ValueError, "steps must be a positive integer, got 0"),
])
def test_sweep_validation_names_the_parameter(kwargs, error, message):
    with pytest.raises(error, match=message):
        X.length_sweep(**kwargs)


def test_trained_model_validation():
    with pytest.raises(ValueError, match="position must be one of .*got 'xpos'"):
        X.trained_model("xpos")
    with pytest.raises(TypeError, match="progress must be a bool, got 1"):
        X.trained_model("rope", progress=1)


def test_a_sweep_of_fewer_schemes_reuses_a_wider_one():
    wide = X.length_sweep("copy_back", positions=("none", "alibi"), factors=(1, 2), seed=6,
                          n_sequences=4, steps=TINY)
    narrow = X.length_sweep("copy_back", positions=("alibi",), factors=(1, 2), seed=6,
                            n_sequences=4, steps=TINY)
    assert narrow.positions == ("alibi",) and narrow.accuracy["alibi"] == wide.accuracy["alibi"]
    X.clear_cache()
    fresh = X.length_sweep("copy_back", positions=("alibi",), factors=(1, 2), seed=6,
                           n_sequences=4, steps=TINY)
    assert fresh.accuracy == narrow.accuracy


def test_seed_sweep_collects_one_sweep_per_seed_and_their_spread():
    r = X.seed_sweep("copy_back", positions=("learned", "alibi"), factors=(1, 2), seeds=(3, 4),
                     n_sequences=4, steps=TINY)
    assert r.seeds == (3, 4) and r.lengths == (32, 64) and r.positions == ("learned", "alibi")
    assert r.runs[0] is X.length_sweep("copy_back", ("learned", "alibi"), (1, 2), 3, 4,
                                       steps=TINY)
    v = r.values("alibi")
    assert v.shape == (2, 2)
    np.testing.assert_array_equal(v, np.array(r.per_seed["alibi"]))
    np.testing.assert_allclose(r.low["alibi"], v.min(0))
    np.testing.assert_allclose(r.high["alibi"], v.max(0))
    np.testing.assert_allclose(r.mean["alibi"], v.mean(0))
    assert math.isnan(r.low["learned"][1]) and not math.isnan(r.low["learned"][0])
    lines = r.table().splitlines()
    assert lines[0].startswith("copy_back: lowest–highest accuracy over seeds 3, 4")
    assert lines[3].split()[0] == "learned" and lines[3].split()[2] == "n/a"
    assert repr(r) == r.table() and len({len(line) for line in lines[1:]}) == 1
    with pytest.raises(ValueError, match="scheme must be one of"):
        r.values("rope")


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(seeds=()), ValueError, "seeds must hold at least one seed"),
    (dict(seeds="01"), TypeError, "seeds must be a sequence"),
    (dict(seeds=(1, 1)), ValueError, "seeds must not repeat"),
    (dict(seeds=(0, -1)), ValueError, r"seeds\[1\] must be a non-negative integer"),
])
def test_seed_sweep_validation(kwargs, error, message):
    with pytest.raises(error, match=message):
        X.seed_sweep("copy_back", positions=("alibi",), factors=(1,), steps=TINY, **kwargs)


def test_store_reads_and_writes_a_longer_run_through_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_TRAIN_CACHE", str(tmp_path))
    monkeypatch.delenv("POSENC_TRAIN_CACHE_MISS", raising=False)
    stored = X.trained_model("alibi", "copy_back", 5, steps=TINY, store=True, progress=False)
    assert len(list(tmp_path.glob("copy_back-alibi-s5-*.npz"))) == 1
    for v in stored.params.values():  # stored weights are float32
        np.testing.assert_array_equal(v, v.astype(np.float32))
    fresh = X.trained_model("alibi", "copy_back", 5, steps=TINY, progress=False)
    assert fresh is not stored  # store=None with steps: trained afresh, memoised separately
    X.clear_cache()
    again = X.trained_model("alibi", "copy_back", 5, steps=TINY, store=True, progress=False)
    for k in stored.params:
        np.testing.assert_array_equal(again.params[k], stored.params[k])
    with pytest.raises(TypeError, match="store must be a bool or None, got 1"):
        X.trained_model("alibi", steps=TINY, store=1)


def test_table_digits_validation():
    r = X.SweepResult("copy_back", 32, (32,), ("rope",), {"rope": (0.5,)}, {"rope": 1.0})
    with pytest.raises(ValueError, match="digits must be a non-negative integer, got -1"):
        r.table(-1)
    assert r.table(0).splitlines()[-1].split() == ["rope", "0"]  # 0.5 rounds to even


# ------------------------------------------------------------------------------------------
# masked_accuracy and chance_band
# ------------------------------------------------------------------------------------------


def test_masked_accuracy_known_value():
    logits = np.array([[[2.0, 0.0], [0.0, 1.0], [5.0, 0.0]]])  # predictions 0, 1, 0
    targets = np.array([[0, 0, 0]])
    mask = np.array([[False, True, True]])
    # counted: position 1 (wrong) and 2 (right); position 0 would be right but does not count
    assert X.masked_accuracy(logits, targets, mask) == 0.5


@given(st.integers(1, 5), st.integers(1, 9), st.integers(2, 6), st.integers(0, 2**31 - 1))
def test_masked_accuracy_equals_a_loop(batch, length, classes, seed):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((batch, length, classes))
    targets = rng.integers(0, classes, size=(batch, length))
    mask = rng.random((batch, length)) < 0.6
    mask[0, 0] = True
    hits = counted = 0
    for b in range(batch):
        for t in range(length):
            if mask[b, t]:
                counted += 1
                hits += int(np.argmax(logits[b, t]) == targets[b, t])
    assert X.masked_accuracy(logits, targets, mask) == hits / counted


def test_masked_accuracy_agrees_with_lab_evaluate():
    model = X.trained_model("t5", "copy_back", steps=TINY, progress=False)
    task = lab.CopyBackTask()
    # lab.evaluate draws its sequences from default_rng(seed) in one chunk for small batches
    tokens, targets, mask = task.sample(np.random.default_rng(77), 8, 40)
    ours = X.masked_accuracy(lab.forward(model.params, tokens, model.config), targets, mask)
    assert ours == lab.evaluate(model.params, model.config, task, length=40, n_sequences=8,
                                seed=77)


@pytest.mark.parametrize("args, error, message", [
    ((np.zeros((2, 3)), np.zeros(2, dtype=int), np.ones(3, dtype=bool)), ValueError,
     "targets and mask must have shape"),
    ((np.zeros((2, 3)), np.zeros(2), np.ones(2, dtype=bool)), TypeError,
     "targets must be an integer array"),
    ((np.zeros((2, 3)), np.zeros(2, dtype=int), np.ones(2)), TypeError,
     "mask must be a bool array"),
    ((np.zeros((2, 3)), np.zeros(2, dtype=int), np.zeros(2, dtype=bool)), ValueError,
     "mask must select at least one position"),
    ((np.array([[np.nan, 0.0]]), np.zeros(1, dtype=int), np.ones(1, dtype=bool)), ValueError,
     "logits must contain only finite values"),
])
def test_masked_accuracy_validation(args, error, message):
    with pytest.raises(error, match=message):
        X.masked_accuracy(*args)


def test_chance_band_known_values():
    assert X.chance_band(256) == (0.5 - 3 / 32, 0.5 + 3 / 32)  # sigma = 1/32 exactly
    assert X.chance_band(100, 0.5, 2.0) == pytest.approx((0.4, 0.6), abs=1e-15)
    assert X.chance_band(20, 0.1, 3.0)[0] == 0.0  # clipped
    assert X.chance_band(5, 1.0) == (1.0, 1.0)  # a sure thing has no spread


@given(st.integers(1, 10**6), st.floats(0.0, 1.0), st.floats(0.0, 5.0))
def test_chance_band_is_a_clipped_interval_around_p(n, p, z):
    low, high = X.chance_band(n, p, z)
    assert 0.0 <= low <= p <= high <= 1.0
    half = z * math.sqrt(p * (1 - p) / n)
    assert low == pytest.approx(max(0.0, p - half)) and high == pytest.approx(min(1.0, p + half))


def test_chance_band_matches_simulated_guessers():
    """Two independent computations: the formula and 20 000 simulated coin-flipping models."""
    rng = np.random.default_rng(0)
    acc = rng.binomial(256, 0.5, size=20_000) / 256
    low, high = X.chance_band(256, 0.5, 2.0)
    outside = np.mean((acc < low) | (acc > high))
    assert 0.03 < outside < 0.07  # normal approximation: 4.6% outside +-2 sigma
    low3, high3 = X.chance_band(256)
    assert np.mean((acc < low3) | (acc > high3)) < 0.006


@pytest.mark.parametrize("args, error, message", [
    ((0,), ValueError, "n must be a positive integer, got 0"),
    ((10, 1.5), ValueError, "p must be a probability in \\[0, 1\\], got 1.5"),
    ((10, -0.1), ValueError, "p must be >= 0"),
    ((10, 0.5, -1.0), ValueError, "z must be >= 0"),
    ((10.0,), TypeError, "n must be a positive integer"),
])
def test_chance_band_validation(args, error, message):
    with pytest.raises(error, match=message):
        X.chance_band(*args)


# ------------------------------------------------------------------------------------------
# reverse_positions
# ------------------------------------------------------------------------------------------


@given(st.integers(1, 8), st.integers(0, 2**31 - 1))
def test_reverse_positions_is_r_b_rt_and_an_involution(n, seed):
    b = np.random.default_rng(seed).standard_normal((n, n))
    r = np.eye(n)[::-1]  # the reversal permutation matrix
    np.testing.assert_allclose(X.reverse_positions(b), r @ b @ r.T, atol=1e-14)
    np.testing.assert_array_equal(X.reverse_positions(X.reverse_positions(b)), b)


def test_reverse_positions_on_position_biases():
    sym = alibi.bias(7, alibi.slopes(4), causal=False)
    np.testing.assert_array_equal(X.reverse_positions(sym), sym)  # |i - j| is unchanged
    causal = alibi.bias(5, 0.5, causal=True)
    assert not np.array_equal(X.reverse_positions(causal), causal)  # the mask flips sides
    t5 = relative.t5_bias(6, np.arange(32.0), bidirectional=True)
    assert not np.array_equal(X.reverse_positions(t5), t5)  # T5 knows before from after
    stack = np.random.default_rng(1).standard_normal((3, 4, 4))
    np.testing.assert_array_equal(X.reverse_positions(stack)[1], X.reverse_positions(stack[1]))


def test_reverse_positions_validation():
    with pytest.raises(ValueError, match="bias must be square in its last two axes"):
        X.reverse_positions(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="bias must have at least 2 dimension"):
        X.reverse_positions(np.zeros(3))
    with pytest.raises(TypeError, match="bias must be a numeric array"):
        X.reverse_positions([["a"]])


# ------------------------------------------------------------------------------------------
# Looking inside: per-position accuracy, output offsets, attention by distance
# ------------------------------------------------------------------------------------------


def test_accuracy_by_position_matches_the_pooled_accuracy():
    model = X.trained_model("sinusoidal", "copy_back", steps=TINY, progress=False)
    acc = X.accuracy_by_position(model.params, model.config, "copy_back", length=40,
                                 n_sequences=8, seed=77)
    assert acc.shape == (40,) and np.all(np.isnan(acc[:3])) and np.all(np.isfinite(acc[3:]))
    # every counted position has the same number of sequences, so the mean of the per-position
    # accuracies is the pooled accuracy that lab.evaluate reports
    pooled = lab.evaluate(model.params, model.config, "copy_back", length=40, n_sequences=8,
                          seed=77)
    assert np.nanmean(acc) == pytest.approx(pooled, abs=1e-12)


def test_accuracy_by_position_needs_a_per_token_task():
    model = X.trained_model("none", "order", steps=TINY, progress=False)
    with pytest.raises(ValueError, match="task must make a prediction per token, got task "
                                         "'order'"):
        X.accuracy_by_position(model.params, model.config, "order", length=32)
    with pytest.raises(TypeError, match="config must be a LabConfig"):
        X.accuracy_by_position(model.params, None, "order", length=32)


def test_copy_offsets_against_a_direct_count():
    model = X.trained_model("rope", "copy_back", steps=TINY, progress=False)
    prof = X.copy_offsets(model.params, model.config, length=20, max_offset=4, n_sequences=6,
                          seed=9)
    tokens = np.random.default_rng(9).integers(0, 16, size=(6, 20))
    pred = lab.forward(model.params, tokens, model.config).argmax(-1)
    for j in range(5):
        same = [pred[b, t] == tokens[b, t - j] for b in range(6) for t in range(4, 20)]
        assert prof[j] == pytest.approx(np.mean(same), abs=1e-15)
    with pytest.raises(ValueError, match=r"start must lie in \[max_offset, length\) = \[4, 20\)"):
        X.copy_offsets(model.params, model.config, length=20, max_offset=4, start=2)


def test_attention_by_distance_and_mass_beyond_against_loops():
    model = X.trained_model("alibi", "copy_back", steps=TINY, progress=False)
    tokens = np.random.default_rng(3).integers(0, 16, size=(2, 9))
    maps = lab.attention_maps(model.params, tokens, model.config)
    by_dist = X.attention_by_distance(model.params, model.config, tokens, min_query=2)
    mass = X.attention_mass_beyond(model.params, model.config, tokens, distance=3, min_query=5)
    assert by_dist.shape == (2, 2, 9) and mass.shape == (2, 2)
    for layer in range(2):
        for h in range(2):
            a = maps[layer][:, h]
            for delta in range(9):
                qs = [i for i in range(max(delta, 2), 9)]
                expect = np.mean([a[b, i, i - delta] for b in range(2) for i in qs])
                assert by_dist[layer, h, delta] == pytest.approx(expect, abs=1e-14)
            far = np.mean([a[b, i, :i - 2].sum() for b in range(2) for i in range(5, 9)])
            assert mass[layer, h] == pytest.approx(far, abs=1e-14)
    # distance 1: everything except the query itself
    one = X.attention_mass_beyond(model.params, model.config, tokens, distance=1)
    diag = np.stack([np.diagonal(a, axis1=-2, axis2=-1)[..., 1:].mean(axis=(0, 2)) for a in maps])
    np.testing.assert_allclose(one, 1 - diag, atol=1e-12)


def test_inspection_validation():
    model = X.trained_model("alibi", "copy_back", steps=TINY, progress=False)
    order = X.trained_model("alibi", "order", steps=TINY, progress=False)
    tokens = np.zeros((1, 6), dtype=int)
    with pytest.raises(ValueError, match="needs a causal model"):
        X.attention_by_distance(order.params, order.config, tokens)
    with pytest.raises(ValueError, match="no query lies at or after .* = 6"):
        X.attention_mass_beyond(model.params, model.config, tokens, distance=6)
    with pytest.raises(ValueError, match="k must be < length=4, got 5"):
        X.copy_head(model.params, model.config, k=5, length=4)
    with pytest.raises(ValueError, match="distance must be a positive integer, got 0"):
        X.attention_mass_beyond(model.params, model.config, tokens, distance=0)


# ------------------------------------------------------------------------------------------
# The paper's numbers, as quoted
# ------------------------------------------------------------------------------------------


def test_quoted_paper_numbers_are_consistent_with_the_papers_claims():
    t = X.PRESS2022_WIKITEXT103
    ppl = t["perplexity"]
    assert t["lengths"][0] == t["train_length"] == 512
    assert all(len(v) == len(t["lengths"]) for v in ppl.values())
    # the paper's findings: sinusoidal degrades steadily, ALiBi improves with longer inputs
    assert list(ppl["sinusoidal"]) == sorted(ppl["sinusoidal"])
    assert ppl["ALiBi"][-1] < ppl["ALiBi"][0]
    assert ppl["T5 bias"][-1] is None  # out of memory
    at_longest = {k: v[-2] for k, v in ppl.items()}
    assert min(at_longest, key=at_longest.get) == "ALiBi"


def test_stored_accuracies_are_what_evaluate_gives(monkeypatch):
    """A chapter's sweep reads its accuracies from posenc_lib/lab/trained/: they are lab.evaluate's
    numbers for the stored model (recomputed here), and other settings are not read from them."""
    r = X.length_sweep("copy_back", positions=("t5", "alibi"), factors=(1, 2, 4, 8))
    task = X.make_task("copy_back")
    for scheme in ("t5", "alibi"):
        model = X.trained_model(scheme)
        for k in (0, 1):   # 32 and 64 tokens (the longer ones take seconds each)
            fresh = lab.evaluate(model.params, model.config, task, length=r.lengths[k],
                                 n_sequences=256)
            assert r.accuracy[scheme][k] == pytest.approx(fresh, abs=2 / (256 * 4)), (scheme, k)
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "error")
    X.clear_cache()
    with pytest.raises(RuntimeError, match="no stored result 'accuracy'"):
        X.length_sweep("copy_back", positions=("alibi",), factors=(1, 2, 4, 8), n_sequences=255)
