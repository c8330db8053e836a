"""The report's first page (``workbench.report.summary``): its figures are the sections' own (same ``Facts``) and
agree with a recomputation from the released file alone; the withheld columns follow from the roles and the file;
the registry's complementary-release warning carries the attack's count, which an independent join reproduces;
ℓ-diversity and t-closeness are said in words; the recommendation rule on constructed cases; a skipped attack is
said plainly; and the Export page shows the same summary."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import pandas as pd
import pytest

import workbench as wb
from tests._app import APP, goto
from workbench.report import build_summary
from workbench.report.facts import gather_summary
from workbench.report.render import SECTIONS
from workbench.report.summary import AS_PROPOSED, DO_NOT_RELEASE, OPTIONS, RISK_FIGURES, WITH_CONDITIONS, recommend
from workbench.risk.attack_checks import ATTACKS, AttackFinding, attack_findings, attack_table
from workbench.views.display import esc, fmt, percent

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "sample_configs"


@pytest.fixture(scope="module")
def teaching() -> tuple[wb.Study, wb.RunResult, wb.Report]:
    study = wb.load_study(CONFIGS / "teaching.toml")
    result = wb.run(study)
    return study, result, wb.build_report(study, result)


@pytest.fixture(scope="module")
def registry() -> tuple[wb.Study, wb.RunResult, object]:
    study = wb.load_study(CONFIGS / "registry.toml")
    result = wb.run(study)
    return study, result, gather_summary(study, result)


def _section(html: str, sid: str) -> str:
    match = re.search(rf'<section id="{sid}">(.*?)</section>', html, re.S)
    assert match, sid
    return match.group(1)


def _released_file(result: wb.RunResult) -> pd.DataFrame:
    """The release as the analyst downloads it (CSV, shuffled), read back as text."""
    files = result.release.export_bytes(seed=result.study.seed, fmt="csv")
    return pd.read_csv(io.BytesIO(files["release"]), dtype=str, keep_default_na=False)


def _risk_from_file(frame: pd.DataFrame, qis: list[str], threshold: float = 0.2) -> dict[str, object]:
    """Prosecutor risk written from its definition on the released file: each record's risk is 1 / the size of its
    group of identical quasi-identifier rows (the suppressed records, all * , form one group)."""
    sizes = frame.groupby(qis, sort=False)[qis[0]].transform("size")
    n = len(frame)
    groups = frame[qis].drop_duplicates().shape[0]
    at_risk = int((1 / sizes > threshold).sum())
    return {"highest": 1 / sizes.min(), "average": groups / n, "at_risk": at_risk, "at_risk_share": at_risk / n,
            "alone": float((sizes == 1).mean())}


def _check_against_file(summary: object, result: wb.RunResult) -> None:
    frame = _released_file(result)
    qis = result.dataset.quasi_identifiers
    mine = _risk_from_file(frame, qis)
    after = {r.figure: r.after for r in summary.risk}
    assert after["highest risk of any record"] == percent(mine["highest"])
    assert after["average risk over the records"] == percent(mine["average"])
    assert after["records at risk"] == f"{fmt(mine['at_risk'])} ({percent(mine['at_risk_share'])})"
    assert after["records alone in their group"] == percent(mine["alone"])
    # the columns: identifying ones are not in the file; a quasi-identifier is withheld when every record not
    # suppressed shows one value in the file; every other column of the file is released
    roles = result.dataset.roles
    kept = frame[~(frame[qis] == "*").all(axis=1)]
    one_value = {q for q in qis if kept[q].nunique() <= 1}
    identifying = {c for c, r in roles.items() if r == "identifying"}
    assert identifying.isdisjoint(frame.columns)
    assert {c.name for c in summary.withheld} == identifying | one_value
    assert {c.name for c in summary.released} == set(frame.columns) - one_value
    assert all(c.role == roles.get(c.name, "insensitive") for c in summary.released + summary.withheld)
    stars = int((frame[qis] == "*").all(axis=1).sum())
    assert summary.suppressed == stars and summary.records == len(frame)


def test_the_summary_heads_the_page_before_the_table_of_contents(teaching):
    html = teaching[2].html
    assert SECTIONS[0][0] == "summary"
    assert html.index('<section id="summary">') < html.index("<nav>") < html.index('<section id="dataset">')
    section = _section(html, "summary")
    s = teaching[2].facts.summary
    assert f"Recommendation: {esc(s.recommendation.option)}." in section
    for option in OPTIONS:
        assert esc(option.name) in section
    for name in s.fields:  # the decision record's empty fields, to fill in on paper
        assert f'<th>{esc(name)}</th><td class="box' in section


def test_the_summarys_figures_are_the_sections(teaching):
    """Same Facts: the risk rows are the risk table's, the suppressed count the release section's and the risk
    table's, the cost the costs table's row of the objective (and the run's score), the attacks the attack table's."""
    study, result, report = teaching
    facts, s = report.facts, report.facts.summary
    risk_section = _section(report.html, "risk")
    for row in s.risk:
        label = next(label for label in RISK_LABELS_OF(report) if label.startswith(row.figure))
        cells = re.search(rf"<td>{re.escape(esc(label))}</td><td[^>]*>([^<]*)</td><td[^>]*>([^<]*)</td>", risk_section)
        assert cells and (cells.group(1), cells.group(2)) == (esc(row.before), esc(row.after)), row
    assert s.suppressed == facts.release["suppressed"] == facts.risk["after"]["suppressed"] \
        == result.guarantee.suppressed == int(result.release.suppressed.sum())
    assert facts.risk["after"]["classes"] == facts.release["classes"] == result.release.classes
    costs = facts.costs.set_index("id")
    assert s.cost_measure == study.objective and s.cost_value == costs.value[study.objective] \
        == pytest.approx(result.scores[study.objective].value)
    table = facts.attacks["table"]
    assert [a.attack for a in s.attacks] == list(table.attack) == list(ATTACKS)
    summary_html = _section(report.html, "summary")
    for a in s.attacks:
        assert esc(a.result) in summary_html
    assert s.attacks == tuple(attack_findings(facts.attacks["checks"]))
    # the summary computed alone (the Export page's) is the report's
    assert build_summary(study, result) == s


def RISK_LABELS_OF(report: wb.Report) -> tuple[str, ...]:  # noqa: N802  (the risk section's row labels)
    from workbench.report.render import RISK_LABELS

    return RISK_LABELS


def test_the_teaching_summary_agrees_with_the_released_file(teaching):
    _check_against_file(teaching[2].facts.summary, teaching[1])


def test_the_registry_warns_that_a_second_release_singles_out_people(registry):
    """The registry's release withholds four of its six quasi-identifiers and its three identifying columns, and a
    second release at the first other k-minimal node singles out most people: the warning carries the attack's
    count, which an independent join of the two released tables reproduces."""
    from workbench.privacy.build import admissibility_for
    from workbench.release import Release
    from workbench.risk.attack_checks import second_node

    study, result, facts = registry
    s = facts.summary
    _check_against_file(s, result)
    assert {c.name for c in s.withheld if c.role == "quasi"} == {"age", "sex", "ethnicity", "diagnosis"}
    # the complementary release, joined by hand: each record's two released rows, grouped
    node = second_node(study, result.dataset, result.release)
    other = Release.from_node(result.dataset, node, study.k, study.max_suppression, "second",
                              admissibility_for(study, result.dataset))
    qis = result.dataset.quasi_identifiers
    joined = pd.concat([result.release.table()[qis].add_prefix("a_"), other.table()[qis].add_prefix("b_")], axis=1)
    alone = int((joined.groupby(list(joined.columns))[joined.columns[0]].transform("size") == 1).sum())
    finding = next(a for a in s.attacks if a.attack == ATTACKS[0])
    assert finding.singled_out == alone == facts.attacks["checks"]["complementary_release"]["unique"]
    assert alone > result.dataset.n // 2  # most people (18,813 of 20,000 with the sample as it is)
    warning = next(w for w in s.warnings if "second release" in w.title)
    assert f"would single out {alone:,} of {result.dataset.n:,} people" in warning.title
    assert "release this table only once" in warning.remedy
    assert s.recommendation.option == WITH_CONDITIONS
    assert any("only once" in c for c in s.recommendation.conditions)
    # the matching attack is too large here, and says so
    matching = next(a for a in s.attacks if a.attack == ATTACKS[-1])
    assert not matching.checked and matching.result.startswith("not checked: too large")
    assert "Not checked: " + ATTACKS[-1] in s.attacks_line
    assert list(attack_table(facts.attacks["checks"]).result)[-1] == matching.result


def test_each_attack_has_one_result_in_the_summary_and_the_attacks_section(registry):
    """One count, one name: the attacks section (and the Risk page, which shows the same table) states each attack's
    result in the summary's words. The registry's two files written with one seed pair the same record on a row by
    chance, and that row's joined group is below k: both places say it singles out no one (the pair does not tell
    the attacker which row it is), neither calls it re-identified; the rencontres probability is computed here."""
    from workbench.risk.attack_checks import CHANCE_LEVEL

    c = registry[2].attacks["checks"]
    summary = [a.result for a in registry[2].summary.attacks]
    table = list(registry[2].attacks["table"].result)
    assert [t[:len(s)] for t, s in zip(table, summary, strict=True)] == summary
    same = c["unsorted_matching_same_seed"]
    assert same["linked"] >= 1 and same["reidentified"] >= 1  # the case that read "1 re-identified" before
    j = same["linked"]
    assert same["rows"] == registry[1].release.n > 1000  # so the rows two independent shuffles pair by chance
    # are Poisson(1): P(at least j) = 1 − Σ_{i<j} e^−1 / i!
    chance = 1 - sum(math.exp(-1) / math.factorial(i) for i in range(j))
    assert chance >= CHANCE_LEVEL
    for text in (table[1], summary[1]):
        assert text.startswith("singles out no one") and "re-identified" not in text
    assert not any("re-identified" in t for t in table)


def test_the_remedy_a_release_that_generalizes_both_is_checked(registry):
    """The remedy's node generalizes both releases, and joined with this release it singles out whom the attack
    says (here no one)."""
    study, result, facts = registry
    c = facts.attacks["checks"]
    mine = result.release.transformation
    second = dict(part.split("=") for part in c["second_release"].split(","))
    joint = dict(part.split("=") for part in c["joint_release"].split(","))
    assert {q: int(v) for q, v in joint.items()} == {q: max(mine[q], int(second[q])) for q in mine}
    checked = c["joint_complementary_release"]
    finding = next(a for a in facts.summary.attacks if a.attack == ATTACKS[0])
    assert c["joint_release"] in finding.remedy
    assert ("singles out no one: checked" in finding.remedy) == (checked["unique"] == 0)


@pytest.mark.slow
def test_l_diversity_and_t_closeness_are_said_in_words():
    """Adult with entropy ℓ-diversity and t-closeness on occupation: each model is a promise in words, holding as
    re-verified; the ℓ-diversity holds by a recomputation of each released group's entropy from the file."""
    study = wb.load_study(CONFIGS / "adult_privacy.toml")
    result = wb.run(study)
    s = build_summary(study, result)
    _check_against_file(s, result)
    models = {g.name: g for g in s.guarantee}
    l_div = models["entropy-3-diversity (shannon) of occupation"]
    t_close = models["0.2-closeness (hierarchical distance) of occupation"]
    assert "3 equally common values" in l_div.words and "occupation" in l_div.words
    assert "t = 0.2" in t_close.words and "whole table's mix" in t_close.words
    assert l_div.holds is True and t_close.holds is True and all(result.guarantee.models.values())
    frame = _released_file(result)
    qis = result.dataset.quasi_identifiers
    kept = frame[~(frame[qis] == "*").all(axis=1)]
    for _, group in kept.groupby(qis):
        shares = group.occupation.value_counts(normalize=True)
        assert -(shares * shares.map(math.log2)).sum() >= math.log2(3) - 1e-9


def test_k_1_is_not_promised_as_a_crowd():
    """At k = 1 the teaching table's release leaves a record alone in its group (counted from the released file), so
    neither the first page nor the privacy-model section may say a person 'cannot tell which one is theirs'."""
    study = wb.load_study(CONFIGS / "teaching.toml", ["privacy.k=1"])
    result = wb.run(study)
    frame = _released_file(result)
    qis = result.dataset.quasi_identifiers
    assert (frame.groupby(qis)[qis[0]].transform("size") == 1).any()  # someone is alone: the crowd promise is false
    report = wb.build_report(study, result)
    k_words = report.facts.summary.guarantee[0].words
    assert "k = 1 asks nothing" in k_words and "cannot tell which one" not in k_words
    assert "cannot tell which one" not in _section(report.html, "privacy-model")
    assert all("at least 1 records" not in c.what for c in report.facts.summary.released)


def _finding(n: int | None, remedy: str = "release once") -> AttackFinding:
    return AttackFinding("an attack", n is not None, n, 10 if n is not None else None,
                         "not checked: too large" if n is None else f"singles out {n} of 10 people", "it joins",
                         remedy if n else "")


def test_the_recommendation_rule_on_constructed_cases():
    assert recommend(None, [], []).option == DO_NOT_RELEASE
    failing = recommend(False, ["ℓ-diversity does not hold"], [_finding(0)])
    assert failing.option == DO_NOT_RELEASE and "ℓ-diversity does not hold" in failing.reasons[0]
    assert recommend(False, [], [_finding(3)]).option == DO_NOT_RELEASE  # a failing rule outranks an attack
    clean = recommend(True, [], [_finding(0), _finding(0)])
    assert clean.option == AS_PROPOSED and "none of the 2 attacks checked" in clean.reasons[0]
    harmful = recommend(True, [], [_finding(0), _finding(3, "give every release its own seed")])
    assert harmful.option == WITH_CONDITIONS and harmful.conditions == ("Give every release its own seed",)
    assert "singles out 3 of 10 people" in harmful.reasons[0]
    back = recommend(True, [], [_finding(0)], gives_back=["total_charge gives back age"])
    assert back.option == WITH_CONDITIONS and "quasi-identifier" in back.conditions[0]
    skipped = recommend(True, [], [_finding(0), _finding(None)])
    assert skipped.option == AS_PROPOSED and skipped.not_covered == ("an attack: not checked: too large",)
    assert {r.tone for r in (clean, harmful, failing)} == {"ok", "warn", "bad"}


def test_an_attack_not_checked_is_said_plainly():
    """Without a second release the three attacks that need one are 'not checked' with the reason, in the table
    and in the findings; a matching attack that did not run says why."""
    checks = {"k": 3, "seed": 0, "second_release": None, "complementary_release": None,
              "unsorted_matching_same_seed": None, "unsorted_matching_two_seeds": None, "matching_attack": None,
              "matching_note": "too large: 9 × 9 = 81 pairs to compare, above the 10 the matching attack compares"}
    findings = attack_findings(checks)
    table = attack_table(checks)
    assert [f.attack for f in findings] == list(table.attack) == list(ATTACKS)
    assert all(not f.checked and f.result.startswith("not checked: ") for f in findings)
    assert list(table.result) == [f.result for f in findings]
    assert recommend(True, [], findings).option == AS_PROPOSED
    assert len(recommend(True, [], findings).not_covered) == 4


def test_the_export_page_shows_the_summary(teaching):
    """The Export page shows, at its top, the summary the library computes for the exported release."""
    from streamlit.testing.v1 import AppTest

    from workbench.config import study_from_dict

    study = teaching[0]
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    at.number_input(key="an_k").set_value(study.k).run()
    at.button[0].click().run()
    goto(at, "Export").run()
    assert not at.exception and not at.error
    assert "Decision summary" in [h.value for h in at.subheader]
    raw = dict(at.session_state["last_run"].study.raw)  # the run the page exports, with its defaults
    raw["release"] = {"seed": 0, "format": "csv", "suppressed": "mark"}
    run = wb.run(study_from_dict(raw))
    expected = build_summary(run.study, run)
    boxes = " ".join(b.value for b in [*at.success, *at.warning, *at.error])
    assert f"Recommendation: {expected.recommendation.option}." in boxes
    for w in expected.warnings:
        assert w.title in boxes
    markdown = " ".join(m.value for m in at.markdown)
    assert expected.cost_line.split(":")[0] in markdown and expected.attacks_line in markdown
    frames = [d.value for d in at.dataframe]
    released = next(f for f in frames if "what the release does" in f.columns and set(f.column) ==
                    {c.name for c in expected.released})
    assert list(released["what the release does"]) == [c.what for c in expected.released]
    risk = next(f for f in frames if list(f.columns) == ["figure", "input", "release"])
    assert list(risk.figure) == list(RISK_FIGURES) and list(risk.release) == [r.after for r in expected.risk]
    withheld = [f for f in frames if "what the release does" in f.columns and f is not released]
    assert len(withheld) == 1 and list(withheld[0]["column"]) == [c.name for c in expected.withheld]
    unescaped = markdown.replace("\\", "")  # md() escapes Markdown's characters (the * of a suppressed value)
    for g in expected.guarantee:  # the guarantee in words, and the decision record's options
        assert f"**{g.name}**" in unescaped and g.words in unescaped
    for o in OPTIONS:
        assert f"**{o.name}**" in unescaped and o.means in unescaped
