"""The ethics-board report (``workbench report``, ``workbench.report.build_report``) and the rich display in
Jupyter (``_repr_html_``): every section present, every figure the library's own, every data value escaped, the
page self-contained (a real browser opens it from a file and makes no other request), the PDF written."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import measures as M
import workbench as wb
from tests._app import goto
from tests._cli import call
from tests._server import CHROMIUM, FLAGS
from workbench import compare, risk
from workbench.compare.ranking import pareto_front
from workbench.release.export import provenance_record
from workbench.report.render import SECTIONS
from workbench.views.display import esc, fmt, percent

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"
SCRIPT = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def teaching() -> tuple[wb.Study, wb.RunResult, wb.Report]:
    study = wb.load_study(TEACHING)
    result = wb.run(study)
    return study, result, wb.build_report(study, result)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``workbench report teaching.toml --out DIR --pdf``, as a user runs it."""
    out = tmp_path_factory.mktemp("report") / "board"
    status, stdout, stderr = call("report", TEACHING, "--out", out, "--pdf")
    assert status == 0, stderr
    assert f"wrote        {out / 'report.html'}" in stdout
    return out


def _section(html: str, sid: str) -> str:
    match = re.search(rf'<section id="{sid}">(.*?)</section>', html, re.S)
    assert match, sid
    return match.group(1)


def test_every_section_is_present_in_order(teaching):
    html = teaching[2].html
    positions = [html.index(f'<section id="{sid}">') for sid, _ in SECTIONS]
    assert positions == sorted(positions)
    for sid, title in SECTIONS:
        assert f"<h2>{esc(title)}</h2>" in _section(html, sid)


def test_the_dataset_and_the_privacy_model_are_the_configs(teaching):
    study, result, report = teaching
    section = _section(report.html, "dataset")
    for column in result.dataset.frame.columns:
        assert f"<td>{column}</td><td>{result.dataset.roles[column]}</td>" in section
    assert f"{result.dataset.n:,} records" in section
    privacy = _section(report.html, "privacy-model")
    assert f"k = {study.k}" in privacy and M.MEASURES[study.objective].plain in privacy
    hierarchies = _section(report.html, "hierarchies")
    for qi in result.dataset.quasi_identifiers:
        h = result.dataset.hierarchies[qi]
        assert f"<h3>{qi}</h3>" in hierarchies and f"{qi}: {h.height} level(s)" in hierarchies
    assert hierarchies.count("<svg") == len(result.dataset.quasi_identifiers)  # one small tree each


def test_the_risk_figures_are_the_librarys(teaching):
    _, result, report = teaching
    before = risk.risk_of_node(result.dataset).to_dict()
    after = risk.risk_of_release(result.release).to_dict()
    assert report.facts.risk["before"] == before and report.facts.risk["after"] == after
    assert after == result.risk()  # what `workbench run --json` reports
    section = _section(report.html, "risk")
    for r in (before, after):
        assert f"<td>{percent(r['prosecutor']['highest'])}</td>" in section
        assert f"<td>{percent(r['sample_uniques'])}</td>" in section
    histogram = report.facts.risk["records"]
    expected = pd.concat([risk.record_risks(risk.node_class_sizes(result.dataset)).assign(table="input"),
                          risk.record_risks(risk.release_class_sizes(result.release)).assign(table="release")],
                         ignore_index=True)
    pd.testing.assert_frame_equal(histogram, expected)
    assert section.count("<svg") == 1


def test_the_release_and_its_costs_under_every_measure_are_the_librarys(teaching):
    study, result, report = teaching
    release = result.release
    section = _section(report.html, "release")
    assert esc(result.guarantee.describe()) in section and "verified" in section
    assert f"{int(release.suppressed.sum())} of {release.n} records" in section
    sample = report.facts.release["sample"]
    assert len(sample) == min(10, release.n) and set(sample.columns) == set(release.table().columns)
    ids = [i for i, m in M.MEASURES.items() if not m.needs_target]  # teaching has no target
    scores = M.score(release.view(), ids)
    costs = report.facts.costs.set_index("id")
    assert list(costs.index) == ids
    section = _section(report.html, "costs")
    for i in ids:
        assert costs.loc[i, "value"] == scores[i].value
        assert f'<td class="num">{fmt(scores[i].value)}</td>' in section
        assert esc(M.MEASURES[i].plain) in section and esc(M.MEASURES[i].name) in section


def test_the_alternatives_are_the_comparisons(teaching):
    study, result, report = teaching
    table = compare.solutions(study, result.dataset)
    alternatives = report.facts.alternatives
    ids = [m for m in study.compare if m != "degradation"]
    pd.testing.assert_frame_equal(alternatives["table"].drop(columns=["chosen", "pareto"]), table)
    assert list(alternatives["table"].pareto) == list(pareto_front(table, ids))
    chosen = alternatives["table"][alternatives["table"].chosen]
    assert list(chosen.solution) == [",".join(f"{q}={v}" for q, v in result.release.transformation.items())]
    section = _section(report.html, "alternatives")
    for solution in table.solution:  # a node as its levels in quasi-identifier order, "date=0,gender=1" as "0,1"
        shown = ",".join(part.split("=")[1] for part in solution.split(",")) if "=" in solution else solution
        assert f"<td>{shown}</td>" in section
    assert section.count("<svg") == 1  # the Pareto chart
    assert "exhaustive" in section and "proven optimal" in section


def test_the_checks_and_the_provenance(teaching):
    study, result, report = teaching
    checks = _section(report.html, "checks")
    assert checks.count("passed") >= 5 and "FAILED" not in checks
    record = provenance_record(result.release, seed=study.seed, config=dict(study.raw), measures={},
                               guarantee=result.guarantee, suppressed_policy=study.suppressed)
    section = _section(report.html, "provenance")
    assert record["input"]["content_sha256"] in section
    assert "workbench report sample_configs/teaching.toml --out report" in section or \
        f"workbench report {TEACHING} --out report" in section
    assert "[privacy]" in section and f"k = {study.k}" in section


def test_the_page_fetches_nothing(teaching):
    html = teaching[2].html
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    assert not re.search(r'\b(src|href)\s*=\s*"(?!#)', html)  # only in-page links
    assert "default-src 'none'" in html


def _escaping_study(tmp_path: Path) -> wb.Study:
    rows = [{"sex": ["<b>F</b>", "M"][i % 2], "age": str(20 + i % 5), "note": SCRIPT} for i in range(24)]
    pd.DataFrame(rows).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "sex.csv").write_text("<b>F</b>;*\nM;*\n", encoding="utf-8")
    (tmp_path / "study.toml").write_text(textwrap.dedent("""
        [data]
        path = "data.csv"
        [attributes.sex]
        role = "quasi"
        hierarchy = "sex.csv"
        [attributes.age]
        role = "quasi"
        builder = { kind = "intervals", widths = [10] }
        [attributes.note]
        role = "insensitive"
        [privacy]
        k = 2
        [measures]
        compare = ["height", "dm", "loss"]
    """), encoding="utf-8")
    return wb.load_study(tmp_path / "study.toml")


@pytest.fixture(scope="module")
def shown():
    """What a notebook shows for an object: IPython's own formatters, given the workbench's by ``register``."""
    from IPython.core.interactiveshell import InteractiveShell

    from workbench.views.display import register

    shell = InteractiveShell.instance()
    assert register(shell)
    return lambda value: shell.display_formatter.format(value)[0]


def test_every_data_value_is_escaped_in_the_report_and_the_rich_display(tmp_path, shown):
    study = _escaping_study(tmp_path)
    result = wb.run(study)
    report = wb.build_report(study, result)
    outputs = {"report": report.html, "release": shown(result.release)["text/html"],
               "run": shown(result)["text/html"],
               "comparison": shown(wb.comparison(study, result=result))["text/html"]}
    for name, text in outputs.items():
        assert "<script" not in text.lower(), name
        assert "<b>F</b>" not in text, name
    assert esc(SCRIPT) in outputs["report"] and esc(SCRIPT) in outputs["release"]
    assert report.facts.provenance["file_sha256"] is not None  # a data file: its own hash is recorded
    assert report.facts.provenance["file_sha256"] in report.html


def test_rich_display_shows_the_librarys_figures(teaching, shown):
    study, result, _ = teaching
    run_html = shown(result)["text/html"]
    assert esc(result.guarantee.describe()) in run_html
    for s in result.scores.values():
        assert f'<td class="num">{fmt(s.value)}</td>' in run_html
    r = wb.risk_of_release(result.release)
    risk_html = shown(r)["text/html"]
    assert percent(r.prosecutor.highest) in risk_html and percent(r.sample_uniques) in risk_html
    assert f"{r.classes:,}" in risk_html
    c = wb.comparison(study, result=result)
    c_html = shown(c)["text/html"]
    assert c_html.count("<svg") == 1 and "<script" not in c_html
    for solution, value in zip(c.table.solution, c.table[c.measures[0]], strict=True):
        assert f"<td>{solution}</td>" in c_html and fmt(value) in c_html
    assert list(c.marked().pareto) == list(pareto_front(c.table, c.measures))
    assert c.chosen is not None and bool(c.marked().chosen[c.chosen])


def test_the_text_form_in_jupyter_is_one_line(teaching, shown):
    study, result, report = teaching

    def pretty(value: object) -> str:
        return shown(value)["text/plain"]

    assert pretty(result) == (f"RunResult(lattice / exhaustive, k = 3, {result.release.n} records, "
                              f"{int(result.release.suppressed.sum())} suppressed, {result.release.classes} classes)")
    assert pretty(result.release).startswith("Release(lattice / exhaustive")
    assert "\n" not in pretty(wb.risk_of_release(result.release))
    assert pretty(report).startswith(f"Report({len(SECTIONS)} sections")


def test_the_core_types_know_nothing_of_their_display():
    """The display is registered with IPython by type name; no core module imports it, and a process without
    IPython registers nothing."""
    import subprocess
    import sys

    code = ("import sys, workbench as wb; s = wb.load_study('sample_configs/teaching.toml'); wb.run(s); "
            "print('workbench.views.display' in sys.modules, 'IPython' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.split()
    assert out == ["False", "False"]


def test_a_release_that_is_no_candidate_is_added_to_the_alternatives():
    """A non-monotone objective with suppression can choose a node that is not k-minimal: it is added, marked."""
    study = wb.load_study(TEACHING, ["privacy.max_suppression=0.3", "engine.objective=dm"])
    result = wb.run(study)
    c = wb.comparison(study, result=result)
    label = ",".join(f"{q}={v}" for q, v in result.release.transformation.items())
    assert c.table.solution[c.chosen] == label and c.table.algorithm[c.chosen] == "chosen (exhaustive)"
    assert label not in set(c.table.solution.drop(index=c.chosen))  # not one of the k-minimal candidates
    for m in c.measures:
        assert c.table.loc[c.chosen, m] == result.scores[m].value


def test_progress_bar_follows_the_callbacks(capsys):
    seen = []
    with wb.progress_bar("testing") as progress:
        for f in (0.0, 0.5, 1.0):
            progress(f, f"step {f}")
            seen.append(f)
    assert seen == [0.0, 0.5, 1.0]
    assert "testing" in capsys.readouterr().err


def test_the_command_writes_html_and_pdf_whole_and_refuses_to_overwrite(written):
    assert sorted(p.name for p in written.iterdir()) == ["alternatives.csv", "report.html", "report.pdf"]
    assert written.joinpath("report.pdf").read_bytes().startswith(b"%PDF")
    html = written.joinpath("report.html").read_text(encoding="utf-8")
    assert f"workbench report {TEACHING} --out {written} --pdf" in html
    status, _, stderr = call("report", TEACHING, "--out", written)
    assert status == 2 and "already holds" in stderr
    status, _, stderr = call("report", TEACHING, "--out", written, "--force")
    assert status == 0, stderr
    assert sorted(p.name for p in written.iterdir()) == ["alternatives.csv", "report.html"]  # replaced as a whole


def test_a_bad_config_is_one_line_and_status_2(tmp_path):
    status, stdout, stderr = call("report", TEACHING, "--set", "privacy.k=0", "--out", tmp_path / "r")
    assert status == 2 and stdout == "" and len(stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()


@pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                    reason="Debian's chromium is not installed")
def test_the_report_opens_offline_in_a_real_browser_and_requests_nothing_else(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api")
    study = wb.load_study(TEACHING)
    page_file = tmp_path / "report.html"
    page_file.write_text(wb.build_report(study).html, encoding="utf-8")
    url = page_file.as_uri()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(url)
        page.wait_for_load_state("load")
        for sid, title in SECTIONS:
            assert page.locator(f"section#{sid} h2").inner_text() == title
        svgs = {sid: page.locator(f"section#{sid} svg").count() for sid, _ in SECTIONS}
        boxes = [page.locator("svg").nth(i).bounding_box() for i in range(page.locator("svg").count())]
        browser.close()
    assert requests == [url], requests
    assert not errors, errors
    assert svgs["hierarchies"] == 3 and svgs["risk"] == 1 and svgs["alternatives"] == 1
    assert all(b is not None and b["width"] > 50 and b["height"] > 50 for b in boxes)  # drawn, not empty


def test_the_export_page_offers_the_report():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.selectbox[0].select("teaching").run()
    goto(at, "Anonymize").run()
    at.number_input[0].set_value(3).run()
    at.button[0].click().run()
    goto(at, "Export").run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Report (HTML)" not in labels  # built on request only
    next(b for b in at.button if b.label == "Build the report").click().run()
    assert not at.exception and not at.error
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels[-1] == "Report (HTML)"


def test_every_measure_has_a_plain_explanation():
    for m in M.MEASURES.values():
        assert m.plain and "\n" not in m.plain and len(m.plain) < 240, m.id


def test_the_attacks_section_is_check_attacks(teaching):
    """The attacks section shows ``attack_checks.check_attacks`` on the release: the rare values, each attack's
    result, and how many rows two of the table's release files pair by chance (each is shuffled by its content)."""
    from workbench.risk.attack_checks import attack_table, check_attacks, row_order_finding

    study, result, report = teaching
    checks = check_attacks(study, result.dataset, result.release).to_dict()
    assert report.facts.attacks["checks"] == checks
    section = _section(report.html, "attacks")
    for text in attack_table(checks).result:
        assert esc(text) in section
    for value in checks["rare_values"]["values"]:
        assert f"<td>{esc(value['value'])}</td>" in section
    same = checks["unsorted_matching_same_seed"]
    assert f"on {same['linked']:,} of {same['rows']:,} rows, as many as two independent shuffles" in section
    assert esc(row_order_finding(checks)) in section
