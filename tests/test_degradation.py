"""Model degradation (measures/degradation.py): protocol, invariants and the suppressed-record policy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from measures.degradation import COLUMNS, METRICS, degradation

SKLEARN = ("logistic", "random_forest", "naive_bayes")
ALL = ("zeror", *SKLEARN, "bayes_net")


def _table(n: int = 600, seed: int = 7) -> tuple[pd.DataFrame, np.ndarray]:
    """Three categorical features with real signal for a binary target (about 35% positives)."""
    rng = np.random.default_rng(seed)
    a, b, c = rng.integers(0, 5, n), rng.integers(0, 4, n), rng.integers(0, 3, n)
    logit = 1.2 * (a - 2) + 0.9 * (b == 3) - 0.8 * (c == 0) - 0.7
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "pos", "neg")
    df = pd.DataFrame({"age": [f"a{v}" for v in a], "zip": [f"z{v}" for v in b], "sex": [f"s{v}" for v in c]})
    return df, y


def _generalize(df: pd.DataFrame) -> pd.DataFrame:
    """Coarsen 'age' into two ranges and hide 'sex' entirely."""
    out = df.copy()
    out["age"] = np.where(df["age"].isin(["a0", "a1", "a2"]), "a0-2", "a3-4")
    out["sex"] = "*"
    return out


@pytest.fixture(scope="module")
def data():
    return _table()


def _row(res: pd.DataFrame, clf: str) -> pd.Series:
    return res.set_index("classifier").loc[clf]


def test_shape_reproducible_and_progress(data):
    df, y = data
    rel = _generalize(df)
    seen: list[float] = []
    first = degradation(df, rel, y, np.zeros(len(df), bool), classifiers=ALL, random_state=3,
                      progress=lambda fraction, text: seen.append(fraction))
    again = degradation(df, rel, y, np.zeros(len(df), bool), classifiers=ALL, random_state=3)
    pd.testing.assert_frame_equal(first, again)
    assert list(first.columns) == COLUMNS
    assert list(first["classifier"]) == list(ALL)
    assert len(seen) == len(ALL) * 5 and seen[-1] == pytest.approx(1.0) and seen == sorted(seen)
    for m in METRICS:
        np.testing.assert_allclose(first[f"{m}_drop"], first[f"{m}_original"] - first[f"{m}_released"])
    assert _row(first, "zeror")["auc_original"] == 0.5
    assert _row(first, "zeror")["agreement"] == 1.0
    for clf in SKLEARN + ("bayes_net",):  # the features carry real signal
        assert _row(first, clf)["auc_original"] > 0.75


def test_zeror_always_included(data):
    df, y = data
    res = degradation(df, df, y, None, classifiers=("naive_bayes",), folds=3)
    assert list(res["classifier"]) == ["zeror", "naive_bayes"]


def test_identical_release_has_no_degradation(data):
    df, y = data
    res = degradation(df, df.copy(), y, np.zeros(len(df), bool), classifiers=ALL)
    for m in METRICS:
        assert (res[f"{m}_drop"] == 0.0).all(), m
    assert (res["agreement"] == 1.0).all()


def test_everything_generalized_away_is_zeror(data):
    df, y = data
    star = pd.DataFrame("*", index=df.index, columns=df.columns)
    res = degradation(df, star, y, np.zeros(len(df), bool), classifiers=ALL)
    zeror = _row(res, "zeror")["accuracy_released"]
    for clf in SKLEARN + ("bayes_net",):
        r = _row(res, clf)
        assert r["accuracy_released"] == pytest.approx(zeror, abs=0.02), clf
        assert r["auc_released"] == pytest.approx(0.5, abs=0.06), clf
        assert r["accuracy_drop"] > 0.05 and r["auc_drop"] > 0.2, clf


def test_bayes_net_predicts_with_missing_evidence(data):
    df, y = data
    rng = np.random.default_rng(0)
    sup = rng.random(len(df)) < 0.25
    rel = _generalize(df)
    rel.loc[sup] = "*"
    res = degradation(df, rel, y, sup, classifiers=("bayes_net",))
    bn, zeror = _row(res, "bayes_net"), _row(res, "zeror")
    assert bn["accuracy_original"] > zeror["accuracy_original"] + 0.05
    assert bn["accuracy_released"] > zeror["accuracy_released"]
    assert 0.5 < bn["auc_released"] < bn["auc_original"]
    assert 0.0 < bn["agreement"] < 1.0


def test_suppressed_cells_are_missing_whatever_they_hold(data):
    """Policy "missing": a suppressed record's released cells are ignored, so their content cannot matter."""
    df, y = data
    sup = np.random.default_rng(1).random(len(df)) < 0.2
    rel = _generalize(df)
    star, leak, junk = rel.copy(), rel.copy(), rel.copy()
    star.loc[sup] = "*"
    leak.loc[sup] = df.loc[sup].to_numpy()  # the original values, which must not be used
    junk.loc[sup] = "never-seen"
    a = degradation(df, star, y, sup, classifiers=ALL, folds=3)
    pd.testing.assert_frame_equal(a, degradation(df, leak, y, sup, classifiers=ALL, folds=3))
    pd.testing.assert_frame_equal(a, degradation(df, junk, y, sup, classifiers=ALL, folds=3))
    # and suppression costs something: the same release unsuppressed does at least as well for every model
    free = degradation(df, leak, y, np.zeros(len(df), bool), classifiers=ALL, folds=3)
    assert (free["auc_released"].iloc[1:].to_numpy() > a["auc_released"].iloc[1:].to_numpy()).all()


def test_all_suppressed_predicts_the_prior(data):
    df, y = data
    sup = np.ones(len(df), bool)
    res = degradation(df, df, y, sup, classifiers=ALL, folds=3)
    zeror = _row(res, "zeror")["accuracy_released"]
    for clf in SKLEARN + ("bayes_net",):
        assert _row(res, clf)["accuracy_released"] == pytest.approx(zeror, abs=0.02), clf
        assert _row(res, clf)["auc_released"] == pytest.approx(0.5, abs=0.06), clf


def test_multiclass_and_bad_input(data):
    df, _ = data
    y3 = np.array(["lo", "mid", "hi"])[df["age"].map({"a0": 0, "a1": 0, "a2": 1, "a3": 2, "a4": 2}).to_numpy()]
    res = degradation(df, _generalize(df), y3, None, classifiers=("logistic", "bayes_net"), folds=3)
    assert _row(res, "logistic")["auc_original"] > 0.95
    assert _row(res, "bayes_net")["accuracy_original"] > 0.9
    assert _row(res, "zeror")["auc_original"] == 0.5
    with pytest.raises(ValueError, match="unknown classifiers"):
        degradation(df, df, y3, None, classifiers=("svm",))
    with pytest.raises(ValueError, match="length"):
        degradation(df, df.iloc[:10], y3, None)
    continuous = np.arange(len(df)).astype(str)  # every record its own class: a numeric target left unbinned
    with pytest.raises(ValueError, match=f"needs at least 3 records in each of its {len(df):,} classes"):
        degradation(df, df, continuous, None, folds=3)
