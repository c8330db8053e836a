"""The team-server configuration of docs/deploy.md: every option is one Streamlit knows, with a value of the right
type; the limits agree with the app's own; and a server started with it comes up without a warning."""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

import pytest
from streamlit import config as st_config

from tests._server import free_port, streamlit_server
from workbench.ui import upload

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "deploy" / "config.toml"


def _options(path: Path) -> dict[str, object]:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    return {f"{section}.{key}": value for section, table in raw.items() for key, value in table.items()}


@pytest.mark.parametrize("path", [EXAMPLE, ROOT / ".streamlit" / "config.toml"], ids=["example", "project"])
def test_every_option_is_a_streamlit_option_of_the_right_type(path: Path) -> None:
    known = st_config._config_options_template
    for name, value in _options(path).items():
        assert name in known, f"{path.name}: {name} is not a Streamlit option"
        assert isinstance(value, known[name].type), (name, value, known[name].type)


def test_the_example_keeps_the_server_private_and_the_app_limits_within_it() -> None:
    options = _options(EXAMPLE)
    assert options["server.address"] in ("127.0.0.1", "localhost")
    assert options["server.enableXsrfProtection"] is True and options["browser.gatherUsageStats"] is False
    assert options["client.showErrorDetails"] == "none" and options["server.enableAgentApi"] is False
    assert options["server.maxUploadSize"] >= max(upload.MAX_MB, upload.MAX_CONFIG_MB, upload.MAX_HIERARCHY_MB)
    assert f"maxUploadSize = {options['server.maxUploadSize']}" in (ROOT / "docs" / "deploy.md").read_text()


def test_a_server_starts_with_the_example(tmp_path: Path) -> None:
    (tmp_path / ".streamlit").mkdir()
    port = free_port()
    text = EXAMPLE.read_text(encoding="utf-8").replace("port = 8501", f"port = {port}")
    (tmp_path / ".streamlit" / "config.toml").write_text(text, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_PREFETCH": "0", "HOME": str(tmp_path)}
    log = tmp_path / "server.log"
    try:
        with open(log, "wb") as handle, streamlit_server(
                env, port, cwd=tmp_path, host="127.0.0.1", output=handle,
                failure=lambda: "streamlit did not start with the example configuration: " + log.read_text()):
            output = log.read_text()
            assert "not a valid config option" not in output and f":{port}" in output, output
    finally:
        shutil.rmtree(tmp_path / ".streamlit", ignore_errors=True)
