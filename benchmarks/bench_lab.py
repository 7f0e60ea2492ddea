"""Time the lab's blessed training runs: every position scheme on every task.

For each (task, position) this trains ``default_config(position, task)`` with
``default_training(task)`` ``--repeats`` times (seeds 0, 1, ...) and reports the median and
95th-percentile wall-clock seconds of a full training run, the time to evaluate at length 256,
and, as a sanity check, the accuracy at the training length. The chapter's budget is 20 s per
training run on a 2-core machine; rows over budget are flagged.

    python benchmarks/bench_lab.py                      # everything, 3 repeats
    python benchmarks/bench_lab.py --repeats 1 --tasks copy_back --positions rope alibi
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from posenc_lib import lab  # noqa: E402

BUDGET_S = 20.0
EVAL_LENGTH = 256


def bench(task_name: str, position: str, repeats: int, n_eval: int) -> dict:
    config = lab.default_config(position, task_name)
    training = lab.default_training(task_name)
    seconds, accuracies = [], []
    result = None
    for seed in range(repeats):
        result = lab.train(config, task_name, seed=seed, progress=False, **training)
        seconds.append(result.seconds)
        accuracies.append(lab.evaluate(result.params, config, task_name,
                                       length=training["length"], n_sequences=n_eval))
    start = time.perf_counter()
    try:
        acc_long = lab.evaluate(result.params, config, task_name, length=EVAL_LENGTH,
                                n_sequences=n_eval)
        eval_s = time.perf_counter() - start
    except ValueError:  # a learned table has no rows that far
        acc_long, eval_s = float("nan"), float("nan")
    return {
        "median": float(np.median(seconds)),
        "p95": float(np.percentile(seconds, 95)),
        "eval": eval_s,
        "acc": float(np.mean(accuracies)),
        "acc_long": acc_long,
        "steps": training["steps"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", nargs="+", default=list(lab.TASKS), choices=list(lab.TASKS))
    parser.add_argument("--positions", nargs="+", default=list(lab.POSITIONS),
                        choices=list(lab.POSITIONS))
    parser.add_argument("--n-eval", type=int, default=256,
                        help="sequences per evaluation (default 256, what the chapter uses)")
    args = parser.parse_args(argv)

    header = (f"{'task':13s} {'position':11s} {'steps':>5s} {'median s':>9s} {'p95 s':>7s} "
              f"{'eval@256 s':>10s} {'acc@train':>9s} {'acc@256':>8s}")
    print(f"{args.repeats} repeat(s) per row; budget {BUDGET_S:.0f} s per training run\n")
    print(header)
    print("-" * len(header))
    over = 0
    for task_name in args.tasks:
        for position in args.positions:
            r = bench(task_name, position, args.repeats, args.n_eval)
            flag = "  OVER BUDGET" if r["p95"] > BUDGET_S else ""
            over += bool(flag)
            eval_s = "n/a" if np.isnan(r["eval"]) else f"{r['eval']:.2f}"
            acc_long = "n/a" if np.isnan(r["acc_long"]) else f"{r['acc_long']:.3f}"
            print(f"{task_name:13s} {position:11s} {r['steps']:5d} {r['median']:9.2f} "
                  f"{r['p95']:7.2f} {eval_s:>10s} {r['acc']:9.3f} {acc_long:>8s}{flag}",
                  flush=True)
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
