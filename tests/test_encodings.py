"""Tables saved by a spreadsheet on Windows (Windows-1252, Latin-1) load in the CLI and the app, with a line
saying which encoding was used; binary files are still refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests._cli import call
from workbench.errors import DataError
from workbench.readers import encoding_note, read_table_bytes

APP = str(Path(__file__).resolve().parents[1] / "app.py")
ROWS = [("José", "34", "Montréal"), ("Ana", "40", "Québec"), ("Zoë", "29", "Trois-Rivières"), ("Ole", "51", "Gävle")]
TEXT = "name;age;city\n" + "".join(";".join(r) + "\n" for r in ROWS)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp1252", "latin-1"])
def test_each_encoding_reads_the_same_table(encoding: str) -> None:
    frame = read_table_bytes(TEXT.encode(encoding), "people.csv")
    assert [tuple(r) for r in frame.to_numpy()] == ROWS  # the text as written, accents included
    expected = {"utf-8-sig": "utf-8", "latin-1": "cp1252"}.get(encoding, encoding)  # these bytes are both
    assert frame.attrs["encoding"] == expected
    note = encoding_note(frame, "people.csv")
    assert (note is None) == (expected == "utf-8")
    if note:
        assert "not UTF-8" in note and expected in note


def test_bytes_windows_1252_leaves_undefined_are_read_as_latin_1() -> None:
    raw = "name\nA\u0081B\nC\n".encode("latin-1")  # 0x81 has no character in Windows-1252
    with pytest.raises(DataError, match="not UTF-8"):  # Latin-1 reads it as a C1 control: not a text table
        read_table_bytes(raw, "odd.csv")
    frame = read_table_bytes("name\nÿ\nC\n".encode("latin-1"), "ok.csv")
    assert frame["name"].tolist() == ["ÿ", "C"]


def test_a_binary_file_is_still_refused() -> None:
    with pytest.raises(DataError, match="not UTF-8 text .* nor Windows-1252 or Latin-1"):
        read_table_bytes(b"\x89PNG\r\n\x1a\n\x00"[:8] + b"IHDR", "image.csv")


def test_the_cli_says_which_encoding_it_used(tmp_path: Path) -> None:
    (tmp_path / "people.csv").write_bytes(TEXT.encode("cp1252"))
    (tmp_path / "people.toml").write_text("""[data]
path = "people.csv"
[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [10, 20] }
[attributes.name]
role = "identifying"
[privacy]
k = 2
""")
    status, out, err = call("run", tmp_path / "people.toml", "--json")
    assert status == 0, err
    assert "not UTF-8: it was read as cp1252" in err
    assert any("read as cp1252" in w for w in json.loads(out)["warnings"])


def test_the_data_page_says_which_encoding_it_used() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.file_uploader(key="data_upload").upload("people.csv", TEXT.encode("cp1252"), "text/csv").run()
    assert not at.exception and not at.error
    assert any("not UTF-8: it was read as cp1252" in i.value for i in at.info)
