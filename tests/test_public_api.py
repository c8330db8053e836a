"""The public API a notebook uses: ``import workbench as wb`` and the names of ``workbench.__all__``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import workbench as wb

ROOT = Path(__file__).resolve().parents[1]


def test_every_exported_name_resolves_and_is_listed_once():
    assert sorted(wb.__all__) == sorted(wb._EXPORTS) and len(set(wb.__all__)) == len(wb.__all__)
    for name in wb.__all__:
        assert getattr(wb, name).__name__ == name


def test_import_stays_light():
    code = "import sys, workbench; assert 'pandas' not in sys.modules and 'sklearn' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_documented_example_runs():
    study = wb.load_study(ROOT / "sample_configs" / "teaching.toml")
    result = wb.run(study)
    assert isinstance(result, wb.RunResult) and isinstance(result.release, wb.Release) and result.k_anonymous
    table, search = wb.lattice_overview(study)
    assert (table.status == "optimum").sum() == 1 and search.optimum == result.search.optimum
    solutions = wb.solutions(study, result.dataset)
    assert {"lattice", "local"} == set(solutions.engine)
    assert 0 < wb.risk_of_release(result.release).to_dict()["prosecutor"]["highest"] <= 1 / study.k
    assert set(wb.load_sample("teaching").roles) >= {"date", "gender", "age"}


def test_every_third_party_import_is_a_declared_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [*project["dependencies"], *project["optional-dependencies"]["scale"]]  # scale: engine.backend
    names = {re.split(r"[<>=\[ ]", d)[0].lower().replace("-", "_") for d in declared}
    names |= {"distributed"} if "dask" in names else set()  # dask[distributed] installs the distributed package
    module_of = {"scikit_learn": "sklearn", "tomli_w": "tomli_w", "vl_convert_python": "vl_convert"}
    modules = {module_of.get(n, n) for n in names}
    stdlib = set(sys.stdlib_module_names)
    imported: set[str] = set()
    for path in [*ROOT.joinpath("workbench").rglob("*.py"), *ROOT.joinpath("measures").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    third_party = imported - stdlib - {"workbench", "measures", "__future__"}
    assert third_party <= modules, third_party - modules
