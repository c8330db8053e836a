"""Every sample config loads and runs from the repository alone: nothing points outside it."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from workbench.config import load_study
from workbench.study import load_dataset, run

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "sample_configs").glob("*.toml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_validates(path):
    study = load_study(path)
    assert study.k >= 1 and study.compare


@pytest.mark.parametrize("name", ["teaching.toml", "registry.toml", "adult.toml", "adult9.toml", "survey.toml"])
def test_embedded_configs_run(name):
    path = next(p for p in CONFIGS if p.name == name)
    result = run(replace(load_study(path), algorithm="flash"))
    assert result.release is not None and result.release.verify().holds
    assert set(result.scores) == set(result.study.compare)


def test_adult_configs_have_their_quasi_identifiers():
    for name, count in (("adult.toml", 8), ("adult9.toml", 9)):
        ds = load_dataset(load_study(next(p for p in CONFIGS if p.name == name)))
        assert len(ds.quasi_identifiers) == count and ds.n == 30162


def test_adult_config_runs_anywhere(tmp_path):
    """A sample config copied to a folder with nothing beside it loads the same data (the Adult sample is
    embedded, not read from a path next to the checkout)."""
    text = (ROOT / "sample_configs" / "adult.toml").read_text()
    (tmp_path / "adult.toml").write_text(text)
    assert load_dataset(load_study(tmp_path / "adult.toml")).frame.equals(
        load_dataset(load_study(ROOT / "sample_configs" / "adult.toml")).frame)


def test_no_file_points_outside_the_repository():
    """A user's clone has only the repository: no tracked file may point to the folder beside it."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    # joined at run time, so that neither this file nor its bytecode holds them (constants added up would be)
    needles = ["/".join(parts) for parts in (("..", "shared"), ("shared", "data/adult"), ("shared", "conformance"))]
    offenders = []
    for name in tracked:
        path = ROOT / name
        if path.suffix in {".py", ".toml", ".md", ".cfg", ".txt", ".ipynb", ""} and path.is_file():
            text = path.read_text(errors="replace")
            if any(needle in text for needle in needles):
                offenders.append(name)
    assert offenders == []
