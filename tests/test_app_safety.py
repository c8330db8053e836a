"""The app on a shared server: a loaded config is validated as the CLI validates it and never applied
approximately (no widget clamps or rounds a privacy parameter), settings it does not apply are named, config
bundles are bounded before they are read, and a broken hierarchy file is an error, not a traceback or a silent
fallback."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from workbench import cli
from workbench.config import MAX_K

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
TEACHING = '[data]\nsample = "teaching"\n{data}[privacy]\nk = {k}\nmax_suppression = {sup}\n' \
           '[engine]\nalgorithm = "exhaustive"\nobjective = "dm_star"\n'


def _load(toml: str, name: str = "study.toml") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="config_upload").upload(name, toml.encode(), "application/toml").run()
    assert not at.exception
    return at


def _anonymize(at: AppTest) -> AppTest:
    at.sidebar.radio[0].set_value("Anonymize").run()
    at.button[0].click().run()
    assert not at.exception
    return at


def _ran_with_k(at: AppTest) -> int | None:
    last = at.session_state["last_run"] if "last_run" in at.session_state else None
    return json.loads(last["config"])["privacy"]["k"] if last else None


def test_k_beyond_2_53_is_refused_on_load_not_run_with_k_1() -> None:
    """The issue's case: k = 2^53 + 1 ran with k = 1 ("k-anonymous with k = 1 ... verified")."""
    k = 2**53 + 1
    at = _load(TEACHING.format(data="", k=k, sup=0.0))
    assert any("privacy.k" in e.value for e in at.error), [e.value for e in at.error]
    at = _anonymize(at)
    assert not any("k = 1," in s.value for s in at.success)
    assert _ran_with_k(at) != 1


def test_the_largest_exact_k_loads_and_is_refused_by_the_run_as_in_the_cli() -> None:
    at = _load(TEACHING.format(data="", k=MAX_K, sup=0.0))
    assert not at.error
    at = _anonymize(at)
    assert _ran_with_k(at) == MAX_K  # the widget held it exactly
    assert not at.success and any("cannot be made" in e.value for e in at.error), [e.value for e in at.error]


def test_cli_refuses_k_beyond_2_53(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "study.toml"
    config.write_text(TEACHING.format(data="", k=2**53 + 1, sup=0.0), encoding="utf-8")
    assert cli.main(["run", str(config)]) == 2
    assert "privacy.k must be at most" in capsys.readouterr().err


def test_a_suppression_limit_off_the_slider_steps_is_refused_not_rounded() -> None:
    at = _load(TEACHING.format(data="", k=3, sup=0.015))
    assert any("max_suppression = 0.015" in e.value for e in at.error), [e.value for e in at.error]
    assert "an_k" not in at.session_state  # nothing of the config was applied


def test_a_suppression_limit_on_the_slider_steps_is_applied_exactly() -> None:
    at = _load(TEACHING.format(data="", k=3, sup=0.07))
    assert not at.error
    at.sidebar.radio[0].set_value("Anonymize").run()
    assert at.slider(key="an_sup").value == 0.07 and at.number_input(key="an_k").value == 3


def test_rows_of_a_sample_config_are_named_not_dropped_silently() -> None:
    at = _load(TEACHING.format(data="rows = 5\n", k=3, sup=0.0))
    warnings = [w.value for w in at.warning]
    assert any("data.rows" in w and "workbench run" in w for w in warnings), warnings
