"""``workbench history [--data FILE] [--json]``: the releases in the register (docs/register.md), oldest first, each
with the board's decision; ``--data`` keeps those of one data file (its SHA-256), a SHA-256 or a data name."""

from __future__ import annotations

import argparse
import json


def add_history_parser(sub: argparse._SubParsersAction) -> None:
    """The ``history`` sub-command's arguments."""
    his = sub.add_parser("history", help="list the releases in the register and the board's decisions")
    his.add_argument("--data", default=None, metavar="FILE",
                     help="only the releases of this data: a file (its SHA-256), a SHA-256, or a data name such as "
                          "sample:registry")
    his.add_argument("--json", action="store_true", help='print one JSON object: {"releases": [...]}')


def _line(r: dict[str, object]) -> str:
    d = r["decision"]
    decided = "no decision" if d is None else f"{d['decision']} by {d['by']}"  # type: ignore[index]
    risk = r["risk"]
    highest = risk.get("highest") if isinstance(risk, dict) else None
    return (f"{r['id']:>5}  {r['time']}  {r['user']}  {r['data_name']}  sha256 {str(r['data_sha256'])[:12]}  "
            f"k={r['k']}  {r['node_text']}  suppressed {r['suppressed']}  classes {r['classes']}  "
            + (f"highest risk {highest:.4g}  " if highest is not None else "") + f"-> {r['output']}  [{decided}]")


def history_command(args: argparse.Namespace) -> int:
    """Print the register's releases."""
    from workbench.register import history
    from workbench.register.store import open_register, shown_url

    reg = open_register()
    rows = history(args.data, reg)
    if args.json:
        print(json.dumps({"register": shown_url(reg.url), "releases": rows}, default=str))
        return 0
    if not rows:
        print(f"no release in the register at {shown_url(reg.url)}"
              + (f" for {args.data}" if args.data is not None else ""))
        return 0
    print(f"register     {shown_url(reg.url)}: {len(rows)} release{'s' if len(rows) != 1 else ''}")
    for r in rows:
        print(_line(r))
        for w in r["warnings"]:
            print(f"       warning: {w}")
        d = r["decision"]
        if d is not None and d.get("note"):
            print(f"       note: {d['note']}")
    return 0
