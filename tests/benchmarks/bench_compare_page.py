"""Benchmark: what the Compare page computes on its first load on the embedded registry (20,000 records,
6 quasi-identifiers, 3,600 lattice nodes, target ``high_cost``), stage by stage.

The config is the one the page builds (``Source.config_json(k=5)``: every measure, entropy objective, no
suppression). Prints the median (and min/max) wall time of ``--runs`` runs per stage. The machine is noisy:
quote medians. To compare with an older commit, run this script with that commit's tree on PYTHONPATH, e.g.
``git archive OLD | tar -x -C /tmp/old && PYTHONPATH=/tmp/old .venv/bin/python tests/benchmarks/bench_compare_page.py``.
Run: .venv/bin/python tests/benchmarks/bench_compare_page.py [--runs 5] [--stages candidates,lattice]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable

from workbench import compare
from workbench.config import study_from_dict
from workbench.study import load_dataset
from workbench.ui.source import Source


def _timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--stages", default="", help="comma-separated stages: load, candidates, lattice, local, "
                        "first_load, sweep (default: all)")
    args = parser.parse_args()
    source = Source(label="registry", sample="registry", target="high_cost")
    study = study_from_dict(json.loads(source.config_json(k=5)))
    dataset = load_dataset(study)
    local = getattr(compare, "local_solutions", None)

    def local_rows() -> object:
        if local is not None:  # this version: one shared local problem for both algorithms
            return local(study, dataset, ("greedy", "partition"))
        from workbench.study import run  # older versions: one full run per algorithm

        return [run(compare._local_study(study, a), dataset) for a in ("greedy", "partition")]

    stages: dict[str, tuple[str, Callable[[], object]]] = {
        "load": ("load the dataset", lambda: load_dataset(study)),
        "candidates": ("k-minimal candidates", lambda: compare.lattice_candidates(study, dataset, "k_minimal")),
        "lattice": ("lattice rows (solutions, no local)", lambda: compare.solutions(study, dataset,
                                                                                   local_algorithms=())),
        "local": ("local rows (greedy + partition)", local_rows),
        "first_load": ("first load (solutions, both engines)", lambda: compare.solutions(study, dataset)),
        "sweep": ("sweep k=2,5,10,20 (lattice only)", lambda: compare.sweep(study, dataset, [2, 5, 10, 20],
                                                                            local_algorithms=())),
    }
    chosen = [s.strip() for s in args.stages.split(",") if s.strip()] or list(stages)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"compare from {compare.__file__}")
    print(f"registry: {dataset.n} records, {len(dataset.quasi_identifiers)} quasi-identifiers, k = {study.k}, "
          f"{len(study.compare)} measures; {args.runs} runs per stage")
    print(f"{'stage':<40} {'median s':>9} {'min s':>7} {'max s':>7}")
    for name in chosen:
        label, fn = stages[name]
        times = _timed(fn, args.runs)
        print(f"{label:<40} {statistics.median(times):9.3f} {min(times):7.3f} {max(times):7.3f}", flush=True)


if __name__ == "__main__":
    main()
