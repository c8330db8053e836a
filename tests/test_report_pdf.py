"""The printed report (``Report.pdf``, WeasyPrint): laid out, then read back with pdfplumber, which gives every
character's box on its page. A report of real size (the registry, Adult with nine quasi-identifiers) fits in at
most 25 A4 pages, no character leaves its page or runs over another (an axis's labels piled into a band, a tree's
labels over each other), and the chosen release is marked in every table and chart of the alternatives.

The checker itself is tested first, on pages made to break each rule."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pdfplumber
import pytest

import measures as M
import workbench as wb
from workbench import risk
from workbench.compare.nodes import solution_label
from workbench.report import alternatives_table
from workbench.report.charts import RISK_BANDS, risk_bands
from workbench.report.facts import TOP_ALTERNATIVES, top_alternatives
from workbench.report.render import levels
from workbench.views.display import fmt

ROOT = Path(__file__).resolve().parents[1]
MAX_PAGES = 25
OVERLAP = 0.2  # two characters overlap when they share more than this share of the smaller one's box
MARK = "◀ chosen"


def read_pdf(data: bytes) -> dict:
    """Every page's text (pdfplumber) and what breaks the layout rules: characters outside the page or outside its
    left and right margins, characters across the edge of a filled box of at least 100 x 60 points (a chart's
    background, whose edge clips them: a legend cut to "Pareto fron"), and pairs of characters drawn over each
    other (a character and the next in the text are left out: kerning may touch them)."""
    out: dict = {"pages": 0, "outside": [], "outside_margins": [], "overlaps": [], "cut": [], "text": []}
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        out["pages"] = len(pdf.pages)
        for number, page in enumerate(pdf.pages, 1):
            out["text"].append((page.extract_text() or "").replace("\u00a0", " "))
            chars = [c for c in page.chars if c["text"].strip()]
            margin = 14 / 25.4 * 72  # the report's left and right margins, 14 mm
            for c in chars:
                if c["x0"] < -0.5 or c["top"] < -0.5 or c["x1"] > page.width + 0.5 or c["bottom"] > page.height + 0.5:
                    out["outside"].append((number, c["text"], round(c["x0"]), round(c["top"])))
                if c["x0"] < margin - 1 or c["x1"] > page.width - margin + 1:
                    out["outside_margins"].append((number, c["text"], round(c["x0"]), round(c["top"])))
            for r in page.rects:  # a chart's background: a character across its edge is cut off there
                if r["fill"] and r["width"] >= 100 and r["height"] >= 60:
                    out["cut"] += [(number, c["text"], round(c["x0"]), round(c["top"])) for c in chars
                                   if c["x1"] > r["x0"] and c["x0"] < r["x1"] and c["bottom"] > r["top"]
                                   and c["top"] < r["bottom"]
                                   and (c["x0"] < r["x0"] - 0.5 or c["x1"] > r["x1"] + 0.5 or c["top"] < r["top"] - 0.5
                                        or c["bottom"] > r["bottom"] + 0.5)]
            if not chars:
                continue
            box = np.array([[c["x0"], c["top"], c["x1"], c["bottom"]] for c in chars])
            w = np.clip(np.minimum(box[:, None, 2], box[None, :, 2]) - np.maximum(box[:, None, 0], box[None, :, 0]), 0,
                        None)
            h = np.clip(np.minimum(box[:, None, 3], box[None, :, 3]) - np.maximum(box[:, None, 1], box[None, :, 1]), 0,
                        None)
            area = (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])
            smaller = np.maximum(np.minimum(area[:, None], area[None, :]), 1e-9)
            for i, j in zip(*np.nonzero(np.triu(w * h > OVERLAP * smaller, 2)), strict=True):
                out["overlaps"].append((number, chars[i]["text"], chars[j]["text"], round(chars[i]["x0"]),
                                        round(chars[i]["top"])))
    return out


def _pdf(html: str) -> bytes:
    from weasyprint import HTML

    return HTML(string=html).write_pdf()


# ---------------------------------------------------------------------------------------------- the checker
def test_the_checker_finds_text_off_the_page_and_text_over_text():
    page = '<style>@page { size: A4; margin: 16mm 14mm; } body { font: 12px "DejaVu Sans"; }</style>'
    fine = read_pdf(_pdf(page + "<p>one line that fits</p><p>another line</p>"))
    assert fine["pages"] == 1 and not fine["outside"] and not fine["outside_margins"] and not fine["overlaps"]
    assert "one line that fits" in fine["text"][0]
    wide = read_pdf(_pdf(page + f'<p style="white-space: nowrap">{"0123456789 " * 30}</p>'))
    assert wide["outside"] and wide["outside_margins"]
    within_paper = read_pdf(_pdf(page + '<p style="margin-right: -10mm; text-align: right">right</p>'))
    assert within_paper["outside_margins"] and not within_paper["outside"]
    piled = read_pdf(_pdf(page + '<p style="position: relative">100 %<span style="position: absolute; left: 3px; '
                                 'top: 2px">200 %</span></p>'))
    assert piled["overlaps"] and not piled["outside"]
    chart = ('<svg width="200" height="100"><rect width="200" height="100" fill="white"/>'
             '<text x="{x}" y="50" font-size="12">Pareto front</text></svg>')
    cut = read_pdf(_pdf(page + chart.format(x=150)))
    assert cut["cut"] and not cut["outside"] and not read_pdf(_pdf(page + chart.format(x=20)))["cut"]
    lines = "<br>".join(f"line {i}" for i in range(201))
    long = read_pdf(_pdf(page + f'<p style="line-height: 20px; margin: 0">{lines}</p>'))
    assert long["pages"] == 5 and "line 200" in long["text"][-1]  # 265 mm of 20 px lines: 50 a page


# ---------------------------------------------------------------------------------------------- the pieces
def test_a_node_is_written_as_its_levels_in_quasi_identifier_order():
    rng = random.Random(7)
    for _ in range(200):
        names = [f"q{i}" + rng.choice(["", "_x", "-y", "=", ",z"]) for i in range(rng.randint(1, 9))]
        node = tuple(rng.randint(0, 12) for _ in names)
        dataset = type("D", (), {"quasi_identifiers": names})()
        assert levels(solution_label(dataset, node), names) == ",".join(str(v) for v in node)
    for other in ("greedy", "mondrian", "", "q0=1", "q0=1,q1=x"):
        assert levels(other, ["q0", "q1"]) == other  # a local release's name, or no complete node, stays as it is


def _top_reference(table: pd.DataFrame, objective: str, rows: int, higher_is_better: bool) -> list:
    """The printed rows by their definition: rows meeting the rule first, each group by its objective as a loss,
    ties in table order; the first ``rows``, then every chosen row not among them."""
    def key(position: int) -> tuple:
        i = table.index[position]
        value = float(table.at[i, objective])
        return (not bool(table.at[i, "meets_rule"]), -value if higher_is_better else value, position)

    ordered = [table.index[p] for p in sorted(range(len(table)), key=key)]
    top = ordered[:rows]
    return top + [i for i in table.index[table.chosen.to_numpy(dtype=bool)] if i not in top]


@pytest.mark.parametrize("seed", range(40))
def test_the_printed_alternatives_are_the_best_under_the_objective_and_the_chosen_one(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    table = pd.DataFrame({"entropy": rng.integers(0, 6, n).astype(float), "nmi": rng.random(n).round(1),
                          "meets_rule": rng.random(n) < 0.8, "chosen": np.zeros(n, dtype=bool)},
                         index=rng.permutation(np.arange(100, 100 + n)))
    table.iloc[int(rng.integers(n)), table.columns.get_loc("chosen")] = True
    rows = int(rng.integers(1, 15))
    assert top_alternatives(table, "entropy", rows) == _top_reference(table, "entropy", rows, False)
    assert top_alternatives(table, "nmi", rows) == _top_reference(table, "nmi", rows, True)  # higher is better
    in_order = top_alternatives(table, "not a column", rows)  # then the table's order, rows meeting the rule first
    meeting = table.meets_rule.to_numpy(dtype=bool)
    assert in_order[:rows] == [*table.index[meeting], *table.index[~meeting]][:rows]
    assert table.index[table.chosen][0] in in_order


def test_the_risk_bands_count_every_record_in_the_band_of_its_group_size():
    rng = np.random.default_rng(3)
    sizes = np.concatenate([rng.integers(1, 30, 400), rng.integers(30, 3000, 20)])
    records = pd.concat([risk.record_risks(sizes).assign(table="input"),
                         risk.record_risks(sizes[sizes >= 5]).assign(table="release")], ignore_index=True)
    bands = risk_bands(records)
    for table, kept in (("input", sizes), ("release", sizes[sizes >= 5])):
        mine = bands[bands.table == table].set_index("order")
        per_record = np.repeat(kept, kept)  # every record, carrying its group's size
        for order, (low, high) in enumerate(RISK_BANDS):
            inside = (per_record >= low) & (per_record <= (high if high is not None else np.inf))
            assert mine.at[order, "records"] == inside.sum()
            assert mine.at[order, "share"] == pytest.approx(inside.sum() / len(per_record))
        assert mine["records"].sum() == len(per_record)
    assert list(bands[bands.table == "input"].band) == ["1", "2", "3–4", "5–9", "10–19", "20–49", "50–99",
                                                       "100–999", "1,000+"]


# ---------------------------------------------------------------------------------------------- a small report
@pytest.fixture(scope="module")
def teaching() -> tuple[wb.Report, dict]:
    report = wb.build_report(wb.load_study(ROOT / "sample_configs" / "teaching.toml"))
    return report, read_pdf(report.pdf())


def test_the_teaching_report_prints_inside_its_pages(teaching):
    report, pdf = teaching
    assert pdf["pages"] <= MAX_PAGES
    assert not pdf["outside"] and not pdf["outside_margins"] and not pdf["overlaps"] and not pdf["cut"]
    _the_chosen_release_is_marked(report, pdf)
    table = report.facts.alternatives["table"]
    assert len(table) <= TOP_ALTERNATIVES  # so the print lists them all, and says so
    assert f"lists all {len(table)} alternatives" in " ".join("\n".join(pdf["text"]).split())


def test_the_page_keeps_every_alternative_and_alternatives_csv_holds_them(teaching):
    report, _ = teaching
    table = report.facts.alternatives["table"]
    screen = re.search(r'<div class="screen-only"><div class="scroll">(.*?)</table>', report.html, re.S)
    assert screen and screen.group(1).count("<tr") == len(table) + 1  # the header and every row
    written = pd.read_csv(io.BytesIO(report.files()["alternatives.csv"]), keep_default_na=False)
    assert list(written["#"]) == list(range(1, len(table) + 1))
    assert list(written.solution) == list(table.solution) and list(written.chosen) == list(table.chosen)
    pd.testing.assert_frame_equal(alternatives_table(table).drop(columns="#"), table.reset_index(drop=True))
    printed = re.findall(r'<div class="print-only">(.*?)</div>', report.html.split('id="alternatives"')[1], re.S)
    tables = [t for part in printed for t in part.split("</table>")[:-1]]
    top, measures = report.facts.alternatives["top"], report.facts.alternatives["measures"]
    assert [t.count("<tr") - 1 for t in tables] == [len(top), len(top), len(measures)]  # rows under the header
    assert all(t.count('<tr class="chosen">') == 1 for t in tables[:2])
    optimum = report.facts.alternatives["optimal_under"]
    for m in measures:  # each measure's row: its lattice optimum's value and the chosen release's own
        row = re.search(rf"<tr><td>{re.escape(M.MEASURES[m].name)}</td>(.*?)</tr>", tables[2]).group(1)
        value = optimum[(optimum.measure == m) & (optimum.algorithm == "optimum")].value.iloc[0]
        assert row.split("</td>")[1] == f'<td class="num">{fmt(value)}'
        assert row.split("</td>")[-2] == f'<td class="num">{fmt(table.loc[table.chosen, m].iloc[0])}'


def _the_chosen_release_is_marked(report: wb.Report, pdf: dict) -> None:
    """The chosen release's row is marked in both printed tables of alternatives, with its levels (from the
    release's own transformation) whole on one line, and ringed and named in the Pareto chart's legend."""
    result = report.facts.result
    names = list(result.dataset.quasi_identifiers)
    text = "\n".join(pdf["text"])
    node = ",".join(str(result.release.transformation[q]) for q in names)
    marked = [line for line in text.splitlines() if MARK in line]
    assert len(marked) == 2 and all(node in line.split() for line in marked[:1]), (node, marked)  # levels, whole
    for chart in (report.facts.alternatives["chart"], report.facts.risk["chart"]):
        assert ">the chosen release</text>" in chart  # the Pareto chart's ring and the histogram's bars, named
    ring = re.search(r'<path [^>]*stroke="#b42318"', report.facts.alternatives["chart"])
    assert ring, "the chosen release is not ringed"


# ---------------------------------------------------------------------------------------------- real size
@pytest.fixture(scope="module", params=["registry", "adult9"])
def real(request) -> tuple[wb.Report, dict]:
    """The report of a real-size sample config, built and printed once for this module."""
    report = wb.build_report(wb.load_study(ROOT / "sample_configs" / f"{request.param}.toml"))
    return report, read_pdf(report.pdf())


@pytest.mark.slow
def test_a_real_size_report_fits_in_25_pages_every_character_inside_its_page(real):
    report, pdf = real
    assert pdf["pages"] <= MAX_PAGES, pdf["pages"]
    assert not pdf["outside"], pdf["outside"][:10]
    assert not pdf["outside_margins"], pdf["outside_margins"][:10]
    assert not pdf["overlaps"], pdf["overlaps"][:10]
    assert not pdf["cut"], pdf["cut"][:10]


@pytest.mark.slow
def test_a_real_size_report_marks_the_chosen_release_and_says_where_the_full_table_is(real):
    report, pdf = real
    _the_chosen_release_is_marked(report, pdf)
    table = report.facts.alternatives["table"]
    assert len(table) > TOP_ALTERNATIVES  # the case the printed table is cut for
    text = "\n".join(pdf["text"])
    shown = len(report.facts.alternatives["top"])
    objective = M.MEASURES[report.facts.study.objective].name
    assert f"lists {shown} of the {len(table)} alternatives: the {TOP_ALTERNATIVES} with the least {objective}" \
        in " ".join(text.split())
    assert "alternatives.csv" in text
    screen = re.search(r'<div class="screen-only"><div class="scroll">(.*?)</table>', report.html, re.S)
    assert screen and screen.group(1).count("<tr") == len(table) + 1  # the page keeps every row
