"""``workbench explore``: every measure of ``[measures].compare`` over the admissible nodes of the config's lattice:
monotonicity violations, the worst edge, whether the optimum is k-minimal, the range, and Kendall τ-b
(``workbench.views.exploration``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.config import Study
    from workbench.views.exploration import Exploration


def add_explore_parser(sub: Any) -> None:
    p = sub.add_parser("explore", help="properties of every measure over the admissible nodes of the lattice")
    p.add_argument("config", type=Path)
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def _declared(value: object) -> str:
    return {True: "yes", False: "no", None: "unknown"}[value]  # type: ignore[index]


def format_text(study: Study, e: Exploration) -> str:
    """The exploration as the text ``workbench explore`` prints."""
    scope = (f"{e.sample['admissible']:,} admissible of {e.sample['drawn']:,} nodes drawn at random from "
             f"{e.sample['lattice_nodes']:,} (sampled)" if e.sample else f"{e.nodes:,} admissible nodes")
    lines = [f"explore      {scope}, {e.edges:,} edges; k = {study.k}, max_suppression = {study.max_suppression:g}",
             "",
             f"{'measure':<14}{'monotone':>9}{'violations':>12}{'share':>9}  {'opt. k-min.':>11}"
             f"{'min':>14}{'max':>14}  optimum"]
    for m, f in e.measures.items():
        minimal = {True: "yes", False: "NO", None: "?"}[f["optimum_is_k_minimal"]]  # type: ignore[index]
        lines.append(f"{m:<14}{_declared(f['declared_monotone']):>9}{f['violations']:>12,}{f['share']:>9.2%}  "
                     f"{minimal:>11}{_g(f['min']):>14}{_g(f['max']):>14}  {e.optima.get(m) or '-'}")
    worst = [(m, f["worst"]) for m, f in e.measures.items() if f["worst"]]
    if worst:
        lines += ["", "worst edge (the more general parent scores better by delta):"]
        for m, w in worst:
            lines.append(f"  {m:<12} {w['child']}  ->  {w['parent']}   delta {w['delta']:.6g}")
    lines += ["", "Kendall tau-b over the nodes (each measure oriented as a loss):"]
    lines += ["  " + line for line in e.kendall_tau.to_string(float_format=lambda v: f"{v:.3f}").splitlines()]
    return "\n".join(lines)


def _g(value: object) -> str:
    return "-" if value is None else f"{float(value):.6g}"  # type: ignore[arg-type]


def explore_command(study: Study, args: argparse.Namespace) -> int:
    from workbench.views.exploration import explore

    e = explore(study)
    for m in e.flagged():  # loudly, whatever the output format
        f = e.measures[m]
        print(f"workbench: WARNING: measure {m!r} is declared monotone but gets better on {f['violations']:,} of "
              f"{e.edges:,} edges of this lattice (e.g. {f['worst']['child']} -> {f['worst']['parent']}); Flash and "
              "OLA would not find its optimum", file=sys.stderr)
    if e.sample:
        print(f"workbench: note: the lattice has {e.sample['lattice_nodes']:,} nodes: {e.sample['drawn']:,} were "
              f"drawn at random, {e.sample['admissible']:,} of them admissible; the figures are over them and their "
              "parents", file=sys.stderr)
    print(json.dumps(e.as_dict()) if args.json else format_text(study, e))
    return 0
