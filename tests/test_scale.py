"""The out-of-core backends (DuckDB, Dask on a local in-process cluster) against the in-memory path on small data:
the same node, class sizes, measures and released table (as a multiset of rows), and verification from the file."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from workbench.config import load_study
from workbench.errors import ConfigError, VerificationError
from workbench.samples import adult
from workbench.scale import run_scaled
from workbench.study import run

pytest.importorskip("duckdb")
pytest.importorskip("distributed")

QUASI = adult.QUASI_IDENTIFIERS


def _write(folder: Path, fmt: str, rows: int = 1500) -> Path:
    frame = adult.build(8)[0].iloc[:rows].copy()
    frame.loc[frame.index[:7], "occupation"] = ""  # missing values in a released column
    frame.loc[frame.index[7:9], "occupation"] = "=cmd"  # a formula-like cell
    frame["=note"] = "-1+1"  # a formula-like column name and cell
    (folder / "h").mkdir(exist_ok=True)
    for a in QUASI:
        with adult.resources.as_file(adult._FOLDER / f"adult_hierarchy_{a}.csv") as path:
            shutil.copyfile(path, folder / "h" / f"{a}.csv")
    data = folder / f"data.{fmt}"
    if fmt == "csv":
        frame.to_csv(data, index=False)
    else:
        frame.to_parquet(data, index=False)
    lines = ["[data]", f'path = "{data.name}"']
    for a in QUASI:
        lines += [f"[attributes.{a}]", 'role = "quasi"', f'hierarchy = "h/{a}.csv"']
    lines += ["[attributes.occupation]", 'role = "insensitive"', '[attributes."=note"]', 'role = "insensitive"',
              "[privacy]", "k = 5", "max_suppression = 0.05",
              "[engine]", 'algorithm = "flash"']
    config = folder / f"config_{fmt}.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _rows(path: Path) -> Counter:
    table = pd.read_parquet(path).astype(str) if path.suffix == ".parquet" else \
        pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
    return Counter(map(tuple, table.to_numpy().tolist()))


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client

    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        yield client


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("backend", ["duckdb", "dask"])
@pytest.mark.parametrize("policy", ["mark", "drop"])
def test_backends_equal_the_in_memory_run(tmp_path, cluster, fmt, backend, policy):
    config = _write(tmp_path, fmt)
    overrides = [f"release.suppressed={policy}"]
    study = load_study(config, overrides)
    reference = run(study)
    ref_files = reference.release.write(tmp_path / "ref", seed=study.seed, suppressed_policy=policy)
    scaled = run_scaled(load_study(config, [*overrides, f"engine.backend={backend}"]), tmp_path / "out")
    assert scaled.node == tuple(reference.release.transformation.values())
    kept = reference.release.codes[~reference.release.suppressed]
    sizes = pd.DataFrame(kept).value_counts().to_numpy()
    assert sorted(scaled.class_sizes.tolist()) == sorted(sizes.tolist())
    assert scaled.suppressed == int(reference.release.suppressed.sum()) > 0
    for i, score in reference.scores.items():
        assert scaled.scores[i].value == pytest.approx(score.value, rel=1e-12)
    assert scaled.guarantee is not None and scaled.guarantee.holds
    assert scaled.guarantee.suppressed == scaled.suppressed
    assert _rows(scaled.files["release"]) == _rows(ref_files["release"])
    if fmt == "csv":  # the header as the in-memory release writes it: formula-like names escaped
        header = scaled.files["release"].read_text(encoding="utf-8").split("\n", 1)[0]
        assert header == ref_files["release"].read_text(encoding="utf-8").split("\n", 1)[0]
        assert "'=note" in header.split(",")
    provenance = json.loads(scaled.files["provenance"].read_text())
    assert provenance["backend"] == backend and provenance["guarantee"]["holds"]


@pytest.mark.parametrize("backend", ["duckdb", "dask"])
def test_two_releases_of_one_file_are_not_row_aligned(tmp_path, cluster, backend):
    """Sweeney's unsorted matching: two releases of one file at different nodes, written with the same (default)
    seed, list the records in independent orders (the occupation column, released unchanged, is a fingerprint of
    the order); the same release written twice is the same file."""
    config = _write(tmp_path, "csv")
    orders = []
    for k, out in ((5, "a"), (25, "b"), (5, "c")):
        study = load_study(config, [f"engine.backend={backend}", f"privacy.k={k}"])
        files = run_scaled(study, tmp_path / out).files
        table = pd.read_csv(files["release"], dtype=str, keep_default_na=False)
        orders.append(table["occupation"].tolist())
    assert orders[0] == orders[2]
    assert orders[0] != orders[1] and sorted(orders[0]) == sorted(orders[1])


def test_the_file_check_catches_a_tampered_release(tmp_path):
    from workbench.scale import backends, frequency_dataset, verify_file

    config = _write(tmp_path, "csv")
    study = load_study(config, ["engine.backend=duckdb"])
    result = run_scaled(study, tmp_path / "out")
    dataset, _, counts = frequency_dataset(study, backends.Source.of(study.data_path, None))
    table = pd.read_csv(result.files["release"], dtype=str, keep_default_na=False)
    kept = table[(table[list(QUASI)] != "*").any(axis=1)]
    table.loc[kept.index[0], "age"] = "not a label"  # a class of one, with a label its hierarchy lacks
    bad = tmp_path / "bad.csv"
    table.to_csv(bad, index=False)
    with pytest.raises(VerificationError, match="not a level"):
        verify_file(study, dataset, counts, result.node, backends.Source(bad, False))


def test_backend_is_validated(tmp_path):
    config = _write(tmp_path, "csv")
    with pytest.raises(ConfigError, match="engine.backend 'spark' is not one of"):
        load_study(config, ["engine.backend=spark"])
    with pytest.raises(ConfigError, match="needs engine.kind = 'lattice'"):
        load_study(config, ["engine.backend=duckdb", "engine.kind=local", "engine.algorithm=greedy",
                            "engine.objective=vinterbo"])
    with pytest.raises(ConfigError, match="a CSV or Parquet"):
        load_study(Path("sample_configs/adult.toml"), ["engine.backend=duckdb"])
    with pytest.raises(ConfigError, match="engine.scheduler"):
        load_study(config, ["engine.scheduler=tcp://127.0.0.1:8786"])
