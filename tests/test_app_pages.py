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


def test_a_workbench_error_raised_in_a_page_shows_as_one_error_line(monkeypatch) -> None:
    import workbench.ui.walkthrough as walkthrough
    from workbench.errors import DataError

    def failing(ctx: PageContext) -> None:
        import streamlit as st

        st.header("Walkthrough")
        raise DataError("people.csv row 3, column 'age': 'abc' is not a number\nsecond line, never shown")

    at = AppTest.from_file(APP, default_timeout=120).run()
    monkeypatch.setattr(walkthrough, "page", failing)
    goto(at, "Walkthrough").run()
    assert not at.exception
    assert [e.value for e in at.error] == ["people.csv row 3, column 'age': 'abc' is not a number"]
    assert at.header[0].value == "Walkthrough"  # what the page drew before its error stays


def test_a_cached_call_that_fails_raises_its_first_line_and_is_not_computed_again() -> None:
    import pytest

    from workbench.errors import WorkbenchError
    from workbench.ui.memo import dual_cache, user_error

    calls: list[int] = []

    @dual_cache(max_entries=4)
    def failing(value: int, dataset_key: str | None) -> dict:
        calls.append(value)
        try:
            return {"first": {}[value]}
        except KeyError as exc:
            raise user_error(exc) from exc

    for _ in range(3):
        with pytest.raises(WorkbenchError) as caught:
            failing(7, dataset_key=None)
        assert str(caught.value) == "7"  # str(KeyError(7)), as the page showed it before
    assert calls == [7]  # kept as its failure: a rerun does not compute it again
    assert user_error(ValueError("one\ntwo")).args == ("one",)
    assert str(user_error(ValueError())) == "ValueError"


def test_settings_that_make_no_valid_config_end_the_page_with_one_error_line(monkeypatch) -> None:
    """``Source.study`` validates the config a page builds: a setting out of range raises the ``ConfigError`` at the
    page, shown as its one line (naming the key and the value), not a traceback."""
    import workbench.ui.walkthrough as walkthrough

    def asking(ctx: PageContext) -> None:
        import streamlit as st

        st.header("Walkthrough")
        ctx.source.study(k=0, compare=[])

    at = AppTest.from_file(APP, default_timeout=120).run()
    monkeypatch.setattr(walkthrough, "page", asking)
    goto(at, "Walkthrough").run()
    assert not at.exception
    assert [e.value for e in at.error] == ["config: privacy.k must be at least 1, got 0"]


def test_equal_studies_share_one_memo_entry_and_other_ones_do_not() -> None:
    """A ``Study`` argument is keyed by its config's canonical JSON: two equal studies built apart (their keys in
    another order) find one result; another k is another result."""
    from workbench.config import study_from_dict
    from workbench.ui.memo import dual_cache
    from workbench.ui.source import Source

    calls: list[int] = []

    @dual_cache(max_entries=4)
    def k_of(study, dataset_key: str | None) -> int:
        calls.append(study.k)
        return study.k

    source = Source(label="registry", sample="registry")
    first, again = source.study(k=3, compare=[]), source.study(k=3, compare=[])
    reordered = study_from_dict(dict(reversed(list(first.raw.items()))))
    assert first is not again and list(reordered.raw) != list(first.raw)
    assert [k_of(s, dataset_key=None) for s in (first, again, reordered)] == [3, 3, 3]
    assert calls == [3]  # computed once for the three
    assert k_of(source.study(k=4, compare=[]), dataset_key=None) == 4 and calls == [3, 4]
