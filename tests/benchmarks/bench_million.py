"""Benchmark: `workbench run CONFIG --out DIR` end to end on a million records.

The embedded Adult (8 quasi-identifiers, as sample_configs/adult.toml, k = 5, no suppression, Flash, objective
entropy, the nine lattice measures) is replicated to N records (default 1,000,000) and written once as CSV and
Parquet with ARX's hierarchy files beside them. Each run is a fresh process; its wall time and peak RSS (the
child's own ``ru_maxrss`` from ``os.wait4``) are printed next to the targets (<= 30 s and <= 2 GB for a million
records), medians of N runs. ``--profile`` then times the run's phases in this process (loading, encoding, the
bottom frequency set, search, release, scoring, verification, risk, writing) and ``--cprofile FILE`` writes
cProfile's 40 most expensive calls by cumulative time.

Run: .venv/bin/python tests/benchmarks/bench_million.py [--records N] [--repeats 3] [--formats csv,parquet]
     [--set engine.algorithm=flash] [--profile] [--cprofile FILE] [--data-dir DIR]
Ten million records out of core (docs/scale.md): --records 10000000 --formats parquet --set engine.backend=duckdb
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

WALL_TARGET_S = {1_000_000: 30.0, 10_000_000: 300.0}
RSS_TARGET_MB = {1_000_000: 2048.0}
QUASI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class")
MEASURES = ["height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy", "entropy_nm", "loss"]


def write_data(folder: Path, records: int, formats: list[str]) -> dict[str, Path]:
    """Adult replicated to ``records`` rows as CSV and/or Parquet, its hierarchy files, and one config per format
    (kept when they exist already). Returns format -> config path."""
    import pandas as pd

    from workbench.samples import adult

    folder.mkdir(parents=True, exist_ok=True)
    hierarchies = folder / "hierarchies"
    hierarchies.mkdir(exist_ok=True)
    for attribute in QUASI:
        target = hierarchies / f"{attribute}.csv"
        if not target.exists():
            with adult.resources.as_file(adult._FOLDER / f"adult_hierarchy_{attribute}.csv") as path:
                shutil.copyfile(path, target)
    frame = None
    configs = {}
    for fmt in formats:
        data = folder / f"adult_{records}.{fmt}"
        if not data.exists():
            if frame is None:
                base = adult.build(8)[0]
                reps = -(-records // len(base))
                frame = pd.concat([base] * reps, ignore_index=True).iloc[:records]
            partial = data.with_suffix(".partial")
            if fmt == "csv":
                frame.to_csv(partial, index=False)
            else:
                frame.to_parquet(partial, index=False, row_group_size=1_000_000)
            partial.rename(data)
        config = folder / f"adult_{records}_{fmt}.toml"
        lines = ["[data]", f'path = "{data.name}"', ""]
        for attribute in QUASI:
            lines += [f"[attributes.{attribute}]", 'role = "quasi"', f'hierarchy = "hierarchies/{attribute}.csv"', ""]
        lines += ["[attributes.occupation]", 'role = "insensitive"', "",
                  "[privacy]", "k = 5", "max_suppression = 0.0", "",
                  "[engine]", 'kind = "lattice"', 'algorithm = "flash"', 'objective = "entropy"', "",
                  "[measures]", "compare = [" + ", ".join(f'"{m}"' for m in MEASURES) + "]", ""]
        config.write_text("\n".join(lines), encoding="utf-8")
        configs[fmt] = config
    return configs


def run_once(config: Path, overrides: list[str], out: Path) -> tuple[float, float, str]:
    """One `workbench run CONFIG --out DIR --force` process: wall seconds, peak RSS in MB, its stdout."""
    command = [sys.executable, "-m", "workbench", "run", str(config), "--out", str(out), "--force"]
    for o in overrides:
        command += ["--set", o]
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = proc.communicate()  # waits for the child
    seconds = time.perf_counter() - start
    rss_mb = _peak_rss_mb(proc.pid)
    if proc.returncode != 0:
        raise SystemExit(f"workbench run failed ({proc.returncode}): {stderr.decode()[-2000:]}")
    return seconds, rss_mb, stdout.decode()


_RSS: dict[int, float] = {}


def _peak_rss_mb(pid: int) -> float:
    return _RSS.get(pid, float("nan"))


def _popen_wait4() -> None:
    """Make Popen reap its children with os.wait4, keeping each child's own peak RSS (ru_maxrss, KiB on Linux)."""
    original = subprocess.Popen._try_wait  # type: ignore[attr-defined]

    def _try_wait(self: subprocess.Popen, wait_flags: int) -> tuple[int, int]:  # type: ignore[type-arg]
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return original(self, wait_flags)
        if pid:
            _RSS[pid] = usage.ru_maxrss / 1024
        return pid, status

    subprocess.Popen._try_wait = _try_wait  # type: ignore[attr-defined]


def phases(config: Path, overrides: list[str], out: Path) -> list[tuple[str, float]]:
    """The run's phases in this process, as `workbench run --out` does them, with their seconds."""
    from workbench import study as study_mod
    from workbench.cli import _write_release
    from workbench.config import load_study
    from workbench.objective import score_release
    from workbench.privacy.build import admissibility_for
    from workbench.readers import read_table
    from workbench.release import Release
    from workbench.risk.dependencies import dependency_warnings

    timings: list[tuple[str, float]] = []

    def timed(name, fn):  # noqa: ANN001, ANN202
        start = time.perf_counter()
        value = fn()
        timings.append((name, time.perf_counter() - start))
        return value

    study = load_study(config, overrides)
    frame = timed("loading (read the file)", lambda: read_table(study.data_path, study.separator))
    hold = {}
    study_mod_read, study_mod.read_table = study_mod.read_table, lambda *a, **k: frame
    try:
        dataset = timed("dataset (roles, hierarchies, coverage)", lambda: study_mod.load_dataset(study))
    finally:
        study_mod.read_table = study_mod_read
    timed("encoding", lambda: dataset.encoded)
    evaluator = timed("bottom frequency set", lambda: study_mod.evaluator_for(study, dataset))
    hold["evaluator"] = evaluator
    result = timed("search (incl. its own bottom set)", lambda: study_mod.search(study, dataset))
    timings.append(("  of which search seconds", result.seconds))
    release = timed("release", lambda: Release.from_node(dataset, result.optimum, study.k, study.max_suppression,
                                                         study.algorithm, admissibility_for(study, dataset)))
    scores = timed("scoring", lambda: score_release(study, release))
    run = study_mod.RunResult(study, dataset, release, scores, result, result.checks, result.seconds)
    timed("verify (guarantee)", lambda: run.guarantee)
    timed("summary: classes", lambda: release.classes)
    timed("summary: risk", run.risk)
    timed("attribute measures", run.attribute_measures)
    timed("dependency warnings", lambda: dependency_warnings(dataset))
    timed("writing (table, shuffle, verify, CSV, fsync)", lambda: _write_release(run, out, force=True))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--formats", default="csv,parquet")
    parser.add_argument("--set", action="append", default=[], dest="overrides", metavar="SECTION.KEY=VALUE")
    parser.add_argument("--profile", action="store_true", help="time the phases in this process (first format)")
    parser.add_argument("--cprofile", type=Path, metavar="FILE", help="write cProfile's top calls of --profile")
    parser.add_argument("--no-runs", action="store_true", help="only --profile")
    parser.add_argument("--data-dir", type=Path, help="keep the data here (default: a temporary folder)")
    args = parser.parse_args()
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}, {time.strftime('%Y-%m-%d')}; load average {os.getloadavg()[0]:.1f}")
    temporary = None if args.data_dir else tempfile.mkdtemp(prefix="wb-million-")
    folder = args.data_dir or Path(temporary)
    try:
        start = time.perf_counter()
        configs = write_data(folder, args.records, formats)
        print(f"data: {args.records:,} records in {folder} ({time.perf_counter() - start:.1f} s to prepare)")
        wall_target = WALL_TARGET_S.get(args.records)
        rss_target = RSS_TARGET_MB.get(args.records)
        _popen_wait4()
        if not args.no_runs:
            for fmt, config in configs.items():
                walls, peaks = [], []
                for _ in range(args.repeats):
                    wall, peak, _ = run_once(config, args.overrides, folder / f"out_{fmt}")
                    walls.append(wall)
                    peaks.append(peak)
                print(f"{fmt:<8} wall median {statistics.median(walls):7.2f} s  (runs "
                      f"{', '.join(f'{w:.2f}' for w in walls)}; target <= {wall_target or '-'} s)   "
                      f"peak RSS median {statistics.median(peaks):7.0f} MB  (runs "
                      f"{', '.join(f'{p:.0f}' for p in peaks)}; target <= {rss_target or '-'} MB)")
        if args.profile or args.cprofile:
            config = configs[formats[0]]
            profiler = cProfile.Profile() if args.cprofile else None
            if profiler:
                profiler.enable()
            timings = phases(config, args.overrides, folder / "out_profile")
            if profiler:
                profiler.disable()
                text = io.StringIO()
                pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(40)
                args.cprofile.write_text(text.getvalue(), encoding="utf-8")
                print(f"cProfile written to {args.cprofile}")
            total = sum(s for name, s in timings if not name.startswith(" "))
            print(f"phases in one process ({formats[0]}), total {total:.2f} s:")
            for name, seconds in timings:
                print(f"  {name:<46} {seconds:8.3f} s")
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)


if __name__ == "__main__":
    main()
