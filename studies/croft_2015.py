"""Croft, Shi, Sack & Corriveau (2015): VBAS against a GeoLeader-like baseline on the synthetic province (200 fine
regions, about 110,000 records), 18 scenarios of different quasi-identifiers, k = 5, VBAS given the number of
regions GeoLeader-like made. Writes studies/results/croft_2015.csv (one row per scenario and method) and
studies/results/croft_2015_ratios.csv (VBAS as a share of GeoLeader-like, per scenario and on average), and prints
the averages beside the paper's (compactness 85.4 %, time 8.5 %). docs/geography.md says where this differs from
the paper's setting.
Run: .venv/bin/python studies/croft_2015.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.data import Dataset  # noqa: E402
from workbench.experiments.croft_2015 import comparison, ratios, scenarios  # noqa: E402
from workbench.geo.points import points_from_frame  # noqa: E402
from workbench.samples import province  # noqa: E402

K = 5


def main() -> None:
    frame, points = province.generate()
    candidates = list(province.DISTRIBUTIONS)
    hierarchies = province.hierarchies(points)
    dataset = Dataset.create(frame, province.ROLES, hierarchies)
    chosen = scenarios(frame, candidates, K)
    table = comparison(dataset, "region", points_from_frame(points, "province points"), chosen, K)
    out = ROOT / "studies" / "results"
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "croft_2015.csv", index=False, float_format="%.6g")
    shares = ratios(table)
    shares.to_csv(out / "croft_2015_ratios.csv", index=False, float_format="%.4f")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    mean = shares.iloc[-1]
    print(f"\nVBAS as a share of GeoLeader-like, mean over {len(chosen)} scenarios (the paper: compactness 85.4 %, "
          "time 8.5 %; suppression, DM and NUE 'very close'):")
    for m in ("regions", "suppressed", "dm", "geo_entropy", "compactness", "seconds", "aggregation_seconds"):
        print(f"  {m:<20} {100 * mean[m]:.1f} %")


if __name__ == "__main__":
    main()
