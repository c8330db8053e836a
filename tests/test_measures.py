"""Measures: worked examples from the papers, ARX conformance, and fast path == cell-level definition."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import measures as M
from tests._examples import examples
from tests._random_tables import random_dataset
from tests.conftest import CONFORMANCE
from workbench.data import Dataset
from workbench.hierarchy.tree import Hierarchy
from workbench.lattice.evaluate import NodeEvaluator
from workbench.objective import NodeScorer
from workbench.release import Release
from workbench.samples import load_sample


def _teaching() -> Dataset:
    s = load_sample("teaching")
    return Dataset.create(s.frame, s.roles, s.hierarchies, source="teaching")


def _cell(dataset: Dataset, node: tuple[int, ...], k: int) -> dict[str, float]:
    view = Release.from_node(dataset, node, k, 0.0).view()
    return {i: m.cell(view) for i, m in M.LATTICE_MEASURES.items()}


def _fast(dataset: Dataset, node: tuple[int, ...], k: int) -> dict[str, float]:
    view = NodeScorer(NodeEvaluator(dataset.encoded, k, 0.0)).view(node)
    return {i: m.node(view) for i, m in M.LATTICE_MEASURES.items()}


# ------------------------------------------------------------------------------------ worked examples
@pytest.mark.parametrize(
    ("node", "dm", "dm_star", "prec"),
    [((0, 0, 0), 79, 16, 0.0), ((0, 0, 1), 55, 28, 1 / 12), ((0, 1, 0), None, 16, 1 / 3)],
)
def test_el_emam_2009_fig3_k3(node, dm, dm_star, prec):
    """El Emam et al. 2009, Fig. 3: tables (a), (b) age in 5-year bands, (c) gender -> Person; k = 3."""
    ds = _teaching()
    assert ds.quasi_identifiers == ["date", "gender", "age"]
    for values in (_cell(ds, node, 3), _fast(ds, node, 3)):
        if dm is not None:
            assert values["dm"] == dm
        assert values["dm_star"] == dm_star
        assert values["precision"] == pytest.approx(prec, rel=1e-12)


@pytest.mark.parametrize(("males", "females", "bits"), [(50, 950, 286.4), (500, 500, 1000.0)])
def test_el_emam_2009_entropy_example(males, females, bits):
    """Non-uniform entropy of 1000 records with gender generalized to Person: 286.4 vs 1000 bits."""
    frame = pd.DataFrame({"gender": ["M"] * males + ["F"] * females})
    h = Hierarchy.from_rows([["M", "Person"], ["F", "Person"]], name="gender")
    ds = Dataset.create(frame, {"gender": "quasi"}, {"gender": h})
    expected = males * math.log2(1000 / males) + females * math.log2(1000 / females)
    assert expected == pytest.approx(bits, abs=0.05)
    for values in (_cell(ds, (1,), 2), _fast(ds, (1,), 2)):
        assert values["entropy"] == pytest.approx(expected, rel=1e-12)
        assert values["dm_star"] == 1000**2  # both 1,000,000 after generalization (El Emam 2009)


def _loss_example() -> Dataset:
    """Two columns whose hierarchies have rows the data does not use (ARX divides by the rows)."""
    frame = pd.DataFrame({"a": ["x", "y", "z", "z"], "b": ["p", "p", "q", "q"]})
    a = Hierarchy.from_rows([["x", "xy", "*"], ["y", "xy", "*"], ["z", "zw", "*"], ["w", "zw", "*"]], name="a")
    b = Hierarchy.from_rows([["p", "*"], ["q", "*"], ["s", "*"]], name="b")
    return Dataset.create(frame, {"a": "quasi", "b": "quasi"}, {"a": a, "b": b})


def test_arx_loss_hand_computed():
    """ARX's loss (MetricMDNMLoss, gs-factor 0.5): per attribute a_j = Σ_kept share(g) + S with share = hierarchy
    rows under g / rows D_j, v_j = (a_j − n/D_j)/(n − n/D_j), aggregated as Π(1 + v_j)^(1/r) − 1."""
    ds = _loss_example()
    n = 4
    # node (1, 0), k = 1: a -> xy, xy, zw, zw (2 of 4 rows each), b kept (1 of 3 rows each); nothing suppressed
    a_a, a_b = 4 * 2 / 4, 4 * 1 / 3
    v_a, v_b = (a_a - n / 4) / (n - n / 4), (a_b - n / 3) / (n - n / 3)
    assert (v_a, v_b) == (pytest.approx(1 / 3), 0.0)
    expected = math.sqrt((1 + v_a) * (1 + v_b)) - 1
    for values in (_cell(ds, (1, 0), 1), _fast(ds, (1, 0), 1)):
        assert values["loss"] == pytest.approx(expected, abs=1e-10)  # 0.1547, not Iyengar-on-data's 1/4
    assert M.attribute_values(Release.from_node(ds, (1, 0), 1, 0.0).view(), ["loss"]) == {
        "loss": {"a": 0.3333333333, "b": 0.0}}  # floored to 10 decimals as ARX does
    # node (1, 0), k = 3: classes {x,y}->(xy,p) of 2 and (zw,q) of 2 are both suppressed: every cell counts 1
    for values in (_cell(ds, (1, 0), 3), _fast(ds, (1, 0), 3)):
        assert values["loss"] == pytest.approx(1.0, abs=1e-12)
    # node (0, 0), k = 2: classes (x,p), (y,p) of 1 suppressed, (z,q) of 2 kept: a_a = 2/4 + 2, a_b = 2/3 + 2
    v_a, v_b = (2 / 4 + 2 - 1) / (4 - 1), (2 / 3 + 2 - 4 / 3) / (4 - 4 / 3)
    assert (v_a, v_b) == (pytest.approx(0.5), pytest.approx(0.5))  # = S/n when level 0 throughout
    for values in (_cell(ds, (0, 0), 2), _fast(ds, (0, 0), 2)):
        assert values["loss"] == pytest.approx(0.5, abs=1e-10)


def test_loss_bound_is_the_generalization_alone():
    """ARX's lower bound charges every record its generalized share, suppressed or not (node (1, 0), k = 3)."""
    ds = _loss_example()
    view = NodeScorer(NodeEvaluator(ds.encoded, 3, 0.0)).view((1, 0))
    assert M.MEASURES["loss"].lower_bound(view) == pytest.approx(math.sqrt(1 + 1 / 3) - 1, abs=1e-10)


def test_registry_metadata():
    assert set(M.MEASURES) == {"height", "precision", "precision_nm", "dm", "dm_star", "aecs", "entropy",
                               "entropy_nm", "loss", "vinterbo", "col_mi", "pmi", "nmi", "cm"}
    assert set(M.MEASURES) - set(M.LATTICE_MEASURES) == {"col_mi", "pmi", "nmi", "cm"}
    monotone = {i for i, m in M.MEASURES.items() if m.monotone}
    assert monotone == {"height", "precision", "dm_star", "entropy", "vinterbo", "col_mi"}
    for m in M.MEASURES.values():  # all losses except nmi, a share of information kept
        assert m.name and m.formula and m.source
        assert m.direction == ("higher is better" if m.id == "nmi" else "lower is better")


def test_scores_are_normalized_where_bounded():
    ds = _teaching()
    scores = M.score(Release.from_node(ds, (2, 1, 4), 3, 0.0).view())
    assert scores["precision"].normalized == 1.0
    assert scores["height"].normalized == 1.0
    assert scores["dm_star"].normalized == 1.0  # one class of n records: n²/n²
    assert scores["entropy"].normalized is None


# ------------------------------------------------------------------------------------ ARX conformance
def _conformance_cases():
    data = json.loads(CONFORMANCE.read_text())
    return [(c["measure"], tuple(c["transformation"][q] for q in data["quasi_identifiers"]), c["value"])
            for c in data["cases"]]


def test_conformance_file_shape():
    data = json.loads(CONFORMANCE.read_text())
    assert data["quasi_identifiers"] == ["sex", "age", "race", "marital-status", "education", "native-country",
                                         "workclass", "salary-class"]
    assert len(data["cases"]) >= 60 and {c["k"] for c in data["cases"]} == {5}


@pytest.mark.parametrize(("measure", "node", "value"), _conformance_cases())
def test_arx_adult_conformance(adult_dataset, measure, node, value):
    """ARX's own values on Adult (8 QIs, k = 5, 0 %), to a relative 1e-9, by both implementations."""
    assert adult_dataset.quasi_identifiers == ["sex", "age", "race", "marital-status", "education",
                                               "native-country", "workclass", "salary-class"]
    fast = M.MEASURES[measure].node(_adult_scorer(adult_dataset).view(node))
    cell = M.MEASURES[measure].cell(Release.from_node(adult_dataset, node, 5, 0.0).view())
    assert fast == pytest.approx(value, rel=1e-9)
    assert cell == pytest.approx(value, rel=1e-9)


def _loss_rank_nodes():
    path = CONFORMANCE.parent / "arx-adult-8qi-k5-loss-rank.json"
    return [(tuple(c["transformation"]), c["rank_vector"]) for c in json.loads(path.read_text())["nodes"]]


def test_loss_rank_file_shape():
    data = json.loads((CONFORMANCE.parent / "arx-adult-8qi-k5-loss-rank.json").read_text())
    assert data["quasi_identifiers"] == ["sex", "age", "race", "marital-status", "education", "native-country",
                                         "workclass", "salary-class"]
    assert data["k"] == 5 and len(data["nodes"]) == 10


@pytest.mark.parametrize(("node", "rank_vector"), _loss_rank_nodes())
def test_arx_adult_loss_per_attribute(adult_dataset, node, rank_vector):
    """ARX's per-attribute loss vectors on Adult (k = 5; ARX's domain shares divide by the hierarchy's rows: age
    has 100 rows for 72 ages in the data), exactly as ARX prints them (floored to 10 decimals), by both
    implementations; the scalar is their geometric-mean aggregate."""
    release = Release.from_node(adult_dataset, node, 5, 0.0)
    per_attribute = M.attribute_values(release.view(), ["loss"])["loss"]
    assert list(per_attribute) == adult_dataset.quasi_identifiers
    assert sorted(per_attribute.values(), reverse=True) == rank_vector
    fast_view = _adult_scorer(adult_dataset).view(node)
    assert sorted(M.loss_by_attribute_node(fast_view), reverse=True) == rank_vector
    geometric = math.prod((1 + v) ** (1 / 8) for v in rank_vector) - 1
    assert M.MEASURES["loss"].cell(release.view()) == pytest.approx(geometric, rel=1e-12, abs=1e-15)
    assert M.MEASURES["loss"].node(fast_view) == pytest.approx(geometric, rel=1e-12, abs=1e-15)


_SCORERS: dict[int, NodeScorer] = {}


def _adult_scorer(ds: Dataset) -> NodeScorer:
    if id(ds) not in _SCORERS:
        _SCORERS[id(ds)] = NodeScorer(NodeEvaluator(ds.encoded, 5, 0.0))
    return _SCORERS[id(ds)]


# ------------------------------------------------------------------------------------ fast path == cells
@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 6))
def test_fast_path_equals_cell_level_on_every_node(seed, k):
    ds = random_dataset(seed)
    ev = NodeEvaluator(ds.encoded, k, 0.0)
    scorer = NodeScorer(ev)
    for node in ev.lattice.nodes():
        view = Release.from_node(ds, node, k, 0.0).view()
        fast_view = scorer.view(node)
        for mid, m in M.LATTICE_MEASURES.items():
            assert m.node(fast_view) == pytest.approx(m.cell(view), rel=1e-9, abs=1e-9), (mid, node)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_measures_invariant_to_row_order(seed):
    ds = random_dataset(seed)
    perm = np.random.default_rng(seed).permutation(ds.n)
    shuffled = Dataset.create(ds.frame.iloc[perm].reset_index(drop=True), ds.roles, ds.hierarchies)
    node = tuple(h // 2 for h in (c.height for c in ds.encoded))
    a, b = _cell(ds, node, 2), _cell(shuffled, node, 2)
    for mid in a:
        assert a[mid] == pytest.approx(b[mid], rel=1e-12, abs=1e-12), mid


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 5))
def test_attribute_values_aggregate_to_the_measure(seed, k):
    """Per-attribute values (``attribute_values``, printed as ``attribute_measures``) combine to the scalar by
    the measure's own aggregate, written out here: Σ, mean, or ARX's geometric mean Π(1 + v_j)^(1/r) − 1; the
    fast path's per-attribute loss equals the cell-level one on every node."""
    ds = random_dataset(seed)
    ev = NodeEvaluator(ds.encoded, k, 0.0)
    scorer = NodeScorer(ev)
    combine = {M.SUM: sum, M.MEAN: lambda xs: sum(xs) / len(xs),
               M.GEOMETRIC_MEAN: lambda xs: math.prod(1 + x for x in xs) ** (1 / len(xs)) - 1}
    for node in ev.lattice.nodes():
        view = Release.from_node(ds, node, k, 0.0).view()
        values = M.attribute_values(view)
        assert set(values) == {"height", "precision", "precision_nm", "entropy", "entropy_nm", "loss", "vinterbo"}
        for mid, per in values.items():
            assert list(per) == ds.quasi_identifiers
            whole = M.MEASURES[mid].cell(view)
            assert combine[M.MEASURES[mid].aggregate](list(per.values())) == pytest.approx(whole, rel=1e-9,
                                                                                              abs=1e-12), mid
        assert M.loss_by_attribute_node(scorer.view(node)) == list(values["loss"].values())


def test_loss_uses_interval_widths_for_builder_intervals():
    """Ages 17, 18, 25, 39 in 5-year bands (widths 5, 10): ARX's interval shares, D = 30 (the 10-wide bands from
    10 to 40), every band 5 wide: v = (4·5/30 − 4/30)/(4 − 4/30) = 16/116; with the hierarchy's rows instead
    (15-19 holds 2 of 4 rows) it would be (6/4 − 1)/(4 − 1) = 1/6."""
    from workbench.hierarchy.intervals import intervals

    frame = pd.DataFrame({"age": ["17", "18", "25", "39"]})
    ds = Dataset.create(frame, {"age": "quasi"}, {"age": intervals(frame["age"], [5, 10], name="age")})
    for values in (_cell(ds, (1,), 1), _fast(ds, (1,), 1)):
        assert values["loss"] == pytest.approx(math.floor(16 / 116 * 1e10) / 1e10, abs=1e-15)


def _interval_dataset(seed: int) -> Dataset:
    rng = np.random.default_rng(seed)
    from workbench.hierarchy.intervals import intervals

    frame, hierarchies = {}, {}
    for j in range(int(rng.integers(1, 3))):
        values = [str(v) for v in rng.integers(0, 40, size=int(rng.integers(2, 30)))] if j == 0 else None
        values = values or [str(v) for v in rng.integers(-10, 30, size=len(frame["a0"]))]
        top = int(rng.integers(15, 35)) if rng.random() < 0.5 else None
        name = f"a{j}"
        frame[name] = values
        hierarchies[name] = intervals(values, [int(rng.integers(1, 4)), 6, 12], top=top, name=name)
    return Dataset.create(pd.DataFrame(frame), {q: "quasi" for q in hierarchies}, hierarchies)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4))
def test_loss_with_interval_shares_fast_path_and_bound(seed, k):
    """With interval shares too: the fast path equals the cell-level loss on every node, and ARX's lower bound
    at a node is at most the loss at the node and at every generalization of it (what bnb prunes with)."""
    ds = _interval_dataset(seed)
    assert all(h.interval_shares is not None for h in ds.hierarchies.values())
    ev = NodeEvaluator(ds.encoded, k, 0.0)
    scorer = NodeScorer(ev)
    nodes = list(ev.lattice.nodes())
    loss = {node: M.MEASURES["loss"].cell(Release.from_node(ds, node, k, 0.0).view()) for node in nodes}
    for node in nodes:
        view = scorer.view(node)
        assert M.MEASURES["loss"].node(view) == pytest.approx(loss[node], rel=1e-12, abs=1e-12)
        bound = M.MEASURES["loss"].lower_bound(view)
        for other in nodes:
            if all(o >= v for o, v in zip(other, node, strict=True)):
                assert bound <= loss[other] + 1e-12, (node, other)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_local_release_of_a_full_domain_node_has_the_node_s_loss(seed):
    """A local release over tree posets (from the hierarchies) that releases every record at one lattice node's
    levels is that node's release: its loss, per attribute and aggregated, equals the lattice release's (ARX's
    shares of the hierarchy's rows in both engines; k = 1, so the lattice suppresses nothing either)."""
    from workbench.local.lub import LocalColumn, LocalResult
    from workbench.local.posets import FinitePoset

    ds = random_dataset(seed)
    rng = np.random.default_rng(seed)
    node = tuple(int(rng.integers(0, c.height + 1)) for c in ds.encoded)
    columns, released = [], []
    for c, v in zip(ds.encoded, node, strict=True):
        poset = FinitePoset.from_tree(ds.hierarchies[c.name], list(c.labels[0]))
        leaf = np.asarray(poset.leaves)[c.codes]
        at_level = poset.ancestors[leaf] & (poset.heights == v)[None, :]  # the record's level-v ancestor
        assert (at_level.sum(axis=1) == 1).all()
        columns.append(LocalColumn(c.name, poset))
        released.append(at_level.argmax(axis=1))
    result = LocalResult("test", np.stack(released, axis=1), np.zeros(ds.n, dtype=np.int64), "k-anonymity", 0.0)
    local = Release.from_local(ds, columns, result, 1).view()
    lattice = Release.from_node(ds, node, 1, 0.0).view()
    assert M.attribute_values(local, ["loss"]) == M.attribute_values(lattice, ["loss"])
    assert M.MEASURES["loss"].cell(local) == M.MEASURES["loss"].cell(lattice)


# ---------------------------------------------------------------------------------------------- classification metric
def _cm_view(released: list[int], suppressed: list[bool]) -> M.Generalized:
    """A one-column release: each record's released code and whether it is suppressed."""
    codes = np.asarray(released)
    column = M.GeneralizedColumn("q", original=codes, released=codes, height=np.zeros(codes.size, dtype=np.int64),
                                 max_height=1, leaf_count=np.ones(int(codes.max()) + 1, dtype=np.int64))
    return M.Generalized((column,), np.asarray(suppressed, dtype=bool), 2)


def test_cm_worked_example_under_each_convention():
    """Six records: class A = (yes, yes, no), class B = (yes, no), one suppressed record (a no). Iyengar 2002: the
    no of A is charged, B's tie charges one record (one label is the majority), the suppressed record 1: 3/6.
    ARX (MetricSDClassification, default factors): B without a unique majority charges both its records and the
    suppressed record 0.5: 3.5/6. pycanon: the tied labels are both "the maximum", so B charges nothing: 2/6."""
    from measures.classification import cm

    view = _cm_view([0, 0, 0, 1, 1, 2], [False] * 5 + [True])
    target = np.array([1, 1, 0, 1, 0, 0])  # yes = 1
    assert M.MEASURES["cm"].cell(view, target) == pytest.approx(3 / 6)
    assert cm(view, target, convention="arx") == pytest.approx(3.5 / 6)
    assert cm(view, target, convention="pycanon") == pytest.approx(2 / 6)
    assert M.score(view, ["cm"], target)["cm"].normalized == pytest.approx(0.5)
    with pytest.raises(KeyError, match="needs a target"):
        M.score(view, ["cm"])


@pytest.mark.parametrize("seed", range(15))
def test_cm_pycanon_convention_equals_pycanon(seed):
    """The ``"pycanon"`` convention against pyCANON 1.3.6's ``classification_metric`` itself (an independent
    implementation), given the released table without its suppressed records, on random releases with ties."""
    pytest.importorskip("pycanon")
    import warnings

    from pycanon.metrics import classification_metric

    from measures.classification import cm

    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, max_rows=40)
    node = tuple(int(rng.integers(0, c.height + 1)) for c in ds.encoded)
    release = Release.from_node(ds, node, int(rng.integers(1, 4)), 1.0)
    target = rng.integers(0, int(rng.integers(2, 4)), size=ds.n)
    released = release.labels[ds.quasi_identifiers].astype(str).assign(target=target)
    kept = released[~release.suppressed].reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas' FutureWarning inside pyCANON
        theirs = classification_metric(released, kept, ds.quasi_identifiers, ["target"])
    assert cm(release.view(), target, convention="pycanon") == pytest.approx(theirs)


@pytest.mark.parametrize("seed", range(30))
def test_cm_equals_a_vote_counted_from_the_released_table(seed):
    """On random tables, nodes, k and suppression: cm equals the share of records a class-majority vote over the
    released table gets wrong (a suppressed record counted wrong), tallied row by row; and without suppression
    generalizing never lowers it (a merged class's majority is wrong at least as often as its parts')."""
    rng = np.random.default_rng(seed)
    ds = random_dataset(seed, max_rows=40)
    node = tuple(int(rng.integers(0, c.height + 1)) for c in ds.encoded)
    k = int(rng.integers(1, 4))
    release = Release.from_node(ds, node, k, 1.0)
    target = rng.integers(0, int(rng.integers(2, 4)), size=ds.n)
    table = release.labels[ds.quasi_identifiers].astype(str).agg("|".join, axis=1)
    wrong = int(release.suppressed.sum())
    for key in set(table[~release.suppressed]):
        members = np.flatnonzero((table == key).to_numpy() & ~release.suppressed)
        votes = np.bincount(target[members])
        wrong += members.size - int(votes.max())
    assert M.MEASURES["cm"].cell(release.view(), target) == pytest.approx(wrong / ds.n if ds.n else 0.0)
    above = tuple(min(v + 1, c.height) for v, c in zip(node, ds.encoded, strict=True))
    low, high = (M.MEASURES["cm"].cell(Release.from_node(ds, at, 1, 0.0).view(), target) for at in (node, above))
    assert high >= low - 1e-12
