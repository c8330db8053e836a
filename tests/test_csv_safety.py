"""Every CSV file the workbench writes is safe to open in a spreadsheet: the release, the value mappings, the
tables of ``workbench compare --out``, the region map of ``workbench geo --out`` and the Risk page's tables without
rare values all go through one writer (``workbench.release.output.table_csv``), which gives a formula-like text cell or
column name a leading ``'`` (OWASP's rule for CSV injection) and leaves numbers such as ``-2`` or ``+1`` as they
are. Each file is read back with the csv module and every cell checked against the rule written out here."""

from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from pathlib import Path

import pandas as pd

from tests._cli import call
from workbench.samples import province

FORMULAS = ['=HYPERLINK("http://x")', "@SUM(A1)", "-2+3", "\t=1"]
NUMBERS = ["+1", "-2"]
HOSTILE = FORMULAS + NUMBERS
STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may evaluate (OWASP)
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def cells(data: bytes) -> list[str]:
    """Every cell of a CSV file, the header's included, as the csv module reads it."""
    return [cell for row in csv.reader(io.StringIO(data.decode("utf-8"))) for cell in row]


def unescaped(data: bytes) -> list[str]:
    """The cells a spreadsheet would evaluate: beginning with a formula character, and not a plain number."""
    return [c for c in cells(data) if c.startswith(STARTS) and not NUMBER.fullmatch(c)]


def _hostile_study(folder: Path) -> Path:
    """24 records whose quasi-identifier, sensitive and insensitive columns hold formulas and numbers, in columns
    named by formulas; the hierarchy's groups are formulas too."""
    first, second, third = FORMULAS[0], FORMULAS[1], FORMULAS[2]
    rows = [{first: FORMULAS[i % 4], "age": str(20 + (i % 4) * 10), second: HOSTILE[(i + 1) % 6],
             third: HOSTILE[(i + 2) % 6]} for i in range(24)]
    pd.DataFrame(rows).to_csv(folder / "data.csv", index=False)
    quoted = json.dumps  # a JSON string is a TOML basic string
    groups = "{ " + ", ".join(f"{quoted(v)} = {quoted(g)}" for v, g in zip(FORMULAS, ["=G1", "=G1", "@G2", "@G2"],
                                                                          strict=True)) + " }"
    (folder / "study.toml").write_text(textwrap.dedent(f"""
        [data]
        path = "data.csv"
        [attributes.{quoted(first)}]
        role = "quasi"
        builder = {{ kind = "groupings", levels = [{groups}] }}
        [attributes.age]
        role = "quasi"
        builder = {{ kind = "intervals", widths = [20] }}
        [attributes.{quoted(second)}]
        role = "insensitive"
        [attributes.{quoted(third)}]
        role = "sensitive"
        [privacy]
        k = 2
    """), encoding="utf-8")
    return folder / "study.toml"


def test_the_rule_leaves_numbers_and_escapes_the_rest() -> None:
    from workbench.release.output import table_csv

    data = table_csv(pd.DataFrame({FORMULAS[0]: HOSTILE, "n": [-2.5, 1, 0, 3, 4, 5]}))
    assert unescaped(data) == []
    assert cells(data)[:2] == ["'" + FORMULAS[0], "n"]
    assert cells(data)[2::2] == ["'" + f for f in FORMULAS] + NUMBERS  # numbers stay readable
    assert cells(data)[3] == "-2.5"
    assert unescaped(table_csv(pd.DataFrame({"a": FORMULAS}), escape=False)) == FORMULAS  # the release's option off


def test_every_csv_the_cli_writes_escapes_formulas_in_cells_and_names(tmp_path: Path) -> None:
    config = _hostile_study(tmp_path)
    for command in ("run", "compare"):
        status, _, err = call(command, config, "--out", tmp_path / command)
        assert status == 0, err
    written = {p.name: p.read_bytes() for p in sorted([*tmp_path.glob("run/*.csv"), *tmp_path.glob("compare/*.csv")])}
    assert {"release.csv", "solutions.csv", "normalized.csv", "rank_agreement.csv", "optimal_under.csv",
            "risk_utility.csv"} <= set(written)
    for name, data in written.items():
        assert unescaped(data) == [], name
    release = cells(written["release.csv"])
    assert {"'" + f for f in FORMULAS[:3]} <= set(release[:4])  # the column names, escaped
    assert {"'" + f for f in FORMULAS} | set(NUMBERS) <= set(release)  # every value there, escaped or a number
    assert any(c.startswith("'" + FORMULAS[0] + "=") for c in cells(written["solutions.csv"]))  # node names


def test_the_value_mappings_and_the_tables_without_rare_values_escape_both_columns(tmp_path: Path) -> None:
    from workbench.config import load_study
    from workbench.risk.attack_checks import without_rare_csv
    from workbench.study import run

    study = load_study(_hostile_study(tmp_path))
    result = run(study)
    mappings = result.release.export_bytes(seed=0)["mappings"]
    table = pd.read_csv(io.BytesIO(mappings), dtype=str, keep_default_na=False)
    assert unescaped(mappings) == []
    hostile = table[table["attribute"] == "'" + FORMULAS[0]]  # the attribute's name is escaped too
    assert set(hostile["original"]) == {"'" + f for f in FORMULAS}  # the original column, not only the released
    assert len(hostile) and all(v.startswith("'") for v in hostile["released"])  # its values or its groups, escaped
    assert unescaped(result.release.export_bytes(seed=0, escape_formulas=False)["mappings"])  # as configured
    for remove in ("rows", "values"):
        assert unescaped(without_rare_csv(result.dataset, 7, remove)) == []


def test_the_geography_region_map_escapes_region_names(tmp_path: Path) -> None:
    frame, points = province.generate(regions=12, seed=3)
    names = {r: FORMULAS[i % 3] + str(i) for i, r in enumerate(sorted(points["region"]))}  # (points are stripped)
    frame = frame.assign(region=frame["region"].map(names))[["region", "sex", "age"]]
    frame.to_csv(tmp_path / "data.csv", index=False)
    points.assign(region=points["region"].map(names)).to_csv(tmp_path / "regions.csv", index=False)
    (tmp_path / "study.toml").write_text(
        '[data]\npath = "data.csv"\n[attributes.sex]\nrole = "quasi"\nbuilder = { kind = "groupings", levels = [] }\n'
        '[privacy]\nk = 3\n[geo]\nattribute = "region"\npoints = "regions.csv"\nmethod = "geoleader"\n'
        'cutoff = 1500\n', encoding="utf-8")
    status, _, err = call("geo", tmp_path / "study.toml", "--out", tmp_path / "out")
    assert status == 0, err
    for name in ("release.csv", "region_map.csv"):
        data = (tmp_path / "out" / name).read_bytes()
        assert unescaped(data) == [], name
    region_map = cells((tmp_path / "out" / "region_map.csv").read_bytes())
    assert {"'" + n for n in names.values()} <= set(region_map)
