"""Optimal lattice node vs local Greedy and Partition, on Adult (8 QIs) and the synthetic registry, for
k in {2, 5, 10, 25}, with the same measures. Writes studies/results/local_vs_lattice_<dataset>.csv.
Run: .venv/bin/python studies/local_vs_lattice.py [adult|registry ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.config import load_study  # noqa: E402
from workbench.experiments.local_vs_lattice import comparison  # noqa: E402
from workbench.study import load_dataset  # noqa: E402


def main() -> None:
    names = sys.argv[1:] or ["adult", "registry"]
    out = ROOT / "studies" / "results"
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        study = load_study(ROOT / "sample_configs" / f"{name}.toml")
        df = comparison(study, load_dataset(study))
        df.to_csv(out / f"local_vs_lattice_{name}.csv", index=False)
        print(f"\n{name}")
        print(df.drop(columns=["guarantee"]).to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
