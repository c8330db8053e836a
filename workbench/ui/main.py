"""The Streamlit workbench: page navigation (st.navigation, one URL per page, each page a function
``page(ctx: PageContext) -> None``) and the choice of dataset (an embedded sample or the session's own uploaded
table, once every quasi-identifier has a hierarchy)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import streamlit as st

from workbench.samples import SAMPLES, load_sample
from workbench.ui import prefetch, sessions, state, upload
from workbench.ui import state_upload as S
from workbench.ui.context import PageContext
from workbench.ui.failure import shown_errors
from workbench.ui.format import md
from workbench.ui.source import Source

UPLOADED = "uploaded"
# each page's title (st.navigation serves it at /<title in lower case>) and the module whose ``page`` draws it
PAGE_MODULES = {"Data": "data_page", "Hierarchies": "hierarchies", "Anonymize": "anonymize", "Lattice": "lattice",
                "Compare": "compare_page", "Measures": "measures_page", "Risk": "risk", "Geography": "geography",
                "Export": "export", "History": "history", "Check": "check", "Walkthrough": "walkthrough"}
PAGES = list(PAGE_MODULES)
NEEDS_READY = ("Anonymize", "Lattice", "Compare", "Risk")  # pages that need a hierarchy for every quasi-identifier


def url_path(title: str) -> str:
    """The URL path of a page: ``/data``, ``/anonymize``, ... (docs and tests navigate by it)."""
    return title.lower()


def page_function(title: str) -> Callable[[PageContext], None]:
    """The function that draws the page ``title`` (imported when first asked for, as the page is first shown)."""
    return importlib.import_module(f"workbench.ui.{PAGE_MODULES[title]}").page


def run_page(title: str) -> None:
    """Draw the page ``title`` with the context ``main`` chose (what st.navigation runs). A ``WorkbenchError`` the
    page raises ends it, shown as one error line (``failure.show_error``), never a traceback."""
    with shown_errors():
        page_function(title)(state.CONTEXT.get())


def _navigation_page(title: str) -> st.Page:
    def draw() -> None:
        run_page(title)

    draw.__name__ = f"page_{url_path(title)}"
    return st.Page(draw, title=title, url_path=url_path(title), default=title == "Data")


def _sample_source(name: str) -> Source:
    sample = load_sample(name)
    target = next((a for a, r in sample.roles.items() if r == "target"), None)
    return Source(label=f"{name}: {SAMPLES[name]}", sample=name, target=target,
                  quasi_identifiers=tuple(sample.quasi_identifiers))


# settings that keep their value while their page is not shown: the slots declared persistent in ui/state.py
PERSISTENT_SETTINGS = state.persistent_keys()


def main() -> None:
    st.set_page_config(page_title="k-anonymity workbench", layout="wide")
    sessions.track()  # when this session ends, the caches drop what only it asked for
    state.keep(state.persistent_keys())  # read at every run, so a privacy model registered later is kept too
    st.title("k-anonymity workbench")
    st.caption("De-identify tabular health data and see what each de-identification costs.")
    upload.take_upload()  # a table uploaded in the last run is the workspace before the Dataset box is drawn
    ws = upload.workspace()
    own = upload.session_source()
    S.OWN_READY.set(own is not None)
    names = list(SAMPLES) + ([UPLOADED] if ws is not None else [])
    pending = S.PENDING_DATASET.pop()  # chosen by an upload or a loaded config
    if pending in names:
        S.DATASET.set(pending)
    if S.DATASET.get() not in (*names, None):
        S.DATASET.pop()
    pending_label = f"your data: {ws['name']} (not ready yet)" if ws is not None else ""
    name = st.selectbox("Dataset", names, index=names.index("registry"), key=S.DATASET.key,
                        format_func=lambda n: (own.label if own else pending_label) if n == UPLOADED
                        else f"{n}: {SAMPLES[n]}")
    pg = st.navigation([_navigation_page(title) for title in PAGES])
    if name == UPLOADED and own is None:  # chosen, but some quasi-identifier has no usable hierarchy yet
        if pg.title in NEEDS_READY:
            st.warning(md(upload.not_ready_message(ws)))
            return
        source = Source(label=pending_label)
    else:
        source = own if name == UPLOADED and own is not None else _sample_source(name)
        prefetch.start(source)
    state.CONTEXT.set(PageContext(source, name))
    pg.run()
