"""The README's and docs/'s examples are what the software does: every ```console block is run and its output
compared with the page (times and temporary paths normalized), every ```sh command must succeed and every
```python block must run, each page's blocks in order in one temporary folder (``tests/_docs_examples.py``
describes the rules). A block that cannot run here says why in the page (``<!-- not run: REASON -->``); there
are few, and this test lists them."""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._docs_examples import PAGES, ROOT, blocks, matches, normalize

RUNNABLE = [p for p in PAGES if any(b.not_run is None for b in blocks(p))]
SLOW = {"tour.md", "privacy.md", "cli.md", "README.md", "report.md"}  # ~20 s or more each (searches, PDFs)
NOT_RUN_AT_MOST = 4


def test_the_pages_have_examples_and_few_are_not_run():
    every = [b for p in PAGES for b in blocks(p)]
    assert sum(len(b.commands) for b in every) >= 20
    assert {b.kind for b in every} == {"console", "sh", "python"}
    not_run = [b for b in every if b.not_run is not None]
    assert all(len(b.not_run.split()) >= 3 for b in not_run), [b.where for b in not_run]  # a reason, not a word
    assert len(not_run) <= NOT_RUN_AT_MOST, [f"{b.where}: {b.not_run}" for b in not_run]
    indented = [p.name for p in PAGES
                if re.search(r"^[ \t]+```(console|sh|python)\b", p.read_text(encoding="utf-8"), re.M)]
    assert not indented, f"an example indented (in a list) is not found by the parser: {indented}"


def test_the_comparison_catches_a_changed_line_and_keeps_its_normalizations():
    """The checker is not vacuous: a changed figure fails, an elided line or a time does not."""
    output = "engine  lattice\nsearch  30 checks, 0.004 s; proven optimal\n  dm  52\n"
    page = "engine  lattice\nsearch  30 checks, 0.001 s; proven optimal\n  dm  52\n"
    assert matches(normalize(page), normalize(output))
    assert not matches(normalize(page.replace("52", "53")), normalize(output))
    assert not matches(normalize(page.replace("30 checks", "31 checks")), normalize(output))
    assert matches(normalize("...\n  dm  52\n"), normalize(output))
    assert matches(normalize("engine  ...\n...\n"), normalize(output))
    assert not matches(normalize("...\n  dm  5\n"), normalize(output))
    table = " algorithm  checks    seconds\nexhaustive      30  0.0012\n     flash       4 0.00031\n"
    assert normalize(table) == [" algorithm checks seconds", "exhaustive 30 …", " flash 4 …"]
    assert normalize('{"checks": 4, "seconds": 1.25e-05}') == ['{"checks": 4, "seconds": …}']
    assert normalize("wrote /tmp/x/out/a.csv", "/tmp/x") == ["wrote /…/out/a.csv"]


def _run(page: Path, tmp_path: Path) -> list[dict]:
    folder = tmp_path / "cwd"
    folder.mkdir()
    (folder / "sample_configs").symlink_to(ROOT / "sample_configs")
    result = tmp_path / "outcomes.json"
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                        "PYTHONUNBUFFERED": "1", "COLUMNS": "120"}
    proc = subprocess.run([sys.executable, "-m", "tests._docs_examples", str(page), str(folder), str(result)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(result.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", [pytest.param(p, marks=[pytest.mark.slow] if p.name in SLOW else [])
                                  for p in RUNNABLE], ids=lambda p: p.name)
def test_the_examples_of_a_page_run_as_shown(page: Path, tmp_path: Path):
    outcomes = _run(page, tmp_path)
    expected = [(b.where, c, out) for b in blocks(page) if b.not_run is None for c, out in b.commands]
    ran = [(o["where"], o["command"]) for o in outcomes if o["kind"] == "console"]
    assert ran == [(where, c) for where, c, _ in expected], "every command of every console block runs, in order"
    shown = iter(out for _, _, out in expected)
    problems = []
    folder = str((tmp_path / "cwd").resolve())
    for o in outcomes:
        where = f"{o['where']}: {o['command'] or 'python block'}"
        if o["kind"] == "console":
            want, got = normalize(next(shown), folder), normalize(o["output"], folder)
            if not matches(want, got):
                diff = "\n".join(difflib.unified_diff(want, got, "the page", "the output", lineterm=""))
                problems.append(f"{where}\n{diff}")
        elif o["status"] != 0:
            problems.append(f"{where}: status {o['status']}\n{o['output'][-2000:]}")
    assert not problems, "\n\n".join(problems)
