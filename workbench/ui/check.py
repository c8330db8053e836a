"""Check page: every anonymity figure of a table de-identified elsewhere (``workbench.audit.check_table``, what
``workbench check`` prints), with what each says, and the page for a review board (``build_check_report``).

The table is uploaded here, bounded and held in this session as the Data page's is (``upload.oversized``, the
readers' ``read_table_bytes``: the client's file name only gives the type and names the table), or it is the
table already uploaded on the Data page. The page computes nothing itself."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pandas as pd
import streamlit as st

from workbench.audit import CheckResult, check_table
from workbench.data import suggest_roles
from workbench.errors import WorkbenchError
from workbench.readers import read_table_bytes
from workbench.release.output import safe_name
from workbench.report.check_section import build_check_report
from workbench.risk import DEFAULT_THRESHOLD
from workbench.ui import format, state, upload
from workbench.ui.charts import record_risk_chart
from workbench.ui.format import md

HERE = "Upload a table here"
DATA_PAGE = "The table uploaded on the Data page"
MEMO_SIZE = 4  # results a session keeps (settings tried back and forth are not measured again)


def _uploaded() -> tuple[str, str, Any] | None:
    """The table uploaded on this page: (name, SHA-256, the frame or the error's one line); None before one."""
    file = st.file_uploader(f"The de-identified table (CSV, TSV, TXT, Excel or Parquet; up to {upload.MAX_MB} MB). "
                            "It stays in this browser session; nothing is written to disk.",
                            type=["csv", "tsv", "txt", "xlsx", "parquet"], key=state.CHECK_UPLOAD,
                            max_upload_size=upload.MAX_MB)
    if file is None:
        return None
    too_big = upload.oversized(file, upload.MAX_MB)
    if too_big:
        state.CHECK_TABLE.pop()
        return file.name, "", too_big
    content = file.getvalue()
    sha = hashlib.sha256(content).hexdigest()
    held = state.CHECK_TABLE.get()
    if held is None or held[1] != sha:
        try:
            parsed: Any = read_table_bytes(content, file.name)
        except WorkbenchError as exc:
            parsed = str(exc).splitlines()[0]
        held = (file.name, sha, parsed)
        state.CHECK_TABLE.set(held)
    return held


def _table() -> tuple[str, str, pd.DataFrame, dict[str, str]] | None:
    """The table to check: (name, SHA-256, frame, roles to start from); None after saying what is missing."""
    ws = upload.workspace()
    which = HERE
    if ws is not None:
        which = st.radio("Table to check", [HERE, DATA_PAGE], index=1, key=state.CHECK_WHICH, horizontal=True)
    if which == DATA_PAGE and ws is not None:
        return ws["name"], ws["sha"], ws["frame"], dict(ws["roles"])
    held = _uploaded()
    if held is None:
        st.info("Upload the table as it was delivered: released records with their generalized values, suppressed "
                "records (if any) with * in every quasi-identifier.")
        return None
    name, sha, parsed = held
    if isinstance(parsed, str):
        st.error(md(parsed))
        return None
    return name, sha, parsed, suggest_roles(parsed)


def _measure(sha: str, frame: pd.DataFrame, name: str, settings: tuple) -> CheckResult | str:
    """``check_table`` of the table with the page's settings, remembered for this session (the error's line)."""
    memo = state.CHECK_MEMO.setdefault({})
    key = (sha, name, settings)
    if key not in memo:
        quasi, sensitive, ell, threshold = settings
        try:
            with st.spinner(f"Measuring {len(frame):,} records…"):
                memo[key] = check_table(frame, list(quasi), list(sensitive), ell, threshold, source=name)
        except WorkbenchError as exc:
            memo[key] = str(exc).splitlines()[0]
        while len(memo) > MEMO_SIZE:
            memo.pop(next(iter(memo)))
    return memo[key]


def page() -> None:
    st.header("Check a table de-identified elsewhere")
    st.caption("How anonymous is a file an outside contractor (or any tool) produced? Name the columns an attacker "
               "may know and the sensitive ones: k, the risk of re-identification, and for each sensitive attribute "
               "α, ℓ-diversity, t-closeness, β-likeness and δ-disclosure, each with what it says about this file "
               "(`workbench check` prints the same).")
    table = _table()
    if table is None:
        return
    name, sha, frame, roles = table
    st.caption(f"{md(name)}: {len(frame):,} rows, {len(frame.columns)} columns")
    columns = list(frame.columns)
    quasi_slot, sensitive_slot = state.check_widget("quasi", sha), state.check_widget("sensitive", sha)
    if not quasi_slot.present():
        quasi_slot.set([c for c in columns if roles.get(c) == "quasi"])
        sensitive_slot.set([c for c in columns if roles.get(c) == "sensitive"])
    quasi = st.multiselect("Quasi-identifiers (the columns an attacker may know)", columns, key=quasi_slot.key)
    options = [c for c in columns if c not in quasi]
    state.keep_valid(sensitive_slot.key, options, multiple=True)
    sensitive = st.multiselect("Sensitive attributes (for α, ℓ, t, β and δ)", options, key=sensitive_slot.key)
    left, right = st.columns(2)
    ell = left.number_input("ℓ of recursive (c, ℓ)-diversity (0: each attribute's distinct ℓ)", min_value=0,
                            max_value=1000, value=0, step=1, key=state.check_widget("ell", sha).key)
    threshold = right.number_input("Risk threshold: a record is at risk when 1 / its class size exceeds it",
                                   min_value=0.001, max_value=1.0, value=DEFAULT_THRESHOLD, step=0.01, format="%.3f",
                                   key=state.check_widget("threshold", sha).key)
    if not quasi:
        st.info("Choose the quasi-identifiers: the figures are over the groups of records that share their values.")
        return
    outcome = _measure(sha, frame, name, (tuple(quasi), tuple(sensitive), int(ell) or None, float(threshold)))
    if isinstance(outcome, str):
        st.error(md(outcome))
        return
    _show(outcome)


def _show(result: CheckResult) -> None:
    """The figures of one check: headline metrics, the table of figures with their meanings, the records by risk,
    and the downloads."""
    cols = st.columns(4)
    cols[0].metric("k", f"{result.k:,}", help="the size of the smallest equivalence class")
    cols[1].metric("records measured", f"{result.kept:,}",
                   help=f"of {result.records:,} rows; {result.suppressed:,} suppressed (* in every quasi-identifier) "
                        "and left out")
    cols[2].metric("equivalence classes", f"{result.classes:,}")
    cols[3].metric("highest risk", format.percent(result.prosecutor.highest), help="1 / k")
    if result.suppressed:
        st.caption(f"{result.suppressed:,} rows carry * in every quasi-identifier: suppressed records, counted and "
                   "left out of every figure.")
    format.show(result.figures(), labels={"figure": "figure", "value": "value", "meaning": "what it says"})
    st.caption("The figures follow pyCANON's definitions, computed by the workbench's own code; where pyCANON's "
               "figure differs (recursive c, entropy ℓ, the average risk, a table whose index is not 0..n−1), the "
               "documentation's privacy page says why.")
    st.subheader("Records by the risk of their class")
    st.altair_chart(record_risk_chart(result.record_risks().assign(table=result.source)), width="stretch")
    from workbench.ui.download import download

    stem = f"{safe_name(result.source.rsplit('.', 1)[0], fallback='table')}-check"  # the name only names the file
    left, right = st.columns(2)
    with left:
        download("Figures (JSON)", json.dumps(result.to_dict(), indent=2).encode("utf-8"), f"{stem}.json",
                 "application/json", help="what `workbench check --json` prints")
    with right:
        download("Page for a review board (HTML)", build_check_report(result).html.encode("utf-8"), f"{stem}.html",
                 "text/html", help="opens offline in any browser; `workbench check --report DIR` writes the same")
