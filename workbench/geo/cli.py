"""``workbench geo CONFIG [--set ...] [--json] [--out DIR] [--force]``: the geography engine from the command line.

Reads the config's ``[geo]`` table (``workbench.geo.config``), aggregates the fine regions (VBAS or
GeoLeader-like), suppresses every class below ``privacy.k`` and prints the result; ``--json`` prints one object
``{"method", "k", "regions", "suppressed", "measures": {"compactness", "dm", "geo_entropy"}, "seconds", ...}``.
A ``privacy.max_suppression`` in the config is not applied (the engine suppresses without limit): a warning on
stderr and under ``"warnings"`` in the JSON names it. ``--out DIR`` writes ``release.csv`` (the geographic column
as the aggregated region's id, suppressed records ``*`` in every quasi-identifier; rows shuffled with
``release.seed``, re-verified), ``region_map.csv`` (``region,aggregated``, every fine region once) and
``provenance.json`` (with the warnings) as one folder, all or nothing.
User errors raise WorkbenchError (the CLI prints one line and exits with status 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.wording import out_refusal
from workbench.errors import OutputError, WorkbenchError

if TYPE_CHECKING:
    from workbench.config import Study
    from workbench.geo.lattice import GeoLatticeResult
    from workbench.geo.scored import GeoResult


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``geo`` sub-command on the CLI's sub-parsers."""
    geo = sub.add_parser("geo", help="aggregate fine regions (VBAS or GeoLeader-like) into a k-anonymous release")
    geo.add_argument("config", type=Path)
    geo.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
    geo.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    geo.add_argument("--out", type=Path, metavar="DIR",
                     help="write DIR/release.csv, DIR/region_map.csv and DIR/provenance.json")
    geo.add_argument("--force", action="store_true", help="replace the release an --out folder already holds")


def format_text(summary: dict[str, object]) -> str:
    """The human-readable report of ``GeoResult.summary()``."""
    parameters = summary["parameters"]
    assert isinstance(parameters, dict)
    asked = f" ({summary['sites']} sites asked for)" if summary.get("sites") is not None else ""
    lines = [f"method       {summary['label']} ({', '.join(f'{k} = {v:g}' for k, v in parameters.items())})",
             f"regions      {summary['regions']} aggregated from {summary['fine_regions']} fine regions{asked}; "
             f"smallest population {summary['smallest_region_population']:,.0f}",
             f"guarantee    {summary['guarantee']}",
             f"suppressed   {summary['suppressed']:,} of {summary['records']:,} records",
             f"time         {summary['seconds']:.3f} s"]
    measures = summary["measures"]
    assert isinstance(measures, dict)
    lines += [f"  {mid:<12} {value:.10g}" for mid, value in measures.items()]
    lattice = summary.get("lattice")
    if isinstance(lattice, dict):
        levels = ", ".join(f"{a} {v}" for a, v in (lattice["transformation"] or {}).items())
        lines += [f"lattice      {lattice['algorithm']}, suppression limit {lattice['max_suppression']:.10g}: "
                  f"levels {levels}"]
        lines += [f"  {mid:<12} {value:.10g}" for mid, value in lattice["measures"].items()]
    return "\n".join(lines)


def write(result: GeoResult | GeoLatticeResult, study: Study, out: Path, force: bool = False,
          warnings: Sequence[str] = ()) -> list[Path]:
    """Write the release, the region map and the provenance (with ``warnings``, when there are any) as the folder
    ``out``, all or nothing."""
    from workbench.release.output import table_csv, write_folder

    config = dict(study.raw)
    files = result.release.export_bytes(seed=study.seed, fmt="csv", config=config,
                                        measures={**result.measures, "suppressed": float(result.suppressed)},
                                        escape_formulas=study.escape_formulas)
    if warnings:
        provenance = json.loads(files["provenance"])
        files["provenance"] = (json.dumps(provenance | {"warnings": list(warnings)}, indent=2) + "\n").encode()
    region_map = table_csv(result.region_map(), escape=study.escape_formulas)
    written = write_folder(out, {"release.csv": files["release"], "region_map.csv": region_map,
                                 "provenance.json": files["provenance"]}, force=force)
    return list(written.values())


def run(study: Study, args: argparse.Namespace) -> int:
    """Run ``workbench geo`` on a loaded study; returns the exit status."""
    from workbench.geo.config import geo_spec
    from workbench.geo.engine import load_problem
    from workbench.geo.scored import empty_sites_warning
    from workbench.geo.scored import run as run_geo
    from workbench.policy import geo_refusal
    from workbench.release.output import check_folder

    spec = geo_spec(study.raw, study.source, study.base_dir)
    refusal = geo_refusal(study, spec.lattice)  # its own aggregation enforces k alone
    if refusal:
        raise WorkbenchError(f"{study.source}: {refusal}")
    if args.out:
        try:
            check_folder(args.out, force=args.force)
        except OutputError as exc:
            raise out_refusal(exc, args.out) from None
    problem = load_problem(study, spec)
    result: GeoResult | GeoLatticeResult
    if spec.lattice:  # the lattice engine over the aggregated geography: the suppression limit applies
        from workbench.geo import lattice as geography_lattice
        from workbench.geo.engine import aggregate
        from workbench.geo.scored import site_counts

        result = geography_lattice.run(study, problem, aggregate(problem, spec.method, sites=spec.sites,
                                                                 cutoff=spec.cutoff))
        summary = result.summary()
        sites, empty = site_counts(result.aggregation)
        warnings = [empty_sites_warning(result.aggregation.regions, sites)] if sites is not None and empty else []
        summary |= {"warnings": warnings} if warnings else {}
    else:
        result = run_geo(problem, spec, study.k)
        limit = study.max_suppression if "max_suppression" in study.raw.get("privacy", {}) else None
        summary = result.summary(limit)
        warnings = list(summary.get("warnings", []))
    paths: list[Path] = []
    if args.out:
        try:
            paths = write(result, study, args.out, args.force, warnings)
        except OutputError as exc:
            raise out_refusal(exc, args.out) from None
        except OSError as exc:
            raise WorkbenchError(f"--out {args.out}: cannot write the release: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps(summary))
    else:
        print(format_text(summary))
        for p in paths:
            print(f"wrote        {p}")
    for w in warnings:
        print(f"workbench: warning: {w}", file=sys.stderr)
    return 0
