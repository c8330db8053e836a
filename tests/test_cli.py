"""The CLI contract on the embedded sample studies (no external data needed).

``workbench run CONFIG [--set SECTION.KEY=VALUE ...] [--json] [--out DIR]`` and
``workbench measure CONFIG --node "qi=level,..." [--json]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests._cli import call
from workbench import cli
from workbench.samples import load_sample

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"
REGISTRY = ROOT / "sample_configs" / "registry.toml"
WORKBENCH = Path(sys.executable).with_name("workbench")
KEYS = {"engine", "algorithm", "k", "max_suppression", "transformation", "k_anonymous", "suppressed", "classes",
        "measures", "checks", "seconds", "attribute_measures", "privacy_models", "risk"}
REGISTRY_QIS = ["age", "sex", "ethnicity", "postal_code", "admission_date", "diagnosis"]
TEACHING_QIS = ["date", "gender", "age"]




def one_json_object(out: str) -> dict[str, Any]:
    lines = out.splitlines()
    assert len(lines) == 1, out
    obj = json.loads(lines[0])
    assert isinstance(obj, dict)
    return obj


def compare_ids(config: Path) -> list[str]:
    return tomllib.loads(config.read_text(encoding="utf-8"))["measures"]["compare"]


def read_release(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])


# ---------------------------------------------------------------------------------------------- registry, --out
@pytest.fixture(scope="module")
def registry_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The registry study run twice with the same seed (the exhaustive search takes a few seconds each):
    once with --json --out, once human-readable with --out."""
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    status, out, err = call("run", REGISTRY, "--json", "--out", first)
    assert (status, err) == (0, ""), err
    status2, text, err2 = call("run", REGISTRY, "--out", second)
    assert (status2, err2) == (0, ""), err2
    return {"summary": one_json_object(out), "first": first, "second": second, "text": text}


def test_run_json_prints_one_object_with_the_contract_keys(registry_runs: dict[str, Any]) -> None:
    s = registry_runs["summary"]
    assert set(s) == KEYS | {"register"}  # --out records the release (docs/register.md)
    assert s["register"]["id"] == 1 and s["register"]["earlier_releases"] == []
    assert list(s["measures"]) == compare_ids(REGISTRY)
    assert s["engine"] == "lattice" and s["algorithm"] == "exhaustive"
    assert s["k"] == 5 and s["max_suppression"] == pytest.approx(0.02)
    assert list(s["transformation"]) == REGISTRY_QIS  # quasi-identifier order = order in the config
    assert all(isinstance(v, int) for v in s["transformation"].values())
    assert s["k_anonymous"] is True
    assert s["suppressed"] <= int(0.02 * 20000)
    assert s["classes"] > 0 and s["checks"] > 0 and s["seconds"] >= 0
    assert all(isinstance(v, int | float) for v in s["measures"].values())


def test_out_writes_release_and_provenance(registry_runs: dict[str, Any]) -> None:
    assert sorted(p.name for p in registry_runs["first"].iterdir()) == ["provenance.json", "release.csv"]


def test_release_keeps_column_order_without_identifying_columns(registry_runs: dict[str, Any]) -> None:
    release = read_release(registry_runs["first"] / "release.csv")
    original = load_sample("registry").frame
    withheld = ["patient_id", "district_lat", "district_lon"]  # identifying (the coordinates give the district)
    assert list(release.columns) == [c for c in original.columns if c not in withheld]
    assert len(release) == len(original)


def test_release_is_k_anonymous_with_suppressed_rows_marked(registry_runs: dict[str, Any]) -> None:
    s = registry_runs["summary"]
    release = read_release(registry_runs["first"] / "release.csv")
    suppressed = (release[REGISTRY_QIS] == "*").all(axis=1)
    assert suppressed.sum() == s["suppressed"] > 0
    kept = release.loc[~suppressed, REGISTRY_QIS]
    sizes = kept.value_counts()
    assert sizes.min() >= s["k"]
    assert len(sizes) == s["classes"]
    # the released labels come from the hierarchies at the reported levels
    hierarchies = load_sample("registry").hierarchies
    for qi, level in s["transformation"].items():
        allowed = set(hierarchies[qi].level_labels(level))
        assert set(kept[qi]) <= allowed, qi


def test_release_rows_are_shuffled(registry_runs: dict[str, Any]) -> None:
    release = read_release(registry_runs["first"] / "release.csv")
    original = load_sample("registry").frame
    other = [c for c in release.columns if c not in REGISTRY_QIS]  # cells the release leaves as they were
    assert other
    assert not release[other].equals(original[other])  # not in input order
    key = sorted(map(tuple, release[other].to_numpy().tolist()))
    assert key == sorted(map(tuple, original[other].to_numpy().tolist()))  # but the same records


def test_shuffle_is_reproducible_with_the_same_seed(registry_runs: dict[str, Any]) -> None:
    first = (registry_runs["first"] / "release.csv").read_bytes()
    assert first == (registry_runs["second"] / "release.csv").read_bytes()


def test_provenance(registry_runs: dict[str, Any]) -> None:
    s = registry_runs["summary"]
    prov = json.loads((registry_runs["first"] / "provenance.json").read_text(encoding="utf-8"))
    assert prov["config"] == tomllib.loads(REGISTRY.read_text(encoding="utf-8"))
    assert prov["package"]["version"] == metadata.version("k-anonymity-workbench")
    assert prov["seed"] == 20091
    assert prov["measures"] == pytest.approx(s["measures"], rel=1e-12)
    g = prov["guarantee"]
    assert g["holds"] is True and g["k"] == 5 and g["suppressed"] == s["suppressed"]
    assert g["limit"] == int(0.02 * 20000)


def test_human_readable_run_names_node_measures_and_files(registry_runs: dict[str, Any]) -> None:
    text, s = registry_runs["text"], registry_runs["summary"]
    for qi, level in s["transformation"].items():
        assert f"{qi}={level}" in text
    for mid in compare_ids(REGISTRY):
        assert mid in text
    assert str(registry_runs["second"] / "release.csv") in text
    assert str(registry_runs["second"] / "provenance.json") in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


# ---------------------------------------------------------------------------------------------- teaching, run
def test_set_overrides_k_and_objective(tmp_path: Path) -> None:
    status, out, err = call("run", TEACHING, "--json", "--set", "privacy.k=4", "--set", "engine.objective=precision",
                            "--out", tmp_path)
    assert (status, err) == (0, "")
    s = one_json_object(out)
    assert s["k"] == 4 and s["k_anonymous"] is True
    config = json.loads((tmp_path / "provenance.json").read_text(encoding="utf-8"))["config"]
    assert config["privacy"]["k"] == 4
    assert config["engine"]["objective"] == "precision"
    release = read_release(tmp_path / "release.csv")
    assert release[TEACHING_QIS].value_counts().min() >= 4


def test_objective_decides_the_node() -> None:
    """With k = 4 and 20 % suppression the teaching table's DM* optimum is not its precision optimum."""
    common = ("--json", "--set", "privacy.k=4", "--set", "privacy.max_suppression=0.2")
    by = {}
    for objective in ("precision", "dm_star"):
        status, out, err = call("run", TEACHING, *common, "--set", f"engine.objective={objective}")
        assert (status, err) == (0, "")
        by[objective] = one_json_object(out)
        assert by[objective]["k"] == 4
    assert by["precision"]["transformation"] == {"date": 0, "gender": 0, "age": 4}
    assert by["precision"]["transformation"] != by["dm_star"]["transformation"]
    assert by["precision"]["measures"]["precision"] < by["dm_star"]["measures"]["precision"]
    assert by["dm_star"]["measures"]["dm_star"] < by["precision"]["measures"]["dm_star"]


def test_different_seeds_give_different_orders(tmp_path: Path) -> None:
    tables = {}
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        status, _, err = call("run", TEACHING, "--set", f"release.seed={seed}", "--out", tmp_path / name)
        assert (status, err) == (0, "")
        tables[name] = (tmp_path / name / "release.csv").read_bytes()
        assert json.loads((tmp_path / name / "provenance.json").read_text(encoding="utf-8"))["seed"] == seed
    assert tables["a"] == tables["b"]
    assert tables["a"] != tables["c"]


def test_teaching_run_text(tmp_path: Path) -> None:
    status, out, err = call("run", TEACHING)
    assert (status, err) == (0, "")
    for mid in compare_ids(TEACHING):
        assert mid in out
    assert "k = 3" in out and "k-anonymous" in out
    assert list(tmp_path.iterdir()) == []  # nothing written without --out


# ---------------------------------------------------------------------------------------------- measure
NODES = {
    "date=0,gender=0,age=0": {"dm": 79, "dm_star": 16, "precision": 0.0},
    "date=0,gender=0,age=1": {"dm": 55, "dm_star": 28, "precision": 1 / 12},
    "date=0,gender=1,age=0": {"dm_star": 16, "precision": 1 / 3},
}


def test_measure_json_one_object_per_node_el_emam_fig3() -> None:
    argv = ["measure", TEACHING, "--json"]
    for node in NODES:
        argv += ["--node", node]
    status, out, err = call(*argv)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == len(NODES)
    for line, (node, expected) in zip(lines, NODES.items(), strict=True):
        s = json.loads(line)
        assert set(s) == KEYS
        assert s["checks"] == 0
        assert s["k"] == 3
        assert list(s["measures"]) == compare_ids(TEACHING)
        assert s["transformation"] == {q: int(v) for q, v in (p.split("=") for p in node.split(","))}
        for mid, value in expected.items():
            assert s["measures"][mid] == pytest.approx(value, rel=1e-12, abs=1e-15), (node, mid)


def test_measure_json_prints_arx_loss_per_attribute_el_emam_fig3() -> None:
    """``attribute_measures`` on the teaching table, node date=0, gender=0, age=1, k = 3, by
    hand: classes (01/01, M, 15-19) 4, (02/01, F, 20-24) 3 kept; records 3, 5 and 9 suppressed (S = 3, n = 10).
    ARX's loss: date and gender at level 0, v = (7/2 + 3 − 10/2)/(10 − 10/2) = 0.3 (= S/n); age is built by the
    intervals builder (5, 10, 20), so ARX's interval shares apply: the bands cover [0, 40) (D = 40), the kept
    cells sit in 5-wide bands, v = (7·5/40 + 3 − 10/40)/(10 − 10/40) = 3.625/9.75, floored to 10 decimals; the
    scalar is the geometric mean ((1.3)(1.3)(1 + v))^(1/3) − 1. Precision per attribute: 0, 0, 1/4 (mean 1/12)."""
    status, out, err = call("measure", TEACHING, "--node", "date=0,gender=0,age=1", "--json")
    assert (status, err) == (0, "")
    s = one_json_object(out)
    assert s["suppressed"] == 3
    per = s["attribute_measures"]
    age = 0.3717948717  # 3.625/9.75 = 0.37179487179..., floored
    assert per["loss"] == pytest.approx({"date": 0.3, "gender": 0.3, "age": age}, abs=1e-12)
    assert s["measures"]["loss"] == pytest.approx((1.3 * 1.3 * (1 + age)) ** (1 / 3) - 1, rel=1e-12)
    assert per["precision"] == pytest.approx({"date": 0.0, "gender": 0.0, "age": 0.25}, abs=1e-12)
    assert per["height"] == {"date": 0.0, "gender": 0.0, "age": 1.0}
    assert set(per) == {"height", "precision", "entropy", "loss"}  # dm and dm_star do not decompose


def test_measure_node_order_in_text_does_not_matter() -> None:
    status, out, err = call("measure", TEACHING, "--node", "age=1, gender=0, date=0", "--json")
    assert (status, err) == (0, "")
    s = one_json_object(out)
    assert s["transformation"] == {"date": 0, "gender": 0, "age": 1}
    assert s["measures"]["dm_star"] == pytest.approx(28, rel=1e-12)


def test_measure_human_readable_names_node_and_measures() -> None:
    status, out, err = call("measure", TEACHING, "--node", "date=0,gender=0,age=1", "--node", "date=0,gender=1,age=0")
    assert (status, err) == (0, "")
    blocks = out.strip().split("\n\n")
    assert len(blocks) == 2
    for block, levels in zip(blocks, [(0, 0, 1), (0, 1, 0)], strict=True):
        for qi, level in zip(TEACHING_QIS, levels, strict=True):
            assert f"{qi}={level}" in block
        for mid in compare_ids(TEACHING):
            assert mid in block
        assert "0 checks" in block


# The teaching table by hand (El Emam 2009, Fig. 3; rows of workbench/samples/teaching.py), k = 3:
# node date=0,gender=0,age=0: classes (01/01/2008, M, 18) x3, and seven classes of one record
#   ((01/01, M, 13), (01/01, M, 19), (01/01, M, 22), (02/01, F, 18), (02/01, F, 21), (02/01, F, 22), (02/01, F, 23))
#   -> 7 records in classes smaller than 3;
# node date=0,gender=0,age=1 (ages in 5-year intervals): (01/01, M, 15-19) x4 (18, 18, 18, 19),
#   (02/01, F, 20-24) x3 (21, 22, 23), and (01/01, M, 10-14), (01/01, M, 20-24), (02/01, F, 15-19) of one
#   -> 3 records suppressed.
# A node is k-anonymous when suppressed <= floor(max_suppression * 10).
HAND_SUPPRESSED = {"date=0,gender=0,age=0": 7, "date=0,gender=0,age=1": 3}


@pytest.mark.parametrize("limit", [0.0, 0.2, 0.29, 0.3, 0.5, 0.69, 0.7, 1.0])
def test_measure_reports_admissibility_against_the_suppression_limit(limit: float) -> None:
    """``k_anonymous`` is false for a node whose suppressed records exceed the limit (it used to say true:
    the classes left after suppression are all of size 3 or more, but the node is not admissible)."""
    argv: list[str | Path] = ["measure", TEACHING, "--json", "--set", f"privacy.max_suppression={limit}"]
    for node in HAND_SUPPRESSED:
        argv += ["--node", node]
    status, out, err = call(*argv)
    assert (status, err) == (0, "")
    allowed = int(limit * 10 + 1e-9)  # floor(s * n), n = 10
    for line, (node, suppressed) in zip(out.splitlines(), HAND_SUPPRESSED.items(), strict=True):
        s = json.loads(line)
        assert s["suppressed"] == suppressed, node
        assert s["k_anonymous"] is (suppressed <= allowed), (node, limit)
    status, out, _ = call("measure", TEACHING, "--node", "date=0,gender=0,age=1", "--set",
                          f"privacy.max_suppression={limit}")
    assert status == 0
    verdict = "verified" if 3 <= allowed else "DOES NOT hold"
    assert f"3 suppressed record(s) (limit {allowed}): {verdict}" in out


# ---------------------------------------------------------------------------------------------- real processes
def test_python_dash_m_workbench_run() -> None:
    proc = subprocess.run([sys.executable, "-m", "workbench", "run", str(TEACHING), "--json"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    s = one_json_object(proc.stdout)
    assert set(s) == KEYS and s["k_anonymous"] is True


def test_console_script_measure(tmp_path: Path) -> None:
    proc = subprocess.run([str(WORKBENCH), "measure", str(TEACHING), "--node", "date=0,gender=0,age=0",
                           "--node", "date=0,gender=0,age=1", "--json"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["measures"]["dm"] for r in rows] == [79, 55]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["run", "compare", "algorithms"])
def test_k_above_the_records_is_refused_even_with_full_suppression(command: str, capsys) -> None:
    """With a 100 % suppression limit every node would pass for k = 11 on 10 records, releasing nothing (the
    Compare page once listed that empty release as a candidate): refused with the reason."""
    config = str(Path(__file__).resolve().parents[1] / "sample_configs" / "teaching.toml")
    code = cli.main([command, config, "--set", "privacy.k=11", "--set", "privacy.max_suppression=1.0"])
    assert code == 2 and "10 records cannot be made 11-anonymous" in capsys.readouterr().err


def test_run_with_a_non_monotone_objective_says_it_is_not_proven_optimal() -> None:
    """OLA with dm (not monotone once suppression is allowed) is refused unless allowed; allowed, the JSON
    carries a note and stderr says it, naming the optimal alternatives. Flash (its linear phase) and bnb prove
    dm's optimum: no note."""
    argv = ["run", TEACHING, "--json", "--set", "engine.algorithm=ola", "--set", "engine.objective=dm",
            "--set", "privacy.max_suppression=0.3"]
    status, out, err = call(*argv)
    assert status == 2 and out == "" and "'exhaustive', 'incognito', 'flash' or 'bnb' (optimal for any" in err
    status, out, err = call(*argv, "--set", "engine.allow_non_monotone=true")
    assert status == 0
    s = one_json_object(out)
    assert set(s) == KEYS | {"note"} and "not proven optimal" in s["note"]
    assert err == f"workbench: note: {s['note']}\n" and "bnb" in err
    status, out, err = call(*argv[:-4], "--set", "engine.algorithm=bnb", "--set", "engine.objective=dm")
    assert status == 0 and err == "" and set(one_json_object(out)) == KEYS
    bnb = one_json_object(out)
    status, out, err = call(*argv[:-4], "--set", "engine.algorithm=flash", "--set", "engine.objective=dm")
    flash = one_json_object(out)
    assert status == 0 and err == "" and set(flash) == KEYS
    assert flash["transformation"] == bnb["transformation"] and flash["measures"] == bnb["measures"]


def test_drop_suppressed_leaves_the_suppressed_records_out_and_stays_k_anonymous(tmp_path: Path) -> None:
    """``--drop-suppressed`` (``[release] suppressed = "drop"``): the written file holds the marked release's rows
    without its starred ones, every group of identical quasi-identifier rows still holds k, and the provenance
    says so. Teaching table, k = 3, 30 % limit: 3 of the 10 records are suppressed."""
    limit = ["--set", "privacy.max_suppression=0.3"]
    status, out, err = call("run", TEACHING, "--json", *limit, "--out", tmp_path / "marked")
    assert (status, err) == (0, ""), err
    suppressed = one_json_object(out)["suppressed"]
    status, _, err = call("run", TEACHING, *limit, "--drop-suppressed", "--out", tmp_path / "dropped")
    assert (status, err) == (0, ""), err
    status, _, err = call("run", TEACHING, *limit, "--set", "release.suppressed=drop", "--out", tmp_path / "set")
    assert (status, err) == (0, ""), err
    marked = read_release(tmp_path / "marked" / "release.csv")
    dropped = read_release(tmp_path / "dropped" / "release.csv")
    stars = (marked[TEACHING_QIS] == "*").all(axis=1)
    assert suppressed == 3 and stars.sum() == suppressed and len(marked) == 10
    assert len(dropped) == 10 - suppressed and not (dropped[TEACHING_QIS] == "*").any(axis=None)
    assert dropped[TEACHING_QIS].value_counts().min() >= 3
    as_rows = lambda frame: sorted(map(tuple, frame.to_numpy().tolist()))  # noqa: E731
    assert as_rows(dropped) == as_rows(marked[~stars])
    assert (tmp_path / "set" / "release.csv").read_bytes() == (tmp_path / "dropped" / "release.csv").read_bytes()
    provenance = json.loads((tmp_path / "dropped" / "provenance.json").read_text(encoding="utf-8"))
    assert provenance["suppressed_records"] == "drop" and provenance["config"]["release"]["suppressed"] == "drop"
    assert provenance["guarantee"]["holds"] and provenance["guarantee"]["suppressed"] == suppressed
    marked_provenance = json.loads((tmp_path / "marked" / "provenance.json").read_text(encoding="utf-8"))
    assert marked_provenance["suppressed_records"] == "mark"
