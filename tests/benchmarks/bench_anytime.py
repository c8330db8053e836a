"""Benchmark: the anytime searches on lattices too large to search exactly (15 to 25 quasi-identifiers).

The table is ``tests/_wide_tables.wide_dataset(seed)``: seeded, survey-like (records drawn from 40 latent groups,
each quasi-identifier's value from a per-group distribution), balanced hierarchies of heights 1 to 4 cycling
1, 2, 2, 3, 4, 1 (16 quasi-identifiers: 37.3 million nodes). Objective ARX's loss, k = 5, 5 % suppression.
Each (quasi-identifier count, algorithm) runs in a fresh process, so its peak resident memory is its own. Printed
per run: lattice size, time budget, wall time of the search (scoring included), checks, the best loss, the
lower bound on the optimum and the gap to it (LIGHTNING: the least of the best loss and the loss's monotone lower
bound over the unexpanded frontier; bnb and Flash report none), the peak resident memory of the process (and its
growth during the search) and the largest structure held at the end (the frequency-set cache, the search's own
containers, the tagged lattice's).

ARX's best-effort figures (a 64,600-record survey, 16 quasi-identifiers, 28 million nodes, 60 s: bnb 0.51373,
ARX 0.51381) are on a table that is not available here; these figures are on the generated table.
Run: .venv/bin/python tests/benchmarks/bench_anytime.py [--qis 15,16,20,25] [--budget 60] [--records 20000]
     [--algorithms lightning,bnb]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def one(qis: int, algorithm: str, budget: float, records: int, seed: int) -> dict[str, object]:
    """One search in this process: its figures as a dict."""
    from tests._wide_tables import wide_dataset
    from workbench.lattice.evaluate import NodeEvaluator
    from workbench.lattice.search import ALGORITHMS
    from workbench.lattice.search.result import Limits
    from workbench.lattice.tagging import TaggedLattice, container_bytes
    from workbench.objective import NodeScorer

    dataset = wide_dataset(seed, n=records, qis=qis)
    evaluator = NodeEvaluator(dataset.encoded, 5, 0.05)
    before = _rss_mb()
    start = time.perf_counter()
    space = TaggedLattice(evaluator)
    result = ALGORITHMS[algorithm].search(space, NodeScorer(evaluator).objective("loss"), Limits(time_limit=budget))
    seconds = time.perf_counter() - start
    cache = evaluator._cache  # the frequency-set cache (bounded by classes, not by nodes)
    structures = dict(result.structures or space.footprint())
    structures["frequency-set cache"] = sum(fs.codes.nbytes + fs.counts.nbytes for fs in cache.values()) \
        + sys.getsizeof(cache) + container_bytes(list(cache))  # the arrays, the dict, its keys
    name, size = max(structures.items(), key=lambda item: item[1])
    return {"qis": qis, "algorithm": algorithm, "nodes": evaluator.lattice.size, "budget": budget,
            "seconds": seconds, "checks": result.checks, "loss": result.value, "bound": result.lower_bound,
            "gap": result.gap, "proven": result.proven_optimal, "rss_mb": _rss_mb(),
            "rss_growth_mb": _rss_mb() - before,
            "largest": name, "largest_mb": size / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--qis", default="15,16,20,25")
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--algorithms", default="lightning,bnb")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # "QIS,ALGORITHM": run one search, print JSON
    args = parser.parse_args()
    if args.one:
        qis, algorithm = args.one.split(",")
        print(json.dumps(one(int(qis), algorithm, args.budget, args.records, args.seed)))
        return
    import numpy as np

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}, load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d')}; "
          f"wide table seed {args.seed}, {args.records:,} records, loss, k = 5, 5 % suppression")
    print(f"{'QIs':>4} {'algorithm':<10}{'nodes':>18}{'budget s':>9}{'wall s':>8}{'checks':>8}{'best loss':>11}"
          f"{'bound':>9}{'gap':>9}{'peak MB':>9}{'+search':>8}  largest structure")
    for qis in [int(q) for q in args.qis.split(",")]:
        for algorithm in args.algorithms.split(","):
            out = subprocess.run([sys.executable, __file__, "--one", f"{qis},{algorithm}", "--budget",
                                  str(args.budget), "--records", str(args.records), "--seed", str(args.seed)],
                                 check=True, capture_output=True, text=True, cwd=ROOT)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            loss = f"{r['loss']:.5f}" if r["loss"] is not None else "none"
            bound = f"{r['bound']:.5f}" if r["bound"] is not None else "-"
            gap = f"{r['gap']:.5f}" if r["gap"] is not None else "-"
            print(f"{qis:>4} {algorithm:<10}{r['nodes']:>18,}{r['budget']:>9g}{r['seconds']:>8.2f}{r['checks']:>8,}"
                  f"{loss:>11}{bound:>9}{gap:>9}{r['rss_mb']:>9.0f}{r['rss_growth_mb']:>8.0f}  "
                  f"{r['largest']} ({r['largest_mb']:.1f} MB){' proven' if r['proven'] else ''}", flush=True)


if __name__ == "__main__":
    main()
