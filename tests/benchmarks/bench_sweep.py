"""Benchmark: ``workbench compare`` on Adult (sample_configs/adult.toml, 30,162 records, 8 quasi-identifiers) over a
sweep of k and suppression limits, sequentially and with ``--jobs 2`` on each local sweep backend (docs/performance.md,
"Parallel sweeps"). Each run is the whole command in a fresh process (start-up, loading, the sweep, the optima, the
tables written to a temporary folder); prints the median (min-max) wall time of ``--runs`` runs per mode, the ratio
to the sequential median, the median CPU time (the worker processes included: what parallelism costs in work), and
checks every mode wrote the same solutions.csv.

    PYTHONPATH=. .venv/bin/python tests/benchmarks/bench_sweep.py [--runs 3] [--k 2,5,10,25] [--max-suppression 0,0.02]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "sample_configs" / "adult.toml"
MODES = {"sequential": [], "jobs=2 loky": ["--jobs", "2"],
         "jobs=2 threading": ["--jobs", "2", "--set", 'engine.sweep_backend="threading"']}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the finished command and its (joined) workers
    return usage.ru_utime + usage.ru_stime


def _run(args: list[str], out: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the command's worker processes included) of one command."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run([sys.executable, "-m", "workbench", "compare", str(CONFIG), *args, "--out", str(out)], check=True,
                   env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, _cpu() - cpu


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--k", default="2,5,10,25")
    p.add_argument("--max-suppression", default="0,0.02")
    a = p.parse_args()
    sweep = ["--k", a.k, "--max-suppression", a.max_suppression]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"workbench compare adult.toml --k {a.k} --max-suppression {a.max_suppression}; {a.runs} runs each; "
          f"load average before {os.getloadavg()[0]:.2f}")
    times: dict[str, list[float]] = {m: [] for m in MODES}
    cpus: dict[str, list[float]] = {m: [] for m in MODES}
    written: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(a.runs):  # modes interleaved, so a change in the machine's load touches all alike
            for mode, extra in MODES.items():
                out = Path(tmp) / f"{mode.replace(' ', '_')}_{run}"
                wall, cpu = _run(sweep + extra, out)
                times[mode].append(wall)
                cpus[mode].append(cpu)
                written.setdefault(mode, (out / "solutions.csv").read_bytes())
                assert (out / "solutions.csv").read_bytes() == written["sequential"], f"{mode}: another table"
    base = statistics.median(times["sequential"])
    for mode, values in times.items():
        median = statistics.median(values)
        print(f"{mode:<18} {median:8.2f} s  ({min(values):.2f}-{max(values):.2f})  speed-up {base / median:4.2f}x  "
              f"CPU {statistics.median(cpus[mode]):6.2f} s")
    print(f"solutions.csv identical in every mode; load average after {os.getloadavg()[0]:.2f} (other jobs on the "
          "machine take cores from the parallel modes first)")


if __name__ == "__main__":
    main()
