"""Rich display in Jupyter and the HTML pieces the report shares with it: escaped HTML tables, numbers as the
report prints them, and a progress bar for the library's ``progress(fraction, text)`` callbacks.

A notebook shows a ``Release``, ``RunResult``, ``RiskResult`` and ``Comparison`` as tables (and, for a comparison,
a chart as inline SVG) through IPython's display formatters, which ``register`` gives the functions here by the
types' names (``import workbench`` calls it when IPython is running). The core types themselves know nothing of
their display, so no core module imports this one. Every value from the data is escaped (``html.escape``): a cell
holding ``<script>`` is shown as text, never run.
"""

from __future__ import annotations

import html
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from workbench.compare.alternatives import Comparison
    from workbench.release import Release
    from workbench.risk.results import RiskResult
    from workbench.study import Progress, RunResult

STYLE = ("<style>.wb-rich table{border-collapse:collapse;margin:4px 0 10px 0;font-size:13px}"
         ".wb-rich th,.wb-rich td{border:1px solid #ccc;padding:2px 8px;text-align:left}"
         ".wb-rich td.num{text-align:right;font-variant-numeric:tabular-nums}"
         ".wb-rich caption{text-align:left;font-weight:bold;padding:4px 0}</style>")


def esc(value: object) -> str:
    """Any value as escaped HTML text."""
    return html.escape(str(value), quote=True)


def fmt(value: object) -> str:
    """A number as the report prints it: integers with thousands separators, other numbers to 6 significant
    digits; None and NaN as "-"; anything else as its text (not escaped: ``esc`` does that)."""
    if value is None:
        return "-"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isnan(v):
            return "-"
        if v.is_integer() and abs(v) < 1e15:
            return f"{int(v):,}"
        return f"{v:,.6g}" if abs(v) >= 1e-4 else f"{v:.6g}"
    return str(value)


def percent(share: float | None) -> str:
    """A share as a percentage to four significant digits (``64.66 %``; ``-`` for None), as ``workbench risk``."""
    if share is None:
        return "-"
    return "0 %" if share == 0 else f"{100 * share:.4g} %"


def _cell(value: object) -> str:
    numeric = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool | np.bool_)
    return f'<td class="num">{esc(fmt(value))}</td>' if numeric else f"<td>{esc(fmt(value))}</td>"


def _head(name: object) -> str:
    """A column name escaped, with a line-break opportunity after each ``_`` (``admission_<wbr>date``), so a
    narrow column breaks its header between words instead of widening the table past the page."""
    return esc(name).replace("_", "_<wbr>")


def table_html(frame: pd.DataFrame, caption: str | None = None, max_rows: int = 30, index: bool = False,
               css_class: str = "", row_classes: Sequence[str] | None = None) -> str:
    """A DataFrame as an HTML table, every header and cell escaped; at most ``max_rows`` rows (the rest counted
    in a last line). ``row_classes``: a CSS class per row of ``frame`` ("" for none), e.g. to mark the chosen
    release's row."""
    shown = frame.head(max_rows)
    heads = ([_head(shown.index.name or "")] if index else []) + [_head(c) for c in shown.columns]
    parts = [f'<table class="{esc(css_class)}">' if css_class else "<table>"]
    if caption:
        parts.append(f"<caption>{esc(caption)}</caption>")
    parts.append("<thead><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead><tbody>")
    classes = list(row_classes or [])
    for i, (label, row) in enumerate(zip(shown.index, shown.itertuples(index=False), strict=True)):
        cells = ([f"<th>{esc(label)}</th>"] if index else []) + [_cell(v) for v in row]
        css = classes[i] if i < len(classes) else ""
        parts.append((f'<tr class="{esc(css)}">' if css else "<tr>") + "".join(cells) + "</tr>")
    if len(frame) > max_rows:
        parts.append(f'<tr><td colspan="{len(heads)}">… {len(frame) - max_rows:,} more rows</td></tr>')
    parts.append("</tbody></table>")
    return "".join(parts)


def pairs_html(pairs: Mapping[str, object] | Sequence[tuple[str, object]], caption: str | None = None) -> str:
    """Label-value pairs as a two-column table (values formatted by ``fmt`` and escaped)."""
    items = list(pairs.items()) if isinstance(pairs, Mapping) else list(pairs)
    frame = pd.DataFrame({"": [k for k, _ in items], "value": [fmt(v) for _, v in items]})
    return table_html(frame, caption, max_rows=len(frame) or 1)


def _wrap(body: str) -> str:
    return f'{STYLE}<div class="wb-rich">{body}</div>'


# ---------------------------------------------------------------------------------------------- the objects
def release_html(release: Release, rows: int = 10) -> str:
    """A release: its guarantee re-verified, suppression, transformation, and its first released rows."""
    from workbench.release.guarantees import suppression_note

    guarantee = release.verify()
    head = {"engine / algorithm": f"{release.engine} / {release.algorithm}", "guarantee": guarantee.describe(),
            "records": release.n, "suppressed": suppression_note(int(release.suppressed.sum()), release.n),
            "classes": release.classes}
    if release.transformation is not None:
        head["transformation"] = ", ".join(f"{q}={v}" for q, v in release.transformation.items())
    body = pairs_html(head, "Release") + table_html(release.table().head(rows),
                                                    f"First {min(rows, release.n)} released rows")
    return _wrap(body)


def risk_html(risk: RiskResult) -> str:
    """A risk summary as ``workbench risk`` prints it, one figure per row."""
    r = risk.to_dict()
    pro = r["prosecutor"]
    assert isinstance(pro, dict)
    rows: list[tuple[str, object]] = [
        ("records", r["records"]), ("equivalence classes", r["classes"]), ("suppressed records", r["suppressed"]),
        ("groups (the classes, the suppressed records as one)", r["groups"]),
        ("prosecutor risk, highest", percent(pro["highest"])), ("prosecutor risk, average", percent(pro["average"])),
        (f"records at risk (1/size > {percent(pro['threshold'])})",
         f"{fmt(pro['records_at_risk_count'])} ({percent(pro['records_at_risk'])})"),
        ("marketer risk", percent(r["marketer"])), ("sample uniques", percent(r["sample_uniques"])),
    ]
    jou = r["journalist"]
    if isinstance(jou, dict):
        rows += [("journalist risk, highest", percent(jou["highest"])),
                 ("journalist risk, average", percent(jou["average"]))]
    pop = r["population_uniques"]
    if isinstance(pop, dict) and pop["population_size"] is not None:
        rows.append(("population", pop["population_size"]))
        for name in ("pitman", "zayatz", "snb", "dankar"):
            rows.append((f"population uniques ({name})", percent(pop[name])))
    return _wrap(pairs_html(rows, "Re-identification risk"))


def run_result_html(result: RunResult) -> str:
    """A run: the release's guarantee and node, its scores, the search, and its first released rows."""
    if result.release is None:
        return _wrap(f"<p>No solution is k-anonymous for k = {esc(result.study.k)} with max_suppression = "
                     f"{esc(result.study.max_suppression)} ({esc(fmt(result.dataset.n))} records).</p>")
    summary = result.summary()
    head = {"engine / algorithm": f"{summary['engine']} / {summary['algorithm']}",
            "k, max_suppression": f"{summary['k']}, {summary['max_suppression']}",
            "guarantee": result.guarantee.describe() if result.guarantee else "-",
            "classes": summary["classes"], "checks": summary["checks"], "seconds": summary["seconds"]}
    if isinstance(summary["transformation"], dict):
        head["node"] = ", ".join(f"{q}={v}" for q, v in summary["transformation"].items())
    scores = pd.DataFrame([{"measure": i, "value": s.value, "normalized": s.normalized,
                            "direction": str(s.direction)} for i, s in result.scores.items()])
    body = pairs_html(head, "Run") + table_html(scores, "Measures") + table_html(
        result.release.table().head(10), "First released rows")
    return _wrap(body)


def comparison_html(comparison: Comparison) -> str:
    """The alternatives under every measure (chosen row and Pareto front marked), each measure's optimum, and
    the Pareto chart of the first two measures as inline SVG."""
    from workbench.report.charts import pareto, svg

    table = comparison.marked()
    body = table_html(table, "Solutions under every measure", max_rows=40)
    body += table_html(comparison.optimal_under(), "Optimal under each measure", max_rows=60)
    if len(comparison.measures) >= 2 and len(table):
        x, y = comparison.measures[:2]
        body += svg(pareto(comparison.table, x, y, comparison.front, chosen=comparison.chosen))
    return _wrap(body)


def summary_line(value: object) -> str:
    """One line naming an object of the workbench (its text form in Jupyter, instead of a dataclass repr that
    would print the whole dataset)."""
    name = type(value).__name__
    release = getattr(value, "release", value)
    if name == "RiskResult":
        pro = value.prosecutor  # type: ignore[attr-defined]
        return (f"RiskResult({value.records:,} records, {value.classes:,} classes, "  # type: ignore[attr-defined]
                f"{value.suppressed:,} suppressed, {value.groups:,} groups, "  # type: ignore[attr-defined]
                f"prosecutor highest {percent(pro.highest)}, average {percent(pro.average)})")
    if name == "Comparison":
        return f"Comparison({len(value.table)} solutions under {', '.join(value.measures)})"  # type: ignore[attr-defined]
    if release is None:
        return f"{name}(no release)"
    kept = int(release.n - release.suppressed.sum())
    return (f"{name}({release.engine} / {release.algorithm}, k = {release.k}, {release.n:,} records, "
            f"{release.n - kept:,} suppressed, {release.classes:,} classes)")


def pretty(value: object, printer: Any, cycle: bool = False) -> None:
    """IPython's plain-text printer: the one line of ``summary_line``, instead of a dataclass repr that would print
    the whole dataset."""
    printer.text(summary_line(value))


DISPLAYED = {  # (module, type name): its HTML
    ("workbench.release", "Release"): release_html,
    ("workbench.study", "RunResult"): run_result_html,
    ("workbench.risk.results", "RiskResult"): risk_html,
    ("workbench.compare.alternatives", "Comparison"): comparison_html,
}
"""The types a notebook shows as HTML, by module and name (IPython registers them without importing them)."""


def rich_html(value: object) -> str:
    """The HTML a notebook shows for one of the ``DISPLAYED`` types."""
    html_of = DISPLAYED[(type(value).__module__, type(value).__name__)]
    return html_of(value)  # type: ignore[operator]


def register(ipython: Any = None) -> bool:
    """Give IPython's formatters the HTML and one-line text of every ``DISPLAYED`` type (``for_type_by_name``: the
    types are looked up when first shown, so registering imports none of them). ``ipython`` defaults to the
    running shell; returns False when there is none."""
    if ipython is None:  # the running shell, when IPython is loaded (the workbench does not depend on it)
        get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
        ipython = get_ipython() if get_ipython is not None else None
        if ipython is None:
            return False
    formatters = ipython.display_formatter.formatters
    for (module, name), html_of in DISPLAYED.items():
        formatters["text/html"].for_type_by_name(module, name, html_of)
        formatters["text/plain"].for_type_by_name(module, name, pretty)
    return True


# ---------------------------------------------------------------------------------------------- progress
@contextmanager
def progress_bar(description: str = "working", file: TextIO | None = None) -> Iterator[Progress]:
    """A ``progress(fraction, text)`` callback drawn as a tqdm bar (a widget in Jupyter, text elsewhere; on
    ``file``, e.g. the command line's stderr, as text that is cleared at the end)::

        with wb.progress_bar("comparing") as progress:
            wb.comparison(study, progress=progress)
    """
    import warnings

    from tqdm import TqdmWarning

    with warnings.catch_warnings():  # without ipywidgets, tqdm.auto draws text and warns once; text is fine
        warnings.simplefilter("ignore", TqdmWarning)
        from tqdm.auto import tqdm

    text_only = {"file": file, "leave": False} if file is not None else {}
    bar = tqdm(total=1000, desc=description, bar_format="{desc}: {percentage:3.0f}%|{bar}|{postfix}", **text_only)

    def report(fraction: float, text: str) -> None:
        bar.n = max(0, min(1000, round(1000 * fraction)))
        bar.set_postfix_str(text, refresh=False)
        bar.refresh()

    try:
        yield report
    finally:
        bar.close()

