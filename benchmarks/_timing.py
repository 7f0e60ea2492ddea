"""Shared timing helper for the benchmarks: repeat, then report median and p95."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def measure(fn: Callable[[], object], repeats: int = 15, warmup: int = 2) -> np.ndarray:
    """Seconds per call of ``fn`` over ``repeats`` runs (after ``warmup`` untimed runs)."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return np.array(out)


def row(name: str, seconds: np.ndarray, unit: str = "ms", extra: str = "") -> str:
    scale = {"ms": 1e3, "s": 1.0}[unit]
    med, p95 = np.median(seconds) * scale, np.percentile(seconds, 95) * scale
    return f"| {name} | {med:.1f} {unit} | {p95:.1f} {unit} | {extra} |"


def header(title: str, extra: str = "") -> str:
    return f"\n### {title}\n\n| case | median | p95 | {extra} |\n|---|---|---|---|"
