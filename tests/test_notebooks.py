"""The notebooks in notebooks/: committed executed (outputs saved, no error), written against the public API
only, and they still run: each is executed with nbclient on a smaller input (``WORKBENCH_NOTEBOOK_QUICK=1``) from a
copy in memory, so the committed files are never rewritten."""

from __future__ import annotations

import ast
import copy
import hashlib
import os
import re
from pathlib import Path

import pytest

import workbench as wb

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def _code(notebook: object) -> list[str]:
    return [c.source for c in notebook.cells if c.cell_type == "code"]  # type: ignore[attr-defined]


def _text(notebook: object) -> str:
    """Every stream and plain-text output of the notebook, joined."""
    parts = []
    for cell in notebook.cells:  # type: ignore[attr-defined]
        for out in cell.get("outputs", []):
            stream = out.output_type == "stream"
            parts.append(out.get("text", "") if stream else out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


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


def test_they_run_on_a_smaller_input(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("WORKBENCH_NOTEBOOK_QUICK", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in NOTEBOOKS}
    executed = {}
    for path in NOTEBOOKS:
        notebook = copy.deepcopy(nbformat.read(path, as_version=4))
        for cell in notebook.cells:
            if cell.cell_type == "code":  # run from scratch: the committed outputs prove nothing here
                cell.update(outputs=[], execution_count=None)
        nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
        executed[path.stem] = _text(notebook)
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in NOTEBOOKS} == before
    assert "k-anonymous with k = 3, 0 suppressed record(s) (limit 0): verified" in executed["01_quick_start"]
    assert "report.html" in executed["01_quick_start"]
    assert "Comparison(" in executed["02_utility_study"]
    assert re.search(r"\b0 of \d+ rows contradict the finding", executed["03_el_emam_2009"])
