"""The examples of the README and docs/ as checks: the parser of their code blocks, the normalization and
matching of console output, and the driver that runs one page's blocks (``python -m tests._docs_examples``).

A page's blocks run in order, in one temporary folder that holds ``sample_configs`` (a link to the repository's),
as a reader would run them one after the other from a checkout:

- ```` ```console ````: a line starting with ``$ `` is a command, the lines after it (up to the next command)
  its output, stdout and stderr as a terminal shows them. The output must match (``matches``) once both sides are
  normalized (``normalize``);
- ```` ```sh ````: every line is a command (``#`` starts a comment); each must end with status 0, its output is
  not shown in the page and not compared;
- ```` ```python ````: run in one namespace per page, in the page's folder; it must not raise (figures the
  prose states are ``assert``-ed in the block itself).

A block that cannot run here (a server, a long study, a permission only another user has) says so on the line
before it: ``<!-- not run: REASON -->``.

``workbench ...`` (also ``.venv/bin/workbench`` and ``python -m workbench``) runs ``workbench.cli.main`` in the
driver's process, one process per page, so the interpreter and its imports start once; any other command runs in
a shell.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
KINDS = ("console", "sh", "python")
NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->$")
FENCE = re.compile(r"^```(\S*)\s*$")
WORKBENCH = (("workbench",), (".venv/bin/workbench",), ("python", "-m", "workbench"))
ELLIPSIS = "..."  # in expected output: a line of its own stands for any lines (or none), within a line any text


@dataclass
class Block:
    """One code block of a page: its kind, the line its fence opens on, its text, and why it is not run."""

    page: str
    kind: str
    line: int
    text: str
    not_run: str | None = None
    commands: list[tuple[str, str]] = field(default_factory=list)  # console: (command, expected output)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The console, sh and python blocks of a page, in order (other blocks are shown text, not examples)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        kind, body = m.group(1), lines[i + 1:end]
        if kind in KINDS:
            before = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            reason = NOT_RUN.match(before)
            block = Block(page.name, kind, i + 1, "\n".join(body) + "\n", reason.group(1) if reason else None)
            if kind == "console":
                block.commands = _console(body, block.where)
            out.append(block)
        i = end + 1
    return out


def _console(body: list[str], where: str) -> list[tuple[str, str]]:
    if body and not body[0].startswith("$ "):
        raise ValueError(f"{where}: a console block starts with a command ($ ...)")
    commands: list[tuple[str, str]] = []
    for line in body:
        if line.startswith("$ "):
            commands.append((line[2:], ""))
        else:
            command, output = commands[-1]
            commands[-1] = (command, output + line + "\n")
    return commands


def sh_commands(block: Block) -> list[str]:
    return [line for line in block.text.splitlines() if shlex.split(line, comments=True)]


# ------------------------------------------------------------------------------------------------ comparing
TIME_TEXT = re.compile(r"\b\d+\.\d+ s\b")  # "30 checks, 0.001 s"
TIME_JSON = re.compile(r'("seconds": )[-+0-9.e]+')  # --json's "seconds": 0.000698
SPACES = re.compile(r" {2,}")


def normalize(text: str, folder: str | None = None) -> list[str]:
    """Output as lines that compare equal across runs and machines: search times become ``…`` (as text ``0.12 s``,
    as JSON ``"seconds": 0.12``, and the ``seconds`` column of a table, the last one of its header), the run's
    temporary folder becomes ``/…``, and runs of spaces count as one (a table's columns move with the widths of
    its times). Trailing spaces and blank lines at the end do not count."""
    if folder:
        text = text.replace(folder, "/…")
    lines = [TIME_JSON.sub(r"\1…", TIME_TEXT.sub("… s", line)).rstrip() for line in text.splitlines()]
    in_table = False
    for i, line in enumerate(lines):
        words = line.split()
        if words and words[-1] == "seconds" and len(words) > 2:  # a table's header: its rows follow
            in_table = True
        elif in_table and words and line != ELLIPSIS:
            lines[i] = line[:len(line) - len(words[-1])] + "…"
        else:
            in_table = False
    while lines and not lines[-1]:
        lines.pop()
    return [SPACES.sub(" ", line) for line in lines]


def _line_matches(expected: str, actual: str) -> bool:
    if ELLIPSIS not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split(ELLIPSIS))
    return re.fullmatch(pattern, actual, re.S) is not None


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` line for line, a line ``...`` standing for any lines (or none) and
    ``...`` within a line for any text."""
    memo: dict[tuple[int, int], bool] = {}

    def at(i: int, j: int) -> bool:
        if (i, j) not in memo:
            if i == len(expected):
                memo[i, j] = j == len(actual)
            elif expected[i] == ELLIPSIS:
                memo[i, j] = at(i + 1, j) or (j < len(actual) and at(i, j + 1))
            else:
                memo[i, j] = j < len(actual) and _line_matches(expected[i], actual[j]) and at(i + 1, j + 1)
        return memo[i, j]

    return at(0, 0)


# ------------------------------------------------------------------------------------------------ running
def _workbench_args(command: str) -> list[str] | None:
    words = shlex.split(command, comments=True)
    for prefix in WORKBENCH:
        if tuple(words[:len(prefix)]) == prefix:
            return words[len(prefix):]
    return None


def run_command(command: str) -> tuple[int, str]:
    """Run one command in the current folder: (status, stdout and stderr as one text, in the order written)."""
    args = _workbench_args(command)
    if args is None:
        proc = subprocess.run(command, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return proc.returncode, proc.stdout
    from workbench import cli

    both = io.StringIO()
    with contextlib.redirect_stdout(both), contextlib.redirect_stderr(both):
        try:
            status = cli.main(args)
        except SystemExit as exc:  # argparse
            status = exc.code if isinstance(exc.code, int) else 2
    return status, both.getvalue()


@dataclass
class Outcome:
    """What one step of a page gave: a command's status and output, or a python block's error."""

    where: str
    kind: str
    command: str
    status: int
    output: str
    seconds: float


def run_page(page: Path, folder: Path) -> list[Outcome]:
    """Run every block of ``page`` that is not marked ``not run``, in order, in ``folder`` (see the module
    docstring). A python block that raises is reported with status 1 and its traceback."""
    os.chdir(folder)
    namespace: dict[str, object] = {"__name__": "__main__"}
    out: list[Outcome] = []
    for block in blocks(page):
        if block.not_run is not None:
            continue
        if block.kind == "python":
            start, status, text = time.perf_counter(), 0, ""
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(block.text, block.where, "exec"), namespace)  # the page's own example
            except Exception:
                status, text = 1, traceback.format_exc()
            out.append(Outcome(block.where, "python", "", status, text, time.perf_counter() - start))
            continue
        for command in (c for c, _ in block.commands) if block.kind == "console" else sh_commands(block):
            start = time.perf_counter()
            status, text = run_command(command)
            out.append(Outcome(block.where, block.kind, command, status, text, time.perf_counter() - start))
    return out


def main() -> None:
    """``python -m tests._docs_examples PAGE FOLDER RESULT``: run PAGE's blocks in FOLDER, write the outcomes to
    RESULT as JSON."""
    page, folder, result = (Path(a) for a in sys.argv[1:4])
    outcomes = run_page(page, folder)
    result.write_text(json.dumps([asdict(o) for o in outcomes]), encoding="utf-8")


if __name__ == "__main__":
    main()
