"""The release register (docs/register.md), on SQLite and on a real PostgreSQL (``WORKBENCH_TEST_POSTGRES``, started
by ``tests/_pg_cluster.py``; those cases skip without it): every ``workbench run --out`` is recorded with what its
provenance.json says; ``history`` lists it and ``decide`` records the board's decision; the migrated schema is the
code's; concurrent writers lose nothing; and a new release of the same data is checked against the earlier ones,
with counts an independent join of the two releases reproduces."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import textwrap
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sqlalchemy as sa

import workbench as wb
from tests._cli import call
from workbench import register as R
from workbench.register import schema as S
from workbench.register import store
from workbench.register.store import Register, RegisterError, close_all, open_register, os_user
from workbench.risk import attacks

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"
REGISTRY = ROOT / "sample_configs" / "registry.toml"
POSTGRES = os.environ.get("WORKBENCH_TEST_POSTGRES")


def _postgres_schema_url(base: str) -> str:
    """A fresh schema of the test database, as a URL whose connections use it (a register of its own)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    engine = sa.create_engine(base)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    engine.dispose()
    sep = "&" if "?" in base else "?"
    return f"{base}{sep}options=-csearch_path%3D{schema}"


@pytest.fixture(params=["sqlite", "postgresql"])
def register_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A new, empty register, set as ``WORKBENCH_REGISTER``: a SQLite file, or a schema of the test PostgreSQL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'register.sqlite'}"
    else:
        if not POSTGRES:
            pytest.skip("WORKBENCH_TEST_POSTGRES is not set (tests/_pg_cluster.py starts a PostgreSQL)")
        url = _postgres_schema_url(POSTGRES)
    monkeypatch.setenv("WORKBENCH_REGISTER", url)
    yield url
    close_all()


def _table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"patient": [f"P{i:05d}" for i in range(n)], "age": rng.integers(18, 90, n).astype(str),
                         "sex": rng.choice(["F", "M"], n), "diagnosis": rng.choice(list("ABCDEFG"), n)})


CONFIG = """
[data]
path = "{path}"
[attributes.patient]
role = "identifying"
[attributes.age]
role = "quasi"
builder = {{ kind = "intervals", widths = [5, 10, 20, 40] }}
[attributes.sex]
role = "quasi"
builder = {{ kind = "groupings", levels = [{{ F = "*", M = "*" }}] }}
[attributes.diagnosis]
role = "sensitive"
[privacy]
k = {k}
max_suppression = 0.05
[measures]
compare = ["loss", "dm_star"]
[release]
seed = 7
"""


def _study(folder: Path, table: pd.DataFrame, k: int = 3, name: str = "people.csv", extra: str = "") -> Path:
    table.to_csv(folder / name, index=False)
    path = folder / f"{name}.k{k}.toml"
    path.write_text(textwrap.dedent(CONFIG.format(path=name, k=k)) + extra, encoding="utf-8")
    return path


def _history(*args: str) -> list[dict]:
    status, out, err = call("history", *args, "--json")
    assert status == 0, err
    return json.loads(out)["releases"]


# ----------------------------------------------------------------------------------------------- the record
def test_run_out_records_what_its_provenance_says(register_url, tmp_path):
    """One ``run --out``: the register holds the release with the provenance's input digest, config, node and
    measures, counts recomputed from the released file, and the OS user; ``history --json`` gives it."""
    config = _study(tmp_path, _table(300))
    status, out, err = call("run", config, "--out", tmp_path / "out", "--json")
    assert status == 0, err
    summary = json.loads(out)
    prov = json.loads((tmp_path / "out" / "provenance.json").read_text(encoding="utf-8"))
    released = pd.read_csv(tmp_path / "out" / "release.csv", dtype=str, keep_default_na=False)
    [row] = _history()
    assert row["id"] == summary["register"]["id"] == 1
    digest = hashlib.sha256((tmp_path / "people.csv").read_bytes()).hexdigest()
    assert row["data_sha256"] == row["file_sha256"] == prov["input"]["file_sha256"] == digest
    assert row["content_sha256"] == prov["input"]["content_sha256"]
    raw = wb.load_study(config).raw
    assert row["config_sha256"] == hashlib.sha256(
        json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert row["node"] == prov["transformation"] and row["k"] == 3 and row["max_suppression"] == 0.05
    qis = ["age", "sex"]
    starred = (released[qis] == "*").all(axis=1)
    assert row["suppressed"] == int(starred.sum())
    assert row["classes"] == len(released[~starred].groupby(qis))
    sizes = released.groupby(qis)[qis[0]].transform("size")
    assert row["risk"]["highest"] == pytest.approx(float((1 / sizes).max()))
    assert row["measures"] == pytest.approx(prov["measures"])
    assert row["output"] == str((tmp_path / "out").resolve())
    assert row["user"] == os_user() and row["channel"] == "cli" and row["decision"] is None
    assert row["software_version"] == prov["package"]["version"]


def test_no_register_records_nothing(register_url, tmp_path):
    config = _study(tmp_path, _table(120))
    status, _, err = call("run", config, "--out", tmp_path / "out", "--no-register")
    assert status == 0, err
    assert _history() == []


def test_a_run_without_out_records_nothing(register_url, tmp_path):
    status, _, err = call("run", TEACHING)
    assert status == 0, err
    assert _history() == []


def test_history_filters_by_data_file_digest_and_name(register_url, tmp_path):
    a, b = _study(tmp_path, _table(150, 1), name="a.csv"), _study(tmp_path, _table(150, 2), name="b.csv")
    for config, out in ((a, "oa"), (b, "ob"), (TEACHING, "ot")):
        assert call("run", config, "--out", tmp_path / out)[0] == 0
    assert [r["id"] for r in _history()] == [1, 2, 3]  # oldest first
    assert [r["id"] for r in _history("--data", str(tmp_path / "b.csv"))] == [2]
    digest = hashlib.sha256((tmp_path / "a.csv").read_bytes()).hexdigest()
    assert [r["id"] for r in _history("--data", digest)] == [1]
    assert [r["id"] for r in _history("--data", "sample:teaching")] == [3]
    assert _history("--data", "sample:none") == []


# ----------------------------------------------------------------------------------------------- decisions
def test_the_boards_decisions_are_kept_and_the_newest_counts(register_url, tmp_path):
    assert call("run", TEACHING, "--out", tmp_path / "out")[0] == 0
    status, out, err = call("decide", "1", "--decision", "approved", "--by", "Ethics board")
    assert status == 0, err and "approved by Ethics board" in out
    assert _history()[0]["decision"]["decision"] == "approved"
    status, _, err = call("decide", "1", "--decision", "conditions", "--by", "Chair", "--note", "cardiology only")
    assert status == 0, err
    d = _history()[0]["decision"]
    assert (d["decision"], d["by"], d["note"], d["recorded_by"]) == ("conditions", "Chair", "cardiology only",
                                                                     os_user())
    reg = open_register()
    assert [x["decision"] for x in reg.release(1)["decisions"]] == ["approved", "conditions"]


@pytest.mark.parametrize("argv, message", [
    (["decide", "9", "--decision", "approved", "--by", "B"], "no release 9 in the register"),
    (["decide", "1", "--decision", "conditions", "--by", "B"], "needs the conditions in its note"),
    (["decide", "1", "--decision", "approved", "--by", " "], "needs the name of who took it"),
    (["decide", "x", "--decision", "approved", "--by", "B"], "is not a release id"),
    (["decide", "1", "--decision", "maybe", "--by", "B"], "invalid choice"),
])
def test_a_bad_decision_is_refused_in_one_line(register_url, tmp_path, argv, message):
    assert call("run", TEACHING, "--out", tmp_path / "out")[0] == 0
    status, _, err = call(*argv)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert _history()[0]["decision"] is None


def test_a_register_that_cannot_be_opened_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_REGISTER", "nosuchdb://x")
    status, _, err = call("history")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "WORKBENCH_REGISTER" in err, err
    monkeypatch.setenv("WORKBENCH_REGISTER", f"sqlite:///{tmp_path / 'r.sqlite'}")
    status, _, err = call("run", TEACHING, "--out", tmp_path / "out", "--set", "register.key=nope")
    assert status == 2 and "register.key: no column 'nope'" in err and not (tmp_path / "out").exists(), err


# ----------------------------------------------------------------------------------------------- the database
def test_the_migrated_schema_is_the_codes(register_url):
    """Alembic's migrations build what ``schema.py`` describes (no difference Alembic's autogenerate sees), and
    SQLite runs in WAL mode."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    reg = open_register()
    with reg.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), S.metadata)
        assert diffs == []
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == "0001"
        if reg.engine.dialect.name == "sqlite":
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def _entry(i: int, who: str) -> dict:
    return {"created": "2026-01-01T00:00:00+00:00", "user_name": who, "channel": "python", "data_name": "d",
            "data_sha256": "0" * 64, "content_sha256": "0" * 64, "records": i, "config": {"i": i},
            "config_sha256": "c", "engine": "lattice", "algorithm": "flash", "k": 2, "models": [],
            "max_suppression": 0.0, "node": {"a": i}, "quasi_identifiers": ["a"], "suppressed": 0, "classes": 1,
            "measures": {}, "output": f"{who}/{i}", "software_version": "test", "warnings": []}


def _writer(url: str, who: str, count: int, start: multiprocessing.synchronize.Event) -> list[int]:
    start.wait()
    reg = Register(url)  # every process opens (and may migrate) the new register at once
    ids = [reg.record(_entry(i, who)) for i in range(count)]
    reg.decide(ids[0], "approved", who)
    return ids


PROCESSES, EACH = 6, 25


def test_concurrent_writers_lose_nothing(register_url):
    """Six processes open a new register at the same moment and record 25 releases each: every release is there
    once, with its own id, and each process's decision too."""
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with ctx.Manager() as manager:
        start = manager.Event()
        with ctx.Pool(PROCESSES) as pool:
            pending = [pool.apply_async(_writer, (register_url, f"w{p}", EACH, start)) for p in range(PROCESSES)]
            start.set()
            ids = [r.get(timeout=120) for r in pending]
    flat = [i for chunk in ids for i in chunk]
    assert len(set(flat)) == len(flat) == PROCESSES * EACH
    rows = open_register().releases()
    assert sorted(r["id"] for r in rows) == sorted(flat)
    assert {(r["user_name"], r["records"]) for r in rows} == {(f"w{p}", i) for p in range(PROCESSES)
                                                              for i in range(EACH)}
    assert sum(r["decision"] is not None for r in rows) == PROCESSES


def test_the_default_register_is_a_file_in_the_users_data_directory(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.delenv("WORKBENCH_REGISTER")
    monkeypatch.delenv("WORKBENCH_CONFIG", raising=False)
    folder = Path(platformdirs.user_data_dir("k-anonymity-workbench", appauthor=False))
    assert store.register_url() == f"sqlite:///{folder / 'register.sqlite'}"
    server = tmp_path / "server.toml"
    server.write_text('[data]\nsample = "teaching"\n[register]\nurl = "sqlite:////srv/team.sqlite"\n')
    monkeypatch.setenv("WORKBENCH_CONFIG", str(server))
    assert store.register_url() == "sqlite:////srv/team.sqlite"
    monkeypatch.setenv("WORKBENCH_REGISTER", "sqlite:////elsewhere.sqlite")  # the environment wins
    assert store.register_url() == "sqlite:////elsewhere.sqlite"


def test_the_tests_never_use_the_users_register():
    import platformdirs

    folder = platformdirs.user_data_dir("k-anonymity-workbench", appauthor=False)
    assert folder not in store.register_url() and store.register_url().startswith("sqlite:///")


# ----------------------------------------------------------------------------------------------- earlier releases
def _joined_alone(first: pd.DataFrame, second: pd.DataFrame) -> tuple[int, int]:
    """The complementary release written from its definition: each record's two released rows side by side,
    grouped; (records alone in their joined group, records in joined groups below k=3)."""
    joined = pd.concat([first.add_prefix("a_").reset_index(drop=True), second.add_prefix("b_").reset_index(drop=True)],
                       axis=1)
    sizes = joined.groupby(list(joined.columns))[joined.columns[0]].transform("size")
    return int((sizes == 1).sum()), int((sizes < 3).sum())


def test_a_second_release_of_the_same_data_warns_with_the_earlier_id_and_the_count(register_url, tmp_path):
    """Release 1 at k=3, then release 2 of the same file at k=6 (another node): the second run warns on stderr and
    in --json with release 1's id and the people the join singles out, as many as a join of the two released tables
    written from the definition; the remedy it names is checked against release 1."""
    table = _table(400, 3)
    first_cfg, second_cfg = _study(tmp_path, table, k=3), _study(tmp_path, table, k=6)
    assert call("run", first_cfg, "--out", tmp_path / "one")[0] == 0
    status, out, err = call("run", second_cfg, "--out", tmp_path / "two", "--json")
    assert status == 0, err
    qis = ["age", "sex"]
    r1, r2 = wb.run(wb.load_study(first_cfg)), wb.run(wb.load_study(second_cfg))
    assert r1.release.transformation != r2.release.transformation
    alone, below = _joined_alone(r1.release.table()[qis], r2.release.table()[qis])
    assert alone > 0
    summary = json.loads(out)
    [check] = summary["register"]["earlier_releases"]
    assert check["release_id"] == 1 and check["singled_out"] == alone
    assert check["complementary_release"]["below_k"] == below
    warning = next(w for w in summary["warnings"] if w.startswith("release 1 of the same data"))
    assert f"singles out {alone:,} of 400 people" in warning and warning in err
    from workbench.privacy.build import admissibility_for

    study2 = wb.load_study(second_cfg)
    assert any(r["safe"] for r in check["remedies"])
    for remedy in check["remedies"]:  # each remedy's release, joined with release 1 by hand
        other = wb.Release.from_node(r2.dataset, tuple(remedy["node"][q] for q in qis), 6, 0.05, "remedy",
                                     admissibility_for(study2, r2.dataset))
        if remedy["joined"] is None:  # refused: that node does not meet the rule on this table
            assert not other.verify().holds and remedy["note"] and not remedy["safe"]
        else:
            assert remedy["safe"] == (_joined_alone(r1.release.table()[qis], other.table()[qis])[0] == 0)
    [_, second] = _history()
    assert second["warnings"] == [warning]


def test_the_same_release_again_is_no_warning(register_url, tmp_path):
    config = _study(tmp_path, _table(200, 4))
    assert call("run", config, "--out", tmp_path / "one")[0] == 0
    status, out, err = call("run", config, "--out", tmp_path / "two", "--json")
    assert status == 0 and "warning" not in err, err
    [check] = json.loads(out)["register"]["earlier_releases"]
    assert check["same_release"] and not check["matters"] and check["singled_out"] == 0


def test_the_same_people_in_another_table_are_joined_by_the_key(register_url, tmp_path):
    """A later extract (other rows order, some people gone) with [register] key = "patient": the check joins the two
    releases on the key and finds as many people alone as a merge of the two released tables on the patient."""
    table = _table(300, 5)
    later = table.sample(frac=0.8, random_state=1)
    key = '\n[register]\nkey = "patient"\n'
    a = _study(tmp_path, table, k=3, name="first.csv", extra=key)
    b = _study(tmp_path, later, k=6, name="later.csv", extra=key)
    assert call("run", a, "--out", tmp_path / "one")[0] == 0
    status, out, err = call("run", b, "--out", tmp_path / "two", "--json")
    assert status == 0, err
    [check] = json.loads(out)["register"]["earlier_releases"]
    assert check["matched_by"] == "the same people by the key column 'patient'"
    qis = ["age", "sex"]
    r1, r2 = wb.run(wb.load_study(a)), wb.run(wb.load_study(b))
    t1 = r1.release.table()[qis].assign(patient=r1.dataset.frame["patient"].to_numpy())
    t2 = r2.release.table()[qis].assign(patient=r2.dataset.frame["patient"].to_numpy())
    merged = t1.merge(t2, on="patient", suffixes=("_a", "_b")).drop(columns="patient")
    sizes = merged.groupby(list(merged.columns))[merged.columns[0]].transform("size")
    assert check["complementary_release"]["records"] == len(later)
    assert check["singled_out"] == int((sizes == 1).sum())
    # without the key, another table of the same people is not joined: no earlier release is of its data
    c = _study(tmp_path, table.sample(frac=0.7, random_state=2), k=6, name="nokey.csv")
    status, out, err = call("run", c, "--out", tmp_path / "three", "--json")
    assert status == 0 and json.loads(out)["register"]["earlier_releases"] == [], err


@pytest.mark.parametrize("seed", range(25))
def test_the_intersection_attack_equals_its_definition(seed):
    """On random class codes: a record's sensitive value is revealed when the values of its class in the first
    release and of its class in the second have one value in common (brute force over sets)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    first, second = rng.integers(0, 6, n), rng.integers(0, 5, n)
    values = rng.choice(list("abcd"), n)
    result = attacks.intersection_attack(first, second, values, "s")
    sets_a = {c: set(values[first == c]) for c in set(first)}
    sets_b = {c: set(values[second == c]) for c in set(second)}
    one = [len(sets_a[a] & sets_b[b]) == 1 for a, b in zip(first, second, strict=True)]
    new = [o and len(sets_a[a]) > 1 and len(sets_b[b]) > 1 for o, a, b in zip(one, first, second, strict=True)]
    assert (result.revealed, result.new, result.records) == (sum(one), sum(new), n)
    joined = attacks.joined_classes(first, second, 3)
    pairs = pd.Series(list(zip(first, second, strict=True)))
    sizes = pairs.map(pairs.value_counts())
    assert (joined.unique, joined.below_k, joined.classes) == (int((sizes == 1).sum()), int((sizes < 3).sum()),
                                                               pairs.nunique())


@pytest.mark.slow  # two runs of the 20,000-record registry (about 15 s); on the test's own SQLite register
def test_the_registry_sample_second_release_singles_out_18813():
    """The figure of the complementary-release attack on the registry sample (its first other k-minimal node), now
    found by the register before the second release is written."""
    from workbench.cli import measure
    from workbench.risk.attack_checks import second_node

    study = wb.load_study(REGISTRY)
    first = wb.run(study)
    R.record_release(first, output="first", channel="python")
    node = second_node(study, first.dataset, first.release)
    text = ",".join(f"{q}={v}" for q, v in zip(first.dataset.quasi_identifiers, node, strict=True))
    second = measure(study, [text], first.dataset)[0]
    [check] = R.check_release(second).checks
    qis = first.dataset.quasi_identifiers
    alone, _ = _joined_alone(first.release.table()[qis], second.release.table()[qis])
    assert check.release_id == 1 and check.singled_out == alone
    assert alone > first.dataset.n // 2  # 18,813 of 20,000 with the sample as it is
    assert any(r.safe for r in check.remedies)


# ----------------------------------------------------------------------------------------------- saved projects
def test_saved_projects_belong_to_their_owner(register_url):
    """A project is listed and reopened for its owner only; saving again under a name adds a version, and the newest
    is the one listed; the table is kept only when given."""
    reg = open_register()
    study = {"config": {"data": {"sample": "teaching"}, "privacy": {"k": 3}}, "hierarchies": {"age": "a;b"}}
    first = reg.save_project("ana", "teaching k3", "sample:teaching", None, study)
    second = reg.save_project("ana", "teaching k3", "sample:teaching", None, study | {"note": "v2"})
    table = b"date,gender,age\n"
    other = reg.save_project("ben", "ben's", "people.csv", hashlib.sha256(table).hexdigest(), study, data=table)
    [listed] = reg.projects("ana")
    assert listed["id"] == second > first and not listed["has_data"]
    assert reg.project(second, "ana")["study"] == study | {"note": "v2"}
    assert reg.project(other, "ben")["data"] == table and reg.projects("ben")[0]["has_data"]
    with pytest.raises(RegisterError, match="no saved project"):
        reg.project(other, "ana")
    with pytest.raises(RegisterError, match="needs a name"):
        reg.save_project("ana", " ", "d", None, study)


def test_a_saved_study_and_its_table_come_back_exactly(register_url):
    """What the app's Data page saves (ui/projects.py: roles, hierarchy choices with an imported file's text, posets,
    widget settings) and a table's bytes read back equal, on both databases: text beyond ASCII, floats, nesting, a
    large hierarchy and bytes that are not text."""
    rng = np.random.default_rng(7)
    arx = "\n".join(f"{i};{i // 10 * 10}-{i // 10 * 10 + 9};*" for i in range(60_000))
    study = {"format": 1, "dataset": "uploaded", "data_name": "données été.csv", "data_sha256": "ab" * 32,
             "roles": {"âge": "quasi", "sexe": "quasi", "diagnostic": "sensitive", "nom": "identifying"},
             "hierarchies": {"âge": {"mode": "arx", "text": arx, "file": "âge.csv"},
                             "sexe": {"mode": "builder",
                                      "spec": {"kind": "groupings", "levels": [{"F": "*", "M": "*"}]}}},
             "posets": {"âge": "range"},
             "settings": {"an_k": 7, "an_sup": 4.0, "an_ld": True, "an_ld_l": 2.5, "an_ld_attr": "diagnostic",
                          "an_tc_t": 0.1}}
    table = bytes(rng.integers(0, 256, 300_000, dtype=np.uint8))
    reg = open_register()
    saved = reg.save_project("ana@example.org", "étude", study["data_name"], study["data_sha256"], study, data=table)
    back = reg.project(saved, "ana@example.org")
    assert back["study"] == study and bytes(back["data"]) == table
    assert (back["name"], back["data_name"], back["data_sha256"]) == ("étude", "données été.csv", "ab" * 32)


def test_an_out_of_core_release_is_recorded_and_names_the_earlier_ones(register_url, tmp_path):
    """engine.backend = "duckdb": the release is recorded by its data file's SHA-256; with no per-record footprint
    it is not joined, and an earlier release of the file at another node is named in a warning."""
    pytest.importorskip("duckdb")
    table = _table(300, 6)
    extra = '\n[engine]\nbackend = "duckdb"\n'
    a = _study(tmp_path, table, k=3, extra=extra)
    b = _study(tmp_path, table, k=40, extra=extra)
    for config in (a, b):
        text = config.read_text().replace('compare = ["loss", "dm_star"]', 'compare = ["dm_star"]')
        config.write_text(text)
    status, out, err = call("run", a, "--out", tmp_path / "one", "--json")
    assert status == 0 and json.loads(out)["register"]["id"] == 1, err
    status, out, err = call("run", b, "--out", tmp_path / "two", "--json")
    assert status == 0, err
    summary = json.loads(out)
    rows = _history()
    digest = hashlib.sha256((tmp_path / "people.csv").read_bytes()).hexdigest()
    assert [r["data_sha256"] for r in rows] == [digest, digest]
    assert [r["node"] for r in rows][1] == summary["transformation"]
    assert rows[0]["node"] != rows[1]["node"]
    assert summary["warnings"][0].startswith("release 1 of the same data file") and summary["warnings"][0] in err


@pytest.mark.parametrize(("url", "named"), [
    ("sqlite:////srv/team/registers/board.sqlite", "the SQLite file board.sqlite"),
    ("sqlite://", "an in-memory SQLite database"),
    ("postgresql+psycopg://alice:secret@db.example.org:5433/register", "the postgresql database register on "
                                                                       "db.example.org:5433"),
    ("postgresql+psycopg://db.example.org/register", "the postgresql database register on db.example.org"),
    ("not a url", "<not a URL>"),
])
def test_the_app_names_a_register_without_a_server_path_or_credentials(url: str, named: str) -> None:
    from workbench.register.store import described

    assert described(url) == named
