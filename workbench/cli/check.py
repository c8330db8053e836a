"""``workbench check TABLE --quasi A,B,... [--sensitive S[,T]] [--ell L] [--threshold T] [--json] [--report DIR]``:
every anonymity figure of a table de-identified by any tool (``workbench.audit``), as text, JSON or a
self-contained HTML page for a review board. It reads no config: the table and the columns are all it needs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.wording import risk_threshold
from workbench.errors import OutputError, WorkbenchError


def add_check_parser(sub: argparse._SubParsersAction) -> None:
    """The ``check`` sub-command's arguments."""
    from workbench.risk import DEFAULT_THRESHOLD

    chk = sub.add_parser("check", help="measure a table de-identified by any tool: k, α, ℓ, t, β, δ, risk")
    chk.add_argument("table", type=Path, help="a CSV/TSV/TXT, Excel or Parquet file")
    chk.add_argument("--quasi", action="append", required=True, metavar="A,B,...",
                     help="the quasi-identifiers (the columns an attacker may know); may be given more than once")
    chk.add_argument("--sensitive", action="append", default=[], metavar="S[,T]",
                     help="the sensitive attributes, for α, ℓ, t, β and δ")
    chk.add_argument("--ell", type=_ell, default=None, metavar="L",
                     help="the ℓ of recursive (c, ℓ)-diversity (default: the table's distinct ℓ)")
    chk.add_argument("--threshold", type=risk_threshold, default=DEFAULT_THRESHOLD, metavar="T",
                     help=f"a record is at risk when 1/|class| > T (default {DEFAULT_THRESHOLD:g}: classes under 5)")
    chk.add_argument("--json", action="store_true", help="print one JSON object")
    chk.add_argument("--report", type=Path, default=None, metavar="DIR",
                     help="also write DIR/check.html, the figures as a page for a review board")
    chk.add_argument("--force", action="store_true", help="replace the page a --report folder already holds")


def _ell(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: ℓ must be at least 1")
    return value


def _names(values: list[str]) -> list[str]:
    """Column names from repeated, comma-separated options (blanks around a name are not part of it)."""
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def check_command(args: argparse.Namespace) -> int:
    """Measure the table and print the figures (text or JSON); with ``--report``, write the page too."""
    from workbench.audit import check_file

    if args.report is not None:
        from workbench.release.output import check_folder

        try:
            check_folder(args.report, force=args.force)
        except OutputError as exc:
            raise WorkbenchError(exc.worded(folder=f"--report {args.report}", force="give --force")) from None
    result = check_file(args.table, _names(args.quasi), _names(args.sensitive), args.ell, args.threshold)
    paths = []
    if args.report is not None:
        from workbench.report.check_section import build_check_report

        try:
            paths = list(build_check_report(result).write(args.report, force=args.force).values())
        except OutputError as exc:
            raise WorkbenchError(exc.worded(folder=f"--report {args.report}", force="give --force")) from None
        except OSError as exc:
            print(f"workbench: --report {args.report}: cannot write the page: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print(result.text())
        for path in paths:
            print(f"wrote       {path}")
    return 0
