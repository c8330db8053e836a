"""Benchmark: the Lattice page's first load and drill-down on the embedded registry (20,000 records, 3,600 nodes).

Prints the median of N runs (default 5) of each stage, before and after the speed-up: the pre-speed-up
``lattice_table``, ``hasse_layout`` and ``hasse_edges`` are read from git (commit BEFORE) when the history is
there. Stages: dataset load, search (flash, entropy), node table (every node, every lattice measure), Hasse
layout, Hasse edges, the chart's JSON (what the browser receives), and the drill-down (node_details,
node_diff). First load = search + table + layout + edges + chart (the dataset load is cached by the page).
The machine may be noisy: quote medians.
Run: .venv/bin/python tests/benchmarks/bench_lattice_page.py [--repeats N] [--no-before]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from workbench.study import evaluator_for, load_dataset, search  # noqa: E402
from workbench.ui import charts  # noqa: E402
from workbench.ui.source import Source  # noqa: E402
from workbench.views.lattice import lattice_overview, lattice_table  # noqa: E402
from workbench.views.node_details import node_details, node_diff  # noqa: E402

BEFORE = "e134748"  # the last commit before the Lattice page speed-up
EDGES = 1500  # the page draws every edge up to this many nodes (before and after)


def _old_module(path: str, name: str):
    """``path`` as it was at commit BEFORE, imported as module ``name`` (None without the git history)."""
    try:
        text = subprocess.run(["git", "show", f"{BEFORE}:{path}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    file = Path(tempfile.mkdtemp()) / f"{name}.py"
    file.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _median(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-before", action="store_true", help="skip the pre-speed-up implementations")
    args = parser.parse_args()
    source = Source("registry", sample="registry")
    study = source.study(k=5, max_suppression=0.02, algorithm="flash", objective="entropy", compare=[])
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.2f}, Python {platform.python_version()}, numpy {np.__version__}")
    r = args.repeats
    t_load, dataset = _median(lambda: load_dataset(study), r)
    names = dataset.quasi_identifiers
    print(f"registry: {dataset.n} records, {len(names)} quasi-identifiers; k = 5, 2 % suppression, flash on "
          f"entropy; median of {r} runs")
    t_search, _ = _median(lambda: search(study, dataset), r)

    def stages(table_fn, layout_fn, edges_fn, chart_fn) -> dict[str, float]:
        t_table, table = _median(table_fn, r)
        full, _ = lattice_overview(study, dataset, table=table)
        t_layout, nodes = _median(lambda: layout_fn(full, names), r)
        t_edges, edges = _median(lambda: edges_fn(nodes, names) if len(nodes) <= EDGES else None, r)
        t_chart, _ = _median(lambda: chart_fn(nodes, edges, "status").to_json(), r)
        return {"node table (all nodes, all lattice measures)": t_table, "hasse_layout": t_layout,
                f"hasse_edges (drawn up to {EDGES} nodes)": t_edges, "chart JSON": t_chart,
                "first load: search + table + layout + edges + chart": t_search + t_table + t_layout + t_edges
                + t_chart}

    after = stages(lambda: lattice_table(evaluator_for(study, dataset)), charts.hasse_layout, charts.hasse_edges,
                   charts.hasse_chart)
    before: dict[str, float] = {}
    if not args.no_before:
        old_study, old_charts = _old_module("workbench/study.py", "study_before"), _old_module(
            "workbench/ui/charts.py", "charts_before")
        if old_study is None or old_charts is None:
            print(f"(commit {BEFORE} not found: no 'before' column)")
        else:
            before = stages(lambda: old_study.lattice_table(evaluator_for(study, dataset)), old_charts.hasse_layout,
                            old_charts.hasse_edges, old_charts.hasse_chart)  # its JSON carried every column
    node = tuple(min(2, c.height) for c in dataset.encoded)
    top = tuple(c.height for c in dataset.encoded)
    t_details, _ = _median(lambda: node_details(study, dataset, node), r)
    t_diff, _ = _median(lambda: node_diff(study, dataset, node, top), r)

    print(f"{'stage':<62}{'before (s)':>12}{'after (s)':>12}")
    print(f"{'dataset load (cached by the page after the first run)':<62}{'':>12}{t_load:>12.3f}")
    print(f"{'search (flash)':<62}{'':>12}{t_search:>12.3f}")
    for stage, value in after.items():
        old = before.get(stage)
        print(f"{stage:<62}{(f'{old:.3f}' if old is not None else '-'):>12}{value:>12.3f}")
    print(f"{'node drill-down (node_details)':<62}{'(new)':>12}{t_details:>12.3f}")
    print(f"{'compare two nodes (node_diff)':<62}{'(new)':>12}{t_diff:>12.3f}")


if __name__ == "__main__":
    main()
