"""The report as one self-contained HTML page: inline CSS, charts as inline SVG, no script, and a content
security policy that forbids fetching anything, so it opens offline and prints (WeasyPrint) as it shows.
Every value that comes from the data or the config is escaped (``workbench.views.display``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

import measures as M
from workbench.compare.ranking import OPTIMUM
from workbench.report.facts import TOP_ALTERNATIVES, Facts
from workbench.report.register_section import register_section
from workbench.report.summary_html import SUMMARY_CSS, summary_section
from workbench.risk.attack_checks import row_order_finding
from workbench.views.display import esc, fmt, pairs_html, percent, table_html

SECTIONS = (
    ("summary", "Decision summary"),
    ("dataset", "The dataset"),
    ("hierarchies", "Quasi-identifiers and their hierarchies"),
    ("privacy-model", "The privacy model"),
    ("risk", "Re-identification risk before and after"),
    ("release", "The chosen release"),
    ("costs", "What it costs"),
    ("alternatives", "The alternatives considered"),
    ("checks", "Checks done"),
    ("attacks", "Attacks checked"),
    ("register", "Release history"),  # report/register_section.py
    ("provenance", "Provenance"),
)
"""Section ids and titles, in the order of the report. The summary (``workbench.report.summary``) comes first, above
the table of contents: it is the page a board reads."""

CSS = """
@page { size: A4; margin: 16mm 14mm;
        @bottom-right { content: "page " counter(page) " of " counter(pages); font: 9px "DejaVu Sans", sans-serif;
                        color: #777; } }
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 13px; color: #222; max-width: 960px;
       margin: 0 auto; padding: 12px 20px; line-height: 1.45; }
h1 { font-size: 22px; margin-bottom: 2px; } h2 { font-size: 17px; border-bottom: 1px solid #bbb; margin-top: 28px; }
h3 { font-size: 14px; margin-bottom: 4px; }
table { border-collapse: collapse; margin: 6px 0 12px 0; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 7px; text-align: left; vertical-align: top; }
table.wide { font-size: 10.5px; } table.wide td, table.wide th { padding: 1px 4px; overflow-wrap: anywhere; }
table.full { font-size: 10.5px; } table.full td, table.full th { padding: 1px 4px; }
table.full td { white-space: nowrap; }
table.compact { font-size: 10.5px; } table.compact td, table.compact th { padding: 1px 5px; }
td.num { white-space: nowrap; } table.wide td.num { overflow-wrap: normal; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.chosen td { font-weight: bold; background: #fdecea; }
caption { text-align: left; font-weight: bold; padding: 3px 0; }
.lead { color: #555; } .ok { color: #1a7f37; font-weight: bold; } .bad { color: #b42318; font-weight: bold; }
.warn { background: #fff4e5; border-left: 4px solid #f79009; padding: 6px 10px; }
.note { color: #555; font-size: 12px; }
pre { background: #f6f6f6; padding: 8px; font-size: 11px; white-space: pre-wrap; word-break: break-all; }
figure { margin: 8px 0; } figcaption { color: #555; font-size: 12px; }
svg { max-width: 100%; height: auto; }
section { page-break-inside: auto; } nav ol { columns: 2; }
.url { overflow-wrap: anywhere; word-break: break-all; }
@media screen { .scroll { overflow-x: auto; } }
.print-only { display: none; }
@media print {
  body { max-width: none; padding: 0; }
  .print-only { display: block; } .screen-only { display: none; }
  h2, h3, caption { break-after: avoid; } figure, tr { break-inside: avoid; }
  table.data td { overflow-wrap: anywhere; } table.data td.num { overflow-wrap: normal; }
}
""" + SUMMARY_CSS

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _p(text: str, css: str = "") -> str:
    return f'<p class="{css}">{esc(text)}</p>' if css else f"<p>{esc(text)}</p>"


CHOSEN_MARK = "\u00a0◀\u00a0chosen"  # beside the chosen release's row number, never broken across lines
PRINT_COLUMNS = 6
"""A printed table of the data's own columns shows at most this many; a wider one is cut into several, so no
column is squeezed to a letter a line and none falls off the page."""


def _screen(html: str) -> str:
    """Shown on screen only (the page), not in print (the PDF, a browser's print)."""
    return f'<div class="screen-only">{html}</div>'


def _print(html: str) -> str:
    """Shown in print only (the PDF, a browser's print), not on screen."""
    return f'<div class="print-only">{html}</div>'


def _data_table(frame: pd.DataFrame, caption: str, max_rows: int) -> str:
    """A table of the data's own columns: whole on screen; in print cut into tables of at most ``PRINT_COLUMNS``
    columns, each led by the row's number."""
    whole = table_html(frame, caption, max_rows=max_rows, css_class="data")
    n = len(frame.columns)
    if n <= PRINT_COLUMNS:
        return whole
    numbered = frame.head(max_rows).reset_index(drop=True)
    numbered.insert(0, "row", range(1, len(numbered) + 1))
    parts = []
    for start in range(0, n, PRINT_COLUMNS):
        end = min(start + PRINT_COLUMNS, n)
        part = numbered.iloc[:, [0, *range(start + 1, end + 1)]]
        parts.append(table_html(part, f"{caption}: columns {start + 1}–{end} of {n}", max_rows=max_rows,
                                css_class="data compact"))
    return _screen(whole) + _print("".join(parts))


def levels(solution: object, names: Sequence[str]) -> str:
    """A lattice node's label ``age=1,sex=0,...`` (``compare_nodes.solution_label``) written compactly as its levels
    in quasi-identifier order, ``1,0,...``; any other solution (a local release's name) as it is."""
    text, out = str(solution), []
    for i, name in enumerate(names):
        prefix = ("," if i else "") + f"{name}="
        if not text.startswith(prefix):
            return str(solution)
        text = text[len(prefix):]
        digits = len(text) - len(text.lstrip("0123456789"))
        if not digits:
            return str(solution)
        out.append(text[:digits])
        text = text[digits:]
    return ",".join(out) if out and not text else str(solution)


def _levels_legend(names: Sequence[str]) -> str:
    return (f"A lattice solution is written as its levels: each quasi-identifier's level in its hierarchy, in the "
            f"order {', '.join(names)} (0 = the original value); a local release by its algorithm's name.")


def _dataset(f: Facts) -> str:
    d = f.dataset
    counts = d["attributes"].role.value_counts()
    roles = ", ".join(f"{n} {r}" for r, n in counts.items())
    return (_p(f"The data comes from {d['source']}: {fmt(d['records'])} records with {d['columns']} columns "
               f"({roles}). Each column has a role that decides what the release does with it.")
            + table_html(d["attributes"], max_rows=200))


def _hierarchies(f: Facts) -> str:
    parts = [_p("A quasi-identifier is made less precise by climbing its hierarchy: level 0 is the value itself, "
                "each level above merges values, and the top usually says nothing (*).")]
    for h in f.hierarchies:
        parts.append(f"<h3>{esc(h['attribute'])}</h3>")
        if h["note"]:
            parts.append(_p(h["note"]))
        if h["levels"] is not None:
            parts.append(table_html(h["levels"], f"{h['attribute']}: {h['height']} level(s) above the original value",
                                    max_rows=50))
        if h["tree"]:
            start = h.get("tree_from_level", 0)
            note = f" (drawn from level {start}, where it has few enough values)" if start else ""
            parts.append(f"<figure>{h['tree']}<figcaption>The hierarchy of {esc(h['attribute'])} as a tree{esc(note)}"
                         "</figcaption></figure>")
    return "".join(parts)


def _privacy(f: Facts) -> str:
    p = f.privacy
    k = p["k"]
    parts = [
        _p(f"k-anonymity with k = {k}: every combination of quasi-identifier values that appears in the release is "
           f"shared by at least {k} records, so someone who knows a person's quasi-identifiers and that the person "
           f"is in the data finds at least {k} matching rows and cannot tell which one is theirs." if k > 1 else
           "k-anonymity with k = 1 asks nothing of the groups of identical rows: a person's released row may be the "
           "only one that matches their quasi-identifiers, so whatever protection there is comes from the "
           "generalization and the other privacy models."),
        _p(f"Suppression: up to {percent(p['max_suppression'])} of the records (at most {fmt(p['limit'])} of "
           f"{fmt(p['records'])}) may be suppressed, that is released with * in every quasi-identifier, when "
           "that lets the others be generalized less." if p["engine"] == "lattice" else
           "Suppression: the local engine suppresses no record; a value it must hide is generalized to the top of "
           "its hierarchy, cell by cell."),
        _p(f"How the data is changed: {p['how']}. Algorithm: {p['algorithm']}."),
        _p(f"What it minimizes: {p['objective_name']} ({p['objective']}): {p['objective_plain']}"),
    ]
    if p["models"]:
        models = pd.DataFrame([{"model": m["model"], "requirement": m["description"],
                                "holds on the release": m["holds"]} for m in p["models"]])
        parts.append(_p("Further privacy models, each re-checked on the release:") + table_html(models))
    return "".join(parts)


def _risk_rows(r: dict[str, Any] | None) -> list[str]:
    if r is None:
        return ["-"] * len(RISK_LABELS)
    pro = r["prosecutor"]
    return [fmt(r["records"]), fmt(r["classes"]), fmt(r["suppressed"]), fmt(r["groups"]), percent(pro["highest"]),
            percent(pro["average"]), f"{fmt(pro['records_at_risk_count'])} ({percent(pro['records_at_risk'])})",
            percent(r["marketer"]) if r["journalist"] is not None else SAME_AS_AVERAGE, percent(r["sample_uniques"])]


SAME_AS_AVERAGE = "the average risk above"  # without a population table marketer risk is groups / records too


RISK_LABELS = ("records", "equivalence classes (sets of identical quasi-identifier rows, records not suppressed)",
               "suppressed records", "groups the risk counts (the classes, and the suppressed records as one group)",
               "highest risk of any record (1 / its group's size)", "average risk over the records (groups / records)",
               "records at risk", "marketer risk (share re-identified on average)", "records alone in their group")


def _risk(f: Facts) -> str:
    r = f.risk
    threshold = percent(r["threshold"])
    table = pd.DataFrame({"figure": RISK_LABELS, "input": _risk_rows(r["before"]), "release": _risk_rows(r["after"])})
    parts = [_p("Risk here is the chance that someone who knows a person's quasi-identifiers picks that person's row: "
                f"1 divided by the size of the person's group of identical rows. A record is at risk when that "
                f"chance exceeds {threshold} (a group under {round(1 / r['threshold'])} records)."),
             table_html(table, "Re-identification risk (prosecutor model)")]
    if r["population"]:
        rows = []
        for name in ("pitman", "zayatz", "snb", "dankar"):
            rows.append({"estimate": name,
                         "input": percent((r["before"]["population_uniques"] or {}).get(name)),
                         "release": percent(((r["after"] or {}).get("population_uniques") or {}).get(name))})
        parts.append(table_html(pd.DataFrame(rows), f"Estimated share of the population ({fmt(r['population'])} "
                                                     "people) that is unique"))
    parts.append(f"<figure>{r['chart']}<figcaption>How many records carry each level of risk, in the input and in "
                 "the release (the suppressed records form one group of *).</figcaption></figure>")
    return "".join(parts)


def _release(f: Facts) -> str:
    r = f.release
    if not r:
        return _p("No solution meets the privacy model with this configuration: there is no release.", "bad")
    state = ('<span class="ok">verified</span>' if r["guarantee"]["holds"]
             else '<span class="bad">DOES NOT hold</span>')
    parts = [f"<p>Guarantee: {esc(r['guarantee']['kind'])}, {state}, re-checked from the released table itself. "
             f"It means: {esc(r['meaning'])}.</p>",
             *([_p("Beside this guarantee, the check of the released columns that could give a quasi-identifier "
                   "back warns (Checks done): " + " | ".join(r["gives_back"]), "warn")]
               if r.get("gives_back") else []),
             _p(r["describe"]),
             _p(f"Suppressed: {r['suppressed_note']}; they are "
                + ("released with * in every quasi-identifier." if r["policy"] == "mark"
                   else "left out of the release.")),
             _p(f"The release has {fmt(r['classes'])} equivalence classes (sets of identical quasi-identifier rows "
                f"among the records not suppressed); the smallest holds {fmt(r['smallest_class'])} records.")]
    if not r["k_anonymous"]:
        parts.append(_p("This guarantee is weaker than k-anonymity.", "warn"))
    if r["suppressed_warning"]:
        parts.append(_p(r["suppressed_warning"], "warn"))
    if r["levels"] is not None:
        parts.append(table_html(r["levels"], "How each quasi-identifier is released"))
    caption = f"{r['shown_rows']} released rows drawn at random (of {fmt(r['released_rows'])})"
    parts.append(_data_table(r["sample"], caption, max_rows=len(r["sample"]) or 1))
    return "".join(parts)


def _costs(f: Facts) -> str:
    if f.costs.empty:
        return _p("There is no release to measure.")
    return (_p("Generalization and suppression make the data less precise. Each measure below counts that loss "
               "in its own way; direction says whether lower or higher is better, and normalized puts the value "
               "on a scale from 0 to 1 where the measure has one.")
            + table_html(f.costs, "The release under every measure", max_rows=50))


def _alternatives(f: Facts) -> str:
    a = f.alternatives
    if "error" in a:
        return _p(f"The alternatives could not be compared: {a['error']}")
    names = list(f.result.dataset.quasi_identifiers)
    parts = [_p(line) for line in a["why"]]
    parts.append(_p("Alternatives: the lattice engine's minimal solutions that meet the privacy model (for a measure "
                    "that never improves by generalizing more, the best solution is one of them) and the local "
                    "engine's releases for the same k. chosen marks this release; pareto marks the solutions no other "
                    "solution beats under every measure at once."))
    parts.append(_p(_levels_legend(names), "note"))
    table = a["table"]
    chosen = table["chosen"].to_numpy(dtype=bool)
    number = pd.Series(range(1, len(table) + 1), index=table.index)
    marks = ["chosen" if c else "" for c in chosen]
    whole = table.assign(solution=[levels(v, names) for v in table["solution"]],
                         chosen=[CHOSEN_MARK.strip() if c else "" for c in chosen])
    whole.insert(0, "#", number.to_numpy())
    parts.append(_screen('<div class="scroll">' + table_html(
        whole, f"The {len(table)} alternatives under every measure compared", max_rows=len(table) or 1,
        css_class="full", row_classes=marks) + "</div>"))
    parts.append(_print(_alternatives_printed(f, table, number, names)))
    parts.append(_screen(table_html(a["optimal_under"].assign(
        solution=[levels(v, names) for v in a["optimal_under"]["solution"]]), "What each measure would choose",
        max_rows=len(a["optimal_under"]) or 1)))
    parts.append(_print(_optimal_printed(a, table, names)))
    if a["chart"]:
        x, y = a["axes"]
        parts.append(f"<figure>{a['chart']}<figcaption>The alternatives under {esc(x)} and {esc(y)} (lower is better "
                     "on both), the Pareto front marked and the chosen release ringed.</figcaption></figure>")
    return "".join(parts)


def _alternatives_printed(f: Facts, table: pd.DataFrame, number: pd.Series, names: Sequence[str]) -> str:
    """The printed alternatives: the rows of ``facts.top_alternatives`` (the best under the objective, then the
    chosen release wherever it ranks) in two tables that fit a page: how each was made and the risk it leaves,
    then its value under every measure. The chosen release's row is bold and marked."""
    a = f.alternatives
    top = [i for i in a["top"] if i in table.index]
    shown = table.loc[top]
    chosen = shown["chosen"].to_numpy(dtype=bool)
    label = [f"{number[i]}{CHOSEN_MARK}" if c else str(number[i]) for i, c in zip(top, chosen, strict=True)]
    marks = ["chosen" if c else "" for c in chosen]
    objective = M.MEASURES.get(f.study.objective)
    ranked = min(TOP_ALTERNATIVES, len(table))
    extra = [str(number[i]) for i in top[ranked:]]
    order = (f"with the least {objective.name if objective else f.study.objective}"
             if f.study.objective in table.columns else "first in the table's order")
    intro = ((f"This printed report lists all {len(table)} alternatives, those that meet the configured rule first"
              if len(top) == len(table) else
              f"This printed report lists {len(top)} of the {len(table)} alternatives: the {ranked} {order} (those "
              "that meet the configured rule first)" + (f", and the chosen release (row {', '.join(extra)})"
                                                         if extra else ""))
             + f". The report's HTML page lists all {len(table)} and what each measure would choose among them; "
               "workbench report also writes them to alternatives.csv beside report.html.")

    def column(name: str, show: Any) -> list[str]:
        return [show(v) for v in shown[name]] if name in shown.columns else ["-"] * len(shown)

    how = pd.DataFrame({
        "#": label,
        "alternative": [f"{e} · {g}" for e, g in zip(shown["engine"], shown["algorithm"], strict=True)],
        "solution (levels)": [levels(v, names) for v in shown["solution"]],
        "suppressed": column("suppressed_pct", lambda v: percent(float(v) / 100)),
        "highest risk": column("risk_highest", percent),
        "average risk": column("risk_average", percent),
        "meets the rule": column("meets_rule", lambda v: fmt(bool(v))),
        "Pareto front": column("pareto", lambda v: fmt(bool(v))),
    })
    scores = pd.DataFrame({"#": label, **{m: shown[m].to_numpy() for m in a["measures"] if m in shown.columns}})
    return (_p(intro, "note")
            + table_html(how, "The alternatives: how each was made and the risk it leaves", max_rows=len(how) or 1,
                         css_class="compact", row_classes=marks)
            + table_html(scores, "The same alternatives under every measure compared", max_rows=len(scores) or 1,
                         css_class="compact", row_classes=marks))


def _optimal_printed(a: dict[str, Any], table: pd.DataFrame, names: Sequence[str]) -> str:
    """What each measure would choose, one row per measure: the lattice optimum over every admissible node, the
    best of everything listed, and the chosen release's own value."""
    ou = a["optimal_under"]
    chosen = table.index[table["chosen"].to_numpy(dtype=bool)]
    rows = []
    for m in a["measures"]:
        mine = ou[ou["measure"] == m]
        optimum = mine[mine["algorithm"] == OPTIMUM]
        best = mine[mine["best_overall"].fillna(False).astype(bool)]
        measure = M.MEASURES.get(m)
        rows.append({
            "measure": measure.name if measure else m,
            "lattice optimum (levels)": levels(optimum["solution"].iloc[0], names) if len(optimum) else "-",
            "optimum's value": optimum["value"].iloc[0] if len(optimum) else None,
            "best of all listed": "; ".join(f"{e} · {levels(s, names)}" for e, s in
                                            zip(best["engine"], best["solution"], strict=True)) or "-",
            "best value": best["value"].iloc[0] if len(best) else None,
            "the chosen release": table.loc[chosen[0], m] if len(chosen) and m in table.columns else None,
        })
    frame = pd.DataFrame(rows)
    return table_html(frame, "What each measure would choose", max_rows=len(frame) or 1, css_class="compact")


def _checks(f: Facts) -> str:
    rows = pd.DataFrame(f.checks)
    return (_p("The release was checked from its own table before this report was written:")
            + table_html(rows, max_rows=100))


def _attacks(f: Facts) -> str:
    a = f.attacks
    if not a:
        return _p("There is no release to attack.")
    if "error" in a:
        return _p(f"The attacks could not be simulated: {a['error']}")
    c = a["checks"]
    k, rare = c["k"], c["rare_values"]
    parts = [_p("The workbench simulated the attacks of Sweeney (2002) and Katirai (2006) on this release. An attacker "
                "who holds a second release of the same table (here the first other minimal solution, standing for "
                "another recipient's copy) joins the two; one who knows everyone's quasi-identifiers matches rows "
                "to people."),
             _p(f"Values held by fewer than {k} records in the input: {fmt(len(rare['values']))}, in "
                f"{fmt(rare['records'])} records; each needed generalizing or suppressing.")]
    if len(a["rare"]):
        parts.append(table_html(a["rare"], f"Quasi-identifier values rarer than k = {k}", max_rows=30))
    parts.append(table_html(a["table"], "The attacks and what they yield", css_class="wide"))
    finding = row_order_finding(c)  # written from the unsorted-matching figures
    if finding is not None:
        parts.append(_p(finding))
    return "".join(parts)


def _provenance(f: Facts) -> str:
    p = f.provenance
    record = p["record"]
    pairs: list[tuple[str, object]] = [("created", record.get("created", "-")), ("input", p["source"])]
    if p["file_sha256"]:
        pairs.append((p.get("file_sha256_label", "input file SHA-256"), p["file_sha256"]))
    pairs.append(("input content SHA-256 (the table's values)", record.get("input", {}).get("content_sha256", "-")))
    pairs += [("records", record.get("input", {}).get("records", "-")), ("shuffle seed", p["seed"]),
              ("search seed", p["search_seed"])]
    versions = pd.DataFrame({"package": list(p["versions"]), "version": list(p["versions"].values())})
    return (pairs_html(pairs, "Where it comes from") + table_html(versions, "Versions", max_rows=50)
            + "<h3>Reproduce it</h3>" + _p("This report:") + f"<pre>{esc(p['command'])}</pre>"
            + _p("The release itself:") + f"<pre>{esc(p['run_command'])}</pre>"
            + "<h3>The configuration</h3>" + f"<pre>{esc(p['config_toml'])}</pre>")


RENDERERS = {"dataset": _dataset, "hierarchies": _hierarchies, "privacy-model": _privacy, "risk": _risk,
             "release": _release, "costs": _costs, "alternatives": _alternatives, "checks": _checks,
             "attacks": _attacks, "provenance": _provenance}
RENDERERS["summary"] = summary_section
RENDERERS["register"] = register_section  # the register's releases of this data (report/register_section.py)


def render(f: Facts) -> str:
    """The whole page."""
    study = f.study
    title = f"De-identification report: {f.dataset['source']}"
    nav = "".join(f'<li><a href="#{sid}">{esc(name)}</a></li>' for sid, name in SECTIONS)
    first, *rest = [f'<section id="{sid}"><h2>{esc(name)}</h2>{RENDERERS[sid](f)}</section>' for sid, name in SECTIONS]
    body = "".join(rest)
    suppression = (f"at most {percent(study.max_suppression)} of the records suppressed"
                   if study.engine == "lattice" else "no record suppressed")
    lead = (f"k = {study.k}, {suppression}, {study.engine} engine, {study.algorithm}. Written for a review board: "
            "each section says what was done and what it means; the figures are the workbench's own.")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
            f"<h1>{esc(title)}</h1><p class=\"lead\">{esc(lead)}</p>{first}<nav><ol>{nav}</ol></nav>{body}"
            "</body></html>")
