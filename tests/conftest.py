"""Shared test settings: hypothesis profile and a deterministic matplotlib backend."""

import os

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")
os.environ.setdefault("POSENC_WIDGETS", "live")

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
