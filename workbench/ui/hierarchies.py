"""Hierarchies page: per quasi-identifier, import an ARX hierarchy file or build one (intervals, masking,
dates, groupings) with a live preview (tree, level table, records per generalized value), the library's validation
report inline, an ARX download, and the poset the local engine uses."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from workbench.errors import WorkbenchError
from workbench.hierarchy.builders import BUILDER_KINDS, groupings_from_table
from workbench.hierarchy.missing import MISSING, missing_cells, missing_placement
from workbench.hierarchy.suggest import suggest_spec
from workbench.hierarchy.tree import Hierarchy
from workbench.hierarchy.values import DATE_LEVELS, NOT_A_NUMBER, numeric_profile
from workbench.readers import base_name
from workbench.release.output import dataset_stem, safe_name
from workbench.samples import load_sample
from workbench.ui import state, upload
from workbench.ui import state_upload as S
from workbench.ui.charts import hierarchy_tree_chart
from workbench.ui.download import download
from workbench.ui.format import md
from workbench.ui.source import Source
from workbench.ui.suggestions import accept_suggested


def _preview(h: Hierarchy, values: pd.Series, key: str, dataset: dict[str, str]) -> None:
    """Validation report, level table and what a chosen level makes of the data; ARX download, named after the
    dataset (``dataset``: a config's ``[data]`` table) and the column."""
    report = h.validate(values.unique().tolist())
    for e in report.errors:
        st.error(md(e))
    for w in report.warnings:
        st.warning(md(w))
    if report.ok:
        st.success(f"Valid: height {h.height}, {len(h.rows):,} values, every value of the data covered.")
        cells = missing_cells(values, h)
        placement = missing_placement(h)
        if cells and placement:
            read = ", ".join(f"{'empty cells' if t == '' else md(repr(t))}: {n:,}" for t, n in cells.items())
            st.caption(f"{sum(cells.values()):,} record(s) with a missing value ({read}): {md(placement)}. Exports "
                       f"write them as {MISSING!r}.")
        _tree(h, values)
    left, right = st.columns(2)
    left.caption(f"Level table (one row per original value; the last column is the root; {MISSING} is an empty "
                 "cell)")
    left.dataframe(_labelled(h.level_table()), hide_index=True, height=300)
    if h.height > 0 and report.ok:
        level = right.slider("Level", 0, h.height, min(1, h.height), key=f"level:{key}")
        right.caption(f"Records per generalized value at level {level}")
        right.dataframe(_labelled(h.generalized_counts(values, level)), hide_index=True, height=250)
    download("Download as an ARX hierarchy file", h.to_arx().encode("utf-8"),
             f"{dataset_stem(dataset)}-{safe_name(key, fallback='column')}-hierarchy.csv", "text/csv",
             key=f"arx:{key}")


def _labelled(table: pd.DataFrame) -> pd.DataFrame:
    """A table to show, with the missing value (an empty cell) written as "(missing)" instead of a blank."""
    return table.replace("", MISSING)


def _tree(h: Hierarchy, values: pd.Series) -> None:
    """The hierarchy as a tree, cut from below to at most 60 nodes at its lowest drawn level."""
    try:
        nodes, edges, lowest = h.tree_layout(values)
    except WorkbenchError as exc:
        st.error(md(str(exc).splitlines()[0]))
        return
    cut = f", from level {lowest} up (the levels below have over 60 values; the level table shows them)" \
        if lowest else ""
    st.caption(f"The hierarchy as a tree{cut}. Hover a node for its records in the data.")
    nodes = nodes.assign(label=nodes["label"].replace("", MISSING))
    st.altair_chart(hierarchy_tree_chart(nodes, edges), width="content")


def _numbers(text: str, what: str) -> list[float] | str:
    try:
        return [float(x) if "." in x else int(x) for x in (p.strip() for p in text.split(",")) if x]
    except ValueError:
        return f"{what} must be numbers separated by commas, got {text!r}"


def _builder(column: str, values: pd.Series, current: dict[str, Any] | None) -> dict[str, Any] | str:
    """The builder spec the widgets describe (or an error message)."""
    spec = current["spec"] if current and current["mode"] == "builder" else suggest_spec(values)
    kinds = list(BUILDER_KINDS)
    kind = st.selectbox("Builder", kinds, index=kinds.index(spec.get("kind", "groupings")), key=f"kind:{column}")
    if kind == "intervals":
        c1, c2, c3 = st.columns(3)
        widths = _numbers(c1.text_input("Widths", ", ".join(map(str, spec.get("widths", [5, 10, 20]))),
                                        help="one level per width, each a multiple of the previous: 5, 10, 20",
                                        key=f"widths:{column}"), "widths")
        top = _numbers(c2.text_input("Top code (optional)", str(spec.get("top", "")), key=f"top:{column}",
                                     help="values at or above it become one band, e.g. 90 gives '90+'"), "top")
        bottom = _numbers(c3.text_input("Bottom code (optional)", str(spec.get("bottom", "")), key=f"bottom:{column}",
                                        help="values below it become one band, e.g. 18 gives '<18'"), "bottom")
        for parsed in (widths, top, bottom):
            if isinstance(parsed, str):
                return parsed
        out: dict[str, Any] = {"kind": "intervals", "widths": widths}
        out |= {"top": top[0]} if top else {}
        out |= {"bottom": bottom[0]} if bottom else {}
        return out | _text_in_numbers(column, values, spec)
    if kind == "masking":
        return {"kind": "masking", "char": st.text_input("Mask character", spec.get("char", "*"), max_chars=1,
                                                         key=f"char:{column}") or "*"}
    if kind == "dates":
        c1, c2 = st.columns(2)
        return {"kind": "dates",
                "format": c1.text_input("Date format (strptime)", spec.get("format", "%Y-%m-%d"), key=f"fmt:{column}"),
                "levels": c2.multiselect("Levels, finest first", list(DATE_LEVELS),
                                         default=spec.get("levels", ["month", "year", "decade"]),
                                         key=f"dlevels:{column}")}
    return _groupings(column, values, spec)


NON_NUMERIC_CHOICES = {"error": "not chosen yet (the hierarchy is not usable)",
                       "group": f"one group of their own, {NOT_A_NUMBER!r}",
                       "missing": f"missing values, in the group {MISSING!r} with the empty cells"}


def _text_in_numbers(column: str, values: pd.Series, spec: dict[str, Any]) -> dict[str, Any]:
    """The intervals builder's options for values that are not plain numbers: decimal commas (read as numbers when
    the analyst agrees), and text, named with its counts, placed where the analyst chooses."""
    out: dict[str, Any] = {}
    if numeric_profile(values).comma_decimals:
        comma = st.checkbox("Read numbers with a decimal comma (29,0 as 29.0)", value=spec.get("decimal_comma", True),
                            key=f"comma:{column}")
        out["decimal_comma"] = bool(comma)
    profile = numeric_profile(values, out.get("decimal_comma", False))
    if not profile.not_numbers:
        return out
    st.warning(f"{len(profile.not_numbers)} value(s) of {md(repr(column))} are not numbers: "
               f"{md(profile.listing(10))}. Choose what they become, or correct the data and upload it again.")
    choices = list(NON_NUMERIC_CHOICES)
    before = spec.get("non_numeric")
    chosen = st.radio("Values that are not numbers become", choices, key=f"nonnum:{column}",
                      index=choices.index(before) if before in choices else 0, format_func=NON_NUMERIC_CHOICES.get)
    return out | {"non_numeric": chosen}


def _groupings(column: str, values: pd.Series, spec: dict[str, Any]) -> dict[str, Any] | str:
    levels = spec.get("levels", []) if spec.get("kind") == "groupings" else []
    depth = st.number_input("Levels of groups (the root '*' is added on top; 0: every value goes straight to '*')",
                            0, 6, len(levels), key=f"depth:{column}")
    distinct = sorted(values.unique().tolist())
    table = pd.DataFrame({"value": distinct})
    for i in range(int(depth)):
        previous = table.iloc[:, -1]
        mapping = levels[i] if i < len(levels) else {}
        table[f"level {i + 1}"] = [mapping.get(str(v), "") for v in previous]
    st.caption("Type each value's group; rows with the same group at one level must share the next level's group.")
    edited = st.data_editor(table, hide_index=True, disabled=["value"], key=f"groups:{column}:{int(depth)}",
                            height=min(400, 40 + 35 * len(table)))
    try:
        return groupings_from_table(edited.to_numpy(dtype=object).tolist(), name=column)
    except WorkbenchError as exc:
        return str(exc).splitlines()[0]


def _edit(ws: dict[str, Any], column: str) -> None:
    values = ws["frame"][column]
    current = ws["hierarchies"].get(column)
    modes = ["Build", "Import an ARX file"]
    mode = st.radio("Hierarchy", modes, horizontal=True, key=f"mode:{column}",
                    index=1 if current and current["mode"] == "arx" else 0)
    if mode == "Build":
        spec = _builder(column, values, current)
        if isinstance(spec, str):  # recorded, so the column's status is not a tick next to this error
            ws["hierarchies"][column] = {"mode": "builder", "error": spec,
                                         "spec": current.get("spec", {}) if current else {}}
            st.error(md(spec))
            return
        ws["hierarchies"][column] = {"mode": "builder", "spec": spec}
    else:
        file = st.file_uploader("ARX hierarchy file (';'-separated, one row per value, no header)",
                                type=["csv", "txt"], key=f"arxfile:{column}", max_upload_size=upload.MAX_HIERARCHY_MB)
        if file is not None and upload.oversized(file, upload.MAX_HIERARCHY_MB):
            st.error(md(upload.oversized(file, upload.MAX_HIERARCHY_MB)))
            return
        if file is not None:
            name = base_name(file.name) or "hierarchy.csv"  # a label, never a path (docs/deploy.md)
            try:
                text = file.getvalue().decode("utf-8-sig")
            except UnicodeDecodeError as exc:  # recorded, so the column is not ready (no earlier file is used)
                error = f"{name}: not UTF-8 text (byte {exc.start} cannot be decoded)"
                ws["hierarchies"][column] = {"mode": "arx", "error": error, "file": name}
                st.error(md(error))
                return
            ws["hierarchies"][column] = {"mode": "arx", "text": text, "file": name}
        elif not current or current["mode"] != "arx":
            st.info("Choose a file to import.")
            return
    h, error = upload.hierarchy_of(ws, column)
    if h is None:
        st.error(md(error))
        return
    _preview(h, values, column, {"path": ws["name"]})
    kinds = list(upload.POSETS)
    ws["posets"][column] = st.selectbox("Poset for the local engine", kinds,
                                        index=kinds.index(ws["posets"].get(column, "tree"))
                                        if ws["posets"].get(column, "tree") in kinds else 0,
                                        format_func=lambda p: f"{p}: {upload.POSETS[p]}", key=f"poset:{column}")


def _own_data(ws: dict[str, Any]) -> None:
    quasi = [c for c, r in ws["roles"].items() if r == "quasi"]
    st.caption(f"Your data: {md(ws['name'])}")
    if not quasi:
        st.info("Mark the quasi-identifiers on the Data page first (role 'quasi').")
        return

    accept_suggested(ws, quasi, key="h_accept_all")
    state.keep_valid(state.H_COLUMN, quasi)
    column = st.selectbox("Quasi-identifier", quasi, key=state.H_COLUMN)
    _edit(ws, column)
    upload.select_when_ready(S.OWN_READY.get_or(False))
    todo = upload.problems(ws)
    st.caption("Status: " + ", ".join(f"{md(c)} {'✗' if upload.column_problems(ws, c) else '✓'}" for c in quasi))
    if todo:
        st.info("Still to do before anonymizing: " + "; ".join(map(md, todo[:3])) + (" …" if len(todo) > 3 else ""))
    elif upload.session_source() is not None:
        st.success("Every quasi-identifier has a valid hierarchy: \"your data\" is chosen in the Dataset box, and "
                   "the other pages work on it.")


def page(source: Source) -> None:
    st.header("Hierarchies")
    ws = upload.workspace()
    options = (["your data"] if ws is not None else []) + ([source.sample] if source.sample else [])
    if not options:
        return
    which = st.radio("Hierarchies of", options, horizontal=True, key="h_which") if len(options) > 1 else options[0]
    if which == "your data" and ws is not None:
        _own_data(ws)
        return
    sample = load_sample(source.sample)
    st.caption("The embedded dataset's hierarchies (read only). To build hierarchies for your own table, upload it "
               "on the Data page.")
    state.keep_valid(state.H_SAMPLE_COLUMN, list(sample.quasi_identifiers))
    column = st.selectbox("Quasi-identifier", sample.quasi_identifiers, key=state.H_SAMPLE_COLUMN)
    _preview(sample.hierarchies[column], sample.frame[column], column, {"sample": source.sample})
