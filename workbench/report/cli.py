"""``workbench report CONFIG [--set ...] --out DIR [--pdf] [--force]``: the parser and the handler, registered by
``workbench.cli`` in two lines."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.wording import out_refusal
from workbench.errors import OutputError

if TYPE_CHECKING:
    from workbench.config import Study


def add_report_parser(sub: argparse._SubParsersAction) -> None:
    """The ``report`` sub-command's arguments."""
    rep = sub.add_parser("report", help="write the ethics-board report of the configured release (HTML, PDF)")
    rep.add_argument("config", type=Path)
    rep.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="overrides")
    rep.add_argument("--out", type=Path, metavar="DIR", required=True,
                     help="write DIR/report.html and alternatives.csv (and report.pdf)")
    rep.add_argument("--pdf", action="store_true", help="also write DIR/report.pdf")
    rep.add_argument("--force", action="store_true", help="replace the report an --out folder already holds")
    rep.add_argument("--no-register", action="store_true",
                     help="do not record the reported release in the register (docs/register.md)")


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this report, as the user would type it."""
    parts = ["workbench", "report", str(args.config), *(x for o in args.overrides for x in ("--set", o)),
             "--out", str(args.out), *(["--pdf"] if args.pdf else [])]
    return shlex.join(parts)


def report_command(study: Study, args: argparse.Namespace) -> int:
    """Run the study, build its report and write it into ``--out`` whole or not at all."""
    from workbench.release.output import check_folder
    from workbench.report import build_report
    from workbench.study import load_dataset, run

    try:
        check_folder(args.out, force=args.force)  # before the search, which may take long
    except OutputError as exc:
        raise out_refusal(exc, args.out) from None
    dataset = load_dataset(study)
    result = run(study, dataset)  # refuses what every entry point refuses (policy.run_refusal)
    if result.release is None:
        print(f"workbench: no node is k-anonymous for k = {study.k} with max_suppression = {study.max_suppression} "
              f"({dataset.n} records): no release to report on", file=sys.stderr)
        return 1
    recorded = None
    if not args.no_register:  # the release the board decides on, recorded with the report's folder as its output
        from workbench.register import record_release

        rec = record_release(result, output=str(args.out.resolve()), channel="report", config=study.raw)
        recorded = rec.id
        for check in rec.checks:
            if check.matters:
                print(f"workbench: warning: {check.warning()}", file=sys.stderr)
    report = build_report(study, result, command=command_line(args), recorded=recorded)
    try:
        paths = report.write(args.out, pdf=args.pdf, force=args.force)
    except OutputError as exc:
        raise out_refusal(exc, args.out) from None
    except OSError as exc:
        print(f"workbench: --out {args.out}: cannot write the report: {exc.strerror or exc}", file=sys.stderr)
        return 2
    for path in paths.values():
        print(f"wrote        {path}")
    if recorded is not None:
        print(f"registered   release {recorded} (workbench decide {recorded} --decision ... --by NAME)")
    return 0
