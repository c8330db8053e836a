"""Sweeps in parallel (workbench.jobs.parallel): ``compare.sweep`` and ``workbench compare`` give the same table, row
for row, with engine.jobs = 2 on local processes (loky), threads and a Dask cluster (in-process) as sequentially,
and the same as the per-setting ``solutions`` it is defined by; user measures (a notebook's, a plugin file's)
reach the worker processes and their failures come back; bad settings are refused in one line."""

from __future__ import annotations

import importlib.util
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from tests._cli import call
from tests.test_user_measures import FAILING
from workbench import compare
from workbench.config import load_study
from workbench.config.checks import local_cpus
from workbench.data import Dataset
from workbench.errors import ConfigError, MeasureError
from workbench.jobs import parallel
from workbench.study import load_dataset
from workbench.user_measure import collecting_failures

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"
KS, SUPS = [2, 5], [0.0, 0.05]
needs_two_cpus = pytest.mark.skipif(local_cpus() < 2, reason="jobs = 2 on a local backend needs two CPUs")


@pytest.fixture(scope="module")
def adult() -> tuple[wb.Study, Dataset]:
    """Adult's first 200 records, 8 quasi-identifiers (sample_configs/adult.toml)."""
    study = load_study(ROOT / "sample_configs" / "adult.toml")
    full = load_dataset(study)
    return study, Dataset.create(full.frame.iloc[:200].reset_index(drop=True), full.roles, full.hierarchies,
                                 source="adult (200 records)")


@pytest.fixture(scope="module")
def sequential(adult) -> pd.DataFrame:
    study, dataset = adult
    return compare.sweep(study, dataset, KS, max_suppressions=SUPS)


def test_the_sequential_sweep_is_the_solutions_of_each_setting(adult, sequential):
    """The reference: ``solutions`` of every (k, max_suppression), in order, with the limit appended."""
    study, dataset = adult
    expected = pd.concat([compare.solutions(replace(study, k=k, max_suppression=s), dataset).assign(max_suppression=s)
                          for k in KS for s in SUPS], ignore_index=True)
    pd.testing.assert_frame_equal(sequential, expected)
    assert set(sequential.engine) == {"lattice", "local"} and len(sequential) > 4


@needs_two_cpus
@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_two_local_jobs_give_the_same_table(adult, sequential, backend):
    study, dataset = adult
    seen = []
    table = compare.sweep(study, dataset, KS, max_suppressions=SUPS, jobs=2, backend=backend,
                          progress=lambda f, text: seen.append(f))
    pd.testing.assert_frame_equal(table, sequential)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) == len(KS) * len(SUPS) + 3 * len(KS)  # 3 local
    assert wb.sweep is compare.sweep  # the runner's module (workbench.jobs.parallel) never shadows the notebook's name


def test_a_dask_cluster_gives_the_same_table(adult, sequential):
    pytest.importorskip("distributed")
    from distributed import Client

    study, dataset = adult
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None):
        table = compare.sweep(replace(study, sweep_backend="dask", jobs=2), dataset, KS, max_suppressions=SUPS)
        unset = compare.sweep(replace(study, sweep_backend="dask"), dataset, KS, max_suppressions=SUPS)
    pd.testing.assert_frame_equal(table, sequential)
    pd.testing.assert_frame_equal(unset, sequential)  # jobs unset: every thread of the cluster


@needs_two_cpus
@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_the_cli_writes_the_same_solutions_csv(tmp_path, backend):
    status, _, err = call("compare", TEACHING, "--k", "2,3", "--max-suppression", "0,0.2", "--out", tmp_path / "seq")
    assert status == 0, err
    status, _, err = call("compare", TEACHING, "--k", "2,3", "--max-suppression", "0,0.2", "--jobs", "2",
                          "--set", f'engine.sweep_backend="{backend}"', "--out", tmp_path / "par")
    assert status == 0, err
    sequential = (tmp_path / "seq" / "solutions.csv").read_bytes()
    assert (tmp_path / "par" / "solutions.csv").read_bytes() == sequential
    assert len(pd.read_csv(tmp_path / "seq" / "solutions.csv")) > 4


FRAGILE = "import numpy as np\nfrom workbench import measure\n\n" + FAILING  # tests/test_user_measures.py's


def _sum_of_heights(view: object) -> float:
    return float(sum(int(c.height.sum()) for c in view.columns))


def _twice_the_sum(view: object) -> float:
    return 2.0 * _sum_of_heights(view)


@needs_two_cpus
def test_user_measures_reach_the_worker_processes_and_their_failures_come_back(tmp_path):
    (tmp_path / "fragile.py").write_text(textwrap.dedent(FRAGILE), encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text(TEACHING.read_text(encoding="utf-8").replace(
        'compare = ["height", "precision", "dm", "dm_star", "entropy", "loss"]',
        'compare = ["height", "fragile", "mine"]\nplugins = ["fragile.py"]'), encoding="utf-8")
    with wb.registered_within():
        wb.measure(id="mine")(_sum_of_heights)  # registered here, as in a notebook: shipped by value
        study = load_study(config)
        dataset = load_dataset(study)
        with collecting_failures() as failures:
            expected = compare.sweep(study, dataset, [2, 3], max_suppressions=[0.0, 0.2])
        assert len(failures) >= 2 and expected.fragile.isna().any() and expected.mine.notna().all()
        with collecting_failures() as got:
            table = compare.sweep(study, dataset, [2, 3], max_suppressions=[0.0, 0.2], jobs=2, backend="loky")
        pd.testing.assert_frame_equal(table, expected)
        assert got == failures
        with pytest.raises(MeasureError, match="fragile"):
            compare.sweep(study, dataset, [2, 3], jobs=2)  # outside collecting_failures: the worker's error
        wb.measure(id="mine", replace=True)(_twice_the_sum)  # the workers held the old one: replaced
        with collecting_failures():
            again = compare.sweep(study, dataset, [2, 3], max_suppressions=[0.0, 0.2], jobs=2, backend="loky")
        np.testing.assert_array_equal(again.mine.to_numpy(), 2 * expected.mine.to_numpy())


def test_bad_settings_are_refused_in_one_line(adult, monkeypatch):
    study, dataset = adult
    cases = {("jobs", 0): "engine.jobs must be a whole number from 1 to 1,024, got 0",
             ("jobs", True): "engine.jobs must be a whole number from 1 to 1,024, got True",
             ("sweep_backend", "ray"): "engine.sweep_backend 'ray' is not one of loky, threading, dask"}
    for (key, value), message in cases.items():
        with pytest.raises(ConfigError, match=message) as info:
            replace(study, **{key: value})
        assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="engine.jobs must be"):
        compare.sweep(study, dataset, KS, jobs=-1)
    assert parallel.workers(replace(study, jobs=local_cpus() + 1, sweep_backend="dask")) == local_cpus() + 1
    assert parallel.workers(replace(study, jobs=local_cpus() + 1)) == local_cpus()  # this machine: one per CPU at most
    with pytest.raises(ConfigError, match="needs engine.backend = 'dask' or engine.sweep_backend = 'dask'"):
        replace(study, scheduler="tcp://127.0.0.1:8786")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    with pytest.raises(ConfigError, match=r"engine.sweep_backend 'dask' needs dask and distributed: pip install"):
        replace(study, sweep_backend="dask")


def test_the_cli_names_the_option(tmp_path):
    status, out, err = call("compare", TEACHING, "--jobs", "0")
    assert status == 2 and out == ""
    assert err == "workbench: --jobs 0: engine.jobs must be a whole number from 1 to 1,024, got 0\n"
    status, _, err = call("compare", TEACHING, "--set", 'engine.sweep_backend="ray"')
    assert status == 2 and "engine.sweep_backend 'ray' is not one of loky, threading, dask" in err
    assert err.count("\n") == 1


def test_an_unreachable_scheduler_is_one_line(adult, monkeypatch):
    pytest.importorskip("distributed")
    study, dataset = adult
    monkeypatch.setattr(parallel, "SCHEDULER_TIMEOUT", "1s")
    study = replace(study, sweep_backend="dask", jobs=2, scheduler="tcp://127.0.0.1:9")
    with pytest.raises(ConfigError, match=r"engine.scheduler 'tcp://127.0.0.1:9': cannot connect") as info:
        compare.sweep(study, dataset, KS)
    assert "\n" not in str(info.value)


@needs_two_cpus
def test_the_studies_grids_give_the_same_rows(adult):
    """The experiments' sweeps: the same rows, in the same order, with two jobs (the times aside)."""
    from workbench.experiments import el_emam_2009, katirai_synthetic, local_vs_lattice

    study, dataset = adult
    parallel_study = replace(study, jobs=2)
    grid = {"ks": (2, 5), "max_suppressions": (0.01, 0.05), "datafly_runs": 2}
    pd.testing.assert_frame_equal(el_emam_2009.comparison(parallel_study, dataset, **grid),
                                  el_emam_2009.comparison(study, dataset, **grid))
    same = local_vs_lattice.comparison(study, dataset, ks=(2, 5)).drop(columns="seconds")
    pd.testing.assert_frame_equal(local_vs_lattice.comparison(parallel_study, dataset, ks=(2, 5)).drop(
        columns="seconds"), same)
    sizes = {"sizes": (60,), "seeds": (0, 1)}
    pd.testing.assert_frame_equal(katirai_synthetic.comparison(replace(parallel_study, sweep_backend="threading"),
                                                               dataset, **sizes),
                                  katirai_synthetic.comparison(study, dataset, **sizes))


@needs_two_cpus
def test_ayala_riveras_grid_gives_the_same_rows():
    from workbench.experiments import ayala_rivera_2014 as ayala

    grid = {"ks": (5, 50), "qi_counts": (3,), "algorithms": ayala.ALGORITHMS[:3] + ayala.ALGORITHMS[4:5]}
    sequential = ayala.comparison(**grid).drop(columns="seconds")
    parallel_rows = ayala.comparison(**grid, jobs=2).drop(columns="seconds")
    pd.testing.assert_frame_equal(parallel_rows, sequential)
    assert len(sequential) == 2 * 4 and sequential.k_anonymous.all()
    with pytest.raises(ConfigError, match="engine.sweep_backend 'ray'"):
        ayala.comparison(**grid, jobs=2, backend="ray")
