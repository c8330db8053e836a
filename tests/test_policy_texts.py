"""What the CLI and the app say the same way, written once in ``workbench.policy``: the suppression limit's percent
(the app's unit) and share (the config's), and what a search that assumes a monotone objective means with one that
is not (the app's warnings, the switch to bnb, the CLI's refusal)."""

from __future__ import annotations

from dataclasses import replace

from streamlit.testing.v1 import AppTest

from tests._app import APP, goto
from workbench import policy


def test_percent_and_share_of_the_suppression_limit_round_trip_at_every_slider_step():
    for hundredths in range(10_001):  # 0.00 % .. 100.00 %
        percent = hundredths / 100
        share = policy.suppression_share(percent)
        assert share == percent / 100 and policy.suppression_percent(share) == percent
    assert policy.suppression_share(2) == 0.02 and policy.suppression_percent(0.07) == 7.0  # not 7.000000000000001


def test_the_cli_refusal_gives_the_same_reason_as_the_app():
    from workbench.config import study_from_dict

    study = study_from_dict({"data": {"sample": "teaching"}, "privacy": {"k": 2}, "engine": {"objective": "dm"}})
    refusal = policy.monotone_refusal(study, "ola")
    assert "needs a monotone objective" in refusal and policy.NOT_MONOTONE_WHY in refusal
    assert policy.NOT_MONOTONE_WHY in policy.non_monotone_warning("ola", "dm")
    assert policy.monotone_refusal(replace(study, allow_non_monotone=True), "ola") is None


def test_the_pages_warn_about_a_non_monotone_objective_in_the_words_of_the_library():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.selectbox(key="an_alg").select("ola").run()
    at.selectbox(key="an_obj").select("loss").run()  # OLA is switched to bnb (Flash is optimal for any objective)
    said = policy.non_monotone_warning("ola", "loss")
    assert [i.value for i in at.info] == [f"Search switched from ola to bnb: {said}."]
    at.selectbox(key="an_alg").select("ola").run()  # the analyst insists
    assert f"{said}." in [w.value for w in at.warning]
    goto(at, "Lattice").run()
    at.selectbox(key="lat_alg").select("ola").run()
    at.selectbox(key="lat_obj").select("loss").run()
    assert not at.exception and f"{said}." in [w.value for w in at.warning]


def test_the_lattice_page_opens_the_optimum_it_names_and_marks():
    import re

    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Lattice").run()
    note = next(c.value for c in at.caption if c.value.startswith("Optimum under"))
    named = re.search(r"\*\*(.+?)\*\*", note).group(1)
    assert at.selectbox(key="lat_node").value == named  # the optimum is read once and opened first
