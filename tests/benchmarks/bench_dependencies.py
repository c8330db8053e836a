"""Benchmark: how far the dependency guard gets on a large table, alone and for combinations of released columns.

A table of ``--rows`` random people (age 0-99 in 5/10/20/40-year intervals, a five-digit zip code of 1,000 values
masked digit by digit, sex: three quasi-identifiers) and R released columns, R in ``--columns``: in turn a code
of 3, 10, 50 or 200 values, a whole number 0-59, a text code of 20 values, and a whole number of a million values
(near-unique, so left out of the dependencies but not of the formulas). Two of them are planted: ``years`` and
``more_years`` with age = years + more_years + 6 in all rows but 0.5 %. For each R it prints, as medians of
``--runs`` runs, in seconds: the exact single-column guard (``determinations``), the combined search without a
budget up to pairs (wall clock and CPU) and up to triples (only while ``--triples-up-to`` columns or fewer: they
take long), and the search with its default budget (``BUDGET_SECONDS``): how long, how many pairs and triples it
checked, and the formulas it found (the planted one in every run). The machine is shared: the load average is
printed; compare medians of several invocations.
Run: .venv/bin/python tests/benchmarks/bench_dependencies.py [--rows 300000] [--runs 3] [--columns 4,8,12,16,24,32]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from workbench.data import Dataset  # noqa: E402
from workbench.hierarchy.builders import masking  # noqa: E402
from workbench.hierarchy.intervals import intervals  # noqa: E402
from workbench.risk.dependencies import (  # noqa: E402
    BUDGET_SECONDS,
    RELEASED_ROLES,
    CombinedSearch,
    _codes,
    combined_determinations,
    determinations,
)


def table(rows: int, columns: int, seed: int = 0) -> Dataset:
    """The benchmark's table with ``columns`` released columns (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 100, rows)
    frame: dict[str, np.ndarray] = {"age": age.astype(str), "zip": rng.integers(10000, 11000, rows).astype(str),
                                    "sex": rng.choice(["F", "M"], rows)}
    years = np.minimum(age, rng.integers(0, 19, rows))
    more = age - years - 6
    more[rng.random(rows) < 0.005] += 1
    planted = {"years": years, "more_years": more}
    names = list(planted)[:columns]
    for name in names:
        frame[name] = planted[name].astype(str)
    for i in range(columns - len(names)):
        kind = i % 4
        if kind == 0:
            values = rng.integers(0, [3, 10, 50, 200][i // 4 % 4], rows).astype(str)
        elif kind == 1:
            values = rng.integers(0, 60, rows).astype(str)
        elif kind == 2:
            values = np.array([f"c{x}" for x in range(20)])[rng.integers(0, 20, rows)]
        else:
            values = rng.integers(0, 10**6, rows).astype(str)
        frame[f"x{i}"] = values
    data = pd.DataFrame(frame)
    hierarchies = {"age": intervals(data["age"], [5, 10, 20, 40]), "zip": masking(data["zip"]),
                   "sex": masking(data["sex"])}
    return Dataset.create(data, {"age": "quasi", "zip": "quasi", "sex": "quasi"}, hierarchies)


def median_time(fn: Callable[[], object], runs: int) -> tuple[float, float, list[object]]:
    """Median wall-clock and CPU seconds of ``runs`` calls, and what each call returned."""
    wall, cpu, outs = [], [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        outs.append(fn())
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), outs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--columns", default="4,8,12,16,24,32")
    parser.add_argument("--triples-up-to", type=int, default=16)
    args = parser.parse_args()
    print(f"{args.rows:,} rows, 3 quasi-identifiers; medians of {args.runs} runs; load average "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores")
    print(f"{'R':>3} {'exact':>6} {'pairs':>6} {'(cpu)':>6} {'triples':>8} | within {BUDGET_SECONDS:g} s: "
          f"{'wall':>5} {'pairs':>9} {'triples':>11}  formula found")
    for r in (int(x) for x in args.columns.split(",")):
        ds = table(args.rows, r)
        codes = {c: _codes(ds, c) for c, role in ds.roles.items() if role in RELEASED_ROLES}
        exact, _, known = median_time(partial(determinations, ds, codes), args.runs)
        search = partial(combined_determinations, ds, known=known[0], codes=codes)
        pairs, pairs_cpu, _ = median_time(partial(search, budget=float("inf"), max_columns=2), args.runs)
        triples = (f"{median_time(partial(search, budget=float('inf')), args.runs)[0]:8.2f}"
                   if r <= args.triples_up_to else f"{'-':>8}")
        budgeted, _, found = median_time(search, args.runs)
        assert all(isinstance(f, CombinedSearch) for f in found)
        checked = [statistics.median(f.checked[s] for f in found) for s in (1, 2)]  # type: ignore[attr-defined]
        total = found[0].total  # type: ignore[attr-defined]
        formulas = {x.formula() for f in found for x in f.relations if x.kind == "formula"}  # type: ignore[attr-defined]
        print(f"{r:>3} {exact:6.2f} {pairs:6.2f} {pairs_cpu:6.2f} {triples} | {' ' * 10}{budgeted:5.2f} "
              f"{checked[0]:>4g}/{total[1]:<4} {checked[1]:>5g}/{total[2]:<5}  {', '.join(sorted(formulas)) or '-'}",
              flush=True)

if __name__ == "__main__":
    main()
