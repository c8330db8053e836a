"""Export page: download the last anonymization's release (rows shuffled with the recorded seed and
re-verified before it is produced), its provenance and the config as TOML (loadable by `workbench run`).
Suppressed records are kept in the file with ``*`` in every quasi-identifier, or left out when the analyst
ticks so (``[release] suppressed = "drop"``); the page says which, and how many rows the file holds.

Each download is the analyst's own bytes: its file name carries a digest of the whole file keyed with a secret of
this session (``workbench.release.output.download_name``), so no two sessions, and no two different files, share a
download URL; and the bytes are handed to Streamlit only when the button is clicked, so no URL exists before the
click, and the stored file is dropped once the browser has fetched it (``ui/served_once.py``, docs/deploy.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from workbench.errors import WorkbenchError
from workbench.release.guarantees import guarantee_text, suppression_note
from workbench.release.output import release_file_stem
from workbench.ui import decision_summary as decision_summary_view
from workbench.ui import guarantee, long_work, state
from workbench.ui.cached import decision_summary, export_files, run_config
from workbench.ui.context import PageContext
from workbench.ui.download import download
from workbench.ui.failure import error_line, shown_errors
from workbench.ui.format import md
from workbench.ui.memo import memo_key
from workbench.ui.report_section import report_section
from workbench.ui.source import revised

MIME = {"csv": "text/csv", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "parquet": "application/octet-stream"}


def release_recorder(last: state.AnonymizeRun, raw: dict[str, Any]) -> Callable[[str], None] | str:
    """What records the release in the register when its file is downloaded (docs/register.md): the run of the
    exported config, the analyst and the register are taken now, in the page's run; the record is written on the
    click. Returns the reason instead when the register cannot take it (the page then offers no download)."""
    import dataclasses

    from workbench.config import study_from_dict
    from workbench.config.text import in_attribute_order
    from workbench.register import record_release
    from workbench.register.store import open_register
    from workbench.ui.cached import run_result
    from workbench.ui.identity import current_user
    try:
        run = long_work.announced("Preparing the release's record in the register", run_result,
                                  revised(last.study, release=None),
                                  dataset_key=last.dataset_key)  # the run already made, from the cache
        register = open_register()
        ordered = in_attribute_order(raw, run.dataset.quasi_identifiers)
        result = dataclasses.replace(run, study=study_from_dict(ordered))
    except WorkbenchError as exc:
        return error_line(exc)
    user = current_user()

    def record(name: str) -> None:
        record_release(result, output=name, channel="app", user=user, config=ordered, register=register)

    return record


def suppressed_records(last: state.AnonymizeRun) -> str:
    """Say what becomes of the release's suppressed records and offer to leave them out: ``"mark"`` (kept, ``*`` in
    every quasi-identifier) or ``"drop"`` (``[release] suppressed``, docs/config.md)."""
    try:
        result = run_config(last.study, dataset_key=last.dataset_key)  # the Anonymize page's run, cached
    except WorkbenchError:
        return "mark"  # the files say what is wrong
    suppressed, records = int(result.summary["suppressed"]), int(result.records)
    if not suppressed:
        st.caption(f"No record is suppressed: the file holds all {records:,} records.")
        return "mark"
    said = st.empty()  # what becomes of them, above the box that changes it
    drop = st.checkbox("Leave the suppressed records out of the file", key="ex_drop_suppressed",
                       help="The release stays k-anonymous either way: every group of identical quasi-identifier "
                            "rows among the other records holds at least k records, and the file is re-verified "
                            "before it is produced. The provenance records the choice (suppressed_records).")
    if drop:
        said.write(f"The {suppression_note(suppressed, records)} that are suppressed are **left out**: the file "
                   f"holds {records - suppressed:,} rows, not {records:,}.")
    else:
        said.write(f"The {suppression_note(suppressed, records)} that are suppressed are **kept** in the file with "
                   "`*` in every quasi-identifier (their other columns as they are), so the file holds all "
                   f"{records:,} rows. Tick the box below to leave them out.")
    return "drop" if drop else "mark"


def register_version() -> int:
    """The register's newest release id (0 when it is empty or cannot be read): the decision summary is computed
    again once another release has been recorded."""
    from workbench.register.store import open_register

    try:
        return open_register().last_id()
    except WorkbenchError:
        return 0


def page(ctx: PageContext) -> None:
    st.header("Export")
    last = state.LAST_RUN.get()
    if last is None:
        st.info("Run an anonymization on the Anonymize page first; its release is exported here.")
        return
    raw = last.study.raw
    st.write(f"Release of the last run on {md(last.label)}: {raw['engine']['kind']} / {raw['engine']['algorithm']}, "
             f"k = {raw['privacy']['k']}.")
    top = st.container(border=True)  # filled once the seed and the suppressed records' fate below are read
    fmt = st.radio("Format", ["csv", "xlsx", "parquet"], horizontal=True)
    seed = st.number_input("Shuffle seed (recorded in the provenance)", min_value=0, value=0, step=1)
    study = revised(last.study, release={"seed": int(seed), "format": fmt, "suppressed": suppressed_records(last)})
    raw = study.raw
    with top, shown_errors():  # the report's first page, for the release as exported (its seed and suppressed records)
        summary = long_work.announced("Summarizing the release for a review board: its risk, its cost and the attacks",
                                      decision_summary, study, register_version(),
                                      dataset_key=last.dataset_key)
        decision_summary_view.show(summary)
    files = long_work.announced(f"Writing the release as {fmt} and verifying it again from its own table", export_files,
                                study, fmt, dataset_key=last.dataset_key)
    kind = files.guarantee_kind
    if not guarantee.acknowledged(kind, key=f"ack:{kind}:{memo_key(last.study)[1]}"):
        return
    if guarantee_text(kind).k_anonymous:
        st.success("The release passed re-verification from its own table before it was produced.")
    else:  # not the k-anonymous green
        st.info(f"The release passed re-verification as {guarantee_text(kind).adjective} (not k-anonymous) from its "
                "own table before it was produced.")
    stem = release_file_stem(raw)  # the dataset and the rule: registry-k5-l3-release.csv
    record = release_recorder(last, raw)
    if isinstance(record, str):  # nothing released is left out of the register: no download without it
        st.error(f"The release cannot be recorded in the register, so it is not offered: {md(record)}")
        return
    download("Release", files.release, f"{stem}-release.{fmt}", MIME[fmt], on_fetch=record,
             help="recorded in the register (the History page) when you download it")
    download("Provenance (JSON)", files.provenance, f"{stem}-provenance.json", "application/json")
    download("Value mappings (CSV)", files.mappings, f"{stem}-mappings.csv", "text/csv",
             help="per quasi-identifier: each original value, what it was released as, and how many records")
    download("Config (TOML)", files.config, f"{stem}-config.toml", "application/toml",
             help=f"`workbench run {stem}-config.toml` reproduces this release; the Data page loads it again")
    if files.bundle:
        download("Config with hierarchy files (zip)", files.bundle, f"{stem}-config-bundle.zip", "application/zip",
                 help="config.toml and every quasi-identifier's hierarchy as hierarchies/*.csv, as this release "
                      f"used them: unpack next to {md(raw['data'].get('path', 'the data'))} and run `workbench run "
                      "config.toml`, or load the zip on the Data page")
    if fmt == "csv":
        st.caption("Text cells that a spreadsheet would read as a formula (beginning with =, +, -, @, tab or carriage "
                   "return) carry a leading ' in the CSV release; the provenance records it.")
    report_section(last, raw)
