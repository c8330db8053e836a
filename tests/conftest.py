"""Shared fixtures: the embedded Adult sample and ARX's conformance values (tests/fixtures/conformance)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("WORKBENCH_PREFETCH", "0")  # AppTest timings are their own; test_prefetch turns it on
# No test writes into the user's real register (docs/register.md): the session's register is a temporary SQLite file,
# inherited by the app servers and commands the tests start, and every test gets its own (below).
_REGISTER_DIR = tempfile.mkdtemp(prefix="workbench-register-tests-")
os.environ["WORKBENCH_REGISTER"] = f"sqlite:///{_REGISTER_DIR}/session.sqlite"

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "workbench" / "samples" / "adult"  # the embedded Adult data and ARX's hierarchy files
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance" / "arx-adult-8qi-k5-node-values.json"


@pytest.fixture(scope="session")
def adult_dataset():
    from workbench.config import load_study
    from workbench.study import load_dataset

    return load_dataset(load_study(ROOT / "sample_configs" / "adult.toml"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Each test records into a register of its own, a SQLite file in a temporary folder: set before any fixture of
    the test is (a module's fixture records into the register of the first test that uses it)."""
    name = "".join(c if c.isalnum() else "_" for c in item.nodeid)[-120:]
    os.environ["WORKBENCH_REGISTER"] = f"sqlite:///{_REGISTER_DIR}/{name}.sqlite"


def pytest_runtest_teardown(item: pytest.Item) -> None:
    import sys

    store = sys.modules.get("workbench.register.store")
    if store is not None:  # the opened registers' connections go with the test
        store.close_all()


# The fast loop (`make test-fast`) leaves out what drives the app or a browser, executes notebooks, reproduces
# a published study or runs at scale: every test of these modules is marked slow.
SLOW_MODULES = ("test_app", "test_browser", "test_downloads", "test_notebooks", "test_docs_examples", "test_sessions",
                "test_geo_app",
                "test_deploy_config", "test_scale", "test_arx_", "test_el_emam_study", "test_ayala_rivera_study",
                "test_local_studies")


# Tests of the library modules that run at full size (the registry, Adult, ARX's published cases) are slow too: each
# still runs in `make test`, while the fast loop keeps the property tests against brute force on small random tables.
# Keys are "module::test" (any parameters), "module::" (a whole module) or "module::*[parameters]"; values say why.
SLOW_TESTS = {
    "test_privacy::test_arx_junit_optimum": "ARX's published optima on Adult",
    "test_privacy::test_grassberger_differs_from_arx_only_by_its_early_exit": "two bnb searches on Adult",
    "test_privacy_models::test_arx_junit_optimum": "ARX's published optima on Adult",
    "test_check::test_on_adult_every_figure_equals_pycanon": "pyCANON on Adult",
    "test_delta_presence::test_arx_junit_optimum": "ARX's published optima on Adult",
    "test_compare_optimum::test_registry_k5_5pct_dm_optimum_is_474388_not_the_best_k_minimal_node":
        "every registry node, cell level",
    "test_compare_optimum::test_compare_cli_prints_and_writes_the_true_optimum": "the registry's comparison",
    "test_compare_optimum::test_lattice_overview_on_the_registry_ola_and_flash_with_dm": "the registry's lattice",
    **dict.fromkeys([f"test_cli::{name}" for name in (
        "test_run_json_prints_one_object_with_the_contract_keys", "test_out_writes_release_and_provenance",
        "test_release_keeps_column_order_without_identifying_columns",
        "test_release_is_k_anonymous_with_suppressed_rows_marked", "test_release_rows_are_shuffled",
        "test_shuffle_is_reproducible_with_the_same_seed", "test_provenance",
        "test_human_readable_run_names_node_measures_and_files")], "the registry run twice (module fixture)"),
    "test_class_count::*[registry]": "the registry's run, released and read back (module fixture)",
    "test_sweep::test_the_studies_grids_give_the_same_rows": "the published studies' grids",
    "test_sweep::test_ayala_riveras_grid_gives_the_same_rows": "a published study's grid",
    "test_search_bnb::test_checks_fewer_nodes_than_exhaustive_on_the_registry": "the registry's lattice",
    "test_search_bnb::test_prunes_on_adult": "Adult",
    "test_risk_population::test_workbench_risk_of_a_research_subset_measures_journalist_risk_against_its_population":
        "a population table",
    "test_explore::test_a_user_measure_declared_monotone_that_is_not_is_flagged": "the registry, twice",
    "test_explore::test_on_the_registry_at_k5_with_5_percent_dm_and_loss_break_monotonicity_and_monotone_ones_do_not":
        "the registry",
    "test_report_summary::test_the_registry_warns_that_a_second_release_singles_out_people":
        "the registry's run and a second release (module fixture)",
    "test_report_summary::test_the_remedy_a_release_that_generalizes_both_is_checked": "the same registry fixture",
    "test_report_summary::test_l_diversity_and_t_closeness_are_said_in_words": "Adult's runs under l and t",
    **dict.fromkeys([f"test_degradation::{name}" for name in (
        "test_shape_reproducible_and_progress", "test_identical_release_has_no_degradation",
        "test_everything_generalized_away_is_zeror", "test_suppressed_cells_are_missing_whatever_they_hold",
        "test_all_suppressed_predicts_the_prior")], "every classifier trained on five folds of two tables"),
    "test_report_pdf::": "the report laid out as PDF pages (WeasyPrint) and read back",
    "test_report::test_the_command_writes_html_and_pdf_whole_and_refuses_to_overwrite": "the report's PDF, twice",
    "test_dependencies::test_the_guard_is_fast_on_300000_records": "300,000 records",
    "test_cli_search::test_run_accepts_every_algorithm_and_writes_its_trace": "the registry searched by every search",
    "test_mondrian::test_on_adult_at_k10_mondrian_beats_the_best_full_domain_node_on_loss_within_seconds": "Adult",
    "test_local_privacy::test_mondrian_on_adult_with_other_variants": "Adult under each variant",
    "test_local::test_col_mi_weights_option_reaches_measure_and_engine": "the registry's local run, twice",
    "test_sweep::test_a_dask_cluster_gives_the_same_table": "a Dask cluster",
    "test_sweep::test_user_measures_reach_the_worker_processes_and_their_failures_come_back": "worker processes",
    "test_sweep::test_two_local_jobs_give_the_same_table": "worker processes or threads, each setting",
}


def _slow_test(item: pytest.Item) -> bool:
    if item.path.stem.startswith(SLOW_MODULES):
        return True
    test = f"{item.path.stem}::{item.name}"
    for key in SLOW_TESTS:
        if "*" in key:
            prefix, suffix = key.split("*", 1)
            if test.startswith(prefix) and test.endswith(suffix):
                return True
        elif test.startswith(key) if key.endswith("::") else test.split("[")[0] == key:
            return True
    return False


# A test that starts the app (AppTest), a browser, an app server or a command in a process of its own is slow wherever
# it is: found by the names its source, its module's helpers or its fixtures use.
APP_OR_PROCESS_DRIVERS = ("AppTest", "app_server", "sync_playwright", "ready_own_table", "captured_downloads",
                          "subprocess.", "run_cli_subprocess")


def _driving_helpers(module: object) -> set[str]:
    """Names of ``module``'s functions (fixtures included) that start the app or a process, directly or through each
    other."""
    import inspect

    sources = {}
    for name, value in vars(module).items():
        function = getattr(value, "__wrapped__", value)  # a fixture's function
        if inspect.isfunction(function) and function.__module__ == module.__name__:
            try:
                sources[name] = inspect.getsource(function)
            except OSError:
                continue
    drivers: set[str] = set()
    markers = set(APP_OR_PROCESS_DRIVERS)
    while True:
        found = {name for name, text in sources.items() if name not in drivers and any(m in text for m in markers)}
        if not found:
            return drivers
        drivers |= found
        markers |= {f"{name}(" for name in found} | {f"{name}," for name in found} | {f"{name})" for name in found}


def _starts_the_app_or_a_process(item: pytest.Item, helpers: dict[str, set[str]]) -> bool:
    module = getattr(item, "module", None)
    if module is None:
        return False
    if module.__name__ not in helpers:
        helpers[module.__name__] = _driving_helpers(module)
    mine = helpers[module.__name__]
    name = getattr(item, "originalname", item.name)
    return name in mine or any(fixture in mine for fixture in getattr(item, "fixturenames", ()))


def pytest_configure(config: pytest.Config) -> None:
    """The fast loop (``-m "not slow"``) draws fewer random examples per property test (``tests/_examples.py``)."""
    if (config.getoption("markexpr", "") or "").strip() == "not slow":
        os.environ["WORKBENCH_FAST_TESTS"] = "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    helpers: dict[str, set[str]] = {}
    for item in items:
        if _slow_test(item) or _starts_the_app_or_a_process(item, helpers):
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    import shutil

    shutil.rmtree(_REGISTER_DIR, ignore_errors=True)
