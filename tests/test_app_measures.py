"""The Measures page (workbench/ui/measures_page.py) driven with Streamlit's AppTest: what it shows is what
``workbench.explore`` computes for the same settings, and the measures of your own registered on the server are
listed with their source file (and flagged when their declared monotonicity fails)."""

from __future__ import annotations

import numpy as np
from _app import APP, goto
from streamlit.testing.v1 import AppTest

import workbench as wb
from workbench.config import study_from_dict
from workbench.ui import state


def _registry_exploration(compare: list[str]):
    study = study_from_dict({"data": {"sample": "registry"}, "measures": {"compare": compare, "target": "high_cost"},
                             "privacy": {"k": state.DEFAULT_K,
                                         "max_suppression": state.DEFAULT_SUPPRESSION_PERCENT / 100}})
    return wb.explore(study)


def test_the_measures_page_shows_the_exploration_of_the_registry():
    at = AppTest.from_file(APP, default_timeout=180).run()
    goto(at, "Measures").run()
    assert not at.exception
    titles = [s.value for s in at.subheader]
    assert titles[:3] == ["Two measures against each other", "Monotonicity on this lattice",
                          "Rank agreement (Kendall τ-b over every admissible node)"]
    table = next(d.value for d in at.dataframe if "violations" in d.value.columns)
    expected = _registry_exploration(list(table.measure))
    assert table.set_index("measure").violations.to_dict() == {m: f["violations"] for m, f in
                                                                expected.measures.items()}
    assert any(f"{expected.nodes:,} admissible nodes" in c.value for c in at.caption)
    assert len(at.get("vega_lite_chart")) == 3  # the scatter, the heatmap, the lattice's levels
    at.selectbox(key="mea_x").select("dm").run()
    at.selectbox(key="mea_y").select("loss").run()
    assert not at.exception
    worst = [o for o in at.selectbox(key="mea_edge").options if o != "(none)"]
    assert "Discernibility (DM), lower is better" in worst  # named as every measure picker names it
    at.selectbox(key="mea_edge").select("dm").run()
    assert not at.exception
    meanings = next(d.value for d in at.dataframe if "what it means" in d.value.columns)
    assert {"dm", "loss", "precision"} <= set(meanings.measure)


def test_measures_of_your_own_are_listed_with_their_source_and_a_broken_claim_is_flagged():
    with wb.registered_within():
        @wb.measure(id="dm_said_monotone", name="DM, claimed monotone", monotone=True)
        def dm_again(view) -> float:
            kept = view.class_sizes(~view.suppressed)
            return float((kept.astype(np.int64) ** 2).sum() + view.n * int(view.suppressed.sum()))

        at = AppTest.from_file(APP, default_timeout=180).run()
        goto(at, "Measures").run()
        assert not at.exception
        own = next(d.value for d in at.dataframe if "registered by" in d.value.columns)
        assert own.id.tolist() == ["dm_said_monotone"] and own.file[0].endswith("test_app_measures.py")
        assert any("dm_said_monotone" in e.value and "declared monotone" in e.value for e in at.error)
        table = next(d.value for d in at.dataframe if "violations" in d.value.columns).set_index("measure")
        assert table.violations["dm_said_monotone"] == table.violations["dm"] > 0
