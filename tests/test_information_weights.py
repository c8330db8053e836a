"""Katirai 2006 information measures: MI, MI ratio, Col-MI (§2.3) and Value-MI / PMI (§2.4), by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from measures._node import ColumnDomain, NodeClasses
from measures._view import Generalized, GeneralizedColumn
from measures.hierarchy_weights import vinterbo
from measures.information_weights import (
    col_mi,
    col_mi_node,
    column_pmi_scores,
    column_weights,
    mi_ratio,
    mutual_information,
    pmi,
    pmi_cell_scores,
    pmi_interval_costs,
    pmi_node_costs,
    under_from_levels,
)

LOG2_1_5 = math.log2(1.5)


def _h(*p: float) -> float:
    return -sum(q * math.log2(q) for q in p if q > 0)


def _col(name, original, released, height, max_height, leaf_count=None) -> GeneralizedColumn:
    released = np.asarray(released)
    if leaf_count is None:
        leaf_count = np.ones(int(released.max()) + 1, dtype=np.int64)
    return GeneralizedColumn(name, np.asarray(original), released, np.asarray(height), max_height, leaf_count)


# ------------------------------------------------------------------------------------------------ MI
@pytest.mark.parametrize(
    ("x", "c", "bits"),
    [
        ([0, 0, 1, 1], [0, 0, 1, 1], 1.0),
        ([0, 0, 1, 1], [0, 1, 0, 1], 0.0),
        # H(C) − H(C|X) = 1 − 3/4 · H(2/3, 1/3)
        ([0, 0, 0, 1], [0, 0, 1, 1], 1 - 0.75 * _h(2 / 3, 1 / 3)),
        # joint form term by term: p(0,0)=1/2, p(0,1)=1/4, p(1,1)=1/4; p(x)=(3/4, 1/4), p(c)=(1/2, 1/2)
        ([0, 0, 0, 1], [0, 0, 1, 1], 0.5 * math.log2(4 / 3) + 0.25 * math.log2(2 / 3) + 0.25 * 1.0),
        (["a", "a", "b", "c", "c", "c"], ["y", "n", "y", "n", "n", "n"], _h(1 / 3, 2 / 3) - 1 / 3),
    ],
)
def test_mi_hand_computed(x, c, bits):
    assert mutual_information(np.array(x), np.array(c)) == pytest.approx(bits, abs=1e-12)


def test_mi_matches_sklearn_in_bits():
    rng = np.random.default_rng(1)
    for m, k in ((2, 2), (7, 3), (30, 2)):
        x = rng.integers(0, m, 500)
        c = (x % k + rng.integers(0, 2, 500)) % k
        expected = mutual_info_score(c, x) / math.log(2)
        assert mutual_information(x, c) == pytest.approx(expected, rel=1e-10, abs=1e-12)


def test_mi_independent_zero_identical_entropy():
    x = np.repeat([0, 1, 2], 4)
    c = np.tile([0, 1], 6)  # every (x, c) pair exactly twice: independent in the table
    assert mutual_information(x, c) == 0.0
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 4, 5000), rng.integers(0, 2, 5000)
    assert mutual_information(a, b) < 0.005
    p = np.bincount(a) / a.size
    assert mutual_information(a, a) == pytest.approx(_h(*p), rel=1e-12)


def test_mi_min_count_drops_rare_values():
    x = np.array([0, 0, 0, 1, 1, 1, 2])
    c = np.array([0, 0, 0, 1, 1, 1, 0])
    assert mutual_information(x, c, min_count=3) == pytest.approx(1.0)
    assert mutual_information(x, c) < 1.0
    with pytest.raises(ValueError, match="records"):
        mutual_information(x, c[:-1])


# ------------------------------------------------------------------------------------------- MI ratio
def test_mi_ratio_informative_vs_random():
    rng = np.random.default_rng(3)
    n = 2000
    c = rng.integers(0, 2, n)
    informative = np.where(rng.random(n) < 0.8, c, 1 - c) * 3 + rng.integers(0, 3, n)  # 6 values
    assert mi_ratio(informative, c) > 20
    ratios = [mi_ratio(rng.integers(0, 5, n), c, seed=s) for s in range(20)]
    assert 0.6 < float(np.mean(ratios)) < 1.4
    assert mi_ratio(np.zeros(n), c) == 0.0  # a constant column carries nothing


def test_mi_ratio_is_mi_over_mean_random_mi():
    rng = np.random.default_rng(4)
    x, c = rng.integers(0, 4, 300), rng.integers(0, 2, 300)
    draws = np.random.default_rng(7)
    baseline = np.mean([mutual_information(draws.integers(0, 4, 300), c) for _ in range(5)])
    assert mi_ratio(x, c, runs=5, seed=7) == pytest.approx(mutual_information(x, c) / baseline, rel=1e-12)


def test_column_weights_kinds():
    rng = np.random.default_rng(5)
    c = rng.integers(0, 2, 400)
    cols = [c.copy(), rng.integers(0, 3, 400)]
    assert column_weights(cols, c) == pytest.approx([mutual_information(x, c) for x in cols])
    assert column_weights(cols, c)[0] == pytest.approx(_h(*(np.bincount(c) / c.size)))
    assert column_weights(cols, c, kind="mi_ratio") == pytest.approx([mi_ratio(x, c) for x in cols])
    with pytest.raises(ValueError, match="kind"):
        column_weights(cols, c, kind="nope")


# ------------------------------------------------------------------------------------------------ Col-MI
def _col_mi_view() -> tuple[Generalized, np.ndarray]:
    target = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    a = _col("a", target, [0, 0, 1, 1, 2, 2, 3, 3], [0, 1, 2, 1, 0, 2, 1, 0], 2)  # MI(a; C) = 1 bit
    b = _col("b", [0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 0, 0, 1, 1], [1, 0, 1, 1, 0, 0, 0, 1], 1)  # MI 0
    flat = _col("z", [0] * 8, [0] * 8, [0] * 8, 0)  # height-0 column: costs 0 whatever its weight
    suppressed = np.array([0, 0, 0, 0, 0, 0, 0, 1], dtype=bool)
    return Generalized((a, b, flat), suppressed, 2), target


def test_col_mi_unit_weights_is_vinterbo():
    view, target = _col_mi_view()
    by_hand = (0 + 1 + 2 + 1 + 0 + 2 + 1 + 0) / 2 + (1 + 0 + 1 + 1 + 0 + 0 + 0 + 1) / 1
    assert col_mi(view, target, weights=np.ones(3)) == pytest.approx(by_hand)
    assert vinterbo(view) == pytest.approx(by_hand)


def test_col_mi_weights_from_original_codes():
    view, target = _col_mi_view()
    assert column_weights([c.original for c in view.columns], target) == pytest.approx([1.0, 0.0, 0.0])
    assert col_mi(view, target) == pytest.approx(7 / 2)  # 1 · Σ h_a / 2 + 0 · (...)
    w = column_weights([c.original for c in view.columns], target, kind="mi_ratio")
    assert col_mi(view, target, kind="mi_ratio") == pytest.approx(w[0] * 7 / 2 + w[1] * 4)
    with pytest.raises(ValueError, match="weights"):
        col_mi(view, target, weights=np.ones(2))


def test_col_mi_node_fast_path():
    dom = ColumnDomain("a", np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0]]), np.array([2, 1, 1]))
    node = NodeClasses((1,), np.array([3, 1]), np.array([[0], [1]]), (dom,), 1)
    original = np.array([0, 0, 1, 2])
    view = Generalized((_col("a", original, dom.level_codes[original, 1], [1] * 4, 2),), np.zeros(4, bool), 1)
    assert col_mi_node(node, np.array([0.7])) == pytest.approx(col_mi(view, None, weights=np.array([0.7])))
    assert col_mi_node(node, np.array([0.7])) == pytest.approx(4 * 0.7 / 2)


# ------------------------------------------------------------------------------------------- Value-MI/PMI
# 10 records; a (code 0) ×5 with 3 positive, b (code 1) ×5 with 1 positive; p(c=1) = 0.4 (the minority).
ORIGINAL = np.array([0] * 5 + [1] * 5)
TARGET = np.array([1, 1, 1, 0, 0, 1, 0, 0, 0, 0])
UNDER = np.array([[1, 0], [0, 1], [1, 1]], dtype=bool)  # released codes: 0 = a, 1 = b, 2 = * (root)


def test_pmi_2x2_hand_computed():
    # PMI(a,1) = log2(0.6/0.4) = log2 1.5 > 0; PMI(b,1) = log2(0.2/0.4) = −1 < 0: the sign is flipped
    # away, both score −|PMI|; the root has p = 1, PMI 0, score 0 (the worst).
    scores = pmi_node_costs(UNDER, ORIGINAL, TARGET, alpha=0.0)
    assert scores == pytest.approx([-LOG2_1_5, -1.0, 0.0])
    assert pmi_node_costs(UNDER, ORIGINAL, TARGET, target_value=1, alpha=0.0) == pytest.approx(scores)
    # c = 0: PMI(a,0) = log2(0.4/0.6), PMI(b,0) = log2(0.8/0.6)
    assert pmi_node_costs(UNDER, ORIGINAL, TARGET, target_value=0, alpha=0.0) == pytest.approx(
        [-LOG2_1_5, -math.log2(4 / 3), 0.0])
    assert pmi_node_costs(UNDER, ORIGINAL, TARGET, target_value="sum", alpha=0.0) == pytest.approx(
        [-2 * LOG2_1_5, -(1 + math.log2(4 / 3)), 0.0])
    assert pmi_node_costs(UNDER, ORIGINAL, TARGET, target_value="expected", alpha=0.0) == pytest.approx(
        [-LOG2_1_5, -(0.2 + 0.8 * math.log2(4 / 3)), 0.0])


def test_pmi_default_target_is_the_less_frequent_class():
    flipped = 1 - TARGET  # now class 0 is the minority
    assert pmi_node_costs(UNDER, ORIGINAL, flipped, alpha=0.0) == pytest.approx(
        pmi_node_costs(UNDER, ORIGINAL, flipped, target_value=0, alpha=0.0))
    labels = np.where(TARGET == 1, "high", "low")
    assert pmi_node_costs(UNDER, ORIGINAL, labels, target_value="high", alpha=0.0) == pytest.approx(
        pmi_node_costs(UNDER, ORIGINAL, TARGET, alpha=0.0))
    with pytest.raises(ValueError, match="target_value"):
        pmi_node_costs(UNDER, ORIGINAL, TARGET, target_value=5)


def test_pmi_smoothing_keeps_root_zero_and_scores_finite():
    target = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])  # b never positive: plug-in PMI(b, 1) = −∞
    assert pmi_node_costs(UNDER, ORIGINAL, target, alpha=0.0)[1] == -math.inf
    smooth = pmi_node_costs(UNDER, ORIGINAL, target)  # alpha = 0.5
    assert np.isfinite(smooth).all()
    assert smooth[1] == pytest.approx(-abs(math.log2((0.5 / 6) / (5.5 / 11))))
    assert smooth[2] == pytest.approx(0.0, abs=1e-12)
    assert (smooth <= 0).all()


def test_pmi_cell_scores_equals_node_costs():
    covered = UNDER[:, ORIGINAL]
    for tv in (None, 0, "sum", "expected"):
        assert pmi_cell_scores(covered, TARGET, tv) == pytest.approx(pmi_node_costs(UNDER, ORIGINAL, TARGET, tv))


def test_pmi_is_not_monotone():
    # a is neutral (p(1|a) = p(1)), b strongly positive: the parent {a, b} scores below its child a.
    under = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 1, 1]], dtype=bool)
    original = np.array([0, 0, 0, 0, 1, 1, 2, 2, 2, 2])
    target = np.array([1, 1, 0, 0, 1, 1, 0, 0, 0, 1])  # p(1) = 1/2 = p(1|a); p(1|{a,b}) = 2/3
    scores = pmi_node_costs(under, original, target, target_value=1, alpha=0.0)
    assert scores[0] == pytest.approx(0.0)
    assert scores[3] == pytest.approx(-math.log2(4 / 3))
    assert scores[3] < scores[0]  # generalized value {a, b} better than its descendant a
    assert scores[4] == pytest.approx(0.0)


def _view(released, suppressed=None, covers=None) -> Generalized:
    released = np.asarray(released)
    height = (released == 2).astype(int)
    col = GeneralizedColumn("x", ORIGINAL, released, height, 1, np.array([1, 1, 2]), covers)
    sup = np.zeros(10, bool) if suppressed is None else np.asarray(suppressed, bool)
    return Generalized((col,), sup, 2)


def test_pmi_view_leaves_root_and_suppression():
    for covers in (None, UNDER):
        leaves = _view(ORIGINAL, covers=covers)
        assert pmi(leaves, TARGET, alpha=0.0) == pytest.approx(5 * -LOG2_1_5 + 5 * -1.0)
        assert pmi(_view([2] * 10, covers=covers), TARGET, alpha=0.0) == pytest.approx(0.0)
        sup = np.zeros(10, bool)
        sup[[0, 5]] = True  # suppressed records' cells are the root: score 0
        assert pmi(_view(ORIGINAL, sup, covers), TARGET, alpha=0.0) == pytest.approx(4 * -LOG2_1_5 + 4 * -1.0)


def test_pmi_of_a_local_recoding_counts_every_record_under_a_value_by_hand():
    """Katirai §1.9/§2.4: p(g) comes from the augmented table (every record whose original value lies under
    g), not from the records that happen to be released as g. Records 0, 1 (a, both positive) are recoded to
    the root, the others keep their leaves. By hand, with add-½ smoothing (α = 0.5, K = 2 classes):
      p(1)     = (4 + ½) / (10 + 1)            = 4.5/11
      p(1 | a) = (3 + ½) / (5 + 1)   = 3.5/6   (a still covers records 0-4: 3 positives)
      p(1 | b) = (1 + ½) / (5 + 1)   = 1.5/6
      p(1 | *) = (4 + ½) / (10 + 1)  = p(1)     → PMI 0, the worst score
    pmi = 3 · −|log2(p(1|a)/p(1))| + 5 · −|log2(p(1|b)/p(1))| + 2 · 0."""
    view = _view([2, 2, 0, 0, 0, 1, 1, 1, 1, 1], covers=UNDER)
    p1 = 4.5 / 11
    score_a, score_b = -abs(math.log2((3.5 / 6) / p1)), -abs(math.log2((1.5 / 6) / p1))
    assert pmi(view, TARGET) == pytest.approx(3 * score_a + 5 * score_b)
    scores = column_pmi_scores(view.columns[0], TARGET)
    assert scores == pytest.approx([score_a, score_b, 0.0], abs=1e-12)
    assert scores[2] > scores[0] and scores[2] > scores[1]  # * scores worse than both informative labels
    # the same cover matrix gives the engine's node costs (one definition for the engine and the report)
    assert scores == pytest.approx(pmi_node_costs(UNDER, ORIGINAL, TARGET))


def test_pmi_without_covers_is_exact_on_full_domain_release():
    """A lattice view has no cover matrix: each record counts under its own code, which is the augmented
    table at a full-domain node (every record under g carries g, suppressed ones included)."""
    level_codes = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0]])
    under = under_from_levels(level_codes)
    assert under.shape == (6, 3)
    assert under[[0, 3, 5], 0].all() and under[[1, 3, 5], 1].all() and under[[2, 4, 5], 2].all()
    assert under.sum() == 9
    original = np.array([0, 0, 1, 1, 1, 2, 2, 0, 1, 2, 2, 2])
    target = np.array([1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0])
    offsets = [0, 3, 5]
    for level in range(3):
        released = offsets[level] + level_codes[original, level]
        sup = np.zeros(12, bool)
        sup[[2, 9]] = True  # suppressed rows keep their generalized code in the view
        views = [Generalized((GeneralizedColumn("x", original, released, [level] * 12, 2, under.sum(axis=1),
                                                covers),), sup, 2) for covers in (None, under)]
        assert pmi(views[0], target) == pytest.approx(pmi(views[1], target))
        assert column_pmi_scores(views[0].columns[0], target)[released] == pytest.approx(
            column_pmi_scores(views[1].columns[0], target)[released])


def test_view_covers_validation():
    wrong = np.array([[0, 1], [1, 0], [1, 1]], dtype=bool)  # a and b swapped: released a does not cover a
    with pytest.raises(ValueError, match="cover"):
        _view(ORIGINAL, covers=wrong)
    with pytest.raises(ValueError, match="row per released code"):
        _view(ORIGINAL, covers=UNDER[:1])
    with pytest.raises(ValueError, match="records"):
        pmi(_view(ORIGINAL), TARGET[:-1])


def test_pmi_interval_costs_equal_cover_matrix():
    rng = np.random.default_rng(6)
    point = rng.integers(0, 6, 60)
    target = (point >= 4).astype(int) ^ (rng.random(60) < 0.2)
    lo = np.array([0, 2, 0, 3, 5, 0])
    hi = np.array([0, 4, 5, 3, 5, 2])
    under = (np.arange(6)[None, :] >= lo[:, None]) & (np.arange(6)[None, :] <= hi[:, None])
    for tv in (None, 0, "sum", "expected"):
        assert pmi_interval_costs(lo, hi, point, target, tv) == pytest.approx(
            pmi_node_costs(under, point, target, tv))
    assert pmi_interval_costs(lo, hi, point, target)[2] == pytest.approx(0.0, abs=1e-12)  # [0, 5]: all
