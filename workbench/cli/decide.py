"""``workbench decide ID --decision approved|rejected|conditions --by NAME [--note TEXT]``: record the board's
decision on a registered release (docs/register.md). A later decision on the same release is added beside the
earlier ones; the newest counts."""

from __future__ import annotations

import argparse
import json

from workbench.register.schema import DECISIONS


def add_decide_parser(sub: argparse._SubParsersAction) -> None:
    """The ``decide`` sub-command's arguments."""
    dec = sub.add_parser("decide", help="record the board's decision on a registered release")
    dec.add_argument("id", type=_release_id, metavar="ID", help="the release's id (workbench history)")
    dec.add_argument("--decision", required=True, choices=DECISIONS)
    dec.add_argument("--by", required=True, metavar="NAME", help="who decided (the board, its chair)")
    dec.add_argument("--note", default="", metavar="TEXT", help="the conditions, or the reasons")
    dec.add_argument("--json", action="store_true", help="print the decision as one JSON object")


def _release_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a release id (a whole number)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a release id (ids start at 1)")
    return value


def decide_command(args: argparse.Namespace) -> int:
    """Record the decision and say so."""
    from workbench.register import decide

    d = decide(args.id, args.decision, args.by, args.note)
    if args.json:
        print(json.dumps(d))
    else:
        print(f"release {d['release_id']}: {d['decision']} by {d['decided_by']} ({d['created']})"
              + (f": {d['note']}" if d["note"] else ""))
    return 0
