"""The ethics-board report of a release: one self-contained HTML file (and optionally a PDF) that says, for a
reader who is not an engineer, what data was de-identified, how, what risk is left, what it cost under every
measure, which alternatives were weighed, what was checked, and how to reproduce it (docs/report.md).

``build_report(study)`` runs the study (or takes a ``RunResult``) and returns a ``Report``; ``workbench report``
and the app's Export page both call it. Its first page is a ``Summary`` (``workbench.report.summary``): the decision
a board takes, from the same figures; ``build_summary`` computes it alone, for the top of the Export page.
Charts are altair specs rendered to inline SVG by vl-convert; the PDF is WeasyPrint's rendering of the same HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from workbench.config import Study
from workbench.data import Dataset
from workbench.report.check_section import CheckReport, build_check_report  # a table from elsewhere
from workbench.report.facts import Facts, default_command, gather, gather_summary
from workbench.report.render import SECTIONS, render
from workbench.report.summary import Summary
from workbench.study import Progress, RunResult

__all__ = ["SECTIONS", "CheckReport", "Report", "Summary", "build_check_report", "build_report", "build_summary"]


@dataclass(frozen=True, eq=False)
class Report:
    """A built report: ``html`` (the page), ``facts`` (every figure it shows, as computed)."""

    html: str
    facts: Facts

    def pdf(self) -> bytes:
        """The page as a PDF (WeasyPrint; nothing is fetched: the page holds everything it shows)."""
        from weasyprint import HTML

        def refuse(url: str) -> dict[str, object]:
            raise ValueError(f"the report fetches nothing, not {url!r}")

        return HTML(string=self.html, url_fetcher=refuse).write_pdf()

    def files(self, pdf: bool = False) -> dict[str, bytes]:
        """``report.html`` (and ``report.pdf``) as bytes, and ``alternatives.csv``: every alternative the report
        compares, numbered as the page's table (the printed report lists the best of them and the chosen one)."""
        from workbench.release.output import table_csv

        out = {"report.html": self.html.encode("utf-8")}
        table = self.facts.alternatives.get("table")
        if table is not None:
            out["alternatives.csv"] = table_csv(alternatives_table(table))
        if pdf:
            out["report.pdf"] = self.pdf()
        return out

    def write(self, out_dir: str | Path, *, pdf: bool = False, force: bool = False) -> dict[str, Path]:
        """Write the report into ``out_dir``, whole or not at all (``workbench.release.output.write_folder``)."""
        from workbench.release.output import write_folder

        return write_folder(out_dir, self.files(pdf), force=force)

    def _repr_pretty_(self, printer: object, cycle: bool) -> None:  # Jupyter's text form: one line
        printer.text(f"Report({len(SECTIONS)} sections, {len(self.html):,} characters of HTML)")  # type: ignore[attr-defined]

    def _repr_html_(self) -> str:
        return f'<iframe srcdoc="{_attribute(self.html)}" style="width:100%;height:640px;border:1px solid #ccc">' \
               "</iframe>"


def alternatives_table(table: pd.DataFrame) -> pd.DataFrame:
    """The comparison's marked table (``Comparison.marked``) as ``alternatives.csv`` holds it: led by ``#``, the row's
    number in the report's table of alternatives."""
    out = table.reset_index(drop=True)
    out.insert(0, "#", range(1, len(out) + 1))
    return out


def _attribute(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def build_summary(study: Study, result: RunResult) -> Summary:
    """The report's first page alone (``Summary``), computed as ``build_report`` computes it, without the
    hierarchies, the alternatives and the provenance: what the app's Export page shows above its downloads."""
    summary = gather_summary(study, result).summary
    assert summary is not None
    return summary


def build_report(study: Study, result: RunResult | None = None, dataset: Dataset | None = None,
                 command: str | None = None, progress: Progress | None = None,
                 recorded: int | None = None) -> Report:
    """The report of the study's release: ``result`` when given (the run it reports on), else ``run(study)``.
    ``command`` is the command line printed under "Reproduce it" (default: ``workbench report`` of the study's
    config file). ``progress(fraction, text)`` is told each phase. ``recorded``: the release's id in the register
    (docs/register.md), which the release history names with its decision."""
    from workbench.study import run

    report = progress or (lambda fraction, text: None)
    if result is None:
        result = run(study, dataset, progress=lambda f, text: report(0.3 * f, text))
    facts = gather(study, result, command or default_command(study),
                   progress=lambda f, text: report(0.3 + 0.7 * f, text), recorded=recorded)
    return Report(render(facts), facts)
