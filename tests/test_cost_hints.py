"""Time estimates the app shows are computed for the table at hand (records, distinct records), not a fixed
sentence about another table."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests._app import APP, goto, ready_own_table
from workbench import compare, policy
from workbench.config import load_study
from workbench.study import load_dataset


def _distinct(frame: pd.DataFrame, quasi: list[str]) -> int:
    return len(frame[quasi].drop_duplicates())


def test_the_estimate_follows_the_table():
    small = load_dataset(load_study("sample_configs/teaching.toml"))
    large = load_dataset(load_study("sample_configs/registry.toml", ["data.rows=5000"]))
    for ds in (small, large):
        assert policy.distinct_records(ds) == _distinct(ds.frame, ds.quasi_identifiers)
    assert policy.distinct_records(small) == 8  # El Emam's Fig. 3: 8 distinct rows of 10
    assert policy.local_engine_hint(small) == "under a second on this table (10 records, 8 distinct)"
    d = policy.distinct_records(large)
    expected = policy.LOCAL_SECONDS_PER_RECORD * d + policy.LOCAL_SECONDS_PER_PAIR * d * d
    assert policy.local_engine_seconds(d) == expected
    assert policy.local_engine_hint(large).endswith(f"on this table (5,000 records, {d:,} distinct)")
    assert policy.local_engine_seconds(2 * d) > 2 * policy.local_engine_seconds(d)  # Greedy's pairs
    assert [policy.duration_text(s) for s in (0.4, 2.6, 59, 150)] == [
        "under a second", "about 3 s", "about 59 s", "about 2 min"]


def test_the_estimate_is_the_right_size():
    """The estimate against a run on this machine: within a factor of 10, in CPU seconds of this process (a busy
    machine stretches the wall-clock time, not the work)."""
    study = load_study("sample_configs/registry.toml", ["data.rows=4000", "privacy.k=5"])
    ds = load_dataset(study)
    start = time.process_time()
    compare.local_solutions(study, ds, compare.COMPARED_LOCAL_ALGORITHMS)
    seconds = time.process_time() - start
    estimate = policy.local_engine_seconds(policy.distinct_records(ds))
    assert estimate / 10 <= seconds <= estimate * 10 + 1, (estimate, seconds)


def _hints(at: AppTest) -> tuple[str, str]:
    goto(at, "Compare").run()
    assert not at.exception
    return at.toggle(key="cmp_local").help, at.checkbox(key="cmp_sweep_local").label


def test_the_compare_page_hints_are_for_the_table_at_hand():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.selectbox(key="dataset").select("teaching").run()
    help_small, sweep_small = _hints(at)
    assert help_small.endswith("under a second on this table (10 records, 8 distinct)")
    assert "under a second on this table (10 records, 8 distinct), per k" in sweep_small
    assert "20,000" not in help_small + sweep_small
    n = 3000
    own = ready_own_table("town", [f"T{i}" for i in range(40)], '[attributes.town]\nrole = "sensitive"', 7, n)
    help_large, _ = _hints(own)
    rng = np.random.default_rng(7)  # ready_own_table's people again: age and sex are its first draws
    people = pd.DataFrame({"age": rng.integers(20, 80, n).astype(str), "sex": rng.choice(["F", "M"], n)})
    d = _distinct(people, ["age", "sex"])
    assert help_large.endswith(f"on this table ({n:,} records, {d:,} distinct)")
    assert help_large != help_small
