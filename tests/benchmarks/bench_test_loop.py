"""Benchmark: the fast test loop (what ``make test-fast`` runs after ruff: pytest on both cores, ``-m "not slow"``),
timed as a whole, ``--runs`` times in a row. The first run may compile the test modules' bytecode (pytest caches the
modules it rewrote for their asserts, as the Makefile lets it even where ``PYTHONDONTWRITEBYTECODE`` is set); the
later ones find it. Target: under two minutes on 2 cores. Prints each run's wall time, the median, and the load.
Run: .venv/bin/python tests/benchmarks/bench_test_loop.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMAND = [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "worksteal", "-m", "not slow",
           "-p", "no:cacheprovider"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}")
    seconds = []
    for run in range(1, args.runs + 1):
        load = os.getloadavg()[0]
        start = time.perf_counter()
        done = subprocess.run(COMMAND, cwd=ROOT, env=env, capture_output=True, text=True)
        seconds.append(time.perf_counter() - start)
        tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
        print(f"run {run}: {seconds[-1]:6.1f} s (load {load:.1f} at its start; exit {done.returncode}): {tail}")
    print(f"median {statistics.median(seconds):.1f} s over {len(seconds)} runs; target 120 s")


if __name__ == "__main__":
    main()
