"""Run every benchmark and print its table (``make bench``)."""

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).parent
ORDER = ["bench_rope.py", "bench_rope_dense.py", "bench_explorer.py", "bench_lab.py",
         "bench_pages.py"]

if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    for name in ORDER + sorted(p.name for p in HERE.glob("bench_*.py") if p.name not in ORDER):
        if (HERE / name).exists():
            print(f"\n## {name}")
            runpy.run_path(str(HERE / name), run_name="__main__")
