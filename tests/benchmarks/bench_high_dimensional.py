"""Benchmark: Flash on high-dimensional lattices, the embedded synthetic survey (``workbench/samples/survey.py``:
64,600 records, its first q of 16 demographic columns as quasi-identifiers), k = 5, 1 % suppression, ARX's loss.

Prints per number of quasi-identifiers: lattice nodes, checks, search time (median of the repeats, wall clock and
CPU time of this process), peak memory of the search (tracemalloc, one extra run), the node and its loss, and
whether the optimum is proven. Each run uses a fresh evaluator (the bottom frequency set built beforehand, as
ARX's timings exclude encoding the data), as ``workbench run`` does. On a busy machine the CPU time is the steadier
figure: wall clock grows with the other processes' load.
Run: .venv/bin/python tests/benchmarks/bench_high_dimensional.py [--qis 6,8,10,11,12] [--repeats 3]
     [--objective loss] [--time-limit 3600]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from workbench.config import study_from_dict  # noqa: E402
from workbench.lattice.search import ALGORITHMS
from workbench.lattice.search.result import Limits
from workbench.lattice.tagging import TaggedLattice  # noqa: E402
from workbench.objective import NodeScorer  # noqa: E402
from workbench.policy import lattice_size  # noqa: E402
from workbench.samples import survey  # noqa: E402
from workbench.study import evaluator_for, load_dataset  # noqa: E402


def study_for(qis: int, objective: str, algorithm: str):
    return study_from_dict({
        "data": {"sample": "survey"},
        "attributes": {c: {"role": "quasi" if i < qis else "insensitive"} for i, c in enumerate(survey.COLUMNS)},
        "privacy": {"k": 5, "max_suppression": 0.01},
        "engine": {"kind": "lattice", "algorithm": algorithm, "objective": objective, "allow_non_monotone": True},
    })


def one_run(study, dataset, algorithm: str, time_limit: float):
    """A search as ``study.search`` runs it (bound pruning on), on a fresh evaluator: (result, wall s, CPU s)."""
    evaluator = evaluator_for(study, dataset)
    objective = NodeScorer(evaluator).objective(study.objective)
    wall, cpu = time.perf_counter(), time.process_time()
    result = ALGORITHMS[algorithm].search(TaggedLattice(evaluator), objective, Limits(time_limit, prune=True))
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--qis", default="6,8,10,11,12")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--objective", default="loss")
    parser.add_argument("--algorithm", default="flash")
    parser.add_argument("--time-limit", type=float, default=3600.0)
    parser.add_argument("--no-memory", action="store_true", help="skip the traced run that measures peak memory")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}, load average {os.getloadavg()[0]:.1f}")
    print(f"survey sample: {survey.N:,} records; k = 5, max_suppression = 0.01, objective {args.objective}, "
          f"{args.algorithm}, {args.repeats} runs each")
    print(f"{'QIs':>3} {'nodes':>10} {'checks':>7} {'median s':>9} {'CPU s':>7} {'peak MB':>8}  {'proven':<6} "
          f"{'loss':>10}  node")
    for q in (int(x) for x in args.qis.split(",")):
        study = study_for(q, args.objective, args.algorithm)
        dataset = load_dataset(study)
        runs = [one_run(study, dataset, args.algorithm, args.time_limit) for _ in range(args.repeats)]
        peak = float("nan")
        if not args.no_memory:
            tracemalloc.start()
            one_run(study, dataset, args.algorithm, args.time_limit)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        result = runs[0][0]
        print(f"{q:>3} {lattice_size(dataset):>10,} {result.checks:>7,} "
              f"{statistics.median(r[1] for r in runs):>9.2f} {statistics.median(r[2] for r in runs):>7.2f} "
              f"{peak:>8.0f}  {'yes' if result.proven_optimal else 'no':<6} {result.value:>10.6f}  {result.optimum}",
              flush=True)


if __name__ == "__main__":
    main()
