"""Measures page: how the measures behave over every admissible node of the chosen dataset's lattice
(``workbench.explore``): two measures against each other with each optimum and the Pareto front, the Kendall-τ
heatmap, the monotonicity table with each measure's worst edge, the node each measure would choose on the
lattice's levels, what each measure means, and the measures of your own registered on this server (the app never
runs code sent through the browser)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

import measures as M
import workbench as wb
from workbench.config import Study
from workbench.errors import WorkbenchError
from workbench.policy import suppression_share
from workbench.study import Progress
from workbench.ui import format, long_work, state
from workbench.ui.cached import dataset_for
from workbench.ui.charts import rank_heatmap
from workbench.ui.context import PageContext
from workbench.ui.format import md
from workbench.ui.measure_charts import measure_scatter, optima_on_the_lattice
from workbench.ui.memo import dual_cache, user_error

if TYPE_CHECKING:  # loaded with the exploration (workbench.explore)
    from workbench.views.exploration import Exploration


@dual_cache(max_entries=16, heavy=True)
def exploration(study: Study, dataset_key: str | None, _progress: Progress | None = None) -> Exploration:
    """``workbench.explore`` of the config: every measure over the admissible nodes (reporting its steps)."""
    try:
        dataset = dataset_for(study, dataset_key)
        return wb.explore(study, dataset, progress=_progress)
    except (WorkbenchError, KeyError, ValueError) as exc:
        raise user_error(exc) from exc


@dual_cache(max_entries=64)
def front(study: Study, x: str, y: str, dataset_key: str | None) -> np.ndarray:
    """The Pareto front of the admissible nodes under two measures (each node's flag)."""
    return exploration(study, dataset_key=dataset_key).pareto(x, y)


def monotonicity_table(e: Any) -> pd.DataFrame:
    """The exploration's figures per measure, one row each (what the JSON of ``workbench explore`` holds); a figure
    that does not apply (no edge gets better, no admissible node) as ``format.NOT_APPLICABLE``."""
    rows = []
    none = format.NOT_APPLICABLE
    for m, f in e.measures.items():
        worst = f["worst"] or {}
        minimal = f["optimum_is_k_minimal"]
        rows.append({"measure": m, "declared monotone": {True: "yes", False: "no", None: "unknown"}[
            f["declared_monotone"]], "violations": f["violations"], "share of edges": f["share"],
            "worst edge: child": worst.get("child", none), "parent": worst.get("parent", none),
            "delta": format.number(worst.get("delta")), "optimum is k-minimal": none if minimal is None
            else format.yes_no(bool(minimal)), "min": format.number(f["min"]), "max": format.number(f["max"]),
            "optimum": e.optima.get(m) or none})
    return format.with_measure_names(pd.DataFrame(rows))


def meanings() -> pd.DataFrame:
    """Every registered measure: its formula and plain meaning."""
    return pd.DataFrame([{"measure": m.id, "name": m.name, "formula": m.formula, "what it means": m.plain,
                          "direction": str(m.direction),
                          "monotone": {True: "yes", False: "no", None: "unknown"}[m.declared_monotone],
                          "source": m.source if not m.user else f"{m.source} ({m.origin})"}
                         for m in M.MEASURES.values()])


def page(ctx: PageContext) -> None:
    source = ctx.source
    st.header("Measures")
    st.caption("How the measures behave on every admissible (k-anonymous) node of this dataset's lattice, not "
               "only on a few candidates: where they disagree, where generalizing makes a score better (so a "
               "search assuming monotonicity can miss the optimum), and which node each would choose.")
    if source.sample is None and source.dataset_key is None:
        st.warning("Choose a dataset whose quasi-identifiers all have hierarchies (Data and Hierarchies pages).")
        return
    c1, c2 = st.columns(2)
    k = state.k_input(c1, help="the session's k, shared with every page")
    suppression = state.suppression_input(c2)
    ids = list(M.LATTICE_MEASURES)  # the built-in lattice measures and the measures of your own
    study = source.study(k=k, max_suppression=suppression_share(suppression), compare=ids)
    e = long_work.announced("Scoring every admissible node under every measure", exploration, study,
                            dataset_key=source.dataset_key)
    if e.sample:
        st.info(f"This lattice has {e.sample['lattice_nodes']:,} nodes: {e.sample['drawn']:,} were drawn at random, "
                f"{e.sample['admissible']:,} of them admissible. The figures are over those and the edges to "
                "their parents.")
    if e.nodes == 0:
        st.warning(f"No node is k-anonymous for k = {k} with {suppression:g} % suppression.")
        return
    for m in e.flagged():
        f = e.measures[m]
        st.error(f"**{m}** is declared monotone but gets better on {f['violations']:,} of {e.edges:,} edges of "
                 f"this lattice (e.g. {md(f['worst']['child'])} → {md(f['worst']['parent'])}): Flash and OLA would "
                 "miss its optimum.")
    st.caption(f"{e.nodes:,} admissible nodes, {e.edges:,} edges between them (a parent is one level more "
               "general in one attribute).")

    st.subheader("Two measures against each other")
    left, right = st.columns(2)
    state.keep_valid(state.MEA_X, ids)
    state.keep_valid(state.MEA_Y, ids)
    x = left.selectbox("Horizontal", ids, index=ids.index("precision") if "precision" in ids else 0,
                       key=state.MEA_X.key, format_func=format.measure_label)
    y = right.selectbox("Vertical", ids, index=ids.index("dm") if "dm" in ids else min(1, len(ids) - 1),
                        key=state.MEA_Y.key, format_func=format.measure_label)
    mask = long_work.announced("Finding the Pareto front of the two measures", front, study, x, y,
                               dataset_key=source.dataset_key)
    if mask is not None:
        chosen = {m: e.optima[m] for m in (x, y) if e.optima.get(m)}
        st.altair_chart(measure_scatter(e.table, x, y, mask, chosen), width="stretch")
        st.caption(f"Lower-left is better when both are losses. Optimum of {format.measure_label(x)}: "
                   f"{md(e.optima.get(x))}; of {format.measure_label(y)}: {md(e.optima.get(y))}. The dashed line "
                   "joins the "
                   f"{int(mask.sum())} nodes of the Pareto front: no other admissible node is at least as "
                   "good under both and better under one.")

    st.subheader("Monotonicity on this lattice")
    format.show(monotonicity_table(e), key="mea_mono")
    st.caption("violations: edges where the more general parent scores better than its child. optimum is "
               "k-minimal: the best value is reached at a node with no admissible specialization, so a k-minimal "
               f"search (Flash, OLA) can find it. {format.NOT_APPLICABLE}: does not apply (no edge where "
               "generalizing makes the measure better, so no worst edge; no admissible node to take a value at).")

    st.subheader("Rank agreement (Kendall τ-b over every admissible node)")
    st.altair_chart(rank_heatmap(e.kendall_tau), width="content")

    st.subheader("Which node each measure would choose")
    broken = [m for m, f in e.measures.items() if f["worst"]]
    show = st.selectbox("Draw the worst edge of", ["(none)", *broken], key="mea_edge",
                        format_func=lambda m: m if m == "(none)" else format.measure_label(m))
    worst = e.measures[show]["worst"] if show != "(none)" else None
    st.altair_chart(optima_on_the_lattice(e.table, e.optima, worst), width="content")

    st.subheader("What each measure means")
    format.show(meanings(), key="mea_meanings")

    st.subheader("Measures of your own")
    problems = wb.load_server_measures()
    for problem in problems:
        st.warning(md(problem))
    own = pd.DataFrame(wb.user_measures())
    if len(own):
        format.show(own, key="mea_own")
    st.caption("The app never runs code sent through the browser. It uses the measures registered on this server: "
               "installed packages' (entry-point group workbench.measures) and the plugins of the config the "
               "server was started with (WORKBENCH_CONFIG). See docs/measures.md, “Measures of your own”."
               + ("" if len(own) else " None is registered now."))
