"""Threads or processes for the app's heavy calls? Each call on the registry sample alone, then two at once in a
pool of two threads and in a pool of two processes (wall time, medians). Prints one line per call.

    PYTHONPATH=. python tests/benchmarks/bench_workers.py
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from workbench import compare
from workbench.compare.optima import lattice_optima
from workbench.study import evaluator_for, load_dataset
from workbench.ui.main import _sample_source
from workbench.views.lattice import lattice_table

SOURCE = _sample_source("registry")
_DATASETS: dict[str, object] = {}


def _study(study):
    key = f"{study.engine}"
    if key not in _DATASETS:
        _DATASETS[key] = load_dataset(study)
    return study, _DATASETS[key]


def node_table(k: int) -> float:
    """The Lattice page's node table (every node's measures)."""
    study, ds = _study(SOURCE.study(k=k, compare=[]))
    start = time.perf_counter()
    lattice_table(evaluator_for(study, ds))
    return time.perf_counter() - start


def lattice_rows(k: int) -> float:
    """The Compare page's lattice candidates and each measure's optimum."""
    study, ds = _study(SOURCE.study(k=k, max_suppression=0.0))
    start = time.perf_counter()
    compare.lattice_solutions(study, ds, "k_minimal")
    lattice_optima(study, ds)
    return time.perf_counter() - start


def local_rows(k: int) -> float:
    """The Compare page's local-engine releases (Greedy and Partition)."""
    study, ds = _study(SOURCE.study(k=k))
    start = time.perf_counter()
    compare.local_solutions(study, ds, ("greedy", "partition"))
    return time.perf_counter() - start


def _two_at_once(kind: type[Executor], fn, ks: tuple[int, int]) -> float:
    with kind(2) as pool:
        list(pool.map(fn, [4, 4]))  # warm the workers (imports, the dataset)
        start = time.perf_counter()
        list(pool.map(fn, ks))
        return time.perf_counter() - start


def main() -> None:
    for fn in (node_table, lattice_rows, local_rows):
        fn(4)
        alone = statistics.median(fn(k) for k in (5, 6, 7))
        threads = statistics.median(_two_at_once(ThreadPoolExecutor, fn, (6 + r, 8 + r)) for r in range(3))
        processes = statistics.median(_two_at_once(ProcessPoolExecutor, fn, (6 + r, 8 + r)) for r in range(3))
        print(f"{fn.__name__}: one alone {alone:.2f} s; two at once: 2 threads {threads:.2f} s, "
              f"2 processes {processes:.2f} s (wall; ideal on 2 free cores = one alone)", flush=True)


if __name__ == "__main__":
    main()
