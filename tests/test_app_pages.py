"""The app's boundary with its pages (``workbench/ui/main.py``): every page in the navigation is one function of one
signature, ``page(ctx: PageContext) -> None``, served at ``/<title>``; and a ``WorkbenchError`` a page raises is
shown as one ``st.error`` line, never a traceback."""

from __future__ import annotations

import inspect
import typing

from streamlit.testing.v1 import AppTest

from tests._app import APP, goto
from workbench.ui.context import PageContext
from workbench.ui.main import NEEDS_READY, PAGES, page_function, url_path


def test_every_page_in_the_navigation_has_the_one_signature() -> None:
    assert len(PAGES) == len(set(PAGES)) and set(NEEDS_READY) <= set(PAGES)
    for title in PAGES:
        fn = page_function(title)
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn)
        assert list(signature.parameters) == ["ctx"], (title, signature)
        assert hints == {"ctx": PageContext, "return": type(None)}, (title, hints)


def test_the_navigation_serves_every_page_at_its_url() -> None:
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    registered = {info["page_name"]: info["url_pathname"] for info in at._registered_pages.values()}
    assert list(registered) == PAGES
    # the default page (Data) is also the root; every other page at /<title in lower case>
    assert registered == {title: "" if title == "Data" else url_path(title) for title in PAGES}
    assert {url_path(t) for t in PAGES} == {"data", "hierarchies", "anonymize", "lattice", "compare", "measures",
                                            "risk", "geography", "export", "history", "check", "walkthrough"}
    goto(at, "Walkthrough").run()
    assert not at.exception and at.header[0].value.startswith("Walkthrough")
