"""Export page: the report's first page (``workbench.report.Summary``, ``cached.decision_summary``) at the top, as
the report prints it: the recommendation, what is released and withheld, the guarantee in plain words, the risk,
the cost, the attacks with their warnings, and the decision options. It only shows what the library wrote."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from workbench.report.summary import Summary
from workbench.ui import format
from workbench.ui.format import md


def _columns(rows: tuple[Any, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"column": c.name, "role": c.role, "what the release does": c.what} for c in rows],
                        columns=["column", "role", "what the release does"])


def show(summary: Summary) -> None:
    """Draw ``summary`` (every text is the library's; column names and values are escaped by ``md``)."""
    rec = summary.recommendation
    st.subheader("Decision summary")
    said = f"**Recommendation: {md(rec.option)}.** " + md(" ".join(f"{r[0].upper()}{r[1:]}." for r in rec.reasons))
    box = {"ok": st.success, "warn": st.warning}.get(rec.tone, st.error)
    box(said)
    for w in summary.warnings:
        st.warning(f"**Warning: {md(w.title)}.** {md(w.text)}"
                   + (f" **What to do:** {md(w.remedy)}." if w.remedy else ""))
    left, right = st.columns(2)
    with left:
        st.markdown(f"**Released** ({len(summary.released)} column{'' if len(summary.released) == 1 else 's'})")
        format.show(_columns(summary.released))
    with right:
        st.markdown(f"**Withheld** ({len(summary.withheld)} column{'' if len(summary.withheld) == 1 else 's'})")
        format.show(_columns(summary.withheld))
    st.caption(md(summary.suppressed_line))
    st.markdown("**The guarantee, in plain words**")
    st.markdown("\n".join(
        f"- **{md(g.name)}**" + ("" if g.holds is None else " (holds)" if g.holds else " (**DOES NOT hold**)")
        + f": {md(g.words)}." for g in summary.guarantee))
    if summary.guarantee_note:
        st.warning(md(summary.guarantee_note))
    st.markdown("**The risk before and after**")
    format.show(pd.DataFrame([{"figure": r.figure, "input": r.before, "release": r.after} for r in summary.risk]))
    st.caption(md(summary.risk_line))
    st.markdown(f"**The cost.** {md(summary.cost_line)}")
    st.markdown(f"**The attacks.** {md(summary.attacks_line)}")
    if summary.attacks:
        format.show(pd.DataFrame([{"attack": a.attack, "result": a.result} for a in summary.attacks]))
    st.markdown("**Decision record** (the report prints it with fields for the board's decision, conditions, "
                "names, signatures and date)")
    st.markdown("\n".join(f"- **{md(o.name)}**" + (" (recommended)" if o.name == rec.option else "")
                          + f": {md(o.means)}." for o in summary.options))
    if rec.conditions:
        st.markdown("Conditions the figures support:\n" + "\n".join(f"- {md(c)}." for c in rec.conditions))
    if rec.not_covered:
        st.caption("The recommendation does not cover: " + md("; ".join(rec.not_covered)) + ".")
    st.caption(md(f"How the recommendation is made: {summary.rule}"))
