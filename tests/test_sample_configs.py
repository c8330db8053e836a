"""Every sample config loads; the embedded ones run; the Adult ones say clearly when ../shared is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import needs_shared
from workbench.config import load_study
from workbench.errors import DataError
from workbench.study import load_dataset, run

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "sample_configs").glob("*.toml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_validates(path):
    study = load_study(path)
    assert study.k >= 1 and study.compare


@pytest.mark.parametrize("name", ["teaching.toml", "registry.toml"])
def test_embedded_configs_run(name):
    path = next(p for p in CONFIGS if p.name == name)
    result = run(load_study(path))
    assert result.release is not None and result.release.verify().holds
    assert set(result.scores) == set(result.study.compare)


@needs_shared
def test_adult_configs_have_their_quasi_identifiers():
    for name, count in (("adult.toml", 8), ("adult9.toml", 9)):
        ds = load_dataset(load_study(next(p for p in CONFIGS if p.name == name)))
        assert len(ds.quasi_identifiers) == count and ds.n == 30162


def test_adult_config_without_shared_folder_names_the_file(tmp_path):
    text = (Path(__file__).resolve().parents[1] / "sample_configs" / "adult.toml").read_text()
    (tmp_path / "adult.toml").write_text(text)
    with pytest.raises(DataError, match=r"data file not found: .*adult\.csv"):
        load_dataset(load_study(tmp_path / "adult.toml"))
