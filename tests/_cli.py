"""The ``workbench`` command run in-process, for the CLI tests."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from workbench import cli


def call(*argv: str | Path) -> tuple[int, str, str]:
    """Run ``workbench`` in-process; returns (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            status = exc.code
    return status, out.getvalue(), err.getvalue()
