"""The stored lab models: listed in the manifest, loadable, never rewritten for nothing, and
reproduced from scratch by today's code."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT

from posenc_lib import lab
from posenc_lib.lab import extrapolation, storage

FOLDER = storage.DEFAULT_DIR
MANIFEST = storage.manifest(FOLDER)
STORED = sorted(FOLDER.glob("*.npz"))
RESULTS = sorted(FOLDER.glob("*.json"))


# -- the stored files and their manifest ------------------------------------------------------


def test_models_are_stored_and_listed():
    assert STORED, "posenc_lib/lab/trained/ holds no models: run make notebooks"
    assert storage.check_folder(FOLDER) == []


@pytest.mark.parametrize("name", sorted(MANIFEST), ids=str)
def test_stored_model_matches_its_manifest_line(name):
    entry = MANIFEST[name]
    spec = entry["spec"]
    arrays = storage.load_arrays(FOLDER / name)
    assert storage.arrays_checksum(arrays) == entry["arrays"]
    assert spec["numerics"] == storage.NUMERICS, (
        f"{name} was trained under numerics {spec['numerics']}: run make notebooks")
    config = lab.LabConfig(**spec["config"])
    params = {k.removeprefix("param/") for k in arrays if k.startswith("param/")}
    assert params == set(lab.init_params(config, 0))
    assert all(arrays[f"param/{k}"].dtype == np.float32 for k in params)
    assert arrays["losses"].ndim == 1 and len(arrays["losses"]) == spec["training"][0]
    # a readable name: task, scheme, seed, then the start of the spec's hash
    task, scheme, seed, digest = re.fullmatch(r"([a-z_]+)-([a-z0-9]+)-s(\d+)-([0-9a-f]{6,})\.npz",
                                              name).groups()
    assert (task, scheme, int(seed)) == (_task_from_repr(spec["task"]).name, config.position,
                                         spec["training"][3])
    assert storage.key_of(spec).startswith(digest)


def test_manifest_file_is_sorted_one_line_per_model():
    lines = (FOLDER / storage.MANIFEST).read_text(encoding="utf-8").splitlines()
    names = [json.loads(line)["file"] for line in lines]
    assert names == sorted(names) == sorted(p.name for p in STORED)


def test_check_folder_finds_each_kind_of_problem(tmp_path):
    first, second = STORED[:2]
    for p in (first, second):
        shutil.copy(p, tmp_path / p.name)
    entries = {n: MANIFEST[n] for n in (first.name, second.name)}
    (tmp_path / storage.MANIFEST).write_text(storage.manifest_text(entries))
    assert storage.check_folder(tmp_path) == []
    shutil.copy(STORED[2], tmp_path / "stray-none-s0-000000.npz")              # no manifest line
    (tmp_path / second.name).unlink()                                           # line, no file
    shutil.copy(STORED[3], tmp_path / first.name)                               # other arrays
    problems = storage.check_folder(tmp_path)
    assert len(problems) == 3
    assert "stray-none-s0-000000.npz: a stored model without a line" in problems[0]
    assert f"{second.name}: listed in" in problems[1]
    assert f"{first.name}: its arrays are not" in problems[2]


def test_arrays_checksum_sees_values_names_dtypes_and_shapes_but_not_the_old_spec():
    a = {"param/w": np.arange(6, dtype=np.float32).reshape(2, 3), "losses": np.ones(3, np.float32)}
    base = storage.arrays_checksum(a)
    assert storage.arrays_checksum({**a, "spec": np.array("{}")}) == base
    assert storage.arrays_checksum(dict(reversed(list(a.items())))) == base
    changed = [{**a, "param/w": a["param/w"] + np.float32(1e-6)},
               {**a, "param/w": a["param/w"].astype(np.float64)},
               {**a, "param/w": a["param/w"].reshape(3, 2)},
               {"param/v": a["param/w"], "losses": a["losses"]}]
    assert len({base, *(storage.arrays_checksum(c) for c in changed)}) == 5


def test_the_same_arrays_always_give_the_same_bytes(tmp_path):
    arrays = storage.load_arrays(STORED[0])
    arrays.pop("spec", None)
    storage._write_npz(tmp_path / "a.npz", arrays)
    time.sleep(1.1)  # a zip entry's time has a resolution of 2 s: cross at least one tick
    storage._write_npz(tmp_path / "b.npz", dict(reversed(list(arrays.items()))))
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    back = storage.load_arrays(tmp_path / "a.npz")
    assert storage.arrays_checksum(back) == storage.arrays_checksum(arrays)


# -- specs: what keys a model, what does not --------------------------------------------------


def test_spec_depends_on_everything_that_changes_the_result(monkeypatch):
    config = lab.default_config("alibi", "copy_back")
    task = lab.get_task("copy_back")
    settings = dict(steps=10, batch_size=4, lr=1e-3, seed=0, length=16)
    base = storage.key_of(storage.spec(config, task, **settings))
    assert storage.key_of(storage.spec(config, task, **settings)) == base

    def key(cfg=config, t=task, **changes):
        return storage.key_of(storage.spec(cfg, t, **{**settings, **changes}))

    others = [key(cfg=dataclasses.replace(config, n_heads=4)), key(t=lab.get_task("order")),
              key(seed=1), key(lr=2e-3), key(steps=11), key(batch_size=5), key(length=17),
              key(init=lab.init_params(config, 0))]
    assert len({base, *others}) == len(others) + 1
    monkeypatch.setattr(storage, "NUMERICS", storage.NUMERICS + 1)
    assert key() != base                      # new training numerics: every model is new


def test_spec_leaves_out_fields_at_their_default():
    """A field added to LabConfig later, with a default that keeps the old behaviour, leaves
    every stored spec (and so every stored model) where it was."""
    config = lab.default_config("rope", "copy_back")
    fields = storage._config_fields(config)
    assert "position" not in fields and {"vocab_size", "n_outputs"} <= set(fields)
    Extended = dataclasses.make_dataclass("Extended", [("window", int, dataclasses.field(default=0))],
                                          bases=(lab.LabConfig,), frozen=True)
    assert storage._config_fields(Extended(**dataclasses.asdict(config))) == fields
    assert storage._config_fields(Extended(**dataclasses.asdict(config), window=8)) == \
        {**fields, "window": 8}


def test_the_spec_holds_no_hash_of_the_code():
    spec = storage.spec(lab.default_config("rope", "copy_back"), lab.get_task("copy_back"),
                            steps=10, batch_size=4, lr=1e-3, seed=0, length=16)
    assert set(spec) == {"config", "task", "training", "init", "numerics"}
    assert all(not re.fullmatch(r"[0-9a-f]{16,}", str(v)) for v in spec.values())


def test_a_task_on_the_corpus_names_the_text_it_draws_from():
    from posenc_lib.lab import textlm

    task = repr(textlm.TextTask())
    assert re.search(r"corpus=[0-9a-f]{12}", task) and re.search(r"corpus=[0-9a-f]{12}",
                                                                 repr(textlm.PasskeyTask()))


# -- training through the cache ---------------------------------------------------------------


def test_miss_trains_stores_lists_and_reloads(tmp_path, monkeypatch):
    monkeypatch.delenv("POSENC_TRAIN_CACHE_MISS", raising=False)   # make test sets it to "error"
    monkeypatch.setenv("POSENC_TRAIN_CACHE", str(tmp_path))
    config = lab.default_config("rope", "copy_back")
    settings = dict(steps=5, batch_size=4, lr=1e-3, seed=3, length=16)
    first = storage.train(config, "copy_back", progress=False, **settings)
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1 and re.fullmatch(r"copy_back-rope-s3-[0-9a-f]{6}\.npz", files[0].name)
    assert storage.check_folder(tmp_path) == []
    assert list(storage.manifest(tmp_path)) == [files[0].name]
    data = files[0].read_bytes()
    again = storage.train(config, "copy_back", progress=False, **settings)
    assert files[0].read_bytes() == data                       # read, not written again
    for k in first.params:
        np.testing.assert_array_equal(first.params[k], again.params[k])
        assert np.all(first.params[k] == first.params[k].astype(np.float32))
    assert first.losses == again.losses
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "error")
    with pytest.raises(RuntimeError, match="make notebooks"):
        storage.train(config, "copy_back", progress=False, **{**settings, "seed": 4})


def test_a_model_keeps_its_name_when_its_spec_is_spelled_anew(tmp_path, monkeypatch):
    """The manifest, not the name, holds the spec: rewriting a manifest line (a renamed config
    field, say) leaves the file and its name alone."""
    monkeypatch.delenv("POSENC_TRAIN_CACHE_MISS", raising=False)
    monkeypatch.setenv("POSENC_TRAIN_CACHE", str(tmp_path))
    config = lab.default_config("none", "copy_back")
    settings = dict(steps=3, batch_size=2, lr=1e-3, seed=0, length=8)
    storage.train(config, "copy_back", progress=False, **settings)
    (name,) = storage.manifest(tmp_path)
    # a later version of the code spells the same model's spec differently
    spelled = storage.spec(config, lab.get_task("copy_back"), **settings)
    spelled["training"] = [*spelled["training"][:2], "0.0010", *spelled["training"][3:]]
    entries = {name: {**storage.manifest(tmp_path)[name], "spec": spelled}}
    (tmp_path / storage.MANIFEST).write_text(storage.manifest_text(entries))
    monkeypatch.setattr(storage, "spec", lambda *a, **k: spelled)
    assert storage.model_name(config, lab.get_task("copy_back"), **settings) == name


def test_cache_off_always_trains(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_TRAIN_CACHE", "off")
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "train")
    assert storage.path_for(lab.default_config("rope", "copy_back"), lab.get_task("copy_back"),
                                steps=1, batch_size=1, lr=1e-3, seed=0, length=8) is None
    result = storage.train(lab.default_config("rope", "copy_back"), "copy_back", steps=2,
                               batch_size=2, lr=1e-3, length=8, progress=False)
    assert len(result.losses) == 2


# -- the evidence that the numerics are unchanged ---------------------------------------------


def _first_of_each_scheme_and_task() -> list[str]:
    seen: dict[tuple, str] = {}
    for name, entry in sorted(MANIFEST.items(), key=lambda kv: kv[1]["spec"]["training"][0]):
        spec = entry["spec"]
        key = (lab.LabConfig(**spec["config"]).position, spec["task"].split("(")[0],
               spec["init"] is None, spec["config"].get("rope_scaling"))
        seen.setdefault(key, name)
    return sorted(seen.values())


def _replay(name: str, stop_after: int) -> tuple[np.ndarray, lab.TrainResult]:
    """The stored losses of model ``name`` and a fresh run of its first ``stop_after`` steps."""
    spec = MANIFEST[name]["spec"]
    config = lab.LabConfig(**spec["config"])
    steps, batch_size, lr, seed, length = spec["training"]
    init = None if spec["init"] is None else _parent_params(spec["init"])
    task = _task_from_repr(spec["task"])
    fresh = lab.train(config, task, steps=steps, batch_size=batch_size, lr=float(lr), seed=seed,
                      length=length, progress=False, init=init, stop_after=stop_after)
    return storage.load_arrays(FOLDER / name)["losses"], fresh


def _parent_params(init_hash: str) -> dict[str, np.ndarray]:
    """The weights a fine-tune started from: the stored model whose weights hash to ``init``."""
    for name in MANIFEST:
        arrays = storage.load_arrays(FOLDER / name)
        params = {k.removeprefix("param/"): v.astype(np.float64)
                  for k, v in arrays.items() if k.startswith("param/")}
        if storage._array_hash(params) == init_hash:
            return params
    raise AssertionError(f"no stored model has the starting weights {init_hash}")


def _task_from_repr(text: str) -> lab.Task:
    from posenc_lib.lab import tasks as lab_tasks
    from posenc_lib.lab import textlm

    namespace = {n: getattr(lab_tasks, n) for n in dir(lab_tasks) if n.endswith("Task")}
    namespace.update(TextTask=textlm.TextTask, PasskeyTask=textlm.PasskeyTask)
    # a corpus task's fingerprint of the text is derived, not an argument
    task = eval(re.sub(r", corpus=[0-9a-f]+\)$", ")", text), {"__builtins__": {}}, namespace)
    assert repr(task) == text, "the task (or the corpus it draws from) has changed"
    return task


@pytest.mark.parametrize("name", _first_of_each_scheme_and_task())
def test_first_training_steps_are_reproduced(name):
    """The tripwire of :data:`storage.NUMERICS`: for one stored model of every scheme and
    task, today's code retraces the first steps of the stored loss curve. A change to the
    forward or backward pass, the optimiser or a task's data moves these losses; then bump
    NUMERICS (and retrain), or undo the change."""
    stored, fresh = _replay(name, stop_after=5)
    np.testing.assert_allclose(fresh.losses, stored[:5], rtol=2e-5, atol=0)


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


# -- stored results ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.name)
def test_stored_result_is_current(path):
    stored = json.loads(path.read_text(encoding="utf-8"))
    full = stored["spec"]
    assert set(full) == {"name", "spec", "numerics"}
    assert full["numerics"] == storage.NUMERICS, f"{path.name}: run make notebooks"
    assert path.name == storage.result_file_name(full)
    model = full["spec"].get("model") if isinstance(full["spec"], dict) else None
    assert model is None or model in MANIFEST, f"{path.name} names a model that is not stored"


def test_stored_result_computes_once_then_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_TRAIN_CACHE", str(tmp_path))
    monkeypatch.delenv("POSENC_TRAIN_CACHE_MISS", raising=False)
    calls = []

    def compute():
        calls.append(1)
        return {"acc": (0.5, 0.25)}

    first = storage.stored_result("demo", {"n": 3}, compute)
    second = storage.stored_result("demo", {"n": 3}, compute)
    assert first == second == {"acc": [0.5, 0.25]}  # the first call returns what is read later
    assert len(calls) == 1
    assert len(list(tmp_path.glob("demo-*.json"))) == 1
    storage.stored_result("demo", {"n": 4}, compute)            # another spec: computed again
    monkeypatch.setattr(storage, "NUMERICS", storage.NUMERICS + 1)
    storage.stored_result("demo", {"n": 3}, compute)            # new numerics: again
    assert len(calls) == 3 and len(list(tmp_path.glob("demo-*.json"))) == 3
    monkeypatch.setenv("POSENC_TRAIN_CACHE_MISS", "error")
    with pytest.raises(RuntimeError, match="no stored result 'demo'"):
        storage.stored_result("demo", {"n": 5}, compute)
    with pytest.raises(ValueError, match="name must be"):
        storage.stored_result("a b/c", {}, compute)


# -- history: no binary rewritten for nothing -------------------------------------------------


def _git(repo: Path, *args: str, data: bool = False):
    out = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return out.stdout if data else out.stdout.decode()


def rewritten_without_change(repo: Path, folder: str) -> list[str]:
    """Every change in ``repo``'s history (and its working tree) that gave a stored model file
    new bytes but the same arrays: ``"<commit> <path>"`` per offence. A rename with the same
    bytes is fine (git stores no new blob); a rewrite of the same numbers is not. History
    counts from the commit that added the folder's manifest (the policy's start: before it,
    every refactor re-saved every model under a new code hash)."""
    offences = []
    start = _git(repo, "log", "--diff-filter=A", "--format=%H", "--", f"{folder}/{storage.MANIFEST}")
    since = start.split()[-1] if start.split() else None
    if since is None:
        revisions = []                                      # not committed yet: the tree only
    elif _git(repo, "rev-list", "--parents", "-n1", since).split()[1:]:
        revisions = [f"{since}^..HEAD"]
    else:
        revisions = ["HEAD"]
    log = _git(repo, "log", "--format=#%h", "--raw", "--no-abbrev", "-M", *revisions, "--",
               folder) if revisions else ""
    commit = None
    changes = []
    for line in log.splitlines():
        if line.startswith("#"):
            commit = line[1:]
        elif line.startswith(":"):
            meta, *paths = line.split("\t")
            _, _, old, new, status = meta.split()
            if paths[-1].endswith(".npz") and status[0] in "MR" and old != new:
                changes.append((commit, paths[-1], old, new))
    tracked = _git(repo, "ls-files", "-s", "--", folder).splitlines()
    for row in tracked:
        meta, path = row.split("\t")
        blob = meta.split()[1]
        if path.endswith(".npz") and (repo / path).exists():
            now = _git(repo, "hash-object", path).strip()
            if now != blob:
                changes.append(("working-tree", path, blob, now))
    for commit, path, old, new in changes:
        before = storage.load_arrays(_git(repo, "cat-file", "blob", old, data=True))
        after = storage.load_arrays(
            (repo / path).read_bytes() if commit == "working-tree"
            else _git(repo, "cat-file", "blob", new, data=True))
        if storage.arrays_checksum(before) == storage.arrays_checksum(after):
            offences.append(f"{commit} {path}")
    return offences


def _has_history() -> bool:
    try:
        return _git(ROOT, "rev-parse", "--is-shallow-repository").strip() == "false"
    except (OSError, subprocess.CalledProcessError):
        return False


@pytest.mark.skipif(not _has_history(), reason="needs the repository's full git history")
def test_no_stored_model_was_rewritten_with_the_same_numbers():
    assert rewritten_without_change(ROOT, "posenc_lib/lab/trained") == []


def test_the_history_check_catches_a_rewrite_of_the_same_numbers(tmp_path):
    """The check above can fail: a file saved again with the same arrays (here with numpy's own
    writer, whose zip entries carry the time of writing) is caught, in a commit and in the
    working tree; a rename or a file with new numbers is not an offence."""
    repo = tmp_path / "repo"
    (repo / "m").mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.org")
    _git(repo, "config", "user.name", "t")
    arrays = {"param/w": np.arange(4, dtype=np.float32), "losses": np.ones(2, np.float32)}
    np.savez_compressed(repo / "m" / "old.npz", spec=np.array("{}"), **arrays)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "before the policy")
    np.savez_compressed(repo / "m" / "old.npz", spec=np.array("{...}"), **arrays)
    _git(repo, "commit", "-qam", "a re-save before the policy: not counted")
    storage._write_npz(repo / "m" / "a.npz", arrays)
    (repo / "m" / storage.MANIFEST).write_text("")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    _git(repo, "mv", "m/a.npz", "m/b.npz")
    _git(repo, "commit", "-qm", "rename")                                   # fine
    assert rewritten_without_change(repo, "m") == []
    np.savez_compressed(repo / "m" / "b.npz", spec=np.array("{}"), **arrays)
    assert rewritten_without_change(repo, "m") == ["working-tree m/b.npz"]
    _git(repo, "commit", "-qam", "same numbers, new bytes")
    head = _git(repo, "rev-parse", "HEAD").strip()
    assert rewritten_without_change(repo, "m") == [f"{head} m/b.npz"]
    storage._write_npz(repo / "m" / "b.npz", {**arrays, "losses": np.zeros(2, np.float32)})
    assert rewritten_without_change(repo, "m") == [f"{head} m/b.npz"]      # new numbers: fine


def test_the_readme_states_the_models_size_truly():
    stated = re.search(r"(\d+) KB on average", (ROOT / "README.md").read_text()).group(1)
    mean = np.mean([p.stat().st_size for p in STORED]) / 1e3
    assert abs(int(stated) - mean) <= 0.15 * mean, f"README says {stated} KB; they average {mean:.0f}"
