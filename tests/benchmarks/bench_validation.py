"""Benchmark: how often, and for how long, the pages validate the hierarchies of an uploaded table on a rerun.

An uploaded table of ``--rows`` random people (age in 5/10/20/40-year intervals, sex in one group, a five-digit zip
code masked digit by digit: three quasi-identifiers, the zip codes nearly all distinct) made ready by a config;
then the Data, Hierarchies and Anonymize pages each rerun ``--runs`` times (streamlit.testing AppTest, in process:
server-side time, no browser). Prints per page and rerun the calls of ``upload.column_problems`` and of
``Hierarchy.validate`` with their time, and the fastest rerun. ``--cached`` runs ``upload.column_problems`` through
``ui.cached.validation`` (validated once per content) as if it called it. The machine is noisy: compare medians of
several invocations.
Run: .venv/bin/python tests/benchmarks/bench_validation.py [--rows 20000] [--runs 3] [--cached]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from tests._app import APP, goto, people_config  # noqa: E402
from workbench.hierarchy.tree import Hierarchy
from workbench.ui import cached, upload  # noqa: E402

CONFIG = people_config("""[attributes.zip]
role = "quasi"
builder = { kind = "masking" }
""")


def _cached_problems(ws: dict, column: str) -> list[str]:
    """``upload.column_problems`` validating through ``cached.validation``."""
    h, error = upload.hierarchy_of(ws, column)
    if h is None:
        return [error or f"{column!r} has no hierarchy"]
    return list(cached.validation(h, ws["frame"][column], f"{ws['sha']}:{column}").errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cached", action="store_true")
    args = parser.parse_args()
    stats: collections.Counter = collections.Counter()

    def counted(name: str, fn: Callable) -> Callable:
        def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                stats[name] += 1
                stats[f"{name}_s"] += time.perf_counter() - start

        return call

    upload.column_problems = counted("problems", _cached_problems if args.cached else upload.column_problems)
    Hierarchy.validate = counted("validate", Hierarchy.validate)
    rng = np.random.default_rng(1)
    n = args.rows
    frame = pd.DataFrame({"age": rng.integers(0, 100, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          "zip": rng.integers(10000, 99999, n).astype(str)})
    at = AppTest.from_file(APP, default_timeout=600).run()
    at.file_uploader(key="data_upload").upload("people.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    at.file_uploader(key="config_upload").upload("people.toml", CONFIG.encode(), "application/toml").run()
    assert not at.exception and at.selectbox(key="dataset").value == "uploaded"
    print(f"{n:,} rows, {frame.zip.nunique():,} distinct zip codes; column_problems "
          f"{'through cached.validation' if args.cached else 'as the app has it'}")
    for page in ("Data", "Hierarchies", "Anonymize"):
        goto(at, page).run()
        reruns = []
        for _ in range(args.runs):
            stats.clear()
            start = time.perf_counter()
            at.run()
            reruns.append(time.perf_counter() - start)
        print(f"{page:12s} per rerun: column_problems {stats['problems']} calls {stats['problems_s'] * 1000:,.0f} ms, "
              f"Hierarchy.validate {stats['validate']} calls {stats['validate_s'] * 1000:,.0f} ms; "
              f"fastest rerun {min(reruns):.2f} s")


if __name__ == "__main__":
    main()
