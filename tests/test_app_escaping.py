"""A crafted file cannot make the app render Markdown or HTML: column names, values and the file name enter every
Markdown string the app draws (captions, alerts, labels, tooltips, metrics, tabs, expanders, radio options) only
escaped (``workbench.ui.format.md``), so a column named ``![m](http://127.0.0.1:8629/x.png)`` is shown as typed
instead of making the browser fetch that address. Every page is visited with such a table, ready (a config
loaded, an anonymization run) and not ready (quasi-identifiers chosen, no hierarchy yet); the downloads of the
Export page are checked for formula cells as ``tests/test_csv_safety.py`` checks the CLI's files."""

from __future__ import annotations

import hashlib
import json
import re
import string
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import APP, captured_downloads, goto
from tests.test_csv_safety import unescaped
from workbench.ui.main import PAGES

IMAGE = "![m](http://127.0.0.1:8629/x.png)"
TAG = "<img src=x onerror=alert(1)>"
LINK = "[link](javascript:alert(1))"
BOLD = "**bold**"
MARKDOWN = [IMAGE, TAG, LINK, BOLD]
FORMULA = '=HYPERLINK("http://x")'
FILE = "![f](x.png) <img src=x onerror=alert(1)>.csv"  # a file name cannot hold "/"
# what the page would render as an image, a link, HTML or bold if it reached Markdown unescaped
RENDERED = ("![", "](http", "](javascript", "<img", "**bold**")
QUIET = {"Geography", "Walkthrough"}  # pages that show none of the table's names or values


def _frame(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n),
                         IMAGE: rng.choice([*MARKDOWN, FORMULA, "@SUM(A1)"], n), TAG: rng.choice(MARKDOWN, n),
                         LINK: rng.choice(MARKDOWN, n), BOLD: rng.choice(MARKDOWN, n),
                         FORMULA: rng.choice([FORMULA, "-2+3", "-2"], n)})


def _config() -> str:
    quoted = json.dumps  # a JSON string is a TOML basic string
    groups = ", ".join(f"{quoted(v)} = \"*\"" for v in [*MARKDOWN, FORMULA, "@SUM(A1)"])
    return (f'[data]\npath = {quoted(FILE)}\n'
            '[attributes.age]\nrole = "quasi"\nbuilder = { kind = "intervals", widths = [5, 10, 20, 40] }\n'
            '[attributes.sex]\nrole = "quasi"\nbuilder = { kind = "groupings", levels = [{ F = "*", M = "*" }] }\n'
            f'[attributes.{quoted(IMAGE)}]\nrole = "quasi"\n'
            f'builder = {{ kind = "groupings", levels = [{{ {groups} }}] }}\n'
            f'[attributes.{quoted(LINK)}]\nrole = "sensitive"\n'
            f'[attributes.{quoted(TAG)}]\nrole = "insensitive"\n'
            f'[attributes.{quoted(FORMULA)}]\nrole = "insensitive"\n')


def _uploaded() -> tuple[AppTest, str]:
    content = _frame().to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.file_uploader(key="data_upload").upload(FILE, content, "text/csv").run()
    assert not at.exception
    return at, hashlib.sha256(content).hexdigest()


@pytest.fixture(scope="module")
def sessions() -> Iterator[dict[str, AppTest]]:
    """"ready": the table with a config loaded and an anonymization run; "not ready": the same table with four
    quasi-identifiers chosen on the Data page and no hierarchy (the suggestions and the to-do lists name them)."""
    ready, _ = _uploaded()
    ready.file_uploader(key="config_upload").upload("people.toml", _config().encode(), "application/toml").run()
    assert not ready.exception and ready.selectbox(key="dataset").value == "uploaded"
    goto(ready, "Anonymize").run()
    ready.button[0].click().run()
    assert not ready.exception and "k-anonymous" in ready.success[0].value
    pending, sha = _uploaded()
    pending.multiselect(key=f"role:quasi:{sha}").set_value(["age", "sex", IMAGE, TAG]).run()
    assert not pending.exception
    yield {"ready": ready, "not ready": pending}


def _markdown_texts(node: Any, out: list[str]) -> list[str]:
    """Every string of the element tree that Streamlit renders as Markdown: the body of markdown, captions, alerts,
    headings and metrics (value and delta too), and every label, tooltip and radio option; not st.text, st.code,
    tables or the options of a select box, which are shown as plain text."""
    kind = type(node).__name__
    proto = getattr(node, "proto", None)
    if kind not in ("Text", "Code", "Dataframe", "Table", "Json", "Exception"):
        for field in ("body", "label", "help", "delta"):
            value = getattr(proto, field, None)
            if isinstance(value, str) and value:
                out.append(value)
    if kind == "Radio":
        out += [str(o) for o in node.options]
    if kind in ("Expander", "Tab", "Status"):
        out.append(node.label)
    for child in getattr(node, "children", {}).values():
        _markdown_texts(child, out)
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text, flags=re.S)


OPENERS = set("\\`*_{}[]<>#|~$&!")  # what may open Markdown, HTML or an entity when not escaped


def test_md_leaves_no_markdown_special_unescaped_and_reads_back_as_typed() -> None:
    """CommonMark (spec 0.31, "Backslash escapes"): a backslash before an ASCII punctuation character makes it a
    literal character; so the escaped text, read back, is the text as typed, and none of its specials is live."""
    from workbench.ui.format import md

    for text in [*MARKDOWN, FILE, FORMULA, "a\\b _u_ `c` $x$ ~~s~~ # h | t & &lt; :red[r] {x}", "plain 3.5 (s)"]:
        escaped, i, typed = md(text), 0, []
        while i < len(escaped):
            char = escaped[i]
            if char == "\\":
                assert escaped[i + 1] in string.punctuation, escaped
                typed.append(escaped[i + 1])
                i += 2
                continue
            assert char not in OPENERS and not (char == ":" and escaped[i + 1:i + 2].isalpha()), escaped
            typed.append(char)
            i += 1
        assert "".join(typed) == text


@pytest.mark.parametrize("page", PAGES)
def test_no_page_renders_markdown_or_html_from_the_data(sessions: dict[str, AppTest], page: str) -> None:
    shown = []
    for name, at in sessions.items():
        goto(at, page).run()
        if page == "Hierarchies":
            at.selectbox(key="h_column").select(IMAGE).run()
        assert not at.exception, (name, [e.value for e in at.exception])
        texts = _markdown_texts(at._tree, [])
        for text in texts:
            plain = re.sub(r"\\.", "", text, flags=re.S)  # what is left once the escaped characters are taken out
            assert not [r for r in RENDERED if r in plain], (name, text)
        shown += [_unescape(t) for t in texts]
    if page not in QUIET:  # the names and values are shown, as typed
        assert any(h in t for t in shown for h in [*MARKDOWN, FILE]), shown


def test_export_downloads_escape_formulas_in_the_release_and_the_mappings(sessions: dict[str, AppTest]) -> None:
    at = sessions["ready"]
    with captured_downloads() as seen:
        goto(at, "Export").run()
    assert not at.exception
    release, mappings = seen["release.csv"](), seen["mappings.csv"]()
    assert unescaped(release) == [] and unescaped(mappings) == []
    assert "'" + FORMULA in pd.read_csv(pd.io.common.BytesIO(release), dtype=str).columns
    originals = set(pd.read_csv(pd.io.common.BytesIO(mappings), dtype=str, keep_default_na=False)["original"])
    assert {"'" + FORMULA, "'@SUM(A1)"} <= originals
