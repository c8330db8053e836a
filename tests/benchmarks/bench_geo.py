"""Benchmark: the geography engine on a generated province of 1,000 fine regions (about 550,000 records, Croft
et al. 2015's protocol: 400-700 people per region), region + sex + age + marital status as quasi-identifiers, k = 5.

Prints the median over the repeats of: preparing the problem (joining the records to the points), VBAS's
placement and nearest-site aggregation alone, VBAS's whole run (aggregation, equivalence classes, suppression:
the ``seconds`` of ``workbench geo``), the GeoLeader-like baseline's merging alone and its whole run at a
cut-off giving about as many regions. Target: VBAS's whole run within a few seconds.
Run: .venv/bin/python tests/benchmarks/bench_geo.py [--regions N] [--sites S] [--repeats N]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from workbench.data import Dataset
from workbench.geo import engine
from workbench.geo import scored as geography
from workbench.geo.points import points_from_frame
from workbench.samples import province


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--regions", type=int, default=1000)
    ap.add_argument("--sites", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    frame, points = province.generate(regions=args.regions, seed=2015)
    roles = {"region": "quasi", "sex": "quasi", "age": "quasi", "marital_status": "quasi"}
    hierarchies = province.hierarchies(points)
    t = time.perf_counter()
    dataset = Dataset.create(frame, roles, {q: hierarchies[q] for q in roles})
    load = time.perf_counter() - t
    print(f"{platform.processor() or platform.machine()}, {args.regions} regions, {len(frame):,} records; "
          f"Dataset.create {load:.2f} s (once)")
    timings: dict[str, list[float]] = {k: [] for k in ("prepare", "vbas aggregation", "vbas run",
                                                       "geoleader-like aggregation", "geoleader-like run")}
    total = float(points["population"].sum())
    cutoff = total / args.sites * 0.6  # about as many GeoLeader-like regions as VBAS sites
    for _ in range(args.repeats):
        t = time.perf_counter()
        problem = engine.prepare(dataset, "region", points_from_frame(points))
        _ = problem.other_codes
        timings["prepare"].append(time.perf_counter() - t)
        result = geography.anonymize(problem, engine.aggregate(problem, "vbas", sites=args.sites), 5)
        timings["vbas aggregation"].append(result.aggregation.seconds)
        timings["vbas run"].append(result.seconds)
        leader = geography.anonymize(problem, engine.aggregate(problem, "geoleader", cutoff=cutoff), 5)
        timings["geoleader-like aggregation"].append(leader.aggregation.seconds)
        timings["geoleader-like run"].append(leader.seconds)
    for name, values in timings.items():
        print(f"{name:<27} median {statistics.median(values):.3f} s  (runs: {', '.join(f'{v:.3f}' for v in values)})")
    print(f"vbas: {result.aggregation.regions} regions, {result.suppressed:,} suppressed, verified "
          f"{result.guarantee.holds}; geoleader-like (cut-off {cutoff:,.0f}): {leader.aggregation.regions} regions, "
          f"{leader.suppressed:,} suppressed")


if __name__ == "__main__":
    main()
