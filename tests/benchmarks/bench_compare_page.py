"""Benchmark: what the Compare page computes on its first load on the embedded registry (20,000 records,
6 quasi-identifiers, 3,600 lattice nodes, target ``high_cost``), stage by stage.

The config is the one the page builds (``Source.study(k=5)``: every measure, entropy objective, no
suppression). Prints the median (and min/max) wall time of ``--runs`` runs per stage. The machine is noisy:
quote medians. To compare with an older commit, run this script with that commit's tree on PYTHONPATH, e.g.
``git archive OLD | tar -x -C /tmp/old && PYTHONPATH=/tmp/old .venv/bin/python tests/benchmarks/bench_compare_page.py``.
``--app`` also drives the page itself (streamlit.testing AppTest, in process: server-side time, no browser):
the first load, then each interaction switched to a new value and back (``--runs`` rounded up to even switches;
the first switch may compute, the later ones hit the cache); it prints the first and the median time per
interaction. Each interaction ends on the page's default, so the next starts from the default page.
Run: .venv/bin/python tests/benchmarks/bench_compare_page.py [--runs 5] [--stages candidates,lattice] [--app]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests._app import goto  # noqa: E402
from workbench import compare  # noqa: E402
from workbench.compare.nodes import lattice_candidates  # noqa: E402
from workbench.study import load_dataset  # noqa: E402
from workbench.ui.memo import clear  # noqa: E402
from workbench.ui.source import Source  # noqa: E402


def _timed(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def app_interactions(runs: int) -> None:
    """Time the Compare page's first load and its interactions on the registry (AppTest, fresh caches)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest


    clear()
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=600).run()
    at.selectbox(key="dataset").select("registry").run()
    start = time.perf_counter()
    goto(at, "Compare").run()
    print(f"{'page: first load (both engines)':<40} {time.perf_counter() - start:9.3f}", flush=True)
    assert not at.exception, at.exception

    def widget(kind: str, key: str) -> object:
        return getattr(at, kind)(key=key)

    interactions = [
        ("x measure", "selectbox", "cmp_x", "select", ["dm_star", "loss"]),
        ("y measure", "selectbox", "cmp_y", "select", ["entropy", "nmi"]),
        ("side-by-side objective", "selectbox", "cmp_objective", "select", ["loss", "entropy"]),
        ("suppression limit 2 % / 0 %", "number_input", "cmp_sup", "set_value", [2.0, 0.0]),
        ("candidates all / k_minimal", "selectbox", "cmp_cand", "select", ["all", "k_minimal"]),
        ("local releases off / on", "toggle", "cmp_local", "set_value", [False, True]),
        ("sweep on / off (k=2,5,10,20)", "toggle", "cmp_sweep_on", "set_value", [True, False]),
    ]
    print(f"{'interaction':<40} {'first s':>9} {'median s':>9}")
    for label, kind, key, method, values in interactions:
        times = []
        try:
            widget(kind, key)
        except KeyError:  # an older page without this control
            print(f"{label:<40} {'n/a':>9}")
            continue
        for i in range(2 * ((runs + 1) // 2)):  # an even number of switches: back at the default at the end
            start = time.perf_counter()
            getattr(widget(kind, key), method)(values[i % 2]).run()
            times.append(time.perf_counter() - start)
            assert not at.exception, at.exception
        print(f"{label:<40} {times[0]:9.3f} {statistics.median(times):9.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--stages", default="", help="comma-separated stages: load, candidates, lattice, local, "
                        "first_load, sweep (default: all)")
    parser.add_argument("--app", action="store_true", help="also time the page's interactions (AppTest)")
    args = parser.parse_args()
    source = Source(label="registry", sample="registry", target="high_cost")
    study = source.study(k=5)
    dataset = load_dataset(study)
    local = getattr(compare, "local_solutions", None)

    def local_rows() -> object:
        if local is not None:  # this version: one shared local problem for both algorithms
            return local(study, dataset, ("greedy", "partition"))
        from workbench.study import run  # older versions: one full run per algorithm

        return [run(compare._local_study(study, a), dataset) for a in ("greedy", "partition")]

    stages: dict[str, tuple[str, Callable[[], object]]] = {
        "load": ("load the dataset", lambda: load_dataset(study)),
        "candidates": ("k-minimal candidates", lambda: lattice_candidates(study, dataset, "k_minimal")),
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
    if args.app:
        app_interactions(args.runs)


if __name__ == "__main__":
    main()
