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
    """An output folder cannot take a release: it is a file, holds other files, or holds an earlier release that is
    to be kept. The library states the problem without naming any interface's option: ``folder``, ``problem``
    (what follows the folder's name in the message, from its first character: ``" already holds a release
    (...)"``) and ``replaceable`` (the folder holds an earlier release, which replacing it as a whole would take).
    ``str()`` is the Python API's wording, since the functions that write a folder take ``force=True``; another
    front end words it with its own option through ``worded`` (the CLI: ``--out DIR ...; give --force ...``)."""

    def __init__(self, folder: object, problem: str, replaceable: bool = False) -> None:
        self.folder = str(folder)
        self.problem = problem
        self.replaceable = replaceable
        super().__init__(self.worded())

    def __reduce__(self) -> tuple:  # pickled whole (a worker process's error reaches its caller)
        return type(self), (self.folder, self.problem, self.replaceable)

    def worded(self, *, folder: str | None = None, force: str = "pass force=True") -> str:
        """The message with the folder named as ``folder`` (default: its path) and, when an earlier release is in
        the way, the way to replace it in the caller's interface (``force``, e.g. ``"give --force"``)."""
        text = f"{self.folder if folder is None else folder}{self.problem}"
        if self.replaceable:
            text += f"; {force} to replace it as a whole, or choose a new or empty folder"
        return text


class ArgumentError(ConfigError):
    """A value given as text is malformed: an override ``SECTION.KEY=VALUE`` or a node ``"qi=level,..."``. The
    message names it by what it is (``what``: ``"override"``, ``"node"``) and ``text``; a front end that took it
    from an option of its own names that option instead (``worded("--set")``)."""

    def __init__(self, what: str, text: str, problem: str) -> None:
        self.what = what
        self.text = text
        self.problem = problem
        super().__init__(self.worded(what))

    def __reduce__(self) -> tuple:
        return type(self), (self.what, self.text, self.problem)

    def worded(self, name: str) -> str:
        """The message with the value named as ``name`` (``"override"`` in Python, ``"--set"`` on the command line)."""
        return f"{name} {self.text!r}: {self.problem}"


class MeasureError(WorkbenchError):
    """A user measure cannot be registered, or failed (raised, or returned NaN or an infinity) on a release."""
