"""rope.apply on a (4, 32, 2048, 128) float32 array against a plain copy of the same array.

Targets (issue 3): interleaved <= 4x and rotate-half <= 10x the time of ``np.copyto``, and the
output stays float32.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import header, measure, row  # noqa: E402

from posenc_lib.maths import rope  # noqa: E402


def main(repeats: int = 9) -> None:
    x = np.random.default_rng(0).standard_normal((4, 32, 2048, 128)).astype(np.float32)
    dst = np.empty_like(x)
    copy = measure(lambda: np.copyto(dst, x), repeats)
    print(header("rope.apply, x float32 (4, 32, 2048, 128) = 128 MiB", "x copy time (median)"))
    print(row("np.copyto (baseline)", copy, extra="1.0x"))
    for pairing in ("interleaved", "half"):
        y = rope.apply(x, pairing=pairing)
        assert y.dtype == np.float32, y.dtype
        t = measure(lambda pairing=pairing: rope.apply(x, pairing=pairing), repeats)
        print(row(f"rope.apply pairing={pairing!r}", t,
                  extra=f"{np.median(t) / np.median(copy):.2f}x, output {y.dtype}"))


if __name__ == "__main__":
    main()
