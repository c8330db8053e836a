"""What the app lets an analyst trust and export (streamlit.testing AppTest): a weaker guarantee is never shown or
exported as k-anonymity, heavy suppression is named, hierarchies that leave values ungrouped are not "Valid", and
no widget keeps a value its options no longer contain."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests._app import goto, ready_own_table

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def _page(page: str, dataset: str = "teaching") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select(dataset).run()
    goto(at, page).run()
    assert not at.exception
    return at


def test_overlapping_greedy_is_not_shown_or_exported_as_k_anonymous():
    at = _page("Anonymize")
    at.radio(key="an_engine").set_value("local").run()
    at.selectbox(key="an_local_alg").select("greedy_overlapping").run()
    at.number_input(key="an_k").set_value(3).run()
    at.button[0].click().run()
    assert not at.exception
    assert not any("k-ambiguous" in s.value for s in at.success)  # never the k-anonymous green
    warning = next(w.value for w in at.warning if "k-ambiguous" in w.value)
    assert "NOT k-anonymous" in warning and "docs/releases.md" in warning
    goto(at, "Export").run()
    assert not at.exception
    assert not at.get("download_button")  # nothing to download before the acknowledgement
    at.checkbox[0].check().run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Release" in labels and not any("k-ambiguous" in s.value for s in at.success)
    assert any("not k-anonymous" in i.value for i in at.info)


def test_provenance_names_a_weaker_guarantee():
    from workbench.config import study_from_dict
    from workbench.study import load_dataset, run

    raw = {"data": {"sample": "teaching"}, "privacy": {"k": 3},
           "engine": {"kind": "local", "algorithm": "greedy_overlapping", "objective": "vinterbo"},
           "measures": {"compare": []}}
    study = study_from_dict(raw)
    result = run(study, load_dataset(study))
    guarantee = json.loads(result.release.export_bytes(seed=0)["provenance"])["guarantee"]
    assert guarantee["kind"] == "k-ambiguity" and guarantee["k_anonymous"] is False
    assert "weaker than k-anonymity" in guarantee["meaning"]


def test_heavy_suppression_is_named_and_the_range_is_capped_without_an_override():
    at = _page("Anonymize")
    slider = at.slider(key="an_sup")
    assert slider.proto.max == 20.0  # a sensible range by default
    at.checkbox(key="sup_override").check().run()
    assert at.slider(key="an_sup").proto.max == 100.0  # a deliberate override
    at.slider(key="an_sup").set_value(100.0).run()
    at.number_input(key="an_k").set_value(4).run()
    at.button[0].click().run()
    assert not at.exception
    suppressed = next(m for m in at.metric if m.label == "suppressed records")
    assert "%" in suppressed.value and " of 10 records" in suppressed.help  # the share next to the release
    assert any("are suppressed (more than 10%)" in w.value for w in at.warning), [w.value for w in at.warning]
    at.checkbox(key="sup_override").uncheck().run()  # withdrawn: back into the sensible range
    assert not at.exception and at.slider(key="an_sup").value == 20.0


def _messy_ages() -> bytes:
    """Ages as a spreadsheet exports them: decimal commas, and text among the numbers."""
    ages = [f"{a},0" for a in range(20, 70)] * 2 + ["unknown"] * 3 + ["n/a"] * 2 + ["?", "about 30"]
    sexes = ["F", "M"] * (len(ages) // 2) + ["F"] * (len(ages) % 2)
    rows = (f'"{a}",{s}' if "," in a else f"{a},{s}" for a, s in zip(ages, sexes, strict=True))
    return ("age,sex\n" + "\n".join(rows)).encode()


def _status(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Status: "))


def test_intervals_builder_never_calls_a_hierarchy_with_ungrouped_text_valid():
    import hashlib

    content = _messy_ages()
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="data_upload").upload("ages.csv", content, "text/csv").run()
    at.multiselect(key=f"role:quasi:{hashlib.sha256(content).hexdigest()}").set_value(["age"]).run()
    goto(at, "Hierarchies").run()
    assert not at.exception
    assert at.selectbox(key="kind:age").value == "intervals"
    assert at.checkbox(key="comma:age").value  # decimal commas read as numbers
    listing = next(w.value for w in at.warning if "are not numbers" in w.value)
    assert "'unknown' (3)" in listing and "'n/a' (2)" in listing and "'about 30' (1)" in listing
    assert not any(s.value.startswith("Valid") for s in at.success)  # nothing chosen yet: not valid
    assert "age ✗" in _status(at)
    at.radio(key="nonnum:age").set_value("group").run()
    assert not at.exception and any(s.value.startswith("Valid") for s in at.success)
    assert "age ✓" in _status(at)
    at.text_input(key="widths:age").set_value("5, 12").run()  # widths that do not nest
    assert not at.exception and at.error
    assert "age ✗" in _status(at)  # never a tick next to a red error


def _ready_own_table() -> AppTest:
    """A small table with a target, made ready by a loaded config (ages in intervals, sex in one group)."""
    return ready_own_table("outcome", ["yes", "no"], '[measures]\ntarget = "outcome"\n', seed=3, n=120)


def test_compare_solutions_never_keep_a_choice_their_options_lost():
    at = _ready_own_table()
    goto(at, "Compare").run()
    at.selectbox(key="cmp_cand").select("all").run()
    solutions = at.multiselect(key="cmp_deg_rows")
    last = solutions.options[-1]
    solutions.set_value([last]).run()
    assert not at.exception
    at.selectbox(key="cmp_cand").select("k_minimal").run()  # fewer rows: the stored choice is gone
    assert not at.exception
    solutions = at.multiselect(key="cmp_deg_rows")
    assert set(solutions.value) <= set(solutions.options)
    solutions.set_value([]).run()
    assert at.button(key="cmp_deg_run").disabled
    assert any("Choose at least one solution" in c.value for c in at.caption)  # greyed out, and why


def test_one_set_of_privacy_settings_for_every_page():
    at = _page("Anonymize")
    at.number_input(key="an_k").set_value(3).run()
    at.slider(key="an_sup").set_value(5.0).run()
    for page in ("Lattice", "Compare"):
        goto(at, page).run()
        assert not at.exception
        assert (at.number_input(key="an_k").value, at.slider(key="an_sup").value) == (3, 5.0), page
        assert at.slider(key="an_sup").label == "Suppression limit (% of records)"  # one unit
    at.number_input(key="an_k").set_value(2).run()  # edited on Compare
    goto(at, "Anonymize").run()
    assert at.number_input(key="an_k").value == 2 and at.number_input(key="an_k").proto.max > 1000


def test_results_are_kept_until_their_inputs_change():
    at = _page("Anonymize")
    at.number_input(key="an_k").set_value(3).run()
    at.button[0].click().run()
    assert "k-anonymous with k = 3" in at.success[0].value
    goto(at, "Lattice").run()
    goto(at, "Anonymize").run()
    assert not at.exception and at.success and "k-anonymous with k = 3" in at.success[0].value  # still there
    at.number_input(key="an_k").set_value(2).run()  # an input changed: the old result is not shown as current
    assert not any("k = 3" in s.value for s in at.success)
