"""A catalogue of malformed inputs (config and CLI): each ends with exit status 2, exactly one line on stderr
that names what is wrong, nothing on stdout, and input files left byte-for-byte as they were.

Every case builds a tiny study in ``tmp_path``: a CSV table, ARX hierarchy files (``;``-separated, one row per
value, no header, root last) and a TOML config. The same case is also run through the library API, which must
raise the documented error class (ConfigError / DataError / HierarchyError).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import cli
from workbench import study as study_mod
from workbench.config import load_study
from workbench.data import Dataset
from workbench.errors import ArgumentError, ConfigError, DataError, HierarchyError, WorkbenchError
from workbench.hierarchy.tree import Hierarchy
from workbench.readers import read_table

WORKBENCH = Path(sys.executable).with_name("workbench")
CFG = "<config>"  # placeholder in a case's argv for the config path

DATA = (
    "id,age,sex,disease\n"
    "1,20,F,flu\n"
    "2,25,M,cold\n"
    "3,31,F,flu\n"
    "4,38,M,cold\n"
    "5,20,F,flu\n"
    "6,31,M,cold\n"
)
AGE = "20;20-29;*\n25;20-29;*\n31;30-39;*\n38;30-39;*\n"
SEX = "F;*\nM;*\n"
PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x02\x00\x00\x00\x90\x91h6"


def base_config() -> dict[str, Any]:
    return {
        "data": {"path": "data.csv"},
        "attributes": {
            "id": {"role": "identifying"},
            "age": {"role": "quasi", "hierarchy": "age.csv"},
            "sex": {"role": "quasi", "hierarchy": "sex.csv"},
        },
        "privacy": {"k": 2, "max_suppression": 0.0},
        "engine": {"kind": "lattice", "algorithm": "exhaustive", "objective": "dm_star"},
        "measures": {"compare": ["precision", "dm_star"]},
    }


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def dump_toml(config: dict[str, Any]) -> str:
    out: list[str] = []
    for section, table in config.items():
        if section == "attributes":
            for name, spec in table.items():
                out.append(f"[attributes.{json.dumps(name)}]")
                out.extend(f"{k} = {_toml_value(v)}" for k, v in spec.items())
        else:
            out.append(f"[{section}]")
            out.extend(f"{k} = {_toml_value(v)}" for k, v in table.items())
        out.append("")
    return "\n".join(out)


@dataclass
class Project:
    """The files of one study; a case edits them before they are written."""

    root: Path
    files: dict[str, bytes] = field(default_factory=lambda: {
        "data.csv": DATA.encode(), "age.csv": AGE.encode(), "sex.csv": SEX.encode()})
    config: dict[str, Any] = field(default_factory=base_config)
    config_text: str | bytes | None = None  # raw config text instead of ``config``

    @property
    def config_path(self) -> Path:
        return self.root / "study.toml"

    def write(self) -> None:
        for name, content in self.files.items():
            (self.root / name).write_bytes(content)
        text = self.config_text if self.config_text is not None else dump_toml(self.config)
        self.config_path.write_bytes(text if isinstance(text, bytes) else text.encode())

    def data_rows(self, *rows: str, header: str = "id,age,sex,disease") -> None:
        self.files["data.csv"] = ("\n".join([header, *rows]) + "\n").encode()


@dataclass(frozen=True)
class Case:
    argv: list[str]  # CFG stands for the config path
    needles: list[str]  # each must appear in the stderr line


CASES: dict[str, Callable[[Project], Case]] = {}
ERRORS: dict[str, type[WorkbenchError] | None] = {}  # what the API raises (None: only the CLI sees it)


def case(name: str, error: type[WorkbenchError] | None) -> Callable[[Callable[[Project], Case]], Callable[..., Case]]:
    def register(fn: Callable[[Project], Case]) -> Callable[[Project], Case]:
        assert name not in CASES
        CASES[name], ERRORS[name] = fn, error
        return fn
    return register


def run_case(p: Project, *needles: str, extra: tuple[str, ...] = ()) -> Case:
    return Case(["run", CFG, *extra], list(needles))


# ------------------------------------------------------------------------------------------- hierarchy files
@case("hierarchy_unequal_rows", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = b"20;20-29;*\n25;20-29\n31;30-39;*\n38;30-39;*\n"
    return run_case(p, "age.csv", "unequal length", "line 2", "2 columns")


@case("hierarchy_blank_line", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = b"20;20-29;*\n25;20-29;*\n\n31;30-39;*\n38;30-39;*\n"
    return run_case(p, "age.csv", "line 3 is empty")


@case("hierarchy_two_parents", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = b"20;20-29;*\n25;20-29;*\n31;30-39;*\n38;30-39;ROOT\n"
    return run_case(p, "age.csv", "'30-39'", "two parents", "'*'", "'ROOT'", "line 4")


@case("hierarchy_duplicate_value_rows", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = b"20;20-29;*\n25;20-29;*\n31;30-39;*\n38;30-39;*\n25;20-29;*\n"
    return run_case(p, "age.csv", "'25'", "more than one row", "line 2", "line 5")


@case("hierarchy_empty_file", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = b""
    return run_case(p, "age.csv", "empty")


@case("hierarchy_only_blank_lines", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = b"\n  \n\n"
    return run_case(p, "age.csv", "empty")


@case("hierarchy_binary", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = bytes(range(256))
    return run_case(p, "age.csv", "not a text file")


@case("hierarchy_not_utf8", HierarchyError)
def _(p: Project) -> Case:
    p.files["age.csv"] = "20;20-29;*\n25;20-29;*\n31;30-39;*\n38;30-39;\u00e9t\u00e9\n".encode("latin-1")
    return run_case(p, "age.csv", "not UTF-8")


@case("hierarchy_missing_file", HierarchyError)
def _(p: Project) -> Case:
    p.config["attributes"]["age"]["hierarchy"] = "hierarchies/age_v2.csv"
    return run_case(p, "age_v2.csv", "not found")


@case("hierarchy_path_is_a_folder", HierarchyError)
def _(p: Project) -> Case:
    (p.root / "ages").mkdir()
    p.config["attributes"]["age"]["hierarchy"] = "ages"
    return run_case(p, "ages", "cannot read hierarchy file")


@case("data_value_missing_from_hierarchy", HierarchyError)
def _(p: Project) -> Case:
    p.data_rows("1,20,F,flu", "2,25,M,cold", "3,31,F,flu", "4,99,M,cold", "5,20,F,flu")
    return run_case(p, "'age'", "age.csv", "'99'", "row 4")


@case("empty_cell_not_in_hierarchy", HierarchyError)
def _(p: Project) -> Case:
    p.data_rows("1,20,F,flu", "2,,M,cold", "3,31,F,flu", "4,38,M,cold")
    return run_case(p, "'age'", "empty cell", "row 2")


@case("quasi_identifier_without_hierarchy", HierarchyError)
def _(p: Project) -> Case:
    del p.config["attributes"]["sex"]["hierarchy"]
    return run_case(p, "'sex'", "no hierarchy")


# ------------------------------------------------------------------------------------------- config values
@case("unknown_attribute", DataError)
def _(p: Project) -> Case:
    p.config["attributes"]["agee"] = {"role": "quasi", "hierarchy": "age.csv"}
    return run_case(p, "'agee'", "not a column")


@case("unknown_section", ConfigError)
def _(p: Project) -> Case:
    p.config["privcy"] = {"k": 5}
    return run_case(p, "[privcy]", "unknown section")


@case("unknown_privacy_key", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["kk"] = 5
    return run_case(p, "privacy.kk", "unknown key")


@case("unknown_attribute_key", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["age"]["hierachy"] = "age.csv"
    return run_case(p, "attributes.age.hierachy")


@case("k_zero", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["k"] = 0
    return run_case(p, "privacy.k", "got 0")


@case("k_negative", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["k"] = -3
    return run_case(p, "privacy.k", "-3")


@case("k_string", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["k"] = "5"
    return run_case(p, "privacy.k", "integer", "'5'")


@case("k_float", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["k"] = 2.5
    return run_case(p, "privacy.k", "integer", "2.5")


@case("max_suppression_above_one", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["max_suppression"] = 1.5
    return run_case(p, "privacy.max_suppression", "1.5")


@case("max_suppression_negative", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["max_suppression"] = -0.1
    return run_case(p, "privacy.max_suppression", "-0.1")


@case("unknown_role", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["age"]["role"] = "quasy"
    return run_case(p, "attributes.age.role", "'quasy'")


@case("unknown_algorithm", ConfigError)
def _(p: Project) -> Case:
    p.config["engine"]["algorithm"] = "fastest"
    return run_case(p, "engine.algorithm", "'fastest'")


@case("unknown_engine_kind", ConfigError)
def _(p: Project) -> Case:
    p.config["engine"]["kind"] = "global"
    return run_case(p, "engine.kind", "'global'")


@case("unknown_objective", ConfigError)
def _(p: Project) -> Case:
    p.config["engine"]["objective"] = "entropi"
    return run_case(p, "engine.objective", "'entropi'")


@case("unknown_measure_in_compare", ConfigError)
def _(p: Project) -> Case:
    p.config["measures"]["compare"] = ["precision", "precison"]
    return run_case(p, "measures.compare", "'precison'")


@case("compare_not_a_list", ConfigError)
def _(p: Project) -> Case:
    p.config["measures"]["compare"] = "precision"
    return run_case(p, "measures.compare", "list")


@case("target_is_quasi_identifier", ConfigError)
def _(p: Project) -> Case:
    p.config["measures"]["target"] = "age"
    return run_case(p, "measures.target", "'age'", "quasi-identifier")


@case("target_not_a_column", DataError)
def _(p: Project) -> Case:
    p.config["measures"]["target"] = "salary"
    return run_case(p, "measures.target", "'salary'")


@case("data_path_and_sample", ConfigError)
def _(p: Project) -> Case:
    p.config["data"]["sample"] = "teaching"
    return run_case(p, "'path'", "'sample'")


@case("unknown_sample", ConfigError)
def _(p: Project) -> Case:
    p.config["data"] = {"sample": "hospital"}
    return run_case(p, "'hospital'")


@case("negative_seed", ConfigError)
def _(p: Project) -> Case:
    p.config["release"] = {"seed": -1}
    return run_case(p, "release.seed", "-1")


# ------------------------------------------------------------------------------------------- data files
@case("data_file_missing", DataError)
def _(p: Project) -> Case:
    p.config["data"]["path"] = "patients.csv"
    return run_case(p, "patients.csv", "not found")


@case("data_file_empty", DataError)
def _(p: Project) -> Case:
    p.files["data.csv"] = b""
    return run_case(p, "data.csv", "empty")


@case("data_file_blank", DataError)
def _(p: Project) -> Case:
    p.files["data.csv"] = b"\n\n  \n"
    return run_case(p, "data.csv", "empty")


@case("data_file_header_only", DataError)
def _(p: Project) -> Case:
    p.files["data.csv"] = b"id,age,sex,disease\n"
    return run_case(p, "data.csv", "no data rows")


@case("data_file_binary", DataError)
def _(p: Project) -> Case:
    p.files["data.csv"] = bytes(range(256)) * 4
    return run_case(p, "data.csv", "not a text table")


@case("data_file_png", DataError)
def _(p: Project) -> Case:
    p.files["data.csv"] = PNG_HEADER
    return run_case(p, "data.csv", "not a text table")


@case("data_file_png_signature_only", DataError)
def _(p: Project) -> Case:
    p.files["data.csv"] = PNG_HEADER[:8]  # no NUL byte, but not UTF-8 either
    return run_case(p, "data.csv", "not UTF-8")


@case("data_file_unsupported_suffix", DataError)
def _(p: Project) -> Case:
    p.files["data.json"] = b'[{"age": 20}]'
    p.config["data"]["path"] = "data.json"
    return run_case(p, "data.json", "unsupported file type .json")


@case("data_file_garbage_parquet", DataError)
def _(p: Project) -> Case:
    p.files["data.parquet"] = b"this is not parquet"
    p.config["data"]["path"] = "data.parquet"
    return run_case(p, "data.parquet", "cannot read as parquet")


@case("data_duplicate_column_names", DataError)
def _(p: Project) -> Case:
    p.data_rows("1,20,F,20", "2,25,M,25", header="id,age,sex,age")
    return run_case(p, "data.csv", "duplicate column", "age")


@case("data_column_without_name", DataError)
def _(p: Project) -> Case:
    p.data_rows("1,20,F,flu", "2,25,M,cold", header="id,age,sex,")
    return run_case(p, "data.csv", "without a header name", "column 4")


@case("data_rows_wider_than_header", DataError)
def _(p: Project) -> Case:
    p.data_rows("1,20,F,flu,x", "2,25,M,cold,y")
    return run_case(p, "data.csv", "line 2")


# ------------------------------------------------------------------------------------------- config files
@case("config_not_toml", ConfigError)
def _(p: Project) -> Case:
    p.config_text = '[data\npath = "data.csv"\n'
    return run_case(p, "study.toml", "not valid TOML")


@case("config_not_utf8", ConfigError)
def _(p: Project) -> Case:
    p.config_text = b'[data]\npath = "d\xe9ta.csv"\n'
    return run_case(p, "study.toml")


@case("config_missing", ConfigError)
def _(p: Project) -> Case:
    return Case(["run", str(p.root / "missing.toml")], ["missing.toml", "not found"])


# ------------------------------------------------------------------------------------------- --set
@case("set_without_equals", ArgumentError)
def _(p: Project) -> Case:
    return run_case(p, "--set", "'privacy.k'", "SECTION.KEY=VALUE", extra=("--set", "privacy.k"))


@case("set_k_not_a_number", ConfigError)
def _(p: Project) -> Case:
    return run_case(p, "privacy.k", "'abc'", extra=("--set", "privacy.k=abc"))


@case("set_unknown_key", ConfigError)
def _(p: Project) -> Case:
    return run_case(p, "engine.algoritm", extra=("--set", "engine.algoritm=flash"))


@case("set_without_section", ArgumentError)
def _(p: Project) -> Case:
    return run_case(p, "--set", "'k=3'", extra=("--set", "k=3"))


# ------------------------------------------------------------------------------------------- measure --node
def measure_case(node: str, *needles: str) -> Case:
    return Case(["measure", CFG, "--node", "age=0,sex=0", "--node", node], list(needles))


@case("node_unknown_quasi_identifier", ArgumentError)
def _(p: Project) -> Case:
    return measure_case("age=1,gender=0", "'gender'", "not a quasi-identifier")


@case("node_level_out_of_range", ArgumentError)
def _(p: Project) -> Case:
    return measure_case("age=3,sex=0", "'age'", "level 3", "0..2")


@case("node_negative_level", ArgumentError)
def _(p: Project) -> Case:
    return measure_case("age=1,sex=-1", "'sex'", "level -1", "0..1")


@case("node_missing_quasi_identifier", ArgumentError)
def _(p: Project) -> Case:
    return measure_case("age=1", "no level for sex")


@case("node_level_not_an_integer", ArgumentError)
def _(p: Project) -> Case:
    return measure_case("age=one,sex=0", "'age'", "'one'", "not an integer")


@case("node_part_without_equals", ArgumentError)
def _(p: Project) -> Case:
    return measure_case("age=1,sex", "'sex'", "NAME=LEVEL")


@case("node_quasi_identifier_twice", ArgumentError)
def _(p: Project) -> Case:
    return measure_case("age=1,age=2,sex=0", "'age'", "twice")


@case("measure_without_node", None)
def _(p: Project) -> Case:
    return Case(["measure", CFG], ["--node"])


# ------------------------------------------------------------------------------------------- command line
@case("unknown_command", None)
def _(p: Project) -> Case:
    return Case(["anonymize", CFG], ["'anonymize'"])


@case("out_is_an_existing_file", None)
def _(p: Project) -> Case:
    p.files["release"] = b"keep me\n"
    return Case(["run", CFG, "--out", str(p.root / "release")], ["--out", "release"])


# ------------------------------------------------------------------------------------------- harness
def fingerprint(root: Path) -> dict[str, str]:
    """sha256 of every file below ``root`` (so a changed, added or removed file shows)."""
    return {str(f.relative_to(root)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(root.rglob("*")) if f.is_file()}


def build(name: str, tmp_path: Path) -> tuple[Case, list[str]]:
    project = Project(tmp_path)
    c = CASES[name](project)
    project.write()
    argv = [str(project.config_path) if a == CFG else a for a in c.argv]
    return c, argv


def assert_one_named_line(err: str, needles: list[str]) -> None:
    assert err.endswith("\n") and err.count("\n") == 1, f"expected one line on stderr, got {err!r}"
    assert err.startswith("workbench: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, f"{needle!r} not in {err!r}"


def test_catalogue_is_large_enough() -> None:
    assert len(CASES) >= 20


# ------------------------------------------------------------------------------------------- privacy models
@case("privacy_model_on_a_quasi_identifier", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["l_diversity"] = {"attribute": "sex", "variant": "distinct", "l": 2}
    return run_case(p, "privacy.l_diversity.attribute", "'sex'", "role 'quasi'", "sensitive")


@case("privacy_model_on_an_insensitive_attribute", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["t_closeness"] = {"attribute": "disease", "variant": "equal", "t": 0.5}
    return run_case(p, "privacy.t_closeness.attribute", "'disease'", "role 'insensitive'", "sensitive")


@case("hierarchical_t_closeness_without_hierarchy", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["disease"] = {"role": "sensitive"}
    p.config["privacy"]["t_closeness"] = {"attribute": "disease", "variant": "hierarchical", "t": 0.5}
    return run_case(p, "privacy.t_closeness", "'hierarchical'", "needs a hierarchy", "'disease'")


@case("t_closeness_threshold_above_one", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["disease"] = {"role": "sensitive"}
    p.config["privacy"]["t_closeness"] = {"attribute": "disease", "t": 1.5}
    return run_case(p, "privacy.t_closeness.t", "(0, 1]", "1.5")


@case("risk_threshold_zero", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["risk"] = {"model": "average", "threshold": 0}
    return run_case(p, "privacy.risk.threshold", "(0, 1]")


@case("risk_threshold_set_above_one", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["risk"] = {"model": "sample_uniqueness", "threshold": 0.1}
    return run_case(p, "privacy.risk.threshold", "(0, 1]", "2.0", extra=("--set", "privacy.risk.threshold=2.0"))


@case("population_uniqueness_without_population", ConfigError)
def _(p: Project) -> Case:
    p.config["privacy"]["risk"] = {"model": "population_uniqueness", "threshold": 0.01}
    return run_case(p, "privacy.risk", "needs 'population'")


@case("l_diversity_unknown_variant", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["disease"] = {"role": "sensitive"}
    p.config["privacy"]["l_diversity"] = {"attribute": "disease", "variant": "probabilistic", "l": 2}
    return run_case(p, "privacy.l_diversity.variant", "'probabilistic'", "distinct, entropy, recursive")


@case("l_diversity_estimator_on_distinct", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["disease"] = {"role": "sensitive"}
    p.config["privacy"]["l_diversity"] = {"attribute": "disease", "l": 2, "estimator": "grassberger"}
    return run_case(p, "privacy.l_diversity.estimator", "variant = 'entropy'")


@case("privacy_model_unknown_key", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["disease"] = {"role": "sensitive"}
    p.config["privacy"]["l_diversity"] = {"attribute": "disease", "l": 2, "ell": 3}
    return run_case(p, "unknown key privacy.l_diversity.ell")


@case("non_monotone_model_with_flash", ConfigError)
def _(p: Project) -> Case:
    p.config["attributes"]["disease"] = {"role": "sensitive"}
    p.config["privacy"] |= {"max_suppression": 0.5, "l_diversity": {"attribute": "disease", "variant": "entropy",
                                                                    "l": 1.5}}
    p.config["engine"]["algorithm"] = "flash"
    return run_case(p, "'flash'", "entropy-1.5-diversity (shannon) of disease", "not monotone", "'bnb'")


@pytest.mark.parametrize("name", list(CASES))
def test_cli_in_process(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c, argv = build(name, tmp_path)
    before = fingerprint(tmp_path)
    try:
        status = cli.main(argv)
    except SystemExit as exc:  # argparse
        status = exc.code
    out, err = capsys.readouterr()
    assert status == 2, err
    assert out == ""
    assert_one_named_line(err, c.needles)
    assert fingerprint(tmp_path) == before


PYTHON_NAME = {"--set": "override", "--node": "node"}  # how the library names what these options take


@pytest.mark.parametrize("name", [n for n, e in ERRORS.items() if e is not None])
def test_api_raises_documented_error(name: str, tmp_path: Path) -> None:
    c, argv = build(name, tmp_path)
    error = ERRORS[name]
    assert error is not None
    before = fingerprint(tmp_path)
    args = cli._parser().parse_args(argv)
    with pytest.raises(error) as info:
        study = load_study(args.config, args.overrides)
        if args.command == "measure":
            cli.measure(study, args.node)
        else:
            study_mod.run(study)
    assert type(info.value) is error
    first = str(info.value)
    for needle in c.needles:  # an option of the command line is named as what it is in Python
        assert PYTHON_NAME.get(needle, needle) in first
    assert not any(option in first for option in PYTHON_NAME), first
    assert fingerprint(tmp_path) == before


SUBPROCESS_CASES = ["hierarchy_two_parents", "data_file_png", "k_negative", "node_level_out_of_range",
                    "measure_without_node"]


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_console_script(name: str, tmp_path: Path) -> None:
    """The real process: exit status, both streams, no warning or traceback leaking onto stderr."""
    c, argv = build(name, tmp_path)
    before = fingerprint(tmp_path)
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    proc = subprocess.run([str(WORKBENCH), *argv], capture_output=True, text=True, env=env, timeout=60,
                          cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert_one_named_line(proc.stderr, c.needles)
    assert fingerprint(tmp_path) == before


def test_config_with_relative_paths_from_another_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Paths in the config are relative to the config file, not to the working directory."""
    _, argv = build("hierarchy_two_parents", tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli.main(["run", os.path.relpath(argv[1], elsewhere)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert_one_named_line(err, ["age.csv", "two parents"])


# ------------------------------------------------------------------------------------------- every problem at once
def test_every_hierarchy_problem_is_reported_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = Project(tmp_path)
    # '30-39' has two parents; '25' has two rows; the data hold 44 and 52, which have no row
    project.files["age.csv"] = b"20;20-29;*\n25;20-29;*\n31;30-39;*\n38;30-39;ROOT\n25;20-29;*\n"
    project.data_rows("1,20,F,flu", "2,44,M,cold", "3,31,F,flu", "4,38,M,cold", "5,52,F,flu", "6,25,M,cold")
    project.write()
    wanted = [("two parents", "'30-39'"), ("more than one row", "'25'"), ("'44' in data row 2", "'52' in data row 5")]

    h = Hierarchy.read_arx(tmp_path / "age.csv")
    with pytest.raises(HierarchyError) as info:
        h.check(["20", "44", "31", "38", "52", "25"])
    for words in wanted[:2]:
        assert any(all(w in p for w in words) for p in info.value.problems), info.value.problems
    assert any("'44'" in p and "'52'" in p for p in info.value.problems)

    frame = read_table(tmp_path / "data.csv")
    with pytest.raises(HierarchyError) as info:
        Dataset.create(frame, {"age": "quasi", "sex": "quasi"},
                       {"age": h, "sex": Hierarchy.read_arx(tmp_path / "sex.csv")}, source="data.csv")
    problems = info.value.problems
    assert len(problems) == 3
    for words in wanted:
        assert any(all(w in p for w in words) for p in problems), problems

    assert cli.main(["run", str(project.config_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert_one_named_line(err, ["age.csv", *(w for words in wanted for w in words)])


def test_unequal_rows_are_all_listed(tmp_path: Path) -> None:
    """Unequal lengths stop the other structural checks, but every short or long row is named."""
    h = Hierarchy.parse_arx("20;20-29;*\n25;20-29\n31;30-39;*\n38;30-39;*;x\n44;40-49\n", name="age.csv")
    report = h.validate()
    assert not report.ok
    text = " ".join(report.errors)
    assert "line 2" in text and "line 5" in text and "line 4" in text


# ------------------------------------------------------------------------------------------- the caller's frame
def _hierarchies() -> dict[str, Hierarchy]:
    return {"age": Hierarchy.parse_arx(AGE, name="age.csv"), "sex": Hierarchy.parse_arx(SEX, name="sex.csv")}


def _caller_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "id": [1, 2, 3, 4],
        "age": ["20", "25", "31", "38"],
        "sex": pd.Categorical(["F", "M", "F", "M"]),
        "weight": [61.5, np.nan, 80.25, 72.0],
    }, index=[10, 11, 12, 13])


@pytest.mark.parametrize("broken", [False, True])
def test_dataset_create_never_modifies_the_callers_frame(broken: bool) -> None:
    frame = _caller_frame()
    if broken:
        frame.loc[12, "age"] = "99"  # not covered by the hierarchy
    expected = copy.deepcopy(frame)
    roles = {"id": "identifying", "age": "quasi", "sex": "quasi"}
    if broken:
        with pytest.raises(HierarchyError, match="'99'"):
            Dataset.create(frame, roles, _hierarchies())
    else:
        ds = Dataset.create(frame, roles, _hierarchies())
        assert ds.frame is not frame
        _ = ds.encoded
        ds.frame.iloc[0, 1] = "25"  # the dataset's own copy, not the caller's
    pd.testing.assert_frame_equal(frame, expected)


@pytest.mark.parametrize(("roles", "error", "needle"), [
    ({"age": "quasi", "salary": "sensitive"}, DataError, "'salary'"),
    ({"age": "quasy"}, DataError, "'quasy'"),
    ({"age": "quasi", "weight": "quasi"}, HierarchyError, "'weight'"),
])
def test_dataset_create_errors_leave_the_frame_alone(roles: dict[str, str], error: type[Exception],
                                                     needle: str) -> None:
    frame = _caller_frame()
    expected = copy.deepcopy(frame)
    with pytest.raises(error, match=needle):
        Dataset.create(frame, roles, _hierarchies())
    pd.testing.assert_frame_equal(frame, expected)


def test_dataset_create_rejects_an_empty_frame() -> None:
    frame = _caller_frame().iloc[0:0]
    expected = copy.deepcopy(frame)
    with pytest.raises(DataError):
        Dataset.create(frame, {"age": "quasi"}, _hierarchies())
    pd.testing.assert_frame_equal(frame, expected)


def test_error_classes_are_workbench_errors() -> None:
    for cls in (ConfigError, DataError, HierarchyError):
        assert issubclass(cls, WorkbenchError)
    assert WORKBENCH.exists(), "the console script is installed beside the interpreter"
