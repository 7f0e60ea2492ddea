"""Trained lab models stored with the book, so every machine reads the same weights.

Training a model is a long chain of floating-point operations. Another CPU, or another BLAS
kernel, rounds some of them differently in the last bit, and after a few hundred Adam steps the
weights differ visibly — so would the accuracies a chapter quotes. :func:`train` therefore stores
what it trains in ``posenc_lib/trained/`` (one small ``.npz`` per model, weights rounded to
float32) and, on the next call with the same arguments, loads it instead of training again. The
files are part of the repository: the chapters, the tests and every reader's machine evaluate the
very same weights, and a chapter runs in seconds instead of minutes.

A file is found by a key: a hash of everything that determines the result — the model
configuration, the task, the training settings, the initial weights of a fine-tune — and of the
source code of the modules that compute the forward and backward pass. Change that code and every
key changes: the models are trained again (``make notebooks``) and
``tests/test_train_cache.py`` lists the files that are stale or missing until then.
Set ``POSENC_TRAIN_CACHE`` to another folder to keep the files elsewhere, or to ``off`` to always
train. ``POSENC_TRAIN_CACHE_MISS=error`` (set by ``make test``) turns a missing model into an error
instead of a training run: the tests then prove that the stored models are complete and current.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import inspect
import json
import os
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from . import (
    _validate,
    alibi,
    attention,
    encodings,
    lab,
    lab_model,
    lab_tasks,
    lab_train,
    relative,
    rope,
    rope_scaling,
)

__all__ = ["DEFAULT_DIR", "cache_dir", "code_hash", "key", "key_of", "path_for", "spec",
           "stored_result", "train"]

#: Where models are stored unless ``POSENC_TRAIN_CACHE`` says otherwise: ``posenc_lib/trained/``.
DEFAULT_DIR = Path(__file__).resolve().parent / "trained"
_CODE_MODULES = (lab, lab_model, lab_tasks, lab_train, alibi, attention, encodings, relative, rope,
                 rope_scaling, _validate)


def _code_only(source: str) -> str:
    """The syntax tree of ``source`` without docstrings (comments are not in the tree)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            body[0] = ast.Pass()
    return ast.dump(tree, annotate_fields=False, include_attributes=False)


def _source_hash(objects: Sequence[Any]) -> str:
    h = hashlib.sha256()
    for obj in objects:
        h.update(_code_only(inspect.getsource(obj)).encode())
    return h.hexdigest()[:16]


def _definitions(module: Any) -> list[str]:
    """The code of each top-level statement of ``module`` (docstrings dropped), except its
    imports and ``__all__``: what the module computes, not where it sits or what it re-exports."""
    out = []
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            continue  # the module's docstring
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        out.append(_code_only(ast.unparse(_without_types(node))))
    return out


def _without_types(tree: ast.AST) -> ast.AST:
    """``tree`` with its type annotations blanked (they never change what the code computes).

    An annotated name keeps its place (a dataclass field is still a field), and ``ClassVar``
    stays visible (a class variable is not a field)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        elif isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, ast.AnnAssign):
            kind = "ClassVar" if "ClassVar" in ast.unparse(node.annotation) else "_"
            node.annotation = ast.Name(id=kind, ctx=ast.Load())
    return tree


@cache
def code_hash() -> str:
    """A hash of the code (not the docstrings or comments) of every module the forward and
    backward pass runs through: editing the prose of a docstring keeps the stored models.

    The definitions are hashed as a sorted set, so moving a function or class from one of these
    modules to another (splitting a file along its seams) keeps the hash too, and so does
    changing a type annotation.
    """
    h = hashlib.sha256()
    for code in sorted(d for module in _CODE_MODULES for d in _definitions(module)):
        h.update(code.encode() + b"\0")
    return h.hexdigest()[:16]


def cache_dir() -> Path | None:
    """The folder of stored models (``POSENC_TRAIN_CACHE``, default :data:`DEFAULT_DIR`), or
    ``None`` when the cache is switched off."""
    value = os.environ.get("POSENC_TRAIN_CACHE", "").strip()
    if value.lower() == "off":
        return None
    return Path(value) if value else DEFAULT_DIR


def _array_hash(params: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(params):
        a = np.ascontiguousarray(params[name], dtype=np.float64)
        h.update(name.encode() + str(a.shape).encode() + a.tobytes())
    return h.hexdigest()[:16]


def spec(config: lab.LabConfig, task: lab.Task, *, steps: int, batch_size: int, lr: float,
         seed: int, length: int, init: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
    """Everything that determines the result of ``lab.train`` with these arguments. A task
    defined outside :mod:`~posenc_lib.lab` (e.g. :mod:`~posenc_lib.textlm`'s) adds a hash of
    its class and of the functions in its ``CODE`` attribute, since they make the training
    data."""
    result = {
        "config": dataclasses.asdict(config),
        "task": repr(task),
        "training": [steps, batch_size, repr(float(lr)), seed, length],
        "init": None if init is None else _array_hash(init),
        "code": code_hash(),
    }
    if inspect.getmodule(type(task)) not in _CODE_MODULES:
        result["task_code"] = _source_hash([type(task), *getattr(type(task), "CODE", ())])
    return result


def key(config: lab.LabConfig, task: lab.Task, **settings: Any) -> str:
    """The hash that names the stored result of ``lab.train`` with these arguments."""
    return key_of(spec(config, task, **settings))


def key_of(spec_: dict[str, Any]) -> str:
    """The key of a :func:`spec` (as stored in each file, so a test can recompute it)."""
    return hashlib.sha256(json.dumps(spec_, sort_keys=True).encode()).hexdigest()[:20]


def path_for(config: lab.LabConfig, task: lab.Task, **settings: Any) -> Path | None:
    """Where the model for these arguments is stored (``None`` if the cache is off)."""
    folder = cache_dir()
    if folder is None:
        return None
    return folder / f"{config.position}-{task.name}-{key(config, task, **settings)}.npz"


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
                           f"notebooks` to {verb} and store it, then commit posenc_lib/trained/")


def _rounded(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: np.asarray(v, dtype=np.float32).astype(np.float64) for k, v in params.items()}


def train(config: lab.LabConfig, task: lab.Task | str, *, steps: int, batch_size: int,
          lr: float, seed: int = 0, length: int, progress: bool = True,
          init: dict[str, np.ndarray] | None = None) -> lab.TrainResult:
    """:func:`posenc_lib.lab.train`, stored: load the model if it was trained before, else train
    it and store it. Same arguments and result; the weights are rounded to float32 either way,
    so a stored model and a freshly trained one give the same numbers on the machine that
    trained it. ``seconds`` is the training time measured when the model was trained.
    """
    config = lab._check_config(config)
    task = lab._check_task(task, config)
    settings: dict[str, Any] = dict(steps=steps, batch_size=batch_size, lr=lr, seed=seed,
                                    length=length)
    path = path_for(config, task, init=init, **settings)
    _log_use(path)
    if path is not None and path.exists():
        with np.load(path) as data:
            params = {k.removeprefix("param/"): data[k].astype(np.float64)
                      for k in data.files if k.startswith("param/")}
            losses = [float(x) for x in data["losses"]]
            seconds = float(data["seconds"])
        return lab.TrainResult(params=params, losses=losses, seconds=seconds, config=config)
    _check_miss_allowed(f"model for {config.position} on {task.name}", path, "train")
    result = lab.train(config, task, progress=progress, init=init, **settings)
    params = _rounded(result.params)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        arrays: dict[str, Any] = {f"param/{k}": v.astype(np.float32) for k, v in params.items()}
        np.savez_compressed(tmp, spec=np.array(json.dumps(spec(config, task, init=init,
                                                                  **settings), sort_keys=True)),
                            losses=np.asarray(result.losses, dtype=np.float32),
                            seconds=np.float64(round(result.seconds, 2)), **arrays)
        tmp.replace(path)
    return lab.TrainResult(params=params, losses=[float(np.float32(x)) for x in result.losses],
                           seconds=result.seconds, config=config)


def stored_result(name: str, spec_: dict[str, Any], compute: Callable[[], Any], *,
                  code: Sequence[Any] = ()) -> Any:
    """The result of ``compute()``, stored like a model: evaluating stored models on long inputs
    takes minutes, reading the numbers takes milliseconds.

    ``spec_`` (JSON-able) must hold everything the result depends on besides code; ``code``
    lists the modules, classes or functions whose source computes it (hashed, docstrings
    ignored, together with :func:`code_hash`). The result must be JSON-able (lists, dicts,
    numbers, strings); it is stored in ``<cache>/<name>-<key>.json`` and read back on the next
    call. A stored result is the same on every machine, so a chapter quotes the same digits
    everywhere. Misses follow ``POSENC_TRAIN_CACHE_MISS`` as for models.
    """
    if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
        raise ValueError(f"name must be a short word (letters, digits, - and _), got {name!r}")
    full = {"name": name, "spec": spec_, "code": code_hash(), "source": _source_hash(code)}
    folder = cache_dir()
    path = None if folder is None else folder / f"{name}-{key_of(full)}.json"
    _log_use(path)
    if path is not None and path.exists():
        return json.loads(path.read_text(encoding="utf-8"))["result"]
    _check_miss_allowed(f"result {name!r}", path, "compute")
    result = compute()
    text = _result_text(full, result)
    result = json.loads(text)["result"]  # what a later call reads back (tuples become lists)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_text(path, text)
    return result


def _result_text(full: dict[str, Any], result: Any) -> str:
    """A stored result's file: its full spec and the result, as JSON."""
    return json.dumps({"spec": full, "result": result}, sort_keys=True, indent=1) + "\n"


def _write_text(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (through a temporary file)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
