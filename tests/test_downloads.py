"""Each analyst downloads their own bytes (a shared server, several sessions).

Streamlit stores a download under an id made of its length, mimetype, file name and, above 1 MiB, only the first,
middle and last 64 KiB of its bytes; an identical id serves the file stored first. The Export page names each file
with a digest of its whole content keyed with a secret of the session
(``workbench.release.output.download_name``). Checked through Streamlit's own storage class, and end to end
with two browser contexts (Debian's chromium, Playwright) exporting same-named releases over 1 MiB that differ only
in 40 cells away from the sampled windows.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.media_file_storage import MediaFileKind, MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from tests._server import CHROMIUM, FLAGS, free_port, local_args, streamlit_server
from workbench.release.output import download_name
from workbench.ui import served_once

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = 64 * 2**10  # Streamlit's sampled window


def _near_identical(size: int = 2 * 2**20) -> tuple[bytes, bytes]:
    """Two files of one length that differ in 40 bytes at a quarter, outside the head, middle and tail windows."""
    a = bytearray(b"x" * size)
    b = bytearray(a)
    b[size // 4: size // 4 + 40] = b"y" * 40
    return bytes(a), bytes(b)


def _store(storage: MemoryMediaFileStorage, content: bytes, name: str) -> str:
    return storage.load_and_get_id(content, "text/csv", MediaFileKind.DOWNLOADABLE, name)


def test_streamlit_gives_near_identical_files_under_one_name_one_id() -> None:
    """The hazard itself (the reference the fix is measured against): B's file is served as A's bytes."""
    a, b = _near_identical()
    storage = MemoryMediaFileStorage("/media")
    id_a, id_b = _store(storage, a, "release.csv"), _store(storage, b, "release.csv")
    assert id_a == id_b and storage.get_file(id_b).content == a


def test_download_names_give_every_session_and_every_file_its_own_id() -> None:
    a, b = _near_identical()
    storage = MemoryMediaFileStorage("/media")
    key_a, key_b = secrets.token_bytes(32), secrets.token_bytes(32)
    name_a, name_b = download_name("release.csv", a, key_a), download_name("release.csv", b, key_b)
    id_a, id_b = _store(storage, a, name_a), _store(storage, b, name_b)
    assert id_a != id_b
    assert storage.get_file(id_a).content == a and storage.get_file(id_b).content == b
    same_session = download_name("release.csv", b, key_a)  # one session, two different files
    assert same_session != name_a and storage.get_file(_store(storage, b, same_session)).content == b
    assert download_name("release.csv", a, key_b) != name_a  # the same file in two sessions: two names
    assert re.fullmatch(r"release-[0-9a-f]{16}\.csv", name_a)


# ------------------------------------------------------------------------------------------------ served once
def _click(manager: MediaFileManager, content: bytes, name: str) -> str:
    """What a click on a deferred download button does on the server: the URL path's last part (``<id><ext>``)."""
    placeholder = manager.add_deferred(lambda: content, "text/csv", f"coordinates of {name}", name)
    return manager.execute_deferred(placeholder).rsplit("/", 1)[1]


def _served(storage: MemoryMediaFileStorage, file_name: str) -> bytes | None:
    """What the ``/media`` route serves for ``file_name`` (None: 404)."""
    try:
        return storage.get_file(file_name).content
    except MediaFileStorageError:
        return None


def test_streamlit_keeps_a_clicked_download_after_it_was_served() -> None:
    """The reference: without the hook the file answers any number of requests until Streamlit's clean-ups."""
    manager = MediaFileManager(MemoryMediaFileStorage("/media"))
    name = _click(manager, b"a,b\n1,2\n", "release-0123456789abcdef.csv")
    assert [_served(manager._storage, name) for _ in range(5)] == [b"a,b\n1,2\n"] * 5


def test_a_clicked_download_answers_its_clicks_requests_then_is_gone() -> None:
    storage = MemoryMediaFileStorage("/media")
    manager = MediaFileManager(storage)
    assert served_once.install(manager) and served_once.install(manager)  # idempotent
    assert isinstance(storage, MemoryMediaFileStorage) and manager.can_read_files  # still Streamlit's classes
    content = b"a,b\n1,2\n"
    name = _click(manager, content, "release-0123456789abcdef.csv")
    assert storage.armed() == {name.split(".")[0]: served_once.GETS_PER_CLICK}
    got = [_served(storage, name) for _ in range(served_once.GETS_PER_CLICK + 1)]
    assert got == [content] * served_once.GETS_PER_CLICK + [None]
    assert storage.armed() == {}
    # two clicks of one button before the browser fetched: each click's requests are answered
    name = _click(manager, content, "release-0123456789abcdef.csv")
    assert _click(manager, content, "release-0123456789abcdef.csv") == name
    got = [_served(storage, name) for _ in range(2 * served_once.GETS_PER_CLICK + 1)]
    assert got == [content] * (2 * served_once.GETS_PER_CLICK) + [None]
    # a click again after the file was dropped stores it again
    assert _served(storage, _click(manager, content, "release-0123456789abcdef.csv")) == content


def test_a_clicked_download_nobody_fetches_is_dropped_after_its_lifetime() -> None:
    storage = MemoryMediaFileStorage("/media")
    manager = MediaFileManager(storage)
    served_once.install(manager, lifetime_s=0.2)
    name = _click(manager, b"x" * 100, "config-0123456789abcdef.toml")
    assert _served(storage, name) == b"x" * 100  # one request of two: still there
    deadline = time.monotonic() + 5
    while _peek(storage, name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _served(storage, name) is None


def _peek(storage: MemoryMediaFileStorage, name: str) -> bool:
    """Whether the file is stored, without counting as a request."""
    return name.split(".")[0] in storage._files_by_id


def test_files_streamlit_stores_otherwise_are_left_to_it() -> None:
    """An image or a download button given its bytes at once: referenced by the page that shows it, it answers
    every request (Streamlit drops it once no page refers to it)."""
    storage = MemoryMediaFileStorage("/media")
    manager = MediaFileManager(storage)
    served_once.install(manager)
    url = manager.add(b"static bytes", "text/csv", "coordinates", "table.csv", is_for_static_download=True)
    name = url.rsplit("/", 1)[1]
    assert [_served(storage, name) for _ in range(5)] == [b"static bytes"] * 5 and storage.armed() == {}


# ------------------------------------------------------------------------------------------------ browser
ROWS = 20_000
NOTE = 90  # characters of the insensitive note column: every row has the same length in bytes


def _tables(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, list[str], list[str]]:
    """Two analysts' tables of identical records (one released row, repeated) except for the note of two records,
    chosen so that the release's shuffle (``workbench.release.export.row_order``: the seed and the release's
    content) puts them away from Streamlit's sampled windows at both ends of each file: the files then agree in
    every sampled byte, the case Streamlit's ids confuse. Written to ``folder``/a and ``folder``/b."""
    from workbench.config import load_study
    from workbench.release.export import row_order
    from workbench.study import run

    frame = pd.DataFrame({"patient": [f"P{i:06d}" for i in range(ROWS)], "age": "40", "sex": "F",
                          "note": "n" * NOTE})
    for first in range(0, ROWS, 97):
        changed = [first, first + 1]
        tables, marks, ok = [], [], True
        for name, letter in (("a", "A"), ("b", "B")):
            table = frame.copy()
            marked = [f"{letter * (NOTE - 6)}{i:06d}" for i in changed]
            table.loc[changed, "note"] = marked
            (folder / name).mkdir(exist_ok=True)
            table.to_csv(folder / name / "patients.csv", index=False)
            (folder / name / "study.toml").write_text(CONFIG, encoding="utf-8")
            study = load_study(folder / name / "study.toml")
            released = run(study).release.table()
            line = len(released.iloc[:1].to_csv(index=False, header=False).encode())  # bytes per released row
            order, margin = row_order(released, study.seed), SAMPLE // line + 2
            ok &= all(margin <= int(np.flatnonzero(order == i)[0]) < ROWS - margin for i in changed)
            tables.append(table)
            marks.append(marked)
        if ok:
            return tables[0], tables[1], marks[0], marks[1]
    raise AssertionError("no pair of records the shuffle keeps away from the sampled windows")


CONFIG = """[data]
path = "patients.csv"
[attributes.age]
role = "quasi"
builder = { kind = "intervals", widths = [10, 20] }
[attributes.sex]
role = "quasi"
builder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }
[attributes.patient]
role = "identifying"
[privacy]
k = 5
max_suppression = 0.0
[engine]
kind = "lattice"
algorithm = "flash"
objective = "entropy"
"""


@pytest.fixture(scope="module")
def app_url():
    pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip("Debian's chromium is not installed")
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "WORKBENCH_PREFETCH": "0",
           "PYTHONPATH": str(ROOT)}
    with streamlit_server(env, port, local_args(port)) as url:
        yield url

def _status(url: str) -> int:
    """HTTP status of a plain request: no cookies, no session."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _export(page, app_url: str, data: Path, config: Path, out: Path):
    page.goto(app_url)
    page.get_by_text("Attributes").first.wait_for(timeout=60_000)
    page.locator('input[type="file"]').nth(0).set_input_files(str(data))
    page.get_by_text("held in this session only").first.wait_for(timeout=60_000)
    page.locator('input[type="file"]').nth(1).set_input_files(str(config))
    page.get_by_text("Ready:").first.wait_for(timeout=60_000)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Anonymize", exact=True).click()
    page.get_by_role("button", name="Run").click()
    page.get_by_text("Guarantee: k-anonymous").first.wait_for(timeout=120_000)
    sidebar.get_by_text("Export", exact=True).click()
    page.get_by_text("re-verification").first.wait_for(timeout=60_000)
    page.get_by_role("button", name="Config (TOML)").wait_for(timeout=60_000)  # the page is drawn
    from tests._browser import download_by_click  # here: the module's other tests need no browser

    download = download_by_click(page, page.get_by_role("button", name="Release", exact=True).click)
    download.save_as(out)
    return download


def test_two_analysts_each_download_their_own_release(app_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    a, b, marks_a, marks_b = _tables(tmp_path)
    config = tmp_path / "study.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        first = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 1000}).new_page()
        second = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 1000}).new_page()
        got_a = _export(first, app_url, tmp_path / "a" / "patients.csv", config, tmp_path / "release-a.csv")
        got_b = _export(second, app_url, tmp_path / "b" / "patients.csv", config, tmp_path / "release-b.csv")
        bytes_a, bytes_b = (tmp_path / "release-a.csv").read_bytes(), (tmp_path / "release-b.csv").read_bytes()
        assert len(bytes_a) == len(bytes_b) > 2**20  # same name, same length: the case Streamlit's ids confuse
        assert bytes_a[:SAMPLE] == bytes_b[:SAMPLE] and bytes_a[-SAMPLE:] == bytes_b[-SAMPLE:]
        notes_a = set(pd.read_csv(tmp_path / "release-a.csv", dtype=str)["note"])
        notes_b = set(pd.read_csv(tmp_path / "release-b.csv", dtype=str)["note"])
        assert set(marks_a) <= notes_a and not set(marks_b) & notes_a  # A got A's bytes
        assert set(marks_b) <= notes_b and not set(marks_a) & notes_b  # B got B's bytes, not A's
        assert got_a.suggested_filename != got_b.suggested_filename
        assert re.fullmatch(r"[a-z0-9-]*release-[0-9a-f]{16}\.csv", got_b.suggested_filename)
        # served once (ui/served_once.py): once the browser has fetched it, with no rerun and both pages idle, a
        # request without the session's cookies finds nothing. (The page's own check of the URL may still be on
        # its way when the download has finished; a request that takes its turn leaves the file gone after it.)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (_status(got_a.url), _status(got_b.url)) != (404, 404):
            time.sleep(0.2)
        assert (_status(got_a.url), _status(got_b.url)) == (404, 404)
        browser.close()
