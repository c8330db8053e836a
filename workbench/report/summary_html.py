"""The report's first page as HTML: the ``Summary`` of ``workbench.report.summary`` drawn for print (it fits the
first page or two of the PDF, and the table of contents starts on the next page). Every value is escaped."""

from __future__ import annotations

import pandas as pd

from workbench.report.facts import Facts
from workbench.views.display import esc, table_html

SUMMARY_CSS = """
#summary { font-size: 11.5px; line-height: 1.35; page-break-after: always; }
#summary h2 { margin-top: 10px; } #summary h3 { font-size: 12.5px; margin: 8px 0 2px 0; }
#summary p, #summary ul { margin: 3px 0; } #summary ul { padding-left: 18px; }
#summary table { font-size: 10.5px; margin: 3px 0 6px 0; } #summary .warn { margin: 4px 0; padding: 4px 8px; }
#summary .decision { font-size: 13px; border: 2px solid #333; padding: 6px 10px; margin: 6px 0; }
#summary .cols { width: 100%; } #summary .cols > tbody > tr > td { border: none; padding: 0 6px 0 0; width: 50%; }
#summary table.record { width: 100%; } #summary table.record td { height: 26px; }
#summary table.record td.box { width: 70%; } #summary table.record td.tall { height: 64px; }
#summary ul.options { list-style: none; padding-left: 4px; } #summary .tick { font-size: 14px; }
"""


def _columns(n: int) -> str:
    return f"{n} column{'' if n == 1 else 's'}"


TALL = ("Conditions", "Signatures")  # fields written by hand at length


def _p(text: str, css: str = "") -> str:
    return f'<p class="{css}">{esc(text)}</p>' if css else f"<p>{esc(text)}</p>"


def summary_section(f: Facts) -> str:
    """The first page (``workbench.report.summary.Summary``): the decision, what is released and withheld, the
    guarantee in words, the risk, the cost, the attacks that matter and the decision record to fill in."""
    s = f.summary
    if s is None:
        return _p("The summary was not computed.")
    rec = s.recommendation
    parts = [f'<p class="decision"><strong>Recommendation: {esc(rec.option)}.</strong> '
             + esc(" ".join(f"{r[0].upper()}{r[1:]}." for r in rec.reasons)) + "</p>"]

    def columns(rows: tuple, caption: str) -> str:
        frame = pd.DataFrame([{"column": c.name, "role": c.role, "what the release does": c.what} for c in rows],
                             columns=["column", "role", "what the release does"])
        return table_html(frame, caption, max_rows=200) if len(frame) else _p(f"{caption}: none.")

    parts.append("<h3>What is released and what is withheld</h3>")
    parts.append('<table class="cols"><tr><td>' + columns(s.released, f"Released ({_columns(len(s.released))})")
                 + "</td><td>" + columns(s.withheld, f"Withheld ({_columns(len(s.withheld))})") + "</td></tr></table>")
    parts.append(_p(s.suppressed_line))
    parts.append("<h3>The guarantee, in plain words</h3><ul>")
    for g in s.guarantee:
        state = ("" if g.holds is None else ' <span class="ok">holds</span>' if g.holds
                 else ' <span class="bad">DOES NOT hold</span>')
        parts.append(f"<li><strong>{esc(g.name)}</strong>{state}: {esc(g.words)}.</li>")
    parts.append("</ul>")
    if s.guarantee_note:
        parts.append(_p(s.guarantee_note, "warn"))
    parts.append("<h3>The risk before and after</h3>")
    risk = pd.DataFrame([{"figure": r.figure, "input": r.before, "release": r.after} for r in s.risk])
    parts.append(table_html(risk) + _p(s.risk_line))
    parts.append("<h3>The cost</h3>" + _p(s.cost_line))
    parts.append("<h3>The attacks</h3>" + _p(s.attacks_line))
    if s.attacks:
        attacks = pd.DataFrame([{"attack": a.attack, "result": a.result} for a in s.attacks])
        parts.append(table_html(attacks))
    for w in s.warnings:
        parts.append(f'<div class="warn"><strong>Warning: {esc(w.title)}.</strong> {esc(w.text)}'
                     + (f" <strong>What to do:</strong> {esc(w.remedy)}." if w.remedy else "") + "</div>")
    parts.append("<h3>Decision record</h3>")
    parts.append('<ul class="options">' + "".join(
        f'<li><span class="tick">☐</span> <strong>{esc(o.name)}</strong>'
        + (" (recommended)" if o.name == rec.option else "") + f": {esc(o.means)}.</li>" for o in s.options) + "</ul>")
    if rec.conditions:
        parts.append("<p>Conditions the figures support:</p><ul>"
                     + "".join(f"<li>{esc(c)}.</li>" for c in rec.conditions) + "</ul>")
    if rec.not_covered:
        parts.append(_p("The recommendation does not cover: " + "; ".join(rec.not_covered) + "."))
    parts.append(_p(f"How the recommendation is made: {s.rule}", "lead"))
    parts.append('<table class="record">' + "".join(
        f'<tr><th>{esc(name)}</th><td class="box{" tall" if name in TALL else ""}"></td></tr>' for name in s.fields)
                 + "</table>")
    return "".join(parts)
