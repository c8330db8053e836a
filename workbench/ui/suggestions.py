"""What the app suggests for a new table, accepted in one click: a hierarchy for every quasi-identifier without
one (``workbench.hierarchy.suggest_spec``), offered on the Data page as soon as the quasi-identifiers are picked
and on the Hierarchies page."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from workbench.hierarchy.suggest import suggest_spec
from workbench.hierarchy.values import numeric_profile
from workbench.ui.format import md


def describe(spec: dict[str, Any], values: pd.Series) -> str:
    """A builder spec in a few words (with the text among numbers it places, named with its counts)."""
    kind = spec["kind"]
    if kind == "intervals":
        text = f"bands of {', '.join(map(str, spec['widths']))}"
        if spec.get("non_numeric") == "error":
            return text + " (values that are not numbers: to choose)"
        if spec.get("non_numeric") == "missing":
            return text + f" ({numeric_profile(values.tolist()).listing()} as missing)"
        return text
    if kind == "masking":
        return "masking digits from the right"
    if kind == "dates":
        return f"dates by {', '.join(spec['levels'])}"
    return "the value or '*'" if not spec.get("levels") else f"{len(spec['levels'])} level(s) of groups"


def accept_suggested(ws: dict[str, Any], quasi: list[str], key: str) -> None:
    """One click gives every quasi-identifier without a hierarchy yet its suggested one; the hierarchies already
    chosen or imported are kept."""
    open_columns = [c for c in quasi if c not in ws["hierarchies"]]
    if not open_columns:
        return
    suggested = {c: suggest_spec(ws["frame"][c].tolist()) for c in open_columns}
    text = "; ".join(f"{c}: {describe(spec, ws['frame'][c])}" for c, spec in suggested.items())
    st.caption(f"Suggested hierarchies: {md(text)}. The Hierarchies page shows and edits them.")
    if st.button(f"Accept the suggested hierarchies ({len(open_columns)} column(s) without one)", key=key,
                 type="primary"):
        for column, spec in suggested.items():
            ws["hierarchies"][column] = {"mode": "builder", "spec": spec}
