"""Shared fixtures: the embedded Adult sample and ARX's conformance values (tests/fixtures/conformance)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("WORKBENCH_PREFETCH", "0")  # AppTest timings are their own; test_prefetch turns it on

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "workbench" / "samples" / "adult"  # the embedded Adult data and ARX's hierarchy files
CONFORMANCE = ROOT / "tests" / "fixtures" / "conformance" / "arx-adult-8qi-k5-node-values.json"


@pytest.fixture(scope="session")
def adult_dataset():
    from workbench.config import load_study
    from workbench.study import load_dataset

    return load_dataset(load_study(ROOT / "sample_configs" / "adult.toml"))
