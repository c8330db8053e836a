"""The report's section on a table de-identified elsewhere (``workbench.audit``): what the workbench measured of it
as it is, each figure with its meaning, for a review board asked to accept a file an outside contractor produced.

``check_section(result)`` is the section's HTML (the report's other sections are about a release the workbench
made, so a report on an outside file holds this one); ``build_check_report(...)`` is a page of its own, written by
``workbench check --report DIR`` and offered by the app's Check page, with the report's style and its content
security policy (nothing fetched, so it opens offline and prints as it shows). Every value from the table is
escaped (``workbench.views.display``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from workbench.audit import CheckResult, check_file, check_table
from workbench.risk import DEFAULT_THRESHOLD
from workbench.views.display import esc, fmt, pairs_html, percent, table_html

SECTION_ID = "check"
TITLE = "The table as delivered"
FILE_NAME = "check.html"


def _p(text: str, css: str = "") -> str:
    return f'<p class="{css}">{esc(text)}</p>' if css else f"<p>{esc(text)}</p>"


def check_section(result: CheckResult) -> str:
    """The section's HTML (without its heading): what was measured, the figures with their meanings, the records
    by risk, and what the figures do not say."""
    figures = result.figures()
    parts = [
        _p(f"{result.source} was de-identified outside the workbench; the figures below are measured on the table as "
           f"delivered. It holds {fmt(result.records)} records; {fmt(result.suppressed)} of them carry * in every "
           f"quasi-identifier (suppressed records) and are left out, so the figures are over {fmt(result.kept)} "
           f"records in {fmt(result.classes)} equivalence classes, the groups of records with the same values of "
           f"{', '.join(result.quasi_identifiers)}."),
        pairs_html([("file", result.source), ("SHA-256", result.sha256 or "-"),
                    ("quasi-identifiers", ", ".join(result.quasi_identifiers)),
                    ("sensitive attributes", ", ".join(s.attribute for s in result.sensitive) or "-"),
                    ("records", result.records), ("suppressed records left out", result.suppressed),
                    ("equivalence classes", result.classes)], "What was measured"),
        table_html(figures.loc[figures.attribute == "", ["figure", "value", "meaning"]],
                   "Re-identification: the quasi-identifiers", max_rows=len(figures)),
    ]
    missing = figures.loc[(figures.figure == "missing") & figures.attribute.isin(result.quasi_identifiers)]
    if len(missing):
        parts.append(table_html(missing[["attribute", "value", "meaning"]], "Missing values", max_rows=len(missing)))
    for s in result.sensitive:
        rows = figures.loc[figures.attribute == s.attribute, ["figure", "value", "meaning"]]
        parts.append(table_html(rows, f"Disclosure of {s.attribute}", max_rows=len(rows)))
    risks = result.record_risks()
    risks = pd.DataFrame({"class size": risks["class_size"], "risk 1/size": [percent(v) for v in risks["risk"]],
                          "records": risks["records"], "classes": risks["groups"],
                          "share of the records": [percent(v) for v in risks["share"]]})
    parts.append(table_html(risks, "Records by the size of their class (smallest first)", max_rows=30))
    parts.append(_p("What these figures do not say: they assume the attacker knows exactly the quasi-identifiers "
                    "named above, and they measure the file against itself (prosecutor risk: the attacker knows the "
                    "person is in it), not against the population it was drawn from. A quasi-identifier left out of "
                    "the list, or a released column that gives one back, is not accounted for."))
    parts.append(f"<p>Measured again with:</p><pre>{esc(result.command())}</pre>")
    return "".join(parts)


@dataclass(frozen=True, eq=False)
class CheckReport:
    """The page of a check: ``html`` and the ``result`` it shows."""

    html: str
    result: CheckResult

    def files(self) -> dict[str, bytes]:
        return {FILE_NAME: self.html.encode("utf-8")}

    def write(self, out_dir: str | Path, *, force: bool = False) -> dict[str, Path]:
        """Write ``check.html`` into ``out_dir``, whole or not at all (``workbench.release.output.write_folder``)."""
        from workbench.release.output import write_folder

        return write_folder(out_dir, self.files(), force=force)


def build_check_report(table: CheckResult | pd.DataFrame | str | Path, quasi_identifiers: Sequence[str] = (),
                       sensitive: Sequence[str] = (), ell: int | None = None, threshold: float = DEFAULT_THRESHOLD,
                       source: str = "the table") -> CheckReport:
    """The page of a check: of a ``CheckResult`` as it is, or of a table (a frame, or a file's path) measured with
    the given columns (``workbench.audit.check_table`` / ``check_file``)."""
    from workbench.report.render import CSP, CSS

    if isinstance(table, CheckResult):
        result = table
    elif isinstance(table, pd.DataFrame):
        result = check_table(table, quasi_identifiers, sensitive, ell, threshold, source=source)
    else:
        result = check_file(table, quasi_identifiers, sensitive, ell, threshold)
    title = f"Anonymity check: {result.source}"
    lead = ("Written for a review board: every figure the workbench measures of a table de-identified elsewhere, "
            "each with what it says about this table.")
    html = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
            f"<h1>{esc(title)}</h1><p class=\"lead\">{esc(lead)}</p>"
            f'<section id="{SECTION_ID}"><h2>{esc(TITLE)}</h2>{check_section(result)}</section></body></html>')
    return CheckReport(html, result)
