"""Compare page: every candidate solution of both engines under every measure (raw and normalized), the Pareto
front of any two measures, the best lattice solution next to each local release, which solution each measure
would choose, the rank agreement between measures, measure-vs-k sweep lines and model degradation.

The lattice candidates (fast) and the local-engine releases (slow on large tables: Greedy is quadratic in the
distinct records) are separate cached calls, so the lattice rows show at once and the local rows join when
ready; the local rows depend on k and the measures only, so changing the suppression limit or the candidate
set never reruns the local engine.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from measures.degradation import CLASSIFIERS
from workbench.errors import WorkbenchError
from workbench.policy import suppression_share
from workbench.ui import format, long_work, state
from workbench.ui.cached import local_engine_hint, too_large_for_tables
from workbench.ui.charts import degradation_chart, pareto_chart, rank_heatmap, sweep_chart
from workbench.ui.compare_cached import (
    LocalRows,
    SideBySide,
    analysis,
    degradation,
    lattice_rows,
    local_rows,
    optima,
    pareto_of,
    side_by_side,
    sweep,
)
from workbench.ui.context import PageContext
from workbench.ui.failure import show_error, shown_errors
from workbench.ui.lattice_marks import rule_name, session_models
from workbench.ui.source import Source

SWEEP_KS = [2, 3, 5, 10, 20, 50, 100]


def _label(row: pd.Series) -> str:
    return f"{row.engine} · {row.solution}" if row.engine == "lattice" else f"local · {row.algorithm}"


DEFAULT_K = state.DEFAULT_K
LABELS = {"suppressed": "suppressed records"}  # the other columns as every table heads them (format.COLUMN_LABELS)


def prefetch(source: Source) -> None:
    """Compute the page's first view at its default settings (the background warm-up, ``ui/prefetch.py``):
    k-minimal lattice candidates with no suppression, and the local releases."""
    analysis(source.study(k=DEFAULT_K, max_suppression=suppression_share(state.DEFAULT_SUPPRESSION_PERCENT)),
             source.study(k=DEFAULT_K), "k_minimal", dataset_key=source.dataset_key)


def page(ctx: PageContext) -> None:
    source = ctx.source
    st.header("Compare")
    st.caption("Every candidate solution of both engines under every measure: the lattice's k-minimal nodes "
               "(or every k-anonymous node, or the best 10) and the local engine's Greedy, Partition and Mondrian "
               "releases.")
    c1, c2, c3, c4 = st.columns(4)
    k = state.k_input(c1, help="the session's k, shared with every page")
    suppression = state.suppression_input(c2)  # lattice engine only: the local engine suppresses no record
    candidates = c3.selectbox("Lattice candidates", ["k_minimal", "top", "all"], key=state.CMP_CAND.key)
    local_hint = local_engine_hint(source)  # computed for the table at hand
    with_local = c4.toggle("Local-engine releases", value=True, key=state.CMP_LOCAL.key,
                           help=f"Greedy, Partition and Mondrian for the same k; {local_hint}")
    ids = source.measure_ids
    models = session_models(source)  # the Anonymize page's privacy models hold here too: one rule on every page
    study = source.study(k=k, max_suppression=suppression_share(suppression), privacy_models=models)
    local_study = source.study(k=k, privacy_models=models) if with_local else None
    if models:
        st.caption("The privacy models chosen on the Anonymize page apply here too ("
                   + ", ".join(rule_name(kind) for kind in models) + "): every row says whether its "
                   "release meets the whole rule (*meets the rule*, and what it fails), and only rows that meet it are "
                   "ranked, chosen or on the Pareto front.")
    key = source.dataset_key

    refusal = too_large_for_tables(source)
    if refusal:
        st.error(format.md(refusal))
        return
    lattice = long_work.announced(f"Scoring the lattice candidates ({candidates}) under every measure", lattice_rows,
                                  study, candidates, dataset_key=key)
    if local_study is not None:
        early = st.empty()
        local: LocalRows | None = None
        failed: WorkbenchError | None = None
        with early.container():  # the lattice rows while the local engine runs (a cache hit replaces them at once)
            format.show(lattice, labels=LABELS)
            try:
                local = long_work.announced(f"Local engine: Greedy, Partition and Mondrian ({local_hint})",
                                            local_rows, local_study, dataset_key=key)
            except WorkbenchError as exc:  # the lattice rows are compared without the local engine's
                failed = exc
        early.empty()
        if failed is not None:
            show_error(failed, prefix="local engine: ")
            local_study = None
        for reason in (local.left_out if local is not None else {}).values():
            st.caption(f"Left out of the comparison: {format.md(reason)}.")
    long_work.announced("Finding each measure's optimum over every node that meets the rule", optima, study,
                        dataset_key=key)  # the long part of the analysis below, named on its own
    data = long_work.announced("Ranking the candidates: normalized values, Pareto front, each measure's choice, "
                               "Kendall τ", analysis, study, local_study, candidates, dataset_key=key)
    table = data.table
    if not (table.engine == "lattice").any():
        st.info(f"No lattice node is {k}-anonymous within a {suppression:g} % suppression limit; "
                "raise the limit to see lattice candidates.")
    if not len(table):
        return

    raw_tab, norm_tab = st.tabs(["Raw values", "Normalized (0 = best, 1 = worst over these candidates)"])
    format.show(table, raw_tab, labels=LABELS)
    raw_tab.caption("suppressed: the records a solution releases with * in every quasi-identifier, and their "
                    "percent of all records (the local engine suppresses none)."
                    + (f" {format.NOT_APPLICABLE}: the measure gives no value for that solution."
                       if table[data.ids].isna().any(axis=None) else ""))
    format.show(data.normalized, norm_tab, labels=LABELS)
    norm_tab.caption("Each measure rescaled over the candidates in its own direction (Normalized mutual information: "
                     "higher is better); Pareto front: no other candidate is at least as good under every measure and "
                     "better under one.")

    st.subheader("Pareto front of two measures")
    left, right = st.columns(2)
    for widget in (state.CMP_X, state.CMP_Y, state.CMP_OBJECTIVE):
        state.keep_valid(widget, ids)
    x = left.selectbox("x", ids, index=ids.index("loss") if "loss" in ids else 0, key=state.CMP_X.key,
                       format_func=format.measure_label)
    y = right.selectbox("y", ids, index=ids.index("nmi") if "nmi" in ids else min(1, len(ids) - 1), key=state.CMP_Y.key,
                        format_func=format.measure_label)
    front = long_work.announced(f"Finding the Pareto front of {format.measure_label(x)} and {format.measure_label(y)}",
                                pareto_of, study, local_study, candidates, x, y, dataset_key=key).front
    st.altair_chart(pareto_chart(table, x, y, front), width="stretch")
    st.caption(f"Shape: on the Pareto front of {format.measure_label(x)} and {format.measure_label(y)} (for two "
               "losses the front is the lower-left edge).")

    st.subheader("Global vs local, side by side")
    pair: SideBySide | None = None
    if not (table.engine == "local").any() or not (table.engine == "lattice").any():
        st.info("Needs both a lattice candidate and a local-engine release.")
    else:
        objective = st.selectbox("Best lattice solution under", ids, index=ids.index("entropy")
                                 if "entropy" in ids else 0, key=state.CMP_OBJECTIVE.key,
                                 format_func=format.measure_label)
        with shown_errors():
            pair = long_work.announced("Placing the best lattice solution beside the local releases", side_by_side,
                                       study, local_study, candidates, objective, dataset_key=key)
            records, pct = pair.lattice_suppressed
            st.caption(f"lattice = {format.md(pair.lattice_solution)}: the best full-domain generalization under "
                       f"{format.measure_label(objective)} over every {k}-anonymous node (within the suppression "
                       f"limit), not only the candidates; it suppresses {format.number(records)} records "
                       f"({pct:.1f} %), the local releases none. Normalized over the candidates and the optima.")
            raw = [c for c in pair.table.columns if c not in ("measure", "direction", "better")
                   and not c.endswith("(normalized)")]
            format.show(format.with_measure_names(pair.table), labels=LABELS, by_cell=raw)  # a measure per row

    st.subheader("Which solution each measure would choose")
    format.show(format.with_measure_names(data.optimal), labels=LABELS,
                by_cell=["value"] if len(data.optimal) else [])
    st.caption("scope: what each row is the best of. *every node admissible under …*: the lattice optimum over all "
               f"nodes that meet the whole rule named there (k = {k}, every configured privacy model, the suppression "
               "limit); a monotone measure without a lattice fast path under a monotone rule is searched over the "
               "minimal admissible nodes, which provably hold its optimum. *best of the candidates "
               f"({candidates})*: restricted to the candidate set above. With suppression, dm, loss, aecs, "
               "precision_nm, entropy_nm, pmi and nmi are not monotone, so the best k-minimal node can be far "
               "from the optimum.")
    st.subheader("Do the measures agree? (Kendall τ over the candidates)")
    st.altair_chart(rank_heatmap(data.tau), width="content")

    st.subheader("How each measure degrades as k grows")
    ks = st.multiselect("k values", SWEEP_KS, default=[2, 5, 10, 20], key="cmp_sweep_ks")
    sweep_local = st.checkbox(f"with the local engine ({local_hint}, per k)", value=False,
                              key="cmp_sweep_local")
    if st.toggle("Draw the sweep", value=False, key="cmp_sweep_on") and ks:
        with shown_errors():
            lines = long_work.announced(f"Solutions for k = {', '.join(map(str, sorted(ks)))}", sweep, study,
                                        source.study(k=k, privacy_models=models) if sweep_local else None,
                                        candidates, tuple(sorted(int(v) for v in ks)), dataset_key=key)
            st.altair_chart(sweep_chart(lines, data.ids), width="content")
            st.caption("Per algorithm, the best value of each measure among its candidates at each k.")

    st.subheader("Model degradation")
    if source.target is None:
        st.info("Model degradation trains classifiers to predict a target column from the released "
                "quasi-identifiers, and this dataset has no target. Choose a dataset with a target (the registry: "
                "high_cost) or give a column the role target on the Data page.")
        return
    rows = {_label(row): int(i) for i, row in table.iterrows()}  # chosen by label: stable when the rows change
    best_lattice = [a for a, i in rows.items() if pair is not None and table.solution[i] == pair.lattice_solution][:1]
    default = best_lattice + [a for a, i in rows.items() if table.engine[i] == "local"][:1]
    state.keep_valid(state.CMP_DEG_ROWS, list(rows), multiple=True)
    picked = st.multiselect("Solutions", list(rows), default=default, key=state.CMP_DEG_ROWS.key)
    chosen = [rows[a] for a in picked]
    classifier = st.selectbox("Classifier (ZeroR always runs as the baseline)",
                              [c for c in CLASSIFIERS if c != "zeror"], key="cmp_deg_clf",
                              index=[c for c in CLASSIFIERS if c != "zeror"].index("naive_bayes"))
    request = (study, local_study, candidates, tuple(sorted(chosen)), classifier)
    if st.button("Run model degradation", disabled=not chosen, key="cmp_deg_run"):
        state.CMP_DEG_REQUEST.set(request)
    if not chosen:
        st.caption("Choose at least one solution above to run model degradation.")
        return
    if state.CMP_DEG_REQUEST.get() != request:
        st.caption(f"Stratified 5-fold cross-validation on the original and each release ({format.md(source.target)} "
                   "as the target): accuracy and AUC drops, and how often both models agree.")
        return
    result = long_work.follow(degradation, *request, dataset_key=key, name="cmp_deg",
                              doing=f"Model degradation of {len(chosen)} release(s) ({classifier}, 5 folds)")
    if result is None:  # still running: the panel above shows how far
        return
    if result is long_work.CANCELLED:
        state.CMP_DEG_REQUEST.pop()
        st.info("Model degradation cancelled. Run it again to start over.")
        return
    summary = result
    format.show(summary, labels=LABELS)
    st.altair_chart(degradation_chart(summary), width="content")
