"""The library's refusals worded for the command line: the option the user typed, not the Python parameter; and
the arguments the commands share, checked as they are parsed."""

from __future__ import annotations

import argparse

from workbench.errors import OutputError, WorkbenchError


def out_refusal(exc: OutputError, out: object) -> WorkbenchError:
    """An output folder's refusal worded for the command line: the folder as ``--out DIR`` (as the user typed it)
    and ``--force`` as the way to replace an earlier release (the library's own message says ``force=True``)."""
    return WorkbenchError(exc.worded(folder=f"--out {out}", force="give --force"))


def risk_threshold(text: str) -> float:
    """``--threshold``: a share of records in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: the threshold must be in (0, 1], e.g. 0.2")
    return value
