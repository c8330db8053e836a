"""Compare page: every candidate solution of both engines under every measure (raw and normalized), the Pareto
front of any two measures, the best lattice solution next to each local release, which solution each measure
would choose, the rank agreement between measures, measure-vs-k sweep lines and model degradation.

The lattice candidates (fast) and the local-engine releases (slow on large tables: Greedy is quadratic in the
distinct records) are separate cached calls, so the lattice rows show at once and the local rows join when
ready; the local rows depend on k and the measures only, so changing the suppression limit or the candidate
set never reruns the local engine.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from workbench.catalog import CLASSIFIERS
from workbench.errors import WorkbenchError
from workbench.ui import state
from workbench.ui.cached import dual_cache, error_result, local_engine_hint, study_and_dataset, too_large_for_tables
from workbench.ui.charts import degradation_chart, pareto_chart, rank_heatmap, sweep_chart
from workbench.ui.source import Source

SWEEP_KS = [2, 3, 5, 10, 20, 50, 100]


@dual_cache(max_entries=32, heavy=True)
def lattice_rows(config_json: str, candidates: str, dataset_key: str | None) -> dict[str, Any]:
    """The lattice candidates' rows of the solutions table."""
    from workbench import compare

    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        return {"table": compare.lattice_solutions(study, dataset, candidates)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)


@dual_cache(max_entries=32, heavy=True)
def local_rows(config_json: str, dataset_key: str | None) -> dict[str, Any]:
    """The local engine's rows (Greedy and Partition); ``config_json`` without a suppression limit."""
    from workbench import compare

    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        return {"table": compare.local_solutions(study, dataset, compare.COMPARED_LOCAL_ALGORITHMS)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)


@dual_cache(max_entries=16, heavy=True)
def optima(config_json: str, dataset_key: str | None) -> dict[str, Any]:
    """Each measure's optimum over every k-anonymous node (``compare.lattice_optima``) and those nodes' rows
    of the solutions table (``compare.optimum_solutions``)."""
    from workbench import compare

    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        table = compare.lattice_optima(study, dataset)
        return {"optima": table, "rows": compare.optimum_solutions(study, dataset, table)}
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)


@dual_cache(max_entries=16)
def analysis(config_json: str, local_json: str | None, candidates: str, dataset_key: str | None) -> dict[str, Any]:
    """The solutions table (lattice rows, then the local rows when ``local_json`` is given), its normalized
    values, Pareto front, each measure's choice (the optimum over every k-anonymous node, and the best of each
    candidate set) and the Kendall τ between measures."""
    from workbench import compare

    lattice = lattice_rows(config_json, candidates, dataset_key=dataset_key)
    if "error" in lattice:
        return lattice
    best = optima(config_json, dataset_key=dataset_key)
    if "error" in best:
        return best
    parts = [lattice["table"]]
    if local_json is not None:
        local = local_rows(local_json, dataset_key=dataset_key)
        if "error" in local:
            return local
        parts.append(local["table"])
    table = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    ids = [c for c in table.columns if c not in ("k", "engine", "algorithm", "solution")]
    norm = compare.normalized(table, ids)
    pareto = compare.pareto_front(table, ids)
    normalized = norm[["engine", "algorithm", "solution"]].assign(
        **{m: norm[f"{m}_norm"] for m in ids}, pareto=pareto)
    return {"table": table, "ids": ids, "normalized": normalized, "pareto": pareto,
            "optimal": compare.optimal_under(table, ids, best["optima"]) if len(table) else pd.DataFrame(),
            "optimum_rows": best["rows"], "tau": compare.rank_agreement(table, ids)}


@dual_cache(max_entries=32)
def side_by_side(config_json: str, local_json: str | None, candidates: str, objective: str,
                 dataset_key: str | None) -> dict[str, Any]:
    """The best lattice solution under ``objective`` over every k-anonymous node (not only the candidates)
    next to each local release, every measure; normalized over the candidates and the optima."""
    from workbench import compare

    data = analysis(config_json, local_json, candidates, dataset_key=dataset_key)
    if "error" in data:
        return data
    table = pd.concat([data["optimum_rows"], data["table"]], ignore_index=True)  # optima first: they win ties
    lattice = table[table.engine == "lattice"]
    chosen = str(lattice.solution[compare.as_loss(lattice, objective).idxmin()]) if len(lattice) else None
    return {"table": compare.global_vs_local(table, objective, data["ids"]), "lattice_solution": chosen}


@dual_cache(max_entries=64)
def pareto_of(config_json: str, local_json: str | None, candidates: str, x: str, y: str,
              dataset_key: str | None) -> dict[str, Any]:
    """The Pareto front of the solutions under two measures (under every measure when x == y)."""
    from workbench import compare

    data = analysis(config_json, local_json, candidates, dataset_key=dataset_key)
    if "error" in data:
        return {"front": None}
    return {"front": compare.pareto_front(data["table"], [x, y]) if x != y else data["pareto"]}


@dual_cache(max_entries=8, heavy=True)
def degradation(config_json: str, local_json: str | None, candidates: str, rows_json: str, classifier: str,
                dataset_key: str | None) -> dict[str, Any]:
    """Model degradation (ZeroR and ``classifier``, 5-fold) of the chosen rows of the solutions table."""
    from workbench import model_degradation

    data = analysis(config_json, local_json, candidates, dataset_key=dataset_key)
    if "error" in data:
        return data
    rows = json.loads(rows_json)
    try:
        study, dataset = study_and_dataset(config_json, dataset_key)
        out = model_degradation.add_degradation(data["table"], study, dataset, rows=rows,
                                                classifiers=("zeror", classifier), n_jobs=min(2, len(rows)))
    except (WorkbenchError, KeyError, ValueError) as exc:
        return error_result(exc)
    return {"summary": model_degradation.degradation_summary(out)}


@dual_cache(max_entries=32)
def sweep(config_json: str, local_json: str | None, candidates: str, ks_json: str,
          dataset_key: str | None) -> dict[str, Any]:
    """``compare.sweep``'s table, built from the per-k cached rows (so the page's own k is not recomputed)."""
    frames = []
    for k in json.loads(ks_json):
        config, local = json.loads(config_json), json.loads(local_json) if local_json else None
        config["privacy"]["k"] = k
        if local is not None:
            local["privacy"]["k"] = k
        data = analysis(json.dumps(config, sort_keys=True), json.dumps(local, sort_keys=True) if local else None,
                        candidates, dataset_key=dataset_key)
        if "error" in data:
            return data
        frames.append(data["table"])
    return {"table": pd.concat(frames, ignore_index=True)}


def _label(row: pd.Series) -> str:
    return f"{row.engine} · {row.solution}" if row.engine == "lattice" else f"local · {row.algorithm}"


DEFAULT_K = state.DEFAULT_K


def prefetch(source: Source) -> None:
    """Compute the page's first view at its default settings (the background warm-up, ``ui/prefetch.py``):
    k-minimal lattice candidates with no suppression, and the local releases."""
    analysis(source.config_json(k=DEFAULT_K, max_suppression=state.DEFAULT_SUPPRESSION_PERCENT / 100),
             source.config_json(k=DEFAULT_K), "k_minimal", dataset_key=source.dataset_key)


def page(source: Source) -> None:
    st.header("Compare")
    st.caption("Every candidate solution of both engines under every measure: the lattice's k-minimal nodes "
               "(or every k-anonymous node, or the best 10) and the local engine's Greedy and Partition releases.")
    c1, c2, c3, c4 = st.columns(4)
    k = state.k_input(c1, help="the session's k, shared with every page")
    suppression = state.suppression_input(c2)  # lattice engine only: the local engine suppresses no record
    candidates = c3.selectbox("Lattice candidates", ["k_minimal", "top", "all"], key="cmp_cand")
    local_hint = local_engine_hint(source)  # computed for the table at hand
    with_local = c4.toggle("Local-engine releases", value=True, key="cmp_local",
                           help=f"Greedy, Partition and Mondrian for the same k; {local_hint}")
    ids = source.measure_ids
    config_json = source.config_json(k=k, max_suppression=suppression / 100)
    local_json = source.config_json(k=k) if with_local else None
    key = source.dataset_key

    refusal = too_large_for_tables(source)
    if refusal:
        st.error(refusal)
        return
    with st.spinner("Scoring the lattice candidates…"):
        lattice = lattice_rows(config_json, candidates, dataset_key=key)
    if "error" in lattice:
        st.error(lattice["error"])
        return
    if local_json is not None:
        early = st.empty()
        with early.container():  # the lattice rows while the local engine runs (a cache hit replaces them at once)
            st.dataframe(lattice["table"], hide_index=True, width="stretch")
            with st.spinner(f"Local engine: Greedy, Partition and Mondrian ({local_hint})…"):
                local = local_rows(local_json, dataset_key=key)
        early.empty()
        if "error" in local:
            st.error(f"local engine: {local['error']}")
            local_json = None
    data = analysis(config_json, local_json, candidates, dataset_key=key)
    if "error" in data:
        st.error(data["error"])
        return
    table = data["table"]
    if not (table.engine == "lattice").any():
        st.info(f"No lattice node is {k}-anonymous within a {suppression:g} % suppression limit; "
                "raise the limit to see lattice candidates.")
    if not len(table):
        return

    raw_tab, norm_tab = st.tabs(["Raw values", "Normalized (0 = best, 1 = worst over these candidates)"])
    raw_tab.dataframe(table, hide_index=True, width="stretch")
    norm_tab.dataframe(data["normalized"], hide_index=True, width="stretch")
    norm_tab.caption("Each measure rescaled over the candidates in its own direction (nmi: higher is better); "
                     "pareto: no other candidate is at least as good under every measure and better under one.")

    st.subheader("Pareto front of two measures")
    left, right = st.columns(2)
    for widget in ("cmp_x", "cmp_y", "cmp_objective"):
        state.keep_valid(widget, ids)
    x = left.selectbox("x", ids, index=ids.index("loss") if "loss" in ids else 0, key="cmp_x")
    y = right.selectbox("y", ids, index=ids.index("nmi") if "nmi" in ids else min(1, len(ids) - 1), key="cmp_y")
    front = pareto_of(config_json, local_json, candidates, x, y, dataset_key=key)["front"]
    st.altair_chart(pareto_chart(table, x, y, front), width="stretch")
    st.caption(f"Shape: on the Pareto front of {x} and {y}, each in its own direction (for two losses the front "
               "is the lower-left edge).")

    st.subheader("Global vs local, side by side")
    pair: dict[str, Any] = {}
    if not (table.engine == "local").any() or not (table.engine == "lattice").any():
        st.info("Needs both a lattice candidate and a local-engine release.")
    else:
        objective = st.selectbox("Best lattice solution under", ids, index=ids.index("entropy")
                                 if "entropy" in ids else 0, key="cmp_objective")
        pair = side_by_side(config_json, local_json, candidates, objective, dataset_key=key)
        if "error" in pair:
            st.error(pair["error"])
        else:
            st.caption(f"lattice = {pair['lattice_solution']}: the best full-domain generalization under {objective} "
                       f"over every {k}-anonymous node (within the suppression limit), not only the candidates; "
                       "normalized over the candidates and the optima")
            st.dataframe(pair["table"], hide_index=True, width="stretch")

    st.subheader("Which solution each measure would choose")
    st.dataframe(data["optimal"], hide_index=True, width="stretch")
    st.caption(f"scope: what each row is the best of. *every k-anonymous node*: the lattice optimum over all "
               f"{k}-anonymous nodes within the suppression limit (a monotone measure without a lattice fast path "
               f"is searched over the k-minimal nodes, which provably holds its optimum). *best of the candidates "
               f"({candidates})*: restricted to the candidate set above. With suppression, dm, loss, aecs, "
               "precision_nm, entropy_nm, pmi and nmi are not monotone, so the best k-minimal node can be far "
               "from the optimum.")
    st.subheader("Do the measures agree? (Kendall τ over the candidates)")
    st.altair_chart(rank_heatmap(data["tau"]), width="content")

    st.subheader("How each measure degrades as k grows")
    ks = st.multiselect("k values", SWEEP_KS, default=[2, 5, 10, 20], key="cmp_sweep_ks")
    sweep_local = st.checkbox(f"with the local engine ({local_hint}, per k)", value=False,
                              key="cmp_sweep_local")
    if st.toggle("Draw the sweep", value=False, key="cmp_sweep_on") and ks:
        with st.spinner(f"Solutions for k = {', '.join(map(str, sorted(ks)))}…"):
            lines = sweep(source.config_json(k=k, max_suppression=suppression / 100),
                          source.config_json(k=k) if sweep_local else None, candidates,
                          json.dumps(sorted(int(v) for v in ks)), dataset_key=key)
        if "error" in lines:
            st.error(lines["error"])
        else:
            st.altair_chart(sweep_chart(lines["table"], data["ids"]), width="content")
            st.caption("Per algorithm, the best value of each measure among its candidates at each k.")

    st.subheader("Model degradation")
    if source.target is None:
        st.info("Model degradation trains classifiers to predict a target column from the released "
                "quasi-identifiers, and this dataset has no target. Choose a dataset with a target (the registry: "
                "high_cost) or give a column the role target on the Data page.")
        return
    rows = {_label(row): int(i) for i, row in table.iterrows()}  # chosen by label: stable when the rows change
    best_lattice = [a for a, i in rows.items() if table.solution[i] == pair.get("lattice_solution")][:1]
    default = best_lattice + [a for a, i in rows.items() if table.engine[i] == "local"][:1]
    state.keep_valid("cmp_deg_rows", list(rows), multiple=True)
    picked = st.multiselect("Solutions", list(rows), default=default, key="cmp_deg_rows")
    chosen = [rows[a] for a in picked]
    classifier = st.selectbox("Classifier (ZeroR always runs as the baseline)",
                              [c for c in CLASSIFIERS if c != "zeror"], key="cmp_deg_clf",
                              index=[c for c in CLASSIFIERS if c != "zeror"].index("naive_bayes"))
    request = (config_json, local_json, candidates, json.dumps(sorted(chosen)), classifier)
    if st.button("Run model degradation", disabled=not chosen, key="cmp_deg_run"):
        st.session_state["cmp_deg_request"] = request
    if not chosen:
        st.caption("Choose at least one solution above to run model degradation.")
        return
    if st.session_state.get("cmp_deg_request") != request:
        st.caption(f"Stratified 5-fold cross-validation on the original and each release ({source.target} "
                   "as the target): accuracy and AUC drops, and how often both models agree.")
        return
    with st.spinner(f"Training on the original and {len(chosen)} release(s), 5 folds each…"):
        result = degradation(*request, dataset_key=key)
    if "error" in result:
        st.error(result["error"])
        return
    summary = result["summary"]
    st.dataframe(summary, hide_index=True, width="stretch")
    st.altair_chart(degradation_chart(summary), width="content")
