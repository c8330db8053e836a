"""El Emam et al. 2009's comparison (Datafly, Samarati, OLA vs the optimum) on a reduced Adult grid."""

from __future__ import annotations

from tests.conftest import ROOT
from workbench.experiments.el_emam_2009 import comparison, finding_violations
from workbench.ui.charts import relative_loss_chart


def test_paper_finding_on_adult(adult_dataset):
    from workbench.config import load_study

    study = load_study(ROOT / "sample_configs" / "adult.toml")
    df = comparison(study, adult_dataset, ks=(2, 10), max_suppressions=(0.05,), datafly_runs=2)
    assert len(df) == 2 * 1 * 3 * 3
    assert finding_violations(df).empty, df
    ola = df[df.algorithm == "ola"]
    assert (ola.value == ola.optimum).all()
    assert (df[df.algorithm != "ola"].relative_loss_pct > 100).any()  # the heuristics do lose something
    spec = relative_loss_chart(df).to_dict()
    assert spec["facet"]["row"]["field"] == "measure" and spec["facet"]["column"]["field"] == "max_suppression"


def test_violations_are_detected():
    import pandas as pd

    df = pd.DataFrame({"algorithm": ["datafly", "samarati", "ola", "ola"],
                       "relative_loss_pct": [99.0, 150.0, 100.0, 101.0]})
    assert finding_violations(df).index.tolist() == [0, 3]
