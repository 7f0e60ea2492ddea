"""What tests in more than one folder share: the repository's paths, hypothesis strategies for
RoPE heads, independent reference computations and small hand-made results.

Importable from every test folder (``tests/conftest.py`` puts ``tests/`` on ``sys.path``), like
``tool_loader`` and ``site_helpers``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from posenc_lib import lab
from posenc_lib.course import quizzes
from posenc_lib.display import quiz
from posenc_lib.lab import extrapolation as X
from posenc_lib.maths import rope_scaling

# -- paths --------------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]
BIB_KEYS = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text(),
                          re.M))
GOLDEN = ROOT / "tests" / "golden" / "released"   # transformers' numbers (tools/hf_reference.py)


def golden(name: str) -> dict[str, Any]:
    with open(GOLDEN / f"{name}.json", encoding="utf-8") as f:
        data = json.load(f)
    assert isinstance(data, dict)
    return data


# -- hypothesis strategies: RoPE heads (tests/maths/test_rope.py and test_rope_scaling.py) -------
pairings = st.sampled_from(["interleaved", "half"])
seeds = st.integers(0, 2**32 - 1)
methods = st.sampled_from(rope_scaling.SCALING_METHODS)
factors = st.floats(1.0, 64.0)
dims_to_32 = st.integers(1, 16).map(lambda k: 2 * k)


# -- independent reference computations ----------------------------------------------------------
def pe_loop(pos, d, base=10000.0):
    """PE(pos) straight from the paper's formula, one component at a time."""
    out = []
    for j in range(d):
        i = j // 2
        angle = pos / base ** (2 * i / d)
        out.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return np.array(out)


# -- lab models small enough for finite differences (tests/lab/test_model.py, test_training.py) --
def tiny(position: str, **kw) -> lab.LabConfig:
    """A model small enough for finite differences."""
    base = dict(vocab_size=7, n_outputs=5, position=position, d_model=8, n_heads=2, n_layers=2,
                d_mlp=12, max_len=6, causal=True, readout="token")
    base.update(kw)
    return lab.LabConfig(**base)


def jittered_params(config: lab.LabConfig, seed: int = 0) -> dict:
    """Init params plus noise, so zero biases and unit gains are exercised too."""
    rng = np.random.default_rng(seed + 100)
    params = lab.init_params(config, seed)
    return {k: v + 0.1 * rng.standard_normal(v.shape) for k, v in params.items()}


# -- small hand-made sweep results: quick, and their content is known (chapter 10's figures and quiz)
def toy_sweep(task="copy_back", lengths=(32, 64, 128, 256)):
    acc = {p: tuple(np.linspace(0.9, 0.2 + 0.1 * i, len(lengths)))
           for i, p in enumerate(X.SCHEMES)}
    acc["learned"] = (1.0,) + (math.nan,) * (len(lengths) - 1)
    return X.SweepResult(task, lengths[0], tuple(lengths), X.SCHEMES, acc,
                         {p: 1.0 for p in X.SCHEMES})


def toy_seed_sweep(task="copy_back", lengths=(32, 64, 128, 256), positions=("rope", "alibi")):
    runs = []
    for k in range(3):
        acc = {p: tuple(0.9 - 0.1 * i - 0.05 * k for i in range(len(lengths))) for p in positions}
        runs.append(X.SweepResult(task, lengths[0], tuple(lengths), positions, acc,
                                  {p: 1.0 for p in positions}))
    return X.SeedSweep(task, lengths[0], tuple(lengths), positions, (0, 1, 2), tuple(runs))


# -- quizzes ----------------------------------------------------------------------------------------
def chapter_question(number: int, start: str, **values) -> quiz.Question:
    q = quizzes.chapter(number, **values) if values else quizzes.chapter(number)
    hits = [x for x in q.questions if x.prompt.startswith(start)]
    assert len(hits) == 1, start
    return hits[0]
