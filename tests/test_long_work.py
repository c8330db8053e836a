"""Long work with a progress bar and a Cancel button: model degradation's progress after each classifier × fold
(``model_degradation.add_degradation(prefer="threads")``), a progress callback that raises stopping it, and the
Compare and Anonymize pages following a job of the worker pool (``ui/long_work.py``): the bar says what is being
done, Cancel stops the job at its next report, and a finished job's result shows."""

from __future__ import annotations

import threading
import time

import pytest

from tests._app import goto, ready_own_table
from workbench.errors import WorkbenchError
from workbench.jobs.job import JobCancelledError
from workbench.ui.memo import clear


def _registry_solutions():
    from workbench import compare
    from workbench.config import study_from_dict
    from workbench.study import load_dataset

    study = study_from_dict({"data": {"sample": "registry"}, "privacy": {"k": 5, "max_suppression": 0.02},
                             "measures": {"compare": ["entropy", "loss"], "target": "high_cost"}})
    dataset = load_dataset(study)
    small = dataset.frame.sample(600, random_state=1)
    from workbench.data import Dataset

    dataset = Dataset.create(small.reset_index(drop=True), dataset.roles, dataset.hierarchies)
    table = compare.lattice_solutions(study, dataset, "k_minimal")
    return study, dataset, table


def test_degradation_in_threads_reports_every_fold_and_matches_the_processes():
    from workbench.compare.degradation import add_degradation

    study, dataset, table = _registry_solutions()
    rows = [int(i) for i in table.index[:2]]
    told: list[tuple[float, str]] = []
    lock = threading.Lock()

    def progress(fraction: float, text: str) -> None:
        with lock:
            told.append((fraction, text))

    threaded = add_degradation(table, study, dataset, rows=rows, classifiers=("zeror", "naive_bayes"), folds=3,
                               n_jobs=2, progress=progress, prefer="threads")
    processes = add_degradation(table, study, dataset, rows=rows, classifiers=("zeror", "naive_bayes"), folds=3,
                                n_jobs=1)
    assert threaded.equals(processes)  # the same folds and seeds: the same figures
    steps = [t for t in told if "fold" in t[1]]
    assert len(steps) == 2 * 2 * 3  # releases × classifiers × folds
    assert told[0] == (0.0, "rebuilding the 2 release(s)")
    fractions = [f for f, _ in steps]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert {t.split(":")[0] for _, t in steps} == {"release 1 of 2", "release 2 of 2"}
    assert any(t.endswith("naive_bayes: fold 3 of 3") for _, t in steps)


def test_a_progress_callback_that_raises_stops_degradation_within_a_fold():
    from workbench.compare.degradation import add_degradation

    study, dataset, table = _registry_solutions()
    rows = [int(i) for i in table.index[:2]]
    calls: list[str] = []
    lock = threading.Lock()

    def progress(fraction: float, text: str) -> None:
        with lock:
            calls.append(text)
            if len(calls) > 3:  # cancelled after the third report
                raise JobCancelledError()

    with pytest.raises(JobCancelledError):
        add_degradation(table, study, dataset, rows=rows, classifiers=("zeror", "naive_bayes"), folds=3, n_jobs=2,
                        progress=progress, prefer="threads")
    # each of the two threads stops at its first report after the cancel: far fewer than the 13 reports of a run
    assert 4 <= len(calls) <= 5


def _slow_degradation(monkeypatch, started: threading.Event, stopped: list[str], gate: threading.Event):
    """Model degradation replaced by a job that reports a step every 20 ms until ``gate`` is set (or it is
    cancelled: its report raises)."""
    import pandas as pd

    from workbench.compare import degradation as model_degradation

    def fake(df, study, dataset, rows=None, classifiers=(), folds=5, n_jobs=2, progress=None, prefer="processes"):
        assert prefer == "threads" and progress is not None
        step = 0
        try:
            while not gate.is_set():
                progress(min(step / 100, 0.99), f"naive_bayes: fold {step % 5 + 1} of 5")
                started.set()
                step += 1
                time.sleep(0.02)
        except JobCancelledError:
            stopped.append("cancelled")
            raise
        stopped.append("finished")
        out = df.copy()
        for column in ("accuracy_original", "accuracy_released", "accuracy_drop", "auc_original", "auc_released",
                       "auc_drop", "agreement"):
            for clf in ("zeror", "naive_bayes"):
                out.loc[rows, f"degradation_{clf}_{column}"] = 0.5
        return out

    monkeypatch.setattr(model_degradation, "add_degradation", fake)
    return pd


@pytest.fixture
def short_grace(monkeypatch):
    from workbench.ui import long_work

    monkeypatch.setattr(long_work, "GRACE_SECONDS", 0.3)


def _wait_for(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert condition()


def _compare_with_target():
    at = ready_own_table("outcome", ["yes", "no"], '[measures]\ntarget = "outcome"\n', seed=3, n=120)
    goto(at, "Compare").run()
    assert not at.exception and at.multiselect(key="cmp_deg_rows").value
    return at


def test_model_degradation_shows_what_it_does_and_cancel_stops_it(monkeypatch, short_grace):
    started, gate, stopped = threading.Event(), threading.Event(), []
    _slow_degradation(monkeypatch, started, stopped, gate)
    at = _compare_with_target()
    at.button(key="cmp_deg_run").click().run()
    assert not at.exception and started.wait(10)
    at.run()  # the panel's refresh, as the browser's timer would run it
    bar = at.get("progress")[-1]
    assert bar.text.startswith("Model degradation of ") and "naive_bayes: fold" in bar.text and bar.value > 0
    at.button(key="cmp_deg_cancel_panel").click().run()
    assert not at.exception
    assert any("cancelled" in i.value for i in at.info)
    _wait_for(lambda: stopped == ["cancelled"])  # the job ended at its next progress report
    at.run()  # the request is forgotten: nothing starts again
    assert not at.get("progress") and stopped == ["cancelled"]
    gate.set()


def test_model_degradation_that_takes_long_shows_its_result_when_done(monkeypatch, short_grace):
    started, gate, stopped = threading.Event(), threading.Event(), []
    _slow_degradation(monkeypatch, started, stopped, gate)
    at = _compare_with_target()
    at.button(key="cmp_deg_run").click().run()
    assert started.wait(10) and at.get("progress") and at.button(key="cmp_deg_cancel_panel")
    gate.set()
    _wait_for(lambda: stopped == ["finished"])
    time.sleep(0.2)  # the job stores its result
    at.run()
    assert not at.exception and not at.get("progress")
    summary = next(d.value for d in at.dataframe if "auc_drop" in d.value.columns)
    assert set(summary.classifier) == {"zeror", "naive_bayes"}


def test_an_anonymize_run_in_the_pool_shows_its_step_and_cancel_stops_it(monkeypatch, short_grace):
    from streamlit.testing.v1 import AppTest

    from tests._app import APP
    from workbench.ui import cached

    started, gate, stopped = threading.Event(), threading.Event(), []

    def slow_run(study, dataset=None, progress=None):
        try:
            while not gate.is_set():
                progress(0.15, f"searching the lattice with {study.algorithm}")
                started.set()
                time.sleep(0.02)
        except JobCancelledError:
            stopped.append("cancelled")
            raise
        raise AssertionError("the run was not cancelled")

    monkeypatch.setattr(cached, "run", slow_run)
    clear()  # an earlier test's teaching result would be served from the shared cache without a run
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    goto(at, "Anonymize").run()
    try:
        at.button[0].click().run()  # Run
        assert not at.exception and started.wait(120)  # the pool's worker may start late on a loaded machine
        at.run()
        bar = at.get("progress")[-1]
        assert bar.text.startswith("lattice engine, flash: searching the lattice with flash (") and bar.value == 15
        at.button(key="an_run_cancel_panel").click().run()
        assert not at.exception and any("Run cancelled" in i.value for i in at.info)
        _wait_for(lambda: stopped == ["cancelled"])
        at.run()
        assert not at.get("progress") and not at.get("metric")  # nothing restarted, no result
    finally:
        gate.set()
        clear()


@pytest.mark.parametrize(("value", "seconds"), [(None, 10.0), ("2", 2.0), ("0", 0.0), ("1.5", 1.5)])
def test_the_page_wait_is_the_servers_setting(monkeypatch, value, seconds) -> None:
    from workbench.ui import long_work

    if value is None:
        monkeypatch.delenv("WORKBENCH_PAGE_WAIT", raising=False)
    else:
        monkeypatch.setenv("WORKBENCH_PAGE_WAIT", value)
    assert long_work.grace_seconds() == seconds


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf", ""])
def test_a_page_wait_that_is_not_seconds_is_one_line(monkeypatch, value) -> None:
    from workbench.ui import long_work

    monkeypatch.setenv("WORKBENCH_PAGE_WAIT", value)
    with pytest.raises(WorkbenchError, match=r"^WORKBENCH_PAGE_WAIT must be a number of seconds, 0 or more, not "):
        long_work.grace_seconds()
