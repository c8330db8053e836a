"""Each registry is listed once and everything else reads it: the config's allowed values, the study
runner's dispatch, the comparison's fast paths and the CLI's choices."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import measures as M
from workbench import config, objective, study
from workbench.cli import _parser
from workbench.compare.nodes import CANDIDATE_SETS, EXACT_NODE_MEASURES
from workbench.config import AttributeSpec, study_from_dict
from workbench.errors import ConfigError
from workbench.lattice.search import ALGORITHMS
from workbench.local import LOCAL_ALGORITHMS, POSETS

TEACHING = {"data": {"sample": "teaching"}, "attributes": {a: {"role": "quasi"} for a in ("date", "gender", "age")},
            "privacy": {"k": 2}, "measures": {"compare": ["height"]}}


def _with(engine: dict) -> dict:
    return TEACHING | {"engine": engine}


def test_config_allowed_values_are_the_registries():
    assert config.LATTICE_ALGORITHMS == tuple(ALGORITHMS)
    assert config.LOCAL_ALGORITHMS == tuple(LOCAL_ALGORITHMS)
    assert config.POSET_KINDS == tuple(POSETS)
    assert set(config.MEASURE_IDS) == {*M.MEASURES, config.DEGRADATION}
    assert set(config.LOCAL_OBJECTIVES) == {"vinterbo", "col_mi", "pmi"}
    assert objective.INTEGER_MEASURES == ("height", "dm", "dm_star")
    assert EXACT_NODE_MEASURES == ("height", "dm", "dm_star", "aecs")


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_every_lattice_algorithm_loads_and_runs(algorithm):
    result = study.run(study_from_dict(_with({"algorithm": algorithm, "objective": "height"})))
    assert result.release is not None and result.k_anonymous


@pytest.mark.parametrize("algorithm", list(LOCAL_ALGORITHMS))
def test_every_local_algorithm_loads_and_runs(algorithm):
    result = study.run(study_from_dict(_with({"kind": "local", "algorithm": algorithm, "objective": "vinterbo"})))
    assert result.release is not None and result.release.algorithm == algorithm


def test_unregistered_ids_are_refused():
    for engine in ({"algorithm": "nope"}, {"kind": "local", "algorithm": "flash"}, {"objective": "nope"},
                   {"kind": "local", "algorithm": "greedy", "objective": "entropy"}):
        with pytest.raises(ConfigError):
            study_from_dict(_with(engine))


def test_poset_parameters_are_attribute_keys_and_factories_take_them():
    fields = {f.name for f in dataclasses.fields(AttributeSpec)}
    for kind in POSETS.values():
        assert set(kind.parameters) <= fields, kind.id
        if kind.build is not None:
            accepted = list(inspect.signature(kind.build).parameters)
            assert accepted == ["values", "hierarchy", *kind.parameters], kind.id
    built = POSETS["range"].build(["1", "5", "9"], None, max_diff=None)
    assert np.asarray(built.leaves).shape == (3,)


def test_measure_flags_hold_on_a_lattice():
    """``integer`` measures are integers at every node, ``exact_node`` ones equal the cell-level value."""
    from workbench.release import Release

    s = study_from_dict(_with({"algorithm": "exhaustive", "objective": "height"}))
    dataset = study.load_dataset(s)
    evaluator = study.evaluator_for(s, dataset)
    scorer = objective.NodeScorer(evaluator)
    for node in evaluator.lattice.nodes():
        view = scorer.view(node)
        cells = Release.from_node(dataset, node, s.k, s.max_suppression, "test").view()
        for m in M.MEASURES.values():
            if m.integer:
                assert float(m.node(view)).is_integer(), (m.id, node)
            if m.exact_node:
                assert m.node(view) == m.cell(cells), (m.id, node)


def test_cli_choices_are_the_comparison_candidate_sets():
    args = _parser().parse_args(["compare", "x.toml", "--candidates", "top"])
    assert args.candidates == "top"
    for candidates in CANDIDATE_SETS:
        assert _parser().parse_args(["compare", "x.toml", "--candidates", candidates]).candidates == candidates


def test_direction_is_an_enum_that_serializes_as_its_text():
    import json

    assert [m.id for m in M.MEASURES.values() if m.higher_is_better] == ["nmi"]
    assert all(isinstance(m.direction, M.Direction) for m in M.MEASURES.values())
    assert json.dumps({"direction": M.MEASURES["nmi"].direction}) == '{"direction": "higher is better"}'
    assert f"{M.Direction.LOWER}" == "lower is better"
