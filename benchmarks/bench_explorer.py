"""Live explorer update time: slider value in, new PNG inlined in the page out.

Times ``Explorer.frame_html`` (the whole live callback: update artists, Agg draw, PNG encode,
base64) for every explorer of the book at its default size, cycling through the static grid.
"redraw" empties the explorer's image cache before every move, so every move draws: that is the
first visit of a value, and the number the target applies to (median <= 50 ms, p95 <= 100 ms).
"with cache" is what a reader gets who moves a slider back and forth (values already shown come
from the explorer's cache of recent images).
"""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np

import posenc_lib.course.figures


def factories():
    for mod in pkgutil.iter_modules(posenc_lib.course.figures.__path__):
        module = importlib.import_module(f"posenc_lib.course.figures.{mod.name}")
        for name in getattr(module, "__all__", ()):
            if name.endswith("_explorer"):
                yield f"{mod.name}.{name}", getattr(module, name)


def main(repeats: int = 30) -> None:
    print("\n### Live explorer update (callback to new image)\n\n"
          "| case | redraw median | redraw p95 | with cache: median | frames in static grid |\n"
          "|---|---|---|---|---|")
    all_times, all_cached = [], []
    for name, factory in factories():
        ex = factory()
        ex.frame_html()  # first draw builds the figure; updates follow
        t = np.array(ex.time_update(repeats))
        c = np.array(ex.time_update(repeats, cached=True))
        all_times.append(t)
        all_cached.append(c)
        frames = int(np.prod([len(p.grid) for p in ex.params]))
        print(f"| {name} | {np.median(t) * 1e3:.1f} ms | {np.percentile(t, 95) * 1e3:.1f} ms "
              f"| {np.median(c) * 1e3:.1f} ms | {frames} |")
    if all_times:
        t, c = np.concatenate(all_times), np.concatenate(all_cached)
        print(f"| **all explorers** | {np.median(t) * 1e3:.1f} ms | "
              f"{np.percentile(t, 95) * 1e3:.1f} ms | {np.median(c) * 1e3:.1f} ms | |")


if __name__ == "__main__":
    main()
