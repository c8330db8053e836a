"""``workbench compare``: every candidate of both engines under every measure, over k (and suppression) sweeps,
with the optima, the Pareto front, the rank agreement and, when asked, model degradation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.wording import out_refusal
from workbench.compare.optima import lattice_optima
from workbench.compare.ranking import (
    RISK_COLUMNS,
    normalized,
    optimal_under,
    pareto_front,
    rank_agreement,
    risk_utility,
)
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import pandas as pd

    from workbench.config import Study
    from workbench.data import Dataset


def compare_command(study: Study, args: argparse.Namespace) -> int:
    from dataclasses import replace

    from workbench import compare
    from workbench.errors import ConfigError
    from workbench.study import load_dataset
    from workbench.user_measure import collecting_failures

    try:
        ks = [int(k) for k in args.k.split(",")] if args.k else [study.k]
    except ValueError:
        raise WorkbenchError(f"--k {args.k!r}: expected integers separated by commas") from None
    try:
        sups = [float(x) for x in args.max_suppression.split(",")] if args.max_suppression else None
    except ValueError:
        raise WorkbenchError(f"--max-suppression {args.max_suppression!r}: expected fractions separated by "
                             "commas") from None
    for option, text, key, values in (("--k", args.k, "k", ks), ("--max-suppression", args.max_suppression,
                                                                  "max_suppression", sups or ())):
        for value in values:  # each study of the sweep is validated as a config's would be
            try:
                replace(study, **{key: value})
            except ConfigError as exc:
                raise WorkbenchError(f"{option} {text!r}: {str(exc).removeprefix(f'{study.source}: ')}") from None
    if args.jobs is not None:  # as --set engine.jobs=N, named as the option
        try:
            study = replace(study, jobs=args.jobs)
        except ConfigError as exc:
            raise WorkbenchError(f"--jobs {args.jobs}: {str(exc).removeprefix(f'{study.source}: ')}") from None
    if args.out:  # before the sweep, which may take long
        from workbench.errors import OutputError
        from workbench.release.output import check_folder

        try:
            check_folder(args.out, force=args.force)
        except OutputError as exc:
            raise out_refusal(exc, args.out) from None
    dataset = load_dataset(study)
    for reason in compare.local_refusals(study, dataset, compare.COMPARED_LOCAL_ALGORITHMS).values():
        print(f"workbench: note: left out of the comparison: {reason}", file=sys.stderr)
    with collecting_failures() as failures:  # a failing user measure: NaN in its cells, its error below
        table = compare.sweep(study, dataset, ks, args.candidates, max_suppressions=sups)
        result = _report(study, args, dataset, table, ks, sups)
    for failure in failures:
        print(f"workbench: error: {failure} (its cells are left empty; the rest of the comparison stands)",
              file=sys.stderr)
    return 2 if failures else result


def _report(study: Study, args: argparse.Namespace, dataset: Dataset, table: pd.DataFrame, ks: list[int],
            sups: list[float] | None) -> int:
    from dataclasses import replace

    from workbench.compare import degradation as model_degradation
    from workbench.config.checks import local_cpus

    ids = [m for m in study.compare if m != "degradation"]
    if "degradation" in study.compare:
        classifiers = tuple(c.strip() for c in args.classifiers.split(",") if c.strip())
        table = model_degradation.add_degradation(
            table, study, dataset, classifiers=classifiers, n_jobs=min(args.jobs, local_cpus()) if args.jobs else 2,
            progress=lambda f, text: print(f"degradation {f:.0%}", file=sys.stderr, flush=True))
    print(table.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    last_k, last_sup = ks[-1], (sups[-1] if sups else study.max_suppression)
    last = table[table.k == last_k]
    if "max_suppression" in last.columns:
        last = last[last.max_suppression == last_sup]
    last = last.reset_index(drop=True)
    # each measure's optimum over every k-anonymous node, not only over the candidates listed above
    ranked = [*ids, *RISK_COLUMNS]  # the risk columns rank and bound the front too (lower is better)
    optima = lattice_optima(replace(study, k=last_k, max_suppression=last_sup), dataset, ranked)
    chosen = optimal_under(last, ranked, optima)
    print(f"\noptimal under each measure (k = {last_k}, max_suppression = {last_sup:g}); scope: the set each row "
          "is the best of")
    print(chosen.to_string(index=False, float_format=lambda v: f"{v:.10g}"))
    if args.out:
        _write_out(args.out, args.force, table, last, ranked, ids, chosen)
        print(f"wrote        {args.out}/solutions.csv and the tables and charts beside it")
    return 0


def _write_out(out: Path, force: bool, table: pd.DataFrame, last: pd.DataFrame, ranked: list[str], ids: list[str],
               chosen: pd.DataFrame) -> None:
    """The tables (CSV, through ``workbench.release.output.table_csv``: formula-like cells neutralized) and the charts
    (HTML) as the folder ``out``, whole or not at all (``workbench.release.output.write_folder``; ``force`` replaces an
    earlier one)."""
    from workbench.errors import OutputError
    from workbench.release.output import table_csv, write_folder
    from workbench.ui import charts
    from workbench.ui.risk_utility import risk_utility_chart

    front = pareto_front(last, ranked)
    agreement = rank_agreement(last, ranked)
    files = {"solutions.csv": table_csv(table),
             "normalized.csv": table_csv(normalized(last, ranked).assign(pareto=front)),
             "rank_agreement.csv": table_csv(agreement, index=True),
             "optimal_under.csv": table_csv(chosen)}
    if len(ids) >= 2:
        pareto = charts.pareto_chart(last, ids[0], ids[1], pareto_front(last, ids))
        files["pareto.html"] = pareto.to_html().encode("utf-8")
    if ids:
        points = risk_utility(last, ids[0])
        files["risk_utility.csv"] = table_csv(points)
        files["risk_utility.html"] = risk_utility_chart(points, ids[0]).to_html().encode("utf-8")
    files["rank_agreement.html"] = charts.rank_heatmap(agreement).to_html().encode("utf-8")
    files["sweep.html"] = charts.sweep_chart(table, ids).to_html().encode("utf-8")
    try:
        write_folder(out, files, force=force)
    except OutputError as exc:
        raise out_refusal(exc, out) from None
    except OSError as exc:
        raise WorkbenchError(f"--out {out}: cannot write: {exc.strerror or exc}") from None
