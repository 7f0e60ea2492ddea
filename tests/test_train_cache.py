"""The stored lab models: current, complete, loadable, and reproducible from scratch."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from posenc_lib import extrapolation, lab, train_cache

STORED = sorted(train_cache.DEFAULT_DIR.glob("*.npz"))
RESULTS = sorted(train_cache.DEFAULT_DIR.glob("*.json"))


def test_models_are_stored():
    assert STORED, "posenc_lib/trained/ holds no models: run make notebooks"


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.name)
def test_stored_model_is_current(path):
    with np.load(path) as data:
        spec = json.loads(str(data["spec"]))
        params = {k for k in data.files if k.startswith("param/")}
        assert data["losses"].ndim == 1 and len(data["losses"]) == spec["training"][0]
    assert spec["code"] == train_cache.code_hash(), (
        f"{path.name} was trained by older code: run make notebooks (it retrains and prunes)")
    assert path.name.endswith(f"-{train_cache.key_of(spec)}.npz")
    config = lab.LabConfig(**spec["config"])
    assert {k.removeprefix("param/") for k in params} == set(lab.init_params(config, 0))


def test_key_depends_on_everything_that_changes_the_result(monkeypatch):
    config = lab.default_config("alibi", "copy_back")
    task = lab.get_task("copy_back")
    settings = dict(steps=10, batch_size=4, lr=1e-3, seed=0, length=16)
    base = train_cache.key(config, task, **settings)
    assert train_cache.key(config, task, **settings) == base
    assert train_cache.key(dataclasses.replace(config, n_heads=4), task, **settings) != base
    assert train_cache.key(config, lab.get_task("order"), **settings) != base
    assert train_cache.key(config, task, **{**settings, "seed": 1}) != base
    assert train_cache.key(config, task, **{**settings, "lr": 2e-3}) != base
    init = lab.init_params(config, 0)
    assert train_cache.key(config, task, init=init, **settings) != base
    monkeypatch.setattr(train_cache, "code_hash", lambda: "0" * 16)
    assert train_cache.key(config, task, **settings) != base


def test_miss_trains_stores_and_reloads(tmp_path, monkeypatch):
    monkeypatch.delenv("POSENC_TRAIN_CACHE_MISS", raising=False)   # make test sets it to "error"
    monkeypatch.setenv("POSENC_TRAIN_CACHE", str(tmp_path))
    config = lab.default_config("rope", "copy_back")
    settings = dict(steps=5, batch_size=4, lr=1e-3, seed=3, length=16)
    first = train_cache.train(config, "copy_back", progress=False, **settings)
    files = list(tmp_path.glob("rope-copy_back-*.npz"))
    assert len(files) == 1
    again = train_cache.train(config, "copy_back", progress=False, **settings)
    for k in first.params:
        np.testing.assert_array_equal(first.params[k], again.params[k])
        assert np.all(first.params[k] == first.params[k].astype(np.float32))
    assert first.losses == again.losses
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "error")
    with pytest.raises(RuntimeError, match="make notebooks"):
        train_cache.train(config, "copy_back", progress=False, **{**settings, "seed": 4})


def test_cache_off_always_trains(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_TRAIN_CACHE", "off")
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "train")
    assert train_cache.path_for(lab.default_config("rope", "copy_back"), lab.get_task("copy_back"),
                                steps=1, batch_size=1, lr=1e-3, seed=0, length=8) is None
    result = train_cache.train(lab.default_config("rope", "copy_back"), "copy_back", steps=2,
                               batch_size=2, lr=1e-3, length=8, progress=False)
    assert len(result.losses) == 2


@pytest.mark.slow
def test_a_stored_model_is_reproduced_from_scratch(monkeypatch):
    """Retrain the chapter's ALiBi latest-signal model with the cache off: the accuracies agree
    with the stored model's (up to the rounding differences another CPU introduces)."""
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "error")
    stored = extrapolation.trained_model("alibi", "latest_signal", progress=False)
    settings = lab.default_training("latest_signal")
    fresh = lab.train(lab.default_config("alibi", "latest_signal"), "latest_signal", seed=0,
                      progress=False, **settings)
    assert fresh.losses[0] == pytest.approx(stored.losses[0], rel=1e-5)
    assert fresh.losses[-1] == pytest.approx(stored.losses[-1], abs=0.02)
    for length in (32, 128):
        a = lab.evaluate(stored.params, stored.config, "latest_signal", length=length)
        b = lab.evaluate(fresh.params, stored.config, "latest_signal", length=length)
        assert abs(a - b) <= 0.03, (length, a, b)


def test_code_hash_ignores_docstrings_and_comments_but_not_code():
    a = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    b = 'def f(x):\n    """Other words."""\n    # a comment\n    return x + 1\n'
    c = 'def f(x):\n    """Doc."""\n    return x + 2\n'
    assert train_cache._code_only(a) == train_cache._code_only(b)
    assert train_cache._code_only(a) != train_cache._code_only(c)


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_stored_result_is_current(path):
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["spec"]["code"] == train_cache.code_hash(), (
        f"{path.name} was computed by older code: run make notebooks")
    assert path.name == f"{stored['spec']['name']}-{train_cache.key_of(stored['spec'])}.json"


def _double(x):
    return 2 * x


def _triple(x):
    return 3 * x


def test_stored_result_computes_once_then_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_TRAIN_CACHE", str(tmp_path))
    monkeypatch.delenv("POSENC_TRAIN_CACHE_MISS", raising=False)
    calls = []

    def compute():
        calls.append(1)
        return {"acc": (0.5, 0.25)}

    first = train_cache.stored_result("demo", {"n": 3}, compute, code=(_double,))
    second = train_cache.stored_result("demo", {"n": 3}, compute, code=(_double,))
    assert first == second == {"acc": [0.5, 0.25]}  # the first call returns what is read later
    assert len(calls) == 1
    assert len(list(tmp_path.glob("demo-*.json"))) == 1
    # another spec or other code: another key, computed again
    train_cache.stored_result("demo", {"n": 4}, compute, code=(_double,))
    train_cache.stored_result("demo", {"n": 3}, compute, code=(_triple,))
    assert len(calls) == 3 and len(list(tmp_path.glob("demo-*.json"))) == 3
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "error")
    with pytest.raises(RuntimeError, match="no stored result 'demo'"):
        train_cache.stored_result("demo", {"n": 5}, compute)
    with pytest.raises(ValueError, match="name must be"):
        train_cache.stored_result("a b/c", {}, compute)


def test_a_task_outside_the_lab_hashes_its_own_code():
    """textlm's tasks make their data with code outside the lab's modules: that code is part of
    the key (a lab task's is already in code_hash)."""
    from posenc_lib import textlm

    config = textlm.lm_config("rope")
    settings = dict(steps=10, batch_size=4, lr=1e-3, seed=0, length=16)
    text = train_cache.spec(config, textlm.TextTask(), **settings)
    assert "task_code" in text
    assert "task_code" not in train_cache.spec(lab.default_config("rope", "copy_back"),
                                               lab.get_task("copy_back"), **settings)
    other = train_cache.spec(config, textlm.PasskeyTask(), **settings)
    assert other["task_code"] != text["task_code"] and other["task"] != text["task"]


def test_code_hash_is_the_same_whichever_hashed_module_holds_a_definition(monkeypatch):
    """Moving a function from one hashed module to another (splitting lab.py into lab_model,
    lab_tasks and lab_train) or retyping it keeps the hash and so every stored model; changing
    its code does not."""
    import types

    sources = {"a": "import numpy as np\n\ndef f(x):\n    return x + 1\n\ndef g(x):\n    return 2 * x\n",
               "b": '"""Doc."""\n__all__ = ["h"]\n\ndef h(x):\n    return x\n'}
    moved = {"a": "def f(x):\n    return x + 1\n",
             "b": "from .a import f\n\ndef h(x):\n    return x\n\ndef g(x):\n    return 2 * x\n"}
    changed = {"a": sources["a"].replace("2 * x", "3 * x"), "b": sources["b"]}

    def hash_of(files):
        mods = [types.ModuleType(name) for name in files]
        monkeypatch.setattr(train_cache.inspect, "getsource", lambda m: files[m.__name__])
        monkeypatch.setattr(train_cache, "_CODE_MODULES", tuple(mods))
        train_cache.code_hash.cache_clear()
        try:
            return train_cache.code_hash()
        finally:
            train_cache.code_hash.cache_clear()

    assert hash_of(sources) == hash_of(moved)
    assert hash_of(sources) != hash_of(changed)
    typed = {"a": sources["a"].replace("def f(x):", "def f(x: float) -> float:"), "b": sources["b"]}
    assert hash_of(typed) == hash_of(sources)   # annotations never change what is computed
    field = "from dataclasses import dataclass\n\n@dataclass\nclass C:\n    n: int\n"
    assert hash_of({"a": field}) == hash_of({"a": field.replace("n: int", "n: float")})
    assert hash_of({"a": field}) != hash_of({"a": field + "    m: int\n"})   # a new field
    assert hash_of({"a": field}) != hash_of({"a": field.replace("n: int", "n: ClassVar[int]")})
