"""Benchmark: Mondrian on Adult (8 quasi-identifiers, ARX's hierarchies as trees; or age as a range) with k = 5,
without a privacy model and with each ℓ-diversity and t-closeness variant on occupation.

Prints, per case, the classes released, Mondrian's own time (``LocalResult.seconds``, the partitioning and the
release's LUBs) and the whole ``local_release`` (the refusal check, Mondrian and the Release) in wall and in CPU
seconds of this process (steadier on a shared machine), the median of N runs on one set of posets
(``local_setup``, built once per age poset).
Run: .venv/bin/python tests/benchmarks/bench_mondrian_privacy.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from workbench.config import study_from_dict
from workbench.local.setup import local_setup
from workbench.objective import local_weigh
from workbench.study import load_dataset, local_release

L_ENTROPY = {"l_diversity": {"variant": "entropy", "l": 3}}
T_HIERARCHICAL = {"t_closeness": {"variant": "hierarchical", "t": 0.2}}
CASES: dict[str, dict[str, dict[str, object]]] = {
    "k = 5 alone": {},
    "distinct 3-diversity": {"l_diversity": {"variant": "distinct", "l": 3}},
    "entropy 3-diversity": L_ENTROPY,
    "recursive (3,3)-diversity": {"l_diversity": {"variant": "recursive", "l": 3, "c": 3}},
    "0.2-closeness, equal": {"t_closeness": {"variant": "equal", "t": 0.2}},
    "0.2-closeness, hierarchical": T_HIERARCHICAL,
    "0.2-closeness, ordered": {"t_closeness": {"variant": "ordered", "t": 0.2}},
    "entropy 3 + hierarchical 0.2": {**L_ENTROPY, **T_HIERARCHICAL},
}


def study_of(models: dict[str, dict[str, object]], age: str):
    return study_from_dict({
        "data": {"sample": "adult"},
        "attributes": {"occupation": {"role": "sensitive"}, **({"age": {"poset": "range"}} if age == "range" else {})},
        "privacy": {"k": 5, **{kind: {"attribute": "occupation", **table} for kind, table in models.items()}},
        "engine": {"kind": "local", "algorithm": "mondrian", "objective": "vinterbo"},
        "measures": {"compare": ["loss"]}})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'age':<6} {'models':<30} {'classes':>7} {'mondrian s':>10} {'local_release s':>15} {'CPU s':>6}")
    for age in ("tree", "range"):
        base = study_of({}, age)
        dataset = load_dataset(base)
        setup = local_setup(base, dataset, local_weigh(base, dataset))  # the posets do not depend on the models
        for name, models in CASES.items():
            study = study_of(models, age)
            searches, wholes, cpus = [], [], []
            for _ in range(args.repeats):
                start, cpu = time.perf_counter(), time.process_time()
                release, result = local_release(study, dataset, setup)
                wholes.append(time.perf_counter() - start)
                cpus.append(time.process_time() - cpu)
                searches.append(result.seconds)
            assert release.verify().holds
            print(f"{age:<6} {name:<30} {release.classes:>7,} {statistics.median(searches):>10.3f} "
                  f"{statistics.median(wholes):>15.3f} {statistics.median(cpus):>6.3f}", flush=True)


if __name__ == "__main__":
    main()
