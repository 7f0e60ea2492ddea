"""Time the real-text chapter's training runs: one character language model per scheme.

Trains ``textlm.lm_config(position)`` with ``textlm.LM_TRAINING`` from scratch (the store is
not used) ``--repeats`` times (seeds 0, 1, ...) and reports the median and 95th-percentile
wall-clock seconds, and the time of one perplexity evaluation at 1024 characters (both
protocols). The budget is 60 s per language model on a 2-core machine; rows over it are flagged.

    python benchmarks/bench_textlm.py                  # every scheme, 1 repeat
    python benchmarks/bench_textlm.py --repeats 3 --positions rope alibi
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from posenc_lib import lab  # noqa: E402
from posenc_lib.lab import textlm  # noqa: E402

BUDGET_S = 60.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--positions", nargs="+", default=list(lab.POSITIONS),
                        choices=list(lab.POSITIONS))
    args = parser.parse_args(argv)
    print(f"{'scheme':11s} {'train median':>12s} {'p95':>7s} {'eval@1024':>10s}  budget")
    for p in args.positions:
        config = textlm.lm_config(p)
        seconds = []
        result = None
        for seed in range(args.repeats):
            result = lab.train(config, textlm.TextTask(), seed=seed, progress=False,
                               **textlm.LM_TRAINING)
            seconds.append(result.seconds)
        start = time.perf_counter()
        textlm.nonoverlapping_nll(result.params, config, length=1024,
                                  n_tokens=textlm.NONOVERLAP_TOKENS)
        textlm.sliding_nll(result.params, config, length=1024, stride=textlm.LM_LENGTH,
                           n_scored=textlm.SLIDING_SCORED, offset=textlm.SLIDING_OFFSET)
        eval_s = time.perf_counter() - start
        med, p95 = float(np.median(seconds)), float(np.percentile(seconds, 95))
        flag = "ok" if p95 <= BUDGET_S else "OVER"
        print(f"{p:11s} {med:11.1f}s {p95:6.1f}s {eval_s:9.1f}s  {flag}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
