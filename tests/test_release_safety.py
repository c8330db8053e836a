"""A release is written whole or not at all, never silently replaced, and safe to open in a spreadsheet; input
the CLI cannot read ends with one line and exit 2.

Faults are real where the machine allows it: a file-size limit (``RLIMIT_FSIZE``) in a subprocess, and files a
non-root user may not read or write (the subprocess drops to user ``nobody`` when the tests run as root).
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests._cli import call
from workbench.config import load_study
from workbench.errors import ConfigError, OutputError
from workbench.release.output import escape_formulas, write_folder

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"




def fingerprint(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def run_cli_subprocess(argv: list[str], *, fsize: int | None = None, as_nobody: bool = False,
                       cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``workbench ARGV`` in a fresh interpreter with this checkout first on the path, optionally under a
    file-size limit and as user ``nobody`` (after the imports, which read root's interpreter)."""
    script = textwrap.dedent(f"""
        import os, resource, sys
        import workbench.cli, workbench.study, workbench.config, workbench.release, workbench.release.output
        import workbench.data
        import workbench.lattice.search, workbench.hierarchy.builders, measures
        fsize = {fsize!r}
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        if {as_nobody!r} and os.geteuid() == 0:
            import contextlib, io, shutil, tempfile  # a first run as root imports every module a run needs
            warm = tempfile.mkdtemp()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                workbench.cli.main(["run", {str(TEACHING)!r}, "--out", warm + "/out"])
            shutil.rmtree(warm)
            os.setgid(65534)
            os.setuid(65534)
        raise SystemExit(workbench.cli.main({argv!r}))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120,
                          cwd=cwd or ROOT)


@pytest.fixture
def public_tmp() -> Iterator[Path]:
    """A folder user ``nobody`` may enter (pytest's own tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="workbench-test-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def leftovers(parent: Path, name: str) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith(f".{name}.")]


# ------------------------------------------------------------------------------------------------ 3. atomic
@pytest.mark.parametrize("existing", [True, False], ids=["earlier release", "new folder"])
def test_a_file_size_limit_leaves_the_target_unchanged(tmp_path: Path, existing: bool) -> None:
    out = tmp_path / "out"
    if existing:
        assert call("run", TEACHING, "--set", "privacy.k=2", "--out", out)[0] == 0
        before = fingerprint(out)
    size = len((out / "release.csv").read_bytes()) if existing else 300
    # --no-register: the limit is for the release's files (a new register's database would hit it first)
    proc = run_cli_subprocess(["run", str(TEACHING), "--set", "privacy.k=3", "--force", "--out", str(out),
                               "--no-register"], fsize=size // 2)
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "--out" in proc.stderr, proc.stderr
    if existing:
        assert fingerprint(out) == before  # the earlier release, byte for byte
    else:
        assert not out.exists()
    assert leftovers(tmp_path, "out") == []


def test_a_failed_provenance_write_leaves_no_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writing provenance.json fails (as for an unwritable file): neither the release nor anything else appears."""
    real_open = builtins.open

    def failing_open(file, mode="r", *args, **kwargs):
        if "w" in str(mode) and str(file).endswith("provenance.json"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", failing_open)
    out = tmp_path / "out"
    out.mkdir()
    status, _, err = call("run", TEACHING, "--out", out)
    assert status == 2 and len(err.splitlines()) == 1 and "Permission denied" in err, err
    assert list(out.iterdir()) == [] and leftovers(tmp_path, "out") == []


def test_an_unwritable_provenance_of_an_earlier_release_is_never_half_replaced(public_tmp: Path) -> None:
    """The issue's case: an earlier release whose provenance.json the user may not write. Without --force the
    folder is refused untouched; with it the release is replaced as a whole (a new, consistent pair)."""
    parent = public_tmp
    out = parent / "out"
    assert call("run", TEACHING, "--set", "privacy.k=2", "--out", out)[0] == 0
    out.chmod(0o777)
    (out / "release.csv").chmod(0o666)
    (out / "provenance.json").chmod(0o444)
    before = fingerprint(out)
    refused = run_cli_subprocess(["run", str(TEACHING), "--out", str(out)], as_nobody=True, cwd=parent)
    assert refused.returncode == 2 and "--force" in refused.stderr and fingerprint(out) == before, refused.stderr
    replaced = run_cli_subprocess(["run", str(TEACHING), "--force", "--out", str(out)], as_nobody=True, cwd=parent)
    assert replaced.returncode == 0, replaced.stderr
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["guarantee"]["k"] == 3 and sorted(fingerprint(out)) == ["provenance.json", "release.csv"]
    assert leftovers(parent, "out") == []


def test_write_folder_keeps_the_target_when_the_swap_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    write_folder(out, {"release.csv": b"a\n1\n", "provenance.json": b"{}\n"})
    before = fingerprint(out)
    real_rename = os.rename
    calls = []

    def rename(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the new folder into place
            raise OSError(28, "No space left on device")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OSError, match="No space"):
        write_folder(out, {"release.xlsx": b"x", "provenance.json": b"{}\n"}, force=True)
    assert fingerprint(out) == before and leftovers(tmp_path, "out") == []


# ------------------------------------------------------------------------------------------------ 4. --force
def test_an_out_folder_holding_a_release_is_refused_without_force_and_replaced_whole_with_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert call("run", TEACHING, "--set", "privacy.k=2", "--out", out)[0] == 0
    before = fingerprint(out)
    status, stdout, err = call("run", TEACHING, "--set", "release.format=xlsx", "--out", out)
    assert status == 2 and stdout == "" and len(err.splitlines()) == 1, err
    assert "already holds a release" in err and "--force" in err
    assert fingerprint(out) == before
    status, _, err = call("run", TEACHING, "--set", "release.format=xlsx", "--force", "--out", out)
    assert status == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["provenance.json", "release.xlsx"]  # no stale release.csv
    assert json.loads((out / "provenance.json").read_text())["guarantee"]["k"] == 3


def test_each_interface_names_its_own_way_to_replace_a_release(tmp_path: Path) -> None:
    """The library's refusal names no option of the command line: Python callers are told ``force=True`` (the
    parameter of ``Release.write`` and ``Report.write``), the CLI's commands ``--out DIR`` and ``--force``. The
    error keeps its parts (folder, problem) and survives pickling (a worker process's error reaches its caller)."""
    import pickle

    import workbench as wb

    out = tmp_path / "out"
    study = wb.load_study(TEACHING)
    result = wb.run(study)
    result.release.write(out, seed=0)
    before = fingerprint(out)
    with pytest.raises(OutputError) as raised:
        result.release.write(out, seed=0)
    python = str(raised.value)
    assert python.startswith(f"{out} already holds a release (provenance.json, release.csv)"), python
    assert "pass force=True" in python and "--" not in python
    assert raised.value.folder == str(out) and raised.value.replaceable
    assert str(pickle.loads(pickle.dumps(raised.value))) == python
    with pytest.raises(OutputError, match="pass force=True") as raised:
        wb.build_report(study, result).write(out)
    assert "--" not in str(raised.value)
    assert fingerprint(out) == before
    for command in (["run", TEACHING], ["report", TEACHING], ["compare", TEACHING]):
        status, stdout, err = call(*command, "--out", out)
        assert status == 2 and stdout == "", err
        assert err == (f"workbench: --out {out} already holds a release (provenance.json, release.csv); give --force "
                       "to replace it as a whole, or choose a new or empty folder\n"), err
        assert "force=True" not in err
    assert fingerprint(out) == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine\n")
    with pytest.raises(OutputError) as raised:  # no remedy to name: the same words in both interfaces
        result.release.write(other, seed=0)
    assert str(raised.value) == f"{other} holds files that are not a release (notes.txt); choose a new or empty folder"
    assert call("run", TEACHING, "--out", other)[2] == f"workbench: --out {raised.value}\n"


def test_a_node_and_an_override_are_named_by_the_interface_they_came_from() -> None:
    """``--set``, ``--node`` and ``--against`` on the command line; in Python an override and a node."""
    import workbench as wb
    from workbench.errors import ArgumentError
    from workbench.views.node_details import node_details

    with pytest.raises(ArgumentError) as raised:
        wb.load_study(TEACHING, ["privacy.k"])
    assert str(raised.value) == "override 'privacy.k': expected SECTION.KEY=VALUE"
    assert call("run", TEACHING, "--set", "privacy.k")[2] == \
        "workbench: --set 'privacy.k': expected SECTION.KEY=VALUE\n"
    study = wb.load_study(TEACHING)
    with pytest.raises(ArgumentError) as raised:
        node_details(study, wb.load_dataset(study), "date=0,gender=0,age=9")
    assert str(raised.value) == "node 'date=0,gender=0,age=9': level 9 of 'age' is outside 0..4"
    assert call("measure", TEACHING, "--node", "date=0,gender=0,age=9")[2] == \
        "workbench: --node 'date=0,gender=0,age=9': level 9 of 'age' is outside 0..4\n"
    assert call("risk", TEACHING, "--attacks", "--against", "date=0,gender=0,age=9")[2] == \
        "workbench: --against 'date=0,gender=0,age=9': level 9 of 'age' is outside 0..4\n"


def test_force_that_cannot_remove_the_earlier_release_changes_nothing(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The earlier release's files may not be removed (another user's files): write_folder fails with one line,
    the earlier release stays in place as it was (the same files, not a copy) and nothing is left beside it."""
    out = tmp_path / "out"
    write_folder(out, {"release.csv": b"a\n1\n", "provenance.json": b"{}\n"})
    before, inode = fingerprint(out), out.stat().st_ino
    real_rename = os.rename

    def rename(src, dst):
        if Path(src).parent.name.endswith(".old"):  # a file of the earlier release, on its way out
            raise PermissionError(1, "Operation not permitted")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OutputError, match="cannot remove the earlier release") as raised:
        write_folder(out, {"release.xlsx": b"x", "provenance.json": b"{}\n"}, force=True)
    assert len(str(raised.value).splitlines()) == 1
    assert fingerprint(out) == before and out.stat().st_ino == inode and leftovers(tmp_path, "out") == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder of another user's files")
@pytest.mark.parametrize("mode", [0o1777, 0o755], ids=["sticky folder", "read-only folder"])
def test_force_by_a_user_who_may_not_delete_the_earlier_release_fails_and_keeps_it(public_tmp: Path,
                                                                                   mode: int) -> None:
    """The case reported: user nobody runs ``--force`` on root's release in a folder nobody may write into but not
    delete from (sticky, world-writable), or may not write at all; the command used to print "wrote", exit 0 and
    leave root's release behind as a hidden ``.out.*.old`` folder."""
    out = public_tmp / "out"
    assert call("run", TEACHING, "--set", "privacy.k=2", "--out", out)[0] == 0
    out.chmod(mode)
    before = fingerprint(out)
    proc = run_cli_subprocess(["run", str(TEACHING), "--force", "--out", str(out)], as_nobody=True, cwd=public_tmp)
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout + proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "earlier release" in proc.stderr, proc.stderr
    assert fingerprint(out) == before and leftovers(public_tmp, "out") == []


def test_compare_out_is_written_whole_and_replaced_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    status, _, err = call("compare", TEACHING, "--k", "3", "--out", out)
    assert status == 0, err
    before = fingerprint(out)
    assert {"solutions.csv", "optimal_under.csv", "sweep.html"} <= set(before)
    status, stdout, err = call("compare", TEACHING, "--k", "4", "--out", out)
    assert status == 2 and len(err.splitlines()) == 1 and "--force" in err, err
    assert "k " not in stdout and fingerprint(out) == before  # refused before the sweep
    status, _, err = call("compare", TEACHING, "--k", "4", "--force", "--out", out)
    assert status == 0, err
    assert set(pd.read_csv(out / "solutions.csv")["k"]) == {4} and leftovers(tmp_path, "cmp") == []


def test_force_never_deletes_files_that_are_not_a_release(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    status, _, err = call("run", TEACHING, "--force", "--out", out)
    assert status == 2 and "notes.txt" in err and "not a release" in err, err
    assert fingerprint(out) == {"notes.txt": hashlib.sha256(b"mine\n").hexdigest()}


def test_an_empty_existing_folder_takes_a_release(tmp_path: Path) -> None:
    status, _, err = call("run", TEACHING, "--out", tmp_path)
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["provenance.json", "release.csv"]


# ------------------------------------------------------------------------------------------------ 7. formulas
FORMULAS = ["=HYPERLINK(\"http://x.example\",\"click\")", "=cmd|' /C calc'!A0", "@SUM(A1)", "+A1", "-A1+B1",
            "\tTAB"]
NUMBERS = ["-3", "+1.5", "-2e3", "7"]


def _formula_study(tmp_path: Path, release: str = "") -> Path:
    notes = FORMULAS + NUMBERS + ["plain", "'quoted"]
    rows = [{"age": str(20 + i % 4), "note": n} for i, n in enumerate(notes)]
    pd.DataFrame(rows).to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "study.toml").write_text(textwrap.dedent(f"""
        [data]
        path = "data.csv"
        [attributes.age]
        role = "quasi"
        builder = {{ kind = "intervals", widths = [10] }}
        [privacy]
        k = 2
        [release]
        {release}
    """), encoding="utf-8")
    return tmp_path / "study.toml"


def _notes(path: Path) -> list[str]:
    table = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
    return sorted(table["note"])


def test_csv_release_neutralizes_formula_cells_and_keeps_numbers(tmp_path: Path) -> None:
    config = _formula_study(tmp_path)
    status, _, err = call("run", config, "--out", tmp_path / "out")
    assert status == 0, err
    written = _notes(tmp_path / "out" / "release.csv")
    assert written == sorted(["'" + f for f in FORMULAS] + NUMBERS + ["plain", "'quoted"])
    provenance = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert provenance["csv_formula_escaping"]["applied"] is True
    assert provenance["csv_formula_escaping"]["cells"] == len(FORMULAS)
    assert provenance["guarantee"]["holds"] is True


def test_escape_formulas_false_writes_cells_verbatim(tmp_path: Path) -> None:
    config = _formula_study(tmp_path, "escape_formulas = false")
    status, _, err = call("run", config, "--out", tmp_path / "out")
    assert status == 0, err
    assert _notes(tmp_path / "out" / "release.csv") == sorted(FORMULAS + NUMBERS + ["plain", "'quoted"])
    provenance = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert provenance["csv_formula_escaping"]["applied"] is False


def test_escape_formulas_must_be_a_boolean(tmp_path: Path) -> None:
    config = _formula_study(tmp_path, 'escape_formulas = "no"')
    with pytest.raises(ConfigError, match="release.escape_formulas must be a boolean|release.escape_formulas"):
        load_study(config)
    status, _, err = call("run", config)
    assert status == 2 and "release.escape_formulas" in err


def test_escape_formulas_covers_column_names_and_leaves_numbers() -> None:
    table = pd.DataFrame({"=bad": ["=1+1", "-3"], "ok": ["@x", "+1.5"], "cr": ["\rCR", "\tTAB"]})
    escaped, changed = escape_formulas(table)
    assert list(escaped.columns) == ["'=bad", "ok", "cr"]
    assert escaped.to_numpy().tolist() == [["'=1+1", "'@x", "'\rCR"], ["-3", "+1.5", "'\tTAB"]]
    assert changed == 5


# ------------------------------------------------------------------------------------------------ 8. unreadable
def test_an_unreadable_data_file_is_one_line_and_exit_2(public_tmp: Path) -> None:
    tmp_path = public_tmp
    config = _formula_study(tmp_path)
    (tmp_path / "data.csv").chmod(0o000)
    proc = run_cli_subprocess(["run", str(config)], as_nobody=True, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [f"workbench: cannot read data file {tmp_path / 'data.csv'}: Permission denied"]
    assert proc.stdout == ""


def test_output_error_is_a_workbench_error() -> None:
    with pytest.raises(OutputError):
        write_folder(ROOT / "README.md", {"release.csv": b""})
