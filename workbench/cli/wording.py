"""The library's refusals worded for the command line: the option the user typed, not the Python parameter."""

from __future__ import annotations

from workbench.errors import OutputError, WorkbenchError


def out_refusal(exc: OutputError, out: object) -> WorkbenchError:
    """An output folder's refusal worded for the command line: the folder as ``--out DIR`` (as the user typed it)
    and ``--force`` as the way to replace an earlier release (the library's own message says ``force=True``)."""
    return WorkbenchError(exc.worded(folder=f"--out {out}", force="give --force"))
