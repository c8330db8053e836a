"""Measures of your own (workbench.config.plugins): the decorator, config plugins, entry points, and a user
measure used everywhere a built-in one is. Every measure registered here is unregistered when its test ends
(``wb.registered_within``), so no test sees another's measures."""

from __future__ import annotations

import importlib.metadata
import math
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from _cli import call
from _random_tables import random_dataset

import measures as M
import workbench as wb
import workbench.config as config_module
from workbench import compare
from workbench.compare.optima import lattice_optima
from workbench.config import load_study, plugins, study_from_dict
from workbench.errors import ConfigError, MeasureError
from workbench.study import load_dataset, run, search
from workbench.user_measure import collecting_failures

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"


def _precision_by_another_route(view) -> float:  # a column of one value (height 0) is never generalized
    return float(np.mean([np.mean(c.height / c.max_height) if c.max_height else 0.0 for c in view.columns]))


def _dm_star_by_another_route(view) -> float:
    return float((view.class_sizes().astype(np.int64) ** 2).sum())


def _dm_by_another_route(view) -> float:  # Bayardo & Agrawal: kept classes |E|², a suppressed record n
    kept = view.class_sizes(~view.suppressed)
    return float((kept.astype(np.int64) ** 2).sum() + view.n * int(view.suppressed.sum()))


@pytest.fixture
def own():
    """Three user measures equal to built-in ones by another route, unregistered afterwards."""
    with wb.registered_within() as ids:
        wb.measure(id="my_precision", name="precision by another route", monotone=True)(_precision_by_another_route)
        wb.measure(id="my_dm_star", monotone=True)(_dm_star_by_another_route)
        wb.measure(id="my_dm", monotone=False)(_dm_by_another_route)
        yield ids
    assert not {"my_precision", "my_dm_star", "my_dm"} & set(M.MEASURES)


def _write_random_config(seed: int, folder: Path, **extra: object) -> Path | None:
    """A random table and its hierarchies as files, and a config naming them (None: fewer than 4 records)."""
    dataset = random_dataset(seed, max_rows=40, max_qis=3)
    if dataset.n < 4:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    dataset.frame.to_csv(folder / "data.csv", index=False)
    lines = ['[data]', 'path = "data.csv"']
    for q in dataset.quasi_identifiers:
        (folder / f"{q}.csv").write_text(dataset.hierarchies[q].to_arx(), encoding="utf-8")
        lines += [f"[attributes.{q}]", 'role = "quasi"', f'hierarchy = "{q}.csv"']
    lines += ["[privacy]", "k = 2", f"max_suppression = {extra.get('max_suppression', 0.1)}"]
    (folder / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "config.toml"


def test_the_fixture_leaves_nothing_registered():
    assert not [m for m in M.MEASURES.values() if m.user]


@pytest.mark.parametrize("seed", range(12))
def test_a_user_measure_equal_to_a_built_in_scores_every_candidate_alike_and_finds_the_same_optimum(own, seed,
                                                                                                   tmp_path):
    path = _write_random_config(seed, tmp_path)
    if path is None:
        return
    pairs = {"my_precision": "precision", "my_dm_star": "dm_star", "my_dm": "dm"}
    study = load_study(path, [f"measures.compare={list(pairs) + list(pairs.values())!r}".replace("'", '"')])
    dataset = load_dataset(study)
    table = compare.solutions(study, dataset, candidates="all")
    assert set(table.engine) == {"lattice", "local"}
    for mine, built_in in pairs.items():
        np.testing.assert_allclose(table[mine], table[built_in], rtol=1e-12, atol=0)
    for mine, built_in in pairs.items():
        reference = search(replace(study, objective=built_in), dataset, "exhaustive")
        for algorithm in ("exhaustive", "bnb", *(("flash", "ola") if M.MEASURES[mine].monotone else ())):
            result = search(replace(study, objective=mine), dataset, algorithm)
            assert result.optimum == reference.optimum, (mine, algorithm)
            assert result.proven_optimal
            if reference.value is not None:
                assert math.isclose(result.value, reference.value, rel_tol=1e-12)
    optima = lattice_optima(study, dataset).set_index("measure")
    for mine, built_in in pairs.items():
        assert optima.solution[mine] == optima.solution[built_in]


def test_the_same_on_the_teaching_table_through_run_and_the_cli(own):
    overrides = ['measures.compare=["precision","my_precision"]']
    study = load_study(TEACHING, overrides + ['engine.objective="my_precision"'])
    result = run(study)
    assert result.scores["my_precision"].value == pytest.approx(result.scores["precision"].value, rel=1e-12)
    assert result.search.optimum == run(replace(study, objective="precision")).search.optimum
    status, out, err = call("measure", TEACHING, "--node", "date=1,gender=1,age=2", "--set", overrides[0])
    assert status == 0, err
    assert "my_precision" in out


def test_flash_proves_a_user_measures_optimum_whatever_its_monotonicity(own):
    """Flash with ARX's linear phase and bound pruning is optimal for any objective, as bnb is: on a user measure
    declared not monotone, or not declared at all, it returns exhaustive search's value, proven."""
    study = load_study(TEACHING, ['engine.objective="my_dm"', 'engine.algorithm="flash"'])
    best = run(replace(study, algorithm="exhaustive")).search.value
    found = run(study).search
    assert found.proven_optimal and found.value == pytest.approx(best)
    assert run(replace(study, algorithm="bnb")).search.proven_optimal
    with wb.registered_within():
        wb.measure(id="unknown_monotone")(_precision_by_another_route)
        assert M.MEASURES["unknown_monotone"].declared_monotone is None
        unknown = replace(study, objective="unknown_monotone")
        found = run(unknown).search
        assert found.proven_optimal
        assert found.value == pytest.approx(run(replace(unknown, algorithm="exhaustive")).search.value)


def test_registration_errors():
    with wb.registered_within():
        with pytest.raises(MeasureError, match="built-in"):
            wb.measure(id="dm")(_dm_by_another_route)
        with pytest.raises(MeasureError, match="lower-case"):
            wb.measure(id="My Measure")(_dm_by_another_route)
        with pytest.raises(MeasureError, match="column name"):
            wb.measure(id="solution")(_dm_by_another_route)
        wb.measure(id="twice")(_dm_by_another_route)
        wb.measure(id="twice")(_dm_star_by_another_route)  # the same file again: a re-run cell, replaced
        assert M.MEASURES["twice"].cell.__name__ == "cell"
    assert "twice" not in M.MEASURES


def _plugin(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("import numpy as np\nfrom workbench import measure\n\n" + textwrap.dedent(body), encoding="utf-8")
    return path


MY_PRECISION = """
@measure(id="plug_precision", name="precision by another route", monotone=True)
def plug_precision(view):
    return float(np.mean([np.mean(c.height / c.max_height) for c in view.columns]))
"""


def _config(folder: Path, plugins: list[str], compare: list[str]) -> Path:
    text = TEACHING.read_text(encoding="utf-8").split("[measures]")[0]
    text += f"[measures]\nplugins = {plugins!r}\ncompare = {compare!r}\n".replace("'", '"')
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_config_plugin_is_loaded_once_relative_to_the_config(tmp_path):
    _plugin(tmp_path / "plugins", "mine.py", MY_PRECISION + "\nCOUNT = globals().get('COUNT', 0) + 1\n")
    config = _config(tmp_path, ["plugins/mine.py"], ["precision", "plug_precision"])
    with wb.registered_within():
        first = load_study(config)
        second = load_study(config, ["privacy.k=2"])  # loaded again: the file does not run again
        assert first.plugins == second.plugins == (tmp_path / "plugins" / "mine.py",)
        assert M.MEASURES["plug_precision"].origin == str((tmp_path / "plugins" / "mine.py").resolve())
        listed = {m["id"]: m for m in wb.user_measures()}
        assert listed["plug_precision"]["registered by"].startswith("plugin ")
        result = run(first)
        assert result.scores["plug_precision"].value == pytest.approx(result.scores["precision"].value)
        status, out, err = call("compare", config)
        assert status == 0, err
        assert "plug_precision" in out
    assert "plug_precision" not in M.MEASURES


def test_plugin_errors_name_the_file(tmp_path):
    cases = {
        "missing": (None, "does not exist"),
        "broken.py": ("import no_such_module_here\n", "failed to import: ModuleNotFoundError"),
        "syntax.py": ("def (:\n", "failed to import: SyntaxError"),
        "empty.py": ("X = 1\n", "registers no measure"),
        "builtin.py": ('@measure(id="loss")\ndef f(view):\n    return 0.0\n', "built-in"),
    }
    for name, (body, expected) in cases.items():
        folder = tmp_path / name.replace(".", "_")
        if body is not None:
            _plugin(folder, name, body)
        config = _config(folder, [name], ["precision"])
        with wb.registered_within(), pytest.raises(ConfigError, match=expected) as info:
            load_study(config)
        assert name in str(info.value) and str(config) in str(info.value)
        status, _, err = call("run", config)
        assert status == 2 and name in err and len(err.strip().splitlines()) == 1


def test_two_files_registering_one_id_is_refused_and_the_failing_file_registers_nothing(tmp_path):
    _plugin(tmp_path / "a", "mine.py", MY_PRECISION)
    _plugin(tmp_path / "b", "mine.py", MY_PRECISION + '\n@measure(id="plug_other")\ndef other(view):\n    return 1.0\n')
    with wb.registered_within():
        load_study(_config(tmp_path / "a", ["mine.py"], ["plug_precision"]))
        with pytest.raises(ConfigError, match=r"b/mine.py: measure id 'plug_precision' is already registered by"):
            load_study(_config(tmp_path / "b", ["mine.py"], ["plug_precision"]))
        assert "plug_other" not in M.MEASURES


FAILING = """
@measure(id="fragile")
def fragile(view):
    levels = [int(c.height[0]) for c in view.columns]
    if levels == [0, 0, 4]:
        raise ZeroDivisionError("boom")
    if levels == [1, 1, 2]:
        return float("nan")
    return float(sum(levels))
"""


def test_a_failing_measure_names_file_measure_and_node_and_the_comparison_keeps_the_rest(tmp_path):
    plugin = _plugin(tmp_path, "fragile.py", FAILING)
    config = _config(tmp_path, ["fragile.py"], ["height", "fragile"])
    with wb.registered_within():
        status, _, err = call("measure", config, "--node", "date=0,gender=0,age=4")
        assert status == 2
        assert err.count("\n") == 1 and "'fragile'" in err and str(plugin.resolve()) in err
        assert "ZeroDivisionError: boom" in err and "node date=0,gender=0,age=4" in err
        status, out, err = call("compare", config)
        assert status == 2
        assert "raised ZeroDivisionError: boom on node date=0,gender=0,age=4" in err
        assert "returned nan on node date=1,gender=1,age=2" in err
        assert "greedy" in out and "partition" in out and "height" in out
        study = load_study(config)
        with collecting_failures() as failures:
            table = compare.solutions(study, load_dataset(study))
        assert table.height.notna().all() and table.fragile.isna().sum() == len(failures) >= 2
        lattice = table[table.engine == "lattice"].set_index("solution").fragile
        assert lattice.isna()[["date=0,gender=0,age=4", "date=1,gender=1,age=2"]].all()
        with pytest.raises(MeasureError, match="fragile"):
            run(replace(study, objective="fragile", algorithm="exhaustive"))


def test_an_uploaded_config_never_runs_its_plugins(tmp_path):
    marker = tmp_path / "ran"
    _plugin(tmp_path, "evil.py", f"open({str(marker)!r}, 'w').write('x')\n" + MY_PRECISION)
    raw = {"data": {"sample": "teaching"}, "attributes": {"age": {"role": "quasi"}},
           "measures": {"plugins": ["evil.py"], "compare": ["plug_precision"]}}
    with pytest.raises(ConfigError, match="never from an upload"):
        study_from_dict(raw, tmp_path, "upload.toml")
    assert not marker.exists()


def test_an_installed_package_registers_through_the_entry_point_group(tmp_path, monkeypatch):
    (tmp_path / "wb_test_measures_pkg.py").write_text(
        "from workbench import measure\n\n@measure(id='installed_height', monotone=True)\n"
        "def installed_height(view):\n    return float(sum(int(c.height[0]) for c in view.columns))\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    points = [importlib.metadata.EntryPoint("mine", "wb_test_measures_pkg", plugins.ENTRY_POINT_GROUP),
              importlib.metadata.EntryPoint("broken", "no_such_pkg_x", plugins.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(plugins.importlib.metadata, "entry_points",
                        lambda group: [p for p in points if p.group == group])
    monkeypatch.setattr(plugins, "_installed", None)
    with wb.registered_within():
        errors = plugins.load_installed()
        assert len(errors) == 1 and "no_such_pkg_x" in errors[0]
        assert M.MEASURES["installed_height"].user
        study = load_study(TEACHING, ['measures.compare=["height","installed_height"]'])
        result = run(study)
        assert result.scores["installed_height"].value == result.scores["height"].value
    monkeypatch.setattr(plugins, "_installed", None)


def test_the_server_loads_the_plugins_of_its_config_once(tmp_path, monkeypatch):
    _plugin(tmp_path, "mine.py", MY_PRECISION)
    config = _config(tmp_path, ["mine.py"], ["plug_precision"])
    monkeypatch.setattr(config_module, "_server", None)
    monkeypatch.setattr(plugins, "_installed", [])
    monkeypatch.setenv(config_module.SERVER_CONFIG, str(config))
    with wb.registered_within():
        assert wb.load_server_measures() == []
        assert [m["id"] for m in wb.user_measures()] == ["plug_precision"]
    monkeypatch.setattr(config_module, "_server", None)
    monkeypatch.setenv(config_module.SERVER_CONFIG, str(tmp_path / "nope.toml"))
    assert "config file not found" in wb.load_server_measures()[0]
    monkeypatch.setattr(config_module, "_server", None)
