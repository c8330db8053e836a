"""``nmi``: how much of the quasi-identifiers' information about the target survives the release (docs/measures.md).

``nmi = MI(released QIs; C) / MI(original QIs; C)``, C the target (codes, one per record), MI the plug-in
mutual information in bits, ``MI(X;C) = Σ_{x,c} p(x,c) log2(p(x,c) / (p(x) p(c)))`` (Cover & Thomas 2006
§2.3; Katirai 2006 §2.3), computed by ``information_weights.mutual_information``. 1 = nothing lost, 0 = the
release says nothing about the target. Higher is better: it is a utility, not a loss.

- Joint (``joint=True``, default): the tuple of a record's quasi-identifier codes is one variable X (the
  distinct tuples of the stacked codes). Per column (``nmi_columns``): one ratio per quasi-identifier,
  ``MI(X_j released; C) / MI(X_j original; C)``; ``nmi(..., joint=False)`` is the unweighted mean of those.
  Under full-domain recoding without suppression the released value is a function of the original one,
  so by the data processing inequality (Cover & Thomas §2.8) each plug-in ratio is in [0, 1]; under local
  recoding (one original value released two ways) or with suppressed records kept as one value (the fact
  of suppression can carry information) a ratio can exceed 1. Every ratio is clipped to [0, 1].
- ``MI(original; C) = 0`` (a constant target, or quasi-identifiers independent of it): nothing to lose,
  nmi = 1.0.
- Suppressed records (``suppressed=``):
  ``"as_root"`` (default): a suppressed record's quasi-identifiers carry no information: in every column its
  released value is the column's root, i.e. the code that cells released at the top of the hierarchy
  (``height == max_height``) carry, or a fresh code shared by all suppressed records when no cell is at
  the root (or the column has no hierarchy above the leaves). All suppressed records thus share one
  released tuple; the fact of suppression may still tell something about C. The original side uses
  every record.
  ``"drop"``: both MIs on the non-suppressed records only (what survives, relative to the same records
  before generalization); if every record is suppressed, nmi = 0.0 (nothing released).
- Bias of the joint estimate: the plug-in MI is biased upward, by about the Miller–Madow term
  ``(|X| − 1)(|C| − 1) / (2 N ln 2)`` bits (``plugin_mi_bias``; Miller 1955, Paninski 2003). On the original
  data the quasi-identifier tuples are often nearly unique (|X| ≈ N), so the joint denominator is inflated
  towards H(C); the numerator's bias shrinks as generalization merges tuples. So a generalization that
  loses no real information still scores below 1, and one that keeps none of it (short of the root) above 0: the plug-in
  nmi is compressed and mostly measures the number of distinct tuples. The per-column ratios (few values
  per column) are far less biased. ``adjusted=True`` replaces both MIs by sklearn's
  ``adjusted_mutual_info_score`` (AMI, Vinh, Epps & Bailey 2010: MI corrected for its expectation under
  random labelings with the same marginals, then normalized by the mean entropy), i.e. chance-corrected;
  the ratio ``AMI(released) / AMI(original)`` is clipped to [0, 1] (AMI can be negative, and its
  normalizer differs between the two sides, so the ratio is not bounded by construction). If
  ``AMI(original) ≤ 0`` nmi = 1.0 (nothing above chance to lose); in particular when every original
  quasi-identifier tuple is unique (AMI = 0 exactly), the adjusted joint nmi is 1.0 at every node, the
  root included: on nearly unique tables prefer the per-column adjusted variant. AMI costs roughly
  O(N·|X|·|C|) time: slow for nearly unique joint tuples on large tables.
"""

from __future__ import annotations

import math

import numpy as np

from measures._view import Generalized, GeneralizedColumn, tuple_codes
from measures.information_weights import mutual_information

SUPPRESSED_POLICIES = ("as_root", "drop")


# ------------------------------------------------------------------------------------------------ helpers
def _root_code(col: GeneralizedColumn, kept: np.ndarray) -> int:
    """The code of column ``col``'s root value: that of a kept cell at ``height == max_height`` (max_height > 0),
    else a fresh code no cell uses."""
    if col.max_height > 0:
        at_root = kept & (col.height == col.max_height)
        if at_root.any():
            return int(col.released[np.flatnonzero(at_root)[0]])
    return int(col.released.max()) + 1 if col.released.size else 0


def _sides(view: Generalized, target_codes: np.ndarray, suppressed: str
           ) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """(original code arrays, released code arrays, target) per the suppressed-record policy."""
    if suppressed not in SUPPRESSED_POLICIES:
        raise ValueError(f"suppressed must be one of {SUPPRESSED_POLICIES}, got {suppressed!r}")
    c = np.asarray(target_codes).reshape(-1)
    if c.size != view.n:
        raise ValueError(f"the view has {view.n} records but the target has {c.size}")
    sup = view.suppressed
    if suppressed == "drop":
        kept = ~sup
        return ([col.original[kept] for col in view.columns], [col.released[kept] for col in view.columns],
                c[kept])
    released = []
    for col in view.columns:
        codes = col.released
        if sup.any():
            codes = codes.copy()
            codes[sup] = _root_code(col, ~sup)
        released.append(codes)
    return [col.original for col in view.columns], released, c


def _mi(x: np.ndarray, c: np.ndarray, adjusted: bool) -> float:
    if not adjusted:
        return mutual_information(x, c)
    from sklearn.metrics import adjusted_mutual_info_score

    if np.unique(x).size <= 1 or np.unique(c).size <= 1:
        return 0.0  # sklearn returns 1.0 when both are constant; a constant carries no information
    return float(adjusted_mutual_info_score(c, x))


def _ratio(x_released: np.ndarray, x_original: np.ndarray, c: np.ndarray, adjusted: bool) -> float:
    if c.size == 0:
        return 0.0  # "drop" with every record suppressed: nothing released
    denominator = _mi(x_original, c, adjusted)
    if denominator <= 1e-12:
        return 1.0  # nothing to lose
    return float(min(max(_mi(x_released, c, adjusted) / denominator, 0.0), 1.0))


# --------------------------------------------------------------------------------------------- measures
def nmi_columns(view: Generalized, target_codes: np.ndarray, adjusted: bool = False,
                suppressed: str = "as_root") -> np.ndarray:
    """Per quasi-identifier ``MI(X_j released; C) / MI(X_j original; C)``, each in [0, 1] (module docstring)."""
    originals, releaseds, c = _sides(view, target_codes, suppressed)
    return np.array([_ratio(r, o, c, adjusted) for o, r in zip(originals, releaseds, strict=True)], dtype=float)


def nmi(view: Generalized, target_codes: np.ndarray, joint: bool = True, adjusted: bool = False,
        suppressed: str = "as_root") -> float:
    """Normalized mutual information with the target, in [0, 1], higher is better (1 = nothing lost).

    ``joint=True`` (default): ``MI(released QI tuple; C) / MI(original QI tuple; C)``. ``joint=False``: the
    mean of ``nmi_columns`` (as joint with no quasi-identifiers). ``adjusted``: sklearn's chance-adjusted MI on
    both sides. ``suppressed``: ``"as_root"`` (default) or ``"drop"``. See the module docstring."""
    if not joint and view.r > 0:
        return float(nmi_columns(view, target_codes, adjusted, suppressed).mean())
    originals, releaseds, c = _sides(view, target_codes, suppressed)
    return _ratio(tuple_codes(releaseds, c.size), tuple_codes(originals, c.size), c, adjusted)


def plugin_mi_bias(x_codes: np.ndarray, target_codes: np.ndarray) -> float:
    """Miller–Madow estimate of the upward bias of the plug-in MI, in bits: ``(|X| − 1)(|C| − 1) / (2 N ln 2)``
    with |X|, |C| the observed distinct values and N the records (0.0 for no records)."""
    x = np.asarray(x_codes).reshape(-1)
    c = np.asarray(target_codes).reshape(-1)
    if x.size != c.size:
        raise ValueError(f"x has {x.size} records but the target has {c.size}")
    if x.size == 0:
        return 0.0
    return (np.unique(x).size - 1) * (np.unique(c).size - 1) / (2 * x.size * math.log(2))


def joint_codes(view: Generalized, released: bool = True) -> np.ndarray:
    """One code per record for its tuple of released (or original) quasi-identifier codes (no suppression
    policy applied): the X of the joint nmi, e.g. for ``plugin_mi_bias``."""
    return tuple_codes([col.released if released else col.original for col in view.columns], view.n)
