"""Import contracts: measures never import workbench; engines never import measures;
only workbench/ui imports streamlit or altair; app.py imports only workbench.ui."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from workbench.geo import scored` imports the module workbench.geo.scored (and its package)
            subs = {f"{node.module}.{a.name}" for a in node.names if _is_module(f"{node.module}.{a.name}")}
            names.update(subs or {node.module})
    return names


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _top(name: str) -> str:
    return name.split(".")[0]


def test_measures_never_import_workbench():
    for path in _modules("measures"):
        assert "workbench" not in {_top(n) for n in _imports(path)}, path


# The geography package's two modules that join its engine to the measure registry, as objective.py does for the
# lattice and local engines: the scored engine and the lattice over an aggregated geography.
GEO_SCORED = ("scored.py", "lattice.py")


def test_engines_never_import_measures_or_ui():
    for folder in ("workbench/lattice", "workbench/local", "workbench/geo", "workbench/hierarchy"):
        for path in _modules(folder):
            if folder == "workbench/geo" and path.name in GEO_SCORED:
                continue
            imported = _imports(path)
            assert "measures" not in {_top(n) for n in imported}, path
            assert not any(n.startswith("workbench.ui") for n in imported), path


def test_only_ui_imports_streamlit_and_altair():
    """The report (workbench/report/) draws charts too, as inline SVG: it may import altair, never streamlit."""
    for path in [*_modules("workbench"), *_modules("measures")]:
        parts = path.relative_to(ROOT).parts
        if "ui" in parts:
            continue
        banned = {"streamlit"} if parts[:2] == ("workbench", "report") else {"streamlit", "altair"}
        assert not {_top(n) for n in _imports(path)} & banned, path


def test_library_never_imports_ui():
    """The library never imports the UI; the CLI (cli*.py) and the report, front ends like the app, may use the pure
    chart builders (workbench.ui.charts and workbench.ui.risk_utility import altair only, never streamlit) to write
    `workbench compare`'s charts and the report's."""
    for path in _modules("workbench"):
        parts = path.relative_to(ROOT).parts
        if "ui" in parts:
            continue
        ui = {n for n in _imports(path) if n.startswith("workbench.ui")}
        front_end = parts[:2] in (("workbench", "cli"), ("workbench", "report"))
        allowed = {"workbench.ui", "workbench.ui.charts", "workbench.ui.risk_utility"} if front_end else set()
        assert ui <= allowed, (path, ui)


def test_chart_builders_never_import_streamlit():
    for name in ("charts.py", "risk_utility.py"):
        assert "streamlit" not in {_top(n) for n in _imports(ROOT / "workbench" / "ui" / name)}, name


def test_app_imports_only_the_ui():
    assert {n for n in _imports(ROOT / "app.py")} == {"workbench.ui.main"}


def test_test_files_are_collected():
    """Every file under tests/ is a test_*.py, conftest.py, a _helper, or a benchmark or load-test script."""
    for path in (ROOT / "tests").rglob("*.py"):
        rel = path.relative_to(ROOT / "tests")
        scripts = rel.parts[0] in ("benchmarks", "load")
        ok = path.name.startswith(("test_", "_")) or path.name == "conftest.py" or scripts
        assert ok, rel


def test_data_path_flows_one_way():
    """file -> Dataset -> engine -> Release -> measures -> views: the release modules never import the study,
    objective or view modules; the objective never imports the study; the study never imports the views."""
    later = {"release": {"study", "objective", "views.lattice", "cli"}, "release.verify": {"study", "objective"},
             "release.export": {"study", "objective"}, "objective": {"study", "views.lattice", "cli"},
             "study": {"views.lattice", "cli"}, "local.setup": {"objective", "study", "release"}}
    for module, forbidden in later.items():
        path = ROOT.joinpath("workbench", *module.split("."))
        imported = _imports(path / "__init__.py" if path.is_dir() else path.with_suffix(".py"))
        assert not imported & {f"workbench.{m}" for m in forbidden}, module


# The library's public modules: what the app may import (the engines' packages, workbench.lattice and
# workbench.local, and the measures' modules stay behind them). docs/architecture.md lists the same set.
PUBLIC_MODULES = {
    "workbench.privacy.kind", "workbench.privacy.registry",
    "workbench", "workbench.audit", "workbench.risk.attack_checks", "workbench.risk.attacks", "workbench.catalog",
    "workbench.compare",
    "workbench.config", "workbench.config.bundle",
    "workbench.data",
    "workbench.risk.dependencies", "workbench.errors", "workbench.release.export", "workbench.geo.scored",
    "workbench.release.guarantees",
    "workbench.hierarchy", "workbench.views.lattice", "workbench.compare.degradation", "workbench.views.satisfaction",
    "workbench.views.node_details",
    "workbench.release.output",
    "workbench.jobs", "workbench.policy", "workbench.report", "workbench.risk", "workbench.samples", "workbench.study",
    "workbench.risk.combinations", "workbench.walkthrough", "measures", "workbench.register",
}


def test_the_app_uses_only_the_public_library_modules():
    """Pages and their helpers import workbench.ui, the public modules above and third-party packages, never an
    engine's internals (a search registry, a poset, a measure's module): a rename inside an engine never breaks
    the app."""
    for path in _modules("workbench/ui"):
        ours = {n for n in _imports(path) if _top(n) in ("workbench", "measures") and not n.startswith("workbench.ui")}
        assert ours <= PUBLIC_MODULES, (path, sorted(ours - PUBLIC_MODULES))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_imports(path: Path) -> set[str]:
    """Every workbench module ``path`` imports, at the top or inside a function, but not under TYPE_CHECKING
    (annotations only): ``from P import m`` counts as importing P.m when m is a module, else P."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(block.test) for n in ast.walk(block)}
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{a.name}" for a in node.names if _is_module(f"{node.module}.{a.name}")}
            names.update(subs or {node.module})
    return {n for n in names if _top(n) == "workbench"}


def test_no_import_cycles_counting_imports_inside_functions():
    """An import inside a function hides a cycle from Python's import order, not from the design: the modules
    form no cycle however they import each other."""
    import graphlib

    graph = {}
    for path in _modules("workbench"):
        if "pages" in path.parts:  # the scripts st.navigation runs: leaves
            continue
        graph[_module_name(path)] = {n for n in _all_imports(path) if n != _module_name(path)}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None
