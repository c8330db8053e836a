"""The report's release history (docs/register.md): the releases of the same data in the register with the board's
decisions, this release's own register id and decision when it is recorded, and this release checked against every
earlier one (``workbench.register.check_release``: the complementary-release and intersection attacks). The first
page reads the checks that single people out as attacks (``register_findings``), so they carry a warning, a remedy
and the recommendation's conditions like the attacks on one release."""

from __future__ import annotations

from typing import Any

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.risk.attack_checks import AttackFinding
from workbench.views.display import esc, table_html

EARLIER = "an earlier release of the same data (register)"


def register_facts(result: Any, recorded: int | None = None) -> dict[str, Any]:
    """The register's figures for the run's release: ``url``, ``history`` (the releases of the same data, oldest
    first, ``register.history_row``), ``recorded`` (this release's id, if recorded) and ``checks`` (this release
    against every earlier one, ``EarlierCheck.to_dict()``); ``{"error": ...}`` when the register cannot be read."""
    from workbench.register import check_release, history
    from workbench.register.entries import data_identity
    from workbench.register.store import open_register, shown_url

    try:
        reg = open_register()
        identity = data_identity(result.dataset)
        rows = history(register=reg, digests=[identity["data_sha256"], identity["content_sha256"]])
        checks = [] if result.release is None else [
            c.to_dict() for c in check_release(result, register=reg).checks if c.release_id != recorded]
    except WorkbenchError as exc:
        return {"error": str(exc)}
    return {"url": shown_url(reg.url), "history": rows, "recorded": recorded, "checks": checks}


def register_findings(register: dict[str, Any]) -> list[AttackFinding]:
    """Each earlier release whose join with this one singles people out (or reveals a sensitive value), as an
    attack finding for the first page."""
    out = []
    for c in register.get("checks", []):
        if not c["matters"]:
            continue
        comp = c["complementary_release"]
        parts = []
        if c["singled_out"]:
            parts.append(f"singles out {c['singled_out']:,} of {comp['records']:,} people joined on the record")
        parts += [f"reveals the {a['attribute']} of {a['new']:,} people (intersection attack)"
                  for a in c["intersection"] if a["new"]]
        decided = f"decision: {c['decision']}" if c["decision"] else "no decision recorded"
        out.append(AttackFinding(
            f"{EARLIER}: release {c['release_id']}", True, c["singled_out"] or c["revealed"], comp["records"],
            "; ".join(parts),
            f"release {c['release_id']} of the same data ({c['matched_by']}; {c['created']}, by {c['user']}, "
            f"{c['node_text']}, {decided}) is in the register: whoever holds both releases joins them",
            c["remedy"][0].lower() + c["remedy"][1:] if c["remedy"] else "",
            f"Release {c['release_id']} of the same data is in the register: joined with this one it "
            + "; ".join(parts)))
    return out


def register_section(f: Any) -> str:
    """The report's "Release history" section."""
    r = getattr(f, "register", None) or {}
    if "error" in r:
        return f"<p>The register could not be read: {esc(r['error'])}</p>"
    if not r:
        return "<p>The register was not consulted.</p>"
    parts = []
    recorded = r.get("recorded")
    mine = next((h for h in r["history"] if h["id"] == recorded), None)
    where = f"<span class='url'>{esc(r['url'])}</span>"  # a long URL breaks anywhere rather than leave the page
    if mine is not None:
        d = mine["decision"]
        parts.append(f"<p>This release is release <strong>{mine['id']}</strong> in the register ({where}). "
                     + (f"The board's decision: <strong>{esc(d['decision'])}</strong> by {esc(d['by'])} on "
                        f"{esc(d['time'])}" + (f": {esc(d['note'])}" if d["note"] else "") + ".</p>"
                        if d else "No decision is recorded yet: record it with "
                        f"<code>workbench decide {mine['id']} --decision approved|rejected|conditions --by NAME "
                        "[--note TEXT]</code> or on the app's History page.</p>"))
    else:
        parts.append(f"<p>This release is not (yet) recorded in the register ({where}).</p>")
    earlier = [h for h in r["history"] if h["id"] != recorded]
    if not earlier:
        parts.append("<p>The register holds no other release of this data.</p>")
    else:
        rows = pd.DataFrame([{
            "id": h["id"], "time": h["time"], "user": h["user"], "k": h["k"], "node": h["node_text"],
            "suppressed": h["suppressed"], "classes": h["classes"], "output": h["output"],
            "decision": ("none" if h["decision"] is None else
                         f"{h['decision']['decision']} by {h['decision']['by']}"
                         + (f": {h['decision']['note']}" if h["decision"]["note"] else ""))} for h in earlier])
        parts.append(table_html(rows, f"Other releases of this data in the register ({len(earlier)})",
                                max_rows=100, css_class="wide"))
    for c in r.get("checks", []):
        text = c["warning"] or (
            f"Release {c['release_id']}: the same release (the same classes), nothing more to join."
            if c["same_release"] else f"Release {c['release_id']}: {c['note']}" if c["note"] else
            f"Release {c['release_id']} joined with this one singles out no one and reveals no sensitive value.")
        parts.append(f'<p class="{"warn" if c["matters"] else ""}">{esc(text)}</p>')
    return "".join(parts)
