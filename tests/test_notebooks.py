"""The notebooks in notebooks/: committed executed (outputs saved, no error), written against the public API
only, and what they show is what the current code computes: each is executed with nbclient from a copy in memory
(the committed file is never rewritten) and every text it prints or displays must equal the committed output, so
a change of the library that changes a figure fails here until the notebooks are executed again
(``make notebooks``). The prose states only what is true whatever the numbers, or what a cell asserts.

``python -m tests.test_notebooks`` executes every notebook again and writes it in place."""

from __future__ import annotations

import ast
import copy
import difflib
import hashlib
import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

import workbench as wb

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
TEMP = re.compile(re.escape(tempfile.gettempdir()) + r"/[\w.-]+")  # a folder a notebook made with mkdtemp


def _code(notebook: object) -> list[str]:
    return [c.source for c in notebook.cells if c.cell_type == "code"]  # type: ignore[attr-defined]


def _shown(cell: object) -> list[tuple[str, str]]:
    """What a code cell shows a reader, as (kind, text): its printed text (stdout; stderr holds progress bars,
    which carry times) and each displayed value's text form, or for a chart its kinds of output."""
    out = []
    for o in cell.outputs:  # type: ignore[attr-defined]
        if o.output_type == "stream":
            if o.name == "stdout":
                out.append(("stdout", TEMP.sub("<tmp>", o.text)))
        elif o.output_type in ("execute_result", "display_data"):
            data = o.get("data", {})
            text = TEMP.sub("<tmp>", data.get("text/plain", ""))
            out.append((" ".join(sorted(data)), text))
        else:
            out.append((o.output_type, o.get("ename", "")))
    return out


def _text(notebook: object) -> str:
    """Every stream and plain-text output of the notebook, joined."""
    parts = []
    for cell in notebook.cells:  # type: ignore[attr-defined]
        for out in cell.get("outputs", []):
            stream = out.output_type == "stream"
            parts.append(out.get("text", "") if stream else out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def execute(path: Path) -> object:
    """The notebook at ``path`` executed from scratch with nbclient (this checkout first on the path), in memory."""
    notebook = copy.deepcopy(nbformat.read(path, as_version=4))
    for cell in notebook.cells:
        if cell.cell_type == "code":  # run from scratch: the committed outputs prove nothing here
            cell.update(outputs=[], execution_count=None)
            cell.metadata.pop("execution", None)
    env = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), env])
    try:
        nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3", record_timing=False,
                                resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    finally:
        os.environ["PYTHONPATH"] = env
    return notebook


def test_the_three_notebooks_are_there():
    assert [p.name for p in NOTEBOOKS] == ["01_quick_start.ipynb", "02_utility_study.ipynb", "03_el_emam_2009.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_executed_without_errors(path: Path):
    notebook = nbformat.read(path, as_version=4)
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert cells and all(c.execution_count for c in cells)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1))  # one run, top to bottom
    assert not [o for c in cells for o in c.outputs if o.output_type == "error"]
    assert "Traceback" not in _text(notebook)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_only_the_public_api(path: Path):
    """``import workbench as wb`` and the names of ``wb.__all__``; no module of the package is imported."""
    notebook = nbformat.read(path, as_version=4)
    for source in _code(notebook):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                assert all(a.name != "workbench" or a.asname == "wb" for a in node.names), source
                assert not any(a.name.startswith(("workbench.", "measures")) for a in node.names), source
            elif isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith(("workbench", "measures")), source
        used = set(re.findall(r"\bwb\.(\w+)", source))
        assert used <= set(wb.__all__), used - set(wb.__all__)


def test_the_comparison_sees_a_changed_figure():
    """The check below is not vacuous: a committed output with one figure changed differs from the fresh one."""
    notebook = nbformat.read(NOTEBOOKS[0], as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "code" and any(o.output_type == "stream"
                                                                          for o in c.outputs))
    changed = copy.deepcopy(cell)
    stream = next(o for o in changed.outputs if o.output_type == "stream")
    stream.text = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), stream.text, count=1)
    assert _shown(changed) != _shown(cell)


SLOW = {"03_el_emam_2009"}  # about 20 s or more: the optimum of every setting by exhaustive search


@pytest.mark.parametrize("path", [pytest.param(p, marks=[pytest.mark.slow] if p.stem in SLOW else [])
                                  for p in NOTEBOOKS], ids=lambda p: p.stem)
def test_it_runs_and_shows_what_is_committed(path: Path):
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    committed = nbformat.read(path, as_version=4)
    fresh = execute(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before  # executed in memory only
    old = [c for c in committed.cells if c.cell_type == "code"]
    new = [c for c in fresh.cells if c.cell_type == "code"]
    assert [c.source for c in new] == [c.source for c in old]
    stale = []
    for number, (a, b) in enumerate(zip(old, new, strict=True), start=1):
        if _shown(a) != _shown(b):
            diff = difflib.unified_diff(str(_shown(a)).splitlines(), str(_shown(b)).splitlines(), lineterm="")
            stale.append(f"cell {number}: committed vs now\n" + "\n".join(list(diff)[:40]))
    assert not stale, f"{path.name}: the committed outputs are stale; run `make notebooks`\n" + "\n\n".join(stale)
    text = _text(fresh)
    if path.stem == "01_quick_start":
        assert "k-anonymous with k = 3, 0 suppressed record(s) (limit 0): verified" in text
        assert "report/report.html" in text
    elif path.stem == "02_utility_study":
        assert "Comparison(" in text
    else:
        assert re.search(r"\b0 of \d+ rows contradict the finding", text)


def main() -> None:
    """Execute every notebook (or those named) again and write it in place, its outputs fresh."""
    names = set(sys.argv[1:])
    for path in NOTEBOOKS:
        if names and path.name not in names and path.stem not in names:
            continue
        notebook = execute(path)
        nbformat.write(notebook, path)
        print(f"executed {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
