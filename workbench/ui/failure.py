"""How the app shows a user error: a ``WorkbenchError`` (the library's, or a cached call's, ``memo.user_error``) as
one ``st.error`` line, never a traceback. The page wrapper (``main.run_page``) shows what a page raises; a section
of a page that goes on after its error shows it in place with ``shown_errors``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from workbench.errors import WorkbenchError
from workbench.ui.format import md


def error_line(exc: BaseException) -> str:
    """The message of an error as the app shows it: its first line (its type's name when it has no message)."""
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def show_error(exc: WorkbenchError, container: DeltaGenerator | None = None, prefix: str = "") -> None:
    """``exc`` as one error line in ``container`` (the page by default), after ``prefix`` (Markdown, not escaped)."""
    (container or st).error(f"{prefix}{md(error_line(exc))}")


@contextlib.contextmanager
def shown_errors(container: DeltaGenerator | None = None, prefix: str = "") -> Iterator[None]:
    """Run the block; a ``WorkbenchError`` it raises ends the block and is shown as one error line (``show_error``),
    and the page goes on after it."""
    try:
        yield
    except WorkbenchError as exc:
        show_error(exc, container, prefix)
