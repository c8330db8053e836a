"""Katirai 2006's synthetic-data finding (Greedy beats Partition on Vinterbo when fields are independent),
on the embedded registry made independent by shuffling each column, vs the registry itself. The thesis's
Greedy (overlapping groups, ``greedy_overlapping``) and the workbench's disjoint variant (``greedy``) both run,
labelled, with Partition. Writes studies/results/katirai_synthetic.csv.
Run: .venv/bin/python studies/katirai_synthetic.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.config import load_study  # noqa: E402
from workbench.experiments.katirai_synthetic import comparison, summary  # noqa: E402
from workbench.study import load_dataset  # noqa: E402


def main() -> None:
    study = load_study(ROOT / "sample_configs" / "registry.toml")
    df = comparison(study, load_dataset(study))
    out = ROOT / "studies" / "results"
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "katirai_synthetic.csv", index=False)
    print(summary(df).to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
