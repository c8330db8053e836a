"""An uploaded table's provenance: the report and ``provenance.json`` name it by the base name of the name the
browser sent and by the SHA-256 of the uploaded bytes; no name a client sends ever becomes a path the server opens
(docs/deploy.md, docs/report.md). A CLI study keeps the SHA-256 of its data file."""

from __future__ import annotations

import builtins
import hashlib
import io
import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import workbench as wb
from tests._app import APP, goto
from workbench.config import study_from_dict
from workbench.data import Dataset
from workbench.errors import DataError
from workbench.hierarchy.builders import build_hierarchy
from workbench.readers import base_name, read_table_bytes, upload_name
from workbench.release.export import DATA_FILE, UPLOADED_BYTES, input_record

CLIENT_NAMES = ["/srv/x/other.csv", "..\\..\\x.csv", "/etc/passwd.csv", "C:\\Users\\ana\\data.csv",
                "C:data.csv", "a/b\\c/../d.csv"]


def _table(n: int = 240, seed: int = 3) -> bytes:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                          "zip": rng.choice(["02139", "02138", "02141", "02142"], n),
                          "diagnosis": rng.choice(["flu", "asthma"], n)})
    return frame.to_csv(index=False).encode()


def _expected_base(name: str) -> str:
    """The base name written from its definition: after the last / or \\, without a drive letter."""
    last = name.replace("\\", "/").rsplit("/", 1)[-1]
    return last[2:] if len(last) > 1 and last[1] == ":" and last[0].isalpha() else last


@pytest.mark.parametrize("name", CLIENT_NAMES)
def test_an_uploads_name_keeps_only_its_base_name(name):
    assert upload_name(name) == base_name(name) == _expected_base(name)
    assert "/" not in upload_name(name) and "\\" not in upload_name(name)


@pytest.mark.parametrize("name", ["", ".", "..", "a/..", "..\\..", "/", "C:", "x/.\x00"])
def test_a_name_that_names_no_file_is_refused_in_one_line(name):
    assert base_name(name) == ""
    with pytest.raises(DataError) as caught:
        upload_name(name)
    assert "\n" not in str(caught.value) and "names no file" in str(caught.value)


@given(st.text(alphabet=st.sampled_from(list("ab./\\:C\x00\n ")), max_size=14))
def test_a_base_name_never_leaves_the_folder_it_is_put_in(name):
    base = base_name(name)
    assert "/" not in base and "\\" not in base and "\x00" not in base and base not in (".", "..")
    folder = Path("/nonexistent/uploads")
    if base:
        assert (folder / base).resolve().parent == folder.resolve()  # one name inside the folder, never above it


class _Opened:
    """Every path opened while it records (builtins.open and io.open; Path.read_bytes and Path.open use them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = builtins.open

        def recording(file, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
            if isinstance(file, str | bytes | os.PathLike):
                self.paths.append(os.fsdecode(file))
            return real(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", recording)
        monkeypatch.setattr(io, "open", recording)

    def touching(self, name: str) -> list[str]:
        base = _expected_base(name)
        return [p for p in self.paths if p.endswith(base) or name in p]


def _uploaded_study(content: bytes, client_name: str) -> tuple[wb.Study, Dataset]:
    """What the app makes of an upload: the table read from its bytes under its base name, a Dataset carrying the
    bytes' digest, and a study config whose [data] path is the base name (as the Export page's config has it)."""
    name = upload_name(client_name)
    frame = read_table_bytes(content, name)
    hierarchies = {"age": build_hierarchy({"kind": "intervals", "widths": [10, 20, 40]}, frame["age"].tolist(),
                                          name="age"),
                   "sex": build_hierarchy({"kind": "groupings", "levels": [{"F": "*", "M": "*"}]},
                                          frame["sex"].tolist(), name="sex")}
    dataset = Dataset.create(frame, {"age": "quasi", "sex": "quasi", "zip": "insensitive"}, hierarchies,
                             source=name, input_sha256=hashlib.sha256(content).hexdigest(), uploaded=True)
    study = study_from_dict({"data": {"path": name}, "privacy": {"k": 4},
                             "attributes": {"age": {"role": "quasi"}, "sex": {"role": "quasi"}},
                             "engine": {"kind": "lattice", "algorithm": "flash", "objective": "entropy"},
                             "measures": {"compare": ["loss", "dm"]}})
    return study, dataset


@pytest.mark.parametrize("client_name", ["/srv/x/other.csv", "..\\..\\x.csv", "/etc/passwd.csv"])
def test_the_report_of_an_upload_hashes_the_uploaded_bytes_and_opens_no_path_the_client_sent(
        client_name, tmp_path, monkeypatch):
    content = _table()
    base = _expected_base(client_name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / base).write_bytes(b"age,sex\n1,F\n")  # a decoy where the old report opened the name: never read
    study, dataset = _uploaded_study(content, client_name)
    opened = _Opened(monkeypatch)
    result = wb.run(study, dataset)
    report = wb.build_report(study, result)
    files = result.release.export_bytes(seed=study.seed, config=dict(study.raw), measures={},
                                        suppressed_policy=study.suppressed)
    assert opened.touching(client_name) == []
    digest = hashlib.sha256(content).hexdigest()
    provenance = report.facts.provenance
    assert provenance["file_sha256"] == digest != hashlib.sha256((tmp_path / base).read_bytes()).hexdigest()
    assert provenance["source"] == base and provenance["file_sha256_label"] == "SHA-256 of the uploaded bytes"
    assert digest in report.html and f"<td>{base}</td>" in report.html
    assert client_name not in report.html and "/srv" not in report.html and "\\" not in report.html
    written = json.loads(files["provenance"])["input"]  # the release's provenance.json says the same
    assert written == {**input_record(dataset), "records": len(dataset.frame),
                       "content_sha256": written["content_sha256"]}
    assert (written["source"], written["file_sha256"], written["file_sha256_of"]) == (base, digest, UPLOADED_BYTES)


def test_a_cli_study_keeps_the_sha256_of_its_data_file(tmp_path):
    """A config's data file: the report and ``workbench run --out``'s provenance.json both give the SHA-256 of the
    file's bytes (hashlib over the file, independently) and its path as the config gave it."""
    from tests._cli import call

    content = _table(120)
    (tmp_path / "people.csv").write_bytes(content)
    (tmp_path / "study.toml").write_text(textwrap.dedent("""
        [data]
        path = "people.csv"
        [attributes.age]
        role = "quasi"
        builder = { kind = "intervals", widths = [10, 20, 40] }
        [attributes.sex]
        role = "quasi"
        builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }
        [privacy]
        k = 3
        [measures]
        compare = ["loss"]
    """), encoding="utf-8")
    study = wb.load_study(tmp_path / "study.toml")
    result = wb.run(study)
    report = wb.build_report(study, result)
    digest = hashlib.sha256((tmp_path / "people.csv").read_bytes()).hexdigest()
    assert report.facts.provenance["file_sha256"] == digest
    assert report.facts.provenance["file_sha256_label"] == "input file SHA-256"
    status, _, stderr = call("run", tmp_path / "study.toml", "--out", tmp_path / "out")
    assert status == 0, stderr
    written = json.loads((tmp_path / "out" / "provenance.json").read_text(encoding="utf-8"))["input"]
    assert (written["source"], written["file_sha256"], written["file_sha256_of"]) == (
        str(study.data_path), digest, DATA_FILE) == (report.facts.provenance["source"], digest, DATA_FILE)


def test_an_embedded_sample_has_no_file_hash():
    study = wb.load_study(Path(__file__).resolve().parents[1] / "sample_configs" / "teaching.toml")
    result = wb.run(study)
    assert input_record(result.dataset) == {"source": "sample:teaching"}
    assert wb.build_report(study, result).facts.provenance["file_sha256"] is None


# ------------------------------------------------------------------------------------------------ the app (AppTest)
def _app_upload(content: bytes, name: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="data_upload").upload(name, content, "text/csv").run()
    assert not at.exception
    return at


def test_the_app_builds_the_report_of_an_upload_named_by_a_server_path(monkeypatch):
    """Upload a table whose client-sent name is a server path, make it ready, run, export, build the report: the
    report holds the base name and the uploaded bytes' SHA-256, the page no traceback and no path; nothing named
    so is opened on the server."""
    content, client_name = _table(), "/srv/data/patients.csv"
    opened = _Opened(monkeypatch)
    at = _app_upload(content, client_name)
    sha = hashlib.sha256(content).hexdigest()
    assert any(c.value.startswith("patients.csv:") for c in at.caption)  # the base name names it
    at.multiselect(key=f"role:quasi:{sha}").set_value(["age", "sex", "zip"]).run()
    goto(at, "Hierarchies").run()
    at.button(key="h_accept_all").click().run()
    goto(at, "Anonymize").run()
    at.number_input[0].set_value(3).run()
    at.button[0].click().run()
    assert not at.exception and "k-anonymous" in at.success[0].value
    goto(at, "Export").run()
    next(b for b in at.button if b.label == "Build the report").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [b.proto.label for b in at.get("download_button")][-1] == "Report (HTML)"
    html = at.session_state["report_html"][1].decode("utf-8")
    assert sha in html and "SHA-256 of the uploaded bytes" in html and "patients.csv" in html
    assert "/srv" not in html and "Traceback" not in html
    shown = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info])
    assert "/srv" not in shown
    assert opened.touching(client_name) == []


def test_an_upload_named_by_a_server_file_is_read_from_its_bytes_and_named_by_its_base_name(monkeypatch):
    opened = _Opened(monkeypatch)
    at = _app_upload(b"user,shell\nroot,/bin/bash\n", "/etc/passwd.csv")
    assert not at.exception and not at.error
    assert any(c.value.startswith("passwd.csv: 1 rows") for c in at.caption), [c.value for c in at.caption]
    assert [p for p in opened.paths if p.endswith("passwd.csv")] == []


class _Upload:
    """What a client may send past the browser's file chooser: any name, any bytes."""

    def __init__(self, name: str, content: bytes) -> None:
        self.name, self._content, self.size = name, content, len(content)

    def getvalue(self) -> bytes:
        return self._content


@pytest.mark.parametrize(("name", "message"), [("..", "names no file"), ("a/b/..", "names no file"),
                                               ("/etc/passwd", "passwd: unsupported file type (none)")])
def test_an_upload_whose_name_names_no_table_is_refused_in_one_line(name, message, monkeypatch):
    """Streamlit's uploader refuses a name without one of its suffixes before the page runs; the page's own check
    refuses it too (and any name that is only folders), naming the base name, never the path."""
    from types import SimpleNamespace

    from workbench.ui import upload

    monkeypatch.setattr(upload.S, "UPLOAD", SimpleNamespace(get=lambda: _Upload(name, b"a,b\n1,2\n")))
    opened = _Opened(monkeypatch)
    error = upload.take_upload()
    assert error is not None and message in error and "\n" not in error and "/etc" not in error
    assert opened.touching(name) == [] if base_name(name) else opened.paths == []


def test_the_app_never_loads_a_data_path_for_a_config_without_the_sessions_table():
    """Defence in depth: a library call of the app given a config with a [data] path and no session table refuses
    instead of reading the file."""
    from workbench.ui.cached import dataset_for

    with pytest.raises(DataError, match="never a data path"):
        dataset_for(study_from_dict({"data": {"path": "/etc/passwd.csv"}}), None)


def test_config_hierarchy_and_points_uploads_are_named_by_their_base_names(monkeypatch):
    """The Data page's config upload, the Hierarchies page's ARX import and the Geography page's points table, each
    sent under a path: each is read from its bytes and named by its base name; nothing so named is opened."""
    from workbench.samples import province
    from workbench.ui import geography_data
    from workbench.ui.state_upload import WORKSPACE

    opened = _Opened(monkeypatch)
    content = _table()
    at = _app_upload(content, "C:\\Users\\ana\\patients.csv")
    config = (b'[data]\npath = "/srv/data/patients.csv"\n[attributes.sex]\nrole = "quasi"\n'
              b'builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }\n')
    at.file_uploader(key="config_upload").upload("/srv/conf/study.toml", config, "application/toml").run()
    assert not at.exception and not at.error
    said = [e.value for e in [*at.success, *at.caption]]
    assert any(t.startswith(("study.toml loaded", "study.toml is loaded")) for t in said), said
    assert at.selectbox(key="dataset").value == "uploaded"  # sex's hierarchy came with the config: ready
    goto(at, "Hierarchies").run()
    at.selectbox(key="h_column").select("sex").run()
    at.radio(key="mode:sex").set_value("Import an ARX file").run()
    at.file_uploader(key="arxfile:sex").upload("..\\..\\h\\sex.csv", b"F;*\nM;*\n", "text/csv").run()
    assert not at.exception and at.session_state[WORKSPACE.key]["hierarchies"]["sex"]["file"] == "sex.csv"

    frame, points = province.generate(regions=6, seed=3)
    at = _app_upload(frame[["region", "sex", "age"]].to_csv(index=False).encode(), "/srv/data/people.csv")
    goto(at, "Geography").run()
    at.file_uploader(key=geography_data.POINTS_UPLOAD).upload(
        "/srv/geo/regions.csv", points.to_csv(index=False).encode(), "text/csv").run()
    assert not at.exception and not at.error
    assert any(c.value.startswith("Points: regions.csv (6 regions)") for c in at.caption)
    shown = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.warning, *at.info, *at.success])
    assert "/srv" not in shown and "C:" not in shown
    assert [p for p in opened.paths if p.endswith(("patients.csv", "study.toml", "sex.csv", "regions.csv"))] == []
