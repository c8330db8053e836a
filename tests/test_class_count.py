"""One class count (docs/privacy.md#re-identification-risk): ``classes`` are the equivalence classes of the released
records that are not suppressed, wherever the workbench shows them (``run`` and ``measure`` JSON and text, the risk
JSON, the report, the lattice table, node details, Jupyter's line, the Anonymize, Lattice and Risk pages), and the
risk's ``groups`` are those classes plus the suppressed records as one group of ``*``. Each figure is checked against
a count made here from the released CSV file itself, on the registry's sample config and on a small table built
here whose release suppresses records."""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests._app import APP, captured_downloads, goto, people_config
from tests._cli import call
from workbench import cli
from workbench.config import Study, load_study
from workbench.report.facts import Facts, _release, _risk
from workbench.report.render import RISK_LABELS
from workbench.report.render import _release as release_section
from workbench.report.render import _risk as risk_section
from workbench.risk import risk_of_release
from workbench.study import evaluator_for, load_dataset
from workbench.views.display import esc, fmt, summary_line
from workbench.views.lattice import lattice_table
from workbench.views.node_details import node_details

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "sample_configs" / "registry.toml"

PEOPLE_CONFIG = people_config("""[attributes.visits]
role = "insensitive"
[privacy]
k = 3
max_suppression = 0.1
""")


def people_csv() -> bytes:
    """40 people aged 20 to 44 and two aged 78 and 83, who stay alone in their class unless age is hidden: at k = 3
    with 10 % suppression the release suppresses records."""
    rng = np.random.default_rng(7)
    age = rng.integers(20, 45, 40)
    age[:2] = [78, 83]
    frame = pd.DataFrame({"age": age.astype(str), "sex": rng.choice(["F", "M"], 40),
                          "visits": rng.integers(0, 9, 40).astype(str)})
    return frame.to_csv(index=False).encode()


@dataclass(frozen=True)
class Counted:
    """The counts of a released file, read from its cells alone."""

    records: int
    classes: int  # distinct quasi-identifier rows among the rows not suppressed
    suppressed: int  # rows with * in every quasi-identifier
    groups: int  # distinct quasi-identifier rows among all rows (the suppressed rows are one)


def count_released(content: bytes, quasi_identifiers: list[str]) -> Counted:
    frame = pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False)
    rows = [tuple(row) for row in frame[quasi_identifiers].itertuples(index=False)]
    suppressed = [all(v == "*" for v in row) for row in rows]
    kept = {row for row, s in zip(rows, suppressed, strict=True) if not s}
    return Counted(len(rows), len(kept), sum(suppressed), len(set(rows)))


def _qis(study: Study) -> list[str]:
    return [a.name for a in study.attributes if a.role == "quasi"]


@pytest.fixture(scope="module", params=["registry", "people"])
def released(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``workbench run CONFIG --json --out DIR`` as a user runs it, and the counts of the file it wrote."""
    tmp = tmp_path_factory.mktemp(request.param)
    if request.param == "registry":
        config = REGISTRY
    else:
        (tmp / "people.csv").write_bytes(people_csv())
        config = tmp / "people.toml"
        config.write_text(PEOPLE_CONFIG)
    status, out, err = call("run", config, "--json", "--out", tmp / "out")
    assert status == 0, err
    study = load_study(config)
    counted = count_released((tmp / "out" / "release.csv").read_bytes(), _qis(study))
    assert counted.suppressed > 0  # both releases suppress records: the two counts differ
    summary = json.loads(out)
    node = ",".join(f"{q}={v}" for q, v in summary["transformation"].items())
    return {"config": config, "study": study, "summary": summary, "counted": counted, "node": node, "tmp": tmp}


def test_run_json_and_its_risk_count_the_classes_of_the_released_file(released: dict[str, Any]) -> None:
    s, c = released["summary"], released["counted"]
    assert (s["classes"], s["suppressed"]) == (c.classes, c.suppressed)
    risk = s["risk"]
    assert (risk["records"], risk["classes"], risk["suppressed"]) == (c.records, c.classes, c.suppressed)
    assert risk["groups"] == c.groups == c.classes + 1  # the suppressed records: one more group of *
    assert risk["prosecutor"]["average"] == pytest.approx(c.groups / c.records, rel=1e-12)
    text = cli._format_text(s)
    assert f"; {c.classes} classes\n" in text and f" over {c.groups} groups " in text


def test_measure_json_of_the_released_node(released: dict[str, Any]) -> None:
    status, out, err = call("measure", released["config"], "--node", released["node"], "--json")
    assert status == 0, err
    s, c = json.loads(out), released["counted"]
    assert (s["classes"], s["suppressed"]) == (c.classes, c.suppressed)


def test_the_reports_facts_and_page_count_the_classes_of_the_released_file(released: dict[str, Any]) -> None:
    c = released["counted"]
    (result,) = cli.measure(released["study"], [released["node"]])  # the released node's release, no search
    facts = Facts(released["study"], result, "workbench report")
    facts.release, facts.risk = _release(result), _risk(result)
    assert (facts.release["classes"], facts.release["suppressed"]) == (c.classes, c.suppressed)
    after = facts.risk["after"]
    assert (after["classes"], after["suppressed"], after["groups"]) == (c.classes, c.suppressed, c.groups)
    assert facts.risk["before"]["suppressed"] == 0
    assert facts.risk["before"]["groups"] == facts.risk["before"]["classes"]  # the input: nothing suppressed
    page = release_section(facts)
    assert f"The release has {fmt(c.classes)} equivalence classes" in page
    risk_table = risk_section(facts)
    for label, value in zip(RISK_LABELS[1:4], (c.classes, c.suppressed, c.groups), strict=True):
        row = f"<tr><td>{re.escape(esc(label))}</td><td>[^<]*</td><td>{re.escape(fmt(value))}</td></tr>"
        assert re.search(row, risk_table), label  # the release's column of the row
    assert f"{c.classes:,} classes)" in summary_line(result)  # Jupyter's line
    risk_line = summary_line(risk_of_release(result.release))
    assert f"{c.classes:,} classes, {c.suppressed:,} suppressed, {c.groups:,} groups" in risk_line


def test_the_lattice_table_and_node_details_count_the_released_nodes_classes(released: dict[str, Any]) -> None:
    study, c = released["study"], released["counted"]
    dataset = load_dataset(study)
    node = tuple(released["summary"]["transformation"][q] for q in dataset.quasi_identifiers)
    whole = lattice_table(evaluator_for(study, dataset), ["height"])  # every node in one pass over packed keys
    row = whole[whole["node"] == released["node"]].iloc[0]
    assert (row["classes"], row["suppressed"]) == (c.classes, c.suppressed)
    one = lattice_table(evaluator_for(study, dataset), ["height"], nodes=[node]).iloc[0]  # the node checked alone
    assert (one["classes"], one["suppressed"]) == (c.classes, c.suppressed)
    details = node_details(study, dataset, node, ["height"])
    assert (details.classes, details.suppressed) == (c.classes, c.suppressed)
    assert details.classes_before_suppression > details.classes  # the suppressed records' classes among them


def test_the_out_of_core_run_counts_the_same(tmp_path: Path) -> None:
    """``engine.backend = "duckdb"`` (docs/scale.md) reads the file out of core and writes its own release."""
    (tmp_path / "people.csv").write_bytes(people_csv())
    (tmp_path / "people.toml").write_text(PEOPLE_CONFIG)
    status, stdout, err = call("run", tmp_path / "people.toml", "--json", "--set", "engine.backend=duckdb",
                               "--out", tmp_path / "out")
    assert status == 0, err
    s = json.loads(stdout)
    c = count_released((tmp_path / "out" / "release.csv").read_bytes(), ["age", "sex"])
    assert c.suppressed > 0 and c.groups == c.classes + 1
    assert (s["classes"], s["suppressed"]) == (c.classes, c.suppressed)
    assert (s["risk"]["classes"], s["risk"]["suppressed"], s["risk"]["groups"]) == (c.classes, c.suppressed, c.groups)


# ---------------------------------------------------------------------------------------------- the app
def _metrics(at: AppTest) -> list[tuple[str, str]]:
    return [(m.label, m.value) for m in at.metric]


@pytest.mark.parametrize("dataset", ["registry", "people"])
def test_the_anonymize_risk_and_lattice_pages_count_the_classes_of_the_exported_file(dataset: str) -> None:
    at = AppTest.from_file(APP, default_timeout=180).run()
    if dataset == "registry":
        at.selectbox(key="dataset").select("registry").run()
    else:
        at.file_uploader(key="data_upload").upload("people.csv", people_csv(), "text/csv").run()
        at.file_uploader(key="config_upload").upload("people.toml", PEOPLE_CONFIG.encode(), "application/toml").run()
        assert at.selectbox(key="dataset").value == "uploaded"
    assert not at.exception
    goto(at, "Anonymize").run()
    at.button[0].click().run()
    assert not at.exception and at.success
    anonymize = dict(_metrics(at))
    transformation = at.dataframe[0].value.iloc[0]  # the level of each quasi-identifier, as the page shows it
    qis, node = list(transformation.index), ",".join(f"{q}={v}" for q, v in transformation.items())
    with captured_downloads() as files:
        goto(at, "Export").run()
        assert not at.exception
        c = count_released(next(f for name, f in files.items() if name.endswith("-release.csv"))(), qis)
    assert c.suppressed > 0 and c.groups == c.classes + 1
    assert anonymize["equivalence classes released"] == f"{c.classes:,}"
    assert anonymize["suppressed records"].startswith(f"{c.suppressed:,} (")

    goto(at, "Risk").run()
    assert not at.exception
    classes = [v for label, v in _metrics(at) if label == "equivalence classes"]
    groups = [v for label, v in _metrics(at) if label == "risk groups"]
    assert classes[1] == f"{c.classes:,}" and groups[1] == f"{c.groups:,}"  # the release's, beside the input's

    if dataset == "people":  # the Lattice page's drill-down of the released node
        goto(at, "Lattice").run()
        at.selectbox(key="lat_node").select(node).run()
        assert not at.exception
        shown = dict(_metrics(at))
        assert shown["equivalence classes released"] == f"{c.classes:,}"
        assert shown["suppressed records"].startswith(f"{c.suppressed:,} (")
