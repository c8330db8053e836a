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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem.startswith(SLOW_MODULES):
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    import shutil

    shutil.rmtree(_REGISTER_DIR, ignore_errors=True)
