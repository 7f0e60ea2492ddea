"""posenc_lib.lab.model: gradients against finite differences, the wiring of each position
scheme (and of stretched RoPE), exact symmetries, and argument validation."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import jittered_params, tiny
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_lib import lab
from posenc_lib.maths import alibi, relative

ENCODINGS = ("learned", "sinusoidal", "rope", "alibi", "t5")  # every scheme but "none"


def cross_entropy(logits: np.ndarray, targets: np.ndarray, mask: np.ndarray) -> float:
    """Masked mean cross-entropy, written independently of lab.loss_and_grads."""
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    picked = np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]
    return -float(picked[mask].sum() / mask.sum())


# ------------------------------------------------------------------------------------------
# Gradients
# ------------------------------------------------------------------------------------------

VARIANTS = [  # (d_mlp, causal, readout)
    (12, True, "token"),
    (0, False, "mean"),
    (12, False, "token"),
    (0, True, "mean"),
]


@pytest.mark.parametrize("position", lab.POSITIONS)
@pytest.mark.parametrize("d_mlp,causal,readout", VARIANTS)
def test_gradients_match_central_differences(position, d_mlp, causal, readout):
    config = tiny(position, d_mlp=d_mlp, causal=causal, readout=readout)
    rng = np.random.default_rng(7)
    params = jittered_params(config)
    tokens = rng.integers(0, config.vocab_size, (3, 5))
    tshape = tokens.shape if readout == "token" else tokens.shape[:1]
    targets = rng.integers(0, config.n_outputs, tshape)
    mask = rng.random(tshape) < 0.7
    mask.flat[0] = True
    loss, grads = lab.loss_and_grads(params, tokens, targets, config, mask)
    assert set(grads) == set(params)
    assert loss == pytest.approx(cross_entropy(lab.forward(params, tokens, config), targets, mask),
                                 rel=1e-12)

    def loss_at() -> float:
        return cross_entropy(lab.forward(params, tokens, config), targets, mask)

    eps = 1e-6
    for name, value in params.items():
        assert grads[name].shape == value.shape
        idx = rng.choice(value.size, size=min(5, value.size), replace=False)
        numeric = np.empty(len(idx))
        for n, i in enumerate(idx):
            old = value.flat[i]
            value.flat[i] = old + eps
            up = loss_at()
            value.flat[i] = old - eps
            down = loss_at()
            value.flat[i] = old
            numeric[n] = (up - down) / (2 * eps)
        analytic = grads[name].ravel()[idx]
        scale = np.linalg.norm(analytic) + np.linalg.norm(numeric)
        err = np.linalg.norm(analytic - numeric) / scale if scale > 1e-12 else 0.0
        assert err < 1e-5, f"{name}: relative error {err:.2e}\n{analytic}\n{numeric}"


def test_masked_targets_do_not_matter():
    config = tiny("rope")
    rng = np.random.default_rng(0)
    params = lab.init_params(config, 0)
    tokens = rng.integers(0, 7, (2, 5))
    targets = rng.integers(0, 5, (2, 5))
    mask = np.ones((2, 5), dtype=bool)
    mask[:, :2] = False
    other = targets.copy()
    other[:, :2] = (other[:, :2] + 1) % 5
    loss1, g1 = lab.loss_and_grads(params, tokens, targets, config, mask)
    loss2, g2 = lab.loss_and_grads(params, tokens, other, config, mask)
    assert loss1 == loss2
    assert all(np.array_equal(g1[k], g2[k]) for k in g1)
    loss3, _ = lab.loss_and_grads(params, tokens, other, config)  # no mask: now they count
    assert loss3 != loss1


def test_init_params_is_seeded():
    config = tiny("learned")
    a, b, c = (lab.init_params(config, s) for s in (1, 1, 2))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["embed"], c["embed"])
    assert all(v.dtype == np.float64 for v in a.values())


# ------------------------------------------------------------------------------------------
# Wiring of the position schemes
# ------------------------------------------------------------------------------------------


def _bidirectional_mean(position: str) -> tuple[lab.LabConfig, dict]:
    config = tiny(position, causal=False, readout="mean", d_model=16, max_len=10)
    return config, jittered_params(config, seed=1)


@settings(max_examples=15, deadline=None)
@given(perm_seed=st.integers(0, 2**32 - 1), d_mlp=st.sampled_from([0, 12]))
def test_nope_bidirectional_mean_readout_is_permutation_invariant(perm_seed, d_mlp):
    config, params = _bidirectional_mean("none")
    config = dataclasses.replace(config, d_mlp=d_mlp)
    params = jittered_params(config, seed=1)
    rng = np.random.default_rng(perm_seed)
    tokens = rng.integers(0, config.vocab_size, (3, 9))
    shuffled = tokens[:, rng.permutation(9)]
    diff = np.abs(lab.forward(params, tokens, config) - lab.forward(params, shuffled, config))
    assert diff.max() < 1e-12


@pytest.mark.parametrize("position", ENCODINGS)
def test_every_encoding_breaks_permutation_invariance(position):
    config, params = _bidirectional_mean(position)
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, config.vocab_size, (4, 9))
    shuffled = tokens[:, rng.permutation(9)]
    diff = np.abs(lab.forward(params, tokens, config) - lab.forward(params, shuffled, config))
    assert diff.max() > 1e-4


def test_bidirectional_alibi_cannot_tell_left_from_right():
    """The symmetric bias -m|i-j| is unchanged by reversing the sequence, and so is the
    mean-pooled output: that is why bidirectional ALiBi cannot solve the order task."""
    config, params = _bidirectional_mean("alibi")
    tokens = np.random.default_rng(0).integers(0, config.vocab_size, (4, 9))
    diff = lab.forward(params, tokens, config) - lab.forward(params, tokens[:, ::-1], config)
    assert np.abs(diff).max() < 1e-12
    causal = dataclasses.replace(config, causal=True)  # the causal mask breaks the symmetry
    diff = lab.forward(params, tokens, causal) - lab.forward(params, tokens[:, ::-1], causal)
    assert np.abs(diff).max() > 1e-4


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("position", ["rope", "alibi", "t5", "none"])
def test_relative_schemes_ignore_a_shift_of_all_positions(position, causal):
    config = tiny(position, causal=causal, d_model=16)
    params = jittered_params(config)
    tokens = np.random.default_rng(1).integers(0, config.vocab_size, (3, 8))
    ref = lab.forward(params, tokens, config)
    for offset in (1, 37, 1000):
        shifted = lab.forward(params, tokens, config, offset=offset)
        assert np.abs(shifted - ref).max() < 1e-9


def test_rope_scores_depend_only_on_offsets_and_sinusoidal_do_not():
    rope_cfg = tiny("rope", d_model=16)
    params = jittered_params(rope_cfg)
    tokens = np.random.default_rng(1).integers(0, 7, (2, 8))
    maps0 = lab.attention_maps(params, tokens, rope_cfg)
    maps1 = lab.attention_maps(params, tokens, rope_cfg, offset=50)
    for a, b in zip(maps0, maps1):
        assert np.abs(a - b).max() < 1e-10
    # the same weights with sinusoids added instead see absolute positions
    sin_cfg = dataclasses.replace(rope_cfg, position="sinusoidal")
    ref = lab.forward(params, tokens, sin_cfg)
    assert np.abs(lab.forward(params, tokens, sin_cfg, offset=50) - ref).max() > 1e-4


def test_rope_rotates_queries_and_keys():
    """With RoPE removed (position='none'), the same weights give different attention."""
    config = tiny("rope", d_model=16)
    params = jittered_params(config)
    tokens = np.random.default_rng(1).integers(0, 7, (2, 8))
    with_rope = lab.attention_maps(params, tokens, config)[0]
    without = lab.attention_maps(params, tokens, dataclasses.replace(config, position="none"))[0]
    assert np.abs(with_rope - without).max() > 1e-3


@pytest.mark.parametrize("causal", [True, False])
def test_alibi_gives_nearer_keys_more_weight_when_content_ties(causal):
    config = tiny("alibi", causal=causal, d_model=16, n_heads=2)
    params = jittered_params(config)
    for b in range(config.n_layers):  # q = k = 0: every content score is 0
        params[f"block{b}.attn.wq"][:] = 0.0
        params[f"block{b}.attn.wk"][:] = 0.0
    tokens = np.random.default_rng(2).integers(0, 7, (1, 8))
    weights = lab.attention_maps(params, tokens, config)[0][0]  # (H, T, T)
    slopes = alibi.slopes(config.n_heads)
    for h in range(config.n_heads):
        for i in range(8):
            keys = range(0, i + 1) if causal else range(8)
            dist = np.array([abs(i - j) for j in keys])
            w = weights[h, i, list(keys)]
            # weight ∝ exp(-m |i-j|): nearer is heavier, by exactly the ALiBi factor
            expected = np.exp(-slopes[h] * dist)
            np.testing.assert_allclose(w, expected / expected.sum(), rtol=1e-12)
            order = np.argsort(dist, kind="stable")
            assert np.all(np.diff(w[order]) <= 0)
            if causal:
                assert np.all(weights[h, i, i + 1:] == 0.0)


def test_causal_models_do_not_look_ahead():
    for position in lab.POSITIONS:
        config = tiny(position)
        params = jittered_params(config)
        tokens = np.random.default_rng(3).integers(0, 7, (2, 6))
        changed = tokens.copy()
        changed[:, 4:] = (changed[:, 4:] + 1) % 7
        a = lab.forward(params, tokens, config)
        b = lab.forward(params, changed, config)
        np.testing.assert_array_equal(a[:, :4], b[:, :4])
        assert np.abs(a[:, 4:] - b[:, 4:]).max() > 1e-6


def test_learned_table_rejects_longer_sequences():
    config = lab.LabConfig(vocab_size=8, n_outputs=8, position="learned", d_model=8,
                           max_len=32)
    params = lab.init_params(config, 0)
    lab.forward(params, np.zeros((1, 32), dtype=int), config)  # exactly max_len is fine
    with pytest.raises(ValueError, match=r"sequence length 64 exceeds the learned table's "
                                         r"max_len=32"):
        lab.forward(params, np.zeros((1, 64), dtype=int), config)
    with pytest.raises(ValueError, match=r"offset 1 \+ sequence length 32 exceeds"):
        lab.forward(params, np.zeros((1, 32), dtype=int), config, offset=1)
    task = lab.CopyBackTask(vocab_size=8)
    with pytest.raises(ValueError, match="sequence length 64"):
        lab.evaluate(params, config, task, length=64, n_sequences=2)
    with pytest.raises(ValueError, match="sequence length 40"):
        lab.train(config, task, steps=1, batch_size=2, lr=1e-3, seed=0, length=40,
                  progress=False)


def test_other_schemes_run_beyond_max_len():
    for position in ("none", "sinusoidal", "rope", "alibi", "t5"):
        config = tiny(position, max_len=4)
        out = lab.forward(lab.init_params(config, 0), np.zeros((1, 20), dtype=int), config)
        assert out.shape == (1, 20, 5) and np.all(np.isfinite(out))


@pytest.mark.parametrize("causal", [True, False])
def test_t5_bias_is_the_only_score_when_content_is_silenced(causal):
    config = tiny("t5", causal=causal)
    params = jittered_params(config)
    params["t5_bias"] = np.random.default_rng(0).standard_normal(params["t5_bias"].shape)
    for b in range(config.n_layers):
        params[f"block{b}.attn.wq"][:] = 0.0
    tokens = np.random.default_rng(1).integers(0, 7, (1, 6))
    weights = lab.attention_maps(params, tokens, config)[0][0]  # (H, T, T)
    bias = relative.t5_bias(6, params["t5_bias"], bidirectional=not causal)  # (H, T, T)
    if causal:
        bias = bias + np.triu(np.full((6, 6), -np.inf), k=1)
    expected = np.exp(bias) / np.exp(bias).sum(-1, keepdims=True)
    np.testing.assert_allclose(weights, expected, rtol=1e-12)


# ------------------------------------------------------------------------------------------
# Validation
# ------------------------------------------------------------------------------------------

GOOD = dict(vocab_size=8, n_outputs=4)


@pytest.mark.parametrize("kw,exc,pattern", [
    ({"position": "xpos"}, ValueError, r"position must be one of .*got 'xpos'"),
    ({"position": None}, ValueError, r"position must be one of .*got None"),
    ({"d_model": 7}, ValueError, r"d_model must be a positive even integer, got 7"),
    ({"d_model": 8.0}, TypeError, r"d_model must be a positive even integer, got 8.0"),
    ({"d_model": 0}, ValueError, r"d_model must be a positive even integer, got 0"),
    ({"n_heads": 3, "d_model": 64}, ValueError, r"n_heads must divide d_model, got n_heads=3 "
                                                r"and d_model=64"),
    ({"n_heads": 0}, ValueError, r"n_heads must be a positive integer, got 0"),
    ({"position": "rope", "d_model": 12, "n_heads": 4}, ValueError,
     r"head dimension .* must be even, got 12 // 4 = 3"),
    ({"n_layers": 0}, ValueError, r"n_layers must be a positive integer, got 0"),
    ({"d_mlp": -1}, ValueError, r"d_mlp must be a non-negative integer, got -1"),
    ({"max_len": 0}, ValueError, r"max_len must be a positive integer, got 0"),
    ({"causal": 1}, TypeError, r"causal must be a bool, got 1"),
    ({"readout": "cls"}, ValueError, r"readout must be one of 'token', 'mean', got 'cls'"),
    ({"vocab_size": 0}, ValueError, r"vocab_size must be a positive integer, got 0"),
    ({"n_outputs": 2.5}, TypeError, r"n_outputs must be a positive integer, got 2.5"),
    ({"base": 0.5}, ValueError, r"base must be >= 1, got 0.5"),
])
def test_config_validation(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        lab.LabConfig(**{**GOOD, **kw})


def test_odd_head_dim_is_fine_without_rope():
    config = lab.LabConfig(**GOOD, position="alibi", d_model=12, n_heads=4)
    assert config.head_dim == 3


def test_function_argument_validation():
    config = lab.LabConfig(**GOOD, d_model=8, max_len=6)
    params = lab.init_params(config, 0)
    tokens = np.zeros((2, 5), dtype=int)
    targets = np.zeros((2, 5), dtype=int)
    with pytest.raises(TypeError, match=r"config must be a LabConfig, got dict"):
        lab.init_params({"vocab_size": 8}, 0)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer, got -1"):
        lab.init_params(config, -1)
    with pytest.raises(TypeError, match=r"tokens must be an integer array, got dtype float64"):
        lab.forward(params, tokens.astype(float), config)
    with pytest.raises(ValueError, match=r"tokens must lie in \[0, 8\), got values from 0 to 8"):
        lab.forward(params, np.array([[0, 8]]), config)
    with pytest.raises(ValueError, match=r"tokens must have 2 dimension\(s\), got shape \(5,\)"):
        lab.forward(params, np.zeros(5, dtype=int), config)
    with pytest.raises(ValueError, match=r"offset must be a non-negative integer, got -3"):
        lab.forward(params, tokens, config, offset=-3)
    with pytest.raises(ValueError, match=r"missing \['embed'\]"):
        lab.forward({k: v for k, v in params.items() if k != "embed"}, tokens, config)
    with pytest.raises(ValueError, match=r"params\['head.w'\] must be an array of shape \(8, 4\)"):
        lab.forward({**params, "head.w": np.zeros((8, 5))}, tokens, config)
    with pytest.raises(TypeError, match=r"params must be a dict of arrays, got list"):
        lab.forward([], tokens, config)
    with pytest.raises(ValueError, match=r"targets must lie in \[0, 4\), got values from 0 to 4"):
        lab.loss_and_grads(params, tokens, targets + 4 * (targets == 0) * np.eye(2, 5, dtype=int),
                           config)
    with pytest.raises(ValueError, match=r"targets must have shape \(2, 5\) for "
                                         r"readout='token', got \(2, 4\)"):
        lab.loss_and_grads(params, tokens, targets[:, :4], config)
    with pytest.raises(TypeError, match=r"mask must be a bool array, got dtype int64"):
        lab.loss_and_grads(params, tokens, targets, config, mask=np.ones((2, 5), dtype=np.int64))
    with pytest.raises(ValueError, match=r"mask must have shape \(2, 5\), got \(5,\)"):
        lab.loss_and_grads(params, tokens, targets, config, mask=np.ones(5, dtype=bool))
    with pytest.raises(ValueError, match=r"mask must select at least one target"):
        lab.loss_and_grads(params, tokens, targets, config, mask=np.zeros((2, 5), dtype=bool))


# ------------------------------------------------------------------------------------------
# Stretched RoPE (chapter 11): rope_scaling / rope_factor, and fine-tuning with init=
# ------------------------------------------------------------------------------------------

SCALINGS = [("linear", 3.0), ("ntk", 3.0), ("yarn", 3.0), ("yarn", 1.0)]


@pytest.mark.parametrize("method,factor", SCALINGS)
@pytest.mark.parametrize("d_mlp,causal,readout", VARIANTS[:2])
def test_gradients_match_central_differences_with_rope_scaling(method, factor, d_mlp, causal,
                                                               readout):
    """Both directions of the backward pass with stretched frequencies and YaRN's 1/t."""
    config = tiny("rope", d_mlp=d_mlp, causal=causal, readout=readout, d_model=16, max_len=4,
                  rope_scaling=method, rope_factor=factor)
    if method == "yarn" and factor > 1:
        assert config.rope_frequencies()[1] > 1.2  # the score multiplier is really exercised
    rng = np.random.default_rng(11)
    params = jittered_params(config)
    tokens = rng.integers(0, config.vocab_size, (2, 7))  # longer than max_len: stretched range
    tshape = tokens.shape if readout == "token" else tokens.shape[:1]
    targets = rng.integers(0, config.n_outputs, tshape)
    mask = np.ones(tshape, dtype=bool)
    loss, grads = lab.loss_and_grads(params, tokens, targets, config, mask)
    assert loss == pytest.approx(cross_entropy(lab.forward(params, tokens, config), targets, mask),
                                 rel=1e-12)
    eps = 1e-6
    for name in ("block0.attn.wq", "block0.attn.wk", "block1.attn.wq", "block1.attn.wk",
                 "block0.attn.wv", "embed"):
        value = params[name]
        idx = rng.choice(value.size, size=6, replace=False)
        numeric = np.empty(len(idx))
        for n, i in enumerate(idx):
            old = value.flat[i]
            value.flat[i] = old + eps
            up = cross_entropy(lab.forward(params, tokens, config), targets, mask)
            value.flat[i] = old - eps
            down = cross_entropy(lab.forward(params, tokens, config), targets, mask)
            value.flat[i] = old
            numeric[n] = (up - down) / (2 * eps)
        analytic = grads[name].ravel()[idx]
        err = np.linalg.norm(analytic - numeric) / (np.linalg.norm(analytic)
                                                     + np.linalg.norm(numeric))
        assert err < 1e-5, f"{name}: relative error {err:.2e}"


def test_factor_one_is_plain_rope():
    config = tiny("rope", d_model=16)
    params = jittered_params(config)
    tokens = np.random.default_rng(1).integers(0, 7, (2, 9))
    ref = lab.forward(params, tokens, config)
    # linear and ntk at s = 1 give the very same frequencies: bit-identical logits
    for method in ("linear", "ntk"):
        scaled = lab.rope_scaled(config, method, 1.0)
        np.testing.assert_array_equal(lab.forward(params, tokens, scaled), ref)
    # yarn at s = 1 blends omega with omega / 1: equal up to rounding, attention scale 1
    yarn = lab.rope_scaled(config, "yarn", 1.0)
    assert yarn.rope_frequencies()[1] == 1.0
    np.testing.assert_allclose(lab.forward(params, tokens, yarn), ref, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("method,factor", [("linear", 4.0), ("ntk", 8.0), ("yarn", 8.0)])
def test_scaled_attention_matches_an_independent_computation(method, factor):
    """First-layer attention from the dense rotation matrices with the same frequencies."""
    from posenc_lib.maths import rope, rope_scaling
    from posenc_lib.maths.attention import softmax

    config = tiny("rope", d_model=16, n_heads=2, max_len=8, rope_scaling=method,
                  rope_factor=factor)
    params = jittered_params(config)
    tokens = np.random.default_rng(2).integers(0, 7, (1, 20))
    hd = config.head_dim
    theta, att_scale = rope_scaling.scaled_frequencies(hd, factor, method, base=config.base,
                                                       original_max_len=8)
    x = params["embed"][tokens[0]]  # (T, D)
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    h = (x - mu) / np.sqrt(var + lab.LN_EPS) * params["block0.ln1.g"] + params["block0.ln1.b"]
    pos = np.arange(20.0)
    maps = lab.attention_maps(params, tokens, config)[0][0]  # (H, T, T)
    for head in range(config.n_heads):
        cols = slice(head * hd, (head + 1) * hd)
        q = rope.apply_dense((h @ params["block0.attn.wq"])[:, cols], pos, frequencies=theta)
        k = rope.apply_dense((h @ params["block0.attn.wk"])[:, cols], pos, frequencies=theta)
        scores = att_scale**2 * (q @ k.T) / np.sqrt(hd) + np.triu(np.full((20, 20), -np.inf), 1)
        np.testing.assert_allclose(maps[head], softmax(scores, axis=-1), rtol=1e-9, atol=1e-12)
    # and the stretch really changed something
    plain = lab.attention_maps(params, tokens, lab.rope_scaled(config, None))[0][0]
    assert np.abs(plain - maps).max() > 1e-3


@pytest.mark.parametrize("method", ["linear", "ntk", "yarn"])
def test_scaled_rope_still_sees_only_offsets(method):
    config = tiny("rope", d_model=16, rope_scaling=method, rope_factor=4.0)
    params = jittered_params(config)
    tokens = np.random.default_rng(1).integers(0, config.vocab_size, (2, 10))
    ref = lab.forward(params, tokens, config)
    assert np.abs(lab.forward(params, tokens, config, offset=123) - ref).max() < 1e-9


@pytest.mark.parametrize("kw,exc,pattern", [
    ({"rope_factor": 2.0}, ValueError, r"rope_factor=2.0 needs a rope_scaling method .*got None"),
    ({"rope_scaling": "xpos"}, ValueError, r"rope_scaling must be one of 'linear', 'ntk', "
                                           r"'yarn', got 'xpos'"),
    ({"rope_scaling": "ntk", "rope_factor": 0.5}, ValueError, r"rope_factor must be >= 1, got 0.5"),
    ({"rope_scaling": "ntk", "rope_factor": "2"}, TypeError, r"rope_factor must be a real number"),
    ({"rope_scaling": "linear", "rope_factor": 2.0, "position": "alibi"}, ValueError,
     r"rope_scaling='linear' needs a scheme that rotates queries and keys \(position='rope'\), got "
     r"position='alibi'"),
])
def test_rope_scaling_config_validation(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        lab.LabConfig(**{**GOOD, "position": "rope", **kw})


@pytest.mark.parametrize("n, heads, length, budget, expected", [
    (100, 4, 64, 2**21, 100),     # 4 * 64 * 64 = 16,384 numbers per row: 128 rows fit, 100 asked
    (1000, 4, 256, 2**21, 8),     # 262,144 per row: 8 rows
    (10, 4, 2048, 2**21, 1),      # one row is already over budget: still 1
    (5000, 2, 32, 2**20, 512),    # the lab's evaluate budget: 2,048 per row
])
def test_rows_per_chunk_known_values(n, heads, length, budget, expected):
    assert lab.rows_per_chunk(n, heads, length, budget) == expected


@given(st.integers(1, 10_000), st.integers(1, 16), st.integers(1, 4096),
       st.integers(1, 2**24))
def test_rows_per_chunk_stays_within_budget(n, heads, length, budget):
    rows = lab.rows_per_chunk(n, heads, length, budget)
    assert 1 <= rows <= n
    assert rows == 1 or rows * heads * length * length <= budget
    assert rows == n or (rows + 1) * heads * length * length > budget   # as many as fit


# ------------------------------------------------------------------------------------------
# Exact symmetries: why NoPE and bidirectional ALiBi sit at chance on the order task
# ------------------------------------------------------------------------------------------


def _order_batch(bos: bool = False):
    task = lab.OrderTask(bos=bos)
    return task.sample(np.random.default_rng(5), 64, 20)


@pytest.mark.parametrize("seed", [0, 1])
def test_nope_with_mean_readout_cannot_see_which_of_a_and_b_comes_first(seed):
    config = lab.default_config("none", "order")
    params = lab.init_params(config, seed)  # holds for every weight, trained or not
    tokens, labels, _ = _order_batch()
    swapped = np.where(tokens == 0, 1, np.where(tokens == 1, 0, tokens))  # A <-> B
    z, z_swapped = lab.forward(params, tokens, config), lab.forward(params, swapped, config)
    np.testing.assert_allclose(z, z_swapped, atol=1e-12)
    # the twins have opposite labels and equal predictions: exactly one of each pair is right
    pred = z.argmax(-1)
    right = (pred == labels).astype(int) + (pred == 1 - labels).astype(int)
    assert np.all(right == 1)


def test_bidirectional_alibi_cannot_tell_a_sequence_from_its_reverse():
    config = lab.default_config("alibi", "order")
    params = lab.init_params(config, 2)
    tokens, labels, _ = _order_batch()
    np.testing.assert_allclose(lab.forward(params, tokens, config),
                               lab.forward(params, tokens[:, ::-1], config), atol=1e-12)
    # the reversed twin has the opposite label and the same logits: one of the two is wrong
    pred = lab.forward(params, tokens, config).argmax(-1)
    pred_reversed = lab.forward(params, tokens[:, ::-1], config).argmax(-1)
    np.testing.assert_array_equal(pred, pred_reversed)
    assert np.all((pred == labels) != (pred == 1 - labels))
    # with a start token the twin is not an input of the task (it ends with BOS), so the
    # pairing argument fails: nothing forces the model to be wrong half the time
    tokens_bos, _, _ = _order_batch(bos=True)
    assert np.all(tokens_bos[:, 0] == lab.OrderTask.BOS)
    assert not np.any(tokens_bos[:, ::-1][:, 0] == lab.OrderTask.BOS)
    # a bidirectional T5 bias knows left from right: reversal changes the logits
    t5 = lab.default_config("t5", "order")
    p5 = lab.init_params(t5, 2)
    assert np.abs(lab.forward(p5, tokens, t5) - lab.forward(p5, tokens[:, ::-1], t5)).max() > 1e-6
