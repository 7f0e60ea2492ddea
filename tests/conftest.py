"""Shared test settings: hypothesis profile and a deterministic matplotlib backend."""

import os
import sys
from pathlib import Path

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

# The tests live in one folder per layer of the library (maths, display, lab, course), per chapter,
# for the site and for the tools; their shared modules (helpers, tool_loader, site_helpers and the
# exercises_cases package) stay here, in tests/, importable from every folder.
sys.path.insert(0, str(Path(__file__).resolve().parent))

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


def pytest_xdist_make_scheduler(config, log):
    """How ``make test`` (``pytest-xdist --dist loadscope``) shares the tests between workers.

    A notebook's cells run in order in one kernel, so each notebook is one unit of work; the
    JupyterLab tests share one server, so they are one unit too. Every other test is a unit of
    its own, so a long module (the site's 19 pages) spreads over the workers. xdist hands out
    the units with the most tests first (the notebooks), then the single tests in collection
    order, which :func:`pytest_collection_modifyitems` puts longest first.
    """
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BookScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            if path.endswith(".ipynb") or path.endswith("test_jupyterlab.py"):
                return path
            return nodeid

    return BookScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """Long single tests (a browser page, a retraining) first, so that no worker ends the run
    with one of them alone. A stable sort: a notebook's cells keep their order."""
    items.sort(key=lambda item: not (item.get_closest_marker("browser")
                                     or item.get_closest_marker("slow")))


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium (Debian's), one per test process, for every browser test."""
    from playwright.sync_api import sync_playwright
    from site_helpers import launch

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
