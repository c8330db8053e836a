"""The reduced Ayala-Rivera et al. 2014 comparison (studies/ayala_rivera_2014.py): every release verified
k-anonymous, Incognito and Flash on the same optimum, CAVG read off the class count, and the winners table."""

from __future__ import annotations

import pandas as pd

from workbench.experiments.ayala_rivera_2014 import comparison, winners


def test_the_reduced_comparison():
    df = comparison(ks=(5, 25), qi_counts=(3,))
    assert len(df) == 2 * 6 and df.k_anonymous.all()
    n = 30162  # Adult's records (ARX's version, without missing values)
    assert (df.cavg * df.k * df.classes).round(6).eq(n).all()  # no suppression: CAVG = (n / classes) / k
    metrics = ["loss", "dm", "cavg"]
    for _, part in df.groupby("k"):
        rows = part.set_index("algorithm")
        assert rows.loc["incognito", metrics].tolist() == rows.loc["flash", metrics].tolist()
        assert rows.loc["flash", "loss"] <= rows.loc["datafly", "loss"]  # Flash's node is the full-domain optimum
        assert rows.loc["mondrian", "loss"] < rows.loc["flash", "loss"]


def test_winners_lists_every_algorithm_at_the_lowest_value():
    df = pd.DataFrame({"quasi_identifiers": [3, 3, 3], "k": [2, 2, 2], "algorithm": ["a", "b", "c"],
                       "loss": [0.2, 0.1, 0.1], "dm": [5.0, 6.0, 7.0], "cavg": [1.0, 1.0, 1.0]})
    row = winners(df).iloc[0]
    assert (row.loss, row.dm, row.cavg) == ("b, c", "a", "a, b, c")
