"""Information measures of Katirai 2006 (§2.3 Method 2 "Col-MI", §2.3.2 MI ratio, §2.4 Method 3 "Value-MI").

Both need the prediction target C (codes, one per record); probabilities are plug-in frequency estimates
from the table (Katirai §2.3), logarithms base 2.

- ``mutual_information(X, C)``: ``MI(X;C) = Σ_{x,c} p(x,c) log2(p(x,c) / (p(x) p(c)))`` in bits.
- ``mi_ratio(X, C)``: Katirai's "mutual information gain" ``MI(X;C) / MI(X_random;C)``, X_random uniform over
  as many values as X has; the thesis averages 10 draws without saying of what: here the **mean of
  MI(X_random;C)** over ``runs`` draws is the denominator (one ratio, not a mean of ratios).
- ``col_mi``: Vinterbo-1.0 with column weights, ``Σ_i Σ_j w_j · h_ij / M_j``, ``w_j`` from the ORIGINAL data.
  The thesis text defines ``w_j = MI(X_j; C)`` (the default, ``kind="mi"``); its example weights (Gender
  988.8, Age 3.02, ...) are MI ratios (digest §2.3, erratum 21): ``kind="mi_ratio"`` reproduces those.
- ``pmi`` (Value-MI): each released cell scored ``−|PMI(g, c)|`` with ``PMI(g, c) = log2(p(g,c) / (p(g) p(c)))``,
  summed over cells. p(g) is the share of ALL records whose original value lies under the released value g
  (the thesis' augmented table, §1.9: "we also added implied rows to form an augmented table ... This
  allowed us to calculate a mutual information score for each level of generalization in all Posets"),
  so the root / a suppressed cell has p = 1 and scores 0, the worst score; informative values, associated
  or disassociated, score below 0. The local engine minimizes exactly these cell scores
  (``pmi_node_costs``), and the reported measure reads the same augmented table from the release's view
  (``GeneralizedColumn.counts_under``), for local and lattice releases alike. It is not monotone in
  generalization (the thesis relaxes monotonicity for it): never prune on it.

The thesis leaves the target value c open (digest §2.4): ``target_value=None`` (default) takes the target
code of the LESS frequent class (the "positive class", e.g. ``high_expense = 1``; ties: the larger code),
an explicit code takes that class, ``"sum"`` scores ``−Σ_c |PMI(g,c)|`` (digest option b) and
``"expected"`` scores ``−Σ_c p(c|g) |PMI(g,c)|`` (option c, g's contribution to MI).

PMI smoothing: a plug-in PMI is −∞ for a value never seen with c (common on real data: a rare leaf with no
positive record), which would make the sum −∞. ``alpha`` adds that many pseudo-records per target class to
every value's class counts and to the marginal, ``p(c|g) = (N(g,c) + α) / (N(g) + α·K)`` and
``p(c) = (N(c) + α) / (n + α·K)``, ``PMI = log2(p(c|g) / p(c))``: finite, and still exactly 0 at the root.
The default ``alpha=0.5`` (Jeffreys) is a workbench choice, not the thesis'; ``alpha=0`` is the plug-in.

The thesis also dropped values seen fewer than 6 times before computing MI (§5.3); ``min_count`` (default 1:
nothing dropped) does that for the MI functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from measures._node import NodeClasses
from measures._view import Generalized, GeneralizedColumn

TargetValue = int | str | None

_KINDS = ("mi", "mi_ratio")


# ------------------------------------------------------------------------------------------------ helpers
def _factorize(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(unique values, inverse codes 0..u-1) of a 1-d array."""
    uniq, inverse = np.unique(np.asarray(a).reshape(-1), return_inverse=True)
    return uniq, inverse.reshape(-1).astype(np.int64)


def _pair(x_codes: np.ndarray, target_codes: np.ndarray, min_count: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x_codes).reshape(-1)
    c = np.asarray(target_codes).reshape(-1)
    if x.size != c.size:
        raise ValueError(f"x has {x.size} records but the target has {c.size}")
    if min_count > 1 and x.size:
        _, xi = _factorize(x)
        keep = np.bincount(xi)[xi] >= min_count
        x, c = x[keep], c[keep]
    return x, c


def _mi_bits(x: np.ndarray, c: np.ndarray) -> float:
    n = x.size
    if n == 0:
        return 0.0
    _, xi = _factorize(x)
    _, ci = _factorize(c)
    nx, nc = int(xi.max()) + 1, int(ci.max()) + 1
    joint = np.bincount(xi * nc + ci, minlength=nx * nc).reshape(nx, nc).astype(float)
    expected = np.outer(joint.sum(axis=1), joint.sum(axis=0))
    nz = joint > 0
    mi = float(np.sum(joint[nz] * np.log2(joint[nz] * n / expected[nz])) / n)
    return max(mi, 0.0)  # rounding can leave −1e-17 for independent columns


# ------------------------------------------------------------------------------------------ MI, MI ratio
def mutual_information(x_codes: np.ndarray, target_codes: np.ndarray, min_count: int = 1) -> float:
    """Plug-in ``MI(X;C)`` in bits (Katirai 2006 §2.3): sklearn's ``mutual_info_score`` / ln 2 up to rounding
    (within 1e-14, not bit for bit, so it is kept: the Col-MI weights and NMI values stay as they were).

    Codes may be any hashable labels. Records whose X value occurs fewer than ``min_count`` times are left
    out first (Katirai §5.3 used 6; default 1 keeps all)."""
    return _mi_bits(*_pair(x_codes, target_codes, min_count))


def mi_ratio(x_codes: np.ndarray, target_codes: np.ndarray, runs: int = 10, seed: int = 0,
             min_count: int = 1) -> float:
    """Katirai's "mutual information gain" (§2.3.2): ``MI(X;C) / mean_runs MI(X_random;C)``.

    X_random is drawn uniformly (seeded, ``np.random.default_rng(seed)``) over as many distinct values as X
    has, one per record; the average is over MI_random, the denominator (the thesis does not say which it
    averaged). The thesis kept fields with a ratio ≥ 2. A constant X (or target) gives 0.0; a positive MI
    against a zero random baseline (tiny tables only) gives ``inf``."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    x, c = _pair(x_codes, target_codes, min_count)
    mi = _mi_bits(x, c)
    if mi == 0.0:
        return 0.0
    m = int(np.unique(x).size)
    rng = np.random.default_rng(seed)
    baseline = float(np.mean([_mi_bits(rng.integers(0, m, size=x.size), c) for _ in range(runs)]))
    return mi / baseline if baseline > 0 else math.inf


def column_weights(view_original_codes: Sequence[np.ndarray], target_codes: np.ndarray, kind: str = "mi",
                   runs: int = 10, seed: int = 0, min_count: int = 1) -> np.ndarray:
    """Col-MI weight of every quasi-identifier, from its ORIGINAL codes and the target (Katirai §2.3).

    ``kind="mi"`` (default): ``w_j = MI(X_j; C)`` in bits, the thesis' definition. ``kind="mi_ratio"``:
    ``w_j = mi_ratio(X_j, C)``, what the thesis' example weights are (digest §2.3, erratum 21)."""
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    if kind == "mi":
        return np.array([mutual_information(x, target_codes, min_count) for x in view_original_codes], float)
    return np.array([mi_ratio(x, target_codes, runs, seed, min_count) for x in view_original_codes], float)


# ------------------------------------------------------------------------------------------------ Col-MI
def col_mi(view: Generalized, target_codes: np.ndarray, kind: str = "mi", weights: np.ndarray | None = None,
           runs: int = 10, seed: int = 0, min_count: int = 1) -> float:
    """Col-MI (Katirai 2006 §2.3, Method 2): ``Σ_i Σ_j w_j · h_ij / M_j``.

    Vinterbo-1.0 (``measures.hierarchy_weights.vinterbo``: every cell by its height, a column of height 0
    costs 0) with column weights ``column_weights(original codes, target, kind)``. Pass ``weights`` to reuse
    weights already computed (they depend on the original data and the target only, not on the release)."""
    if weights is None:
        weights = column_weights([c.original for c in view.columns], target_codes, kind, runs, seed, min_count)
    weights = np.asarray(weights, dtype=float)
    if weights.size != view.r:
        raise ValueError(f"{weights.size} weights for {view.r} quasi-identifiers")
    return float(sum(w * np.sum(c.height) / c.max_height
                     for w, c in zip(weights, view.columns, strict=True) if c.max_height > 0))


def col_mi_node(node: NodeClasses, weights: np.ndarray) -> float:
    """Lattice fast path of ``col_mi`` at a full-domain node (as ``vinterbo_node``): ``n · Σ_j w_j v_j / H_j``."""
    weights = np.asarray(weights, dtype=float)
    if weights.size != node.r:
        raise ValueError(f"{weights.size} weights for {node.r} quasi-identifiers")
    return float(node.n * sum(w * v / H for w, v, H in zip(weights, node.levels, node.max_heights, strict=True)
                              if H > 0))


# ------------------------------------------------------------------------------------------- Value-MI/PMI
def _target_index(classes: np.ndarray, class_counts: np.ndarray, target_value: TargetValue) -> int | str:
    """Column of the target class used (or "sum" / "expected")."""
    if isinstance(target_value, str) and target_value in ("sum", "expected"):
        return target_value
    if target_value is None or (isinstance(target_value, str) and target_value == "positive class"):
        return int(np.flatnonzero(class_counts == class_counts.min())[-1])  # less frequent; ties: larger code
    hits = [i for i, c in enumerate(classes.tolist()) if c == target_value]
    if not hits:
        raise ValueError(f"target_value must be None, 'positive class', 'sum', 'expected' or a target code "
                         f"({classes.tolist()}); got {target_value!r}")
    return hits[0]


def _pmi_scores(support: np.ndarray, joint: np.ndarray, class_counts: np.ndarray, which: int | str,
                alpha: float) -> np.ndarray:
    """Cell score −|PMI| (or its sum / expectation over classes) of values with ``support[g]`` records under
    them, ``joint[g, c]`` of them in class c; ``class_counts`` over all n records."""
    if alpha < 0:
        raise ValueError("alpha must be ≥ 0")
    K = class_counts.size
    n = float(class_counts.sum())
    support = support.astype(float)
    joint = joint.astype(float)
    p_c = (class_counts + alpha) / (n + alpha * K)
    seen = support > 0  # a value with no record under it carries no evidence: score 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p_c_given_g = (joint + alpha) / (support + alpha * K)[:, None]
        pmi = np.log2(p_c_given_g / p_c[None, :])
        pmi[~seen] = 0.0
        abs_pmi = np.abs(pmi)
        if which == "sum":
            out = abs_pmi.sum(axis=1)
        elif which == "expected":  # p log p → 0: a class never seen with g adds nothing even when alpha = 0
            out = np.nansum(np.where(abs_pmi > 0, p_c_given_g * abs_pmi, 0.0), axis=1)
        else:
            out = abs_pmi[:, which]
    return -out


def _prepare_target(target_codes: np.ndarray, n: int, target_value: TargetValue
                    ) -> tuple[np.ndarray, np.ndarray, int | str]:
    classes, y = _factorize(target_codes)
    if y.size != n:
        raise ValueError(f"the target has {y.size} records, expected {n}")
    class_counts = np.bincount(y, minlength=classes.size)
    return y, class_counts, _target_index(classes, class_counts, target_value)


def pmi_cell_scores(covered: np.ndarray, target_codes: np.ndarray, target_value: TargetValue = None,
                    alpha: float = 0.5) -> np.ndarray:
    """Value-MI score ``−|PMI(g, c)|`` of every value g (Katirai 2006 §2.4).

    ``covered[g, i]`` (values × records, bool): record i counts under value g, so
    ``p(g) = mean_i covered[g, i]`` and ``p(g, c)`` the same among class-c records over n. A row covering
    every record (the root, a suppressed value) scores 0. See the module text for ``target_value`` and
    ``alpha``."""
    covered = np.asarray(covered, dtype=bool)
    if covered.ndim != 2:
        raise ValueError("covered must be a (values × records) boolean matrix")
    if covered.shape[1] == 0:
        return np.zeros(covered.shape[0])
    y, class_counts, which = _prepare_target(target_codes, covered.shape[1], target_value)
    joint = np.stack([covered[:, y == c].sum(axis=1) for c in range(class_counts.size)], axis=1)
    return _pmi_scores(covered.sum(axis=1), joint, class_counts, which, alpha)


def pmi_node_costs(under: np.ndarray, original_codes_per_record: np.ndarray, target_codes: np.ndarray,
                   target_value: TargetValue = None, alpha: float = 0.5) -> np.ndarray:
    """Value-MI cell score of every node of a poset, for an engine minimizing PMI (per-node cost table).

    ``under[v, o]`` (nodes × original codes, bool): node v generalizes original code o (a leaf covers itself,
    the root covers all); ``original_codes_per_record[i]`` in 0..m-1. Equals ``pmi_cell_scores`` with
    ``covered = under[:, original_codes_per_record]``, computed from per-code counts. The costs are ≤ 0 and
    not monotone up the poset: do not assume ``cost ≥ 0`` or that a parent costs more than its children."""
    under = np.asarray(under, dtype=bool)
    original = np.asarray(original_codes_per_record, dtype=np.int64).reshape(-1)
    if under.ndim != 2:
        raise ValueError("under must be a (nodes × original codes) boolean matrix")
    if original.size and (original.min() < 0 or original.max() >= under.shape[1]):
        raise ValueError(f"original codes must lie in 0..{under.shape[1] - 1}")
    if original.size == 0:
        return np.zeros(under.shape[0])
    y, class_counts, which = _prepare_target(target_codes, original.size, target_value)
    K = class_counts.size
    per_code = np.bincount(original * K + y, minlength=under.shape[1] * K).reshape(under.shape[1], K)
    joint = under.astype(float) @ per_code
    return _pmi_scores(joint.sum(axis=1), joint, class_counts, which, alpha)


def pmi_interval_costs(lo: np.ndarray, hi: np.ndarray, point_per_record: np.ndarray, target_codes: np.ndarray,
                       target_value: TargetValue = None, alpha: float = 0.5, n_points: int | None = None
                       ) -> np.ndarray:
    """Value-MI cell score of intervals ``[lo, hi]`` (inclusive) over ordered points (a range poset).

    ``point_per_record[i]`` = index of record i's original value among the ordered points (0..n_points-1);
    interval g covers the points lo[g]..hi[g]. Equals ``pmi_node_costs`` with the matching ``under`` matrix,
    from cumulative per-class counts (no nodes × points matrix)."""
    lo = np.asarray(lo, dtype=np.int64).reshape(-1)
    hi = np.asarray(hi, dtype=np.int64).reshape(-1)
    point = np.asarray(point_per_record, dtype=np.int64).reshape(-1)
    if lo.shape != hi.shape:
        raise ValueError("lo and hi must have the same length")
    if point.size == 0:
        return np.zeros(lo.size)
    P = int(point.max()) + 1 if n_points is None else n_points
    if point.min() < 0 or point.max() >= P or (lo.size and (lo.min() < 0 or hi.max() >= P)):
        raise ValueError(f"point indices must lie in 0..{P - 1}")
    y, class_counts, which = _prepare_target(target_codes, point.size, target_value)
    K = class_counts.size
    per_point = np.bincount(point * K + y, minlength=P * K).reshape(P, K)
    cumulative = np.vstack([np.zeros((1, K), dtype=np.int64), np.cumsum(per_point, axis=0)])
    joint = np.where((hi >= lo)[:, None], cumulative[hi + 1] - cumulative[lo], 0)
    return _pmi_scores(joint.sum(axis=1), joint, class_counts, which, alpha)


def column_pmi_scores(col: GeneralizedColumn, target_codes: np.ndarray, target_value: TargetValue = None,
                      alpha: float = 0.5) -> np.ndarray:
    """Value-MI score of every released code of one column, on Katirai's augmented table (§1.9): p(g) is
    the share of ALL records whose original value lies under g (``GeneralizedColumn.counts_under``), not of
    the records released as g. This is the cost the local engine minimizes (``pmi_node_costs`` over the
    poset's cover matrix): the same numbers, for any release of either engine."""
    if col.original.size == 0:
        return np.zeros(max(int(col.leaf_count.size), 1))
    y, class_counts, which = _prepare_target(target_codes, col.original.size, target_value)
    joint = col.counts_under(y, class_counts.size)
    return _pmi_scores(joint.sum(axis=1), joint, class_counts, which, alpha)


def pmi(view: Generalized, target_codes: np.ndarray, target_value: TargetValue = None, alpha: float = 0.5) -> float:
    """Value-MI / PMI (Katirai 2006 §2.4, Method 3): ``Σ_i Σ_j −|PMI(g_ij, c)|`` (≤ 0, lower is better).

    ``g_ij`` is record i's released value in column j, scored on the augmented table
    (``column_pmi_scores``): the root ``*`` covers every record, so p(*) = 1 and it scores 0, the worst; a
    suppressed record's cells are the root and score 0. Not monotone in generalization."""
    kept = ~view.suppressed
    total = 0.0
    for col in view.columns:
        scores = column_pmi_scores(col, target_codes, target_value, alpha)
        total += float(np.sum(scores[col.released[kept]]))
    return total


def under_from_levels(level_codes: np.ndarray, sizes: Sequence[int] | None = None) -> np.ndarray:
    """Cover matrix of a full-domain hierarchy in the lattice release's column-wide code space.

    ``level_codes[o, l]`` = code of original value o's level-l ancestor; level l's codes are numbered from
    ``offset_l = Σ_{l' < l} sizes[l']`` (``sizes[l]`` = values at level l, default ``max code + 1``), so
    ``under[offset_l + level_codes[o, l], o] = True``."""
    level_codes = np.asarray(level_codes, dtype=np.int64)
    m, levels = level_codes.shape
    if sizes is None:
        sizes = [int(level_codes[:, lv].max()) + 1 if m else 0 for lv in range(levels)]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    under = np.zeros((int(offsets[-1]), m), dtype=bool)
    for lv in range(levels):
        under[offsets[lv] + level_codes[:, lv], np.arange(m)] = True
    return under
