"""Benchmark: lattice node evaluation on Adult (8 quasi-identifiers, k = 5, 0 %).

Prints the median time to evaluate one node from scratch (frequency set from the data, suppression and
k-anonymity), and to evaluate all 4,320 nodes with all nine lattice measures (the exhaustive table), with its CPU
time and the machine's load average (on a shared machine the wall time grows with the other jobs' load).
Targets: one node <= 2 ms; all nodes with nine measures <= 0.5 s.
Run: .venv/bin/python tests/benchmarks/bench_lattice.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from workbench.config import load_study  # noqa: E402
from workbench.lattice.evaluate import NodeEvaluator  # noqa: E402
from workbench.study import load_dataset  # noqa: E402
from workbench.views.lattice import lattice_table  # noqa: E402

ARX_MEASURES = ["height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy", "entropy_nm", "loss"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    study = load_study(ROOT / "sample_configs" / "adult.toml")
    dataset = load_dataset(study)
    columns = dataset.encoded
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}")
    print(f"Adult: {dataset.n} records, {len(columns)} quasi-identifiers")

    # one node: (a) grouping all records directly, (b) rolled up from the bottom frequency set
    rng = np.random.default_rng(0)
    base = NodeEvaluator(columns, study.k, study.max_suppression)
    nodes = list(base.lattice.nodes())
    direct, rolled = [], []
    for _ in range(200):
        node = nodes[rng.integers(len(nodes))]
        t = time.perf_counter()
        base.direct(node).suppressed(study.k)
        direct.append(time.perf_counter() - t)
        ev = NodeEvaluator(columns, study.k, study.max_suppression)
        t = time.perf_counter()
        ev.evaluate(node)
        rolled.append(time.perf_counter() - t)
    print(f"one node from the {dataset.n} records: median {statistics.median(direct) * 1e3:.3f} ms; "
          f"rolled up from the bottom frequency set: median {statistics.median(rolled) * 1e3:.3f} ms "
          f"(200 random nodes; target <= 2 ms)")

    times, cpu = [], []
    for _ in range(args.repeats):
        ev = NodeEvaluator(columns, study.k, study.max_suppression)
        t, c = time.perf_counter(), time.process_time()
        table = lattice_table(ev, ARX_MEASURES)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    n_measures = len(table.columns) - len(columns) - 5  # node label, levels, rank, classes, suppressed, k-anon.
    print(f"all {len(table)} nodes with {n_measures} measures: median "
          f"{statistics.median(times):.3f} s over {args.repeats} runs "
          f"(min {min(times):.3f}, max {max(times):.3f}; target <= 0.5 s); CPU time median "
          f"{statistics.median(cpu):.3f} s (what other jobs on the machine do not inflate); "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"k-anonymous nodes: {int(table.k_anonymous.sum())}")


if __name__ == "__main__":
    main()
