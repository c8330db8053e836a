"""The app on a shared server: a loaded config is validated as the CLI validates it and never applied
approximately (no widget clamps or rounds a privacy parameter), settings it does not apply are named, config
bundles are bounded before they are read, and a broken hierarchy file is an error, not a traceback or a silent
fallback."""

from __future__ import annotations

import io
import sys
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests._app import goto
from workbench import cli
from workbench.config import MAX_K
from workbench.config.bundle import (
    BUNDLE_MAX_MEMBER_BYTES,
    BUNDLE_MAX_MEMBERS,
    BUNDLE_MAX_TOTAL_BYTES,
    read_config_bytes,
)
from workbench.errors import ConfigError
from workbench.ui import upload

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
sys.path.insert(0, str(ROOT / "tests"))  # the own-data helpers of test_app_own_data
TEACHING = '[data]\nsample = "teaching"\n{data}[privacy]\nk = {k}\nmax_suppression = {sup}\n' \
           '[engine]\nalgorithm = "exhaustive"\nobjective = "dm_star"\n'


def _load(toml: str, name: str = "study.toml") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="config_upload").upload(name, toml.encode(), "application/toml").run()
    assert not at.exception
    return at


def _anonymize(at: AppTest) -> AppTest:
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception
    return at


def _ran_with_k(at: AppTest) -> int | None:
    last = at.session_state["last_run"] if "last_run" in at.session_state else None
    return last.study.k if last else None


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
    goto(at, "Anonymize").run()
    assert at.slider(key="an_sup").value == 7.0 and at.number_input(key="an_k").value == 3


def test_rows_of_a_sample_config_are_named_not_dropped_silently() -> None:
    at = _load(TEACHING.format(data="rows = 5\n", k=3, sup=0.0))
    warnings = [w.value for w in at.warning]
    assert any("data.rows" in w and "workbench run" in w for w in warnings), warnings



def test_a_config_s_workers_and_cluster_are_named_not_used_by_the_shared_server() -> None:
    """engine.jobs, engine.sweep_backend and engine.scheduler say where `workbench compare` runs; the app runs on the
    server's own bounded pool and never connects to a cluster an uploaded config names."""
    at = _load(TEACHING.format(data="", k=3, sup=0.0) + 'jobs = 2\nsweep_backend = "threading"\n')
    warnings = [w.value for w in at.warning]
    assert any("engine.jobs, engine.sweep_backend not applied" in w for w in warnings), warnings

# ------------------------------------------------------------------------------------------------ 6. bounds
def _bomb(member_bytes: int, members: int = 1) -> bytes:
    """A small zip whose members decompress to ``member_bytes`` each (zeros compress about 1000:1)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("config.toml", TEACHING.format(data="", k=3, sup=0.0))
        chunk = b"\0" * 2**20
        for i in range(members):
            with z.open(f"hierarchies/h{i}.csv", "w") as handle:
                for _ in range(member_bytes // len(chunk)):
                    handle.write(chunk)
                handle.write(b"\0" * (member_bytes % len(chunk)))
    return buffer.getvalue()


def test_a_compressed_giant_member_is_refused_before_it_is_read() -> None:
    bundle = _bomb(200 * 2**20)  # 200 MiB of zeros in about 200 KB
    assert len(bundle) < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError, match="uncompressed, more than"):
            read_config_bytes(bundle, "bundle.zip")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, peak  # nothing near the member's size was allocated


def test_bundle_member_count_and_total_are_bounded() -> None:
    with pytest.raises(ConfigError, match="files, more than"):
        read_config_bytes(_bomb(0, members=BUNDLE_MAX_MEMBERS + 1), "many.zip")
    per_member = BUNDLE_MAX_MEMBER_BYTES - 1
    members = BUNDLE_MAX_TOTAL_BYTES // per_member + 1
    with pytest.raises(ConfigError, match="bytes uncompressed, more than"):
        read_config_bytes(_bomb(per_member, members=members), "large.zip")


def test_the_app_answers_a_bundle_bomb_with_a_message() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="config_upload").upload("bomb.zip", _bomb(200 * 2**20), "application/zip").run()
    assert not at.exception
    assert any("uncompressed, more than" in e.value for e in at.error), [e.value for e in at.error]


def test_every_upload_widget_carries_its_own_size_limit() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    limits = {u.proto.label[:20]: u.proto.max_upload_size_mb for u in at.get("file_uploader")}
    assert sorted(limits.values()) == sorted([upload.MAX_MB, upload.MAX_CONFIG_MB]), limits


def test_an_upload_over_its_limit_is_refused_by_the_server_too() -> None:
    """The browser enforces the widget's limit; a client need not, so the page checks the size as well."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    big = b"a,b\n" + b"1,2\n" * ((upload.MAX_CONFIG_MB * 2**20) // 4 + 1)
    at.file_uploader(key="config_upload").upload("big.toml", big, "application/toml").run()
    assert not at.exception
    assert any("this upload takes at most" in e.value for e in at.error), [e.value for e in at.error]


# ------------------------------------------------------------------------------------------------ 8. hierarchies
def _ready_own_data() -> AppTest:
    from test_app_own_data import _hierarchies, _table, _uploaded, _with_roles

    content = _table()
    at = _hierarchies(_with_roles(_uploaded(content), content))
    assert any("Every quasi-identifier has a valid hierarchy" in s.value for s in at.success)
    return at


def test_an_arx_file_with_unequal_rows_is_an_error_not_a_traceback() -> None:
    at = _ready_own_data()
    at.file_uploader(key="arxfile:sex").upload("ragged.csv", b"F;*\nM;x;*\n", "text/csv").run()
    assert not at.exception
    assert any("unequal length" in e.value for e in at.error), [e.value for e in at.error]
    assert not any("valid hierarchy" in s.value for s in at.success)


def test_an_arx_file_that_is_not_utf8_leaves_the_column_without_a_hierarchy() -> None:
    """It used to show the error and then "every quasi-identifier has a valid hierarchy", running on with the
    previously imported file."""
    at = _ready_own_data()
    at.file_uploader(key="arxfile:sex").upload("sex16.csv", "F;*\nM;*\n".encode("utf-16"), "text/csv").run()
    assert not at.exception
    assert any("not UTF-8" in e.value for e in at.error)
    assert not any("valid hierarchy" in s.value for s in at.success)
    assert any("sex ✗" in c.value for c in at.caption), [c.value for c in at.caption]
