"""RoPE two ways: the dense block-diagonal matrices R(pos) @ x against the element-wise form.

For a (seq, d) float64 array of queries, times

* ``rope.apply_dense``: build the (seq, d, d) matrices and multiply (what the formula says);
* ``R @ x`` alone, with the matrices built beforehand (the best case for the dense form);
* ``rope.apply``: rotate the pairs element-wise, never building a matrix,

and prints a table with the median and 95th percentile of each, and the speed-up of the
element-wise form over the dense matrix product.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _timing import header, measure, row  # noqa: E402

from posenc_lib.maths import rope  # noqa: E402


def compare(seq: int = 1024, d: int = 128, repeats: int = 15) -> dict[str, np.ndarray]:
    """Seconds per call of the three variants on a seeded ``(seq, d)`` array."""
    x = np.random.default_rng(0).standard_normal((seq, d))
    pos = np.arange(seq, dtype=np.float64)
    mats = rope.dense_matrices(pos, d)
    assert np.allclose(rope.apply_dense(x), rope.apply(x))
    return {
        "dense: build R(pos) and multiply": measure(lambda: rope.apply_dense(x), repeats),
        "dense: multiply only (R prebuilt)": measure(
            lambda: np.einsum("lij,lj->li", mats, x), repeats),
        "element-wise rope.apply": measure(lambda: rope.apply(x), repeats),
    }


def main(repeats: int = 15) -> None:
    for seq, d in ((1024, 64), (1024, 128), (4096, 128)):
        times = compare(seq, d, repeats)
        fast = np.median(times["element-wise rope.apply"])
        print(header(f"RoPE on one head, x float64 ({seq}, {d})", "time / element-wise"))
        for name, t in times.items():
            print(row(name, t, extra=f"{np.median(t) / fast:.1f}x"))


if __name__ == "__main__":
    main()
