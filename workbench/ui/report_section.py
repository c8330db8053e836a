"""Export page: the ethics-board report of the exported release (``workbench.report.build_report``, the function
``workbench report`` calls), built on request and offered as one self-contained HTML file. Each report built records
its release in the register first, by the session's user (``identity.current_user``), as ``workbench report`` does
(channel ``report``), so that the report names the release's id and the board decides on it."""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from workbench.ui import state


def report_section(last: state.AnonymizeRun, raw: dict[str, Any]) -> None:
    """A button that records the last run's release (with the Export page's seed) in the register and builds its
    report, and a download button for it. ``raw`` is the config the Export page exports (with its [release] section)."""
    from workbench.config import study_from_dict
    from workbench.config.text import in_attribute_order
    from workbench.errors import WorkbenchError
    from workbench.register import record_release
    from workbench.register.store import open_register
    from workbench.release.output import release_file_stem
    from workbench.report import build_report
    from workbench.ui.cached import run_result
    from workbench.ui.download import download
    from workbench.ui.failure import show_error
    from workbench.ui.identity import current_user
    from workbench.ui.memo import memo_key
    from workbench.ui.source import revised

    st.subheader("Report for a review board")
    st.caption("One HTML file that opens offline: the data and its roles, the hierarchies, the privacy model, the "
               "risk before and after, the release, what it costs under every measure, the alternatives weighed, "
               "the checks done and how to reproduce it (`workbench report` writes the same file).")
    key = memo_key(study_from_dict(raw))
    held = state.REPORT.get()
    if st.button("Build the report"):
        try:
            result = run_result(revised(last.study, release=None), dataset_key=last.dataset_key)
            ordered = in_attribute_order(raw, result.dataset.quasi_identifiers)
            study = study_from_dict(ordered)
            result = dataclasses.replace(result, study=study)
            with st.spinner("Recording the release in the register and checking it against the earlier ones…",
                            show_time=True):  # as `workbench report` records the release it reports on
                recorded = record_release(result, output=f"{release_file_stem(raw)}-report.html",
                                          channel="report", user=current_user(), config=ordered,
                                          register=open_register()).id
            with st.spinner("Building the report: the risk before and after, the alternatives, the checks…",
                            show_time=True):
                report = build_report(study, result, recorded=recorded)
            held = (key, report.html.encode("utf-8"))
            state.REPORT.set(held)
        except WorkbenchError as exc:
            show_error(exc)
            return
        st.success(f"The release is recorded as release {recorded} in the register (the History page records the "
                   "board's decision on it); the report names it.")
    if held is not None and held[0] == key:
        download("Report (HTML)", held[1], f"{release_file_stem(raw)}-report.html", "text/html",
                 help="opens offline in any browser; print it to PDF, or run `workbench report CONFIG --pdf`")
