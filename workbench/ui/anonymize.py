"""Anonymize page: engine, algorithm, k, suppression limit and objective; run; the result with its
guarantee and every measure (formula on hover)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

import measures as M
from workbench.config import LOCAL_ALGORITHMS, LOCAL_OBJECTIVES
from workbench.errors import WorkbenchError
from workbench.lattice.search import ALGORITHMS
from workbench.policy import (
    needs_monotone_waiver,
    non_monotone_warning,
    optimal_anytime,
    search_refusal,
    suppression_share,
)
from workbench.privacy.kind import FormContext, PrivacyModelKind
from workbench.privacy.registry import PRIVACY_MODELS
from workbench.release.guarantees import suppression_note, suppression_warning
from workbench.release.output import MISSING_TOKEN
from workbench.samples import RESEARCH_SUBSETS
from workbench.ui import format, guarantee, long_work, state
from workbench.ui.cached import lattice_size, privacy_refusal, run_config, run_result, sensitive_attributes
from workbench.ui.context import PageContext
from workbench.ui.format import md
from workbench.ui.upload import dependency_warnings

DEFAULTS = {state.AN_ENGINE: "lattice", state.AN_ALG: "flash", state.AN_OBJ: "entropy", state.AN_LOCAL_ALG: "greedy",
            state.AN_LOCAL_OBJ: "vinterbo"}


def _steer() -> None:
    """On a change of objective: a non-monotone one with a search whose proof needs a monotone objective (OLA)
    switches the search to ``policy.optimal_anytime`` (bnb; the analyst may switch back; the result is then marked
    not proven optimal)."""
    algorithm, objective = state.AN_ALG.get(), state.AN_OBJ.get()
    if algorithm in ALGORITHMS and objective in M.MEASURES and needs_monotone_waiver(algorithm, objective):
        state.AN_ALG.set(optimal_anytime())
        state.AN_STEERED.set((algorithm, objective))
    else:
        state.AN_STEERED.pop()


def _privacy_models(sensitive: list[str], subset: str | None) -> dict[str, dict[str, object]]:
    """One optional picker per registered privacy model the dataset allows (``PrivacyModelKind.form``: the models on
    a sensitive attribute and the risk threshold with a sensitive attribute, δ-presence on a sample with a research
    subset, k-map with either): the ``[privacy.MODEL]`` tables chosen (docs/config.md "Privacy models"; the library
    validates them as `workbench run` does)."""
    context = FormContext(tuple(sensitive), subset)
    offered = [model for model in PRIVACY_MODELS.values() if model.form.offered(context)]
    chosen = any(state.values([state.model_key(model) for model in offered]).values())
    with st.expander("Privacy models besides k (protect a sensitive attribute, cap the risk)", expanded=chosen):
        for model in offered:
            _model_form(model, context)
    return chosen_models(state.values(state.model_picker_keys()), sensitive, subset)


def _model_form(model: PrivacyModelKind, context: FormContext) -> None:
    """A model's checkbox and, when ticked, its fields four to a row, each drawn from its declaration (a field shown
    only for some values of the fields before it is drawn when they have them)."""
    form = model.form
    if not st.checkbox(form.label, key=state.model_key(model), help=form.help):
        return
    session = state.values([state.field_key(model, f) for f in form.fields])
    values = form.values(lambda f: session.get(state.field_key(model, f)), context)
    drawn = 0
    cols = st.columns(4)
    for f in form.fields:
        if f.widget == "subset" or (f.when is not None and not f.when(values)):
            continue
        if drawn and drawn % 4 == 0:
            cols = st.columns(4)
        col, key = cols[drawn % 4], state.field_key(model, f)
        drawn += 1
        if f.widget == "number":
            values[f.name] = col.number_input(f.label, min_value=f.min_value, max_value=f.max_value, value=f.default,
                                              step=f.step, format=f.format, key=key, help=f.help)
        elif f.widget == "attribute":  # one or more: the model is checked on each
            state.settle(key, values[f.name])
            values[f.name] = col.multiselect(f.label, list(f.options(context)), key=key,
                                             help=f.help or "one or more sensitive attributes: the model is checked "
                                                            "on each, on the same groups of look-alike rows")
        else:
            options = list(f.options(context))
            initial = f.initial(context)
            values[f.name] = col.selectbox(f.label, options, key=key, help=f.help,
                                           index=options.index(initial) if initial in options else 0)


def chosen_models(session: Mapping[str, Any], sensitive: list[str],
                  subset: str | None = None) -> dict[str, dict[str, object]]:
    """The ``[privacy.MODEL]`` tables the privacy-model pickers hold in the session (the pickers keep the values the
    analyst set on every page, ``main.PERSISTENT_SETTINGS``; one never touched is absent on another page and reads
    as its default, an attribute or choice no longer offered as the first offered): the models whose picker is
    ticked among those the dataset allows (``ModelForm.offered``: the models on a sensitive attribute and the risk
    threshold only when the dataset has a sensitive attribute, δ-presence only given a research ``subset``, k-map
    when either is, against the data file only given the subset), as the pickers are otherwise not offered. The
    Anonymize page runs with these, the Lattice page colours nodes by them."""
    context = FormContext(tuple(sensitive), subset)
    models: dict[str, dict[str, object]] = {}
    for model in PRIVACY_MODELS.values():
        if not model.form.offered(context) or not session.get(state.model_key(model)):
            continue
        values = model.form.values(lambda f, m=model: session.get(state.field_key(m, f)), context)
        models[model.id] = model.form.table(values)
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


def page(ctx: PageContext) -> None:
    source = ctx.source
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
                "Time limit (s)", min_value=1, value=60, step=10, key=state.AN_TIME.key,
                help=f"{algorithm} stops when time is up and returns the best k-anonymous node it found, marked "
                     "not proven optimal"))
        refusal = search_refusal(algorithm, extra.get("time_limit"), size)  # as `workbench run` refuses it
        if refusal:
            st.error(md(refusal))
            return
        st.caption(f"The generalization lattice has {size:,} nodes.")
    models: dict[str, dict[str, object]] = {}
    sensitive = sensitive_attributes(source)
    subset = "research_subset" if source.sample in RESEARCH_SUBSETS else None
    if sensitive or subset is not None:
        models = _privacy_models(sensitive, subset)
    steered, optimal = state.AN_STEERED.get(), optimal_anytime()
    if engine == "lattice" and steered and algorithm == optimal and steered[1] == objective:
        st.info(f"Search switched from {steered[0]} to {optimal}: "
                f"{non_monotone_warning(steered[0], objective)}.")
    if engine == "lattice" and needs_monotone_waiver(algorithm, objective):
        extra["allow_non_monotone"] = True  # the analyst insists: run it, and say what that means
        st.warning(f"{non_monotone_warning(algorithm, objective)}.")
    study = source.study(k=int(k), max_suppression=float(max_suppression), engine=engine,
                         algorithm=algorithm, objective=objective, privacy_models=models, **extra)
    if models and engine == "local":  # only Mondrian enforces models, and only the class-level ones
        refusal = privacy_refusal(study, source.dataset_key)
        if refusal:  # as `workbench run` refuses it (policy.local_refusal)
            st.error(md(refusal))
            return
    if models and engine == "lattice" and ALGORITHMS[algorithm].prunes:
        refusal = privacy_refusal(study, source.dataset_key)
        if refusal:  # the library refuses this search: steer to one optimal for any rule
            state.AN_ALG_PENDING.set(optimal)
            state.AN_MODEL_STEERED.set((algorithm, refusal))
            st.rerun()
    model_steered = state.AN_MODEL_STEERED.get()
    if models and model_steered and algorithm == optimal:
        st.info(f"Search switched from {model_steered[0]} to {optimal}: {model_steered[0]} prunes the "
                f"lattice assuming admissibility is monotone, and the library refuses it here: {md(model_steered[1])}.")
    clicked = st.button("Run", type="primary")
    here = state.AnonymizeRun(study, source.dataset_key, source.label)
    if clicked:
        state.AN_PENDING.set(here)
    last = state.LAST_RUN.get()
    unchanged = last is not None and last.study == study and last.dataset_key == source.dataset_key
    if state.AN_PENDING.get() == here:  # a run in the worker pool, followed until it ends
        failed = False
        try:
            outcome = long_work.follow(run_result, study, dataset_key=source.dataset_key, name="an_run",
                                       doing=f"{engine} engine, {algorithm}")
        except WorkbenchError:  # the run failed: run_config below raises its error again, for the page to show
            outcome, failed = None, True
        if outcome is None and not failed:  # still running: the panel above shows how far
            return
        state.AN_PENDING.pop()
        if outcome is long_work.CANCELLED:
            st.info("Run cancelled. A search stops at the end of its current step (the lattice search itself "
                    "runs to its end or its time limit before the run stops).")
            return
    elif not unchanged:  # the last result is shown again until its inputs change
        return
    else:
        st.caption("The last run with these settings (kept until the dataset or a setting changes).")
    with st.spinner("Showing the run: its classes, measures and released rows…", show_time=True):
        state.LAST_RUN.set(here)
        result = run_config(study, dataset_key=source.dataset_key)  # the run above, kept in the cache
    summary = result.summary
    guarantee.show(result.guarantee_kind, result.holds, result.guarantee)
    dependency_warnings(source)  # beside the guarantee: released columns that give a quasi-identifier back
    cols = st.columns([2, 1.4, 1, 1])
    cols[0].metric("suppressed records", format.count_share(summary["suppressed"], result.records),
                   help=f"{suppression_note(summary['suppressed'], result.records)}, released with * in every "
                        "quasi-identifier")
    cols[1].metric("equivalence classes released", format.number(summary["classes"]),
                   help="classes among the records kept, after suppression")
    cols[2].metric("node checks", format.number(summary["checks"]))
    cols[3].metric("seconds", format.number(float(summary["seconds"])))
    _show_models(summary.get("privacy_models") or {})
    heavy = suppression_warning(summary["suppressed"], result.records)
    if heavy:
        st.warning(heavy)
    if summary["transformation"]:
        st.subheader("Transformation (hierarchy level per quasi-identifier)")
        format.show(pd.DataFrame([summary["transformation"]]), width="content")
        st.caption("proven optimal" if result.proven_optimal else "not proven optimal "
                   + (f"({md(result.note)})" if result.note else ""))
    if result.clusters is not None:
        sizes = result.clusters
        st.subheader(f"Clustering: {int(sizes.clusters.sum()):,} clusters")
        st.caption("Every record of a cluster is released as the cluster's least upper bound (Katirai 2006).")
        format.show(sizes, width="content")
    st.subheader("What it costs, under every measure")
    scores = result.scores
    for start in range(0, len(scores), 2):  # two per row: the longest names are not cut at 1280 px
        row = st.columns(2)
        for col, s in zip(row, scores[start:start + 2], strict=False):
            col.metric(s.name, format.number(s.value), delta=str(s.direction), delta_color="off",
                       delta_arrow="off", help=f"{s.formula}; exactly {s.value!r}")
    st.subheader("Released rows (first 25; shuffled on export)")
    format.show(result.preview)
    st.caption(f"A missing value (an empty cell) reads {MISSING_TOKEN}, as in the exported file; a suppressed "
               "record reads * in every quasi-identifier.")
