"""Live explorer update time: slider value in, new PNG inlined in the page out.

Times ``Explorer.frame_html`` (the whole live callback: update artists, Agg draw, PNG encode,
base64) for every explorer of the book at its default size, cycling through the static grid.
Target (issue 3): median <= 50 ms, p95 <= 100 ms.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import header  # noqa: E402

import posenc_lib.figures  # noqa: E402


def factories():
    for mod in pkgutil.iter_modules(posenc_lib.figures.__path__):
        module = importlib.import_module(f"posenc_lib.figures.{mod.name}")
        for name in getattr(module, "__all__", ()):
            if name.endswith("_explorer"):
                yield f"{mod.name}.{name}", getattr(module, name)


def main(repeats: int = 30) -> None:
    print(header("Live explorer update (callback to new image)", "frames in static grid"))
    all_times = []
    for name, factory in factories():
        ex = factory()
        ex.frame_html()  # first draw builds the figure; updates follow
        t = np.array(ex.time_update(repeats))
        all_times.append(t)
        frames = int(np.prod([len(p.grid) for p in ex.params]))
        print(f"| {name} | {np.median(t) * 1e3:.1f} ms | {np.percentile(t, 95) * 1e3:.1f} ms "
              f"| {frames} |")
    if all_times:
        t = np.concatenate(all_times)
        print(f"| **all explorers** | {np.median(t) * 1e3:.1f} ms | "
              f"{np.percentile(t, 95) * 1e3:.1f} ms | |")


if __name__ == "__main__":
    main()
