"""Trained lab models stored with the book, so every machine reads the same weights.

Training a model is a long chain of floating-point operations. Another CPU, or another BLAS
kernel, rounds some of them differently in the last bit, and after a few hundred Adam steps the
weights differ visibly — so would the accuracies a chapter quotes. :func:`train` therefore stores
what it trains in ``posenc_lib/lab/trained/`` (one small ``.npz`` per model, weights rounded to
float32) and, on the next call with the same arguments, loads it instead of training again. The
files are part of the repository: the chapters, the tests and every reader's machine evaluate the
very same weights, and a chapter runs in seconds instead of minutes.

**The policy: binaries never churn.** Git keeps every version of every binary for every clone,
so a stored model is written once and never rewritten unless its numbers change:

* A model is identified by its *spec* (:func:`spec`): the model configuration, the task, the
  training settings, the initial weights of a fine-tune, and :data:`NUMERICS`, the version of
  the training numerics. The spec holds no hash of the source code, so a refactor — moving,
  renaming or retyping code — finds every stored model where it was.
* The manifest ``manifest.jsonl`` beside the models (one line per file) records each file's
  spec and a checksum of its arrays (:func:`arrays_checksum`). :func:`train` finds a model by
  looking its spec up there, so a file keeps the stable, readable name it got when it was
  trained (``<task>-<scheme>-s<seed>-<6 hex digits of its spec>.npz``), even if the spec is
  later spelled differently.
* A change to what training computes (the forward or backward pass, the optimiser, the data a
  task draws) bumps :data:`NUMERICS`: every spec changes, ``make notebooks`` trains the models
  again under new names and prunes the old ones. Whether a change is a refactor is decided by
  evidence, not by a hash: ``tests/lab/test_storage.py`` retrains stored models from scratch
  and compares.
* Files are written deterministically (fixed zip timestamps, arrays in name order), so the same
  arrays always give the same bytes; the tests fail when a file's bytes change while its arrays
  do not, and when a binary appears without a manifest entry.

Evaluations of stored models that take minutes are stored the same way as small JSON files
(:func:`stored_result`), keyed by their spec and :data:`NUMERICS`.

Set ``POSENC_TRAIN_CACHE`` to another folder to keep the files elsewhere, or to ``off`` to always
train. ``POSENC_TRAIN_CACHE_MISS=error`` (set by ``make test``) turns a missing model into an error
instead of a training run: the tests then prove that the stored models are complete and current.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .. import lab

__all__ = ["DEFAULT_DIR", "MANIFEST", "NUMERICS", "arrays_checksum", "cache_dir", "check_folder",
           "key_of", "load_arrays", "manifest", "manifest_text", "model_name", "path_for",
           "result_file_name", "result_text", "spec", "stored_result", "train"]

#: The version of the training numerics. Bump it when a change alters what training or a stored
#: evaluation computes (not when code moves): every stored model and result is then made again.
NUMERICS = 1

#: Where models are stored unless ``POSENC_TRAIN_CACHE`` says otherwise: ``posenc_lib/lab/trained/``.
DEFAULT_DIR = Path(__file__).resolve().parent / "trained"
#: The file name of the manifest in the models' folder. It holds one JSON object per line,
#: ``{"file": ..., "arrays": ..., "spec": ...}``, sorted by file name.
MANIFEST = "manifest.jsonl"

# A zip entry's timestamp: fixed, so that the same arrays always give the same file bytes.
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def cache_dir() -> Path | None:
    """The folder of stored models (``POSENC_TRAIN_CACHE``, default :data:`DEFAULT_DIR`), or
    ``None`` when the cache is switched off."""
    value = os.environ.get("POSENC_TRAIN_CACHE", "").strip()
    if value.lower() == "off":
        return None
    return Path(value) if value else DEFAULT_DIR


# --------------------------------------------------------------------------------------------
# Specs and names
# --------------------------------------------------------------------------------------------


def _config_fields(config: lab.LabConfig) -> dict[str, Any]:
    """The configuration's fields, leaving out those at their default value: a field added
    later with a default that keeps the old behaviour leaves every stored spec as it was."""
    out = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if f.default is dataclasses.MISSING or value != f.default:
            out[f.name] = value
    return out


def _array_hash(params: Mapping[str, np.ndarray]) -> str:
    """A hash of the values of ``params`` in float64 (the initial weights of a fine-tune)."""
    h = hashlib.sha256()
    for name in sorted(params):
        a = np.ascontiguousarray(params[name], dtype=np.float64)
        h.update(name.encode() + str(a.shape).encode() + a.tobytes())
    return h.hexdigest()[:16]


def spec(config: lab.LabConfig, task: lab.Task, *, steps: int, batch_size: int, lr: float,
         seed: int, length: int, init: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
    """Everything that determines the result of ``lab.train`` with these arguments: the
    configuration (fields at their default left out), the task (its ``repr`` names its settings
    and, for a task on the corpus, a fingerprint of the text), the training settings, a hash of
    the initial weights of a fine-tune, and the numerics version :data:`NUMERICS`."""
    return {
        "config": _config_fields(config),
        "task": repr(task),
        "training": [steps, batch_size, repr(float(lr)), seed, length],
        "init": None if init is None else _array_hash(init),
        "numerics": NUMERICS,
    }


def key_of(spec_: Any) -> str:
    """A 20-hex-digit hash of a JSON-able spec (of a model or of a stored result)."""
    return hashlib.sha256(_canonical(spec_).encode()).hexdigest()[:20]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _new_name(spec_: dict[str, Any], config: lab.LabConfig, task: lab.Task,
              taken: Iterable[str]) -> str:
    """The readable name a newly trained model gets: task, scheme, seed and the start of its
    spec's hash (more digits in the unlikely case that the name is taken)."""
    stem = f"{task.name}-{config.position}-s{spec_['training'][3]}"
    digest, taken = key_of(spec_), set(taken)
    for n in range(6, len(digest) + 1):
        name = f"{stem}-{digest[:n]}.npz"
        if name not in taken:
            return name
    raise RuntimeError(f"no free name for {stem} in the manifest")  # pragma: no cover


# --------------------------------------------------------------------------------------------
# The manifest and the files
# --------------------------------------------------------------------------------------------


def arrays_checksum(arrays: Mapping[str, np.ndarray]) -> str:
    """A checksum of a stored model's arrays (name, dtype, shape and values of each, in name
    order; the ``spec`` array that files made before the manifest carry is left out): two
    files hold the same numbers exactly when their checksums agree."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        if name == "spec":
            continue
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode() + a.tobytes())
    return h.hexdigest()[:24]


def load_arrays(source: Path | bytes) -> dict[str, np.ndarray]:
    """Every array of a stored model file (a path, or the file's bytes)."""
    with np.load(io.BytesIO(source) if isinstance(source, bytes) else source) as data:
        return {k: data[k] for k in data.files}


def _write_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` as a compressed ``.npz`` whose bytes depend on the arrays only."""
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())
    tmp.replace(path)


def manifest(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """The manifest of ``folder`` (default :func:`cache_dir`): file name -> ``{"arrays":
    checksum, "spec": spec}``; empty if there is none."""
    folder = cache_dir() if folder is None else folder
    path = None if folder is None else folder / MANIFEST
    if path is None or not path.exists():
        return {}
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            entry = json.loads(line)
            if set(entry) != {"file", "arrays", "spec"}:
                raise ValueError(f"{path}:{n}: a manifest line holds file, arrays and spec, "
                                 f"got {sorted(entry)}")
            out[entry["file"]] = {"arrays": entry["arrays"], "spec": entry["spec"]}
    return out


def manifest_text(entries: Mapping[str, Mapping[str, Any]]) -> str:
    """The manifest file's text for ``entries`` (file name -> arrays checksum and spec): one
    line per file, sorted by name, each spec with its keys sorted."""
    return "".join(json.dumps({"file": name, "arrays": e["arrays"],
                               "spec": json.loads(_canonical(e["spec"]))}) + "\n"
                   for name, e in sorted(entries.items()))


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder``'s manifest (two kernels may train at once)."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".manifest.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _add_to_manifest(folder: Path, name: str, arrays_sum: str, spec_: dict[str, Any]) -> None:
    entries = manifest(folder)
    entries[name] = {"arrays": arrays_sum, "spec": spec_}
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(manifest_text(entries), encoding="utf-8")
    tmp.replace(folder / MANIFEST)


def _find(folder: Path, spec_: dict[str, Any]) -> str | None:
    """The name of the stored model with this spec, if the manifest lists one."""
    wanted = _canonical(spec_)
    for name, entry in manifest(folder).items():
        if _canonical(entry["spec"]) == wanted:
            return name
    return None


def model_name(config: lab.LabConfig, task: lab.Task, **settings: Any) -> str:
    """The stable file name of the model that ``train(config, task, **settings)`` stores: its
    name in the manifest if it is stored, else the name it will get. Stored results computed
    from a model name it in their spec."""
    config = lab.check_config(config)
    task = lab.check_task(task, config)
    spec_ = spec(config, task, **settings)
    folder = cache_dir()
    entries = {} if folder is None else manifest(folder)
    found = None if folder is None else _find(folder, spec_)
    return found or _new_name(spec_, config, task, entries)


def path_for(config: lab.LabConfig, task: lab.Task, **settings: Any) -> Path | None:
    """Where the model for these arguments is stored (``None`` if the cache is off)."""
    folder = cache_dir()
    return None if folder is None else folder / model_name(config, task, **settings)


def check_folder(folder: Path | None = None) -> list[str]:
    """What is wrong with a folder of stored models: files without a manifest line, lines
    without a file, and files whose arrays are not the ones the manifest records. Empty when
    all is well."""
    folder = cache_dir() if folder is None else folder
    if folder is None:
        return []
    entries = manifest(folder)
    files = {p.name for p in folder.glob("*.npz")}
    problems = [f"{name}: a stored model without a line in {MANIFEST}"
                for name in sorted(files - set(entries))]
    problems += [f"{name}: listed in {MANIFEST} but missing" for name in sorted(set(entries) - files)]
    for name in sorted(files & set(entries)):
        if arrays_checksum(load_arrays(folder / name)) != entries[name]["arrays"]:
            problems.append(f"{name}: its arrays are not the ones {MANIFEST} records")
    return problems


# --------------------------------------------------------------------------------------------
# Training and results
# --------------------------------------------------------------------------------------------


def _log_use(path: Path | None) -> None:
    """Append the file name to ``POSENC_TRAIN_CACHE_LOG`` if set (``make notebooks`` uses the log
    to delete stored models that no chapter uses any more)."""
    log = os.environ.get("POSENC_TRAIN_CACHE_LOG")
    if log and path is not None:
        with open(log, "a", encoding="utf-8") as f:
            f.write(path.name + "\n")


def _check_miss_allowed(what: str, path: Path | None, verb: str) -> None:
    """Raise instead of training or computing when ``POSENC_TRAIN_CACHE_MISS=error``."""
    if os.environ.get("POSENC_TRAIN_CACHE_MISS", "train").strip().lower() == "error":
        raise RuntimeError(f"no stored {what} ({path.name if path else 'cache off'}); run `make "
                           f"notebooks` to {verb} and store it, then commit posenc_lib/lab/trained/")


def _rounded(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: np.asarray(v, dtype=np.float32).astype(np.float64) for k, v in params.items()}


def train(config: lab.LabConfig, task: lab.Task | str, *, steps: int, batch_size: int,
          lr: float, seed: int = 0, length: int, progress: bool = True,
          init: dict[str, np.ndarray] | None = None) -> lab.TrainResult:
    """:func:`posenc_lib.lab.train`, stored: load the model if it was trained before, else train
    it and store it (and add it to the manifest). Same arguments and result; the weights are
    rounded to float32 either way, so a stored model and a freshly trained one give the same
    numbers on the machine that trained it. ``seconds`` is the training time measured when the
    model was trained.
    """
    config = lab.check_config(config)
    task = lab.check_task(task, config)
    settings: dict[str, Any] = dict(steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                                    length=length, init=init)
    path = path_for(config, task, **settings)
    _log_use(path)
    if path is not None and path.exists():
        arrays = load_arrays(path)
        params = {k.removeprefix("param/"): v.astype(np.float64)
                  for k, v in arrays.items() if k.startswith("param/")}
        return lab.TrainResult(params=params, losses=[float(x) for x in arrays["losses"]],
                               seconds=float(arrays["seconds"]), config=config)
    _check_miss_allowed(f"model for {config.position} on {task.name}", path, "train")
    result = lab.train(config, task, progress=progress, **settings)
    params = _rounded(result.params)
    if path is not None:
        stored: dict[str, np.ndarray] = {f"param/{k}": v.astype(np.float32)
                                         for k, v in params.items()}
        stored["losses"] = np.asarray(result.losses, dtype=np.float32)
        stored["seconds"] = np.float64(round(result.seconds, 2))
        with _locked(path.parent):
            _write_npz(path, stored)
            _add_to_manifest(path.parent, path.name, arrays_checksum(stored),
                             spec(config, task, **settings))
    return lab.TrainResult(params=params, losses=[float(np.float32(x)) for x in result.losses],
                           seconds=result.seconds, config=config)


def stored_result(name: str, spec_: dict[str, Any], compute: Callable[[], Any]) -> Any:
    """The result of ``compute()``, stored like a model: evaluating stored models on long inputs
    takes minutes, reading the numbers takes milliseconds.

    ``spec_`` (JSON-able) must hold everything the result depends on: the stored model it
    evaluates (by :func:`model_name`) and the evaluation's settings; :data:`NUMERICS` is added.
    The result must be JSON-able (lists, dicts, numbers, strings); it is stored in
    ``<cache>/<name>-<key>.json`` and read back on the next call. A stored result is the same on
    every machine, so a chapter quotes the same digits everywhere. Misses follow
    ``POSENC_TRAIN_CACHE_MISS`` as for models.
    """
    if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"name must be a short word (letters, digits, - and _), got {name!r}")
    full = {"name": name, "spec": spec_, "numerics": NUMERICS}
    folder = cache_dir()
    path = None if folder is None else folder / result_file_name(full)
    _log_use(path)
    if path is not None and path.exists():
        return json.loads(path.read_text(encoding="utf-8"))["result"]
    _check_miss_allowed(f"result {name!r}", path, "compute")
    result = compute()
    text = result_text(full, result)
    result = json.loads(text)["result"]  # what a later call reads back (tuples become lists)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return result


def result_file_name(full: dict[str, Any]) -> str:
    """The file name of a stored result with this full spec (``name``, ``spec``, ``numerics``)."""
    return f"{full['name']}-{key_of(full)}.json"


def result_text(full: dict[str, Any], result: Any) -> str:
    """A stored result's file: its full spec and the result, as JSON."""
    return json.dumps({"spec": full, "result": result}, sort_keys=True, indent=1) + "\n"
