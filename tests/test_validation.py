"""One validation path: a Study checks itself when made or replaced, and the refusals that depend on the data
or the algorithm are decided by ``workbench.policy`` for the CLI and the app alike."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from workbench import policy
from workbench.cli import main
from workbench.config import load_study, study_from_dict
from workbench.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT / "sample_configs" / "teaching.toml"


@pytest.mark.parametrize(("change", "message"), [
    ({"k": 0}, "privacy.k must be at least 1"),
    ({"k": 2.5}, "privacy.k must be an integer"),
    ({"max_suppression": 1.5}, "privacy.max_suppression must be a fraction"),
    ({"algorithm": "greedy"}, "engine.algorithm 'greedy' is not a lattice algorithm"),
    ({"engine": "local"}, "is not a local algorithm"),
    ({"engine": "local", "algorithm": "greedy", "objective": "entropy"}, "cannot guide the local engine"),
    ({"objective": "nope"}, "engine.objective 'nope' is not a measure id"),
    ({"compare": ("height", "nope")}, "measures.compare has 'nope'"),
    ({"time_limit": 0.0}, "engine.time_limit must be a positive number"),
    ({"suppressed": "hide"}, "release.suppressed must be 'mark' or 'drop'"),
    ({"release_format": "json"}, "release.format must be csv, parquet or xlsx"),
])
def test_replace_revalidates(change, message):
    study = load_study(TEACHING)
    with pytest.raises(ConfigError, match=message) as raised:
        replace(study, **change)
    assert str(raised.value).startswith(f"{study.source}: ")


def test_replace_with_allowed_values_keeps_a_valid_study():
    study = load_study(TEACHING)
    changed = replace(study, k=5, engine="local", algorithm="partition", objective="vinterbo", max_suppression=0.0)
    assert (changed.k, changed.engine, changed.algorithm) == (5, "local", "partition")


def test_config_and_constructor_give_the_same_message():
    raw = {"data": {"sample": "teaching"}, "attributes": {"age": {"role": "quasi"}}, "privacy": {"k": 0}}
    with pytest.raises(ConfigError) as from_config:
        study_from_dict(raw, source="x.toml")
    study = study_from_dict(raw | {"privacy": {"k": 2}}, source="x.toml")
    with pytest.raises(ConfigError) as from_replace:
        replace(study, k=0)
    assert str(from_config.value) == str(from_replace.value)


def test_attribute_values_are_validated_by_the_study():
    study = study_from_dict({"data": {"sample": "teaching"}, "attributes": {"age": {"role": "quasi"}}})
    bad = replace(study.attributes[0], poset="matrix")
    with pytest.raises(ConfigError, match="needs a poset_file"):
        replace(study, attributes=(bad,))


def test_search_refusal_without_a_time_limit():
    big = policy.MAX_LATTICE_NODES + 1
    assert policy.search_refusal("exhaustive", None, policy.MAX_LATTICE_NODES) is None
    assert "exhaustive has no time limit" in policy.search_refusal("exhaustive", 60.0, big)
    assert policy.search_refusal("flash", None, big) is None  # anytime: it runs under the default budget
    assert policy.search_refusal("flash", 60.0, big) is None
    assert policy.time_budget("flash", None, big) == (policy.DEFAULT_TIME_LIMIT, policy.time_budget("flash", None,
                                                                                                    big)[1])
    assert f"default budget of {policy.DEFAULT_TIME_LIMIT:g} s" in policy.time_budget("flash", None, big)[1]
    assert policy.time_budget("flash", 5.0, big) == (5.0, "")  # the configured limit wins
    assert policy.time_budget("flash", None, policy.MAX_LATTICE_NODES) == (None, "")  # small: no limit
    assert policy.table_refusal(big) and policy.table_refusal(policy.MAX_LATTICE_NODES) is None


def test_cli_applies_the_apps_node_limit(monkeypatch, capsys):
    monkeypatch.setattr(policy, "MAX_LATTICE_NODES", 10)  # the teaching lattice has 30 nodes
    assert main(["run", str(TEACHING)]) == 2
    assert "exhaustive has no time limit and may check up to 30 lattice nodes" in capsys.readouterr().err
    assert main(["run", str(TEACHING), "--set", "engine.algorithm=flash", "--set", "engine.time_limit=60"]) == 0


def test_monotone_policy_is_one_function():
    study = load_study(TEACHING)
    assert policy.needs_monotone_waiver("ola", "dm") and not policy.needs_monotone_waiver("bnb", "dm")
    assert not policy.needs_monotone_waiver("flash", "dm")  # Flash's linear phase: optimal for any objective
    assert "needs a monotone objective" in policy.monotone_refusal(replace(study, objective="dm"), "ola")
    assert policy.monotone_refusal(replace(study, objective="dm", allow_non_monotone=True), "ola") is None
