"""Lattice page: the generalization lattice as a Hasse diagram (El Emam 2009, Fig. 2), coloured by k-anonymity
or any measure, with the chosen search's trace overlaid; select a node to open it (class sizes, suppressed
records, each attribute's contribution to each measure) and compare it with another node. Large lattices get
a band of heights, or one row per height instead of a picture; lattices too large to evaluate every node get the
search's region per height and its node."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd
import streamlit as st

import measures as M
from workbench.config import Study
from workbench.errors import WorkbenchError
from workbench.lattice.search import ALGORITHMS
from workbench.policy import MAX_LATTICE_NODES, needs_monotone_waiver, non_monotone_warning, suppression_share
from workbench.release.guarantees import suppression_note, suppression_warning
from workbench.release.output import MISSING_TOKEN
from workbench.ui import format, lattice_marks, long_work, state
from workbench.ui.cached import dataset_for, too_large_for_tables
from workbench.ui.charts import NODE_PICK, hasse_edges, hasse_layout
from workbench.ui.context import PageContext
from workbench.ui.failure import shown_errors
from workbench.ui.format import md
from workbench.ui.memo import dual_cache, user_error
from workbench.ui.node_charts import (
    class_size_histogram,
    contribution_chart,
    lattice_levels_chart,
    neighbour_edges,
    search_region_chart,
)
from workbench.ui.source import Source
from workbench.views.lattice import SEARCH_RESULT

if TYPE_CHECKING:  # loaded with the node drill-down
    from workbench.views.node_details import NodeDetails, NodeDiff

LARGE = 5000  # nodes: above this a picture of every node is unreadable
NODE = state.LAT_NODE.key  # the open node (its select box)
CHART = state.LAT_CHART.key  # the Hasse diagram's selection event
VIEWS = ["Hasse diagram", "Per height"]  # the whole lattice drawn, or one row per height (the default above LARGE)
EDGES = 1500  # nodes: above this only the selected node's edges are drawn (thousands of lines are a grey mass)


@dataclass(frozen=True)
class LatticeTable:
    """Every node of a lattice laid out for the Hasse diagram (``lattice_table_cached``): ``nodes`` (one row each,
    with its measures), the quasi-identifier ``names`` and the diagram's ``edges`` (None when there are too many to
    draw)."""

    nodes: pd.DataFrame
    names: list[str]
    edges: pd.DataFrame | None


@dataclass(frozen=True)
class LatticeOverview(LatticeTable):
    """The lattice table with what a search did (``lattice_overview_cached``): ``nodes`` with each node's status and
    whether it was checked; the search's ``checks`` (``lattice_checks`` in this lattice, ``subset_checks`` in subset
    lattices) and ``algorithm``; ``optimum``, the label of the optimum over every admissible node (None when none is);
    and the search's own result: ``search_optimum`` (its node's levels, None when it found none), ``proven_optimal``
    and its ``note``."""

    checks: int
    lattice_checks: int
    subset_checks: int
    algorithm: str
    optimum: str | None
    search_optimum: Any
    proven_optimal: bool
    note: str


@dataclass(frozen=True)
class SearchRegion:
    """A search on a lattice too large to evaluate every node (``search_region_cached``): its ``region`` per height,
    its ``node`` (label; None when it found none) at height ``rank`` with the objective's ``value``, whether it is
    ``proven_optimal`` and the search's ``note``, ``checks`` and ``seconds``."""

    region: pd.DataFrame
    node: str | None
    rank: int | None
    value: Any
    proven_optimal: bool
    note: str
    checks: int
    seconds: float


@dual_cache(max_entries=8, heavy=True)
def lattice_table_cached(study: Study, dataset_key: str | None) -> LatticeTable:
    """Every node's measures for the config's dataset and k (``lattice_views.lattice_table``; it depends on neither
    the suppression limit nor the search), laid out for the Hasse diagram, with its edges when drawable."""
    from workbench.study import evaluator_for
    from workbench.views.lattice import lattice_table

    try:
        dataset = dataset_for(study, dataset_key)
        table = lattice_table(evaluator_for(study, dataset))
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc
    names = dataset.quasi_identifiers
    nodes = hasse_layout(table, names)
    return LatticeTable(nodes, list(names), hasse_edges(nodes, names) if len(nodes) <= EDGES else None)


@dual_cache(max_entries=16)
def lattice_overview_cached(study: Study, table_study: Study, dataset_key: str | None) -> LatticeOverview:
    """The lattice table of ``table_study`` (same data and k) with what the search of ``study`` did:
    status, checked, trace (``lattice_views.lattice_overview``)."""
    from workbench.views.lattice import lattice_overview

    base = lattice_table_cached(table_study, dataset_key=dataset_key)
    try:
        table, result = lattice_overview(study, dataset_for(study, dataset_key), table=base.nodes)
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc
    optimum = table.loc[table.status == "optimum", "node"]  # the page's one reading of the optimum
    return LatticeOverview(nodes=table, names=base.names, edges=base.edges, checks=result.checks,
                           lattice_checks=result.lattice_checks, subset_checks=result.subset_checks,
                           algorithm=result.algorithm, optimum=str(optimum.iloc[0]) if len(optimum) else None,
                           search_optimum=result.optimum, proven_optimal=result.proven_optimal, note=result.note)


@dual_cache(max_entries=32)
def node_details_cached(study: Study, node: str, dataset_key: str | None) -> NodeDetails:
    """``node_details.node_details`` of one node (given as ``"qi=level,..."``)."""
    from workbench.views.node_details import node_details

    try:
        return node_details(study, dataset_for(study, dataset_key), node)
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc


@dual_cache(max_entries=32)
def node_diff_cached(study: Study, a: str, b: str, dataset_key: str | None) -> NodeDiff:
    """``node_details.node_diff`` of two nodes (each ``"qi=level,..."``)."""
    from workbench.views.node_details import node_diff

    try:
        return node_diff(study, dataset_for(study, dataset_key), a, b)
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc


@dual_cache(max_entries=16)
def by_height_cached(study: Study, table_study: Study, measure: str, dataset_key: str | None) -> pd.DataFrame:
    """The lattice aggregated per height (``node_details.lattice_by_height``) for the large-lattice view."""
    from workbench.views.node_details import lattice_by_height

    data = lattice_overview_cached(study, table_study, dataset_key=dataset_key)
    try:
        return lattice_by_height(data.nodes, [measure] if measure != "status" else [])
    except WorkbenchError as exc:
        raise user_error(exc) from exc


DEFAULTS = {"algorithm": "flash", "objective": "entropy", "k": state.DEFAULT_K,
            "max_suppression": suppression_share(state.DEFAULT_SUPPRESSION_PERCENT)}


def prefetch(source: Source) -> None:
    """Compute the page's first view at its default settings (the background warm-up, ``ui/prefetch.py``)."""
    config = source.study(compare=[], **DEFAULTS)
    lattice_overview_cached(config, source.study(k=DEFAULTS["k"], compare=[]), dataset_key=source.dataset_key)


@dual_cache(max_entries=8, heavy=True)
def search_region_cached(study: Study, dataset_key: str | None,
                         _progress: Callable[[float, str], None] | None = None) -> SearchRegion:
    """The search's region per height on a lattice too large to evaluate every node (``lattice_views.search_region``),
    and its result."""
    from workbench.views.lattice import search_region

    try:
        dataset = dataset_for(study, dataset_key)
        frame, result = search_region(study, dataset, _progress)
    except (WorkbenchError, KeyError) as exc:
        raise user_error(exc) from exc
    names = dataset.quasi_identifiers
    node = ",".join(f"{q}={v}" for q, v in zip(names, result.optimum, strict=True)) if result.optimum else None
    return SearchRegion(region=frame, node=node, rank=sum(result.optimum) if result.optimum else None,
                        value=result.value, proven_optimal=result.proven_optimal, note=result.note,
                        checks=result.checks, seconds=result.seconds)


def page(ctx: PageContext) -> None:
    source = ctx.source
    st.header("Lattice")
    refusal = too_large_for_tables(source)
    left, mid, right = st.columns(3)
    algorithm = left.selectbox("Search", list(ALGORITHMS), index=list(ALGORITHMS).index(DEFAULTS["algorithm"]),
                               key=state.LAT_ALG.key)
    objective = mid.selectbox("Objective", list(M.LATTICE_MEASURES), format_func=format.measure_label,
                              index=list(M.LATTICE_MEASURES).index(DEFAULTS["objective"]), key=state.LAT_OBJ.key)
    k = state.k_input(right)  # the session's privacy settings, shared with every page
    max_suppression = suppression_share(state.suppression_input(left))
    if refusal:  # too many nodes to evaluate each: what the search did, per height
        _large_lattice(source, algorithm, objective, int(k), float(max_suppression))
        return
    marks = lattice_marks.Marks(source, int(k), float(max_suppression), objective, lattice_marks.session_models(source))
    colours = ["status", *lattice_marks.colour_options(marks.models), *M.LATTICE_MEASURES]
    state.keep_valid(state.LAT_COLOR, colours)
    color = mid.selectbox("Colour by", colours, key=state.LAT_COLOR.key, format_func=lattice_marks.colour_label)
    extra = {}
    if needs_monotone_waiver(algorithm, objective):
        extra["allow_non_monotone"] = True
        st.warning(f"{non_monotone_warning(algorithm, objective)}.")
    config = source.study(k=int(k), max_suppression=float(max_suppression), algorithm=algorithm,
                          objective=objective, compare=[], privacy_models=marks.models, **extra)
    table_config = source.study(k=int(k), compare=[])  # the node table depends on the data and k only
    data = long_work.announced(f"Evaluating every node of the lattice under every measure, then {algorithm}'s search",
                               lattice_overview_cached, config, table_config, dataset_key=source.dataset_key)
    nodes = data.nodes
    state.keep_valid(state.LAT_VIEW.key, VIEWS)
    first = {} if state.LAT_VIEW.present() else {"index": 1 if len(nodes) > LARGE else 0}  # by size until chosen
    view = right.radio("View", VIEWS, key=state.LAT_VIEW.key, horizontal=True, **first)
    subsets = f" (and {data.subset_checks:,} nodes of subset lattices)" if data.subset_checks else ""
    where = ("large points; the tooltip gives the order" if view == VIEWS[0]
             else "the orange bars count them per height")
    st.caption(f"{len(nodes):,} nodes; {algorithm} checked {data.lattice_checks:,} of them{subsets} ({where}).")
    _optimum_note(data, objective, algorithm, view)
    labels = list(nodes["node"])
    default = labels.index(data.optimum) if data.optimum is not None else 0  # the optimum opens first
    picture = st.container()
    for key in (NODE, state.LAT_COMPARE.key):
        state.keep_valid(key, labels)
    state.LAT_NODE.setdefault(labels[default])
    label = st.selectbox("Node", labels, key=NODE,
                         help="Open a node: its classes, suppressed records and what each attribute costs. A click "
                              "on a node of the Hasse diagram opens it too.")
    with picture:
        if view == "Per height":
            if not lattice_marks.by_height(color, marks):
                _by_height(config, table_config, color, source, _rank_of(nodes, data.optimum))
        else:
            _hasse(nodes, data, color, label, marks, algorithm)
    _drill_down(config, label, labels, source)


def _large_lattice(source: Source, algorithm: str, objective: str, k: int, max_suppression: float) -> None:
    """A lattice above ``policy.MAX_LATTICE_NODES``: no node table (every node's measures), but the search's region
    per height (checked, predicted, pruned) and its node, with what is not shown."""
    extra = {}
    if needs_monotone_waiver(algorithm, objective):
        extra["allow_non_monotone"] = True
        st.warning(f"{non_monotone_warning(algorithm, objective)}.")
    config = source.study(k=k, max_suppression=max_suppression, algorithm=algorithm, objective=objective,
                          compare=[], **extra)
    data = long_work.announced(f"Searching the lattice with {algorithm}", search_region_cached, config,
                               dataset_key=source.dataset_key)
    region = data.region
    st.caption(f"This lattice has {int(region['nodes'].sum()):,} nodes, too many to evaluate each one (the Hasse "
               f"diagram, the colours and the node drill-down need every node's measures; they stop at "
               f"{MAX_LATTICE_NODES:,} nodes). Shown instead: what {algorithm} searched, per height; the nodes it "
               "neither checked, predicted nor pruned are not shown.")
    if data.node is None:
        st.info(f"{algorithm} found no k-anonymous node ({md(data.note or 'none')}).")
    else:
        proof = "proven optimal" if data.proven_optimal else "not proven optimal"
        text = (f"{algorithm} returned **{md(data.node)}** at height {data.rank} (the dashed line), "
                f"{M.MEASURES[objective].name} = {format.number(data.value)}, {proof}"
                f"{': ' + md(data.note) if data.note else ''}.")
        (st.caption if data.proven_optimal else st.warning)(text)
    st.altair_chart(search_region_chart(region, data.rank), width="stretch")
    format.show(region, labels={"rank": "height (Σ levels)", "nodes": "nodes", "checked": "checked",
                                "predicted": "k-anonymity predicted", "pruned": "pruned (with their generalizations)"})
    st.caption(f"{data.checks:,} checks in {format.number(data.seconds)} s. A pruned node's generalizations are "
               "excluded with it and not counted again.")


def _rank_of(nodes: Any, node: str | None) -> int | None:
    """The height of a node of the table (given by its label), None for none."""
    if node is None:
        return None
    ranks = nodes.loc[nodes["node"] == node, "rank"]
    return int(ranks.iloc[0]) if len(ranks) else None


def _optimum_note(data: LatticeOverview, objective: str, algorithm: str, view: str) -> None:
    """The optimum over every admissible node (k, every privacy model, the suppression limit), and the search's result
    when it is another node, each with where the view shows it."""
    if data.optimum is None:
        st.info("No node meets the rule (k, every privacy model and the suppression limit).")
        return
    nodes = data.nodes
    height = _rank_of(nodes, data.optimum)
    mark = "the red diamond" if view == VIEWS[0] else "its height is the dashed line"
    text = (f"Optimum under {M.MEASURES[objective].name} over every node that meets the rule (k, every privacy "
            f"model and the suppression limit): **{md(data.optimum)}** at height {height} ({mark}).")
    found = data.search_optimum
    chosen = nodes.loc[nodes.status == SEARCH_RESULT, "node"]
    if len(chosen):
        other = "the orange diamond" if view == VIEWS[0] else f"height {_rank_of(nodes, chosen.iloc[0])}"
        st.warning(f"{text} {algorithm} returned **{md(chosen.iloc[0])}** ({other}), "
                   f"{'proven optimal' if data.proven_optimal else 'not proven optimal'}"
                   f"{': ' + md(data.note) if data.note else ''}.")
    elif found is None:
        st.caption(f"{text} {algorithm} found no k-anonymous node ({md(data.note or 'none')}).")
    else:
        st.caption(f"{text} {algorithm} returned it.")


def band_around(focus: int | None, top: int, width: int = 6) -> tuple[int, int]:
    """The band of heights a large Hasse diagram opens with: ``width`` + 1 heights around ``focus`` (the optimum's
    height), within 0..top; from the bottom without one."""
    low = 0 if focus is None else max(0, min(focus - width // 2, top - width))
    return low, min(top, low + width)


def _hasse(nodes: Any, data: LatticeOverview, color: str, label: str, marks: lattice_marks.Marks,
           algorithm: str) -> None:
    shown = nodes
    if len(nodes) > LARGE:  # an unreadable picture otherwise: show a band of heights, around the optimum at first
        top = int(nodes["rank"].max())
        optimum = _rank_of(nodes, data.optimum)
        chosen = nodes.loc[nodes.status == SEARCH_RESULT, "node"]
        found = _rank_of(nodes, chosen.iloc[0]) if len(chosen) else None
        low, high = st.slider("Heights shown", 0, top, band_around(optimum, top), key="lat_band")
        shown = nodes[nodes["rank"].between(low, high)]
        checked = int(nodes["checked"].sum()) if "checked" in nodes.columns else 0
        out = int(nodes.loc[~nodes["rank"].between(low, high), "checked"].sum()) if checked else 0
        outside = [f"the optimum (height {r})" if i == 0 else f"{algorithm}'s node (height {r})"
                   for i, r in enumerate((optimum, found)) if r is not None and not low <= r <= high]
        st.caption(f"Heights {low}–{high} of 0–{top} drawn: {len(shown):,} of {len(nodes):,} nodes; the other "
                   f"{len(nodes) - len(shown):,} are not drawn"
                   + (f", among them {out:,} of the {checked:,} nodes {algorithm} checked" if out else "")
                   + (f"; {' and '.join(outside)} outside the band" if outside else "")
                   + ". The Per height view counts every node.")
    if data.edges is not None and len(shown) == len(nodes):
        edges = data.edges
    else:
        edges = neighbour_edges(shown, data.names, label)
        st.caption("Edges drawn for the selected node only (its direct specializations and generalizations).")
    st.altair_chart(lattice_marks.hasse(shown, edges, color, label, marks), width="stretch", key=CHART,
                    selection_mode=NODE_PICK,
                    on_select=lambda: state.apply(lambda values: open_clicked_node(values, set(shown["node"]))))
    st.caption("Click a node to open it (or choose it in the list below the diagram); the diamond is the optimum.")


def clicked_node(event: Mapping[str, Any] | None, labels: Collection[str]) -> str | None:
    """The node a click on the Hasse diagram selected: Streamlit's selection event
    ``{"selection": {NODE_PICK: [{"node": "age=1,sex=0"}]}}``; None when it names none of ``labels`` (a click
    beside the nodes, on an edge, or a cleared selection)."""
    selection = event.get("selection") if isinstance(event, Mapping) else None
    points = selection.get(NODE_PICK) if isinstance(selection, Mapping) else None
    for point in points if isinstance(points, list) else []:
        node = point.get("node") if isinstance(point, Mapping) else None
        if isinstance(node, str) and node in labels:
            return node
    return None


def open_clicked_node(session: MutableMapping[str, Any], labels: Collection[str]) -> None:
    """The diagram's ``on_select`` callback (it runs before the page, so it may set the select box): open the
    clicked node."""
    node = clicked_node(session.get(CHART), labels)
    if node is not None:
        session[NODE] = node


def _by_height(config: Study, table_config: Study, color: str, source: Source, optimum_rank: int | None) -> None:
    with shown_errors():  # the node's drill-down follows
        _draw_by_height(config, table_config, color, source, optimum_rank)


def _draw_by_height(config: Study, table_config: Study, color: str, source: Source, optimum_rank: int | None) -> None:
    summary = long_work.announced("Summarizing the lattice per height", by_height_cached, config, table_config, color,
                                  dataset_key=source.dataset_key)
    frame = summary
    measure = None if color == "status" else color
    st.altair_chart(lattice_levels_chart(frame, measure, optimum_rank), width="stretch")
    st.caption("One row per height: every node is counted, none is drawn (the Hasse diagram draws a band of "
               "heights)." + (f" The optimum is at height {optimum_rank}." if optimum_rank is not None else ""))
    format.show(frame, labels={"rank": "height (Σ levels)", "nodes": "nodes", "k_anonymous": "k-anonymous nodes",
                               "checked": "checked by the search"})


def _drill_down(config: Study, label: str, labels: list[str], source: Source) -> None:
    result = long_work.announced(f"Opening {label}: its classes, suppressed records and what each attribute costs",
                                 node_details_cached, config, label, dataset_key=source.dataset_key)
    d = result
    a, b, c, e = st.columns([1.2, 2, 1, 1])
    a.metric("equivalence classes released", format.number(d.classes),
             help=f"classes among the records kept, after suppression, as the Anonymize page counts them; over all "
                  f"records, before the suppression, there are {d.classes_before_suppression:,} (the class sizes "
                  "below)")
    b.metric("suppressed records", format.count_share(d.suppressed, d.n),
             help=f"{suppression_note(d.suppressed, d.n)}: the records in classes smaller than k = {d.k}")
    c.metric("suppression limit", format.number(d.limit), help="records")
    e.metric("k-anonymous", format.yes_no(d.k_anonymous))
    heavy = suppression_warning(d.suppressed, d.n) if d.k_anonymous else None
    if heavy:
        st.warning(heavy)
    classes, suppressed, contributions, compare = st.tabs(["Class sizes", "Suppressed records", "Per attribute",
                                                           "Compare with another node"])
    with classes:
        st.altair_chart(class_size_histogram(d.class_sizes, d.k), width="stretch")
        format.show(d.class_sizes, labels={"size": "class size", "suppressed": f"suppressed (size < {d.k})"})
    with suppressed:
        if d.suppressed:
            st.write(f"{d.suppressed:,} of {d.n:,} records are in classes smaller than k = {d.k}; the first "
                     f"{len(d.suppressed_sample)} with their original values:")
            format.show(d.suppressed_sample, hide_index=False)
            st.caption(f"A missing value (an empty cell) reads {MISSING_TOKEN}.")
        else:
            st.write("No record is suppressed at this node.")
    with contributions:
        measures = list(dict.fromkeys(d.contributions["measure"]))
        if measures:
            chosen = st.selectbox("Measure", measures, key="lat_contrib", format_func=format.measure_label)
            st.altair_chart(contribution_chart(d.contributions, chosen), width="stretch")
            format.show(d.contributions.pivot(index="attribute", columns="measure", values="contribution")
                        .loc[list(dict.fromkeys(d.contributions["attribute"])), measures].reset_index())
        for measure, why in d.not_decomposable.items():
            st.caption(f"**{M.MEASURES[measure].name}** ({measure}) = {format.number(d.measures[measure])}: {md(why)}.")
    with compare:
        other = st.selectbox("Compare with node", labels, index=None, key=state.LAT_COMPARE.key,
                             placeholder="choose a node to compare with")
        if other is None:
            return
        diff = None
        with shown_errors():
            diff = long_work.announced(f"Comparing {label} with {other}", node_diff_cached, config, label, other,
                                       dataset_key=source.dataset_key)
        if diff is None:
            return
        st.caption(f"a = {md(diff.label_a)}; b = {md(diff.label_b)}; difference = b − a")
        format.show(diff.levels)
        said = {"k_anonymous": "k-anonymous (1: yes, 0: no)"}
        format.show(diff.summary.assign(quantity=diff.summary["quantity"].map(lambda q: said.get(q, format.header(q)))),
                    by_cell=["a", "b", "difference"])  # a quantity per row: each written as it reads
        st.write("Records released with a different value (a suppressed record reads *):")
        format.show(diff.changed, labels={"records_changed": "records changed"})
