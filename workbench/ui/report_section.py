"""Export page: the ethics-board report of the exported release (``workbench.report.build_report``, the function
``workbench report`` calls), built on request and offered as one self-contained HTML file."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from workbench.ui import state
from workbench.ui.format import md


def report_section(last: dict[str, Any], raw: dict[str, Any]) -> None:
    """A button that builds the report of the last run's release (with the Export page's seed) and a download
    button for it. ``raw`` is the config the Export page exports (with its [release] section)."""
    from workbench.config import study_from_dict
    from workbench.config.text import in_attribute_order
    from workbench.errors import WorkbenchError
    from workbench.release.output import release_file_stem
    from workbench.report import build_report
    from workbench.ui.cached import run_result
    from workbench.ui.download import download
    from workbench.ui.memo import error_result

    st.subheader("Report for a review board")
    st.caption("One HTML file that opens offline: the data and its roles, the hierarchies, the privacy model, the "
               "risk before and after, the release, what it costs under every measure, the alternatives weighed, "
               "the checks done and how to reproduce it (`workbench report` writes the same file).")
    key = json.dumps(raw, sort_keys=True)
    held = state.REPORT.get()
    if st.button("Build the report"):
        outcome = run_result(json.dumps({k: v for k, v in raw.items() if k != "release"}, sort_keys=True),
                             dataset_key=last["dataset_key"])
        if "error" not in outcome:
            try:
                with st.spinner("Building the report: the risk before and after, the alternatives, the checks…",
                                show_time=True):
                    ordered = in_attribute_order(raw, outcome["result"].dataset.quasi_identifiers)
                    report = build_report(study_from_dict(ordered), outcome["result"])
                held = (key, report.html.encode("utf-8"))
                state.REPORT.set(held)
            except WorkbenchError as exc:
                outcome = error_result(exc)
        if "error" in outcome:
            st.error(md(outcome["error"]))
            return
    if held is not None and held[0] == key:
        download("Report (HTML)", held[1], f"{release_file_stem(raw)}-report.html", "text/html",
                 help="opens offline in any browser; print it to PDF, or run `workbench report CONFIG --pdf`")
