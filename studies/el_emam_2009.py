"""Reproduce El Emam et al. 2009's comparison on Adult: relative information loss (Prec, DM*, entropy) of
Datafly, Samarati and OLA for k in {2, 5, 10, 15} and MaxSup in {1 %, 5 %, 10 %}.

Writes studies/results/el_emam_2009.csv and .html (an altair chart), prints the table and checks the paper's
qualitative finding (Datafly and Samarati never below 100 %; OLA always at 100 %).
Run: .venv/bin/python studies/el_emam_2009.py [--datafly-runs N] [--jobs N]  (settings N at a time, engine.jobs)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.config import load_study  # noqa: E402
from workbench.experiments.el_emam_2009 import comparison, finding_violations  # noqa: E402
from workbench.study import load_dataset  # noqa: E402
from workbench.ui.charts import relative_loss_chart  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--datafly-runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "studies" / "results")
    parser.add_argument("--jobs", type=int, default=1, help="(k, MaxSup) settings at a time, in local processes")
    args = parser.parse_args()
    study = load_study(ROOT / "sample_configs" / "adult.toml", [f"engine.jobs={args.jobs}"])
    dataset = load_dataset(study)
    start = time.perf_counter()
    df = comparison(study, dataset, datafly_runs=args.datafly_runs,
                    progress=lambda f, text: print(f"  {f:.0%}", file=sys.stderr, flush=True))
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "el_emam_2009.csv", index=False)
    relative_loss_chart(df).save(str(args.out / "el_emam_2009.html"))
    wide = df.pivot_table(index=["measure", "max_suppression", "k"], columns="algorithm",
                          values="relative_loss_pct").round(1)
    print(wide.to_string())
    violations = finding_violations(df)
    print(f"\n{len(df)} rows in {time.perf_counter() - start:.0f} s; rows contradicting the paper's finding: "
          f"{len(violations)}")
    if len(violations):
        print(violations.to_string(index=False))
    return 0 if violations.empty else 1


if __name__ == "__main__":
    raise SystemExit(main())
