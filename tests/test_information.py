"""``nmi``: MI(released QIs; target) / MI(original QIs; target), joint and per column, by hand and vs sklearn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import adjusted_mutual_info_score, mutual_info_score

from measures._view import Generalized, GeneralizedColumn
from measures.information import joint_codes, nmi, nmi_columns, plugin_mi_bias
from measures.information_weights import mutual_information


def _h(*p: float) -> float:
    return -sum(q * math.log2(q) for q in p if q > 0)


def _col(name, original, released, height, max_height) -> GeneralizedColumn:
    released = np.asarray(released)
    leaf_count = np.ones(int(released.max()) + 1, dtype=np.int64)
    return GeneralizedColumn(name, np.asarray(original), released, np.asarray(height), max_height, leaf_count)


def _view(*columns: GeneralizedColumn, suppressed=None) -> Generalized:
    n = columns[0].original.size
    sup = np.zeros(n, dtype=bool) if suppressed is None else np.asarray(suppressed, dtype=bool)
    return Generalized(tuple(columns), sup, 2)


# A: 4 values, B: 2 values, every (A, B) tuple unique; C binary, 3 zeros and 5 ones.
A = np.array([0, 0, 1, 1, 2, 2, 3, 3])
B = np.array([0, 1, 0, 1, 0, 1, 0, 1])
C = np.array([0, 0, 0, 1, 1, 1, 1, 1])
A_UP = np.array([4, 4, 4, 4, 5, 5, 5, 5])  # {0,1} -> 4, {2,3} -> 5 (height 1 of 2)
B_ROOT = np.full(8, 2)  # root of B (height 1 of 1)
H_C = _h(3 / 8, 5 / 8)
H_QUARTER = _h(1 / 4, 3 / 4)


def _bottom() -> Generalized:
    return _view(_col("A", A, A, np.zeros(8), 2), _col("B", B, B, np.zeros(8), 1))


def _node() -> Generalized:
    return _view(_col("A", A, A_UP, np.ones(8), 2), _col("B", B, B_ROOT, np.ones(8), 1))


def _root() -> Generalized:
    return _view(_col("A", A, np.full(8, 6), np.full(8, 2), 2), _col("B", B, B_ROOT, np.ones(8), 1))


# ---------------------------------------------------------------------------------------------- by hand
def test_mi_by_hand_log2_sums():
    # MI(A;C) = Σ p(a,c) log2(p(a,c) / (p(a) p(c))): cells (0,0) 2/8, (1,0) 1/8, (1,1) 1/8, (2,1) 2/8, (3,1) 2/8
    by_sum = (2 / 8 * math.log2((2 / 8) / (2 / 8 * 3 / 8)) + 1 / 8 * math.log2((1 / 8) / (2 / 8 * 3 / 8))
              + 1 / 8 * math.log2((1 / 8) / (2 / 8 * 5 / 8)) + 2 * 2 / 8 * math.log2((2 / 8) / (2 / 8 * 5 / 8)))
    assert by_sum == pytest.approx(H_C - 1 / 4)  # H(C) − H(C|A), H(C|A) = ¼·h(½)
    assert mutual_information(A, C) == pytest.approx(by_sum)


def test_bottom_node_is_one():
    for joint in (True, False):
        for adjusted in (False, True):
            assert nmi(_bottom(), C, joint=joint, adjusted=adjusted) == pytest.approx(1.0)
    np.testing.assert_allclose(nmi_columns(_bottom(), C), [1.0, 1.0])


def test_root_is_zero():
    for joint in (True, False):
        assert nmi(_root(), C, joint=joint) == 0.0
    np.testing.assert_array_equal(nmi_columns(_root(), C), [0.0, 0.0])


def test_adjusted_bottom_one_root_zero():
    # on 8 records B's MI with C is below chance (AMI(B) < 0: nothing to lose, 1.0): use a larger table
    rng = np.random.default_rng(3)
    n = 400
    a, b = rng.integers(0, 6, n), rng.integers(0, 4, n)
    c = np.where(rng.random(n) < 0.7, ((a >= 3) | (b >= 2)).astype(int), rng.integers(0, 2, n))
    zeros, root = np.zeros(n), np.full(n, 9)
    bottom = _view(_col("A", a, a, zeros, 2), _col("B", b, b, zeros, 1))
    top = _view(_col("A", a, root, np.full(n, 2), 2), _col("B", b, root, np.ones(n), 1))
    for joint in (True, False):
        assert nmi(bottom, c, joint=joint, adjusted=True) == pytest.approx(1.0)
        assert nmi(top, c, joint=joint, adjusted=True) == 0.0


def test_adjusted_unique_original_tuples_lose_nothing():
    # every original (A, B) tuple is unique: its MI with C is exactly what chance gives (AMI = 0), so the
    # adjusted joint nmi has nothing to lose and is 1.0 even at the root
    assert adjusted_mutual_info_score(C, joint_codes(_root(), released=False)) == pytest.approx(0.0, abs=1e-12)
    assert nmi(_root(), C, adjusted=True) == 1.0


def test_per_column_by_hand():
    mi_a = H_C - 1 / 4  # H(C|A) = ¼
    mi_a_up = H_C - H_QUARTER / 2  # {0,1}: C = 0,0,0,1 ; {2,3}: all 1
    mi_b = H_C - 1 / 2 - H_QUARTER / 2  # B=0: C = 0,0,1,1 ; B=1: C = 0,1,1,1
    expected = [mi_a_up / mi_a, 0.0 / mi_b]
    np.testing.assert_allclose(nmi_columns(_node(), C), expected)
    assert nmi(_node(), C, joint=False) == pytest.approx(np.mean(expected))


def test_joint_by_hand():
    # original tuples all distinct: MI = H(C); released tuples = the two A groups
    assert nmi(_node(), C) == pytest.approx((H_C - H_QUARTER / 2) / H_C)


def test_joint_mi_matches_sklearn():
    rng = np.random.default_rng(1)
    n = 500
    a, b, c = rng.integers(0, 5, n), rng.integers(0, 3, n), rng.integers(0, 3, n)
    c = np.where(rng.random(n) < 0.5, a % 3, c)  # C depends on A
    view = _view(_col("A", a, a // 2, (a > 0).astype(int), 2), _col("B", b, b, np.zeros(n), 1))
    x_orig, x_rel = joint_codes(view, released=False), joint_codes(view)
    assert np.unique(x_orig).size == np.unique(np.stack([a, b], axis=1), axis=0).shape[0]
    mi_orig, mi_rel = mutual_info_score(c, x_orig) / math.log(2), mutual_info_score(c, x_rel) / math.log(2)
    assert mutual_information(x_orig, c) == pytest.approx(mi_orig)
    assert nmi(view, c) == pytest.approx(mi_rel / mi_orig)
    per_col = [mutual_info_score(c, a // 2) / mutual_info_score(c, a), 1.0]
    np.testing.assert_allclose(nmi_columns(view, c), per_col)


def test_constant_target_is_one():
    assert nmi(_root(), np.zeros(8, dtype=int)) == 1.0
    np.testing.assert_array_equal(nmi_columns(_root(), np.zeros(8, dtype=int)), [1.0, 1.0])


# ------------------------------------------------------------------------------------------- suppression
def test_suppressed_policies_differ():
    sup = np.zeros(8, dtype=bool)
    sup[[1, 3]] = True  # C = 0 and 1
    view = Generalized(_bottom().columns, sup, 2)
    # as_root: rows 1 and 3 share one released tuple (C = 0, 1): H(C|X) = (2/8)·1
    assert nmi(view, C) == pytest.approx((H_C - 1 / 4) / H_C)
    assert nmi(view, C, suppressed="as_root") < 1.0
    # drop: the 6 kept records are released as their original (distinct) tuples: nothing lost
    assert nmi(view, C, suppressed="drop") == pytest.approx(1.0)


def test_as_root_joins_the_columns_root_value():
    # B is at its root for the kept rows; suppressed rows keep leaf codes that would inform about C
    sup = np.array([True, True, False, False, False, False, False, False])
    b_rel = np.where(sup, B, 2)
    b_height = np.where(sup, 0, 1)
    view = _view(_col("A", A, A, np.zeros(8), 2), _col("B", B, b_rel, b_height, 1), suppressed=sup)
    assert nmi_columns(view, C)[1] == 0.0
    # A has no kept cell at its root: suppressed rows 0 and 1 share a fresh code; both have A = 0, so the
    # released A carries the same information as the original
    assert nmi_columns(view, C)[0] == pytest.approx(1.0)


def test_drop_everything_suppressed_is_zero():
    view = Generalized(_bottom().columns, np.ones(8, dtype=bool), 2)
    assert nmi(view, C, suppressed="drop") == 0.0
    assert nmi(view, C, joint=False, suppressed="drop") == 0.0
    assert nmi(view, C, suppressed="as_root") == 0.0  # everyone shares the root tuple


# --------------------------------------------------------------------------------------- adjusted, bias
def test_adjusted_random_release_near_zero():
    rng = np.random.default_rng(7)
    n = 3000
    a = rng.integers(0, 20, n)
    c = np.where(rng.random(n) < 0.6, (a >= 10).astype(int), rng.integers(0, 2, n))
    noise = rng.integers(0, 20, n)  # a released column unrelated to the data
    view = _view(_col("A", a, noise, np.zeros(n), 1))
    plain, adjusted = nmi(view, c), nmi(view, c, adjusted=True)
    assert 0.0 <= adjusted <= 1.0
    assert adjusted == pytest.approx(0.0, abs=0.02)
    assert plain > adjusted  # the plug-in MI of noise is its (positive) bias
    assert adjusted == pytest.approx(
        min(max(adjusted_mutual_info_score(c, noise) / adjusted_mutual_info_score(c, a), 0.0), 1.0))


def test_plugin_mi_bias():
    assert plugin_mi_bias(A, C) == pytest.approx(3 * 1 / (2 * 8 * math.log(2)))
    assert plugin_mi_bias(np.array([]), np.array([])) == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="suppressed"):
        nmi(_node(), C, suppressed="ignore")
    with pytest.raises(ValueError, match="records"):
        nmi(_node(), C[:5])
