"""Error types that carry a message fit to show a user (CLI stderr line, app banner)."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base class: a problem with the user's input, explained in one line."""


class ConfigError(WorkbenchError):
    """A config file or override is wrong (unknown key, bad value, missing file)."""


class DataError(WorkbenchError):
    """A data file cannot be read or does not fit its declared roles."""


class HierarchyError(WorkbenchError):
    """A hierarchy is malformed or does not cover the data.

    ``problems`` lists every problem found, so a user can fix them all at once.
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


class VerificationError(WorkbenchError):
    """A release failed re-verification and was not written."""


class OutputError(WorkbenchError):
    """An output folder cannot take a release (it holds other files, or a release without ``--force``)."""


class MeasureError(WorkbenchError):
    """A user measure cannot be registered, or failed (raised, or returned NaN or an infinity) on a release."""
