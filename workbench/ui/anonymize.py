"""Anonymize page: engine, algorithm, k, suppression limit and objective; run; the result with its
guarantee and every measure (formula on hover)."""

from __future__ import annotations

import streamlit as st

import measures as M
from workbench.config import LOCAL_ALGORITHMS, LOCAL_OBJECTIVES
from workbench.guarantees import suppression_note, suppression_warning
from workbench.lattice.search import ALGORITHMS
from workbench.policy import needs_monotone_waiver, search_refusal
from workbench.ui import guarantee, state
from workbench.ui.cached import lattice_size, run_config
from workbench.ui.source import Source

DEFAULTS = {"an_engine": "lattice", "an_alg": "flash", "an_obj": "entropy", "an_local_alg": "greedy",
            "an_local_obj": "vinterbo"}
OPTIMAL_FOR_ANY = "bnb"  # optimal for any objective, and anytime (stops at a time limit)


def _steer() -> None:
    """On a change of objective: a non-monotone one with Flash or OLA switches the search to bnb (the analyst
    may switch back; the result is then marked not proven optimal)."""
    algorithm, objective = st.session_state.get("an_alg"), st.session_state.get("an_obj")
    if algorithm in ALGORITHMS and objective in M.MEASURES and needs_monotone_waiver(algorithm, objective):
        st.session_state["an_alg"] = OPTIMAL_FOR_ANY
        st.session_state["an_steered"] = (algorithm, objective)
    else:
        st.session_state.pop("an_steered", None)


def page(source: Source) -> None:
    st.header("Anonymize")
    st.caption(f"Dataset: {source.label}")
    for key, default in DEFAULTS.items():  # defaults through the session state, so a loaded config can set them
        st.session_state.setdefault(key, default)
    engine = st.radio("Engine", ["lattice", "local"], horizontal=True, key="an_engine",
                      help="lattice: full-domain generalization + record suppression; "
                           "local: least-upper-bound recoding of each record (Katirai 2006)")
    left, right = st.columns(2)
    if engine == "lattice":
        algorithm = left.selectbox("Algorithm", list(ALGORITHMS), key="an_alg",
                                   format_func=lambda a: f"{a} ({'optimal' if ALGORITHMS[a].optimal else 'heuristic'})")
        objective = right.selectbox("Objective (minimized)", list(M.LATTICE_MEASURES), key="an_obj",
                                    on_change=_steer, help="a measure that is not monotone (dm, loss, aecs, "
                                    "precision_nm, entropy_nm) is searched with bnb: Flash and OLA assume "
                                    "monotonicity")
        max_suppression = state.suppression_input(left) / 100
    else:
        algorithm = left.selectbox("Algorithm", list(LOCAL_ALGORITHMS), key="an_local_alg")
        objective = right.selectbox("Objective (minimized)", list(LOCAL_OBJECTIVES), key="an_local_obj")
        max_suppression = 0.0
    k = state.k_input(right)
    extra: dict[str, object] = {}
    if engine == "lattice":
        size = lattice_size(source)
        if ALGORITHMS[algorithm].anytime:
            extra["time_limit"] = float(right.number_input(
                "Time limit (s)", min_value=1, value=60, step=10, key="an_time",
                help=f"{algorithm} stops when time is up and returns the best k-anonymous node it found, marked "
                     "not proven optimal"))
        refusal = search_refusal(algorithm, extra.get("time_limit"), size)  # as `workbench run` refuses it
        if refusal:
            st.error(refusal)
            return
        st.caption(f"The generalization lattice has {size:,} nodes.")
    steered = st.session_state.get("an_steered")
    if engine == "lattice" and steered and algorithm == OPTIMAL_FOR_ANY and steered[1] == objective:
        st.info(f"Search switched from {steered[0]} to {OPTIMAL_FOR_ANY}: {objective} is not monotone (with "
                "suppression a more general node can suppress fewer records and score better), and "
                f"{steered[0]} only compares the minimal k-anonymous nodes, so it could miss the optimum. "
                f"{OPTIMAL_FOR_ANY} (branch and bound) and exhaustive find it for any objective.")
    if engine == "lattice" and needs_monotone_waiver(algorithm, objective):
        extra["allow_non_monotone"] = True  # the analyst insists: run it, and say what that means
        st.warning(f"{algorithm} assumes a monotone objective and {objective} is not: the result is k-anonymous "
                   f"but not proven optimal; choose {OPTIMAL_FOR_ANY} or exhaustive, optimal for any objective.")
    config_json = source.config_json(k=int(k), max_suppression=float(max_suppression), engine=engine,
                                     algorithm=algorithm, objective=objective, **extra)
    clicked = st.button("Run", type="primary")
    last = st.session_state.get("last_run")
    unchanged = last is not None and last["config"] == config_json and last["dataset_key"] == source.dataset_key
    if not clicked and not unchanged:  # the last result is shown again until its inputs change
        return
    if clicked:
        bar = st.progress(0.0, text="starting")
        result = run_config(config_json, dataset_key=source.dataset_key,
                            progress=lambda fraction, text: bar.progress(fraction, text=text))
        bar.empty()
    else:
        st.caption("The last run with these settings (kept until the dataset or a setting changes).")
        with st.spinner("Showing the last run…"):
            result = run_config(config_json, dataset_key=source.dataset_key)  # kept in the cache
    st.session_state["last_run"] = {"config": config_json, "dataset_key": source.dataset_key, "label": source.label}
    if "error" in result:
        st.error(result["error"])
        return
    summary = result["summary"]
    guarantee.show(result["guarantee_kind"], result["holds"], result["guarantee"])
    cols = st.columns(4)
    cols[0].metric("suppressed records", suppression_note(summary["suppressed"], result["records"]),
                   help="released with * in every quasi-identifier")
    cols[1].metric("equivalence classes released", summary["classes"],
                   help="classes among the records kept, after suppression")
    cols[2].metric("node checks", summary["checks"])
    cols[3].metric("seconds", f"{summary['seconds']:.3f}")
    heavy = suppression_warning(summary["suppressed"], result["records"])
    if heavy:
        st.warning(heavy)
    if summary["transformation"]:
        st.subheader("Transformation (hierarchy level per quasi-identifier)")
        st.dataframe([summary["transformation"]], hide_index=True)
        st.caption("proven optimal" if result["proven_optimal"] else "not proven optimal "
                   + (f"({result['note']})" if result["note"] else ""))
    if result["clusters"] is not None:
        sizes = result["clusters"]
        st.subheader(f"Clustering: {int(sizes.clusters.sum()):,} clusters")
        st.caption("Every record of a cluster is released as the cluster's least upper bound (Katirai 2006).")
        st.dataframe(sizes, hide_index=True)
    st.subheader("What it costs, under every measure")
    scores = result["scores"]
    for start in range(0, len(scores), 4):
        row = st.columns(4)
        for col, s in zip(row, scores[start:start + 4], strict=False):
            col.metric(s["name"], f"{s['value']:.6g}", help=f"{s['formula']} ({s['direction']})")
    st.subheader("Released rows (first 25; shuffled on export)")
    st.dataframe(result["preview"], hide_index=True)
