"""Shared test settings: hypothesis profile and a deterministic matplotlib backend."""

import os

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")
os.environ.setdefault("POSENC_WIDGETS", "live")
# One BLAS thread per process. make test runs one pytest worker per core, and each worker (and
# each notebook kernel it starts, which inherits this environment) would otherwise start one
# BLAS thread per core: on 2 cores, 2 processes x 2 spinning threads made a training loop 20x
# slower (100 lab training steps: 214 s instead of 10 s). The matrices here are small, so one thread per
# process loses nothing. Workers are started after this file is read, so they inherit it too.
# (Thread count only; nothing here changes which CPU kernels BLAS uses.)
os.environ.setdefault("OMP_NUM_THREADS", "1")

settings.register_profile(
    "book", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("book")


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (Debian's) for the browser tests of one module."""
    from playwright.sync_api import sync_playwright
    from site_helpers import launch

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
