"""History page (docs/register.md): the releases in the register, those of the chosen dataset or every one, each
with the board's decision and what the check against earlier releases found when it was recorded; and the form
that records the board's decision on one of them. The register is the team's shared record: every analyst of the
server sees every release."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.errors import WorkbenchError
from workbench.register import decide, history
from workbench.register.schema import DECISIONS
from workbench.register.store import described, open_register
from workbench.ui.cached import register_digests
from workbench.ui.context import PageContext
from workbench.ui.format import md
from workbench.ui.identity import current_user

DECISION_WORDS = {"approved": "approved as proposed", "rejected": "rejected",
                  "conditions": "approved with conditions (write them in the note)"}


def releases_table(rows: list[dict]) -> pd.DataFrame:
    """The releases as the page lists them, newest last."""
    def decision(d: dict | None) -> str:
        if d is None:
            return "none yet"
        return f"{d['decision']} by {d['by']}" + (f": {d['note']}" if d["note"] else "")

    return pd.DataFrame([{
        "id": r["id"], "time": r["time"], "user": r["user"], "via": r["channel"], "data": r["data_name"],
        "k": r["k"], "node": r["node_text"], "suppressed": r["suppressed"], "classes": r["classes"],
        "highest risk": r["risk"]["highest"], "output": r["output"], "decision": decision(r["decision"]),
        "warnings": len(r["warnings"])} for r in rows])


def page(ctx: PageContext) -> None:
    source = ctx.source
    st.header("History")
    try:
        reg = open_register()
    except WorkbenchError as exc:
        st.error(md(str(exc)))
        return
    st.caption(f"The release register ({md(described(reg.url))}): every release written or downloaded, who made it, "
               "and the board's decision. It is the team's shared record: everyone on this server sees every release.")
    try:
        digests = register_digests(source) if (source.sample or source.dataset_key) else []
    except WorkbenchError:
        digests = []
    every = st.toggle("Every dataset", value=not digests, disabled=not digests, key="hi_every",
                      help="off: only the releases of the chosen dataset (the same SHA-256)")
    rows = history(register=reg) if every or not digests else history(register=reg, digests=digests)
    if not rows:
        st.info("No release is recorded " + ("yet." if every else f"of {md(source.label)} yet.")
                + " The Export page records a release when its file is downloaded; `workbench run --out` and "
                  "`workbench report` record theirs.")
        return
    listing = st.container()  # drawn after the form, so that a decision just recorded shows in it
    if decision_form([r["id"] for r in rows]):
        rows = history(register=reg) if every or not digests else history(register=reg, digests=digests)
    with listing:
        st.write(f"{len(rows)} release{'s' if len(rows) != 1 else ''}"
                 + ("" if every else f" of {md(source.label)}") + ", oldest first.")
        st.dataframe(releases_table(rows), hide_index=True)
        for r in rows:
            for w in r["warnings"]:
                st.warning(f"Release {r['id']}: {md(w)}")


def decision_form(ids: list[int]) -> bool:
    """The board's decision on a release: who decided, the decision and the note (conditions, reasons). True when
    one was recorded in this run."""
    st.subheader("Record the board's decision")
    with st.form("hi_decision", clear_on_submit=False):
        release_id = st.selectbox("Release", ids[::-1], key="hi_release")
        decision = st.radio("Decision", DECISIONS, format_func=DECISION_WORDS.get, horizontal=True,
                            key="hi_decision_choice")
        by = st.text_input("Decided by", key="hi_by", help="the board, or its chair")
        note = st.text_area("Note", key="hi_note", help="the conditions, or the reasons")
        submitted = st.form_submit_button("Record the decision")
    if submitted:
        try:
            d = decide(int(release_id), decision, by, note, recorded_by=current_user())
        except WorkbenchError as exc:
            st.error(md(str(exc)))
            return False
        st.success(f"Release {d['release_id']}: {md(d['decision'])} by {md(d['decided_by'])}, recorded.")
        return True
    return False
