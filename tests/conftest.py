"""Shared fixtures: the ../shared folder (Adult data, ARX conformance values) when it is present."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("WORKBENCH_PREFETCH", "0")  # AppTest timings are their own; test_prefetch turns it on

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
ADULT = SHARED / "data" / "adult"
CONFORMANCE = SHARED / "conformance" / "arx-adult-8qi-k5-node-values.json"

needs_shared = pytest.mark.skipif(
    not (ADULT / "adult.csv").exists() or not CONFORMANCE.exists(),
    reason="../shared (Adult data and ARX conformance values) is not beside this checkout",
)


@pytest.fixture(scope="session")
def adult_dataset():
    from workbench.config import load_study
    from workbench.study import load_dataset

    return load_dataset(load_study(ROOT / "sample_configs" / "adult.toml"))
