"""Shared test settings: hypothesis profile and a deterministic matplotlib backend."""

import os

import matplotlib
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")
os.environ.setdefault("POSENC_WIDGETS", "live")

settings.register_profile(
    "book", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("book")
