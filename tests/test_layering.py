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


# What the app may not import: the engines' insides. It reads the engines through their registries (the search
# registry `workbench.lattice.search`, `workbench.local`'s algorithms and posets, the privacy models' registry
# `workbench.privacy.registry` and its entries' types `workbench.privacy.kind`, the measure registry `measures`
# with the classifiers of `measures.degradation` and the geography measures of `measures.geography`), so that a
# rename inside an engine never breaks the app. docs/architecture.md says the same.
ENGINE_INSIDES = ("workbench.lattice.", "workbench.local.", "workbench.privacy.", "measures.")
ENGINE_REGISTRIES = {"workbench.lattice.search", "workbench.privacy.registry", "workbench.privacy.kind",
                     "measures.degradation", "measures.geography"}


def test_the_app_reads_the_engines_only_through_their_registries():
    for path in _modules("workbench/ui"):
        insides = {n for n in _imports(path) if n.startswith(ENGINE_INSIDES) and n not in ENGINE_REGISTRIES}
        assert not insides, (path, sorted(insides))


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
        graph[_module_name(path)] = {n for n in _all_imports(path) if n != _module_name(path)}
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None


FACADES = ("workbench", "measures")  # the notebook API (`import workbench as wb`) and the measure registry


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_definitions(path: Path) -> set[str]:
    """Names a module defines itself (functions, classes, assignments), in its body or its if/try blocks."""
    names: set[str] = set()
    stack = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.If, ast.Try)):
            stack += [*node.body, *node.orelse, *(s for h in getattr(node, "handlers", []) for s in h.body)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def test_every_name_is_imported_from_the_module_that_defines_it():
    """One import path per name: `from M import n` needs n defined in M (or M.n a module); only the two facades
    gather names from elsewhere."""
    library = [p for folder in ("workbench", "measures") for p in _modules(folder)]
    defined = {_module_name(p): _top_level_definitions(p) for p in library}
    wrong = []
    for path in [*library, *_modules("tests"), ROOT / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in defined):
                continue
            if node.module in FACADES:
                continue
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: {a.name} from {node.module}" for a in node.names
                      if a.name not in defined[node.module] and not _is_module(f"{node.module}.{a.name}")]
    assert not wrong, "\n".join(wrong)


def test_the_notebook_api_names_the_module_that_defines_each_name():
    import importlib

    import workbench

    for name, module in workbench._EXPORTS.items():
        assert getattr(importlib.import_module(module), name).__module__ == module, name


# The app talks to the library in typed values: pages build a Study (Source.study) and get dataclasses or library
# objects back; no JSON string crosses the boundary. These are the app's only JSON encodings, each for a reason of
# its own: (module, function, call) -> why.
UI_JSON = {
    ("check.py", "_show", "json.dumps"): "the Check page's figures offered as a JSON download",
    ("memo.py", "memo_key", "json.dumps"): "a Study's memo key: its config's canonical JSON",
    ("projects.py", "encoded", "json.dumps"): "a project as the register stores it",
    ("upload.py", "hierarchy_of", "json.dumps"): "the memo key of a column's hierarchy choice",
    ("upload.py", "session_source", "json.dumps"): "the digest naming the session's prepared table",
}


def _json_calls(path: Path) -> set[tuple[str, str, str]]:
    """(file name, enclosing function, ``json.<name>``) of every call of the json module in ``path``, whether it is
    imported as ``json``, under another name or name by name (``from json import loads``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
               if a.name == "json"}
    functions = {a.asname or a.name: a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                 and n.module == "json" for a in n.names}
    found: set[tuple[str, str, str]] = set()

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name if function == "<module>" else function
        if isinstance(node, ast.Call):
            called = node.func
            if isinstance(called, ast.Attribute) and isinstance(called.value, ast.Name) and called.value.id in modules:
                found.add((path.name, function, f"json.{called.attr}"))
            elif isinstance(called, ast.Name) and called.id in functions:
                found.add((path.name, function, f"json.{functions[called.id]}"))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "<module>")
    return found


def test_the_app_passes_no_json_to_the_library():
    """No module of workbench/ui encodes or decodes JSON but the uses listed in ``UI_JSON`` (each still there), and
    no cached library call (``dual_cache``) takes a parameter named as a JSON string."""
    found = set().union(*(_json_calls(p) for p in _modules("workbench/ui")))
    assert found == set(UI_JSON), {"not listed": sorted(found - set(UI_JSON)), "gone": sorted(set(UI_JSON) - found)}
    for path in _modules("workbench/ui"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any("dual_cache" in ast.unparse(d) for d in node.decorator_list):
                named = [a.arg for a in node.args.args if "json" in a.arg]
                assert not named, (path.name, node.name, named)


def test_the_json_check_sees_every_way_of_calling_json(tmp_path):
    """``_json_calls`` finds a call through the module, an alias and an imported name, each in its function."""
    module = tmp_path / "page.py"
    module.write_text("import json\nimport json as j\nfrom json import loads as parse\n\n"
                      "def a(x):\n    return json.dumps(x)\n\n"
                      "def b(x):\n    def inner():\n        return j.loads(x)\n    return inner\n\n"
                      "c = parse('1')\n", encoding="utf-8")
    assert _json_calls(module) == {("page.py", "a", "json.dumps"), ("page.py", "b", "json.loads"),
                                   ("page.py", "<module>", "json.loads")}
