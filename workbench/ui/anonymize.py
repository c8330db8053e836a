"""Anonymize page: engine, algorithm, k, suppression limit and objective; run; the result with its
guarantee and every measure (formula on hover)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

import measures as M
from workbench.config import LOCAL_ALGORITHMS, LOCAL_OBJECTIVES
from workbench.config.privacy import (
    BETA_VARIANTS,
    DEFAULT_POPULATION_ESTIMATOR,
    ENTROPY_ESTIMATORS,
    K_MAP_ESTIMATORS,
    L_VARIANTS,
    POPULATION_ESTIMATORS,
    RISK_MODELS,
    T_VARIANTS,
)
from workbench.lattice.search import ALGORITHMS
from workbench.policy import (
    PRUNING_SEARCHES,
    needs_monotone_waiver,
    non_monotone_warning,
    search_refusal,
    suppression_share,
)
from workbench.release.guarantees import suppression_note, suppression_warning
from workbench.release.output import MISSING_TOKEN
from workbench.samples import RESEARCH_SUBSETS
from workbench.ui import format, guarantee, long_work, state
from workbench.ui.cached import lattice_size, privacy_check, run_config, run_result
from workbench.ui.format import md
from workbench.ui.source import Source
from workbench.ui.upload import dependency_warnings

DEFAULTS = {state.AN_ENGINE: "lattice", state.AN_ALG: "flash", state.AN_OBJ: "entropy", state.AN_LOCAL_ALG: "greedy",
            state.AN_LOCAL_OBJ: "vinterbo"}
OPTIMAL_FOR_ANY = "bnb"  # optimal for any objective, and anytime (stops at a time limit)


def _steer() -> None:
    """On a change of objective: a non-monotone one with Flash or OLA switches the search to bnb (the analyst
    may switch back; the result is then marked not proven optimal)."""
    algorithm, objective = state.AN_ALG.get(), state.AN_OBJ.get()
    if algorithm in ALGORITHMS and objective in M.MEASURES and needs_monotone_waiver(algorithm, objective):
        state.AN_ALG.set(OPTIMAL_FOR_ANY)
        state.AN_STEERED.set((algorithm, objective))
    else:
        state.AN_STEERED.pop()


def _privacy_models(sensitive: list[str], subset: str | None) -> dict[str, dict[str, object]]:
    """Optional ℓ-diversity, t-closeness, β-likeness, δ-disclosure, (α, k)-anonymity and risk-threshold pickers
    (with a sensitive attribute), δ-presence (on a sample with a research subset) and k-map: the ``[privacy.MODEL]``
    tables chosen (docs/config.md "Privacy models"; the library validates them as `workbench run` does)."""
    chosen = any(state.values((state.L_DIVERSITY, state.T_CLOSENESS, state.RISK_THRESHOLD, state.DELTA_PRESENCE,
                               state.BETA_LIKENESS, state.DELTA_DISCLOSURE, state.ALPHA_K, state.K_MAP)).values())
    with st.expander("Privacy models besides k (protect a sensitive attribute, cap the risk)", expanded=chosen):
        if subset is not None and st.checkbox(
                "δ-presence (release the research subset)", key=state.DELTA_PRESENCE,
                help="release ARX's research subset of this data (3,016 records) so that someone who knows a person "
                     "is in the data cannot tell with more confidence than δ_max whether they are in the release "
                     "(Nergiz et al. 2007); the Risk page then adds journalist risk against the data"):
            cols = st.columns(4)
            cols[0].number_input("δ_min", min_value=0.0, max_value=1.0, value=PICKER_DEFAULTS[state.DP_MIN],
                                 step=0.01, format="%.3f", key=state.DP_MIN)
            cols[1].number_input("δ_max", min_value=0.0, max_value=1.0, value=PICKER_DEFAULTS[state.DP_MAX],
                                 step=0.01, format="%.3f", key=state.DP_MAX)
        if st.checkbox("k-map", key=state.K_MAP, help="every released class matches at least k people of the "
                       "population, not k records of the data (Sweeney 2001; ARX's k-map): against the data file with "
                       "its research subset released, or estimated from the population's size"):
            cols = st.columns(4)
            cols[0].number_input("k (people)", min_value=1, value=PICKER_DEFAULTS[state.KM_K], step=1, key=state.KM_K)
            sources = [K_MAP_ESTIMATE, *([K_MAP_TABLE] if subset is not None else [])]
            source = cols[1].selectbox("Population", sources, key=state.KM_SOURCE)
            if source == K_MAP_ESTIMATE:
                cols[2].number_input("Population size", min_value=1, value=PICKER_DEFAULTS[state.KM_POPULATION],
                                     step=1000, key=state.KM_POPULATION)
                cols[3].selectbox("Estimator", K_MAP_ESTIMATORS, key=state.KM_ESTIMATOR)
        if not sensitive:
            return chosen_models(state.values(state.MODEL_PICKERS), sensitive, subset)
        if st.checkbox("ℓ-diversity", key=state.L_DIVERSITY, help="every class holds at least ℓ well-represented "
                       "values of the sensitive attribute (Machanavajjhala et al. 2007)"):
            cols = st.columns(4)
            cols[0].selectbox("Attribute", sensitive, key=state.LD_ATTRIBUTE)
            variant = cols[1].selectbox("Variant", L_VARIANTS, key=state.LD_VARIANT)
            cols[2].number_input("ℓ", min_value=1.0, value=PICKER_DEFAULTS[state.LD_L], step=1.0, format="%g",
                                 key=state.LD_L)
            if variant == "recursive":
                cols[3].number_input("c", min_value=0.1, value=PICKER_DEFAULTS[state.LD_C], step=0.5, key=state.LD_C)
            if variant == "entropy":
                cols[3].selectbox("Estimator", ENTROPY_ESTIMATORS, key=state.LD_ESTIMATOR)
        if st.checkbox("t-closeness", key=state.T_CLOSENESS, help="each class's distribution of the sensitive "
                       "attribute is within t of the table's (earth mover's distance; Li et al. 2007)"):
            cols = st.columns(4)
            cols[0].selectbox("Attribute", sensitive, key=state.TC_ATTRIBUTE)
            cols[1].selectbox("Ground distance", T_VARIANTS, key=state.TC_VARIANT,
                              help="hierarchical uses the attribute's hierarchy")
            cols[2].number_input("t", min_value=0.001, max_value=1.0, value=PICKER_DEFAULTS[state.TC_T], step=0.05,
                                 format="%.3f", key=state.TC_T)
        if st.checkbox("β-likeness", key=state.BETA_LIKENESS, help="no sensitive value's share in a class exceeds its "
                       "share in the table by more than the relative gain β (Cao & Karras 2012)"):
            cols = st.columns(4)
            cols[0].selectbox("Attribute", sensitive, key=state.BL_ATTRIBUTE)
            cols[1].selectbox("Variant", BETA_VARIANTS, key=state.BL_VARIANT,
                              help="enhanced: a frequent value's gain is bounded by −ln(its share) too")
            cols[2].number_input("β", min_value=0.01, value=PICKER_DEFAULTS[state.BL_BETA], step=0.5, format="%g",
                                 key=state.BL_BETA)
        if st.checkbox("δ-disclosure privacy", key=state.DELTA_DISCLOSURE, help="every sensitive value's share in a "
                       "class is within a factor 2^δ of its share in the table (Brickell & Shmatikov 2008)"):
            cols = st.columns(4)
            cols[0].selectbox("Attribute", sensitive, key=state.DD_ATTRIBUTE)
            cols[1].number_input("δ", min_value=0.01, value=PICKER_DEFAULTS[state.DD_DELTA], step=0.5, format="%g",
                                 key=state.DD_DELTA)
        if st.checkbox("(α, k)-anonymity", key=state.ALPHA_K, help="no sensitive value makes up more than α of a "
                       "class; k is the rule's k (Wong et al. 2006)"):
            cols = st.columns(4)
            cols[0].selectbox("Attribute", sensitive, key=state.AK_ATTRIBUTE)
            cols[1].number_input("α", min_value=0.01, max_value=1.0, value=PICKER_DEFAULTS[state.AK_ALPHA],
                                 step=0.05, format="%.3f", key=state.AK_ALPHA)
        if st.checkbox("Risk threshold", key=state.RISK_THRESHOLD, help="cap the re-identification risk of the release "
                       "(as ARX's risk-based models; the Risk page shows the figures)"):
            cols = st.columns(4)
            model = cols[0].selectbox("Risk model", RISK_MODELS, key=state.RISK_MODEL)
            cols[1].number_input("Threshold", min_value=0.001, max_value=1.0, value=PICKER_DEFAULTS[state.RISK_T],
                                 step=0.05, format="%.3f", key=state.RISK_T)
            if model == "population_uniqueness":
                cols[2].selectbox("Estimator", POPULATION_ESTIMATORS, key=state.RISK_ESTIMATOR,
                                  index=POPULATION_ESTIMATORS.index(DEFAULT_POPULATION_ESTIMATOR))
                cols[3].number_input("Population size", min_value=1, value=PICKER_DEFAULTS[state.RISK_POPULATION],
                                     step=1000, key=state.RISK_POPULATION)
    return chosen_models(state.values(state.MODEL_PICKERS), sensitive, subset)


K_MAP_ESTIMATE, K_MAP_TABLE = "estimated from its size", "the data file (research subset released)"
PICKER_DEFAULTS: dict[str, Any] = {state.BL_VARIANT: BETA_VARIANTS[0], state.BL_BETA: 2.0, state.DD_DELTA: 2.0,
                                   state.AK_ALPHA: 0.5, state.KM_K: 5, state.KM_SOURCE: K_MAP_ESTIMATE,
                                   state.KM_POPULATION: 1_000_000, state.KM_ESTIMATOR: K_MAP_ESTIMATORS[0],
                                   state.LD_VARIANT: L_VARIANTS[0], state.LD_L: 2.0, state.LD_C: 3.0,
                                   state.LD_ESTIMATOR: ENTROPY_ESTIMATORS[0], state.TC_VARIANT: T_VARIANTS[0],
                                   state.TC_T: 0.2, state.RISK_MODEL: RISK_MODELS[0], state.RISK_T: 0.2,
                                   state.RISK_ESTIMATOR: DEFAULT_POPULATION_ESTIMATOR, state.RISK_POPULATION: 1_000_000,
                                   state.DP_MIN: 0.05, state.DP_MAX: 0.15}


ATTRIBUTE_PICKERS = (state.LD_ATTRIBUTE, state.TC_ATTRIBUTE, state.BL_ATTRIBUTE, state.DD_ATTRIBUTE,
                     state.AK_ATTRIBUTE)


def chosen_models(session: Mapping[str, Any], sensitive: list[str],
                  subset: str | None = None) -> dict[str, dict[str, object]]:
    """The ``[privacy.MODEL]`` tables the privacy-model pickers hold in the session (the pickers keep the values the
    analyst set on every page, ``main.PERSISTENT_SETTINGS``; one never touched is absent on another page and reads
    as its default): the models on a sensitive attribute (ℓ-diversity, t-closeness, β-likeness, δ-disclosure,
    (α, k)-anonymity) and the risk threshold only when the dataset has a sensitive attribute, δ-presence only given a
    research ``subset``, k-map when either is (against the data file only given the subset), as the pickers are
    otherwise not offered. The Anonymize page runs with these, the Lattice page colours nodes by them."""

    def get(key: str) -> Any:  # a widget the analyst never touched may be absent: its default
        value = session.get(key)
        if key in ATTRIBUTE_PICKERS:  # they offer the sensitive attributes, the first by default
            return value if value in sensitive else sensitive[0]
        return PICKER_DEFAULTS.get(key) if value is None else value

    models: dict[str, dict[str, object]] = {}
    if subset is not None and get(state.DELTA_PRESENCE):
        models["delta_presence"] = {"subset": subset, "delta_min": float(get(state.DP_MIN)),
                                    "delta_max": float(get(state.DP_MAX))}
    if (sensitive or subset is not None) and get(state.K_MAP):
        if subset is not None and get(state.KM_SOURCE) == K_MAP_TABLE:
            models["k_map"] = {"k": int(get(state.KM_K)), "subset": subset}
        else:
            models["k_map"] = {"k": int(get(state.KM_K)), "population": int(get(state.KM_POPULATION)),
                               "estimator": get(state.KM_ESTIMATOR)}
    if not sensitive:
        return models
    if get(state.L_DIVERSITY):
        variant, value = get(state.LD_VARIANT), float(get(state.LD_L))
        table: dict[str, object] = {"attribute": get(state.LD_ATTRIBUTE), "variant": variant,
                                    "l": value if variant == "entropy" else int(value)}
        if variant == "recursive":
            table["c"] = float(get(state.LD_C))
        if variant == "entropy":
            table["estimator"] = get(state.LD_ESTIMATOR)
        models["l_diversity"] = table
    if get(state.T_CLOSENESS):
        models["t_closeness"] = {"attribute": get(state.TC_ATTRIBUTE), "variant": get(state.TC_VARIANT),
                                 "t": float(get(state.TC_T))}
    if get(state.BETA_LIKENESS):
        models["beta_likeness"] = {"attribute": get(state.BL_ATTRIBUTE), "variant": get(state.BL_VARIANT),
                                   "beta": float(get(state.BL_BETA))}
    if get(state.DELTA_DISCLOSURE):
        models["delta_disclosure"] = {"attribute": get(state.DD_ATTRIBUTE), "delta": float(get(state.DD_DELTA))}
    if get(state.ALPHA_K):
        models["alpha_k"] = {"attribute": get(state.AK_ATTRIBUTE), "alpha": float(get(state.AK_ALPHA))}
    if get(state.RISK_THRESHOLD):
        table = {"model": get(state.RISK_MODEL), "threshold": float(get(state.RISK_T))}
        if table["model"] == "population_uniqueness":
            table["estimator"] = get(state.RISK_ESTIMATOR)
            table["population"] = int(get(state.RISK_POPULATION))
        models["risk"] = table
    return models


def _show_models(models: dict[str, dict[str, object]]) -> None:
    """Whether each chosen privacy model holds on the release (re-verified from the released table)."""
    if not models:
        return
    st.subheader("Privacy models")
    for name, model in models.items():
        text = f"{name}: {md(model['description'])}"
        if model["holds"]:
            st.success(f"Holds: {text}")
        else:
            st.error(f"Does not hold: {text}")


def page(source: Source) -> None:
    st.header("Anonymize")
    st.caption(f"Dataset: {md(source.label)}")
    pending = state.AN_ALG_PENDING.pop()  # steered by the privacy models (before the widget)
    if pending is not None:
        state.AN_ALG.set(pending)
    for slot, default in DEFAULTS.items():  # defaults through the session state, so a loaded config can set them
        slot.setdefault(default)
    engine = st.radio("Engine", ["lattice", "local"], horizontal=True, key=state.AN_ENGINE.key,
                      help="lattice: full-domain generalization + record suppression; "
                           "local: least-upper-bound recoding of each record (Katirai 2006)")
    left, right = st.columns(2)
    if engine == "lattice":
        algorithm = left.selectbox("Algorithm", list(ALGORITHMS), key=state.AN_ALG.key,
                                   format_func=lambda a: f"{a} ({'optimal' if ALGORITHMS[a].optimal else 'heuristic'})")
        objective = right.selectbox("Objective (minimized)", list(M.LATTICE_MEASURES), key=state.AN_OBJ.key,
                                    on_change=_steer, format_func=format.measure_label,
                                    help="a measure that is not monotone (Discernibility, Loss, Average equivalence "
                                         "class size and the variants that charge suppression) is searched with Flash "
                                         "(and its linear phase, as in ARX) or bnb: OLA assumes monotonicity")
        max_suppression = suppression_share(state.suppression_input(left))
    else:
        algorithm = left.selectbox("Algorithm", list(LOCAL_ALGORITHMS), key=state.AN_LOCAL_ALG.key)
        objective = right.selectbox("Objective (minimized)", list(LOCAL_OBJECTIVES), key=state.AN_LOCAL_OBJ.key,
                                    format_func=format.measure_label)
        max_suppression = 0.0
    k = state.k_input(right)
    extra: dict[str, object] = {}
    if engine == "lattice":
        size = lattice_size(source)
        if ALGORITHMS[algorithm].anytime:
            extra["time_limit"] = float(right.number_input(
                "Time limit (s)", min_value=1, value=60, step=10, key=state.AN_TIME,
                help=f"{algorithm} stops when time is up and returns the best k-anonymous node it found, marked "
                     "not proven optimal"))
        refusal = search_refusal(algorithm, extra.get("time_limit"), size)  # as `workbench run` refuses it
        if refusal:
            st.error(md(refusal))
            return
        st.caption(f"The generalization lattice has {size:,} nodes.")
    models: dict[str, dict[str, object]] = {}
    data = privacy_check(source.config_json(k=2, compare=[]), dataset_key=source.dataset_key)
    subset = "research_subset" if source.sample in RESEARCH_SUBSETS else None
    if data.get("sensitive") or subset is not None:
        models = _privacy_models(list(data.get("sensitive") or []), subset)
    steered = state.AN_STEERED.get()
    if engine == "lattice" and steered and algorithm == OPTIMAL_FOR_ANY and steered[1] == objective:
        st.info(f"Search switched from {steered[0]} to {OPTIMAL_FOR_ANY}: "
                f"{non_monotone_warning(steered[0], objective)}.")
    if engine == "lattice" and needs_monotone_waiver(algorithm, objective):
        extra["allow_non_monotone"] = True  # the analyst insists: run it, and say what that means
        st.warning(f"{non_monotone_warning(algorithm, objective)}.")
    config_json = source.config_json(k=int(k), max_suppression=float(max_suppression), engine=engine,
                                     algorithm=algorithm, objective=objective, privacy_models=models, **extra)
    if models and engine == "local":  # only Mondrian enforces models, and only the class-level ones
        refusal = privacy_check(config_json, dataset_key=source.dataset_key).get("refusal")
        if refusal:  # as `workbench run` refuses it (policy.local_refusal)
            st.error(md(refusal))
            return
    if models and engine == "lattice" and algorithm in PRUNING_SEARCHES:
        check = privacy_check(config_json, dataset_key=source.dataset_key)
        if check.get("refusal"):  # the library refuses this search: steer to one optimal for any rule
            state.AN_ALG_PENDING.set(OPTIMAL_FOR_ANY)
            state.AN_MODEL_STEERED.set((algorithm, check["refusal"]))
            st.rerun()
    model_steered = state.AN_MODEL_STEERED.get()
    if models and model_steered and algorithm == OPTIMAL_FOR_ANY:
        st.info(f"Search switched from {model_steered[0]} to {OPTIMAL_FOR_ANY}: {model_steered[0]} prunes the "
                f"lattice assuming admissibility is monotone, and the library refuses it here: {md(model_steered[1])}.")
    clicked = st.button("Run", type="primary")
    here = {"config": config_json, "dataset_key": source.dataset_key}
    if clicked:
        state.AN_PENDING.set(here)
    last = state.LAST_RUN.get()
    unchanged = last is not None and last["config"] == config_json and last["dataset_key"] == source.dataset_key
    if state.AN_PENDING.get() == here:  # a run in the worker pool, followed until it ends
        outcome = long_work.follow(run_result, config_json, dataset_key=source.dataset_key, name="an_run",
                                   doing=f"{engine} engine, {algorithm}")
        if outcome is None:  # still running: the panel above shows how far
            return
        state.AN_PENDING.pop()
        if outcome.get("cancelled"):
            st.info("Run cancelled. A search stops at the end of its current step (the lattice search itself "
                    "runs to its end or its time limit before the run stops).")
            return
    elif not unchanged:  # the last result is shown again until its inputs change
        return
    else:
        st.caption("The last run with these settings (kept until the dataset or a setting changes).")
    with st.spinner("Showing the run: its classes, measures and released rows…", show_time=True):
        result = run_config(config_json, dataset_key=source.dataset_key)  # the run above, kept in the cache
    state.LAST_RUN.set({"config": config_json, "dataset_key": source.dataset_key, "label": source.label})
    if "error" in result:
        st.error(md(result["error"]))
        return
    summary = result["summary"]
    guarantee.show(result["guarantee_kind"], result["holds"], result["guarantee"])
    dependency_warnings(source)  # beside the guarantee: released columns that give a quasi-identifier back
    cols = st.columns([2, 1.4, 1, 1])
    cols[0].metric("suppressed records", format.count_share(summary["suppressed"], result["records"]),
                   help=f"{suppression_note(summary['suppressed'], result['records'])}, released with * in every "
                        "quasi-identifier")
    cols[1].metric("equivalence classes released", format.number(summary["classes"]),
                   help="classes among the records kept, after suppression")
    cols[2].metric("node checks", format.number(summary["checks"]))
    cols[3].metric("seconds", format.number(float(summary["seconds"])))
    _show_models(summary.get("privacy_models") or {})
    heavy = suppression_warning(summary["suppressed"], result["records"])
    if heavy:
        st.warning(heavy)
    if summary["transformation"]:
        st.subheader("Transformation (hierarchy level per quasi-identifier)")
        format.show(pd.DataFrame([summary["transformation"]]), width="content")
        st.caption("proven optimal" if result["proven_optimal"] else "not proven optimal "
                   + (f"({md(result['note'])})" if result["note"] else ""))
    if result["clusters"] is not None:
        sizes = result["clusters"]
        st.subheader(f"Clustering: {int(sizes.clusters.sum()):,} clusters")
        st.caption("Every record of a cluster is released as the cluster's least upper bound (Katirai 2006).")
        format.show(sizes, width="content")
    st.subheader("What it costs, under every measure")
    scores = result["scores"]
    for start in range(0, len(scores), 2):  # two per row: the longest names are not cut at 1280 px
        row = st.columns(2)
        for col, s in zip(row, scores[start:start + 2], strict=False):
            col.metric(s["name"], format.number(s["value"]), delta=str(s["direction"]), delta_color="off",
                       delta_arrow="off", help=f"{s['formula']}; exactly {s['value']!r}")
    st.subheader("Released rows (first 25; shuffled on export)")
    format.show(result["preview"])
    st.caption(f"A missing value (an empty cell) reads {MISSING_TOKEN}, as in the exported file; a suppressed "
               "record reads * in every quasi-identifier.")
