"""Model degradation (Katirai 2006): how much worse a classifier does when trained on the release.

Katirai (2006) argues that the most defensible measure of a de-identification's information loss is the loss
in what the data is used for: a model built from the released data, compared with the same model built from
the original data. ``degradation`` runs one protocol for both tables:

* stratified k-fold (``StratifiedKFold(shuffle=True, random_state=...)``), the SAME folds for the original and
  the released table; each classifier is trained on the training folds and predicts the held-out fold, and the
  metrics are computed once on the pooled out-of-fold predictions of all n records;
* per classifier: accuracy, balanced accuracy, AUC (binary: ``roc_auc_score`` of the positive-class
  probability, the positive class being the larger label; multiclass: one-vs-rest macro) and F1 (binary: of the
  less frequent class; multiclass: macro), for the original and the released data, their drop
  (original − released, so a positive drop is a loss) and ``agreement``, the share of records whose
  out-of-fold prediction from the release-trained model equals the one from the original-trained model.

Classifiers: ``zeror`` (the training folds' majority class; its scores are uniform, so its AUC is exactly 0.5,
and it ignores the features, so its drops are 0), ``logistic``, ``random_forest`` and ``naive_bayes``
(scikit-learn ``LogisticRegression``, ``RandomForestClassifier``, ``BernoulliNB`` on one-hot encoded values,
``OneHotEncoder(handle_unknown="ignore")`` fitted on the training fold) and ``bayes_net`` (pgmpy: a TAN
structure from ``TreeSearch(estimator_type="tan")``, CPDs from ``DiscreteBayesianEstimator`` with a BDeu prior,
posteriors of the class from ``VariableElimination``).

Suppressed records — policy "missing". A suppressed record's released cells carry no information, whatever
they hold. For the scikit-learn models its one-hot row is all zeros (as for an unknown category), in the
training folds and in the held-out fold alike; the encoder's categories come from the non-suppressed training
rows only. For the Bayesian network its feature cells are missing: it is left out of the structure search, its
class still counts in the class CPD (pgmpy skips a CPD's rows with a missing cell), and at prediction time it
gives no evidence, so it is predicted from the class prior. A value the training fold never saw is likewise
dropped from the evidence (one-hot: all-zero block). The original table is never suppressed.

This module never imports ``workbench``; scikit-learn and pgmpy are imported on first use (a server that never
runs model degradation does not hold them in memory).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

CLASSIFIERS = ("zeror", "logistic", "random_forest", "naive_bayes", "bayes_net")
METRICS = ("accuracy", "balanced_accuracy", "auc", "f1")
COLUMNS = ["classifier", *(f"{m}_{s}" for m in METRICS for s in ("original", "released", "drop")), "agreement"]

_CLASS = "__class__"  # the BN's class node; the features are renamed x0, x1, ...


# --------------------------------------------------------------------------------------------- classifiers
# Each fitter takes (X_train, y_train, X_test, missing_train, missing_test, n_classes, random_state), with X as
# an (n, r) array of str, y as class codes 0..K-1 and ``missing`` the records whose cells carry no information,
# and returns the (n_test, K) class-probability matrix.

FitPredict = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int], np.ndarray]


def _zeror(X_tr, y_tr, X_te, miss_tr, miss_te, K, seed) -> np.ndarray:
    """Uniform scores (so AUC is exactly 0.5); the prediction, the training folds' majority, is set apart."""
    return np.full((len(X_te), K), 1.0 / K)


def _majority(y_tr: np.ndarray, K: int) -> int:
    return int(np.argmax(np.bincount(y_tr, minlength=K)))


def _one_hot(X_tr, X_te, miss_tr, miss_te):
    """One-hot encodings of the training and held-out rows as sparse CSR matrices (a table with a thousand distinct
    values would otherwise hold a dense float matrix a thousand columns wide); a missing record's row is all zeros."""
    from scipy import sparse
    from sklearn.preprocessing import OneHotEncoder

    enc = OneHotEncoder(handle_unknown="ignore", sparse_output=True, dtype=np.float64)
    enc.fit(X_tr[~miss_tr] if (~miss_tr).any() else X_tr)
    with warnings.catch_warnings():  # unknown categories are the policy, not a surprise
        warnings.simplefilter("ignore", UserWarning)
        A, B = enc.transform(X_tr), enc.transform(X_te)
    keep_tr, keep_te = sparse.diags((~miss_tr).astype(np.float64)), sparse.diags((~miss_te).astype(np.float64))
    return (keep_tr @ A).tocsr(), (keep_te @ B).tocsr()


def _sklearn(make: Callable[[int], object]) -> FitPredict:
    def fit_predict(X_tr, y_tr, X_te, miss_tr, miss_te, K, seed) -> np.ndarray:
        A, B = _one_hot(X_tr, X_te, miss_tr, miss_te)
        model = make(seed)
        model.fit(A, y_tr)
        P = np.zeros((len(X_te), K))
        P[:, model.classes_] = model.predict_proba(B)  # a class missing from the training folds gets 0
        return P

    return fit_predict


def _bayes_net(X_tr, y_tr, X_te, miss_tr, miss_te, K, seed) -> np.ndarray:
    """TAN (naive Bayes with one feature) with BDeu CPDs; evidence = the record's seen, non-missing cells."""
    with warnings.catch_warnings():  # pgmpy 1.1 warns about its own deprecated re-exports on import
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.estimators import TreeSearch
        from pgmpy.inference import VariableElimination
        from pgmpy.models import DiscreteBayesianNetwork
        from pgmpy.parameter_estimator import DiscreteBayesianEstimator

    r = X_tr.shape[1]
    names = [f"x{j}" for j in range(r)]
    classes = [str(c) for c in range(K)]
    complete = ~miss_tr
    if r == 0 or not complete.any():  # no feature information at all: the smoothed class prior
        prior = np.bincount(y_tr, minlength=K) + 1.0
        return np.tile(prior / prior.sum(), (len(X_te), 1))

    data = pd.DataFrame(X_tr, columns=names).astype(object)
    data.loc[miss_tr, names] = np.nan
    data[_CLASS] = np.array(classes, dtype=object)[y_tr]
    states = {v: sorted(data.loc[complete, v].unique()) for v in names}
    states[_CLASS] = classes

    if r >= 2:
        search = TreeSearch(data.loc[complete], root_node=names[0], n_jobs=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            edges = list(search.estimate(estimator_type="tan", class_node=_CLASS, show_progress=False).edges())
    else:
        edges = [(_CLASS, names[0])]
    model = DiscreteBayesianNetwork(edges)
    model.add_nodes_from([*names, _CLASS])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(data, estimator=DiscreteBayesianEstimator(state_names=states, prior_type="BDeu",
                                                            equivalent_sample_size=5))
    infer = VariableElimination(model)

    # evidence per test record: its non-missing cells with a value seen in training; one query per distinct tuple
    seen = [set(states[v]) for v in names]
    keys = [
        () if miss else tuple((j, x) for j, x in enumerate(row) if x in seen[j])
        for row, miss in zip(X_te, miss_te, strict=True)
    ]
    cache: dict[tuple, np.ndarray] = {}
    P = np.empty((len(X_te), K))
    for i, key in enumerate(keys):
        if key not in cache:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                q = infer.query([_CLASS], evidence={names[j]: x for j, x in key}, show_progress=False)
            order = [q.state_names[_CLASS].index(c) for c in classes]
            p = np.asarray(q.values, dtype=float)[order]
            cache[key] = p / p.sum()
        P[i] = cache[key]
    return P


def _model(module: str, name: str) -> Callable[..., object]:
    """A scikit-learn estimator class, imported on first use."""
    import importlib

    return getattr(importlib.import_module(f"sklearn.{module}"), name)


_FITTERS: dict[str, FitPredict] = {
    "zeror": _zeror,
    "logistic": _sklearn(lambda seed: _model("linear_model", "LogisticRegression")(max_iter=1000)),
    "random_forest": _sklearn(lambda seed: _model("ensemble", "RandomForestClassifier")(
        n_estimators=100, random_state=seed, n_jobs=1)),
    "naive_bayes": _sklearn(lambda seed: _model("naive_bayes", "BernoulliNB")(alpha=1.0)),
    "bayes_net": _bayes_net,
}


# --------------------------------------------------------------------------------------------------- metrics


def _metrics(y: np.ndarray, P: np.ndarray, pred: np.ndarray, minority: int) -> dict[str, float]:
    """Metrics of pooled out-of-fold probabilities P (n, K) and predictions ``pred`` against class codes y."""
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score, roc_auc_score

    K = P.shape[1]
    if K == 2:
        auc = roc_auc_score(y, P[:, 1])
        f1 = f1_score(y, pred, pos_label=minority, average="binary", zero_division=0.0)
    else:
        Q = P / P.sum(axis=1, keepdims=True)
        auc = roc_auc_score(y, Q, multi_class="ovr", average="macro", labels=np.arange(K))
        f1 = f1_score(y, pred, average="macro", labels=np.arange(K), zero_division=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "y_pred contains classes not in y_true"
        bal = balanced_accuracy_score(y, pred)
    return {"accuracy": float(accuracy_score(y, pred)), "balanced_accuracy": float(bal),
            "auc": float(auc), "f1": float(f1)}


# ------------------------------------------------------------------------------------------------ the measure


def degradation(
    original: pd.DataFrame,
    released: pd.DataFrame,
    target: np.ndarray,
    suppressed: np.ndarray | None = None,
    classifiers: Sequence[str] = CLASSIFIERS,
    folds: int = 5,
    random_state: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Cross-validated model degradation of ``released`` against ``original`` (module docstring).

    ``original`` and ``released``: the quasi-identifiers, same rows and columns, cells read as text
    (``released`` holds generalized labels). ``target``: one label per row. ``suppressed``: bool mask of the
    released records that are suppressed (policy "missing"); None = none. ``classifiers``: a subset of
    ``CLASSIFIERS``; ``zeror`` is always included (first). ``progress(fraction, text)`` (the signature of
    ``workbench.study.Progress``) is called after each classifier × fold. Returns one row per classifier with
    the columns ``COLUMNS``.
    """
    n = len(original)
    if len(released) != n or len(target) != n:
        raise ValueError(f"original ({n}), released ({len(released)}) and target ({len(target)}) differ in length")
    if list(original.columns) != list(released.columns):
        raise ValueError("original and released must have the same columns")
    unknown = [c for c in classifiers if c not in _FITTERS]
    if unknown:
        raise ValueError(f"unknown classifiers {unknown}; known: {list(_FITTERS)}")
    names = ["zeror", *(c for c in dict.fromkeys(classifiers) if c != "zeror")]
    sup = np.zeros(n, dtype=bool) if suppressed is None else np.asarray(suppressed, dtype=bool)
    if sup.shape != (n,):
        raise ValueError(f"suppressed must be a bool mask of length {n}")

    labels, y = np.unique(np.asarray(target), return_inverse=True)
    K = len(labels)
    if K < 2:
        raise ValueError("the target needs at least two classes")
    counts = np.bincount(y, minlength=K)
    minority = int(np.argmin(counts))  # ties: the first (smallest) label
    if counts[minority] < folds:
        raise ValueError(f"the target's class {labels[minority]!r} has {counts[minority]} record(s) of {n:,}; "
                         f"stratified {folds}-fold cross-validation needs at least {folds} records in each of "
                         f"its {K:,} classes (a numeric target needs binning into categories first)")
    Xo = original.astype(str).to_numpy(dtype=object)
    Xr = released.astype(str).to_numpy(dtype=object)
    none = np.zeros(n, dtype=bool)
    from sklearn.model_selection import StratifiedKFold

    splits = list(StratifiedKFold(n_splits=folds, shuffle=True, random_state=random_state).split(np.zeros(n), y))

    rows = []
    total, done = len(names) * len(splits), 0
    for name in names:
        fit = _FITTERS[name]
        Po, Pr = np.zeros((n, K)), np.zeros((n, K))
        po, pr = np.zeros(n, dtype=int), np.zeros(n, dtype=int)
        for fold, (tr, te) in enumerate(splits, 1):
            Po[te] = fit(Xo[tr], y[tr], Xo[te], none[tr], none[te], K, random_state)
            Pr[te] = fit(Xr[tr], y[tr], Xr[te], sup[tr], sup[te], K, random_state)
            if name == "zeror":  # ignores the features: the same prediction from both tables
                po[te] = pr[te] = _majority(y[tr], K)
            else:  # prediction = the most probable class (ties: the smallest label)
                po[te], pr[te] = Po[te].argmax(axis=1), Pr[te].argmax(axis=1)
            done += 1
            if progress:
                progress(done / total, f"{name}: fold {fold} of {len(splits)}")
        mo, mr = _metrics(y, Po, po, minority), _metrics(y, Pr, pr, minority)
        row: dict[str, object] = {"classifier": name}
        for m in METRICS:
            row[f"{m}_original"], row[f"{m}_released"], row[f"{m}_drop"] = mo[m], mr[m], mo[m] - mr[m]
        row["agreement"] = float(np.mean(po == pr))
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)
