"""Reproduce Ayala-Rivera et al. 2014's comparison for practitioners on the embedded Adult: Datafly, Incognito,
Flash's optimum, Mondrian and Katirai's Greedy and Partition, for k in {2, 5, 10, 25, 50, 100} and 3 to 8
quasi-identifiers, under loss (GenILoss as ARX computes it), DM and CAVG, with the time of each run.

Writes studies/results/ayala_rivera_2014.csv, ayala_rivera_2014_winners.csv and ayala_rivera_2014.html (altair
charts), and docs/ayala_rivera_2014.png (the charts for docs/studies.md).
Run: .venv/bin/python studies/ayala_rivera_2014.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import altair as alt  # noqa: E402
import pandas as pd  # noqa: E402

from workbench.experiments.ayala_rivera_2014 import comparison, winners  # noqa: E402


def charts(df: pd.DataFrame) -> alt.VConcatChart:
    """Each metric against k (8 quasi-identifiers) and against the number of quasi-identifiers (k = 10), one line
    per algorithm, log scales."""
    metrics = ["loss", "dm", "cavg", "seconds"]
    by_k = df[df.quasi_identifiers == df.quasi_identifiers.max()].melt(
        id_vars=["k", "algorithm"], value_vars=metrics, var_name="metric")
    by_q = df[df.k == 10].melt(id_vars=["quasi_identifiers", "algorithm"], value_vars=metrics, var_name="metric")

    def lines(data: pd.DataFrame, x: str, title: str) -> alt.FacetChart:
        return alt.Chart(data).mark_line(point=True).encode(
            x=alt.X(f"{x}:Q", scale=alt.Scale(type="log") if x == "k" else alt.Scale(zero=False)),
            y=alt.Y("value:Q", scale=alt.Scale(type="log"), title=None), color="algorithm:N",
            tooltip=["algorithm", x, "metric", alt.Tooltip("value:Q", format=".4g")],
        ).properties(width=190, height=150, title=title).facet(
            column=alt.Column("metric:N", sort=metrics, title=None)).resolve_scale(y="independent")

    return alt.vconcat(lines(by_k, "k", "8 quasi-identifiers, against k"),
                       lines(by_q, "quasi_identifiers", "k = 10, against the number of quasi-identifiers"))


def main() -> int:
    out = ROOT / "studies" / "results"
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    df = comparison(progress=lambda f, text: print(f"  {f:.0%} {text}", file=sys.stderr, flush=True))
    df.to_csv(out / "ayala_rivera_2014.csv", index=False)
    best = winners(df)
    best.to_csv(out / "ayala_rivera_2014_winners.csv", index=False)
    chart = charts(df)
    chart.save(str(out / "ayala_rivera_2014.html"))
    chart.save(str(ROOT / "docs" / "ayala_rivera_2014.png"))
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print("\nlowest value per setting and metric:")
    print(best.to_string(index=False))
    print(f"\n{len(df)} runs in {time.perf_counter() - start:.0f} s; every release k-anonymous: {df.k_anonymous.all()}")
    return 0 if df.k_anonymous.all() else 1


if __name__ == "__main__":
    raise SystemExit(main())
