"""Benchmark: model degradation (``measures.degradation``, Katirai 2006) on the embedded registry (20,000 records, its
six quasi-identifiers one-hot encoded into about 1,500 columns, target ``high_cost``): the original table against
itself, five folds, one classifier at a time. ``--dense`` also times the same protocol with a dense one-hot matrix,
as the encoding was before it became sparse (the scores are the same: the benchmark checks it).
Run: .venv/bin/python tests/benchmarks/bench_degradation.py [--runs 3] [--classifiers naive_bayes,logistic] [--dense]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import measures.degradation as D  # noqa: E402
from workbench.config import load_study  # noqa: E402
from workbench.study import load_dataset  # noqa: E402

SPARSE = D._one_hot


def _dense_one_hot(X_tr, X_te, miss_tr, miss_te):
    """The dense encoding, for comparison: the same columns and zero rows as ``D._one_hot``, as arrays."""
    A, B = SPARSE(X_tr, X_te, miss_tr, miss_te)
    return A.toarray(), B.toarray()


def _time(df: pd.DataFrame, y: np.ndarray, classifier: str, runs: int) -> tuple[list[float], pd.DataFrame]:
    seconds, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = D.degradation(df, df, y, np.zeros(len(df), bool), classifiers=(classifier,))
        seconds.append(time.perf_counter() - start)
    return seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--classifiers", default="naive_bayes,logistic,random_forest")
    parser.add_argument("--dense", action="store_true")
    args = parser.parse_args()
    ds = load_dataset(load_study(ROOT / "sample_configs" / "registry.toml"))
    df = ds.frame[list(ds.quasi_identifiers)].astype(str)
    y = ds.frame["high_cost"].astype(str).to_numpy()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d')}; registry {len(df):,} records")
    for classifier in args.classifiers.split(","):
        seconds, sparse_result = _time(df, y, classifier, args.runs)
        line = f"{classifier:14s} sparse median {statistics.median(seconds):6.1f} s"
        if args.dense:
            D._one_hot = _dense_one_hot
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    dense, dense_result = _time(df, y, classifier, args.runs)
            finally:
                D._one_hot = SPARSE
            same = np.allclose(sparse_result.drop(columns="classifier").to_numpy(dtype=float),
                               dense_result.drop(columns="classifier").to_numpy(dtype=float), atol=1e-9)
            ratio = statistics.median(dense) / statistics.median(seconds)
            line += f"   dense median {statistics.median(dense):6.1f} s   ratio {ratio:4.1f}x   same scores: {same}"
        print(line + f"   (runs {args.runs})")


if __name__ == "__main__":
    main()
