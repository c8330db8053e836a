"""Benchmark: the local engine on Adult (8 quasi-identifiers, tree posets from the ARX hierarchies).

Prints, per case, the ``seconds`` field of ``workbench run --json`` (the algorithm's own time), the whole
run's wall time and the peak memory (max RSS) of the process, each case in a fresh process.
Targets (issue #4): partition <= 5 s and greedy <= 60 s on Adult (30,162 rows, k = 10); greedy_overlapping
on 5,000 rows <= 60 s.
Run: .venv/bin/python tests/benchmarks/bench_local.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASES = [("partition", 10, None, 5), ("greedy", 10, None, 60), ("greedy_overlapping", 10, 5000, 60)]


def one(algorithm: str, k: int, rows: int | None) -> dict[str, float]:
    code = (
        "import json, resource, sys, time\n"
        "from workbench.cli import main\n"
        "t = time.perf_counter()\n"
        f"args = ['run', {str(ROOT / 'sample_configs' / 'adult.toml')!r}, '--json', '--set', 'engine.kind=local',"
        f" '--set', 'engine.algorithm={algorithm}', '--set', 'engine.objective=vinterbo', '--set', 'privacy.k={k}']\n"
        + (f"args += ['--set', 'data.rows={rows}']\n" if rows else "")
        + "main(args)\n"
        "print(json.dumps({'wall': time.perf_counter() - t,"
        " 'rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    summary = json.loads(proc.stdout)
    extra = json.loads(proc.stderr.strip().splitlines()[-1])
    return {"seconds": summary["seconds"], "k_anonymous": summary["k_anonymous"], **extra}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'algorithm':<19} {'k':>3} {'rows':>6} {'seconds (median)':>17} {'wall s':>7} {'peak MB':>8}  target")
    for algorithm, k, rows, target in CASES:
        start = time.perf_counter()
        runs = [one(algorithm, k, rows) for _ in range(args.repeats)]
        secs = statistics.median(r["seconds"] for r in runs)
        wall = statistics.median(r["wall"] for r in runs)
        print(f"{algorithm:<19} {k:>3} {rows or 30162:>6} {secs:>17.2f} {wall:>7.2f} "
              f"{max(r['rss_mb'] for r in runs):>8.0f}  <= {target} s  ({time.perf_counter() - start:.0f} s total)")


if __name__ == "__main__":
    main()
